//! Opening a database folder: take the lock, read the manifest, load the checkpoint files,
//! replay the logs after them, repair a torn tail, and hand back a [`Storage`] ready to log.
//!
//! Invariants: nothing is decoded before its checksum matched; every value replayed fits its
//! column (a checksummed but inconsistent file is 9916, never a panic); damage is repaired only
//! when no later intact frame proves the damaged frame had been durable (see [`crate::wal`]),
//! and then zeroed, never cut (a log never shrinks); a log cut short, or missing where the
//! log before it names it, is refused; anything else is [`StorageError::Corrupt`] naming the
//! file. docs/durability.md walks through it.

use crate::catalog::{Catalog, TableSchema};
use crate::checkpoint::{self, Manifest, TableEntry};
use crate::codec::Reader;
use crate::durable::{corrupt, io_err, wal_name, Durable, Options};
use crate::durable::{OP_CREATE, OP_DELETE, OP_DROP, OP_IDENTITY, OP_INSERT};
use crate::error::StorageError;
use crate::mvcc::TxnManager;
use crate::table::{RowId, Table};
use crate::types::{SqlType, Value};
use crate::vfs::Vfs;
use crate::wal;
use crate::Storage;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// What a new database folder's `.gitignore` says: ignore everything in it.
const GITIGNORE: &[u8] = b"# a tdlite database folder: never committed\n*\n";

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
    if files.iter().all(|f| f == crate::vfs::LOCK_FILE) {
        // a new database folder: git never picks it up (`tdlite ./mydb` inside a checkout)
        let ignore = dir.join(".gitignore");
        vfs.write_file(&ignore, GITIGNORE)
            .map_err(io_err(&ignore))?;
    }
    let manifest = read_manifest(&*vfs, dir, &files)?;
    // a new database's log was made just now
    let files = match files.iter().any(|f| f.starts_with("wal-")) {
        true => files,
        false => vfs.list(dir).map_err(io_err(dir))?,
    };

    let mut rec = Recovery {
        catalog: Catalog::default(),
        txns: TxnManager::default(),
        by_id: HashMap::new(),
        rows: HashMap::new(),
        dropped: HashSet::new(),
        boot: 0,
        checkpointed_ids: manifest.last_table_id,
    };
    rec.boot = rec.txns.begin();
    for entry in &manifest.tables {
        rec.load_table(&*vfs, dir, entry)?;
    }
    rec.catalog.raise_last_id(manifest.last_table_id);
    let (report, log) = replay_logs(&*vfs, dir, &files, &manifest, &mut rec)?;
    rec.txns.end(rec.boot);
    remove_leftovers(&*vfs, dir, &files, &manifest);
    crate::transaction::count_copies(&rec.catalog);

    let log_path = dir.join(wal_name(log.generation));
    let mut file = vfs
        .open_log(&log_path, log.len)
        .map_err(io_err(&log_path))?;
    // What a killed process wrote but never synced is replayed and now counts as durable: new
    // frames will say so (`synced`), so make it true before logging anything.
    file.sync().map_err(io_err(&log_path))?;
    // record how far the log goes now (a later open that finds less refuses it, 9916), and
    // that the logs from this one on keep the rules of `wal` (a folder of an older version)
    let mut manifest = manifest;
    let grown = log.next_lsn - 1 > manifest.durable_lsn;
    if grown || manifest.sealed_from.is_none() {
        manifest.durable_lsn = manifest.durable_lsn.max(log.next_lsn - 1);
        manifest.sealed_from = manifest.sealed_from.or(Some(log.generation));
        crate::durable::store_manifest(&*vfs, dir, &manifest)?;
    }
    let wal = wal::Wal::new(file, log.salt, log.len, log.next_lsn, opts.sync);
    let durable = Durable::new(dir, &opts, wal, log.generation, manifest, report, lock);
    Ok(Storage {
        catalog: rec.catalog,
        txns: rec.txns,
        locks: Default::default(),
        durable: Some(durable),
        last_lease: Default::default(),
    })
}

fn read_manifest(vfs: &dyn Vfs, dir: &Path, files: &[String]) -> Result<Manifest, StorageError> {
    let path = dir.join("MANIFEST");
    if files.iter().any(|f| f == "MANIFEST") {
        let bytes = vfs.read(&path).map_err(io_err(&path))?;
        let m = checkpoint::decode_manifest(&bytes).map_err(|e| corrupt(&path, e))?;
        for t in &m.tables {
            check_schema(&t.schema).map_err(|e| corrupt(&path, e))?;
        }
        return Ok(m);
    }
    let first = wal_name(0);
    for f in files {
        let half_made = f == &first && {
            // a new database's log, made before its manifest: a crash came in between
            let bytes = vfs.read(&dir.join(f)).map_err(io_err(&dir.join(f)))?;
            blank_header(&bytes) || wal::scan(&bytes).is_some_and(|s| s.frames.is_empty())
        };
        if (f.starts_with("wal-") || f.ends_with(".arrow")) && !half_made {
            return Err(corrupt(&path, "missing, but log or table files exist"));
        }
    }
    // A new database: its empty log first, then the manifest that names it (written aside
    // and renamed), so a manifest never names a log that was not made: a log it names that is
    // missing was removed (9916), and a crash in between leaves an empty log and no manifest.
    let log = dir.join(first);
    vfs.create_log(&log, &wal::file_header(0, wal::new_salt()))
        .map_err(io_err(&log))?;
    let m = Manifest::empty();
    crate::durable::store_manifest(vfs, dir, &m)?;
    Ok(m)
}

/// Where logging continues after replay.
struct LogEnd {
    generation: u64,
    salt: u32,
    len: u64,
    next_lsn: u64,
}

fn replay_logs(
    vfs: &dyn Vfs,
    dir: &Path,
    files: &[String],
    manifest: &Manifest,
    rec: &mut Recovery,
) -> Result<(Vec<String>, LogEnd), StorageError> {
    let mut gens: Vec<u64> = files
        .iter()
        .filter_map(|f| f.strip_prefix("wal-"))
        .filter_map(|g| u64::from_str_radix(g, 16).ok())
        .filter(|&g| g >= manifest.generation)
        .collect();
    gens.sort_unstable();
    let mut report = Vec::new();
    let mut end = LogEnd {
        generation: manifest.generation,
        salt: 0,
        len: 0,
        next_lsn: manifest.next_lsn,
    };
    if gens.first() != Some(&manifest.generation) {
        let path = dir.join(wal_name(manifest.generation));
        return Err(corrupt(&path, "the log file the manifest names is missing"));
    }
    let mut logs = Vec::with_capacity(gens.len());
    for &g in &gens {
        let path = dir.join(wal_name(g));
        let bytes = vfs.read(&path).map_err(io_err(&path))?;
        logs.push((g, path, bytes));
    }
    let scans: Vec<Option<wal::LogScan>> = logs.iter().map(|(_, _, b)| wal::scan(b)).collect();
    // Every file is judged before anything is repaired, so a refusal leaves the folder as it was.
    let mut repairs = Vec::new();
    // whether the log before this one keeps the rules of `wal` (sealed), and which log its
    // last frame switched to, if it ended with one
    let (mut prev_sealed, mut switched) = (false, None::<u64>);
    let missing = |next: u64| {
        let path = dir.join(wal_name(next));
        corrupt(&path, "missing: the log before it ends by naming it")
    };
    for (i, ((g, path, bytes), scan)) in logs.iter().zip(&scans).enumerate() {
        let path: &Path = path;
        let sealed = manifest.sealed_from.is_some_and(|s| *g >= s);
        // A later log with anything in it proves this one was synced before the switch.
        let later_content =
            logs[i + 1..]
                .iter()
                .zip(&scans[i + 1..])
                .any(|((_, _, b), s)| match s {
                    Some(s) => !s.frames.is_empty() || s.damage.is_some(),
                    None => !blank_header(b),
                });
        let empty = match scan {
            Some(s) => s.frames.is_empty() && s.damage.is_none(),
            None => blank_header(bytes),
        };
        if i > 0 && i + 1 == logs.len() && switched.is_none() && empty {
            // A checkpoint made this log (perhaps not even its whole header) and crashed
            // before switching to it: nothing was ever logged in it. Logging goes on in the
            // log before it, which never switched.
            report.push(format!(
                "{}: removed a log file a checkpoint made but never used",
                path.display()
            ));
            repairs.push(Repair::Remove(path));
            continue;
        }
        match switched.take() {
            Some(next) if next != *g => return Err(missing(next)),
            None if i > 0 && prev_sealed => {
                return Err(corrupt(
                    path,
                    "the log before it never switched to it, yet it is not an unused last \
                     log (it has records or damage, or logs follow it)",
                ));
            }
            _ => {}
        }
        let Some(scan) = scan else {
            // A new database's first log, its header torn (or never written) by a crash
            // (versions that wrote the manifest first): nothing was ever logged in it.
            if i == 0 && *g == 0 && manifest.next_lsn == 1 && empty && !later_content {
                let salt = wal::new_salt();
                report.push(format!(
                    "{}: rewrote a log header torn by a crash",
                    path.display()
                ));
                repairs.push(Repair::Header(path, wal::file_header(*g, salt)));
                (end.generation, end.salt, end.len) = (*g, salt, wal::HEADER_LEN as u64);
                prev_sealed = sealed;
                continue;
            }
            return Err(corrupt(
                path,
                "not a tdlite log file, or its header is damaged",
            ));
        };
        if scan.generation != *g {
            return Err(corrupt(path, "log header names another generation"));
        }
        if sealed && scan.cut {
            // a log always ends in zeros (preallocated, never shrunk): less is a cut
            return Err(corrupt(
                path,
                format!(
                    "the log was cut short: it ends at byte {} {}, where a log file always \
                     ends in preallocated zeros",
                    bytes.len(),
                    match bytes.len() == scan.valid_len {
                        true if scan.frames.is_empty() => "right after its header",
                        true => "right after a record",
                        false => "inside a record, or in bytes that are not zeros",
                    },
                ),
            ));
        }
        for (k, f) in scan.frames.iter().enumerate() {
            if f.lsn != end.next_lsn {
                return Err(corrupt(
                    path,
                    format!("expected LSN {}, found {}", end.next_lsn, f.lsn),
                ));
            }
            if let Some(next) = crate::durable::next_log(f.payload) {
                // a checkpoint's switch: the last thing ever written to this log
                let last = k + 1 == scan.frames.len() && scan.damage.is_none();
                if !last || g.checked_add(1) != Some(next) {
                    return Err(corrupt(
                        path,
                        format!("record LSN {} names log {next} in the wrong place", f.lsn),
                    ));
                }
                switched = Some(next);
            } else {
                rec.apply(f.payload)
                    .map_err(|e| corrupt(path, format!("record LSN {}: {e}", f.lsn)))?;
            }
            end.next_lsn += 1;
        }
        if let Some(at) = scan.damage {
            let recorded = end.next_lsn <= manifest.durable_lsn;
            if !torn_tail(end.next_lsn, &scan.after_damage) || later_content || recorded {
                return Err(corrupt(
                    path,
                    format!(
                        "damaged record at byte {at} (LSN {}), which later records show was \
                         durable",
                        end.next_lsn
                    ),
                ));
            }
            // zeroed, not cut: the log keeps its length, and nothing of the torn write can
            // be read as a frame once appends continue over it
            let torn_end = bytes.iter().rposition(|&b| b != 0).map_or(at, |p| p + 1);
            report.push(format!(
                "{}: discarded a torn write at the end of the log ({} bytes from byte {at}); \
                 it was never synced",
                path.display(),
                torn_end - at,
            ));
            repairs.push(Repair::Zero(path, at as u64, torn_end - at));
        }
        if bytes.len() == scan.valid_len {
            // a log of a version that cut its zero tail: give it one again
            repairs.push(Repair::Pad(path, bytes.len() as u64));
        }
        (end.generation, end.salt, end.len) = (*g, scan.salt, scan.valid_len as u64);
        prev_sealed = sealed;
    }
    if let Some(next) = switched {
        return Err(missing(next));
    }
    if end.next_lsn <= manifest.durable_lsn {
        // the manifest saw LSNs up to durable_lsn in the logs, and they are gone
        let path = dir.join(wal_name(end.generation));
        return Err(corrupt(
            &path,
            format!(
                "the log ends before LSN {}, but LSN {} was durable when MANIFEST was written: \
                 the log was cut short or a log file removed",
                end.next_lsn, manifest.durable_lsn
            ),
        ));
    }
    for r in repairs {
        match r {
            Repair::Header(path, header) => vfs.create_log(path, &header).map_err(io_err(path))?,
            Repair::Zero(path, at, n) => {
                vfs.write_at(path, at, &vec![0; n]).map_err(io_err(path))?
            }
            Repair::Pad(path, at) => vfs.write_at(path, at, &[0; 4096]).map_err(io_err(path))?,
            Repair::Remove(path) => vfs.remove(path).map_err(io_err(path))?,
        }
    }
    Ok((report, end))
}

/// What opening changes in the folder, once every file has been judged.
enum Repair<'a> {
    /// A new database's first log, made again.
    Header(&'a Path, Vec<u8>),
    /// A torn write zeroed: from byte, how many.
    Zero(&'a Path, u64, usize),
    /// A zero tail added at this byte (a log of a version that cut it).
    Pad(&'a Path, u64),
    /// A log a checkpoint made but never switched to.
    Remove(&'a Path),
}

/// What a crash can leave of a log file that was being created: nothing, or a prefix of a
/// header, followed by any number of zeros. Nothing in it can have been logged.
fn blank_header(bytes: &[u8]) -> bool {
    let content = bytes.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
    let magic = content.min(wal::FILE_MAGIC.len());
    content <= wal::HEADER_LEN && wal::FILE_MAGIC.starts_with(&bytes[..magic])
}

/// Whether damage at the frame with LSN `d` is what a power cut leaves of a write that was
/// never synced: no intact frame after it vouches for `d` (`synced ≥ d`). The disk may have
/// saved the pages of an unsynced group write in any order, so intact frames may follow. One
/// case stays ambiguous: media damage to the last group synced before a crash (a clean close
/// vouches for it with its marker) looks the same and is reported as a torn write.
fn torn_tail(d: u64, after: &[(usize, wal::Frame)]) -> bool {
    !after.iter().any(|(_, f)| f.synced >= d)
}

/// Files no manifest or replay needs: leftovers of an interrupted checkpoint. A failure to
/// remove one is harmless (the next open tries again).
fn remove_leftovers(vfs: &dyn Vfs, dir: &Path, files: &[String], manifest: &Manifest) {
    let keep: HashSet<&str> = manifest.tables.iter().map(|t| t.file.as_str()).collect();
    for f in files {
        let stale_wal = f
            .strip_prefix("wal-")
            .and_then(|g| u64::from_str_radix(g, 16).ok())
            .is_some_and(|g| g < manifest.generation);
        let stale_table = f.ends_with(".arrow") && !keep.contains(f.as_str());
        if stale_wal || stale_table || f == "MANIFEST.tmp" {
            let _ = vfs.remove(&dir.join(f));
        }
    }
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
    /// Ids up to this were handed out before the checkpoint; one the manifest does not name was
    /// dropped before it, and a late write to it (by a transaction that held the table while
    /// the DROP committed) is skipped.
    checkpointed_ids: u64,
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
        if let (Some(g), Some(saved)) = (&t.identity, e.identity) {
            g.raise(saved.taken);
        }
        t.dirty.store(false, Ordering::Relaxed);
        self.by_id.insert(e.id, t);
        Ok(())
    }

    fn table(&self, id: u64) -> Result<Option<Arc<Table>>, String> {
        if self.dropped.contains(&id) {
            return Ok(None);
        }
        match self.by_id.get(&id) {
            Some(t) => Ok(Some(t.clone())),
            None if id <= self.checkpointed_ids => Ok(None),
            None => Err(format!("unknown table id {id}")),
        }
    }

    fn apply(&mut self, payload: &[u8]) -> Result<(), String> {
        let bad = |_| "record ends early".to_string();
        let mut r = Reader::new(payload);
        while !r.is_empty() {
            match r.u8().map_err(bad)? {
                OP_CREATE => {
                    let id = r.u64().map_err(bad)?;
                    let schema: TableSchema = serde_json::from_slice(r.bytes().map_err(bad)?)
                        .map_err(|e| e.to_string())?;
                    check_schema(&schema)?;
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
                            .drop_table(&t.schema.name, 0)
                            .map_err(|e| e.to_string())?;
                        self.dropped.insert(id);
                    }
                }
                OP_INSERT => {
                    let (id, seq) = (r.u64().map_err(bad)?, r.u64().map_err(bad)?);
                    let n = r.u32().map_err(bad)? as usize;
                    let values = (0..n).map(|_| r.value()).collect::<Result<Vec<_>, _>>();
                    let values = values.map_err(bad)?;
                    if let Some(t) = self.table(id)? {
                        check_row(&t.schema, &values)?;
                        let rid = t.lock().push_recovered(&t.schema, values, seq, self.boot);
                        t.dirty.store(true, Ordering::Relaxed);
                        self.rows.entry(id).or_default().insert(seq, rid);
                    }
                }
                OP_DELETE => {
                    let (id, seq) = (r.u64().map_err(bad)?, r.u64().map_err(bad)?);
                    if let Some(t) = self.table(id)? {
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
                OP_IDENTITY => {
                    let (id, taken) = (r.u64().map_err(bad)?, r.u64().map_err(bad)?);
                    // (a table this log does not know is one its transaction's own CREATE of
                    // was undone before the commit: nothing to number)
                    if let Some(g) = self.by_id.get(&id).and_then(|t| t.identity.as_ref()) {
                        g.raise(taken);
                        // the next checkpoint saves the new count, not the old entry's
                        self.by_id[&id].dirty.store(true, Ordering::Relaxed);
                    }
                }
                other => return Err(format!("unknown operation {other}")),
            }
        }
        Ok(())
    }
}

/// A definition storage can hold without panicking: columns exist (a macro has none, and no
/// index, and is no queue), index columns are in range, decimals are valid, a queue's first
/// column is a timestamp.
fn check_schema(s: &TableSchema) -> Result<(), String> {
    let n = s.columns.len();
    let bad = |what: &str| Err(format!("table {}: {what}", s.name));
    if s.macro_def.is_some() {
        return if n == 0 && s.primary_index.is_none() && s.secondary.is_empty() && !s.queue {
            Ok(())
        } else {
            bad("a macro with columns, indexes or a queue")
        };
    }
    if n == 0 {
        return bad("no columns");
    }
    let indexes = s.primary_index.iter().chain(&s.secondary);
    if indexes.flat_map(|i| &i.columns).any(|&c| c >= n) {
        return bad("an index names a column that does not exist");
    }
    for c in &s.columns {
        if let SqlType::Decimal(p, sc) = c.ty {
            if !(1..=38).contains(&p) || sc < 0 || sc as u8 > p {
                return bad("invalid DECIMAL precision or scale");
            }
        }
    }
    if s.queue && !matches!(s.columns[0].ty, SqlType::Timestamp(_)) {
        return bad("a queue table whose first column is not a timestamp");
    }
    if let Some(o) = s.queue_order {
        let integer = s.columns.get(o.column).is_some_and(|c| c.ty.is_integer());
        if !s.queue || o.column == 0 || !integer {
            return bad("a consume order that is not an integer column of a queue");
        }
    }
    if s.delivers_at_qits && (!s.queue || s.queue_order.is_some()) {
        return bad("delivery at QITS for a table that is no plain queue");
    }
    if let Some(l) = &s.limits {
        let integer = |c: usize| c > 0 && s.columns.get(c).is_some_and(|c| c.ty.is_integer());
        if !s.queue || l.attempts.is_some_and(|c| !integer(c)) {
            return bad("an attempt count that is not an integer column of a queue");
        }
        if l.retry_delay_us.is_some_and(|d| d <= 0)
            || (l.retry_delay_us.is_some() && (!s.delivers_at_qits || l.attempts.is_none()))
        {
            return bad("a retry delay that is not a positive time of a delivering queue");
        }
        // expired rows are at the head only in QITS order
        if l.expire_after_us
            .is_some_and(|a| a <= 0 || s.queue_order.is_some())
        {
            return bad("an expiry that is not a positive time of a queue in QITS order");
        }
    }
    Ok(())
}

/// A logged row fits its table: the right number of values, each of its column's kind, NULL
/// only where allowed.
fn check_row(s: &TableSchema, values: &[Value]) -> Result<(), String> {
    if values.len() != s.columns.len() {
        return Err(format!("row of {} values for {}", values.len(), s.name));
    }
    for (v, c) in values.iter().zip(&s.columns) {
        let fits = match (v, c.ty) {
            (Value::Null, _) => c.nullable,
            (Value::Int(i), SqlType::ByteInt) => i8::try_from(*i).is_ok(),
            (Value::Int(i), SqlType::SmallInt) => i16::try_from(*i).is_ok(),
            (Value::Int(i), SqlType::Integer) => i32::try_from(*i).is_ok(),
            (Value::Int(_), SqlType::BigInt) => true,
            (Value::Decimal(_, s), SqlType::Decimal(_, cs)) => *s == cs,
            (Value::Float(_), SqlType::Float) => true,
            (Value::Str(_), SqlType::Char(_) | SqlType::VarChar(_)) => true,
            (Value::Bytes(_), SqlType::Byte(_) | SqlType::VarByte(_)) => true,
            (Value::Date(_), SqlType::Date) => true,
            (Value::Time(_), SqlType::Time(_)) => true,
            (Value::Timestamp(_), SqlType::Timestamp(_)) => true,
            (Value::Period(p), SqlType::Period(e)) => p.kind == e.kind() && p.begin < p.end,
            _ => false,
        };
        if !fits {
            return Err(format!(
                "value {v:?} does not fit column {} of {}",
                c.name, s.name
            ));
        }
    }
    Ok(())
}
