//! A kept plan's inputs at one run, and a condition as a read takes it.
//!
//! A prepared request's kept plan (bound_select.rs) holds its bound expressions with a
//! *slot* array where each `?` parameter, uncorrelated scalar subquery and EXISTS was, an
//! IN list of one slot item where an uncorrelated IN subquery's values go, and a slot set
//! where a row value IN's rows go (slots.rs).
//! [`Inputs`] pairs those arrays with one run's values. [`RunCond`] is a WHERE condition at
//! one run: its sargable conditions come from the plan's [`CondTemplate`] read through the
//! inputs, and the expression with the values put in is made only where a row is tested
//! against it: a read whose index ranges are the whole condition never makes it.
//!
//! Invariant: what a `RunCond` gives (its sargable conditions, its expression) is what the
//! bound condition with this run's values put in gives: the template is made from that
//! condition, and a run's values have their slots' types (bound_select.rs checks it); a
//! condition holding an IN slot has no template (its values are many), so its sargable
//! conditions are read from the condition with the values put in.

use crate::expr::Expr;
use crate::plan::{whole_preds, CondTemplate, Preds};
use crate::slots::Slot;
use arrow::array::ArrayRef;
use std::borrow::Cow;
use std::cell::OnceCell;
use std::sync::Arc;
use tdlite_storage::catalog::TableSchema;

/// Slot arrays and one run's value for each (none: the expressions hold their values).
#[derive(Clone, Copy)]
pub(crate) struct Inputs<'a> {
    slots: &'a [(ArrayRef, Slot)],
    values: &'a [ArrayRef],
}

impl<'a> Inputs<'a> {
    /// No inputs: expressions are used as they are.
    pub(crate) const NONE: Inputs<'static> = Inputs {
        slots: &[],
        values: &[],
    };

    /// `values[i]` for the array of `slots[i]`; with no values, the expressions as they are.
    pub(crate) fn new(slots: &'a [(ArrayRef, Slot)], values: &'a [ArrayRef]) -> Self {
        Inputs { slots, values }
    }

    /// Whether there is nothing to put in.
    pub(crate) fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The run's value of slot array `a`, or `a` itself when it is not a slot's.
    pub(crate) fn value<'b>(&'b self, a: &'b ArrayRef) -> &'b ArrayRef {
        match self.position(a) {
            Some(i) => &self.values[i],
            None => a,
        }
    }

    fn position(&self, a: &ArrayRef) -> Option<usize> {
        if self.values.is_empty() {
            return None;
        }
        self.slots.iter().position(|(t, _)| Arc::ptr_eq(t, a))
    }

    /// `e` with each slot's array replaced by this run's value; an IN list that is an IN
    /// slot's placeholder item made the list of this run's values (a row value IN's
    /// placeholder set, its rows); an IN list whose items hold no slot kept as it is, with
    /// its hashed set (in_set.rs `Memo`).
    pub(crate) fn put(&self, e: &Expr) -> Expr {
        if self.values.is_empty() {
            return e.clone();
        }
        e.rebuild(&mut |x| match x {
            Expr::Literal(a) => self
                .position(a)
                .map(|i| Expr::Literal(self.values[i].clone())),
            Expr::InRows(row, set, negated, _) => {
                let i = self.position(set)?;
                let row = row.iter().map(|x| self.put(x)).collect();
                Some(Expr::InRows(
                    row,
                    self.values[i].clone(),
                    *negated,
                    Default::default(),
                ))
            }
            Expr::InList(operand, items, negated) => {
                let slot = crate::deferred::set_item(items).and_then(|a| self.position(a));
                let Some(i) = slot else {
                    let mut holds = false;
                    items.iter().for_each(|x| {
                        x.visit_literals(&mut |a| holds |= self.position(a).is_some())
                    });
                    // (the same items: the clone shares their memo)
                    let operand = || Box::new(self.put(operand));
                    return (!holds).then(|| Expr::InList(operand(), items.clone(), *negated));
                };
                if !matches!(self.slots[i].1, Slot::Set(_)) {
                    return None; // (`x IN (?)`: a parameter's item)
                }
                let cs = matches!(&items[..], [Expr::CaseSpecific(_)]);
                let operand = self.put(operand);
                Some(crate::deferred::in_list_of(
                    operand,
                    &self.values[i],
                    cs,
                    *negated,
                ))
            }
            _ => None,
        })
    }
}

/// A WHERE condition at one run (see the module doc).
pub(crate) struct RunCond<'a> {
    /// As bound: slot arrays where the inputs' values go.
    bound: &'a Expr,
    inputs: Inputs<'a>,
    template: Option<&'a CondTemplate>,
    /// The condition with the values put in, once something evaluates it.
    made: OnceCell<Expr>,
}

impl<'a> RunCond<'a> {
    /// A condition with no inputs and no template: its sargable conditions are read from it
    /// at each use.
    pub(crate) fn plain(cond: &'a Expr) -> Self {
        Self::new(cond, Inputs::NONE, None)
    }

    /// `bound` with `inputs` put in; `template` is `bound`'s, if the plan keeps one.
    pub(crate) fn new(
        bound: &'a Expr,
        inputs: Inputs<'a>,
        template: Option<&'a CondTemplate>,
    ) -> Self {
        RunCond {
            bound,
            inputs,
            template,
            made: OnceCell::new(),
        }
    }

    /// This run's values of the plan's slots (none: the condition is used as it is bound).
    pub(crate) fn values(&self) -> &'a [ArrayRef] {
        self.inputs.values
    }

    /// The condition as bound (the same columns as [`RunCond::expr`]'s, other values).
    pub(crate) fn bound(&self) -> &Expr {
        self.bound
    }

    /// The condition with this run's values, made at the first call.
    pub(crate) fn expr(&self) -> &Expr {
        match self.inputs.is_empty() {
            true => self.bound,
            false => self.made.get_or_init(|| self.inputs.put(self.bound)),
        }
    }

    /// [`whole_preds`] of [`RunCond::expr`], from the template without making it where
    /// there is one.
    pub(crate) fn preds(&self, schema: &TableSchema) -> Cow<'_, (Preds, bool)> {
        match self.template {
            Some(t) => t.preds(schema, &|a| self.inputs.value(a).clone()),
            None => Cow::Owned(whole_preds(self.expr(), schema)),
        }
    }
}
