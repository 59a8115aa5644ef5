//! The state every session of one database shares, and every statement reaches through
//! [`crate::exec::Exec`]: storage, the waiters of empty queues, the dictionary's registry, the
//! request clock, and the caches of bound row conditions and parsed views. The session layer
//! (`Database`, database.rs) makes it and hands it to each session; statements use it and
//! never open sessions, so this module sits with the statements, below the session layer.
//!
//! Invariant: the request clock only moves forward; each request's timestamp is later than
//! every earlier one's (`request_timestamp`).

use crate::wait::Waiters;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use tdlite_storage::{Outcome, Storage};

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
    /// The shared state of a database over `storage`, with no session yet.
    pub(crate) fn new(storage: Storage) -> Self {
        Shared {
            storage: Arc::new(storage),
            waiters: Waiters::default(),
            registry: Default::default(),
            clock: AtomicI64::new(0),
            sessions: AtomicU64::new(0),
            row_conditions: Default::default(),
            view_queries: Default::default(),
        }
    }

    /// The number of a new session: 1 for the first, then one more each time.
    pub(crate) fn next_session(&self) -> u64 {
        self.sessions.fetch_add(1, Ordering::Relaxed) + 1
    }

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
