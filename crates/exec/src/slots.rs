//! What the binder records while it binds a block for a prepared request's plan cache
//! (plan_cache.rs): each *slot*, a one-row array it made from a `?` parameter, from an
//! uncorrelated scalar subquery's or EXISTS's result or from an enclosing query's row (a
//! correlated subquery's outer column), or the placeholder item of an uncorrelated IN
//! subquery's list (a row value IN's placeholder set), with where the slot's value comes
//! from at each execution; how many queries binding ran; and whether it read anything else
//! that changes between executions. It lives in the binding layer, beside the binder that
//! fills it; the plan cache, a layer up, decides from it whether a bound block may be kept.
//!
//! Invariant: a recording is filled only while a block is bound for the cache: slots through
//! `Exec::note_slot`, a read that changes between executions through `Exec::note_volatile`,
//! and each query run through the count in `Exec::isolated` (query.rs); each does nothing
//! when no recording is open.

use arrow::array::ArrayRef;
use sqlparser::ast;

/// Where a slot's value comes from at each execution.
#[derive(Debug, Clone)]
pub(crate) enum Slot {
    /// The request's parameter of this name (`?3`).
    Param(String),
    /// An uncorrelated scalar subquery, run once per execution (per run of the block: once
    /// per row where the block is a correlated subquery's).
    Subquery(Box<ast::Query>),
    /// An uncorrelated `EXISTS` (`NOT EXISTS`: true), run once per execution (run): whether its
    /// subquery gives a row (a block binds it for its columns and runs it once it is bound,
    /// deferred.rs).
    Exists(Box<ast::Query>, bool),
    /// An uncorrelated `x [NOT] IN (SELECT …)`'s values, run once per execution (run): its slot
    /// array is the one placeholder item of the IN list, which each run makes the list of
    /// its values (deferred.rs; inputs.rs `Inputs::put`). Binding does not run it.
    Set(Box<ast::Query>),
    /// An uncorrelated `(x, y) [NOT] IN (SELECT …)`'s rows, run once per execution (run):
    /// its slot array is the placeholder set of the `Expr::InRows`, which each run replaces
    /// with its rows (deferred.rs `rows_of`; inputs.rs `Inputs::put`). Binding does not run
    /// it.
    Rows(Box<ast::Query>),
    /// A column of an enclosing query's current row, as a correlated subquery names it
    /// (qualifier, name), and whether it is CASESPECIFIC (the bound expression compares it
    /// so): read again at each run from the row it runs for (`Exec::outer_value`), so the
    /// subquery's block is bound once for all the rows.
    Outer(Option<String>, String, bool),
}

/// What the binder noted while binding one block for the cache.
#[derive(Default)]
pub(crate) struct Recording {
    /// Each slot's one-row array as the binder made it, and where its values come from.
    pub slots: Vec<(ArrayRef, Slot)>,
    /// How many queries binding ran (each scalar subquery and EXISTS is one).
    pub queries: usize,
    /// Binding read a value of the request or session (an enclosing query's row is a slot,
    /// `Slot::Outer`).
    pub volatile: bool,
}

impl Slot {
    /// Whether its value is many values that each run puts in ([`Slot::Set`],
    /// [`Slot::Rows`]): binding leaves its placeholder in place and runs nothing for it.
    pub fn many(&self) -> bool {
        matches!(self, Slot::Set(_) | Slot::Rows(_))
    }
}

impl Recording {
    /// True if binding read a column of an enclosing query's row (a slot of it).
    pub fn reads_outer_rows(&self) -> bool {
        (self.slots.iter()).any(|(_, s)| matches!(s, Slot::Outer(..)))
    }

    /// True if every query binding ran was a recorded scalar subquery or EXISTS (an IN
    /// slot's, one value's or a row's, is not run by binding) and it read nothing else that
    /// changes between executions.
    pub fn only_slots(&self) -> bool {
        let subqueries = self
            .slots
            .iter()
            .filter(|(_, s)| matches!(s, Slot::Subquery(_) | Slot::Exists(..)))
            .count();
        !self.volatile && self.queries == subqueries
    }
}
