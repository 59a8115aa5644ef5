//! The file operations durability needs, behind a trait so tests can swap the operating system
//! for [`crate::sim::SimVfs`], which loses unsynced writes and tears the last one on a simulated
//! power cut.
//!
//! Contract every implementation keeps (and the log and checkpoint code relies on):
//! - [`Vfs::write_file`], [`Vfs::create_log`] and [`Vfs::write_at`] return only when what they
//!   wrote is durable;
//! - [`Vfs::rename`] is atomic and durable when it returns (the OS version syncs the folder);
//! - [`LogFile::append`] may be lost or torn by a crash until [`LogFile::sync`] returns, but
//!   never leaves a log file without a zero last byte, and no file is ever made shorter.

use std::any::Any;
use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A file that grows by appends: the write-ahead log. It always ends in at least one zero
/// byte after the last append (preallocated space, made durable before an append reaches
/// it), so a log that does not was cut short: no crash can leave one (see [`crate::wal`]).
pub trait LogFile: Send {
    /// Appends bytes (not durable until [`LogFile::sync`]), keeping a zero tail after them.
    fn append(&mut self, data: &[u8]) -> io::Result<()>;
    /// Makes every append so far durable.
    fn sync(&mut self) -> io::Result<()>;
}

/// Held while a database is open; dropping it releases the folder for other processes.
pub type LockGuard = Box<dyn Any + Send + Sync>;

/// The file system as durability sees it.
pub trait Vfs: Send + Sync {
    /// Creates a folder and its parents.
    fn create_dir_all(&self, dir: &Path) -> io::Result<()>;
    /// Names of the files in a folder.
    fn list(&self, dir: &Path) -> io::Result<Vec<String>>;
    /// A whole file.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;
    /// Creates or replaces a file with `data` and makes it durable.
    fn write_file(&self, path: &Path, data: &[u8]) -> io::Result<()>;
    /// Creates a log file holding `header` and then zeros (at least one), durably.
    fn create_log(&self, path: &Path, header: &[u8]) -> io::Result<()>;
    /// Opens an existing log file for appending at `end`, where its records end (the bytes
    /// after `end` are zeros).
    fn open_log(&self, path: &Path, end: u64) -> io::Result<Box<dyn LogFile>>;
    /// Renames a file, atomically and durably.
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// Removes a file.
    fn remove(&self, path: &Path) -> io::Result<()>;
    /// Overwrites (or extends) an existing file from byte `at` with `data`, durably.
    fn write_at(&self, path: &Path, at: u64, data: &[u8]) -> io::Result<()>;
    /// Takes the folder's exclusive lock; `ErrorKind::WouldBlock` if another holder has it.
    fn lock(&self, dir: &Path) -> io::Result<LockGuard>;
}

/// The file in a database folder that [`OsVfs::lock`] locks.
pub const LOCK_FILE: &str = "LOCK";

/// The real file system.
#[derive(Debug, Default, Clone, Copy)]
pub struct OsVfs;

/// A log file that grows in zero-filled, synced chunks and is then overwritten in place: a
/// commit's `fdatasync` then never has to journal a new file size or block allocation, which
/// roughly halves its cost on ext4. Replay treats a zero tail as the end of the log. An append
/// never reaches the last allocated byte (the file grows first), so the file always ends in a
/// zero, whatever a crash interrupts.
struct OsLog {
    file: File,
    /// Where the next append goes (the log's logical end).
    pos: u64,
    /// Bytes zero-filled and synced so far.
    allocated: u64,
}

/// How much the log grows at a time, and how big a new log is made (a checkpoint makes the
/// next log before it holds commits up; a new database makes its first log before it has
/// any commit to hold up).
const LOG_CHUNK: u64 = 4 << 20;

impl LogFile for OsLog {
    fn append(&mut self, data: &[u8]) -> io::Result<()> {
        use std::os::unix::fs::FileExt;
        let end = self.pos + data.len() as u64;
        if end >= self.allocated {
            let target = (end / LOG_CHUNK + 1) * LOG_CHUNK;
            let zeros = vec![0u8; (target - self.allocated) as usize];
            self.file.write_all_at(&zeros, self.allocated)?;
            self.file.sync_all()?;
            self.allocated = target;
        }
        self.file.write_all_at(data, self.pos)?;
        self.pos = end;
        Ok(())
    }
    fn sync(&mut self) -> io::Result<()> {
        self.file.sync_data()
    }
}

fn sync_dir(path: &Path) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    File::open(dir)?.sync_all()
}

impl Vfs for OsVfs {
    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        fs::create_dir_all(dir)
    }
    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        let mut out = Vec::new();
        for e in fs::read_dir(dir)? {
            out.push(e?.file_name().to_string_lossy().into_owned());
        }
        Ok(out)
    }
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        fs::read(path)
    }
    fn write_file(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        let mut f = File::create(path)?;
        f.write_all(data)?;
        f.sync_all()?;
        sync_dir(path)
    }
    fn create_log(&self, path: &Path, header: &[u8]) -> io::Result<()> {
        // a whole chunk: the first commits need not grow the file while others wait
        let mut bytes = vec![0u8; LOG_CHUNK.max(header.len() as u64 + 1) as usize];
        bytes[..header.len()].copy_from_slice(header);
        self.write_file(path, &bytes)
    }
    fn open_log(&self, path: &Path, end: u64) -> io::Result<Box<dyn LogFile>> {
        let file = OpenOptions::new().read(true).write(true).open(path)?;
        let len = file.metadata()?.len();
        if end >= len {
            return Err(io::Error::other(format!(
                "{}: no zero tail after byte {end}",
                path.display()
            )));
        }
        Ok(Box::new(OsLog {
            file,
            pos: end,
            allocated: len,
        }))
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        fs::rename(from, to)?;
        sync_dir(to)
    }
    fn remove(&self, path: &Path) -> io::Result<()> {
        fs::remove_file(path)
    }
    fn write_at(&self, path: &Path, at: u64, data: &[u8]) -> io::Result<()> {
        use std::os::unix::fs::FileExt;
        let f = OpenOptions::new().write(true).open(path)?;
        f.write_all_at(data, at)?;
        f.sync_all()
    }
    fn lock(&self, dir: &Path) -> io::Result<LockGuard> {
        let path: PathBuf = dir.join(LOCK_FILE);
        let f = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)?;
        match f.try_lock() {
            Ok(()) => Ok(Box::new(f)),
            Err(TryLockError::WouldBlock) => Err(io::Error::new(
                io::ErrorKind::WouldBlock,
                "locked by another process",
            )),
            Err(TryLockError::Error(e)) => Err(e),
        }
    }
}
