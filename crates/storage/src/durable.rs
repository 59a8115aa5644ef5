//! A database folder: opening it (lock, manifest, checkpoint files, log replay), logging each
//! commit, and checkpoints. docs/durability.md describes the format and the recovery procedure.
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
//! - a log file is deleted only after a manifest that no longer needs it is durable.

use crate::catalog::Catalog;
use crate::checkpoint::{self, Manifest, TableEntry};
use crate::codec::{Reader, Writer};
use crate::error::StorageError;
use crate::mvcc::TxnManager;
use crate::table::{RowId, Table};
use crate::vfs::{LockGuard, OsVfs, Vfs};
use crate::wal::{self, SyncMode, Wal};
use crate::Storage;
use arrow::compute::concat_batches;
use parking_lot::{Mutex, RwLock};
use std::collections::{HashMap, HashSet};
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

fn wal_name(generation: u64) -> String {
    format!("wal-{generation:016x}")
}

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> StorageError + '_ {
    move |e| StorageError::Io(format!("{}: {e}", path.display()))
}

fn corrupt(path: &Path, detail: impl Into<String>) -> StorageError {
    StorageError::Corrupt {
        file: path.display().to_string(),
        detail: detail.into(),
    }
}

/// Rebuilds the database from `dir`; see the module docs.
pub(crate) fn open(dir: &Path, opts: Options) -> Result<Storage, StorageError> {
    let vfs = opts.vfs.clone();
    vfs.create_dir_all(dir).map_err(io_err(dir))?;
    let lock = vfs.lock(dir).map_err(|e| {
        if e.kind() == std::io::ErrorKind::WouldBlock {
            StorageError::Locked(dir.display().to_string())
        } else {
            io_err(dir)(e)
        }
    })?;
    let files = vfs.list(dir).map_err(io_err(dir))?;
    let manifest_path = dir.join("MANIFEST");
    let manifest = if files.iter().any(|f| f == "MANIFEST") {
        let bytes = vfs.read(&manifest_path).map_err(io_err(&manifest_path))?;
        checkpoint::decode_manifest(&bytes).map_err(|e| corrupt(&manifest_path, e))?
    } else if files
        .iter()
        .any(|f| f.starts_with("wal-") || f.ends_with(".arrow"))
    {
        return Err(corrupt(
            &manifest_path,
            "missing, but log or table files exist",
        ));
    } else {
        let m = Manifest::empty();
        vfs.write_file(&manifest_path, &checkpoint::encode_manifest(&m))
            .map_err(io_err(&manifest_path))?;
        m
    };

    let mut rec = Recovery {
        catalog: Catalog::default(),
        txns: TxnManager::default(),
        by_id: HashMap::new(),
        rows: HashMap::new(),
        dropped: HashSet::new(),
        boot: 0,
    };
    rec.boot = rec.txns.begin();
    for entry in &manifest.tables {
        rec.load_table(&*vfs, dir, entry)?;
    }
    rec.catalog.raise_last_id(manifest.last_table_id);

    let mut gens: Vec<u64> = files
        .iter()
        .filter_map(|f| f.strip_prefix("wal-"))
        .filter_map(|g| u64::from_str_radix(g, 16).ok())
        .filter(|&g| g >= manifest.generation)
        .collect();
    gens.sort_unstable();
    let mut report = Vec::new();
    let mut next_lsn = manifest.next_lsn;
    let mut last = (manifest.generation, wal::HEADER_LEN as u64);
    if gens.first() != Some(&manifest.generation) {
        let path = dir.join(wal_name(manifest.generation));
        if manifest.next_lsn != 1 || manifest.generation != 0 {
            return Err(corrupt(&path, "the log file the manifest names is missing"));
        }
        vfs.write_file(&path, &wal::file_header(0))
            .map_err(io_err(&path))?;
    }
    // Read every log first: damage is a torn tail (repaired) only if no intact frame follows
    // it in this file or a later one; otherwise the log is corrupt and nothing is guessed.
    let mut logs = Vec::with_capacity(gens.len());
    for &g in &gens {
        let path = dir.join(wal_name(g));
        let bytes = vfs.read(&path).map_err(io_err(&path))?;
        logs.push((g, path, bytes));
    }
    let scans: Vec<Option<wal::LogScan>> = logs.iter().map(|(_, _, b)| wal::scan(b)).collect();
    for (i, ((g, path, bytes), scan)) in logs.iter().zip(&scans).enumerate() {
        let later_frames = scans[i + 1..]
            .iter()
            .any(|s| s.as_ref().is_some_and(|s| !s.frames.is_empty()));
        let Some(scan) = scan else {
            // A header torn by a cut while a checkpoint switched logs: nothing was ever in it.
            if bytes.len() < wal::HEADER_LEN && !later_frames {
                vfs.write_file(path, &wal::file_header(*g))
                    .map_err(io_err(path))?;
                report.push(format!(
                    "{}: rewrote a log header torn by a crash",
                    path.display()
                ));
                last = (*g, wal::HEADER_LEN as u64);
                continue;
            }
            return Err(corrupt(path, "not a tdlite log file"));
        };
        if scan.generation != *g {
            return Err(corrupt(path, "log header names another generation"));
        }
        for (lsn, payload) in &scan.frames {
            if *lsn != next_lsn {
                return Err(corrupt(
                    path,
                    format!("expected LSN {next_lsn}, found {lsn}"),
                ));
            }
            rec.apply(payload)
                .map_err(|e| corrupt(path, format!("record LSN {lsn}: {e}")))?;
            next_lsn += 1;
        }
        if let Some(d) = scan.damage {
            if d.intact_after || later_frames {
                return Err(corrupt(
                    path,
                    format!(
                        "damaged record at byte {} with intact records after it",
                        d.offset
                    ),
                ));
            }
            vfs.truncate(path, scan.valid_len as u64)
                .map_err(io_err(path))?;
            report.push(format!(
                "{}: discarded a torn record at the end of the log ({} bytes from byte {}); \
                 under sync=full it was never acknowledged as committed",
                path.display(),
                bytes.len() - scan.valid_len,
                d.offset
            ));
        }
        if scan.damage.is_none() && bytes.len() > scan.valid_len {
            // preallocated zeros: cut them so appends continue at the log's logical end
            vfs.truncate(path, scan.valid_len as u64)
                .map_err(io_err(path))?;
        }
        last = (*g, scan.valid_len as u64);
    }
    rec.txns.end(rec.boot);

    // Files no manifest or replay needs any more: leftovers of an interrupted checkpoint.
    let keep: HashSet<&str> = manifest.tables.iter().map(|t| t.file.as_str()).collect();
    for f in &files {
        let stale_wal = f
            .strip_prefix("wal-")
            .and_then(|g| u64::from_str_radix(g, 16).ok())
            .is_some_and(|g| g < manifest.generation);
        let stale_table = f.ends_with(".arrow") && !keep.contains(f.as_str());
        if stale_wal || stale_table || f == "MANIFEST.tmp" {
            let _ = vfs.remove(&dir.join(f));
        }
    }

    let log_path = dir.join(wal_name(last.0));
    let file = vfs.open_log(&log_path).map_err(io_err(&log_path))?;
    let Recovery { catalog, txns, .. } = rec;
    Ok(Storage {
        catalog,
        txns,
        durable: Some(Durable {
            dir: dir.to_path_buf(),
            vfs,
            gate: RwLock::new(()),
            wal: Wal::new(file, last.1, next_lsn, opts.sync),
            checkpoint: Mutex::new(CheckpointState {
                generation: last.0,
                manifest,
            }),
            checkpoint_bytes: opts.checkpoint_bytes,
            report,
            _lock: lock,
        }),
    })
}

/// The state being rebuilt while opening.
struct Recovery {
    catalog: Catalog,
    txns: TxnManager,
    by_id: HashMap<u64, Arc<Table>>,
    /// Live rows by (table id, insertion sequence).
    rows: HashMap<u64, HashMap<u64, RowId>>,
    dropped: HashSet<u64>,
    boot: u64,
}

impl Recovery {
    fn load_table(
        &mut self,
        vfs: &dyn Vfs,
        dir: &Path,
        e: &TableEntry,
    ) -> Result<(), StorageError> {
        let path = dir.join(&e.file);
        let bytes = vfs.read(&path).map_err(io_err(&path))?;
        if bytes.len() as u64 != e.bytes || crc32fast::hash(&bytes) != e.crc32 {
            return Err(corrupt(
                &path,
                "length or checksum differs from the manifest",
            ));
        }
        let batches = checkpoint::decode_table(&e.schema, bytes).map_err(|m| corrupt(&path, m))?;
        let t = self
            .catalog
            .create_with_id(e.id, e.schema.clone())
            .map_err(|m| corrupt(&path, m.to_string()))?;
        let rows = self.rows.entry(e.id).or_default();
        let mut d = t.lock();
        let mut n = 0;
        for (batch, seqs) in batches {
            n += seqs.len() as u64;
            let ids = d.push_recovered_batch(&t.schema, batch, &seqs, self.boot);
            rows.extend(seqs.into_iter().zip(ids));
        }
        if n != e.rows {
            return Err(corrupt(
                &path,
                format!("{n} rows, the manifest says {}", e.rows),
            ));
        }
        d.raise_next_seq(e.next_seq);
        drop(d);
        t.dirty.store(false, Ordering::Relaxed);
        self.by_id.insert(e.id, t);
        Ok(())
    }

    fn table(&self, id: u64) -> Result<Option<&Arc<Table>>, String> {
        if self.dropped.contains(&id) {
            return Ok(None);
        }
        self.by_id
            .get(&id)
            .map(Some)
            .ok_or_else(|| format!("unknown table id {id}"))
    }

    fn apply(&mut self, payload: &[u8]) -> Result<(), String> {
        let bad = |_| "record ends early".to_string();
        let mut r = Reader::new(payload);
        while !r.is_empty() {
            match r.u8().map_err(bad)? {
                OP_CREATE => {
                    let id = r.u64().map_err(bad)?;
                    let schema: crate::catalog::TableSchema =
                        serde_json::from_slice(r.bytes().map_err(bad)?)
                            .map_err(|e| e.to_string())?;
                    let t = self
                        .catalog
                        .create_with_id(id, schema.with_arrow())
                        .map_err(|e| e.to_string())?;
                    self.by_id.insert(id, t);
                }
                OP_DROP => {
                    let id = r.u64().map_err(bad)?;
                    if let Some(t) = self.table(id)? {
                        self.catalog
                            .drop_table(&t.schema.name)
                            .map_err(|e| e.to_string())?;
                        self.dropped.insert(id);
                    }
                }
                OP_INSERT => {
                    let id = r.u64().map_err(bad)?;
                    let seq = r.u64().map_err(bad)?;
                    let n = r.u32().map_err(bad)? as usize;
                    let values = (0..n).map(|_| r.value()).collect::<Result<Vec<_>, _>>();
                    let values = values.map_err(bad)?;
                    if let Some(t) = self.table(id)?.cloned() {
                        if n != t.schema.columns.len() {
                            return Err(format!("row of {n} values for {}", t.schema.name));
                        }
                        let rid = t.lock().push_recovered(&t.schema, values, seq, self.boot);
                        t.dirty.store(true, Ordering::Relaxed);
                        self.rows.entry(id).or_default().insert(seq, rid);
                    }
                }
                OP_DELETE => {
                    let id = r.u64().map_err(bad)?;
                    let seq = r.u64().map_err(bad)?;
                    if let Some(t) = self.table(id)?.cloned() {
                        let rid = self
                            .rows
                            .get_mut(&id)
                            .and_then(|m| m.remove(&seq))
                            .ok_or_else(|| {
                                format!("deletes missing row {seq} of {}", t.schema.name)
                            })?;
                        t.lock().delete_recovered(rid, self.boot);
                        t.dirty.store(true, Ordering::Relaxed);
                    }
                }
                other => return Err(format!("unknown operation {other}")),
            }
        }
        Ok(())
    }
}

impl Durable {
    /// What opening had to repair (a torn log tail), one line each.
    pub fn report(&self) -> &[String] {
        &self.report
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Logs one commit record and waits as the sync mode says.
    pub(crate) fn log(&self, payload: &[u8]) -> Result<(), StorageError> {
        let lsn = self.wal.append(payload).map_err(StorageError::Io)?;
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
        let rotated = self
            .vfs
            .write_file(&log_path, &wal::file_header(generation))
            .map_err(io_err(&log_path))
            .and_then(|()| self.vfs.open_log(&log_path).map_err(io_err(&log_path)))
            .and_then(|f| {
                self.wal
                    .rotate(f, wal::HEADER_LEN as u64)
                    .map_err(StorageError::Io)
            });
        if let Err(e) = rotated {
            restore_dirty(&tables);
            return Err(e);
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
            });
        }
        let manifest = Manifest {
            generation,
            next_lsn,
            last_table_id,
            tables: entries,
        };
        let tmp = self.dir.join("MANIFEST.tmp");
        let path = self.dir.join("MANIFEST");
        self.vfs
            .write_file(&tmp, &checkpoint::encode_manifest(&manifest))
            .map_err(io_err(&tmp))?;
        self.vfs.rename(&tmp, &path).map_err(io_err(&path))?;
        Ok(manifest)
    }
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
        // sync=normal/off: make what was written durable at a clean close
        let _ = self.wal.sync_all();
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
    pub(crate) fn delete(&mut self, t: &Table, seq: u64) {
        self.w.u8(OP_DELETE);
        self.w.u64(t.id);
        self.w.u64(seq);
    }
    pub(crate) fn finish(self) -> Vec<u8> {
        self.w.buf
    }
}
