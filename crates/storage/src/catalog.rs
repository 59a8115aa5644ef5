//! The catalog: table definitions and the name → table map.
//!
//! Names are case-insensitive (stored upper-cased, displayed as written). Table ids are never
//! reused, so anything that remembers a table (a waiting consumer, an undo entry) can tell a
//! dropped table from a new one of the same name.

use crate::error::StorageError;
use crate::mvcc::TxnId;
use crate::table::Table;
use crate::types::{SqlType, Value};
use arrow::datatypes::{Field, Schema, SchemaRef};
use indexmap::IndexMap;
use parking_lot::RwLock;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// A column default that storage records and `exec` evaluates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum DefaultValue {
    /// A constant.
    Const(Value),
    /// `CURRENT_TIMESTAMP`, evaluated once per request.
    CurrentTimestamp,
    /// `CURRENT_DATE` / `DATE`.
    CurrentDate,
    /// `CURRENT_TIME` / `TIME`.
    CurrentTime,
    /// `USER`.
    User,
}

/// One column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Column {
    /// Name as written.
    pub name: String,
    /// Type.
    pub ty: SqlType,
    /// False for NOT NULL columns.
    pub nullable: bool,
    /// DEFAULT, if any.
    pub default: Option<DefaultValue>,
    /// CASESPECIFIC (character columns).
    pub case_specific: bool,
    /// UPPERCASE: values are stored upper-cased.
    pub uppercase: bool,
    /// TITLE, used as the column heading.
    pub title: Option<String>,
    /// FORMAT string, kept for HELP/SHOW.
    pub format: Option<String>,
    /// `GENERATED … AS IDENTITY`: the column's numbers come from the table's generator
    /// ([`crate::identity`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<Identity>,
}

/// An identity column's definition (`GENERATED ALWAYS|BY DEFAULT AS IDENTITY (START WITH …
/// INCREMENT BY … MINVALUE … MAXVALUE … [NO] CYCLE)`), with Teradata's defaults filled in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    /// GENERATED ALWAYS (every inserted row gets a generated number) rather than BY DEFAULT
    /// (only a row that gives none or NULL).
    pub always: bool,
    /// START WITH.
    pub start: i64,
    /// INCREMENT BY (not 0).
    pub increment: i64,
    /// MINVALUE.
    pub min: i64,
    /// MAXVALUE.
    pub max: i64,
    /// CYCLE: after the bound, start again at the other end.
    pub cycle: bool,
}

impl Column {
    /// A column with no default, attribute, title or format.
    pub fn plain(name: &str, ty: SqlType, nullable: bool) -> Self {
        Column {
            name: name.into(),
            ty,
            nullable,
            default: None,
            case_specific: false,
            uppercase: false,
            title: None,
            format: None,
            identity: None,
        }
    }
}

/// SET or MULTISET.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TableKind {
    /// No duplicate rows.
    Set,
    /// Duplicate rows allowed.
    Multiset,
}

/// A unique key (UPI, USI, PRIMARY KEY or UNIQUE constraint) or a plain index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexSpec {
    /// Index name, if given.
    pub name: Option<String>,
    /// Column positions.
    pub columns: Vec<usize>,
    /// Whether values must be unique.
    pub unique: bool,
}

/// A table definition.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TableSchema {
    /// Name as written.
    pub name: String,
    /// Columns in order.
    pub columns: Vec<Column>,
    /// SET or MULTISET.
    pub kind: TableKind,
    /// A queue table (first column is the QITS).
    pub queue: bool,
    /// The primary index (a NUPI on the first column when none was given).
    pub primary_index: Option<IndexSpec>,
    /// Secondary indexes and unique constraints.
    pub secondary: Vec<IndexSpec>,
    /// The DDL text the table was created with (for SHOW TABLE).
    pub ddl: String,
    /// The Arrow schema of the stored batches (derived from `columns`; not serialized, rebuilt
    /// by [`TableSchema::with_arrow`]).
    #[serde(skip, default = "empty_arrow")]
    pub arrow: SchemaRef,
    /// CHECK constraints as SQL text, with the column they belong to (None: table-level).
    /// Storage keeps them; `exec` parses and enforces them.
    pub checks: Vec<(Option<String>, String)>,
    /// The conditions a row must meet to fall in a partition of each RANGE_N/CASE_N level of
    /// the table's `PARTITION BY`, as SQL text (exec partition.rs makes and enforces them;
    /// 5728 when one is not true).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub partition_checks: Vec<String>,
    /// For a view: its query as SQL text (the entry then holds no rows; `columns` are the
    /// query's result columns). Views share the tables' namespace, log and checkpoints.
    #[serde(default)]
    pub view: Option<String>,
    /// For a macro: its parameters and statements (the entry holds no rows and no columns).
    /// Macros share the tables' namespace, log and checkpoints, as views do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub macro_def: Option<MacroDef>,
    /// The PRIMARY KEY constraint's column positions, if one was declared (its index is the
    /// unique key with these columns: the UPI, or a unique secondary index).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primary_key: Option<Vec<usize>>,
    /// A `VOLATILE` table: the session that owns it and its ON COMMIT option. Such a table
    /// lives in the catalog's per-session map (only its session finds it), is never logged nor
    /// checkpointed, and goes when its session ends.
    #[serde(default, skip_serializing, deserialize_with = "never_volatile")]
    pub volatile: Option<Volatile>,
    /// A `GLOBAL TEMPORARY` table's definition and its ON COMMIT option. The definition is
    /// permanent (logged and checkpointed) and never holds rows: each session that uses the
    /// table gets an instance of its own, a volatile table of the same name and schema whose
    /// [`Volatile::instance_of`] names the definition (materialized by the engine, dropped with the session).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub global_temporary: Option<VolatileCommit>,
    /// A queue's declared consume order (`CONSUME ORDER (c [DESC])`, a tdlite extension): rows
    /// leave by this column first, then by QITS.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_order: Option<QueueOrder>,
    /// A queue whose rows are consumable only from their QITS on (`DELIVER AT (qits)`, a
    /// tdlite extension: delayed delivery).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub delivers_at_qits: bool,
    /// A queue's attempts, expiry and dead letters (`ATTEMPTS (c)`, `MAX ATTEMPTS n`, `EXPIRE
    /// AFTER n unit`, `DEAD LETTER TO t`, tdlite extensions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<QueueLimits>,
    /// A queue with subscribers (`SUBSCRIBERS (…)`, a tdlite extension, docs/queues.md
    /// Subscribers): an INSERT puts each row here and a copy of it in every subscriber's
    /// table; the row leaves when every copy has been consumed (see `transaction/subscribers`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub multi_consumer: bool,
    /// For a subscriber's table: the queue and the subscriber it serves. Such a table is not
    /// in [`Catalog::tables`]: only a consume `FOR SUBSCRIBER` reaches it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscription: Option<Subscription>,
}

/// What a subscriber's table serves (see [`TableSchema::subscription`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subscription {
    /// The queue's name, as in the catalog.
    pub queue: String,
    /// The subscriber's name, as written.
    pub name: String,
    /// The queue's table id (a queue dropped and made again under its name in one
    /// transaction is another queue).
    #[serde(default)]
    pub queue_id: u64,
}

impl Subscription {
    /// Whether `table` is the queue this subscription serves.
    pub fn is_of(&self, table: &Table) -> bool {
        // (0: written before the id was kept; the name alone then)
        (self.queue_id == 0 || table.id == self.queue_id)
            && same_name(&table.schema.name, &self.queue)
    }
}

/// The catalog name of subscriber `name`'s table of queue `queue` (what errors about it say).
pub fn subscriber_table_name(queue: &str, name: &str) -> String {
    format!("{queue} FOR SUBSCRIBER {name}")
}

/// A queue's limits (docs/queues.md, Attempts, expiry and dead letters): when a transaction
/// that consumed a row rolls back, the row goes back with its `attempts` column one higher; a
/// row whose count reaches `max_attempts`, or whose QITS is `expire_after_us` in the past,
/// goes to the `dead_letter` table instead.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueLimits {
    /// The count's column: an integer column other than the QITS (NULL counts as 0).
    pub attempts: Option<usize>,
    /// The count at which a row is dead (with `attempts` and `dead_letter`).
    pub max_attempts: Option<u64>,
    /// How long after its QITS a row expires, in µs (with `dead_letter`).
    pub expire_after_us: Option<i64>,
    /// How long a counted row waits before it comes back, in µs: its new version's QITS is
    /// that far after the rollback (a queue that delivers at QITS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_delay_us: Option<i64>,
    /// The dead-letter table's name: the queue's columns, then optionally one character
    /// column that receives the reason (see [`dead_letter_fits`]).
    pub dead_letter: Option<String>,
}

/// Whether table `dead` can take `queue`'s dead rows: the queue's columns, in order, by name
/// and type (a character column as long or longer; nullable where the queue's is), then at most
/// one more, a character column of at least 12 characters for the reason; MULTISET, without
/// unique indexes or CHECK constraints (the copy is made by storage, which does not evaluate
/// CHECKs, and must not fail on a duplicate).
pub fn dead_letter_fits(queue: &TableSchema, dead: &TableSchema) -> Result<(), String> {
    let n = queue.columns.len();
    if dead.view.is_some() || dead.macro_def.is_some() {
        return Err(format!("{} is not a table", dead.name));
    }
    if !dead.checks.is_empty() {
        return Err(format!("{} has CHECK constraints", dead.name));
    }
    // a copy keeps the queue's values: an identity column would not be numbered by it
    if dead.columns.iter().any(|c| c.identity.is_some()) {
        return Err(format!("{} has an identity column", dead.name));
    }
    // a copy never fails on its values: no duplicate-row check, no unique key
    if dead.kind != TableKind::Multiset || dead.unique_keys().next().is_some() {
        return Err(format!(
            "{} must be a MULTISET table without unique indexes",
            dead.name
        ));
    }
    if dead.columns.len() != n && dead.columns.len() != n + 1 {
        return Err(format!(
            "{} has {} columns; it needs the queue's {n}, optionally followed by one for the reason",
            dead.name,
            dead.columns.len()
        ));
    }
    for (q, d) in queue.columns.iter().zip(&dead.columns) {
        let fits = match (q.ty, d.ty) {
            (SqlType::Char(a) | SqlType::VarChar(a), SqlType::VarChar(b)) => a <= b,
            (SqlType::Char(a), SqlType::Char(b)) => a == b,
            (SqlType::Byte(a) | SqlType::VarByte(a), SqlType::VarByte(b)) => a <= b,
            (a, b) => a == b,
        };
        if !fits || (q.nullable && !d.nullable) || !q.name.eq_ignore_ascii_case(&d.name) {
            return Err(format!(
                "column {} of {} cannot hold the queue's column {}",
                d.name, dead.name, q.name
            ));
        }
    }
    if let Some(reason) = dead.columns.get(n) {
        let long_enough = matches!(reason.ty, SqlType::Char(l) | SqlType::VarChar(l) if l >= 12);
        if !long_enough {
            return Err(format!(
                "the reason column {} of {} must be CHAR or VARCHAR of 12 characters or more",
                reason.name, dead.name
            ));
        }
    }
    Ok(())
}

/// A queue table's consume order before QITS: an integer column, NOT NULL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueOrder {
    /// The column's position.
    pub column: usize,
    /// Largest value first.
    pub descending: bool,
}

/// A stored definition is never volatile: volatile tables are never logged nor checkpointed
/// (a `volatile` value in an old log or manifest, written before they were, reads as none).
fn never_volatile<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Volatile>, D::Error> {
    serde::de::IgnoredAny::deserialize(d)?;
    Ok(None)
}

/// A volatile table's owner and ON COMMIT option.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Volatile {
    /// The session that created it (and alone sees it).
    pub session: u64,
    /// What a commit does to its rows.
    pub on_commit: VolatileCommit,
    /// For a session's instance of a global temporary table (named as its definition), the
    /// definition's table id; `None` for a table made by CREATE VOLATILE TABLE.
    #[serde(default)]
    pub instance_of: Option<u64>,
}

impl Volatile {
    /// True for an instance of a global temporary table.
    pub fn is_instance(&self) -> bool {
        self.instance_of.is_some()
    }
}

/// A volatile table's `ON COMMIT` option.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum VolatileCommit {
    /// `ON COMMIT PRESERVE ROWS`.
    PreserveRows,
    /// `ON COMMIT DELETE ROWS` (Teradata's default).
    DeleteRows,
}

/// A macro's definition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MacroDef {
    /// Parameters: name and type as written (with any DEFAULT).
    pub params: Vec<(String, String)>,
    /// The statements, as written between `AS (` and `)` (a procedure's: its body, from
    /// BEGIN or its label to its end).
    pub body: String,
    /// A stored procedure rather than a macro: `params` hold each parameter's mode before
    /// its type (`IN INTEGER`), and the body is SPL.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub procedure: bool,
    /// A procedure made in an ANSI-mode session (it runs only in ANSI mode, one made in
    /// Teradata mode only in Teradata mode).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ansi: bool,
}

fn empty_arrow() -> SchemaRef {
    Arc::new(Schema::empty())
}

impl TableSchema {
    /// Builds a definition; the Arrow schema is derived from the columns.
    pub fn new(
        name: String,
        columns: Vec<Column>,
        kind: TableKind,
        queue: bool,
        primary_index: Option<IndexSpec>,
        secondary: Vec<IndexSpec>,
        ddl: String,
    ) -> Self {
        TableSchema {
            name,
            columns,
            kind,
            queue,
            primary_index,
            secondary,
            ddl,
            arrow: Arc::new(Schema::empty()),
            checks: Vec::new(),
            partition_checks: Vec::new(),
            view: None,
            macro_def: None,
            primary_key: None,
            volatile: None,
            global_temporary: None,
            queue_order: None,
            delivers_at_qits: false,
            limits: None,
            multi_consumer: false,
            subscription: None,
        }
        .with_arrow()
    }

    /// Derives the Arrow schema from the columns (after deserializing a definition).
    pub fn with_arrow(mut self) -> Self {
        self.arrow = Arc::new(Schema::new(
            self.columns
                .iter()
                .map(|c| Field::new(&c.name, c.ty.arrow_type(), c.nullable))
                .collect::<Vec<_>>(),
        ));
        self
    }

    /// Position of a column by case-insensitive name.
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
    }

    /// Every index: the primary index first (if any), then the secondary indexes in order.
    pub fn indexes(&self) -> impl Iterator<Item = &IndexSpec> {
        self.primary_index.iter().chain(&self.secondary)
    }

    /// Every unique key: the UPI and unique secondaries.
    pub fn unique_keys(&self) -> impl Iterator<Item = (&IndexSpec, bool)> {
        self.primary_index
            .iter()
            .filter(|i| i.unique)
            .map(|i| (i, true))
            .chain(
                self.secondary
                    .iter()
                    .filter(|i| i.unique)
                    .map(|i| (i, false)),
            )
    }
}

/// The name → table map, and each session's volatile tables.
///
/// Invariant: a volatile table is only ever in `volatile` (never in `tables` nor in
/// `limbo`), so `tables()` and checkpoints never see one.
#[derive(Default)]
pub struct Catalog {
    tables: RwLock<IndexMap<String, Arc<Table>>>,
    /// Volatile tables by (session, name key), in creation order.
    volatile: RwLock<IndexMap<(u64, String), Arc<Table>>>,
    /// How many entries `volatile` has (read without its lock).
    volatile_count: AtomicUsize,
    next_id: AtomicU64,
    /// Tables dropped by a transaction that has not ended: a checkpoint must still save them,
    /// since a rollback brings them back.
    limbo: parking_lot::Mutex<Vec<(Arc<Table>, TxnId)>>,
    /// Raised by every change to the name → table map (under its write lock): a lookup made
    /// at one version gives the same answer while the version stays.
    version: AtomicU64,
}

/// Whether two catalog names name the same entry (names compare without case).
pub fn same_name(a: &str, b: &str) -> bool {
    key(a) == key(b)
}

fn key(name: &str) -> String {
    if name.is_ascii() {
        name.to_ascii_uppercase() // the same result, without Unicode case tables
    } else {
        name.to_uppercase()
    }
}

impl Catalog {
    /// The map's version (see [`Catalog`]): equal versions, equal answers to every lookup.
    pub fn version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }

    fn changed(&self) {
        self.version.fetch_add(1, Ordering::AcqRel);
    }

    /// Looks a table up by name.
    pub fn get_table(&self, name: &str) -> Option<Arc<Table>> {
        // the key of a short ASCII name is made on the stack (a lookup per statement)
        let mut buf = [0u8; 128];
        if name.is_ascii() && name.len() <= buf.len() {
            let upper = &mut buf[..name.len()];
            upper.copy_from_slice(name.as_bytes());
            upper.make_ascii_uppercase();
            if let Ok(k) = std::str::from_utf8(upper) {
                return self.tables.read().get(k).cloned();
            }
        }
        self.tables.read().get(&key(name)).cloned()
    }

    /// Looks a table up by name; 3807 if it does not exist.
    ///
    /// # Errors
    /// [`StorageError::ObjectNotFound`].
    pub fn must_get_table(&self, name: &str) -> Result<Arc<Table>, StorageError> {
        self.get_table(name)
            .ok_or_else(|| StorageError::ObjectNotFound(name.to_string()))
    }

    /// Creates a table on behalf of transaction `creator`, which alone may write to it until
    /// it commits (0: already committed).
    ///
    /// # Errors
    /// [`StorageError::TableExists`] (3803); [`StorageError::WriteConflict`] (2631) if another
    /// open transaction has dropped a table of this name (its DROP may still roll back).
    pub fn create_table(
        &self,
        schema: TableSchema,
        creator: TxnId,
    ) -> Result<Arc<Table>, StorageError> {
        self.insert(None, schema, creator)
    }

    /// A new table id, never handed out before (for [`Catalog::create_table_with_id`]).
    pub fn reserve_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Creates a table under an id from [`Catalog::reserve_id`] on behalf of transaction
    /// `creator` (as [`Catalog::create_table`]).
    ///
    /// # Errors
    /// As [`Catalog::create_table`].
    pub fn create_table_with_id(
        &self,
        id: u64,
        schema: TableSchema,
        creator: TxnId,
    ) -> Result<Arc<Table>, StorageError> {
        self.insert(Some(id), schema, creator)
    }

    /// Creates a table under a known id (recovery).
    pub(crate) fn create_with_id(
        &self,
        id: u64,
        schema: TableSchema,
    ) -> Result<Arc<Table>, StorageError> {
        self.insert(Some(id), schema, 0)
    }

    /// Adds a table under `id` (a new one if `None`), refusing a name in use or in another
    /// transaction's open DROP.
    fn insert(
        &self,
        id: Option<u64>,
        schema: TableSchema,
        creator: TxnId,
    ) -> Result<Arc<Table>, StorageError> {
        if let Some(v) = schema.volatile {
            let mut volatile = self.volatile.write();
            self.changed();
            let k = (v.session, key(&schema.name));
            if volatile.contains_key(&k) {
                return Err(StorageError::TableExists(schema.name));
            }
            let table = Arc::new(Table::new(self.assign_id(id), schema, creator));
            volatile.insert(k, table.clone());
            self.volatile_count.store(volatile.len(), Ordering::Release);
            return Ok(table);
        }
        let mut tables = self.tables.write();
        self.changed();
        let k = key(&schema.name);
        if tables.contains_key(&k) {
            return Err(StorageError::TableExists(schema.name));
        }
        let dropped_by_other = self
            .limbo
            .lock()
            .iter()
            .any(|(t, dropper)| *dropper != creator && key(&t.schema.name) == k);
        if dropped_by_other {
            return Err(StorageError::WriteConflict(schema.name));
        }
        let table = Arc::new(Table::new(self.assign_id(id), schema, creator));
        tables.insert(k, table.clone());
        Ok(table)
    }

    /// `id`, made never to be handed out again, or a new id.
    fn assign_id(&self, id: Option<u64>) -> u64 {
        match id {
            Some(id) => {
                self.next_id.fetch_max(id, Ordering::Relaxed);
                id
            }
            None => self.next_id.fetch_add(1, Ordering::Relaxed) + 1,
        }
    }

    /// Session `session`'s volatile table of this (unqualified) name.
    pub fn get_volatile(&self, session: u64, name: &str) -> Option<Arc<Table>> {
        self.volatile.read().get(&(session, key(name))).cloned()
    }

    /// Whether any session has a volatile table (a commit checks this before looking for its
    /// session's ones).
    pub fn has_volatile(&self) -> bool {
        self.volatile_count.load(Ordering::Acquire) > 0
    }

    /// Session `session`'s volatile tables, in creation order (`instances`: with its
    /// instances of global temporary tables).
    pub fn volatile_tables(&self, session: u64, instances: bool) -> Vec<Arc<Table>> {
        self.volatile
            .read()
            .iter()
            .filter(|((s, _), t)| {
                *s == session && (instances || t.schema.volatile.is_some_and(|v| !v.is_instance()))
            })
            .map(|(_, t)| t.clone())
            .collect()
    }

    /// Every session's instances of the global temporary table whose definition has table id
    /// `definition`.
    pub fn temporary_instances(&self, definition: u64) -> Vec<Arc<Table>> {
        if !self.has_volatile() {
            return Vec::new();
        }
        self.volatile
            .read()
            .values()
            .filter(|t| t.schema.volatile.and_then(|v| v.instance_of) == Some(definition))
            .cloned()
            .collect()
    }

    /// Every session's volatile tables.
    pub(crate) fn all_volatile_tables(&self) -> Vec<Arc<Table>> {
        self.volatile.read().values().cloned().collect()
    }

    /// Removes a volatile table (DROP TABLE; undone by `Catalog::restore_table`; an orphaned
    /// instance of a global temporary table, which nothing undoes).
    pub fn drop_volatile(&self, table: &Arc<Table>) {
        let Some(v) = table.schema.volatile else {
            return;
        };
        let mut volatile = self.volatile.write();
        self.changed();
        let k = (v.session, key(&table.schema.name));
        if volatile.get(&k).is_some_and(|t| Arc::ptr_eq(t, table)) {
            volatile.shift_remove(&k);
            table.set_dropped(true);
        }
        self.volatile_count.store(volatile.len(), Ordering::Release);
    }

    /// Removes every volatile table of `session` (the session ended).
    pub fn drop_session(&self, session: u64) -> Vec<Arc<Table>> {
        if !self.has_volatile() {
            return Vec::new();
        }
        let mut volatile = self.volatile.write();
        let mut gone = Vec::new();
        volatile.retain(|(s, _), t| {
            if *s == session {
                t.set_dropped(true);
                gone.push(t.clone());
                false
            } else {
                true
            }
        });
        if !gone.is_empty() {
            self.changed();
        }
        self.volatile_count.store(volatile.len(), Ordering::Release);
        gone
    }

    /// The highest table id handed out so far.
    pub(crate) fn last_id(&self) -> u64 {
        self.next_id.load(Ordering::Relaxed)
    }

    /// Makes sure ids up to `id` are never handed out again.
    pub(crate) fn raise_last_id(&self, id: u64) {
        self.next_id.fetch_max(id, Ordering::Relaxed);
    }

    /// The table of this name in another transaction's uncommitted DROP, if any.
    pub(crate) fn in_limbo(&self, name: &str) -> Option<Arc<Table>> {
        let k = key(name);
        self.limbo
            .lock()
            .iter()
            .find(|(t, _)| key(&t.schema.name) == k)
            .map(|(t, _)| t.clone())
    }

    /// Forgets a committed DROP: the table no longer needs saving.
    pub(crate) fn limbo_remove(&self, table: &Arc<Table>) {
        self.limbo.lock().retain(|(t, _)| !Arc::ptr_eq(t, table));
    }

    /// Every table a checkpoint must save: the catalog's and those in an uncommitted DROP,
    /// read together so a DROP or its undo in between cannot hide a table from both.
    pub(crate) fn tables_for_checkpoint(&self) -> Vec<Arc<Table>> {
        let tables = self.tables.read();
        let mut all: Vec<Arc<Table>> = tables.values().cloned().collect();
        all.extend(self.limbo.lock().iter().map(|(t, _)| t.clone()));
        all
    }

    /// Puts a dropped table back (undo of DROP TABLE).
    ///
    /// No other transaction can have taken the name meanwhile ([`Catalog::create_table`]
    /// refuses while the DROP is open); if this transaction took it itself, that CREATE was
    /// undone first (undo runs in reverse).
    pub(crate) fn restore_table(&self, table: Arc<Table>) {
        if let Some(v) = table.schema.volatile {
            let mut volatile = self.volatile.write();
            self.changed();
            let k = (v.session, key(&table.schema.name));
            if !volatile.contains_key(&k) {
                table.set_dropped(false);
                volatile.insert(k, table);
            }
            self.volatile_count.store(volatile.len(), Ordering::Release);
            return;
        }
        let mut tables = self.tables.write();
        self.changed();
        self.limbo.lock().retain(|(t, _)| !Arc::ptr_eq(t, &table));
        let k = key(&table.schema.name);
        if !tables.contains_key(&k) {
            table.set_dropped(false);
            tables.insert(k, table);
        }
    }

    /// Drops a table on behalf of transaction `dropper`; until it commits the table is kept
    /// for checkpoints (a rollback brings it back).
    ///
    /// # Errors
    /// [`StorageError::ObjectNotFound`] (3807); [`StorageError::WriteConflict`] (2631) if another
    /// open transaction created the table.
    pub fn drop_table(&self, name: &str, dropper: TxnId) -> Result<Arc<Table>, StorageError> {
        let mut tables = self.tables.write();
        self.changed();
        let k = key(name);
        let t = tables
            .get(&k)
            .ok_or_else(|| StorageError::ObjectNotFound(name.to_string()))?;
        let creator = t.creator.load(Ordering::Acquire);
        if creator != 0 && creator != dropper {
            return Err(StorageError::WriteConflict(t.schema.name.clone()));
        }
        let t = tables
            .shift_remove(&k)
            .ok_or_else(|| StorageError::ObjectNotFound(name.to_string()))?;
        t.set_dropped(true);
        if dropper != 0 {
            self.limbo.lock().push((t.clone(), dropper));
        }
        Ok(t)
    }

    /// Removes a table only if it is this very table (undo of CREATE TABLE).
    pub(crate) fn remove_if_same(&self, table: &Arc<Table>) {
        if table.schema.volatile.is_some() {
            return self.drop_volatile(table);
        }
        let mut tables = self.tables.write();
        self.changed();
        let k = key(&table.schema.name);
        if tables.get(&k).is_some_and(|t| Arc::ptr_eq(t, table)) {
            tables.shift_remove(&k);
            table.set_dropped(true);
        }
    }

    /// All tables, in creation order, but for subscribers' tables (see
    /// [`TableSchema::subscription`]): what the dictionary shows.
    pub fn tables(&self) -> Vec<Arc<Table>> {
        self.tables
            .read()
            .values()
            .filter(|t| t.schema.subscription.is_none())
            .cloned()
            .collect()
    }

    /// All tables, in creation order, subscribers' tables too.
    pub fn all_tables(&self) -> Vec<Arc<Table>> {
        self.tables.read().values().cloned().collect()
    }

    /// The queue subscription `s` serves: in the catalog, or dropped by an open transaction.
    pub fn queue_of(&self, s: &Subscription) -> Option<Arc<Table>> {
        if let Some(t) = self.get_table(&s.queue).filter(|t| s.is_of(t)) {
            return Some(t);
        }
        self.limbo
            .lock()
            .iter()
            .find(|(t, _)| s.is_of(t))
            .map(|(t, _)| t.clone())
    }

    /// The subscribers' tables of queue `queue` that an open transaction is dropping (with
    /// the queue: see `Transaction::drop_table`).
    pub fn subscribers_dropping(&self, queue: &Table) -> Vec<Arc<Table>> {
        self.limbo
            .lock()
            .iter()
            .filter(|(t, _)| {
                t.schema
                    .subscription
                    .as_ref()
                    .is_some_and(|s| s.is_of(queue))
            })
            .map(|(t, _)| t.clone())
            .collect()
    }

    /// The subscribers' tables of queue `queue`, in creation order (committed or not: see
    /// [`Table::usable_by`]).
    pub fn subscribers_of(&self, queue: &Table) -> Vec<Arc<Table>> {
        self.tables
            .read()
            .values()
            .filter(|t| {
                t.schema
                    .subscription
                    .as_ref()
                    .is_some_and(|s| s.is_of(queue))
            })
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_definition_is_never_volatile() {
        let mut schema = TableSchema::new(
            "t".into(),
            Vec::new(),
            TableKind::Multiset,
            false,
            None,
            Vec::new(),
            String::new(),
        );
        schema.volatile = Some(Volatile {
            session: 7,
            on_commit: VolatileCommit::PreserveRows,
            instance_of: None,
        });
        let json = serde_json::to_string(&schema).unwrap();
        assert!(!json.contains("volatile"), "{json}");
        // an older tdlite wrote the ON COMMIT option alone: it reads as a permanent table
        let old = json.replacen('{', r#"{"volatile":"DeleteRows","#, 1);
        let back: TableSchema = serde_json::from_str(&old).unwrap();
        assert!(back.volatile.is_none());
        let back: TableSchema = serde_json::from_str(&json).unwrap();
        assert!(back.volatile.is_none());
    }
}
