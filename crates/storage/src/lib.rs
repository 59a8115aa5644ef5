//! tdlite storage: the catalog, tables as Arrow record batches with MVCC stamps, transactions,
//! and the queue index that makes `SELECT AND CONSUME` O(log n).
//!
//! Layers, bottom up: [`types`] (values ↔ Arrow), [`table`] (segments, stamps, side indexes),
//! [`mvcc`] (ids and snapshots), [`queue`] (the consumable-rows index), [`transaction`]
//! (writes, undo, commit/rollback), [`catalog`] (names → tables). Storage never sees SQL text.
//!
//! ```
//! use std::sync::Arc;
//! use tdlite_storage::{catalog::*, types::*, Storage, Transaction};
//! let storage = Arc::new(Storage::default());
//! let col = |name: &str, ty| Column { name: name.into(), ty, nullable: false, default: None,
//!     case_specific: false, uppercase: false, title: None, format: None };
//! let schema = TableSchema::new("q".into(), vec![col("qits", SqlType::Timestamp(6)),
//!     col("n", SqlType::Integer)], TableKind::Multiset, true, None, vec![], String::new());
//! let mut t = Transaction::begin(&storage);
//! let q = t.create_table(schema).unwrap();
//! t.insert(&q, vec![Value::Timestamp(2), Value::Int(20)]).unwrap();
//! t.insert(&q, vec![Value::Timestamp(1), Value::Int(10)]).unwrap();
//! t.commit();
//! let mut c = Transaction::begin(&storage);
//! assert_eq!(c.consume(&q).unwrap().1[1], Value::Int(10));
//! c.rollback(); // the row is back, at the front
//! assert_eq!(q.queue_depth(), 2);
//! ```
#![warn(missing_docs)]

pub mod catalog;
pub mod error;
pub mod mvcc;
pub mod queue;
pub mod table;
pub mod transaction;
pub mod types;

pub use error::StorageError;
pub use transaction::{Outcome, Transaction};

/// Everything one database holds: its catalog and its transaction manager.
#[derive(Default)]
pub struct Storage {
    /// Tables by name.
    pub catalog: catalog::Catalog,
    /// Transaction ids and snapshots.
    pub txns: mvcc::TxnManager,
}
