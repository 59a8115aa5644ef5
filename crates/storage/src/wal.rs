//! The write-ahead log: one checksummed frame per committed transaction, appended by any number
//! of committers and made durable together (group commit).
//!
//! ```text
//!   file   = "TDLWAL2\n" generation:u64 salt:u32 crc32(the 20 bytes before):u32   frame*  0+
//!   frame  = magic:u32 len:u32 lsn:u64 synced:u64 crc:u32 payload[len]
//!            crc = crc32(salt, len, lsn, synced, payload)
//! ```
//!
//! LSNs increase by one per frame across files, so replay can tell a gap from a torn tail.
//! `synced` is the highest LSN known durable when the frame was queued: after a power cut, a
//! damaged frame `d` followed by intact frames that all have `synced < d` is a torn group write
//! (the disk saved its pages out of order), while an intact later frame with `synced ≥ d` proves
//! `d` had been durable, so the log is corrupt. A clean close appends an empty frame whose
//! `synced` covers everything, so damage to the last group before a close is corruption too.
//! The per-file random salt keeps bytes that merely look like a frame (a copy of another log
//! file inside a VARBYTE value) from validating.
//!
//! A log file never shrinks and always ends in zeros: it is created with a zero tail, grows by
//! zeroed chunks made durable before a frame reaches them, and a torn tail is zeroed, not cut.
//! So a log that ends inside or right after a frame was cut short, which no crash does. A
//! checkpoint ends the log it leaves with a frame naming the next file ([`Wal::rotate`]), so
//! a later log that is missing, or cut to its header, is seen too.
//!
//! Group commit: committers append their frame to a shared buffer under a short lock; the first
//! one that needs it durable becomes the leader, writes the whole buffer and syncs once, and
//! everyone whose frame was in it returns. Invariant: `synced ≤ written ≤ next_lsn - 1`, and a
//! frame is never written twice or out of order.

use crate::vfs::LogFile;
use parking_lot::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// File header magic.
pub const FILE_MAGIC: &[u8; 8] = b"TDLWAL2\n";
/// Length of the file header.
pub const HEADER_LEN: usize = 24;
const FRAME_MAGIC: u32 = 0x4644_4C54; // "TLDF"
const FRAME_HEADER: usize = 28;

/// How much a commit waits for the disk (docs/durability.md says what each mode loses).
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

/// A fresh random salt for a new log file.
pub fn new_salt() -> u32 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    crc32fast::hash(&(nanos ^ u128::from(std::process::id())).to_le_bytes())
}

/// The header of a log file of this generation.
pub fn file_header(generation: u64, salt: u32) -> Vec<u8> {
    let mut h = FILE_MAGIC.to_vec();
    h.extend_from_slice(&generation.to_le_bytes());
    h.extend_from_slice(&salt.to_le_bytes());
    let crc = crc32fast::hash(&h);
    h.extend_from_slice(&crc.to_le_bytes());
    h
}

fn frame_crc(salt: u32, len: u32, lsn: u64, synced: u64, payload: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(&salt.to_le_bytes());
    h.update(&len.to_le_bytes());
    h.update(&lsn.to_le_bytes());
    h.update(&synced.to_le_bytes());
    h.update(payload);
    h.finalize()
}

/// Appends one frame to `out`.
pub fn encode_frame(out: &mut Vec<u8>, salt: u32, lsn: u64, synced: u64, payload: &[u8]) {
    let len = payload.len() as u32;
    out.extend_from_slice(&FRAME_MAGIC.to_le_bytes());
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&lsn.to_le_bytes());
    out.extend_from_slice(&synced.to_le_bytes());
    out.extend_from_slice(&frame_crc(salt, len, lsn, synced, payload).to_le_bytes());
    out.extend_from_slice(payload);
}

/// One intact frame.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    /// Its LSN.
    pub lsn: u64,
    /// The highest LSN known durable when it was queued.
    pub synced: u64,
    /// The transaction's record.
    pub payload: &'a [u8],
}

/// What reading a log file found.
#[derive(Debug)]
pub struct LogScan<'a> {
    /// The file's generation (from its header).
    pub generation: u64,
    /// The file's salt (from its header).
    pub salt: u32,
    /// Intact frames in order, up to the first damage.
    pub frames: Vec<Frame<'a>>,
    /// Bytes up to the end of the last intact frame (zeros after it are preallocated space).
    pub valid_len: usize,
    /// Where the first damaged frame starts, if any.
    pub damage: Option<usize>,
    /// Intact frames found anywhere after the damage (a byte-by-byte search), with their
    /// offsets.
    pub after_damage: Vec<(usize, Frame<'a>)>,
    /// No crash leaves a log that keeps the rules of the module docs like this: it ends
    /// right after a frame or in a non-zero byte, or the damaged frame's header says it runs
    /// to the end of the file or past it (a torn header only ever says less than was written,
    /// and what was written had a zero after it). The file was cut short.
    pub cut: bool,
}

fn frame_at(bytes: &[u8], at: usize, salt: u32) -> Option<(Frame<'_>, usize)> {
    let head = bytes.get(at..at.checked_add(FRAME_HEADER)?)?;
    let u32_at = |i: usize| u32::from_le_bytes(head[i..i + 4].try_into().unwrap_or_default());
    let u64_at = |i: usize| u64::from_le_bytes(head[i..i + 8].try_into().unwrap_or_default());
    if u32_at(0) != FRAME_MAGIC {
        return None;
    }
    let (len, lsn, synced, crc) = (u32_at(4), u64_at(8), u64_at(16), u32_at(24));
    let start = at + FRAME_HEADER;
    let payload = bytes.get(start..start.checked_add(len as usize)?)?;
    let frame = Frame {
        lsn,
        synced,
        payload,
    };
    (frame_crc(salt, len, lsn, synced, payload) == crc).then_some((frame, start + len as usize))
}

/// Reads a log file: `None` if it does not start with a whole, intact tdlite log header.
pub fn scan(bytes: &[u8]) -> Option<LogScan<'_>> {
    if bytes.len() < HEADER_LEN || &bytes[..8] != FILE_MAGIC {
        return None;
    }
    let header_crc = u32::from_le_bytes(bytes[20..24].try_into().ok()?);
    if crc32fast::hash(&bytes[..20]) != header_crc {
        return None;
    }
    let generation = u64::from_le_bytes(bytes[8..16].try_into().ok()?);
    let salt = u32::from_le_bytes(bytes[16..20].try_into().ok()?);
    let mut frames = Vec::new();
    let mut at = HEADER_LEN;
    while let Some((frame, next)) = frame_at(bytes, at, salt) {
        frames.push(frame);
        at = next;
    }
    // zeros after the last frame are preallocated space, not damage
    let damaged = !bytes[at..].iter().all(|&b| b == 0);
    let after_damage = if damaged {
        (at + 1..bytes.len())
            .filter_map(|o| frame_at(bytes, o, salt).map(|(f, _)| (o, f)))
            .collect()
    } else {
        Vec::new()
    };
    let runs_off = |at: usize| match bytes.get(at..at + FRAME_HEADER) {
        None => true,
        Some(h) if h[..4] == FRAME_MAGIC.to_le_bytes() => {
            let len = u32::from_le_bytes([h[4], h[5], h[6], h[7]]) as usize;
            at + FRAME_HEADER + len >= bytes.len()
        }
        Some(_) => false,
    };
    // after the last intact frame found past the damage: zeros, or a torn frame (whose
    // header has its first byte and the rest of the header after it, or is lost)
    let after_last = after_damage
        .last()
        .map(|(o, f)| o + FRAME_HEADER + f.payload.len());
    let torn_after = |o: usize| bytes.get(o).is_some_and(|&b| b != 0) && runs_off(o);
    let cut = at == bytes.len()
        || bytes.last() != Some(&0)
        || (damaged && runs_off(at))
        || after_last.is_some_and(torn_after);
    Some(LogScan {
        generation,
        salt,
        frames,
        valid_len: at,
        damage: damaged.then_some(at),
        after_damage,
        cut,
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
    salt: u32,
    /// The first LSN of this process: a close marks only a log it wrote to.
    opened_lsn: u64,
    /// Group commit: how many frames the next synced flush waits for (see [`Wal::flush`]).
    gather: u64,
    /// How long the last synced flush took: the longest a leader waits to gather.
    last_sync: Duration,
}

/// The log writer shared by all committers.
pub struct Wal {
    state: Mutex<State>,
    done: Condvar,
    file: Mutex<Box<dyn LogFile>>,
    mode: SyncMode,
}

const OFF_FLUSH_BYTES: usize = 1 << 20;

/// The longest a group-commit leader waits for the group it expects (a slow sync once must
/// not make later commits wait as long).
const MAX_GATHER: Duration = Duration::from_millis(1);

impl Wal {
    /// A writer appending to `file` (whose header has `salt`, already holding `size` bytes),
    /// the next frame numbered `next_lsn` (at least 1).
    pub fn new(
        file: Box<dyn LogFile>,
        salt: u32,
        size: u64,
        next_lsn: u64,
        mode: SyncMode,
    ) -> Self {
        Wal {
            state: Mutex::new(State {
                pending: Vec::new(),
                next_lsn,
                written: next_lsn - 1,
                synced: next_lsn - 1,
                flushing: false,
                failed: None,
                size,
                salt,
                opened_lsn: next_lsn,
                gather: 1,
                last_sync: Duration::ZERO,
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
        let (lsn, salt, synced) = (s.next_lsn, s.salt, s.synced);
        let before = s.pending.len();
        encode_frame(&mut s.pending, salt, lsn, synced, payload);
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
            if sync && s.gather > 1 {
                // Group commit: the last sync saw several committers, so give them a moment
                // (at most one sync's time) to join this one before it starts.
                let (want, start) = (s.gather, Instant::now());
                let cap = s.last_sync.min(MAX_GATHER);
                while s.next_lsn - 1 - s.written < want && start.elapsed() < cap {
                    drop(s);
                    std::thread::yield_now();
                    s = self.state.lock();
                }
            }
            let buf = std::mem::take(&mut s.pending);
            let (from, upto) = (s.written, s.next_lsn - 1);
            drop(s);
            let started = Instant::now();
            let result = {
                let mut f = self.file.lock();
                f.append(&buf)
                    .and_then(|()| if sync { f.sync() } else { Ok(()) })
            };
            let took = started.elapsed();
            s = self.state.lock();
            s.flushing = false;
            match result {
                Ok(()) => {
                    s.written = upto;
                    if sync {
                        s.synced = upto;
                        // the next group: as many as this one, or all who came meanwhile
                        // and the leader who will sync them
                        let joined = s.next_lsn - 1 - upto;
                        s.gather = (upto - from).max(joined + 1);
                        s.last_sync = took;
                    }
                }
                Err(e) => s.failed = Some(format!("writing the log failed: {e}")),
            }
            self.done.notify_all();
        }
    }

    /// Ends this log with a frame holding `marker` (which names the next log file), makes
    /// everything durable, and continues in `file` (a new log file holding only a header with
    /// `salt`). Callers make sure no one appends meanwhile.
    ///
    /// # Errors
    /// As [`Wal::commit_wait`].
    pub fn rotate(&self, marker: &[u8], file: Box<dyn LogFile>, salt: u32) -> Result<(), String> {
        let last = self.append(marker)?;
        self.flush(last, true)?;
        *self.file.lock() = file;
        let mut s = self.state.lock();
        s.size = HEADER_LEN as u64;
        s.salt = salt;
        Ok(())
    }

    /// At close: syncs everything appended so far and, if this process logged anything, adds
    /// an empty frame whose `synced` vouches for all of it (see the module docs).
    ///
    /// # Errors
    /// As [`Wal::commit_wait`].
    pub fn close(&self) -> Result<(), String> {
        let last = self.next_lsn() - 1;
        self.flush(last, true)?;
        if last < self.state.lock().opened_lsn {
            return Ok(());
        }
        let marker = self.append(&[])?;
        self.flush(marker, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log_of(n: u64, synced: impl Fn(u64) -> u64) -> Vec<u8> {
        let mut log = file_header(3, 77);
        for lsn in 1..=n {
            encode_frame(
                &mut log,
                77,
                lsn,
                synced(lsn),
                format!("record {lsn}").as_bytes(),
            );
        }
        log
    }

    #[test]
    fn scan_reads_frames_and_treats_a_zero_tail_as_the_end() {
        let log = log_of(3, |_| 0);
        let s = scan(&log).unwrap();
        assert_eq!((s.generation, s.frames.len(), s.damage), (3, 3, None));
        let mut padded = log.clone();
        padded.extend_from_slice(&[0; 64]);
        let s = scan(&padded).unwrap();
        assert_eq!(
            (s.frames.len(), s.valid_len, s.damage),
            (3, log.len(), None)
        );
        assert!(scan(b"not a log at all, not at all").is_none());
    }

    #[test]
    fn scan_reports_damage_and_the_intact_frames_after_it() {
        let log = log_of(3, |lsn| lsn - 1);
        let torn = &log[..log.len() - 4];
        let s = scan(torn).unwrap();
        assert_eq!(s.frames.len(), 2);
        assert!(s.damage.is_some() && s.after_damage.is_empty());

        let mut flipped = log.clone();
        flipped[HEADER_LEN + FRAME_HEADER + 2] ^= 0x40; // inside the first payload
        let s = scan(&flipped).unwrap();
        assert_eq!((s.frames.len(), s.damage), (0, Some(HEADER_LEN)));
        let lsns: Vec<u64> = s.after_damage.iter().map(|(_, f)| f.lsn).collect();
        assert_eq!(lsns, vec![2, 3]);
        assert_eq!(s.after_damage[1].1.synced, 2);

        let mut salted = log.clone();
        salted[17] ^= 1; // the salt, which the header checksum covers
        assert!(scan(&salted).is_none());
    }

    /// Where frame `k` (0-based) of [`log_of`] starts.
    fn frame_start(log: &[u8], k: usize) -> usize {
        let mut at = HEADER_LEN;
        for _ in 0..k {
            at +=
                FRAME_HEADER + u32::from_le_bytes(log[at + 4..at + 8].try_into().unwrap()) as usize;
        }
        at
    }

    #[test]
    fn a_log_not_ending_in_zeros_past_every_frame_it_declares_was_cut() {
        let log = log_of(3, |_| 0);
        let with = |extra: &[u8]| [&log[..], extra].concat();
        assert!(
            !scan(&with(&[0])).unwrap().cut,
            "one zero after the last frame"
        );
        assert!(scan(&log).unwrap().cut, "ends right after a frame");
        assert!(scan(&with(&[0, 7])).unwrap().cut, "ends in a non-zero byte");
        // cut inside the last frame's header, where its length's high bytes are zeros
        let third = frame_start(&log, 2);
        assert!(scan(&log[..third + 6]).unwrap().cut);
        // damaged, with a zero after the extent its header declares: a torn write
        let mut torn = with(&[0]);
        torn[third + FRAME_HEADER + 1] ^= 1;
        let s = scan(&torn).unwrap();
        assert!(s.damage.is_some() && !s.cut);
        // damaged, its declared extent reaching the end: cut inside it
        let mut cut = log.clone();
        *cut.last_mut().unwrap() = 0;
        let s = scan(&cut).unwrap();
        assert!(s.damage.is_some() && s.cut);
        // damage first, intact frames after it, then a frame cut where a zero happens to be
        let log4 = log_of(4, |_| 0);
        let mut bytes = log4[..frame_start(&log4, 3) + 6].to_vec();
        bytes[HEADER_LEN + FRAME_HEADER + 1] ^= 1;
        let s = scan(&bytes).unwrap();
        assert_eq!((s.after_damage.len(), s.cut), (2, true));
        // the same with zeros after the last intact frame instead: a torn write
        let mut bytes = log4[..frame_start(&log4, 3)].to_vec();
        bytes.extend_from_slice(&[0; 64]);
        bytes[HEADER_LEN + FRAME_HEADER + 1] ^= 1;
        let s = scan(&bytes).unwrap();
        assert_eq!((s.after_damage.len(), s.cut), (2, false));
    }

    #[test]
    fn frames_from_another_log_file_never_validate() {
        let mut other = file_header(9, 1234);
        encode_frame(&mut other, 1234, 1, 0, b"payload");
        let mut log = file_header(9, 77);
        log.extend_from_slice(&other[HEADER_LEN..]);
        let s = scan(&log).unwrap();
        assert!(s.frames.is_empty() && s.after_damage.is_empty());
    }
}
