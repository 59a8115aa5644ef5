//! The shared database: storage, the waiters of empty queues, and the request clock. Cheap to
//! clone and share between threads; each thread opens its own [`Session`].

use crate::session::Session;
use crate::wait::Waiters;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use tdlite_storage::{Outcome, Storage};

/// State shared by every session of one database.
pub struct Shared {
    /// Catalog, tables and transactions.
    pub storage: Arc<Storage>,
    pub(crate) waiters: Waiters,
    clock: AtomicI64,
}

impl Shared {
    /// The timestamp of a new request: the wall clock in µs (UTC), made strictly increasing
    /// across the database so that requests get distinct, ordered CURRENT_TIMESTAMPs.
    pub(crate) fn request_timestamp(&self) -> i64 {
        let wall = chrono::Utc::now().timestamp_micros();
        let prev = self
            .clock
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |last| {
                Some(wall.max(last + 1))
            })
            .unwrap_or(wall);
        wall.max(prev + 1)
    }

    /// Wakes the consumers that a commit or rollback gave rows to.
    pub(crate) fn publish(&self, outcome: Outcome) {
        for (table, n) in outcome.published {
            self.waiters.notify(table.id, n);
        }
        for table in outcome.removed {
            self.waiters.drop_table(table.id);
        }
    }
}

/// An in-process tdlite database (in memory). `Send + Sync`; clones share the same data.
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
        Database {
            shared: Arc::new(Shared {
                storage: Arc::new(Storage::default()),
                waiters: Waiters::default(),
                clock: AtomicI64::new(0),
            }),
        }
    }

    /// Opens a session (Teradata session mode, user `TDLITE`).
    pub fn session(&self) -> Session {
        Session::new(self.shared.clone())
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

    /// Number of sessions waiting to consume from `table` (0 if there is no such table).
    pub fn waiting_consumers(&self, table: &str) -> usize {
        self.shared
            .storage
            .catalog
            .get_table(table)
            .map_or(0, |t| self.shared.waiters.count(t.id))
    }
}
