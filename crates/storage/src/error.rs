//! Storage errors. Each variant is a condition a user can cause; `exec` maps them to Teradata
//! error numbers in one exhaustive match.

/// An error from the storage layer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StorageError {
    /// A table with this name exists already (3803).
    #[error("Table '{0}' already exists.")]
    TableExists(String),
    /// No table of this name (3807).
    #[error("Object '{0}' does not exist.")]
    ObjectNotFound(String),
    /// A SET table already holds an identical row (2802).
    #[error("Duplicate row error in {0}.")]
    DuplicateRow(String),
    /// A unique primary index value exists already (2801).
    #[error("Duplicate unique prime key error in {0}.")]
    DuplicatePrimaryKey(String),
    /// A unique secondary index or UNIQUE/PRIMARY KEY constraint was violated (2803).
    #[error("Secondary index uniqueness violation in {0}.")]
    DuplicateUniqueKey(String),
    /// A NO CYCLE identity column has handed out its last number (7545); names `table.column`.
    #[error("Numbering for Identity Column {0} is over its limit.")]
    IdentityExhausted(String),
    /// NULL for a NOT NULL column (3811).
    #[error("Column '{0}' is NOT NULL. Give the column a value.")]
    NotNull(String),
    /// Another open transaction has changed the row this one wants to change (2631).
    #[error("Transaction ABORTed due to a write conflict on table '{0}' (another open transaction changed the same row).")]
    WriteConflict(String),
    /// Waiting for a lock would close a cycle of waits (2631); this transaction is the victim.
    #[error("Transaction ABORTed due to deadlock on table '{0}'.")]
    Deadlock(String),
    /// `LOCKING … NOWAIT` found the lock taken (7423).
    #[error("Object '{0}' already locked and NOWAIT. Transaction Aborted.")]
    LockNowait(String),
    /// The row is being changed by the open transaction `holder`: the statement must be undone,
    /// wait for `holder` to end, and run again. Never reaches a user.
    #[error("Row of '{table}' is being changed by transaction {holder}.")]
    RowBusy {
        /// The table.
        table: String,
        /// The transaction that holds the row.
        holder: u64,
    },
    /// The row changed after the statement read it (its changer committed): the statement must
    /// be undone and run again on fresh data. Never reaches a user.
    #[error("Row of '{0}' changed after it was read.")]
    RowChanged(String),
    /// A value does not fit its column's type.
    #[error("Value for column '{column}' does not fit its type: {reason}")]
    BadValue {
        /// The column.
        column: String,
        /// Why.
        reason: String,
    },
    /// Reading or writing the database folder failed (9914). After a failed log write the
    /// database accepts no more commits.
    #[error("Database I/O error: {0}")]
    Io(String),
    /// Another process has the database open (9915).
    #[error(
        "The database in '{0}' is open in another process; only one process can open it at a time."
    )]
    Locked(String),
    /// A database file is damaged (9916); nothing of it was used.
    #[error("Database file '{file}' is damaged: {detail}. Nothing of it was read as data.")]
    Corrupt {
        /// The damaged file.
        file: String,
        /// What is wrong.
        detail: String,
    },
    /// `ACKNOWLEDGE`/`RELEASE` of a lease that is not there: it ended (its rows went back to
    /// the queue) or never was (9922).
    #[error("Lease {lease} of '{table}' has ended or does not exist; its rows may have gone to another consumer.")]
    LeaseEnded {
        /// The queue.
        table: String,
        /// The lease number.
        lease: u64,
    },
    /// A consume with `LEASE` took rows this transaction inserted and has not committed (9923).
    #[error("A LEASE cannot take rows of '{0}' that this transaction inserted and has not committed; commit them first.")]
    LeaseOwnRows(String),
    /// An INSERT into a queue with subscribers that has none (9924): no one would ever
    /// consume the row.
    #[error("Queue '{0}' has no subscribers: a row inserted now would reach no one (CREATE SUBSCRIBER name ON the queue first).")]
    NoSubscribers(String),
    /// The transaction has already ended.
    #[error("The transaction has already ended.")]
    TransactionEnded,
    /// A wait for a lock was stopped by the request's cancel or statement timeout (see
    /// [`crate::locks::set_wait_stop`]); `exec` turns it into its own cancel or timeout error.
    #[error("The request was stopped while it waited for a lock on '{1}'.")]
    Interrupted(crate::locks::Interruption, String),
}
