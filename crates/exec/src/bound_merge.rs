//! A MERGE statement bound once and run many times: the form a prepared request keeps in
//! its plan cache (plan_cache.rs) for a MERGE of its own, so that a one-row upsert run in a
//! loop (`MERGE INTO t USING (SELECT ? AS k, ? AS v) s ON t.k = s.k WHEN MATCHED THEN
//! UPDATE … WHEN NOT MATCHED THEN INSERT …`) is not bound and planned at every execution.
//! merge.rs binds it (`Exec::bind_merge`) and runs it (`Exec::kept_merge`).
//!
//! What is kept: the FROM the pairs are joined by (the source's entry, then the target's,
//! made once), the join of the source rows and the target under ON as a [`BoundJoin`] whose
//! source is rows each run gives (its number of rows planned, so one source row probes the
//! target's index), the target's columns read, and each WHEN clause's AND condition and
//! SET or VALUES expressions, bound. Each run reads the source (its own query, through the
//! cache as any query), puts this execution's `?` values in, runs the join and applies the
//! clauses as the general path does. A run with one source row and an ON that cannot fail
//! ([`KeptMerge::on`]) reads the target rows it pairs with directly instead of joining.
//!
//! Invariants:
//! - A run gives what the general path gives for the statement with the same inputs: the
//!   same pairs, the same clauses on them in the same order. So a MERGE is kept only when
//!   its binding depends on nothing a run may change: no subquery in ON or the clauses (a
//!   clause's subquery runs, in the general path, after the clauses before it changed the
//!   target), no value of the request or session (CURRENT_TIMESTAMP, …), no slot but `?`
//!   parameters, no conjunct set aside for the joined rows. Anything else is refused and
//!   runs the general path every time.
//! - A run with one source row reads the target rows whose pairing with it ON holds; with
//!   an ON that cannot raise an error, those are the join's pairs, whichever conjunct is
//!   tested first (an ON that can fail, `s.k = t.k + ?`, keeps the join and the order it
//!   tests conjuncts in: which rows raise an error is the general path's).
//! - A run whose source gives columns of other types than at binding (a `?` of another
//!   type in the source's query), or whose parameters have other types, or whose target
//!   is no longer the table bound, is not run from the plan: the MERGE is bound again with
//!   that run's inputs, and that plan replaces it (or, not kept, the general path runs).

use crate::bind::Scope;
use crate::bound_join::BoundJoin;
use crate::bound_select::{KeptSlots, KeptStatement};
use crate::expr::Expr;
use crate::inputs::Inputs;
use crate::plan_cache::Plan;
use arrow::datatypes::DataType;
use sqlparser::ast;
use std::sync::{Arc, Weak};
use tdlite_storage::table::Table;

/// A bound MERGE (see the module doc).
pub(crate) struct KeptMerge {
    /// The target (weak: a kept plan never keeps a dropped table's rows alive).
    pub table: Weak<Table>,
    /// The FROM the pairs are joined by: the source's entry, then the target's.
    pub from: Vec<ast::TableWithJoins>,
    /// The target's columns the statement reads (`None`: all).
    pub keep: Option<Vec<bool>>,
    /// The source rows' column types at binding, its positions' column last.
    pub source_types: Vec<DataType>,
    /// The pairs' scope (the target's columns, its row id, the source's) and the source's.
    pub scope: Scope,
    pub source_scope: Scope,
    /// The source rows and the target joined under ON.
    pub join: BoundJoin,
    /// ON bound over the pairs' scope, where it cannot raise an error (its comparisons'
    /// operands are columns and literals of one family, `expr_tree::cannot_fail`): a run
    /// with one source row reads the target rows it pairs with as a WHERE with that row's
    /// values put in (`merge::one_row_on`), not through the join.
    pub on: Option<Expr>,
    /// Each WHEN clause, in the order written.
    pub clauses: Vec<KeptClause>,
    /// The `?` parameters bound into `join` and `clauses`.
    pub slots: KeptSlots,
}

/// A WHEN clause, bound.
#[derive(Clone)]
pub(crate) struct KeptClause {
    /// Its AND condition.
    pub predicate: Option<Expr>,
    /// An UPDATE's SET values, or an INSERT's VALUES, in order; `None` for `DEFAULT`.
    pub values: Vec<Option<Expr>>,
}

impl KeptClause {
    /// The clause with this execution's values put in.
    pub(crate) fn with_inputs(&self, inputs: &Inputs<'_>) -> KeptClause {
        KeptClause {
            predicate: self.predicate.as_ref().map(|p| inputs.put(p)),
            values: (self.values.iter())
                .map(|v| v.as_ref().map(|e| inputs.put(e)))
                .collect(),
        }
    }

    /// Its bound expressions.
    pub(crate) fn exprs(&self) -> impl Iterator<Item = &Expr> {
        self.predicate.iter().chain(self.values.iter().flatten())
    }
}

impl KeptMerge {
    /// The source's column types as a run's rows give them.
    pub(crate) fn types_of(batch: &arrow::record_batch::RecordBatch) -> Vec<DataType> {
        (batch.schema().fields().iter())
            .map(|f| f.data_type().clone())
            .collect()
    }
}

impl KeptStatement for KeptMerge {
    fn of(plan: Plan) -> Option<Arc<Self>> {
        match plan {
            Plan::Merge(k) => Some(k),
            _ => None,
        }
    }

    fn plan(kept: Arc<Self>) -> Plan {
        Plan::Merge(kept)
    }

    fn slots(&self) -> &KeptSlots {
        &self.slots
    }
}
