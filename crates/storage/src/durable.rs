//! A database folder while it is open: logging each commit, and checkpoints (opening it is
//! [`crate::recovery`]). docs/durability.md describes the format and the recovery procedure.
//!
//! ```text
//!   <dir>/LOCK                  held (OS lock) while a process has the database open
//!   <dir>/MANIFEST              which checkpoint files to load and where the log starts
//!   <dir>/t<id>-<gen>.arrow     a table's committed rows at checkpoint <gen>
//!   <dir>/wal-<gen>             the log written since checkpoint <gen> (16 hex digits)
//! ```
//!
//! Invariants:
//! - a commit's frame is in the log (durable per [`SyncMode`]) before the commit is visible, and
//!   frames are appended while the transaction is still active, so log order never contradicts
//!   what a later transaction saw;
//! - the `gate` (read by committers from logging until visible, written by a checkpoint while it
//!   takes its snapshot and switches log files) makes "in the checkpoint" and "in the new log"
//!   an exact partition of the committed transactions;
//! - a log file is deleted only after a manifest that no longer needs it is durable, or (at
//!   open) when it is the last log and the log before it never switched to it.

use crate::checkpoint::{self, Manifest, SavedIdentity, TableEntry};
use crate::codec::Writer;
use crate::error::StorageError;
use crate::table::Table;
use crate::vfs::{LockGuard, OsVfs, Vfs};
use crate::wal::{self, SyncMode, Wal};
use crate::Storage;
use arrow::compute::concat_batches;
use parking_lot::{Mutex, RwLock};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// How to open a database folder.
#[derive(Clone)]
pub struct Options {
    /// What a commit waits for.
    pub sync: SyncMode,
    /// A checkpoint runs when the log grows past this many bytes.
    pub checkpoint_bytes: u64,
    /// The file system (tests pass a [`crate::sim::SimVfs`]).
    pub vfs: Arc<dyn Vfs>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            sync: SyncMode::Full,
            checkpoint_bytes: 64 << 20,
            vfs: Arc::new(OsVfs),
        }
    }
}

pub(crate) const OP_CREATE: u8 = 1;
pub(crate) const OP_DROP: u8 = 2;
pub(crate) const OP_INSERT: u8 = 3;
pub(crate) const OP_DELETE: u8 = 4;
/// The last frame of a log a checkpoint left: `OP_NEXT_LOG generation:u64`, the file that
/// continues it (replay refuses a log that ends with it when that file is missing).
pub(crate) const OP_NEXT_LOG: u8 = 5;
/// `OP_IDENTITY table:u64 taken:u64`: how many numbers a table's identity generator had
/// handed out when a commit that took some was logged (see [`crate::identity`]).
pub(crate) const OP_IDENTITY: u8 = 6;

/// The payload of the frame that ends a log and names the next one.
pub(crate) fn next_log_marker(generation: u64) -> Vec<u8> {
    let mut m = vec![OP_NEXT_LOG];
    m.extend_from_slice(&generation.to_le_bytes());
    m
}

/// The generation a next-log frame names, if `payload` is one.
pub(crate) fn next_log(payload: &[u8]) -> Option<u64> {
    match payload {
        [OP_NEXT_LOG, g @ ..] => Some(u64::from_le_bytes(g.try_into().ok()?)),
        _ => None,
    }
}

struct CheckpointState {
    generation: u64,
    manifest: Manifest,
}

/// The durable side of an open database folder.
pub struct Durable {
    dir: PathBuf,
    vfs: Arc<dyn Vfs>,
    pub(crate) gate: RwLock<()>,
    pub(crate) wal: Wal,
    checkpoint: Mutex<CheckpointState>,
    checkpoint_bytes: u64,
    report: Vec<String>,
    _lock: LockGuard,
}

pub(crate) fn wal_name(generation: u64) -> String {
    format!("wal-{generation:016x}")
}

pub(crate) fn io_err(path: &Path) -> impl Fn(std::io::Error) -> StorageError + '_ {
    move |e| StorageError::Io(format!("{}: {e}", path.display()))
}

pub(crate) fn corrupt(path: &Path, detail: impl Into<String>) -> StorageError {
    StorageError::Corrupt {
        file: path.display().to_string(),
        detail: detail.into(),
    }
}

impl Durable {
    pub(crate) fn new(
        dir: &Path,
        opts: &Options,
        wal: Wal,
        generation: u64,
        manifest: Manifest,
        report: Vec<String>,
        lock: LockGuard,
    ) -> Self {
        Durable {
            dir: dir.to_path_buf(),
            vfs: opts.vfs.clone(),
            gate: RwLock::new(()),
            wal,
            checkpoint: Mutex::new(CheckpointState {
                generation,
                manifest,
            }),
            checkpoint_bytes: opts.checkpoint_bytes,
            report,
            _lock: lock,
        }
    }

    /// What opening had to repair (a torn log tail), one line each.
    pub fn report(&self) -> &[String] {
        &self.report
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Logs one commit record, first half: the record gets its place in the log (records
    /// appended one after another replay in that order), not yet durable.
    pub(crate) fn append(&self, payload: &[u8]) -> Result<u64, StorageError> {
        self.wal.append(payload).map_err(StorageError::Io)
    }

    /// Logs one commit record, second half: waits until the record at `lsn` is durable, as
    /// the sync mode says.
    pub(crate) fn wait(&self, lsn: u64) -> Result<(), StorageError> {
        self.wal.commit_wait(lsn).map_err(StorageError::Io)
    }

    /// True when the log has grown past the checkpoint threshold.
    pub(crate) fn wants_checkpoint(&self) -> bool {
        self.wal.size() > self.checkpoint_bytes
    }

    /// Writes a checkpoint and drops the log it makes unnecessary. If another checkpoint is
    /// running and `wait` is false, returns at once.
    pub(crate) fn checkpoint(&self, storage: &Storage, wait: bool) -> Result<(), StorageError> {
        let mut state = match self.checkpoint.try_lock() {
            Some(s) => s,
            None if wait => self.checkpoint.lock(),
            None => return Ok(()),
        };
        let generation = state.generation + 1;
        let log_path = self.dir.join(wal_name(generation));
        // the next log is made before commits are held up (a crash now leaves it unused, and
        // the next open removes it)
        let salt = wal::new_salt();
        self.vfs
            .create_log(&log_path, &wal::file_header(generation, salt))
            .map_err(io_err(&log_path))?;
        let next_log = (self.vfs)
            .open_log(&log_path, wal::HEADER_LEN as u64)
            .map_err(io_err(&log_path))?;
        let gate = self.gate.write();
        let snapshot = storage.txns.snapshot(0);
        let tables: Vec<(Arc<Table>, bool)> = storage
            .catalog
            .tables_for_checkpoint()
            .into_iter()
            .filter(|t| t.creator.load(Ordering::Acquire) == 0)
            .map(|t| {
                let dirty = t.dirty.swap(false, Ordering::AcqRel);
                (t, dirty)
            })
            .collect();
        let restore_dirty = |tables: &[(Arc<Table>, bool)]| {
            for (t, d) in tables {
                if *d {
                    t.dirty.store(true, Ordering::Release);
                }
            }
        };
        let marker = next_log_marker(generation);
        if let Err(e) = self.wal.rotate(&marker, next_log, salt) {
            restore_dirty(&tables);
            return Err(StorageError::Io(e));
        }
        state.generation = generation;
        let next_lsn = self.wal.next_lsn();
        let last_table_id = storage.catalog.last_id();
        drop(gate);

        let written = self.write_manifest(
            &state.manifest,
            &tables,
            &snapshot,
            generation,
            next_lsn,
            last_table_id,
        );
        let manifest = match written {
            Ok(m) => m,
            Err(e) => {
                restore_dirty(&tables);
                return Err(e);
            }
        };
        let keep: HashSet<&str> = manifest.tables.iter().map(|t| t.file.as_str()).collect();
        if let Ok(files) = self.vfs.list(&self.dir) {
            for f in files {
                let old_wal = f
                    .strip_prefix("wal-")
                    .and_then(|g| u64::from_str_radix(g, 16).ok())
                    .is_some_and(|g| g < generation);
                if old_wal || (f.ends_with(".arrow") && !keep.contains(f.as_str())) {
                    let _ = self.vfs.remove(&self.dir.join(f));
                }
            }
        }
        state.manifest = manifest;
        Ok(())
    }

    fn write_manifest(
        &self,
        previous: &Manifest,
        tables: &[(Arc<Table>, bool)],
        snapshot: &crate::mvcc::Snapshot,
        generation: u64,
        next_lsn: u64,
        last_table_id: u64,
    ) -> Result<Manifest, StorageError> {
        let mut entries = Vec::with_capacity(tables.len());
        for (t, dirty) in tables {
            let old = previous.tables.iter().find(|e| e.id == t.id);
            if let (false, Some(old)) = (dirty, old) {
                entries.push(old.clone());
                continue;
            }
            let (batches, seqs, next_seq) = t.checkpoint_rows(snapshot);
            let file = format!("t{}-{generation:016x}.arrow", t.id);
            let path = self.dir.join(&file);
            let chunks = rechunk(&t.schema, &batches)?;
            let bytes = checkpoint::encode_table(&t.schema, &chunks, &seqs)
                .map_err(|e| StorageError::Io(format!("{}: {e}", path.display())))?;
            self.vfs.write_file(&path, &bytes).map_err(io_err(&path))?;
            entries.push(TableEntry {
                id: t.id,
                schema: t.schema.clone(),
                file,
                rows: seqs.len() as u64,
                bytes: bytes.len() as u64,
                crc32: crc32fast::hash(&bytes),
                next_seq,
                identity: t
                    .identity
                    .as_ref()
                    .map(|g| SavedIdentity { taken: g.state() }),
            });
        }
        let manifest = Manifest {
            generation,
            next_lsn,
            last_table_id,
            tables: entries,
            // the new log starts at next_lsn; everything before it is in the table files
            durable_lsn: next_lsn - 1,
            sealed_from: previous.sealed_from.or(Some(generation)),
        };
        store_manifest(&*self.vfs, &self.dir, &manifest)?;
        Ok(manifest)
    }
}

/// Writes `m` as the folder's manifest: aside, then renamed over the old one (a crash leaves
/// one whole manifest, old or new).
pub(crate) fn store_manifest(vfs: &dyn Vfs, dir: &Path, m: &Manifest) -> Result<(), StorageError> {
    let tmp = dir.join("MANIFEST.tmp");
    let path = dir.join("MANIFEST");
    vfs.write_file(&tmp, &checkpoint::encode_manifest(m))
        .map_err(io_err(&tmp))?;
    vfs.rename(&tmp, &path).map_err(io_err(&path))
}

/// Cuts a table's rows into batches of exactly `SEGMENT_ROWS` (the last may be shorter), so a
/// reopen can adopt them as segments without copying.
fn rechunk(
    schema: &crate::catalog::TableSchema,
    batches: &[arrow::record_batch::RecordBatch],
) -> Result<Vec<arrow::record_batch::RecordBatch>, StorageError> {
    let all =
        concat_batches(&schema.arrow, batches).map_err(|e| StorageError::Io(e.to_string()))?;
    let n = all.num_rows();
    let step = crate::table::SEGMENT_ROWS;
    Ok((0..n)
        .step_by(step)
        .map(|at| all.slice(at, step.min(n - at)))
        .collect())
}

impl Drop for Durable {
    fn drop(&mut self) {
        // make everything durable (sync=normal/off) and vouch for it with a close marker,
        // then record in the manifest how far the log goes (a later open that finds less
        // refuses it)
        if self.wal.close().is_ok() {
            let state = self.checkpoint.get_mut();
            let mut m = state.manifest.clone();
            m.durable_lsn = self.wal.next_lsn() - 1;
            if m.durable_lsn > state.manifest.durable_lsn {
                let _ = store_manifest(&*self.vfs, &self.dir, &m);
            }
        }
    }
}

/// Encodes the log record of one transaction's changes.
#[derive(Default)]
pub(crate) struct RecordBuilder {
    w: Writer,
}

impl RecordBuilder {
    pub(crate) fn create(&mut self, t: &Table) {
        self.w.u8(OP_CREATE);
        self.w.u64(t.id);
        let json = serde_json::to_vec(&t.schema).expect("a schema always serializes");
        self.w.bytes(&json);
    }
    pub(crate) fn drop_table(&mut self, t: &Table) {
        self.w.u8(OP_DROP);
        self.w.u64(t.id);
    }
    pub(crate) fn insert(&mut self, t: &Table, seq: u64, values: &[crate::types::Value]) {
        self.w.u8(OP_INSERT);
        self.w.u64(t.id);
        self.w.u64(seq);
        self.w.u32(values.len() as u32);
        for v in values {
            self.w.value(v);
        }
    }
    pub(crate) fn identity(&mut self, t: &Table, taken: u64) {
        self.w.u8(OP_IDENTITY);
        self.w.u64(t.id);
        self.w.u64(taken);
    }
    pub(crate) fn delete(&mut self, t: &Table, seq: u64) {
        self.w.u8(OP_DELETE);
        self.w.u64(t.id);
        self.w.u64(seq);
    }
    pub(crate) fn finish(self) -> Vec<u8> {
        self.w.buf
    }
}
