//! The database handle users hold: it opens the storage (in memory or in a folder), makes the
//! [`Shared`] state every session uses, and opens sessions. Cheap to clone and share between
//! threads; each thread opens its own [`Session`].

use crate::error::Error;
use crate::session::{Session, SessionMode};
use crate::shared::Shared;
use std::path::Path;
use std::sync::Arc;
use tdlite_storage::{Options, Storage};

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
            shared: Arc::new(Shared::new(storage)),
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
        Session::new(self.shared.clone(), self.shared.next_session())
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
