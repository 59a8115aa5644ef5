//! Deferred subqueries run: a block's, once the block is bound (query.rs
//! `Exec::bind_before_read`), and a data change's, once its expressions are bound
//! ([`Exec::bind_deferring`]: an UPDATE's or DELETE's WHERE, an UPDATE's SET value).
//!
//! Both bind with a [`Deferral`] (deferred.rs): each uncorrelated subquery is bound for its
//! columns alone, a placeholder where its value goes, and runs only once every name and
//! operand type is resolved; its value then replaces the placeholder. So a wrong name or a
//! type error comes before a subquery's run-time error, as Teradata resolves a request
//! before it runs it, and the binder runs no subquery for its values (each is run over no
//! rows for its columns, `Exec::shape_of`; a quantified comparison other than `= ANY` and
//! `<> ALL` runs here even for a prepared request's plan, which then is not kept).
//!
//! Not covered yet: UPDATE … FROM's and MERGE's conditions (bound over the joined rows),
//! and a kept WHERE's run (bound_select.rs `cached_expr`), which runs its slots' subqueries
//! before the SET values bind (each was resolved at the first run).
//!
//! Bound for a prepared request's plan (a recording, slots.rs), an IN's or a row value IN's
//! subquery is not run here: its placeholder stays, a slot whose values each run of the plan
//! puts in (inputs.rs); a scalar subquery's and an EXISTS's value are noted as slots too.

use crate::bind::Scope;
use crate::deferred::{Deferral, Kind, Nodes, Values};
use crate::error::{Error, Result};
use crate::exec::Exec;
use crate::expr::Expr;
use crate::slots::Slot;
use arrow::datatypes::SchemaRef;
use sqlparser::ast;

impl Exec<'_> {
    /// Runs `deferral`'s subqueries, bound in `nodes`, in the order bound: a scalar one's
    /// value, an EXISTS's, an IN's values, a row value IN's rows; for a prepared request's
    /// plan, an IN's and a row value IN's placeholder itself, noted as a slot. `None` where a
    /// value's type differs from its placeholder's (the caller binds again, its subqueries
    /// run where they bind).
    ///
    /// # Errors
    /// The subqueries' run-time errors.
    pub(crate) fn run_deferral(
        &mut self,
        deferral: Deferral,
        nodes: Nodes<'_>,
    ) -> Result<Option<Values>> {
        deferral.run(nodes, |q, kind, placeholder| match kind {
            Kind::Scalar => self.scalar_subquery(q),
            Kind::Exists(negated) => {
                let any = self.run_query(q)?.num_rows() > 0;
                let value = crate::deferred::exists_value(any, negated);
                self.note_slot(&value, || Slot::Exists(Box::new(q.clone()), negated));
                Ok(value)
            }
            // (bound for a prepared request's plan: a slot, its placeholder left for each run
            // to put its values in; not run here)
            Kind::Set(_) if self.recording.get_mut().is_some() => {
                self.note_slot(placeholder, || Slot::Set(Box::new(q.clone())));
                Ok(placeholder.clone())
            }
            Kind::Set(_) | Kind::Quantified(..) => crate::deferred::column_of(&self.run_query(q)?),
            // (the same for a row value's IN: a slot, its rows put in at each run)
            Kind::Rows if self.recording.get_mut().is_some() => {
                self.note_slot(placeholder, || Slot::Rows(Box::new(q.clone())));
                Ok(placeholder.clone())
            }
            Kind::Rows => {
                let width = crate::deferred::set_width(placeholder);
                crate::deferred::rows_of(&self.run_query(q)?, width)
            }
        })
    }

    /// `bind` run with a deferral open (deferred.rs; in a run for the columns alone, one
    /// that runs the subqueries where they bind): what it bound and the deferral, with the
    /// subqueries it deferred. `None` where it met a correlated subquery (bound to a NULL
    /// placeholder): the caller binds over the rows instead. Its names are resolved first,
    /// so a wrong one is its error here, before any row is read (not another error, which
    /// the placeholder's type may have caused; not in a run for the columns alone, where
    /// the subquery's own 3810 stopped the binding).
    ///
    /// # Errors
    /// `bind`'s errors.
    pub(crate) fn with_deferral<T>(
        &mut self,
        bind: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<Option<(T, Deferral)>> {
        let saved = self.deferral.replace(Deferral::new(self.shaping()));
        let bound = bind(self);
        let deferral = std::mem::replace(&mut self.deferral, saved).unwrap_or_default();
        if deferral.needs_rows() {
            return match bound {
                Err(e @ (Error::ColumnNotFound(_) | Error::AmbiguousColumn(_)))
                    if deferral.defers() =>
                {
                    Err(e)
                }
                _ => Ok(None),
            };
        }
        Ok(Some((bound?, deferral)))
    }

    /// `exprs` (a data change's: an UPDATE's or DELETE's WHERE, an UPDATE's SET value) bound
    /// over `scope`, each type-checked over no row of `schema` (the rows it is evaluated on),
    /// their uncorrelated subqueries run only after that, their values put in. `None` where a
    /// correlated subquery needs the rows (names resolved first: a wrong one is its 3810
    /// here, before any subquery runs): the caller binds over the rows.
    ///
    /// Where a subquery is to run (here, or per row for a correlated one), `also` (the
    /// statement's expressions bound later: an UPDATE's SET values after its WHERE, the SET
    /// values after a SET value) are bound first too, for their errors alone (what they bind
    /// is dropped; they are bound again where they are used, and put no slot in a prepared
    /// request's recording, though their subqueries' columns are kept in its plan cache as
    /// any shape is): so a wrong name in a SET value comes before the WHERE's subquery's
    /// run-time error, as Teradata resolves the whole request first.
    ///
    /// # Errors
    /// Binding errors (3810, 3822, …), type errors, the subqueries' run-time errors.
    pub(crate) fn bind_deferring(
        &mut self,
        exprs: &[&ast::Expr],
        also: &[&ast::Expr],
        scope: &Scope,
        schema: &SchemaRef,
    ) -> Result<Option<Vec<Expr>>> {
        let bind_all = |ex: &mut Self| -> Result<Vec<Expr>> {
            exprs
                .iter()
                .map(|e| {
                    let bound = ex.bind_expr(e, scope, None)?;
                    bound.check_types(schema)?;
                    Ok(bound)
                })
                .collect()
        };
        if !exprs.iter().any(|e| crate::correlate::has_subquery(e)) {
            return bind_all(self).map(Some);
        }
        let bound = self.with_deferral(|ex| {
            let bound = bind_all(ex)?;
            if ex
                .deferral
                .as_ref()
                .is_some_and(|d| d.needs_rows() || !d.is_empty())
            {
                ex.resolve_only(also, scope, schema)?;
            }
            Ok(bound)
        })?;
        let Some((bound, deferral)) = bound else {
            return Ok(None);
        };
        if deferral.is_empty() {
            return Ok(Some(bound));
        }
        match self.run_deferral(deferral, Nodes::Exprs(exprs))? {
            Some(values) => bound
                .iter()
                .map(|e| values.put(e))
                .collect::<Result<_>>()
                .map(Some),
            // (not met: a value typed otherwise than its columns were; bound again, its
            // subqueries run where they bind, a recording started afresh)
            None => {
                if let Some(r) = self.recording.get_mut().as_mut() {
                    *r = crate::slots::Recording::default();
                }
                bind_all(self).map(Some)
            }
        }
    }

    /// `exprs` bound over `scope` and type-checked over no row of `schema` for their errors
    /// alone, in the deferral open now: what they bind is dropped, what they deferred or
    /// noted is forgotten (a correlated subquery's binding error other than a wrong name is
    /// left for their binding over the rows), and no recording sees them.
    fn resolve_only(
        &mut self,
        exprs: &[&ast::Expr],
        scope: &Scope,
        schema: &SchemaRef,
    ) -> Result<()> {
        let mark = self.deferral.as_ref().map(Deferral::mark);
        let recording = self.recording.get_mut().take();
        let result = exprs.iter().try_for_each(|e| {
            let bound = self.bind_expr(e, scope, None)?;
            bound.check_types(schema)
        });
        *self.recording.get_mut() = recording;
        let (Some(d), Some(mark)) = (self.deferral.as_mut(), mark) else {
            return result;
        };
        let correlated = d.correlated_since(mark);
        d.back_to(mark);
        match result {
            Err(e @ (Error::ColumnNotFound(_) | Error::AmbiguousColumn(_))) => Err(e),
            Err(_) if correlated => Ok(()),
            result => result,
        }
    }
}
