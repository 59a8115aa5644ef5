//! The per-statement execution context: the open transaction, the statement's snapshot, the
//! request's fixed CURRENT_TIMESTAMP, the user, the session's default database, the request's
//! parameter values, and binding state (CTEs in scope, correlation, window calls). Binding,
//! queries, DML and DDL are `impl Exec` blocks in their own modules; a table's reads take
//! only the snapshot (`Exec::reader`, access.rs).
//!
//! Invariant: every scan of one statement reads the same snapshot (taken at its first scan),
//! so a statement sees one committed state, plus its transaction's own changes.

use crate::shared::Shared;
use std::sync::Arc;
use tdlite_storage::Transaction;

/// Everything a statement needs while it runs.
pub struct Exec<'a> {
    /// The transaction the statement runs in.
    pub txn: &'a mut Transaction,
    /// The database's shared state.
    pub shared: &'a Arc<Shared>,
    /// CURRENT_TIMESTAMP of the request, µs since the epoch, once read ([`Exec::now_us`]).
    pub(crate) clock: &'a std::cell::OnceCell<i64>,
    /// The session's user name.
    pub user: &'a str,
    /// The session's number (`SELECT SESSION`).
    pub session: u64,
    /// The session's default database (`DATABASE x`): unqualified table names are in it.
    pub database: Option<&'a str>,
    /// Rows of enclosing queries a correlated subquery runs for (see `correlate`).
    pub(crate) outer: Vec<crate::correlate::OuterRow>,
    /// The scopes of enclosing query blocks whose current row is not on `outer` (a subquery
    /// of theirs bound on its own first), each with how many rows `outer` had then: a name
    /// such a block has is its row's, not a farther row's (see correlate.rs).
    pub(crate) nearer: Vec<(std::sync::Arc<crate::bind::Scope>, usize)>,
    /// The batch a clause is being bound over, if correlated subqueries may use it.
    pub(crate) corr: Option<crate::correlate::Correlation>,
    /// While a grouped query's clauses are bound: its FROM rows, over which a correlated
    /// subquery in an aggregate's argument runs per row (see correlate.rs).
    pub(crate) agg_input: Option<crate::correlate::Correlation>,
    /// While a grouped query's clauses are bound before its groups exist: how many correlated
    /// subqueries were bound as placeholders (see clauses.rs); `None` elsewhere.
    pub(crate) placeholders: Option<usize>,
    /// While a block is bound before its read: the uncorrelated subqueries it bound for
    /// their columns alone, to run once it is bound (see deferred.rs); `None` elsewhere.
    pub(crate) deferral: Option<crate::deferred::Deferral>,
    /// Window calls of the select list, QUALIFY and ORDER BY being bound; `None` where window
    /// functions are not allowed.
    pub(crate) windows: Option<Vec<crate::window::WindowCall>>,
    /// How many RANDOM calls and SAMPLE clauses were bound so far: a correlated subquery
    /// that binds one is run for every outer row, never memoised (see correlate.rs).
    pub(crate) random_uses: usize,
    /// Whether correlated subqueries may run once as a join, and the session's count of those
    /// that did (see decorrelate.rs).
    pub(crate) decorrelation: (bool, &'a std::cell::Cell<u64>),
    /// How many views are being expanded inside each other now.
    pub(crate) view_depth: usize,
    /// Whether the query of the view being expanded now stays at its address while a
    /// prepared request's plans may name it (`Exec::view_rows_of`): its blocks may then be
    /// kept in the plan cache.
    pub(crate) view_kept: bool,
    /// How many queries made for this run alone are running now (a derived table's query
    /// with conditions pushed in, join.rs `Exec::run_made_now`; a WITH's body, or a CTE's
    /// query with another put into it, rewritten at this run, cte.rs `Exec::run_with`):
    /// their blocks are not kept in a prepared request's plan cache.
    pub(crate) made_now: usize,
    /// Whether a FROM's views are read while binding it (as derived tables are), not bound
    /// from their recorded columns: set while a join is bound again because a view's types
    /// changed (join.rs `joined_source`).
    pub(crate) views_read_early: bool,
    /// Common table expressions in scope (`WITH`), innermost last.
    pub(crate) ctes: Vec<(String, crate::result::Rows)>,
    /// The values of the request's `?` parameters (see prepared.rs), in order.
    pub(crate) params: &'a [tdlite_storage::types::Value],
    /// Parameter sets that an `INSERT … VALUES (?1, …, ?k)` inserts a row each of
    /// (`Session::execute_batch`); empty for any other request.
    pub(crate) param_rows: &'a [Vec<tdlite_storage::types::Value>],
    /// The session's query bands as `GetQueryBand()` returns them.
    pub(crate) query_band: &'a str,
    /// How many lookups found one of the session's volatile tables (CREATE VIEW refuses a
    /// query that uses one).
    pub(crate) volatile_uses: std::cell::Cell<usize>,
    /// The prepared request's plan cache while one runs (see plan_cache.rs).
    pub(crate) plans: Option<&'a crate::plan_cache::PlanCache>,
    /// `plans` serves only blocks run for an enclosing query's rows (a correlated
    /// subquery's runs): the first run of a request run as text, which keeps no plan of its
    /// own blocks, keeps those, run once per row.
    pub(crate) plans_for_rows_only: bool,
    /// While a block is bound for the plan cache: what the binder noted (see slots.rs).
    pub(crate) recording: std::cell::RefCell<Option<crate::slots::Recording>>,
    /// The statement's snapshot, taken at its first scan.
    pub(crate) snap: std::cell::OnceCell<tdlite_storage::mvcc::Snapshot>,
    /// While the general path reads a SELECT block's FROM clause: the column names the block
    /// may read (`names::names_read`); a base table read then copies only those columns.
    /// `None`: every column (any other read, and every nested query until it sets its own).
    pub(crate) names_read: Option<std::collections::HashSet<String>>,
    /// While a block with a SAMPLE clause binds its clauses: `SAMPLEID` names the sample's
    /// number (see sample.rs).
    pub(crate) sample_ids: bool,
    /// The warning the statement ends with, if any (Teradata's 7473 for a SAMPLE that asked
    /// for more rows than there were).
    pub(crate) warning: Option<crate::result::Warning>,
    /// The session is in ANSI mode: assignments that would cut non-blank characters fail
    /// (3996), INSERT … SELECT of duplicate rows into a SET table fails (2802).
    pub(crate) ansi: bool,
}

impl Exec<'_> {
    /// CURRENT_TIMESTAMP of the request, µs since the epoch: read from the database's clock
    /// when the request first needs it (a request that never does, a consume, reads no
    /// clock), the same for the rest of the request.
    pub fn now_us(&self) -> i64 {
        *self.clock.get_or_init(|| self.shared.request_timestamp())
    }

    /// Notes, while a block is bound for the plan cache, that binding read a value that
    /// changes between executions (the block is then not kept).
    pub(crate) fn note_volatile(&self) {
        if let Some(r) = self.recording.borrow_mut().as_mut() {
            r.volatile = true;
        }
    }

    /// Notes, while a block is bound for the plan cache, a slot: a one-row array the binder
    /// made from a parameter, a scalar subquery, an EXISTS or an enclosing row's column, or
    /// an IN's placeholder (slots.rs).
    pub(crate) fn note_slot(
        &self,
        array: &arrow::array::ArrayRef,
        slot: impl FnOnce() -> crate::slots::Slot,
    ) {
        if let Some(r) = self.recording.borrow_mut().as_mut() {
            r.slots.push((array.clone(), slot()));
        }
    }

    /// What this statement reads: committed as of its first scan, plus its own changes.
    pub(crate) fn snapshot(&self) -> &tdlite_storage::mvcc::Snapshot {
        self.snap.get_or_init(|| self.txn.snapshot())
    }

    /// The statement's reads of its tables, as of its snapshot (access.rs; taken by the
    /// first read that needs it, as [`Exec::snapshot`] takes it).
    pub(crate) fn reader(&self) -> crate::access::Reader<'_> {
        crate::access::Reader::new(&self.snap, self.txn)
    }
}
