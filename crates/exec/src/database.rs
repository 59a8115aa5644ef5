//! The shared database: storage, the waiters of empty queues, and the request clock. Cheap to
//! clone and share between threads; each thread opens its own [`Session`].

use crate::error::Error;
use crate::session::{Session, SessionMode};
use crate::wait::Waiters;
use std::path::Path;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use tdlite_storage::{Options, Outcome, Storage};

/// State shared by every session of one database.
pub struct Shared {
    /// Catalog, tables and transactions.
    pub storage: Arc<Storage>,
    pub(crate) waiters: Waiters,
    /// Databases, rights and comments recorded by this process (see dictionary.rs).
    pub(crate) registry: crate::dictionary::Registry,
    clock: AtomicI64,
    sessions: AtomicU64,
    /// Each table's CHECK and partitioning conditions, bound once (dml.rs `RowConditions`).
    pub(crate) row_conditions: crate::dml::RowConditionCache,
    /// Each view's query, parsed once (view.rs `Exec::view_query`), and whether a join found
    /// its columns other than recorded (`Exec::view_read_early`).
    pub(crate) view_queries: crate::view::ViewQueryCache,
}

impl Shared {
    /// The timestamp of a new request: the wall clock in µs (UTC), made strictly increasing
    /// across the database so that requests get distinct, ordered CURRENT_TIMESTAMPs.
    pub(crate) fn request_timestamp(&self) -> i64 {
        let wall = tdlite_storage::table::wall_clock_us();
        let prev = self
            .clock
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |last| {
                Some(wall.max(last + 1))
            })
            .unwrap_or(wall);
        wall.max(prev + 1)
    }

    /// The clock [`Shared::request_timestamp`] reads, now, without moving it: the time a
    /// delayed row's QITS is compared with (a QITS from CURRENT_TIMESTAMP is never after it).
    pub(crate) fn clock_now(&self) -> i64 {
        tdlite_storage::table::wall_clock_us().max(self.clock.load(Ordering::Acquire))
    }

    /// The newest QITS a consume of `table` may take now: the clock, for a queue that
    /// delivers at QITS (read for such a queue only: it is a cache line every request
    /// writes); any, for another.
    pub(crate) fn due_by(&self, table: &tdlite_storage::table::Table) -> i64 {
        if table.schema.delivers_at_qits {
            self.clock_now()
        } else {
            i64::MAX
        }
    }

    /// Wakes the consumers that a commit or rollback gave rows to.
    pub(crate) fn publish(&self, outcome: Outcome) {
        for (table, rows) in outcome.published {
            self.waiters.notify(table.id, &rows);
        }
        for table in outcome.removed {
            self.waiters.drop_table(table.id);
        }
        for table in outcome.retimed {
            self.waiters.retime(table.id);
        }
    }
}

/// An in-process tdlite database, in memory ([`Database::new`]) or in a folder on disk
/// ([`Database::open`]). `Send + Sync`; clones share the same data. The folder is released
/// when the last clone and the last session are dropped.
#[derive(Clone)]
pub struct Database {
    shared: Arc<Shared>,
}

impl Default for Database {
    fn default() -> Self {
        Self::new()
    }
}

impl Database {
    /// A new, empty in-memory database.
    pub fn new() -> Self {
        Self::with_storage(Storage::default())
    }

    fn with_storage(storage: Storage) -> Self {
        Database {
            shared: Arc::new(Shared {
                storage: Arc::new(storage),
                waiters: Waiters::default(),
                registry: Default::default(),
                clock: AtomicI64::new(0),
                sessions: AtomicU64::new(0),
                row_conditions: Default::default(),
                view_queries: Default::default(),
            }),
        }
    }

    /// Opens the database in folder `path`, creating it if needed, with full sync: a commit
    /// returns only when it is on disk.
    ///
    /// # Errors
    /// 9915 if another process has it open, 9916 if a file is damaged (the message names it),
    /// 9914 for other I/O errors.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, Error> {
        Self::open_with(path, Options::default())
    }

    /// Opens the database in folder `path` with these options (sync mode, checkpoint size,
    /// file system).
    ///
    /// # Errors
    /// As [`Database::open`].
    pub fn open_with(path: impl AsRef<Path>, options: Options) -> Result<Self, Error> {
        Ok(Self::with_storage(Storage::open(path.as_ref(), options)?))
    }

    /// Writes a checkpoint now, so the next open replays less log (a no-op in memory).
    ///
    /// # Errors
    /// 9914 if writing fails; the database stays usable and nothing is lost.
    pub fn checkpoint(&self) -> Result<(), Error> {
        Ok(self.shared.storage.checkpoint()?)
    }

    /// What opening the database had to repair (for example a torn log tail), one line each.
    pub fn recovery_report(&self) -> Vec<String> {
        self.shared
            .storage
            .durable
            .as_ref()
            .map_or_else(Vec::new, |d| d.report().to_vec())
    }

    /// The database folder, or `None` in memory.
    pub fn path(&self) -> Option<&Path> {
        self.shared.storage.durable.as_ref().map(|d| d.dir())
    }

    /// Opens a session (Teradata session mode, user `TDLITE`).
    pub fn session(&self) -> Session {
        let id = self.shared.sessions.fetch_add(1, Ordering::Relaxed) + 1;
        Session::new(self.shared.clone(), id)
    }

    /// Opens a session in the given mode.
    pub fn session_in(&self, mode: SessionMode) -> Session {
        let mut s = self.session();
        s.set_mode(mode).expect("a new session has no transaction");
        s
    }

    /// Names of all tables, in creation order.
    pub fn table_names(&self) -> Vec<String> {
        self.shared
            .storage
            .catalog
            .tables()
            .iter()
            .map(|t| t.schema.name.clone())
            .collect()
    }

    /// Transactions waiting for a table lock or for another transaction's row, and whom they
    /// wait for (what `HELP LOCKS` shows as WAITING).
    pub fn lock_waits(&self) -> Vec<tdlite_storage::locks::LockWait> {
        self.shared.storage.lock_waits()
    }

    /// Number of sessions waiting to consume from `table` (0 if there is no such table).
    pub fn waiting_consumers(&self, table: &str) -> usize {
        self.shared
            .storage
            .catalog
            .get_table(table)
            .map_or(0, |t| self.shared.waiters.count(t.id))
    }
}
