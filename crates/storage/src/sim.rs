//! A simulated file system for fault-injection tests: it keeps, per file, what is durable and
//! what was only written, and on a simulated power cut keeps the durable part plus, as
//! [`Tear`] says, nothing, a torn prefix, or a random subset of the pages of the unsynced rest.
//!
//! Use: `let vfs = SimVfs::new(seed)`, open a database on it, [`SimVfs::fail_after`] `n` more
//! mutating operations (the `n`-th is torn and fails, and so does everything after it), or
//! [`SimVfs::power_cut`] at any moment; then [`SimVfs::restart`] and reopen.
//!
//! Model: `write_file`, `create_log`, `write_at`, `rename` and `remove` are durable when they
//! return (as the [`crate::vfs::Vfs`] contract says); `append` writes in place into zeroed
//! space that grows in synced chunks, as the OS version does, and is durable only after
//! `sync`. After a cut every handle opened before it fails, so a database that lived through
//! the cut cannot write again.

use crate::vfs::{LockGuard, LogFile, Vfs};
use parking_lot::Mutex;
use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a power cut keeps of the writes that were not yet synced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tear {
    /// Nothing.
    Drop,
    /// A random prefix (the default).
    Prefix,
    /// Each 512-byte page independently, the others keep what they held before (zeros in
    /// preallocated space): a disk that saves pages out of order.
    Pages,
}

#[derive(Default, Clone)]
struct SimFile {
    durable: Vec<u8>,
    data: Vec<u8>,
}

struct State {
    files: BTreeMap<PathBuf, SimFile>,
    locks: BTreeSet<PathBuf>,
    epoch: u64,
    down: bool,
    ops_left: Option<u64>,
    tear: Tear,
    rng: u64,
    sync_delay: std::time::Duration,
    syncs: u64,
}

/// An in-memory file system that can lose power. Cheap to clone; clones share the files.
#[derive(Clone)]
pub struct SimVfs {
    state: Arc<Mutex<State>>,
}

fn cut() -> io::Error {
    io::Error::other("simulated power cut")
}

impl State {
    fn random(&mut self, n: usize) -> usize {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        (self.rng % (n as u64 + 1)) as usize
    }

    /// Counts one mutating operation; `Err` if the power is (now) off.
    fn step(&mut self) -> io::Result<()> {
        if self.down {
            return Err(cut());
        }
        if let Some(n) = self.ops_left.as_mut() {
            if *n == 0 {
                self.power_cut();
                return Err(cut());
            }
            *n -= 1;
        }
        Ok(())
    }

    fn power_cut(&mut self) {
        self.down = true;
        let paths: Vec<PathBuf> = self.files.keys().cloned().collect();
        for p in paths {
            let f = &self.files[&p];
            // the unsynced writes: from the first byte that differs to the last one (or to the
            // end of what was written past the durable length)
            let differs = |i: usize| f.durable.get(i) != f.data.get(i);
            let len = f.durable.len().max(f.data.len());
            let from = (0..len).find(|&i| differs(i)).unwrap_or(len);
            let to = (from..len)
                .rev()
                .find(|&i| differs(i))
                .map_or(from, |i| i + 1);
            let to = to.min(f.data.len()); // nothing makes a file shorter than it was
            let (durable, data) = (f.durable.clone(), f.data.clone());
            let mut kept = durable.clone();
            if to > from {
                if kept.len() < data.len() {
                    kept.resize(data.len(), 0);
                }
                match self.tear {
                    Tear::Drop => kept = durable,
                    Tear::Prefix => {
                        let n = self.random(to - from);
                        kept[from..from + n].copy_from_slice(&data[from..from + n]);
                        kept.truncate(durable.len().max(from + n));
                    }
                    Tear::Pages => {
                        // pages aligned to file offsets; the first one may start mid-page,
                        // and a page not saved keeps what was there before (zeros past the
                        // durable end: preallocated space)
                        let mut at = from;
                        while at < to {
                            let end = ((at / 512 + 1) * 512).min(to);
                            if self.random(1) == 1 {
                                kept[at..end].copy_from_slice(&data[at..end]);
                            }
                            at = end;
                        }
                    }
                }
            }
            self.files.insert(
                p,
                SimFile {
                    durable: kept.clone(),
                    data: kept,
                },
            );
        }
    }
}

impl SimVfs {
    /// An empty file system; `seed` drives how much of an unsynced write a cut keeps.
    pub fn new(seed: u64) -> Self {
        SimVfs {
            state: Arc::new(Mutex::new(State {
                files: BTreeMap::new(),
                locks: BTreeSet::new(),
                epoch: 0,
                down: false,
                ops_left: None,
                tear: Tear::Prefix,
                rng: seed | 1,
                sync_delay: std::time::Duration::ZERO,
                syncs: 0,
            })),
        }
    }

    /// Cuts the power when `n` more mutating operations have run; the next one fails.
    pub fn fail_after(&self, n: u64) {
        self.state.lock().ops_left = Some(n);
    }

    /// What a cut keeps of unsynced appends (default: a random prefix).
    pub fn set_tear(&self, tear: Tear) {
        self.state.lock().tear = tear;
    }

    /// Makes every log sync take this long, like a real disk (for group-commit tests).
    pub fn set_sync_delay(&self, delay: std::time::Duration) {
        self.state.lock().sync_delay = delay;
    }

    /// How many log syncs have completed.
    pub fn syncs(&self) -> u64 {
        self.state.lock().syncs
    }

    /// Cuts the power now.
    pub fn power_cut(&self) {
        self.state.lock().power_cut();
    }

    /// True once the power is off.
    pub fn is_down(&self) -> bool {
        self.state.lock().down
    }

    /// Kills the process but not the machine: what was written stays (synced or not, as in
    /// the OS page cache), locks are free, and every handle opened before is dead.
    pub fn kill(&self) {
        let mut s = self.state.lock();
        s.locks.clear();
        s.epoch += 1;
    }

    /// Powers up again: files hold what survived, locks are free, old handles stay dead.
    pub fn restart(&self) {
        let mut s = self.state.lock();
        if !s.down {
            s.power_cut();
        }
        s.down = false;
        s.ops_left = None;
        s.locks.clear();
        s.epoch += 1;
    }

    /// The current content of a file (tests use it to damage files on purpose).
    pub fn contents(&self, path: &Path) -> Option<Vec<u8>> {
        self.state.lock().files.get(path).map(|f| f.data.clone())
    }

    /// Replaces a file's content, durably (to simulate damage).
    pub fn set_contents(&self, path: &Path, data: Vec<u8>) {
        self.state.lock().files.insert(
            path.to_path_buf(),
            SimFile {
                durable: data.clone(),
                data,
            },
        );
    }
}

/// How much a simulated log grows at a time (the OS version grows by 4 MiB).
const SIM_CHUNK: usize = 4096;

impl SimVfs {
    /// Creates or replaces a file with `data`, durably; if the power is cut instead, the file
    /// is left made and holding a random prefix of `data` of at most `torn` bytes.
    fn write_whole(&self, path: &Path, data: &[u8], torn: usize) -> io::Result<()> {
        let mut s = self.state.lock();
        let result = s.step();
        let keep = match result {
            Ok(()) => data.len(),
            Err(_) => s.random(torn.min(data.len())),
        };
        let file = SimFile {
            durable: data[..keep].to_vec(),
            data: data[..keep].to_vec(),
        };
        s.files.insert(path.to_path_buf(), file);
        result
    }
}

struct SimLog {
    vfs: SimVfs,
    path: PathBuf,
    epoch: u64,
    /// Where the next append goes.
    pos: usize,
}

impl SimLog {
    fn with(&self, f: impl FnOnce(&mut SimFile)) -> io::Result<()> {
        let mut s = self.vfs.state.lock();
        if s.epoch != self.epoch {
            return Err(cut());
        }
        s.step()?;
        let file = s.files.entry(self.path.clone()).or_default();
        f(file);
        Ok(())
    }
}

impl LogFile for SimLog {
    fn append(&mut self, data: &[u8]) -> io::Result<()> {
        let (at, end) = (self.pos, self.pos + data.len());
        self.with(|f| {
            if end >= f.data.len() {
                // like the OS version: grow by zeroed chunks, synced, before writing into them
                f.data.resize((end / SIM_CHUNK + 1) * SIM_CHUNK, 0);
                f.durable = f.data.clone();
            }
            f.data[at..end].copy_from_slice(data);
        })?;
        self.pos = end;
        Ok(())
    }
    fn sync(&mut self) -> io::Result<()> {
        let delay = self.vfs.state.lock().sync_delay;
        std::thread::sleep(delay);
        self.with(|f| f.durable = f.data.clone())?;
        self.vfs.state.lock().syncs += 1;
        Ok(())
    }
}

fn not_found(path: &Path) -> io::Error {
    io::Error::new(io::ErrorKind::NotFound, path.display().to_string())
}

impl Vfs for SimVfs {
    fn create_dir_all(&self, _dir: &Path) -> io::Result<()> {
        Ok(())
    }
    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        let s = self.state.lock();
        Ok(s.files
            .keys()
            .filter(|p| p.parent() == Some(dir))
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect())
    }
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        let s = self.state.lock();
        if s.down {
            return Err(cut());
        }
        s.files
            .get(path)
            .map(|f| f.data.clone())
            .ok_or_else(|| not_found(path))
    }
    fn write_file(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        self.write_whole(path, data, data.len())
    }
    fn create_log(&self, path: &Path, header: &[u8]) -> io::Result<()> {
        let mut bytes = vec![0; SIM_CHUNK.max(header.len() + 1)];
        bytes[..header.len()].copy_from_slice(header);
        // a cut tears it within its header, or keeps the header and some zeros
        self.write_whole(path, &bytes, header.len() * 2)
    }
    fn open_log(&self, path: &Path, end: u64) -> io::Result<Box<dyn LogFile>> {
        let mut s = self.state.lock();
        s.step()?;
        let len = s.files.get(path).ok_or_else(|| not_found(path))?.data.len();
        if end as usize >= len {
            return Err(io::Error::other("no zero tail after the end"));
        }
        Ok(Box::new(SimLog {
            vfs: self.clone(),
            path: path.to_path_buf(),
            epoch: s.epoch,
            pos: end as usize,
        }))
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let mut s = self.state.lock();
        s.step()?;
        let f = s.files.remove(from).ok_or_else(|| not_found(from))?;
        s.files.insert(to.to_path_buf(), f);
        Ok(())
    }
    fn remove(&self, path: &Path) -> io::Result<()> {
        let mut s = self.state.lock();
        s.step()?;
        s.files
            .remove(path)
            .map(|_| ())
            .ok_or_else(|| not_found(path))
    }
    fn write_at(&self, path: &Path, at: u64, data: &[u8]) -> io::Result<()> {
        let mut s = self.state.lock();
        s.step()?;
        let f = s.files.get_mut(path).ok_or_else(|| not_found(path))?;
        let (at, end) = (at as usize, at as usize + data.len());
        for buf in [&mut f.data, &mut f.durable] {
            if buf.len() < end {
                buf.resize(end, 0);
            }
            buf[at..end].copy_from_slice(data);
        }
        Ok(())
    }
    fn lock(&self, dir: &Path) -> io::Result<LockGuard> {
        let mut s = self.state.lock();
        if s.down {
            return Err(cut());
        }
        if !s.locks.insert(dir.to_path_buf()) {
            return Err(io::Error::new(
                io::ErrorKind::WouldBlock,
                "locked by another process",
            ));
        }
        Ok(Box::new(SimLock {
            vfs: self.clone(),
            dir: dir.to_path_buf(),
            epoch: s.epoch,
        }))
    }
}

struct SimLock {
    vfs: SimVfs,
    dir: PathBuf,
    epoch: u64,
}

impl Drop for SimLock {
    fn drop(&mut self) {
        let mut s = self.vfs.state.lock();
        if s.epoch == self.epoch {
            s.locks.remove(&self.dir);
        }
    }
}
