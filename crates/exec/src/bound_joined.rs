//! A joined UPDATE or DELETE bound once and run many times: the form a prepared request
//! keeps in its plan cache (plan_cache.rs) for Teradata's `UPDATE t FROM s SET … WHERE …`
//! and `DELETE t FROM t, s WHERE …` of its own, so that one run in a loop is not bound and
//! planned at every execution. dml.rs binds it (`Exec::bind_joined_dml`) and runs it
//! (`Exec::kept_joined`).
//!
//! What is kept: the FROM with the target first (target_from.rs), the join of its relations
//! under WHERE as a [`BoundJoin`] whose target is a `KeptRel::Target` (read at its step with
//! its row ids, as the general path reads it), the target's columns read, and an UPDATE's
//! SET values bound over the joined rows. Each run puts this execution's `?` values in, runs
//! the join as the general path runs it (`Exec::run_from`: the order and access paths planned
//! again from the tables' sizes and the values) and ends as the general path ends
//! (dml.rs `finish_joined`, then `Exec::apply_assignments` or the deletes).
//!
//! Invariants:
//! - A run gives what the general path gives for the statement with the same inputs: the
//!   same joined rows, the same changes in the same order, the same errors. So a statement
//!   is kept only when its binding depends on nothing a run may change: no subquery in
//!   WHERE or a SET value (the general path defers their runs, deferred_run.rs), no value
//!   of the request or session (CURRENT_TIMESTAMP, …), no slot but `?` parameters, no
//!   conjunct set aside for the joined rows, no relation but base tables (no view, derived
//!   table or rows read while binding), no outer join beside a comma (the general path
//!   joins that FROM another way). Anything else is refused and runs the general path
//!   every time.
//! - A run whose parameters have other types than at binding, or whose target is no longer
//!   the table bound, is not run from the plan: the statement is bound again with that
//!   run's inputs, and that plan replaces it (or, not kept, the general path runs). A
//!   source table dropped or made again changes the catalog's version, which empties the
//!   cache first.
//! - Each SET value's types are checked over no joined row when it is bound, as the general
//!   path checks them before evaluating any; a value that fails is not kept (the general
//!   path raises its error, in its order).

use crate::bind::Scope;
use crate::bound_join::BoundJoin;
use crate::bound_select::{KeptSlots, KeptStatement};
use crate::expr::Expr;
use crate::plan_cache::Plan;
use sqlparser::ast;
use std::sync::{Arc, Weak};
use tdlite_storage::table::Table;

/// A bound joined UPDATE or DELETE (see the module doc).
pub(crate) struct KeptJoined {
    /// The target (weak: a kept plan never keeps a dropped table's rows alive).
    pub table: Weak<Table>,
    /// The FROM, the target's entry first.
    pub from: Vec<ast::TableWithJoins>,
    /// The target's columns the statement reads (`None`: all).
    pub keep: Option<Vec<bool>>,
    /// The joined rows' scope (the target's columns, its row id, the other relations').
    pub scope: Arc<Scope>,
    /// The relations joined under WHERE.
    pub join: BoundJoin,
    /// An UPDATE's SET values, in order (`None` for `DEFAULT`); none for a DELETE.
    pub sets: Vec<Option<Expr>>,
    /// The `?` parameters bound into `join` and `sets`.
    pub slots: KeptSlots,
}

impl KeptStatement for KeptJoined {
    fn of(plan: Plan) -> Option<Arc<Self>> {
        match plan {
            Plan::Joined(k) => Some(k),
            _ => None,
        }
    }

    fn plan(kept: Arc<Self>) -> Plan {
        Plan::Joined(kept)
    }

    fn slots(&self) -> &KeptSlots {
        &self.slots
    }
}
