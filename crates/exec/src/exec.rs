//! The per-request execution context: the open transaction, the request's fixed
//! CURRENT_TIMESTAMP, and the user. Binding, queries, DML and DDL are `impl Exec` blocks in
//! their own modules.

use crate::database::Shared;
use std::sync::Arc;
use tdlite_storage::Transaction;

/// Everything a statement needs while it runs.
pub struct Exec<'a> {
    /// The transaction the statement runs in.
    pub txn: &'a mut Transaction,
    /// The database's shared state.
    pub shared: &'a Arc<Shared>,
    /// CURRENT_TIMESTAMP of the request, µs since the epoch (fixed per request).
    pub now_us: i64,
    /// The session's user name.
    pub user: &'a str,
    /// Rows of enclosing queries a correlated subquery runs for (see `correlate`).
    pub(crate) outer: Vec<crate::correlate::OuterRow>,
    /// The batch a clause is being bound over, if correlated subqueries may use it.
    pub(crate) corr: Option<crate::correlate::Correlation>,
}
