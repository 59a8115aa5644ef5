//! A SELECT block bound before its FROM is read: how it binds (`Early`, chosen on the FROM
//! alone by `Exec::early_from`), and what the binding gives (`EarlyBound`: the FROM's scope,
//! what it reads with its conditions, the grouping and the clauses). One binding of such a
//! block serves three readers: the query reads what it gives (query.rs `read_early`),
//! EXPLAIN checks a block with it (`Exec::bind_as_queried`), and a prepared request keeps a
//! plan made from it (bound_select.rs `bind_kept`). The binding itself is
//! `Exec::bind_before_read` (query.rs).
//!
//! Invariant: an `EarlyBound` was made without reading a row of a base table, or of a view
//! or derived table bound unread (a CTE's rows exist before the block binds; a table
//! function joined to them, and a derived table whose columns cannot be had alone, are read
//! while the FROM binds); its conditions' operand types were checked over no row.

use crate::bind::Scope;
use crate::bound_from::BoundFrom;
use crate::clauses::{BlockGroups, Clauses};
use crate::deferred::Values;
use crate::error::Result;
use crate::expr::Expr;
use std::sync::Arc;
use tdlite_storage::table::Table;

/// A block bound before its FROM is read (`Exec::bind_before_read`), to be read by
/// `Exec::read_early` or kept by a prepared request (bound_select.rs).
pub(crate) struct EarlyBound {
    /// The FROM's columns.
    pub(crate) scope: Scope,
    pub(crate) source: EarlySource,
    pub(crate) groups: BlockGroups,
    pub(crate) clauses: Clauses,
}

/// What an [`EarlyBound`] block reads.
pub(crate) enum EarlySource {
    /// A FROM bound whole, with its conditions.
    Joined(Box<BoundFrom>),
    /// One base table, with its WHERE bound.
    Table(Arc<Table>, Option<crate::expr::Expr>),
    /// A CTE's rows (with its WHERE bound and the CTE's schema, to check its types; the
    /// read binds it again), or no FROM's one row.
    Rows(Option<(crate::expr::Expr, arrow::datatypes::SchemaRef)>),
}

impl EarlyBound {
    /// `values` (of the subqueries it bound for their columns alone, deferred.rs) put where
    /// their placeholders are: in what it reads and in every clause.
    ///
    /// # Errors
    /// An internal error for a placeholder `values` cannot take.
    pub(crate) fn put(&mut self, values: &Values) -> Result<()> {
        // (only where a placeholder is: the other expressions stay as bound)
        let put = |e: &mut Expr| -> Result<()> {
            if values.holds(e) {
                *e = values.put(e)?;
            }
            Ok(())
        };
        match &mut self.source {
            EarlySource::Joined(from) => from.exprs_mut().try_for_each(put)?,
            EarlySource::Table(_, Some(c)) | EarlySource::Rows(Some((c, _))) => put(c)?,
            EarlySource::Table(_, None) | EarlySource::Rows(None) => {}
        }
        let mut exprs: Vec<&mut Expr> = self.groups.key_exprs.iter_mut().collect();
        if let Some(g) = &mut self.groups.grouping {
            for call in &mut g.calls {
                exprs.extend(call.arg.iter_mut());
                exprs.extend(call.order.iter_mut().map(|k| &mut k.expr));
            }
        }
        let c = &mut self.clauses;
        exprs.extend(c.items.iter_mut().map(|i| &mut i.0));
        exprs.extend(c.qualify.iter_mut().chain(&mut c.having));
        exprs.extend(c.keys.iter_mut().map(|k| &mut k.expr));
        for w in &mut c.windows {
            exprs.extend(w.arg.iter_mut().chain(&mut w.default));
            exprs.extend(w.partition.iter_mut());
            exprs.extend(w.order.iter_mut().map(|k| &mut k.expr));
        }
        exprs.into_iter().try_for_each(put)
    }
}

impl EarlySource {
    /// Whether it is a FROM bound whole with conjuncts set aside to run per joined row
    /// ([`BoundFrom::sets_aside`]).
    pub(crate) fn sets_aside(&self) -> bool {
        match self {
            EarlySource::Joined(f) => f.sets_aside(),
            EarlySource::Table(..) | EarlySource::Rows(_) => false,
        }
    }

    /// Its WHERE's (and ON's) operand types, over no row of what it reads
    /// (`Expr::check_types`, `BoundFrom::check_types`).
    ///
    /// # Errors
    /// Their type errors.
    pub(crate) fn check_types(&self) -> Result<()> {
        match self {
            EarlySource::Joined(f) => f.check_types(),
            EarlySource::Table(t, Some(c)) => c.check_types(&t.schema.arrow),
            EarlySource::Rows(Some((c, schema))) => c.check_types(schema),
            EarlySource::Table(_, None) | EarlySource::Rows(None) => Ok(()),
        }
    }
}

/// How a block is bound before its FROM is read (`Exec::early_from`).
#[derive(Clone)]
pub(crate) enum Early {
    /// The FROM bound whole with its WHERE (`Exec::bind_joined`), then run.
    Whole,
    /// One base table, over its scope.
    Table(Scope, Arc<Table>),
    /// Rows made already (a CTE's; `None`: no FROM, one row), over this scope, with their
    /// schema; read as the general order reads them.
    Rows(Scope, Option<arrow::datatypes::SchemaRef>),
}
