//! tdlite storage: the catalog, tables as Arrow record batches with MVCC stamps, transactions,
//! and the queue index that makes `SELECT AND CONSUME` O(log n).
//!
//! Layers, bottom up: [`types`] (values ↔ Arrow), [`columns`] (batches with only the columns a
//! reader needs), [`table`] (segments, stamps, side indexes), [`index`] (ordered indexes,
//! over [`key`]: keys as bytes in key order), [`mvcc`] (ids and snapshots), [`queue`] (the
//! consumable-rows index), [`locks`] (table locks, waits, deadlock detection; the ROW WRITE
//! fast path in `fastlock`), [`transaction`] (writes, undo, commit/rollback), [`catalog`]
//! (names → tables and views), [`identity`] (identity columns' numbers); for a database on disk, [`recovery`] (open) and [`durable`]
//! (log each commit, checkpoint) over [`wal`] (the log), [`checkpoint`] (Arrow IPC files and
//! the manifest), [`codec`] and [`vfs`] ([`sim`] simulates
//! power cuts). Storage never parses SQL: it keeps CREATE texts, CHECK conditions and view
//! queries only as strings.
//!
//! ```
//! use std::sync::Arc;
//! use tdlite_storage::{catalog::*, types::*, Storage, Transaction};
//! let storage = Arc::new(Storage::default());
//! let col = |name: &str, ty| Column { name: name.into(), ty, nullable: false, default: None,
//!     case_specific: false, uppercase: false, title: None, format: None, identity: None };
//! let schema = TableSchema::new("q".into(), vec![col("qits", SqlType::Timestamp(6)),
//!     col("n", SqlType::Integer)], TableKind::Multiset, true, None, vec![], String::new());
//! let mut t = Transaction::begin(&storage);
//! let q = t.create_table(schema).unwrap();
//! t.insert(&q, vec![Value::Timestamp(2), Value::Int(20)]).unwrap();
//! t.insert(&q, vec![Value::Timestamp(1), Value::Int(10)]).unwrap();
//! t.commit().unwrap();
//! let mut c = Transaction::begin(&storage);
//! assert_eq!(c.consume(&q, true, None).unwrap().unwrap().1[1], Value::Int(10));
//! c.rollback(); // the row is back, at the front
//! assert_eq!(q.queue_depth(), 2);
//! ```
#![warn(missing_docs)]

pub mod catalog;
pub mod checkpoint;
pub mod codec;
pub mod columns;
pub mod durable;
pub mod error;
mod fastlock;
#[cfg(test)]
mod fastlock_stress;
pub mod identity;
pub mod index;
pub mod key;
mod keyed_queue;
mod lease;
pub mod locks;
pub mod mvcc;
#[cfg(test)]
mod mvcc_stress;
mod padded;
pub mod period;
pub mod queue;
pub mod recovery;
pub mod sim;
mod slots;
mod stamps;
pub mod table;
mod tail;
pub mod transaction;
pub mod types;
pub mod vfs;
mod waiting;
pub mod wal;

pub use durable::Options;
pub use error::StorageError;
pub use transaction::{CommitFailed, Outcome, Transaction};
pub use wal::SyncMode;

/// Everything one database holds: its catalog, its transaction manager and, for a database on
/// disk, its log and checkpoints.
#[derive(Default)]
pub struct Storage {
    /// Tables by name.
    pub catalog: catalog::Catalog,
    /// Transaction ids and snapshots.
    pub txns: mvcc::TxnManager,
    /// Table locks and the wait-for graph.
    pub locks: locks::LockManager,
    /// The log and checkpoints; `None` in memory.
    pub durable: Option<durable::Durable>,
    /// The last lease number given (docs/queues.md, Leases): numbers go 1, 2, … for the whole
    /// database while it is open (no lease outlives it), so a lease number names one lease
    /// even after its table is rebuilt.
    pub(crate) last_lease: std::sync::atomic::AtomicU64,
}

impl Storage {
    /// Opens (or creates) the database in folder `dir`: loads the last checkpoint and replays
    /// the log after it.
    ///
    /// # Errors
    /// [`StorageError::Locked`] if another process has it open, [`StorageError::Corrupt`] if a
    /// file is damaged (naming it), [`StorageError::Io`] for other I/O failures.
    pub fn open(dir: &std::path::Path, options: Options) -> Result<Self, StorageError> {
        recovery::open(dir, options)
    }

    /// Every granted table lock, sorted by table name and holder: the lock manager's and the
    /// ROW WRITE locks held on the fast path (`HELP LOCKS` shows both).
    pub fn held_locks(&self) -> Vec<locks::LockHeld> {
        let mut out = self.locks.held();
        let fast = fastlock::holders(&self.txns.slots);
        if !fast.is_empty() {
            let names: std::collections::HashMap<u64, String> = self
                .every_table()
                .into_iter()
                .map(|t| (t.id, t.schema.name.clone()))
                .collect();
            for (table, holder, session) in fast {
                if let Some(name) = names.get(&table) {
                    out.push(locks::LockHeld {
                        holder,
                        session,
                        table: name.clone(),
                        mode: locks::LockMode::RowWrite,
                    });
                }
            }
        }
        out.sort_by(|a, b| (&a.table, a.holder).cmp(&(&b.table, b.holder)));
        out
    }

    /// Who waits for whom now, sorted by waiter (`HELP LOCKS`), with the sessions of
    /// blockers the lock manager never saw (their locks are on the fast path) filled in.
    pub fn lock_waits(&self) -> Vec<locks::LockWait> {
        let mut waits = self.locks.waits();
        if waits.iter().any(|w| w.blockers.iter().any(|b| b.1 == 0)) {
            let sessions: std::collections::HashMap<mvcc::TxnId, u64> =
                fastlock::holders(&self.txns.slots)
                    .into_iter()
                    .map(|(_, holder, session)| (holder, session))
                    .collect();
            for b in waits.iter_mut().flat_map(|w| w.blockers.iter_mut()) {
                if b.1 == 0 {
                    b.1 = sessions.get(&b.0).copied().unwrap_or(0);
                }
            }
        }
        waits
    }

    /// Every table, volatile ones included.
    fn every_table(&self) -> Vec<std::sync::Arc<table::Table>> {
        let mut tables = self.catalog.all_tables();
        tables.extend(self.catalog.all_volatile_tables());
        tables
    }

    /// Writes a checkpoint now (a no-op in memory).
    ///
    /// # Errors
    /// An I/O failure; the database stays usable and the log stays in place.
    pub fn checkpoint(&self) -> Result<(), StorageError> {
        match &self.durable {
            Some(d) => d.checkpoint(self, true),
            None => Ok(()),
        }
    }
}

/// A stress test's seed: `TDLITE_STRESS_SEED` if set, else a random one; printed, so a failing
/// run can be replayed (its choices; thread timing is not).
#[cfg(test)]
pub(crate) fn stress_seed(test: &str) -> u64 {
    let seed = std::env::var("TDLITE_STRESS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random::<u64>);
    println!("{test} stress seed: {seed} (TDLITE_STRESS_SEED={seed} replays it)");
    seed
}
