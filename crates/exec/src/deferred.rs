//! Subqueries bound without running them: a block bound before its read
//! (`Exec::bind_before_read`, query.rs) binds each uncorrelated scalar subquery and
//! `[NOT] EXISTS` for its columns alone (`Exec::shape_of`, which reads no row), and puts a
//! one-row *placeholder* array of the subquery's type where its value goes. Once every clause
//! of the block is bound, the subqueries run ([`Deferral::run`]) and their values replace
//! the placeholders (`EarlyBound::put`, early.rs), before the block plans its read. So the
//! binder runs no query for them, and a name or type error anywhere in the block comes
//! before a subquery's run-time error (Teradata resolves a whole request before it runs it).
//!
//! A subquery that names a column of the block is correlated and runs per row of the block:
//! binding it before the read fails, and the deferral notes that the block needs its rows
//! ([`Deferral::needs_rows`], set by `Exec::correlated`); the block is then bound over its
//! rows instead (`read_then_bind`). An IN or quantified subquery is still run where it binds.
//!
//! Invariant: a placeholder array is made here and nowhere else, is a fresh allocation (an
//! `Arc` no other expression shares), and is never evaluated for a row: before
//! `EarlyBound::put` the block's expressions are evaluated only over no row, for their
//! types (`EarlySource::check_types`). The one expression that keeps placeholders after it
//! is a CTE's WHERE, which is bound early for its types alone and bound again (its
//! subqueries run there) where the CTE's rows are filtered: its inputs are dropped from the
//! deferral (`Deferral::truncate`). EXPLAIN binds no block with a subquery this way.

use crate::error::{Error, Result};
use crate::result::Rows;
use crate::slots::Slot;
use arrow::array::{Array, ArrayRef, BooleanArray};
use sqlparser::ast;
use std::sync::Arc;

/// What a deferred subquery gives.
#[derive(Clone, Copy)]
pub(crate) enum Kind {
    /// `(SELECT …)`: its one value, NULL for no row (3669 for two).
    Scalar,
    /// `EXISTS (…)`, or `NOT EXISTS` (true).
    Exists(bool),
}

/// One subquery bound for its columns alone, and the placeholder where its value goes.
struct Input {
    placeholder: ArrayRef,
    query: Box<ast::Query>,
    kind: Kind,
}

/// The subqueries a block being bound before its read deferred, in the order bound.
#[derive(Default)]
pub(crate) struct Deferral {
    inputs: Vec<Input>,
    /// A correlated subquery was met: the block binds over its rows instead.
    pub(crate) needs_rows: bool,
}

/// The values of a block's deferred subqueries: each placeholder (as a slot of the
/// subquery) and its value, in the same order (what a kept plan's inputs pair, inputs.rs).
pub(crate) type InputValues = (Vec<(ArrayRef, Slot)>, Vec<ArrayRef>);

impl Deferral {
    /// How many subqueries were deferred so far.
    pub(crate) fn len(&self) -> usize {
        self.inputs.len()
    }

    /// Forgets the subqueries deferred after the first `n` (bound again where they run).
    pub(crate) fn truncate(&mut self, n: usize) {
        self.inputs.truncate(n);
    }

    /// Whether nothing was deferred.
    pub(crate) fn is_empty(&self) -> bool {
        self.inputs.is_empty()
    }

    /// Defers subquery `q` of `kind`, whose columns `shape` gives (its run over no rows):
    /// the placeholder for its value.
    ///
    /// # Errors
    /// A scalar subquery's select list of more than one item.
    pub(crate) fn defer(&mut self, q: &ast::Query, kind: Kind, shape: &Rows) -> Result<ArrayRef> {
        let placeholder: ArrayRef = match kind {
            // (over no row: NULL of its type, made afresh)
            Kind::Scalar => {
                let typed = crate::bind::scalar_of(shape)?;
                arrow::array::new_null_array(typed.data_type(), 1)
            }
            Kind::Exists(_) => Arc::new(BooleanArray::from(vec![None::<bool>])),
        };
        self.inputs.push(Input {
            placeholder: placeholder.clone(),
            query: Box::new(q.clone()),
            kind,
        });
        Ok(placeholder)
    }

    /// Runs the deferred subqueries through `value` (a scalar one's value, or whether an
    /// EXISTS's subquery gives a row), in the order they were bound: each one's placeholder
    /// (as a slot of its subquery) and value. `None` where a value's type is not its
    /// placeholder's (the caller binds the block again with its subqueries run in place).
    ///
    /// # Errors
    /// The subqueries' run-time errors (3669 for a scalar one of two rows, 2618, …).
    pub(crate) fn run(
        self,
        mut value: impl FnMut(&ast::Query, Kind) -> Result<ArrayRef>,
    ) -> Result<Option<InputValues>> {
        let mut slots = Vec::with_capacity(self.inputs.len());
        let mut values = Vec::with_capacity(self.inputs.len());
        for input in self.inputs {
            let v = value(&input.query, input.kind)?;
            if v.data_type() != input.placeholder.data_type() || v.len() != 1 {
                return Ok(None);
            }
            slots.push((input.placeholder, Slot::Subquery(input.query)));
            values.push(v);
        }
        Ok(Some((slots, values)))
    }
}

/// `[NOT] EXISTS`'s value (`negated` for NOT) where its subquery gives rows (`any`).
pub(crate) fn exists_value(any: bool, negated: bool) -> ArrayRef {
    Arc::new(BooleanArray::from(vec![any != negated]))
}

/// An internal error for a placeholder left in a bound block that cannot take its value.
pub(crate) fn left_in(what: &str) -> Error {
    Error::Internal(format!("a deferred subquery's value left out of {what}"))
}
