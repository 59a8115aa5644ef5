//! A table: sealed Arrow segments plus an open tail, per-row MVCC stamps, and the side indexes
//! that keep constraints and the queue cheap (unique keys, SET duplicates, the queue index),
//! plus the ordered indexes the planner reads ([`crate::index`]).
//!
//! ```text
//!   RowId:  0 ............ SEG-1 | SEG ........ 2·SEG-1 | 2·SEG ... (tail)
//!           segment 0 (RecordBatch) segment 1 (RecordBatch)  Tail (crate::tail), sealed when full
//!   stamps (xmin, xmax; crate::stamps), seq[]  one entry per RowId, beside the batches
//! ```
//!
//! Invariants: a RowId never moves or changes its values (updates are delete + insert); the
//! stamps follow the rules in [`crate::mvcc`]; the unique maps hold every row whose creator did
//! not roll back (a NULL is a key value: two NULLs in one unique key clash, as in Teradata)
//! and that a reader may still see (a lookup, [`Table::unique_rows`], and an insert of a key
//! with many versions prune the versions dead to all), the SET duplicate map every such row of
//! a table without a unique key (an identical row would share that key, so the unique check,
//! which comes first, decides for it), and
//! lookups skip rows whose deletion committed. A change of the unique keys (CREATE/DROP
//! INDEX, ALTER) rebuilds the table, and with it these maps.

use crate::catalog::TableSchema;
use crate::error::StorageError;
use crate::index::{indexable, IndexEntry, OrderedIndex};
use crate::mvcc::{Snapshot, TxnId, TxnManager, DEAD};
use crate::padded::Padded;
use crate::queue::{QueueIndex, QueueKey};
use crate::stamps::{StampChunk, Stamps};
use crate::tail::{row_slices, Tail, TailRow, TailView};
use crate::types::{normalize_for_key, value_at, values_to_array, RowKey, Value};
use crate::waiting::{values_batch, Waiting};
use arrow::array::{new_null_array, Array, ArrayRef, BooleanArray, UInt64Array};
use arrow::compute::filter_record_batch;
use arrow::datatypes::{Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use foldhash::{HashMap, HashMapExt};
use parking_lot::{Mutex, MutexGuard};
use std::ops::Bound;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// How many versions of one unique key an insert finds before it prunes those dead to every
/// reader (see [`TableData::append`]; again at each doubling while none can go).
const PRUNE_VERSIONS: usize = 16;

/// Rows per sealed segment.
pub const SEGMENT_ROWS: usize = 4096;

/// A row's permanent address in its table.
pub type RowId = u64;

/// A table and its data.
pub struct Table {
    /// Unique id, never reused.
    pub id: u64,
    /// The definition.
    pub schema: TableSchema,
    data: Padded<Mutex<TableData>>,
    dropped: AtomicBool,
    /// The transaction that created the table while it is uncommitted, else 0. Only that
    /// transaction may write to it (others get 2631), so the log never holds a change to a
    /// table before the table's creation.
    pub(crate) creator: AtomicU64,
    /// Changed since the last checkpoint (set when a commit logs a change to it).
    pub(crate) dirty: AtomicBool,
    /// The Arrow schema with every column nullable: that of a batch with columns left out
    /// ([`Table::fetch_columns`], [`Table::scan_keeping`]).
    all_nullable: SchemaRef,
    /// A one-row NULL of each column's type: what [`Table::fetch_columns`] gives for a column
    /// left out of a one-row fetch (a MIN/MAX walk's), shared instead of made each time.
    null_cells: Vec<ArrayRef>,
    /// A NULL of each column's type [`NULL_RUN`] rows long, made when first needed: sliced
    /// for a column left out of a fetch of up to that many rows (a selective consume's).
    null_runs: Vec<std::sync::OnceLock<ArrayRef>>,
    /// An empty batch of [`Table::nullable_schema`].
    empty_nullable: RecordBatch,
    /// Transactions holding or wanting a READ, WRITE or EXCLUSIVE lock on the table: while
    /// above 0, ROW WRITE is not granted on the fast path (see `fastlock`).
    pub(crate) strong: Padded<std::sync::atomic::AtomicU32>,
    /// Held by a strong lock request while it hands the fast path's holders to the lock
    /// manager, so a later request finds every holder it marked recorded there (see
    /// `fastlock`).
    pub(crate) handover: Mutex<()>,
    /// How many index entries open transactions have set aside (see [`crate::index`]): a
    /// transaction that ends looks at its tables' hidden sets only when this is not 0.
    pub(crate) hidden: AtomicUsize,
    /// When its first lease ends (µs since the epoch; `i64::MAX`: it has none), read by every
    /// take without the mutex (see [`crate::lease`]).
    next_lease_end: std::sync::atomic::AtomicI64,
    /// How long after its QITS a row expires (`EXPIRE AFTER`, µs), read by every take: a
    /// copy of the schema's, next to the queue's other hot fields.
    pub(crate) expire_after_us: Option<i64>,
    /// A queue with subscribers: how many of each row's copies (by the row's sequence
    /// number) are committed and not consumed by a committed transaction; its mutex decides
    /// one commit at a time which rows leave (see `transaction/subscribers`).
    pub(crate) copies: Mutex<HashMap<u64, u32>>,
    /// The number generator of the table's identity column, if it has one.
    pub identity: Option<crate::identity::IdentityGen>,
    /// A queue with subscribers: their tables as the catalog had them at a version (an
    /// INSERT looks them up there instead of going through the whole catalog).
    pub(crate) subscribers: Mutex<(u64, Vec<Arc<Table>>)>,
}

/// What [`Table::index_find`] found.
#[derive(Debug)]
pub enum IndexFind {
    /// The first wanted entry.
    Found(IndexEntry),
    /// No wanted entry in the range.
    None,
    /// It looked at as many entries as it may, this one last (not wanted): the next call
    /// starts after it.
    Stopped(IndexEntry),
}

/// The mutable part of a table, behind one lock held for short, bounded steps.
pub struct TableData {
    segments: Vec<RecordBatch>,
    /// The rows after the last segment (tail.rs).
    tail: Tail,
    pub(crate) stamps: Stamps,
    pub(crate) seq: Vec<u64>,
    pub(crate) queue: QueueIndex,
    /// The queue's rows by each ordered index, for selective consume (keyed_queue.rs).
    pub(crate) keyed: Vec<crate::keyed_queue::KeyedQueue>,
    unique: Vec<HashMap<RowKey, Vec<RowId>>>,
    duplicates: Option<HashMap<RowKey, Vec<RowId>>>,
    /// One per index of [`TableSchema::indexes`], `None` where [`indexable`] says no.
    ordered: Vec<Option<OrderedIndex>>,
    next_seq: u64,
    /// The queue's consume order ([`TableSchema::queue_order`]), read into each queue key.
    queue_order: Option<crate::catalog::QueueOrder>,
    /// Rows are consumable from their QITS on ([`TableSchema::delivers_at_qits`]).
    pub(crate) delivers_at_qits: bool,
    /// Rows committed into the queue since the table was opened (see [`QueueStats`]).
    pub(crate) enqueued: u64,
    /// Rows taken by consumes since the table was opened, less those whose take was undone.
    pub(crate) consumed: u64,
    /// Rows moved to the dead-letter table since the table was opened.
    pub(crate) dead_lettered: u64,
    /// Rows leased out of the queue (see [`crate::lease`]).
    pub(crate) leases: crate::lease::Leases,
}

/// Microseconds since the epoch (UTC), from the system clock (`SystemTime` straight: chrono's
/// `Utc::now` also builds a calendar date).
pub fn wall_clock_us() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
}

/// What [`Table::queue_stats`] says of a queue table now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QueueStats {
    /// Consumable rows: committed, taken by no open transaction.
    pub depth: u64,
    /// The oldest QITS among them (µs since the epoch).
    pub oldest_qits: Option<i64>,
    /// Rows open transactions have taken (consumed, updated or deleted) and not yet committed,
    /// and rows leased out (docs/queues.md, Leases).
    pub in_flight: u64,
    /// Rows committed into the queue since the database was opened (inserts; an UPDATE of a
    /// queued row puts it back, and counts again).
    pub enqueued: u64,
    /// Rows taken by consumes since the database was opened from among the committed rows (a
    /// transaction consuming its own insert counts in neither); a take that is rolled back no
    /// longer counts, one still open does.
    pub consumed: u64,
    /// Rows moved to the queue's dead-letter table since the database was opened.
    pub dead_lettered: u64,
}

impl TableData {
    /// No rows, the indexes `schema` asks for.
    fn empty(schema: &TableSchema) -> Self {
        TableData {
            segments: Vec::new(),
            tail: Tail::default(),
            stamps: Stamps::default(),
            seq: Vec::new(),
            queue: QueueIndex::default(),
            keyed: crate::keyed_queue::KeyedQueue::for_schema(schema),
            unique: schema.unique_keys().map(|_| HashMap::new()).collect(),
            duplicates: (schema.kind == crate::catalog::TableKind::Set).then(HashMap::new),
            ordered: schema
                .indexes()
                .map(|spec| indexable(schema, spec).then(|| OrderedIndex::new(schema, spec)))
                .collect(),
            next_seq: 0,
            queue_order: schema.queue_order,
            delivers_at_qits: schema.delivers_at_qits,
            enqueued: 0,
            consumed: 0,
            dead_lettered: 0,
            leases: crate::lease::Leases::default(),
        }
    }
}

/// One batch of visible rows and their ids.
#[derive(Debug, Clone)]
pub struct ScanBatch {
    /// The rows.
    pub batch: RecordBatch,
    /// Their RowIds, in the same order.
    pub row_ids: UInt64Array,
}

/// The longest run of NULLs a table keeps per column (see `Table::null_runs`).
const NULL_RUN: usize = 4096;

impl Table {
    /// A table `creator` (0: no one, it is committed) is creating.
    pub(crate) fn new(id: u64, schema: TableSchema, creator: TxnId) -> Self {
        let all_nullable = all_nullable(&schema.arrow);
        let expire_after_us = schema.limits.as_ref().and_then(|l| l.expire_after_us);
        let null_cells = schema
            .arrow
            .fields()
            .iter()
            .map(|f| new_null_array(f.data_type(), 1))
            .collect();
        let identity = schema.columns.iter().enumerate().find_map(|(i, c)| {
            c.identity
                .map(|spec| crate::identity::IdentityGen::new(i, spec))
        });
        Table {
            id,
            null_cells,
            null_runs: (0..schema.columns.len())
                .map(|_| std::sync::OnceLock::new())
                .collect(),
            empty_nullable: RecordBatch::new_empty(all_nullable.clone()),
            data: Padded(Mutex::new(TableData::empty(&schema))),
            schema,
            dropped: AtomicBool::new(false),
            creator: AtomicU64::new(creator),
            dirty: AtomicBool::new(true),
            all_nullable,
            strong: Padded(std::sync::atomic::AtomicU32::new(u32::from(creator != 0))),
            handover: Mutex::new(()),
            hidden: AtomicUsize::new(0),
            next_lease_end: std::sync::atomic::AtomicI64::new(i64::MAX),
            expire_after_us,
            copies: Mutex::new(HashMap::new()),
            identity,
            subscribers: Mutex::new((u64::MAX, Vec::new())),
        }
    }

    /// Whether transaction `txn` may use this table: it is committed, or `txn` creates it.
    pub fn usable_by(&self, txn: TxnId) -> bool {
        let creator = self.creator.load(Ordering::Acquire);
        creator == 0 || creator == txn
    }

    /// Whether lease `id` is one of this table's and has not ended.
    pub fn holds_lease(&self, id: u64) -> bool {
        self.lock().leases.get(id).is_some()
    }

    /// When the first of its leases ends (µs since the epoch), if it has any.
    pub fn next_lease_end(&self) -> Option<i64> {
        let t = self.next_lease_end.load(Ordering::Acquire);
        (t != i64::MAX).then_some(t)
    }

    /// Sets [`Table::next_lease_end`] from `d`, its data (locked), after a change of leases.
    pub(crate) fn note_leases(&self, d: &TableData) {
        self.next_lease_end
            .store(d.leases.first_end(), Ordering::Release);
    }

    /// Empties a volatile table at its session's commit (`ON COMMIT DELETE ROWS`): no other
    /// session can see it and no transaction of its own is open, so no version is needed.
    pub fn truncate_volatile(&self) {
        if self.schema.volatile.is_some() {
            let mut d = self.lock();
            *d = TableData::empty(&self.schema);
            self.hidden.store(0, Ordering::Release);
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, TableData> {
        self.data.lock()
    }

    /// True once the table has been dropped.
    pub fn is_dropped(&self) -> bool {
        self.dropped.load(Ordering::Acquire)
    }

    pub(crate) fn set_dropped(&self, v: bool) {
        self.dropped.store(v, Ordering::Release);
    }

    /// Rows visible to `snapshot`, as Arrow batches (at most [`SEGMENT_ROWS`] rows each).
    ///
    /// The mutex is held only to take the segments, the stamp chunks and the tail's rows
    /// (reference counts, no row copied); the visibility test and the copies run after it is
    /// released, so a scan of a big queue never holds up a consumer (see the `stamps` module for
    /// why stamps read that late still answer for the snapshot).
    pub fn scan(&self, snapshot: &Snapshot) -> Vec<ScanBatch> {
        self.scan_keeping(snapshot, None)
    }

    /// [`Table::scan`] for a reader that needs only the columns `keep` marks: a part that has
    /// to be copied (it has rows `snapshot` does not see) copies only those, the others NULL
    /// (see [`crate::columns`]); a part with every column is its schema's, one with NULLs
    /// [`Table::nullable_schema`]'s.
    pub fn scan_keeping(&self, snapshot: &Snapshot, keep: Option<&[bool]>) -> Vec<ScanBatch> {
        self.scan_parts(snapshot, true, keep)
            .into_iter()
            .map(|(batch, ids)| ScanBatch {
                batch,
                row_ids: ids.unwrap_or_else(|| UInt64Array::from(Vec::<u64>::new())),
            })
            .collect()
    }

    /// [`Table::scan_keeping`] without the row ids (a reader that only wants the rows
    /// allocates no id per row).
    pub fn scan_rows(&self, snapshot: &Snapshot, keep: Option<&[bool]>) -> Vec<RecordBatch> {
        self.scan_rows_lazily(snapshot, keep).collect()
    }

    /// [`Table::scan_rows`] part by part: each segment's visible part is made (its visibility
    /// tested, its rows copied where some are not visible) only when the reader asks for it,
    /// so a reader that stops early (a TOP n) makes none of the later parts. The mutex is
    /// held only while the parts are taken, as for [`Table::scan`].
    pub fn scan_rows_lazily<'a>(
        &'a self,
        snapshot: &'a Snapshot,
        keep: Option<&'a [bool]>,
    ) -> impl Iterator<Item = RecordBatch> + 'a {
        self.parts_lazily(snapshot, false, keep)
            .map(|(batch, _)| batch)
    }

    /// The visible part of each segment and of the tail, with their row ids if `ids`, copying
    /// only the columns `keep` marks where a part is copied.
    fn scan_parts(
        &self,
        snapshot: &Snapshot,
        ids: bool,
        keep: Option<&[bool]>,
    ) -> Vec<(RecordBatch, Option<UInt64Array>)> {
        self.parts_lazily(snapshot, ids, keep).collect()
    }

    /// [`Table::scan_parts`], each part made when asked for; parts with no visible row are
    /// left out.
    fn parts_lazily<'a>(
        &'a self,
        snapshot: &'a Snapshot,
        ids: bool,
        keep: Option<&'a [bool]>,
    ) -> impl Iterator<Item = (RecordBatch, Option<UInt64Array>)> + 'a {
        let keep = keep.map(|k| (k, &self.all_nullable));
        // (a snapshot that sees nothing, a run for a query's columns alone, takes no part and
        // tests no row: nothing of the table is visible to it, however many rows it holds)
        let (segments, tail, stamps) = match snapshot.sees_nothing() {
            true => (Vec::new(), None, Vec::new()),
            false => {
                let d = self.lock();
                (d.segments.clone(), Some(d.tail.view()), d.stamps.chunks())
            }
        };
        // (the open tail's batches are made now: it holds fewer rows than a segment)
        let tail = (tail.iter())
            .flat_map(|t| t.batches(&self.schema, keep))
            .collect::<Vec<_>>();
        let sealed = segments.len();
        let parts = (segments.into_iter().enumerate())
            .map(|(s, batch)| (s, 0, batch))
            .chain(tail.into_iter().map(move |(at, batch)| (sealed, at, batch)));
        parts
            .map(move |(s, at, batch)| {
                visible_part(snapshot, &batch, &stamps[s], (s, at), (ids, keep))
            })
            .filter(|b| b.0.num_rows() > 0)
    }

    /// A checkpoint's view: the rows visible to `snapshot`, their insertion sequences, and
    /// the sequence counter.
    pub(crate) fn checkpoint_rows(&self, snapshot: &Snapshot) -> (Vec<RecordBatch>, Vec<u64>, u64) {
        let scanned = self.scan(snapshot);
        let d = self.lock();
        let seqs = scanned
            .iter()
            .flat_map(|b| b.row_ids.values().iter().map(|&r| d.seq[r as usize]))
            .collect();
        let next = d.next_seq;
        drop(d);
        (scanned.into_iter().map(|b| b.batch).collect(), seqs, next)
    }

    /// Whether index `ix` (a position in [`TableSchema::indexes`]) has an ordered index.
    pub fn has_ordered_index(&self, ix: usize) -> bool {
        self.lock().ordered.get(ix).is_some_and(Option::is_some)
    }

    /// Up to `limit` entries of ordered index `ix` between `lo` and `hi`, in key order (or
    /// reversed), whose rows `snapshot` sees. Entries dead to every reader are pruned on the
    /// way (see [`crate::index`]).
    pub fn index_entries(
        &self,
        ix: usize,
        (lo, hi): (Bound<&IndexEntry>, Bound<&IndexEntry>),
        reverse: bool,
        limit: usize,
        snapshot: &Snapshot,
    ) -> Vec<IndexEntry> {
        if snapshot.sees_nothing() {
            return Vec::new();
        }
        let mut d = self.lock();
        let TableData {
            ordered, stamps, ..
        } = &mut *d;
        let Some(Some(index)) = ordered.get_mut(ix) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let (mut dead, mut own) = (Vec::new(), Vec::new());
        for e in index.range(lo, hi, reverse, snapshot.me) {
            if out.len() >= limit {
                break;
            }
            let (min, max) = stamps.get(e.1);
            if snapshot.visible(min, max) {
                out.push(e.clone());
            } else if snapshot.dead_to_all(min, max) {
                dead.push(e.clone());
            } else if max != 0 && max == snapshot.me {
                own.push(e.clone());
            }
        }
        for e in &dead {
            index.remove_entry(e);
        }
        self.hide(index, snapshot.me, own);
        out
    }

    /// Sets aside entries of rows transaction `me` deleted (see [`crate::index`]).
    fn hide(&self, index: &mut OrderedIndex, me: TxnId, own: Vec<IndexEntry>) {
        if !own.is_empty() {
            let n = index.hide(me, own);
            self.hidden.fetch_add(n, Ordering::Release);
        }
    }

    /// Puts back the index entries transaction `me` set aside: all of them (`all`, at its
    /// commit), or those whose rows it no longer deletes (after it undid deletions). Call only
    /// from `me`'s own thread, before `me` ends.
    pub(crate) fn unhide(&self, me: TxnId, all: bool) {
        if self.hidden.load(Ordering::Acquire) == 0 {
            return;
        }
        let mut d = self.lock();
        let TableData {
            ordered, stamps, ..
        } = &mut *d;
        let mut left = 0;
        for index in ordered.iter_mut().flatten() {
            index.unhide(me, |rid| all || stamps.xmax(rid) != me);
            left += index.hidden_len();
        }
        // counted afresh (under the mutex, as every change of it is): a rolled-back insert's
        // entry may have left a hidden set without passing here
        self.hidden.store(left, Ordering::Release);
    }

    /// The first entry of ordered index `ix` between `lo` and `hi`, in key order (or
    /// reversed), whose row `snapshot` sees and which `wanted` accepts, looking at no more than
    /// `visits` entries under the mutex (a walk that must go further calls again from where
    /// this one stopped). Entries dead to every reader are pruned on the way, as
    /// [`Table::index_entries`] does.
    pub fn index_find(
        &self,
        ix: usize,
        (lo, hi): (Bound<&IndexEntry>, Bound<&IndexEntry>),
        reverse: bool,
        (visits, snapshot): (usize, &Snapshot),
        mut wanted: impl FnMut(&IndexEntry) -> bool,
    ) -> IndexFind {
        if snapshot.sees_nothing() {
            return IndexFind::None;
        }
        let mut d = self.lock();
        let TableData {
            ordered, stamps, ..
        } = &mut *d;
        let Some(Some(index)) = ordered.get_mut(ix) else {
            return IndexFind::None;
        };
        let (mut dead, mut own) = (Vec::new(), Vec::new());
        let mut found = IndexFind::None;
        for (n, e) in index.range(lo, hi, reverse, snapshot.me).enumerate() {
            let (min, max) = stamps.get(e.1);
            if snapshot.visible(min, max) {
                if wanted(e) {
                    found = IndexFind::Found(e.clone());
                    break;
                }
            } else if snapshot.dead_to_all(min, max) {
                dead.push(e.clone());
            } else if max != 0 && max == snapshot.me {
                own.push(e.clone());
            }
            if n + 1 >= visits {
                found = IndexFind::Stopped(e.clone());
                break;
            }
        }
        for e in &dead {
            index.remove_entry(e);
        }
        self.hide(index, snapshot.me, own);
        found
    }

    /// The rows `snapshot` sees whose key in index `ix` (a position in
    /// [`TableSchema::indexes`]) is `key`, the index's columns' values as its keys hold them
    /// (normalised: [`normalize_for_key`]), found in the index's unique map by one hash
    /// lookup, not by a walk of its ordered entries; in row id order. `None` when the index is
    /// not unique or `key` holds a NULL (the map holds NULL keys, but a NULL compared with `=`
    /// matches nothing, and an `IS NULL` probe is left to the ordered index's walk): the
    /// caller walks the ordered index.
    pub fn unique_rows(&self, ix: usize, key: &[Value], snapshot: &Snapshot) -> Option<Vec<RowId>> {
        let spec = self.schema.indexes().nth(ix)?;
        let k = self
            .schema
            .unique_keys()
            .position(|(u, _)| std::ptr::eq(u, spec))?;
        if key.len() != spec.columns.len() || key.iter().any(Value::is_null) {
            return None;
        }
        if snapshot.sees_nothing() {
            return Some(Vec::new());
        }
        let mut d = self.lock();
        let TableData { unique, stamps, .. } = &mut *d;
        let Some(rows) = unique.get_mut(k)?.get_mut(&RowKey(key.to_vec())) else {
            return Some(Vec::new());
        };
        // versions dead to every reader go on the way (as an ordered index's walk prunes
        // them): they clash with nothing, and a row updated again and again would otherwise
        // make each lookup and each uniqueness check longer
        rows.retain(|&r| {
            let (min, max) = stamps.get(r);
            !snapshot.dead_to_all(min, max)
        });
        let mut rids: Vec<RowId> = rows
            .iter()
            .copied()
            .filter(|&r| {
                let (min, max) = stamps.get(r);
                snapshot.visible(min, max)
            })
            .collect();
        rids.sort_unstable();
        Some(rids)
    }

    /// How many row versions the table holds (live, deleted or rolled back): an upper bound on
    /// its rows, for estimates of what reading it costs.
    pub fn row_versions(&self) -> usize {
        let d = self.lock();
        d.segments.len() * SEGMENT_ROWS + d.tail.len()
    }

    /// Number of entries (row versions) in ordered index `ix` (0 if it has none).
    pub fn index_len(&self, ix: usize) -> usize {
        self.lock()
            .ordered
            .get(ix)
            .and_then(Option::as_ref)
            .map_or(0, OrderedIndex::len)
    }

    /// A NULL column `c` (of type `col`'s) of `rows` rows.
    fn null_column(&self, c: usize, col: &crate::catalog::Column, rows: usize) -> ArrayRef {
        match (rows, self.null_cells.get(c), self.null_runs.get(c)) {
            (1, Some(cell), _) => cell.clone(),
            (2..=NULL_RUN, _, Some(run)) => run
                .get_or_init(|| new_null_array(&col.ty.arrow_type(), NULL_RUN))
                .slice(0, rows),
            _ => new_null_array(&col.ty.arrow_type(), rows),
        }
    }

    /// An empty batch of [`Table::nullable_schema`] (to check an expression's type on).
    pub fn empty_batch(&self) -> RecordBatch {
        self.empty_nullable.clone()
    }

    /// The table's Arrow schema with every column nullable: the schema of a batch in which
    /// columns a reader does not need are NULL (see [`Table::fetch_columns`]).
    pub fn nullable_schema(&self) -> &SchemaRef {
        &self.all_nullable
    }

    /// The rows `rids`, in that order, as one batch.
    pub fn fetch(&self, rids: &[RowId]) -> RecordBatch {
        self.fetch_columns(rids, None)
    }

    /// The rows `rids`, in that order, as one batch of the table's schema in which only the
    /// columns `keep` marks hold values (the others are NULL), or every column for `None`: a
    /// reader that tests a few columns does not copy the rest (wide text, say).
    pub fn fetch_columns(&self, rids: &[RowId], keep: Option<&[bool]>) -> RecordBatch {
        let kept = |c: usize| keep.is_none_or(|k| k.get(c).copied().unwrap_or(true));
        let schema = match keep {
            None => self.schema.arrow.clone(),
            Some(_) => self.all_nullable.clone(),
        };
        if rids.is_empty() {
            return RecordBatch::new_empty(schema);
        }
        if let [rid] = rids {
            // one row (a key lookup): one-row slices of its arrays, nothing copied but a row
            // that waits in the tail as values
            let cols: Vec<usize> = (0..self.schema.columns.len())
                .filter(|&c| kept(c))
                .collect();
            let mut got = self.row_arrays(*rid, &cols).into_iter();
            let arrays: Vec<ArrayRef> = self
                .schema
                .columns
                .iter()
                .enumerate()
                .map(|(c, col)| match kept(c).then(|| got.next()).flatten() {
                    Some(a) => a,
                    None => self.null_column(c, col, 1),
                })
                .collect();
            return RecordBatch::try_new(schema, arrays).expect("stored rows match the schema");
        }
        // under the mutex: the segments the rows are in, and the tail if a row is there
        let (sealed, used, mut batches, tail) = {
            let d = self.lock();
            let sealed = (d.segments.len() * SEGMENT_ROWS) as RowId;
            let mut used: Vec<usize> = rids
                .iter()
                .filter(|&&r| r < sealed)
                .map(|&r| r as usize / SEGMENT_ROWS)
                .collect();
            used.sort_unstable();
            used.dedup();
            let batches: Vec<RecordBatch> = used.iter().map(|&s| d.segments[s].clone()).collect();
            let tail = match rids.iter().any(|&r| r >= sealed) {
                true => d.tail.view(),
                false => TailView::default(),
            };
            (sealed, used, batches, tail)
        };
        // the tail's chunks follow the segments' batches, then one batch of the asked-for
        // rows that wait as values
        let first_tail = batches.len();
        batches.extend(tail.chunks().iter().cloned());
        let waiting_batch = batches.len();
        let mut waiting: Vec<Arc<Waiting>> = Vec::new();
        let at: Vec<(usize, usize)> = rids
            .iter()
            .map(|&r| match r < sealed {
                true => {
                    let s = r as usize / SEGMENT_ROWS;
                    (used.partition_point(|&u| u < s), r as usize % SEGMENT_ROWS)
                }
                false => match tail.get((r - sealed) as usize) {
                    Some(TailRow::Chunk { index, row, .. }) => (first_tail + index, row),
                    Some(TailRow::Values(v)) => {
                        waiting.push(v.clone());
                        (waiting_batch, waiting.len() - 1)
                    }
                    None => unreachable!("row id {r} is not a stored row"),
                },
            })
            .collect();
        if !waiting.is_empty() {
            let keep = keep.map(|k| (k, &self.all_nullable));
            batches.push(values_batch(&self.schema, &waiting, keep));
        }
        let arrays: Vec<ArrayRef> = self
            .schema
            .columns
            .iter()
            .enumerate()
            .map(|(c, col)| match kept(c) {
                true => {
                    let parts: Vec<&dyn Array> =
                        batches.iter().map(|b| b.column(c).as_ref()).collect();
                    arrow::compute::interleave(&parts, &at)
                        .expect("row ids address stored rows of one schema")
                }
                false => self.null_column(c, col, rids.len()),
            })
            .collect();
        RecordBatch::try_new(schema, arrays).expect("stored rows match the schema")
    }

    /// Columns `cols` of row `rid` as one-row arrays: slices of its segment's arrays (nothing
    /// copied) when the row is sealed, built from its values when it is in the tail. The mutex
    /// is held only to find the row. A column number past the table's is a NULL of type NULL.
    pub fn row_arrays(&self, rid: RowId, cols: &[usize]) -> Vec<ArrayRef> {
        let part = self.lock().row_part(rid, cols);
        self.row_part_arrays(part, cols)
    }

    /// The arrays of a row taken by [`TableData::row_part`] (outside the mutex: a tail row's
    /// arrays are built here).
    pub(crate) fn row_part_arrays(&self, part: RowPart, cols: &[usize]) -> Vec<ArrayRef> {
        let null = || new_null_array(&arrow::datatypes::DataType::Null, 1);
        match part {
            RowPart::Sealed(arrays) => arrays,
            RowPart::Values(row) => cols
                .iter()
                .map(|&c| match (&row, self.schema.columns.get(c)) {
                    (Some(row), Some(col)) if c < row.width() => {
                        values_to_array(col.ty, std::iter::once(&row.value(c)))
                    }
                    _ => null(),
                })
                .collect(),
        }
    }

    /// Number of rows waiting in the queue index (committed, unclaimed).
    pub fn queue_depth(&self) -> usize {
        self.lock().queue.len()
    }

    /// The queue's figures now ([`QueueStats`]); `snapshot` (any transaction's, taken now)
    /// says which transactions are open. Reads every row's stamps under the table's mutex
    /// (and every queue entry of a queue with a consume order): for a dictionary query, not
    /// for a hot path.
    pub fn queue_stats(&self, snapshot: &Snapshot) -> QueueStats {
        let d = self.lock();
        let oldest_qits = match d.queue_order {
            None => d.queue.first().map(|(k, _)| k.1),
            Some(_) => d.queue.keys().map(|k| k.1).min(),
        };
        // taken by an open transaction: a committed row whose deletion is not committed
        let in_flight = (0..d.seq.len() as RowId)
            .filter(|&r| {
                let xmax = d.stamps.xmax(r);
                xmax != 0 && snapshot.visible(d.stamps.xmin(r), xmax)
            })
            .count() as u64;
        QueueStats {
            depth: d.queue.len() as u64,
            oldest_qits,
            in_flight: in_flight + d.leases.rows() as u64,
            enqueued: d.enqueued,
            consumed: d.consumed,
            dead_lettered: d.dead_lettered,
        }
    }
}

/// The rows of `batch` that `snapshot` sees: its rows are rows `at..` of segment `s` (the
/// segment being built, for the tail), stamped in `stamps` (segment `s`'s stamps). Where rows
/// are left out, only the columns `keep` marks are copied (`crate::columns`), the others NULL
/// in a batch of the nullable schema given with it.
fn visible_part(
    snapshot: &Snapshot,
    batch: &RecordBatch,
    stamps: &StampChunk,
    (s, at): (usize, usize),
    (ids, keep): (bool, Option<(&[bool], &SchemaRef)>),
) -> (RecordBatch, Option<UInt64Array>) {
    let n = batch.num_rows();
    let base = s * SEGMENT_ROWS + at;
    let sees = |i: usize| {
        let (xmin, xmax) = stamps.get(at + i);
        snapshot.visible(xmin, xmax)
    };
    if stamps.all_visible(snapshot) || (0..n).all(sees) {
        // the common case: every row visible, no mask and no copy
        let ids = ids.then(|| UInt64Array::from_iter_values(base as u64..(base + n) as u64));
        return (batch.clone(), ids);
    }
    let seen: Vec<bool> = (0..n).map(sees).collect();
    let ids = ids.then(|| {
        UInt64Array::from_iter_values((0..n).filter(|&i| seen[i]).map(|i| (base + i) as u64))
    });
    let mask = BooleanArray::from(seen);
    let part = match keep {
        Some((keep, nullable)) => crate::columns::filter_columns(batch, &mask, keep, nullable),
        None => filter_record_batch(batch, &mask),
    };
    (part.expect("mask length equals batch length"), ids)
}

/// `schema` with every field nullable: the schema of a batch in which columns a reader does
/// not need are NULL.
pub(crate) fn all_nullable(schema: &Schema) -> SchemaRef {
    Arc::new(Schema::new(
        schema
            .fields()
            .iter()
            .map(|f| f.as_ref().clone().with_nullable(true))
            .collect::<Vec<_>>(),
    ))
}

/// One row's wanted columns as taken under the table's mutex ([`TableData::row_part`]).
pub(crate) enum RowPart {
    /// The row is in Arrow (a segment, or a chunk of the tail): one-row slices of its arrays
    /// (reference counts).
    Sealed(Vec<ArrayRef>),
    /// The row waits in the tail (`None`: no such row), turned into arrays after the mutex
    /// is released.
    Values(Option<Arc<Waiting>>),
}

impl TableData {
    /// Number of rows ever stored.
    pub(crate) fn len(&self) -> usize {
        self.stamps.len()
    }

    /// Columns `cols` of row `rid`, as cheaply as the mutex allows: slices of a sealed row's
    /// arrays (O(1) each; a column past the table's is a one-row NULL), or a tail row's values
    /// behind their `Arc`.
    pub(crate) fn row_part(&self, rid: RowId, cols: &[usize]) -> RowPart {
        let s = rid as usize / SEGMENT_ROWS;
        match self.segments.get(s) {
            Some(b) => RowPart::Sealed(row_slices(b, rid as usize % SEGMENT_ROWS, cols)),
            None => match self
                .tail
                .get(rid as usize - self.segments.len() * SEGMENT_ROWS)
            {
                Some(TailRow::Chunk { batch, row, .. }) => {
                    RowPart::Sealed(row_slices(batch, row, cols))
                }
                Some(TailRow::Values(v)) => RowPart::Values(Some(v.clone())),
                None => RowPart::Values(None),
            },
        }
    }

    /// A row's values.
    pub(crate) fn row(&self, rid: RowId) -> Vec<Value> {
        let rid = rid as usize;
        let s = rid / SEGMENT_ROWS;
        if s < self.segments.len() {
            let b = &self.segments[s];
            let i = rid % SEGMENT_ROWS;
            b.columns()
                .iter()
                .map(|a| value_at(a.as_ref(), i))
                .collect()
        } else {
            self.tail.row(rid - self.segments.len() * SEGMENT_ROWS)
        }
    }

    /// True if the row may still exist for someone: not rolled back, deletion not committed.
    fn alive(&self, rid: RowId, me: TxnId, tm: &TxnManager) -> bool {
        let (xmin, xmax) = self.stamps.get(rid);
        xmin != DEAD && xmax != me && !(xmax != 0 && tm.is_committed(xmax))
    }

    /// For a live row that clashes with a new one: the open transaction whose commit or
    /// rollback decides the clash (it inserted or deleted the row), or `None` if the clash is
    /// settled (the row is committed and not being deleted, or is this transaction's own).
    fn undecided(&self, rid: RowId, me: TxnId, tm: &TxnManager) -> Option<TxnId> {
        let (xmin, xmax) = self.stamps.get(rid);
        if xmin != me && tm.is_active(xmin) {
            Some(xmin)
        } else if xmax != 0 && xmax != me && tm.is_active(xmax) {
            Some(xmax)
        } else {
            None
        }
    }

    /// The error for a clash with `rows`: a duplicate if one of them is settled, else
    /// [`StorageError::RowBusy`] to wait for the transaction that decides it.
    fn clash(
        &self,
        rows: &[RowId],
        (me, tm): (TxnId, &TxnManager),
        schema: &TableSchema,
        duplicate: StorageError,
    ) -> Option<StorageError> {
        let live: Vec<RowId> = rows
            .iter()
            .copied()
            .filter(|&r| self.alive(r, me, tm))
            .collect();
        if live.is_empty() {
            return None;
        }
        let pending: Vec<TxnId> = live
            .iter()
            .filter_map(|&r| self.undecided(r, me, tm))
            .collect();
        if pending.len() < live.len() {
            return Some(duplicate);
        }
        Some(StorageError::RowBusy {
            table: schema.name.clone(),
            holder: pending[0],
        })
    }

    fn key_of(schema: &TableSchema, values: &[Value], cols: &[usize]) -> RowKey {
        RowKey(
            cols.iter()
                .map(|&c| normalize_for_key(&values[c], schema.columns[c].case_specific))
                .collect(),
        )
    }

    /// Appends a committed row read back from a checkpoint or the log: no checks (they held
    /// when it was committed), but every side index is maintained.
    pub(crate) fn push_recovered(
        &mut self,
        schema: &TableSchema,
        values: Vec<Value>,
        seq: u64,
        xmin: TxnId,
    ) -> RowId {
        let rid = self.len() as RowId;
        let mut implied = false;
        for (k, (spec, _)) in schema.unique_keys().enumerate() {
            // a NULL is a key value like any other (see `append`)
            let key = Self::key_of(schema, &values, &spec.columns);
            self.unique[k].entry(key).or_default().push(rid);
            implied = true;
        }
        // as in `append`: only tables without a unique key are checked for duplicates
        if self.duplicates.is_some() && !implied {
            let all: Vec<usize> = (0..schema.columns.len()).collect();
            let key = Self::key_of(schema, &values, &all);
            if let Some(map) = self.duplicates.as_mut() {
                map.entry(key).or_default().push(rid);
            }
        }
        let queued = match values.first() {
            Some(Value::Timestamp(q)) if schema.queue => {
                let order = self.order_of(|c| values.get(c).cloned().unwrap_or(Value::Null));
                Some((order, *q, seq))
            }
            _ => None,
        };
        self.next_seq = self.next_seq.max(seq);
        self.index_row(&values, rid);
        self.push_row(schema, values.into(), xmin, seq);
        // stored first: the keyed queues read the row's values
        if let Some(key) = queued {
            self.enqueue(key, rid);
        }
        rid
    }

    /// Appends a whole batch of committed rows from a checkpoint. A batch of exactly
    /// [`SEGMENT_ROWS`] rows arriving at a segment boundary becomes a segment as it is; anything
    /// else goes row by row.
    pub(crate) fn push_recovered_batch(
        &mut self,
        schema: &TableSchema,
        batch: RecordBatch,
        seqs: &[u64],
        xmin: TxnId,
    ) -> Vec<RowId> {
        let needs_keys = schema.unique_keys().next().is_some() || self.duplicates.is_some();
        if batch.num_rows() != SEGMENT_ROWS || !self.tail.is_empty() || needs_keys {
            return (0..batch.num_rows())
                .map(|i| {
                    let values = batch
                        .columns()
                        .iter()
                        .map(|a| value_at(a.as_ref(), i))
                        .collect();
                    self.push_recovered(schema, values, seqs[i], xmin)
                })
                .collect();
        }
        let base = self.len() as RowId;
        let mut queued = Vec::new();
        if schema.queue {
            if let Some(q) = batch
                .column(0)
                .as_any()
                .downcast_ref::<arrow::array::TimestampMicrosecondArray>()
            {
                for (i, &seq) in seqs.iter().enumerate() {
                    let order = self.order_of(|c| value_at(batch.column(c).as_ref(), i));
                    queued.push(((order, q.value(i), seq), base + i as RowId));
                }
            }
        }
        for &seq in seqs {
            self.next_seq = self.next_seq.max(seq);
            self.stamps.push(xmin);
            self.seq.push(seq);
        }
        self.segments.push(batch);
        // stored first: the keyed queues read the rows' values
        for (key, rid) in queued {
            self.enqueue(key, rid);
        }
        if self.ordered.iter().any(Option::is_some) {
            for rid in base..base + SEGMENT_ROWS as RowId {
                let values = self.row(rid);
                self.index_row(&values, rid);
            }
        }
        (base..base + SEGMENT_ROWS as RowId).collect()
    }

    /// Marks a recovered row deleted by a committed transaction and drops its queue entry.
    pub(crate) fn delete_recovered(&mut self, rid: RowId, xmax: TxnId) {
        self.stamps.set_xmax(rid, xmax);
        let key = self.queue_key(rid);
        self.dequeue(&key, rid);
        self.unindex(rid);
    }

    /// Adds a row to every ordered index.
    fn index_row(&mut self, values: &[Value], rid: RowId) {
        for ix in self.ordered.iter_mut().flatten() {
            ix.insert(values, rid);
        }
    }

    /// Takes a row out of every ordered index (its creator rolled back, or its deletion
    /// committed with no reader left that could see it).
    pub(crate) fn unindex(&mut self, rid: RowId) {
        if self.ordered.iter().all(Option::is_none) {
            return;
        }
        let values = self.row(rid);
        for ix in self.ordered.iter_mut().flatten() {
            ix.remove(&values, rid);
        }
    }

    /// Raises the sequence counter (a checkpoint remembers it across reopen).
    pub(crate) fn raise_next_seq(&mut self, seq: u64) {
        self.next_seq = self.next_seq.max(seq);
    }

    fn push_row(&mut self, schema: &TableSchema, row: Waiting, xmin: TxnId, seq: u64) {
        self.stamps.push(xmin);
        self.seq.push(seq);
        if let Some(batch) = self.tail.push(schema, row) {
            self.segments.push(batch);
        }
    }

    /// Appends a row created by `me`, after the NOT NULL, unique and duplicate checks.
    pub(crate) fn append(
        &mut self,
        schema: &TableSchema,
        row: Waiting,
        me: TxnId,
        tm: &TxnManager,
        seq: Option<u64>,
    ) -> Result<RowId, StorageError> {
        let null_in = |c: usize| match &row {
            Waiting::Values(v) => v.get(c).is_some_and(Value::is_null),
            Waiting::Derived(_) => row.is_null(c),
        };
        for (c, col) in schema.columns.iter().enumerate() {
            if !col.nullable && null_in(c) {
                return Err(StorageError::NotNull(col.name.clone()));
            }
        }
        // the values unique keys and ordered indexes are made of (all of a row given as
        // values; a derived row's key columns read out of its segment)
        let values = row.probe(|c| self.keyed(schema, c));
        let mut unique_keys = Vec::new();
        for (k, (spec, primary)) in schema.unique_keys().enumerate() {
            // NULL is a value of a unique index's key: one row may have a NULL where another
            // has the same NULL (SQL Data Definition Language, "Nullable Columns Are Valid
            // for Unique Indexes": for a one-column UPI or USI, "only 1 row can exist in the
            // table with a null for that column")
            let key = Self::key_of(schema, &values, &spec.columns);
            if let Some(rows) = self.unique[k].get_mut(&key) {
                if rows.len() >= PRUNE_VERSIONS && rows.len().is_power_of_two() {
                    // a key written again and again: the versions dead to every reader go
                    // before they are checked (a snapshot taken only for a long list, and at
                    // each doubling while an old reader keeps them all: amortised O(1))
                    let s = tm.snapshot(me);
                    let stamps = &self.stamps;
                    rows.retain(|&r| {
                        let (min, max) = stamps.get(r);
                        !s.dead_to_all(min, max)
                    });
                }
                let rows = &self.unique[k][&key];
                let duplicate = if primary {
                    StorageError::DuplicatePrimaryKey(schema.name.clone())
                } else {
                    StorageError::DuplicateUniqueKey(schema.name.clone())
                };
                if let Some(e) = self.clash(rows, (me, tm), schema, duplicate) {
                    return Err(e);
                }
            }
            unique_keys.push(key);
        }
        // an identical row would have the same unique key: a table with a unique key needs
        // no duplicate-row check, the unique check above is it (and comes first, as Teradata
        // reports a uniqueness violation before a duplicate row)
        let implied = !unique_keys.is_empty();
        let dup_key = if self.duplicates.is_some() && !implied {
            let all: Vec<usize> = (0..schema.columns.len()).collect();
            // every column: a derived row's are read out of its segment only here
            let whole = match &row {
                Waiting::Values(_) => None,
                Waiting::Derived(_) => Some(row.values()),
            };
            let key = Self::key_of(schema, whole.as_deref().unwrap_or(&values), &all);
            let rows = self.duplicates.as_ref().and_then(|m| m.get(&key));
            if let Some(rows) = rows {
                let duplicate = StorageError::DuplicateRow(schema.name.clone());
                if let Some(e) = self.clash(rows, (me, tm), schema, duplicate) {
                    return Err(e);
                }
            }
            Some(key)
        } else {
            None
        };
        let rid = self.len() as RowId;
        for (k, key) in unique_keys.into_iter().enumerate() {
            self.unique[k].entry(key).or_default().push(rid);
        }
        if let (Some(map), Some(key)) = (self.duplicates.as_mut(), dup_key) {
            map.entry(key).or_default().push(rid);
        }
        let seq = seq.unwrap_or_else(|| {
            self.next_seq += 1;
            self.next_seq
        });
        self.index_row(&values, rid);
        drop(values);
        self.push_row(schema, row, me, seq);
        Ok(rid)
    }

    /// True if column `c` is part of a unique key or an ordered index of this table (the
    /// duplicate-row key of a SET table, every column, is made apart: most rows have a whole
    /// unique key and need none).
    fn keyed(&self, schema: &TableSchema, c: usize) -> bool {
        schema.unique_keys().any(|(k, _)| k.columns.contains(&c))
            || self
                .ordered
                .iter()
                .flatten()
                .any(|ix| ix.columns().contains(&c))
    }

    /// The new version of row `rid` with `changes` (column, value) applied, as it will wait
    /// in the tail: derived from its segment when the row is sealed (nothing of the columns
    /// it keeps is copied), else its values with the changes.
    pub(crate) fn changed_row(
        &self,
        schema: &TableSchema,
        rid: RowId,
        changes: impl IntoIterator<Item = (usize, Value)>,
    ) -> Waiting {
        let i = rid as usize;
        if let Some(seg) = self.segments.get(i / SEGMENT_ROWS) {
            let same =
                Arc::ptr_eq(seg.schema_ref(), &schema.arrow) || **seg.schema_ref() == *schema.arrow;
            if same {
                return Waiting::derived(seg.clone(), i % SEGMENT_ROWS, changes);
            }
        }
        match self
            .tail
            .get(i.wrapping_sub(self.segments.len() * SEGMENT_ROWS))
        {
            Some(TailRow::Values(w)) => w.changed(changes),
            _ => Waiting::from(self.row(rid)).changed(changes),
        }
    }

    /// How many rows fit before the next segment boundary ([`SEGMENT_ROWS`] when the tail is
    /// empty).
    pub(crate) fn room_in_segment(&self) -> usize {
        SEGMENT_ROWS - self.tail.len()
    }

    /// True if a new row must be checked against the others (unique keys, SET duplicates), so
    /// rows go in one at a time through [`TableData::append`].
    pub(crate) fn checks_each_row(&self) -> bool {
        !self.unique.is_empty() || self.duplicates.is_some()
    }

    /// Appends rows created by `me`, given as columns of the table's Arrow types with no NULL
    /// in a NOT NULL column, to a table with no per-row checks ([`TableData::checks_each_row`]).
    /// Rows fill the open tail up to a segment boundary one at a time; from there every whole
    /// [`SEGMENT_ROWS`] of them becomes a sealed segment of slices of `cols` (no copy), and the
    /// rest opens the next tail. Returns the first new RowId.
    pub(crate) fn append_columns(
        &mut self,
        schema: &TableSchema,
        cols: &[ArrayRef],
        me: TxnId,
    ) -> RowId {
        let first = self.len() as RowId;
        let n = cols.first().map_or(0, |c| c.len());
        let mut at = 0;
        while at < n {
            if self.tail.is_empty() && n - at >= SEGMENT_ROWS {
                let slices = cols.iter().map(|c| c.slice(at, SEGMENT_ROWS)).collect();
                if let Ok(batch) = RecordBatch::try_new(schema.arrow.clone(), slices) {
                    let base = self.len() as RowId;
                    self.stamps.push_chunk(me);
                    let seq = self.next_seq + 1;
                    self.next_seq += SEGMENT_ROWS as u64;
                    self.seq.extend(seq..=self.next_seq);
                    self.segments.push(batch);
                    if self.ordered.iter().any(Option::is_some) {
                        for rid in base..base + SEGMENT_ROWS as RowId {
                            let values = self.row(rid);
                            self.index_row(&values, rid);
                        }
                    }
                    at += SEGMENT_ROWS;
                    continue;
                }
            }
            let values: Vec<Value> = cols.iter().map(|c| value_at(c.as_ref(), at)).collect();
            let rid = self.len() as RowId;
            self.next_seq += 1;
            self.index_row(&values, rid);
            self.push_row(schema, values.into(), me, self.next_seq);
            at += 1;
        }
        first
    }

    /// The sequence numbers of the rows no transaction has deleted (after recovery: every
    /// committed row's).
    pub(crate) fn live_seqs(&self) -> Vec<u64> {
        (0..self.seq.len() as RowId)
            .filter(|&r| self.stamps.xmax(r) == 0 && self.stamps.xmin(r) != DEAD)
            .map(|r| self.seq[r as usize])
            .collect()
    }

    /// The queue key of a row of a queue table (its QITS is column 0).
    pub(crate) fn queue_key(&self, rid: RowId) -> QueueKey {
        let qits = match self.row_value(rid, 0) {
            Value::Timestamp(t) => t,
            _ => i64::MIN,
        };
        let order = self.order_of(|c| self.row_value(rid, c));
        (order, qits, self.seq[rid as usize])
    }

    /// The consume-order part of a queue key ([`crate::queue::order_key`]) of the row whose
    /// column `c` is `value(c)`; 0 for a queue without a declared order.
    fn order_of(&self, value: impl FnOnce(usize) -> Value) -> i64 {
        let Some(o) = self.queue_order else {
            return 0;
        };
        let v = match value(o.column) {
            Value::Int(v) => Some(v),
            _ => None,
        };
        crate::queue::order_key(v, o.descending)
    }

    /// One value of a row.
    pub(crate) fn row_value(&self, rid: RowId, col: usize) -> Value {
        let rid = rid as usize;
        let s = rid / SEGMENT_ROWS;
        if s < self.segments.len() {
            value_at(self.segments[s].column(col).as_ref(), rid % SEGMENT_ROWS)
        } else {
            self.tail
                .value(rid - self.segments.len() * SEGMENT_ROWS, col)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Column, IndexSpec, TableKind};
    use crate::types::SqlType;
    use crate::{Storage, Transaction};
    use arrow::array::{Array, Int64Array, StringArray};

    fn col(name: &str, ty: SqlType, nullable: bool) -> Column {
        Column::plain(name, ty, nullable)
    }

    /// A MULTISET table `name` of `columns`, created by `t`.
    fn multiset(t: &mut Transaction, name: &str, columns: Vec<Column>) -> Arc<Table> {
        let schema = TableSchema::new(
            name.into(),
            columns,
            TableKind::Multiset,
            false,
            None,
            vec![],
            String::new(),
        );
        t.create_table(schema).unwrap()
    }

    /// A MULTISET table `name` of `columns` with a unique primary index on its first column,
    /// created by `t`.
    fn keyed(t: &mut Transaction, name: &str, columns: Vec<Column>) -> Arc<Table> {
        let upi = IndexSpec {
            name: None,
            columns: vec![0],
            unique: true,
        };
        let schema = TableSchema::new(
            name.into(),
            columns,
            TableKind::Multiset,
            false,
            Some(upi),
            vec![],
            String::new(),
        );
        t.create_table(schema).unwrap()
    }

    #[test]
    fn a_bulk_insert_of_a_small_view_keeps_no_big_buffer_alive() {
        let storage = Arc::new(Storage::default());
        let mut t = Transaction::begin(&storage);
        let table = multiset(&mut t, "t", vec![col("k", SqlType::BigInt, false)]);
        // 5,000 rows viewed in a 1,000,000-row array: one whole segment and a tail
        let big: ArrayRef = Arc::new(Int64Array::from_iter_values(0..1_000_000));
        let view = big.slice(10, 5_000);
        assert_eq!(t.insert_columns(&table, &[view], false).unwrap(), 5_000);
        let d = table.lock();
        assert_eq!(d.segments.len(), 1);
        let stored = d.segments[0].column(0);
        assert!(
            stored.get_buffer_memory_size() < 4 * 8 * SEGMENT_ROWS,
            "the segment holds its own rows, not the big array ({} bytes)",
            stored.get_buffer_memory_size()
        );
        assert_eq!(value_at(stored.as_ref(), 0), Value::Int(10));
        assert_eq!(d.tail.len(), 5_000 - SEGMENT_ROWS);
        drop(d);
        // a view that is most of its array is taken as it is
        let whole: ArrayRef = Arc::new(Int64Array::from_iter_values(0..2 * SEGMENT_ROWS as i64));
        let mut t2 = Transaction::begin(&storage);
        let other = multiset(&mut t2, "u", vec![col("k", SqlType::BigInt, false)]);
        t2.insert_columns(&other, std::slice::from_ref(&whole), false)
            .unwrap();
        let d = other.lock();
        assert_eq!(d.segments.len(), 2);
        assert_eq!(
            d.segments[0].column(0).to_data().buffers()[0].as_ptr(),
            whole.to_data().buffers()[0].as_ptr(),
            "no copy: the segments are slices of the given array"
        );
    }

    /// A snapshot that sees nothing (a run for a query's columns alone) finds every read of a
    /// table empty, sealed segments and tail, scans, index walks and key lookups, without
    /// testing the rows; an ordinary one sees them all.
    #[test]
    fn a_snapshot_seeing_nothing_reads_no_part_of_a_table() {
        let storage = Arc::new(Storage::default());
        let mut t = Transaction::begin(&storage);
        let table = keyed(&mut t, "t", vec![col("k", SqlType::BigInt, false)]);
        let n = SEGMENT_ROWS as i64 + 10;
        let keys: ArrayRef = Arc::new(Int64Array::from_iter_values(0..n));
        t.insert_columns(&table, &[keys], false).unwrap();
        t.commit().unwrap();
        let reader = Transaction::begin(&storage);
        let nothing = Snapshot::seeing_nothing();
        let all = (Bound::Unbounded, Bound::Unbounded);
        let rows = |b: Vec<RecordBatch>| b.iter().map(RecordBatch::num_rows).sum::<usize>();
        assert_eq!(rows(table.scan_rows(&reader.snapshot(), None)), n as usize);
        assert_eq!(rows(table.scan_rows(&nothing, None)), 0);
        assert!(table.scan(&nothing).is_empty());
        let seen = table.index_entries(0, all, false, usize::MAX, &reader.snapshot());
        assert_eq!(seen.len(), n as usize);
        assert!(table
            .index_entries(0, all, false, usize::MAX, &nothing)
            .is_empty());
        assert!(matches!(
            table.index_find(0, all, false, (usize::MAX, &nothing), |_| true),
            IndexFind::None
        ));
        let key = [Value::Int(5)];
        assert_eq!(
            table
                .unique_rows(0, &key, &reader.snapshot())
                .map(|r| r.len()),
            Some(1)
        );
        assert_eq!(table.unique_rows(0, &key, &nothing), Some(vec![]));
        reader.rollback();
    }

    #[test]
    fn a_unique_key_lookup_sees_its_snapshot_and_prunes_versions_dead_to_all() {
        let storage = Arc::new(Storage::default());
        let mut t = Transaction::begin(&storage);
        let columns = vec![
            col("k", SqlType::Integer, false),
            col("n", SqlType::Integer, true),
        ];
        let table = keyed(&mut t, "t", columns);
        let mut rid = t
            .insert(&table, vec![Value::Int(1), Value::Int(0)])
            .unwrap();
        t.commit().unwrap();
        let key = [Value::Int(1)];
        let versions = |table: &Table| {
            table.lock().unique[0]
                .get(&RowKey(key.to_vec()))
                .map(Vec::len)
        };
        // a row updated 100 times, each in a transaction of its own that looks it up first
        for n in 1..=100 {
            let mut t = Transaction::begin(&storage);
            assert_eq!(table.unique_rows(0, &key, &t.snapshot()), Some(vec![rid]));
            rid = t.update(&table, rid, [(1, Value::Int(n))]).unwrap();
            // its own new version, not the one it deleted
            assert_eq!(table.unique_rows(0, &key, &t.snapshot()), Some(vec![rid]));
            t.commit().unwrap();
        }
        // the versions no reader can see went at the lookups: the map holds a few, not 101
        assert!(
            versions(&table).is_some_and(|n| n <= 2),
            "{:?}",
            versions(&table)
        );
        // updated without lookups, the inserts of new versions prune a long list themselves
        for n in 0..4 * PRUNE_VERSIONS as i64 {
            let mut t = Transaction::begin(&storage);
            rid = t.update(&table, rid, [(1, Value::Int(n))]).unwrap();
            t.commit().unwrap();
        }
        assert!(
            versions(&table).is_some_and(|n| n <= PRUNE_VERSIONS),
            "{:?}",
            versions(&table)
        );
        // an open reader keeps what it sees: a later update's old version stays findable
        let reader = Transaction::begin(&storage);
        let seen = reader.snapshot();
        let mut t = Transaction::begin(&storage);
        let newer = t.update(&table, rid, [(1, Value::Int(0))]).unwrap();
        t.commit().unwrap();
        let later = Transaction::begin(&storage);
        assert_eq!(
            table.unique_rows(0, &key, &later.snapshot()),
            Some(vec![newer])
        );
        assert_eq!(table.unique_rows(0, &key, &seen), Some(vec![rid]));
        // a key with NULL, or an index the table does not have: not looked up here
        assert_eq!(
            table.unique_rows(0, &[Value::Null], &later.snapshot()),
            None
        );
        assert_eq!(table.unique_rows(1, &key, &later.snapshot()), None);
        assert_eq!(
            table.unique_rows(0, &[Value::Int(2)], &later.snapshot()),
            Some(vec![])
        );
        later.rollback();
        reader.rollback();
    }

    /// A committed table (k BIGINT, wide VARCHAR) of one sealed segment and three rows in
    /// the tail, row k holding `row k`.
    fn wide_table() -> (Arc<Storage>, Arc<Table>) {
        let storage = Arc::new(Storage::default());
        let mut t = Transaction::begin(&storage);
        let columns = vec![
            col("k", SqlType::BigInt, false),
            col("wide", SqlType::VarChar(100), false),
        ];
        let table = multiset(&mut t, "t", columns);
        for k in 0..SEGMENT_ROWS as i64 + 3 {
            let wide = Value::Str(format!("row {k}"));
            t.insert(&table, vec![Value::Int(k), wide]).unwrap();
        }
        t.commit().unwrap();
        (storage, table)
    }

    #[test]
    fn fetch_columns_copies_only_the_kept_columns() {
        let (_storage, table) = wide_table();
        let rids = [SEGMENT_ROWS as RowId + 1, 7];
        let all = table.fetch(&rids);
        let wide = all
            .column(1)
            .as_any()
            .downcast_ref::<StringArray>()
            .unwrap();
        assert_eq!((wide.value(0), wide.value(1)), ("row 4097", "row 7"));
        let some = table.fetch_columns(&rids, Some(&[true, false]));
        let k = some
            .column(0)
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap();
        assert_eq!(k.values().to_vec(), vec![SEGMENT_ROWS as i64 + 1, 7]);
        assert_eq!(some.column(1).null_count(), 2, "the dropped column is NULL");
        assert_eq!(some.num_rows(), 2);
        // sealed rows only: interleaved from their segment
        let sealed = table.fetch(&[9, 3]);
        let k = sealed
            .column(0)
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap();
        assert_eq!(k.values().to_vec(), vec![9, 3]);
    }

    #[test]
    fn a_scan_copies_only_the_kept_columns_of_parts_it_filters() {
        let (storage, table) = wide_table();
        // a deleted row in the segment: that part is copied, the tail's is not
        let mut d = Transaction::begin(&storage);
        d.delete(&table, 5).unwrap();
        d.commit().unwrap();
        let snapshot = Transaction::begin(&storage).snapshot();
        let parts = table.scan_keeping(&snapshot, Some(&[true, false]));
        let rows: usize = parts.iter().map(|p| p.batch.num_rows()).sum();
        assert_eq!(rows, SEGMENT_ROWS + 2);
        let segment = &parts[0];
        assert_eq!(segment.batch.num_rows(), SEGMENT_ROWS - 1);
        assert!(!segment.row_ids.values().contains(&5));
        let k = segment
            .batch
            .column(0)
            .as_any()
            .downcast_ref::<Int64Array>();
        assert_eq!(
            k.unwrap().value(5),
            6,
            "the kept column skips the deleted row"
        );
        assert_eq!(segment.batch.column(1).null_count(), SEGMENT_ROWS - 1);
        // the tail's three rows wait as values: their batch is built with the kept column
        // only (the other NULL), nothing of the wide one made
        let tail = parts.last().unwrap();
        assert_eq!(tail.batch.num_rows(), 3);
        assert_eq!(tail.batch.column(1).null_count(), 3);
        assert_eq!(tail.batch.column(0).null_count(), 0);
        // with every column: the deleted row's neighbours as stored
        let all = table.scan(&snapshot);
        let wide = all[0]
            .batch
            .column(1)
            .as_any()
            .downcast_ref::<StringArray>();
        assert_eq!(wide.unwrap().value(5), "row 6");
    }
}
