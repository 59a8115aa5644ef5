//! The end of a kept SELECT block past its rows (bound_select.rs, bound_join.rs): its GROUP
//! BY keys, HAVING and ORDER BY bound once, with the TOP and DISTINCT the block has, and
//! the ORDER BY it was bound with. A run puts its slot values into them and ends the block as
//! the general path does (`Exec::finish_block`, query.rs). Also what any block's end is, read
//! off its syntax and bound clauses: its TOP and DISTINCT (`block_top`), the n of a plain
//! TOP n (`first_rows`), and whether it only projects its rows, so that they can stream
//! (`only_projects`: the query and EXPLAIN decide it so).
//!
//! Invariant: the bound expressions hold the slots' arrays as the binder made them (the
//! caller checks that every slot is still there, plan_cache.rs), and `order_by` is the ORDER
//! BY they were bound from: a run for another ORDER BY must not use them.

use crate::clauses::{Clauses, Item};
use crate::expr::Expr;
use crate::ops::{Display, SortKey};
use sqlparser::ast;

/// A kept block's end (see the module doc).
#[derive(Default)]
pub(crate) struct Tail {
    /// The GROUP BY keys (empty: none, or all rows are one group).
    pub group_keys: Vec<Expr>,
    pub having: Option<Expr>,
    /// ORDER BY, bound.
    pub keys: Vec<SortKey>,
    pub top: Option<ast::Top>,
    pub distinct: bool,
    /// The ORDER BY it was bound from.
    pub order_by: Vec<ast::OrderByExpr>,
}

impl Tail {
    /// The end of block `s` with its GROUP BY keys as bound, taking the HAVING and ORDER BY
    /// (bound from `order_by`) out of its `clauses`.
    pub(crate) fn new(
        s: &ast::Select,
        order_by: &[ast::OrderByExpr],
        group_keys: Option<Vec<Expr>>,
        clauses: &mut Clauses,
    ) -> Self {
        let (top, distinct) = block_top(s);
        Tail {
            group_keys: group_keys.unwrap_or_default(),
            having: clauses.having.take(),
            keys: std::mem::take(&mut clauses.keys),
            top: top.cloned(),
            distinct,
            order_by: order_by.to_vec(),
        }
    }

    /// Whether the block does more past its rows than make its select list (of rows, or of
    /// aggregates over all of them).
    pub(crate) fn any(&self) -> bool {
        !self.group_keys.is_empty()
            || self.having.is_some()
            || !self.keys.is_empty()
            || self.top.is_some()
            || self.distinct
    }

    /// The bound expressions it holds.
    pub(crate) fn exprs(&self) -> impl Iterator<Item = &Expr> {
        self.group_keys
            .iter()
            .chain(&self.having)
            .chain(self.keys.iter().map(|k| &k.expr))
    }

    /// The GROUP BY keys with a run's values put in by `put`.
    pub(crate) fn group_keys(&self, put: &impl Fn(&Expr) -> Expr) -> Vec<Expr> {
        self.group_keys.iter().map(put).collect()
    }

    /// The clauses `Exec::finish_block` takes, with a run's values put in by `put`, for the
    /// select list `items` (its values put in already).
    pub(crate) fn clauses(
        &self,
        items: Vec<Item>,
        precisions: &[Display],
        put: &impl Fn(&Expr) -> Expr,
    ) -> Clauses {
        Clauses {
            items,
            precisions: precisions.to_vec(),
            qualify: None,
            having: self.having.as_ref().map(put),
            keys: (self.keys.iter())
                .map(|k| SortKey {
                    expr: put(&k.expr),
                    ..k.clone()
                })
                .collect(),
            windows: Vec::new(),
            placeholders: 0,
        }
    }

    /// The n of a block whose end past its rows is a TOP n alone ([`first_rows`]): its rows
    /// may be read only until it has n.
    pub(crate) fn only_top(&self) -> Option<usize> {
        let rest = !self.group_keys.is_empty()
            || self.having.is_some()
            || !self.keys.is_empty()
            || self.distinct;
        first_rows(self.top.as_ref()).filter(|_| !rest)
    }

    /// What `Exec::finish_block` takes of the block: its TOP and DISTINCT.
    pub(crate) fn top(&self) -> (Option<&ast::Top>, bool) {
        (self.top.as_ref(), self.distinct)
    }
}

/// The TOP of block `s`, and whether it is SELECT DISTINCT: what its end needs of it
/// (`Exec::finish_block`).
pub(crate) fn block_top(s: &ast::Select) -> (Option<&ast::Top>, bool) {
    (
        s.top.as_ref(),
        matches!(s.distinct, Some(ast::Distinct::Distinct)),
    )
}

/// The n of `TOP n` as a constant without PERCENT or WITH TIES: the block's result is its
/// first n rows (in ORDER BY's order, or as read without one); `None` for any other TOP.
pub(crate) fn first_rows(top: Option<&ast::Top>) -> Option<usize> {
    match top? {
        ast::Top {
            quantity: Some(ast::TopQuantity::Constant(n)),
            percent: false,
            with_ties: false,
        } => usize::try_from(*n).ok(),
        _ => None,
    }
}

/// Whether block `s` (with `order_by`, its clauses `bound`) ends with its select list alone:
/// no grouping, window, HAVING, QUALIFY, SAMPLE, ORDER BY or DISTINCT, so each of its rows is
/// kept or dropped, and projected, on its own (`Exec::finish_block` only projects), then perhaps
/// cut by a TOP n; `Some` with that n (`None`: no TOP), or `None` where it does more.
pub(crate) fn only_projects(
    s: &ast::Select,
    order_by: &[ast::OrderByExpr],
    groups: &crate::clauses::BlockGroups,
    bound: &Clauses,
    sampled: bool,
) -> Option<Option<usize>> {
    let (top, only_distinct) = block_top(s);
    let limit = match top {
        Some(_) => Some(first_rows(top)?),
        None => None,
    };
    let projects = order_by.is_empty()
        && groups.grouping.is_none()
        && bound.windows.is_empty()
        && bound.having.is_none()
        && bound.qualify.is_none()
        && bound.keys.is_empty()
        && !sampled
        && !only_distinct
        && matches!(s.distinct, None | Some(ast::Distinct::All));
    projects.then_some(limit)
}
