//! The write-ahead log: one checksummed frame per committed transaction, appended by any number
//! of committers and made durable together (group commit).
//!
//! ```text
//!   file   = "TDLWAL1\n" generation:u64  frame*
//!   frame  = magic:u32 len:u32 lsn:u64 crc:u32 payload[len]     crc = crc32(len, lsn, payload)
//! ```
//!
//! LSNs increase by one per frame across files, so replay can tell a gap from a torn tail.
//! Group commit: committers append their frame to a shared buffer under a short lock; the first
//! one that needs it durable becomes the leader, writes the whole buffer and syncs once, and
//! everyone whose frame was in it returns. Invariant: `synced ≤ written ≤ next_lsn - 1`, and a
//! frame is never written twice or out of order.

use crate::vfs::LogFile;
use parking_lot::{Condvar, Mutex};

/// File header magic.
pub const FILE_MAGIC: &[u8; 8] = b"TDLWAL1\n";
/// Length of the file header.
pub const HEADER_LEN: usize = 16;
const FRAME_MAGIC: u32 = 0x4644_4C54; // "TLDF"
const FRAME_HEADER: usize = 20;

/// How much a commit waits for the disk (SPEC.md §5; docs/durability.md says what each loses).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SyncMode {
    /// The log is synced before a commit returns: nothing acknowledged is ever lost.
    #[default]
    Full,
    /// The log is written to the OS before a commit returns, synced at checkpoints: survives a
    /// killed process, may lose the latest commits on a power cut or OS crash.
    Normal,
    /// The log is written when 1 MiB has gathered, at checkpoints and at close: a killed
    /// process may lose the latest commits. Never corrupts.
    Off,
}

impl std::str::FromStr for SyncMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "full" => Ok(SyncMode::Full),
            "normal" => Ok(SyncMode::Normal),
            "off" => Ok(SyncMode::Off),
            other => Err(format!("unknown sync mode '{other}' (full, normal or off)")),
        }
    }
}

/// The header of a log file of this generation.
pub fn file_header(generation: u64) -> Vec<u8> {
    let mut h = FILE_MAGIC.to_vec();
    h.extend_from_slice(&generation.to_le_bytes());
    h
}

fn frame_crc(len: u32, lsn: u64, payload: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(&len.to_le_bytes());
    h.update(&lsn.to_le_bytes());
    h.update(payload);
    h.finalize()
}

/// Appends one frame to `out`.
pub fn encode_frame(out: &mut Vec<u8>, lsn: u64, payload: &[u8]) {
    let len = payload.len() as u32;
    out.extend_from_slice(&FRAME_MAGIC.to_le_bytes());
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&lsn.to_le_bytes());
    out.extend_from_slice(&frame_crc(len, lsn, payload).to_le_bytes());
    out.extend_from_slice(payload);
}

/// What reading a log file found.
#[derive(Debug)]
pub struct LogScan<'a> {
    /// The file's generation (from its header).
    pub generation: u64,
    /// Intact frames in order: (lsn, payload).
    pub frames: Vec<(u64, &'a [u8])>,
    /// Bytes up to the end of the last intact frame (zeros after it are preallocated space).
    pub valid_len: usize,
    /// Where the first damaged frame starts, if any.
    pub damage: Option<Damage>,
}

/// A damaged spot in a log file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Damage {
    /// Byte offset of the damaged frame.
    pub offset: usize,
    /// True if an intact frame follows the damage: the log is corrupt, not just torn.
    pub intact_after: bool,
}

fn frame_at(bytes: &[u8], at: usize) -> Option<(u64, &[u8], usize)> {
    let head = bytes.get(at..at + FRAME_HEADER)?;
    let word = |i: usize| u32::from_le_bytes(head[i..i + 4].try_into().unwrap_or_default());
    if word(0) != FRAME_MAGIC {
        return None;
    }
    let len = word(4);
    let lsn = u64::from_le_bytes(head[8..16].try_into().unwrap_or_default());
    let crc = word(16);
    let start = at + FRAME_HEADER;
    let payload = bytes.get(start..start.checked_add(len as usize)?)?;
    (frame_crc(len, lsn, payload) == crc).then_some((lsn, payload, start + len as usize))
}

/// Reads a log file: `None` if its header is not a tdlite log header.
pub fn scan(bytes: &[u8]) -> Option<LogScan<'_>> {
    if bytes.len() < HEADER_LEN || &bytes[..8] != FILE_MAGIC {
        return None;
    }
    let generation = u64::from_le_bytes(bytes[8..16].try_into().ok()?);
    let mut frames = Vec::new();
    let mut at = HEADER_LEN;
    while at < bytes.len() {
        match frame_at(bytes, at) {
            Some((lsn, payload, next)) => {
                frames.push((lsn, payload));
                at = next;
            }
            None => break,
        }
    }
    // zeros after the last frame are preallocated space, not damage
    let clean_end = bytes[at..].iter().all(|&b| b == 0);
    let damage = (!clean_end).then(|| Damage {
        offset: at,
        intact_after: (at + 1..bytes.len()).any(|o| frame_at(bytes, o).is_some()),
    });
    Some(LogScan {
        generation,
        frames,
        valid_len: at,
        damage,
    })
}

struct State {
    pending: Vec<u8>,
    next_lsn: u64,
    written: u64,
    synced: u64,
    flushing: bool,
    failed: Option<String>,
    size: u64,
}

/// The log writer shared by all committers.
pub struct Wal {
    state: Mutex<State>,
    done: Condvar,
    file: Mutex<Box<dyn LogFile>>,
    mode: SyncMode,
}

const OFF_FLUSH_BYTES: usize = 1 << 20;

impl Wal {
    /// A writer appending to `file` (already holding `size` bytes), next frame numbered
    /// `next_lsn`.
    pub fn new(file: Box<dyn LogFile>, size: u64, next_lsn: u64, mode: SyncMode) -> Self {
        Wal {
            state: Mutex::new(State {
                pending: Vec::new(),
                next_lsn,
                written: next_lsn - 1,
                synced: next_lsn - 1,
                flushing: false,
                failed: None,
                size,
            }),
            done: Condvar::new(),
            file: Mutex::new(file),
            mode,
        }
    }

    /// The sync mode.
    pub fn mode(&self) -> SyncMode {
        self.mode
    }

    /// Bytes in the current log file, written or pending.
    pub fn size(&self) -> u64 {
        self.state.lock().size
    }

    /// The LSN the next frame gets.
    pub fn next_lsn(&self) -> u64 {
        self.state.lock().next_lsn
    }

    /// Queues a frame; returns its LSN.
    ///
    /// # Errors
    /// The log failed earlier: nothing can commit any more.
    pub fn append(&self, payload: &[u8]) -> Result<u64, String> {
        let mut s = self.state.lock();
        if let Some(e) = &s.failed {
            return Err(e.clone());
        }
        let lsn = s.next_lsn;
        let before = s.pending.len();
        encode_frame(&mut s.pending, lsn, payload);
        s.size += (s.pending.len() - before) as u64;
        s.next_lsn += 1;
        Ok(lsn)
    }

    /// Returns when frame `lsn` is as durable as the sync mode asks.
    ///
    /// # Errors
    /// Writing or syncing failed; the log is then closed for good.
    pub fn commit_wait(&self, lsn: u64) -> Result<(), String> {
        match self.mode {
            SyncMode::Full => self.flush(lsn, true),
            SyncMode::Normal => self.flush(lsn, false),
            SyncMode::Off => {
                let big = self.state.lock().pending.len() >= OFF_FLUSH_BYTES;
                if big {
                    self.flush(lsn, false)
                } else {
                    Ok(())
                }
            }
        }
    }

    /// Writes (and, if `sync`, syncs) every frame up to `lsn`, leading or following a group.
    ///
    /// # Errors
    /// As [`Wal::commit_wait`].
    pub fn flush(&self, lsn: u64, sync: bool) -> Result<(), String> {
        let mut s = self.state.lock();
        loop {
            if let Some(e) = &s.failed {
                return Err(e.clone());
            }
            if (if sync { s.synced } else { s.written }) >= lsn {
                return Ok(());
            }
            if s.flushing {
                self.done.wait(&mut s);
                continue;
            }
            s.flushing = true;
            let buf = std::mem::take(&mut s.pending);
            let upto = s.next_lsn - 1;
            drop(s);
            let result = {
                let mut f = self.file.lock();
                f.append(&buf)
                    .and_then(|()| if sync { f.sync() } else { Ok(()) })
            };
            s = self.state.lock();
            s.flushing = false;
            match result {
                Ok(()) => {
                    s.written = upto;
                    if sync {
                        s.synced = upto;
                    }
                }
                Err(e) => s.failed = Some(format!("writing the log failed: {e}")),
            }
            self.done.notify_all();
        }
    }

    /// Makes everything durable and continues in `file` (a new, empty log file whose header is
    /// `header_len` bytes). Callers make sure no one appends meanwhile.
    ///
    /// # Errors
    /// As [`Wal::commit_wait`].
    pub fn rotate(&self, file: Box<dyn LogFile>, header_len: u64) -> Result<(), String> {
        let last = self.next_lsn() - 1;
        self.flush(last, true)?;
        *self.file.lock() = file;
        self.state.lock().size = header_len;
        Ok(())
    }

    /// Syncs everything appended so far (used at close).
    ///
    /// # Errors
    /// As [`Wal::commit_wait`].
    pub fn sync_all(&self) -> Result<(), String> {
        let last = self.next_lsn() - 1;
        self.flush(last, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_tells_a_torn_tail_from_a_corrupt_middle() {
        let mut log = file_header(3);
        for lsn in 1..=3 {
            encode_frame(&mut log, lsn, format!("record {lsn}").as_bytes());
        }
        let s = scan(&log).unwrap();
        assert_eq!(s.generation, 3);
        assert_eq!(s.frames.len(), 3);
        assert!(s.damage.is_none());

        let mut padded = log.clone();
        padded.extend_from_slice(&[0; 64]);
        let s = scan(&padded).unwrap();
        assert_eq!((s.frames.len(), s.valid_len), (3, log.len()));
        assert!(s.damage.is_none(), "a zero tail is preallocated space");

        let torn = &log[..log.len() - 4];
        let s = scan(torn).unwrap();
        assert_eq!(s.frames.len(), 2);
        assert!(!s.damage.unwrap().intact_after);

        let mut flipped = log.clone();
        flipped[HEADER_LEN + FRAME_HEADER + 2] ^= 0x40; // inside the first payload
        let s = scan(&flipped).unwrap();
        assert_eq!(s.frames.len(), 0);
        let d = s.damage.unwrap();
        assert_eq!(d.offset, HEADER_LEN);
        assert!(d.intact_after);
        assert!(scan(b"not a log at all").is_none());
    }
}
