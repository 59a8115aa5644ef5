//! Walking and rebuilding bound expressions ([`Expr`]) as trees: the columns one reads, its
//! literals, and copies with columns renumbered or literals replaced.
//!
//! Every pass here recurses once per level of the tree through `crate::stack::deep`, as
//! binding and evaluation do, so a deep tree continues on a new stack segment.

use crate::expr::{BinOp, Expr};
use crate::types::same_family;
use arrow::array::ArrayRef;
use arrow::datatypes::DataType;
use std::sync::Arc;

impl Expr {
    /// The sub-expressions directly below this one.
    pub(crate) fn children(&self) -> Vec<&Expr> {
        match self {
            Expr::Column { .. } | Expr::Literal(_) | Expr::WindowRef(_) | Expr::SampleId => {
                Vec::new()
            }
            Expr::Binary(_, l, r) | Expr::Like(l, r, _) => vec![l, r],
            Expr::Not(e)
            | Expr::Neg(e)
            | Expr::IsNull(e, _)
            | Expr::Cast(e, _)
            | Expr::CastFormat(e, _, _)
            | Expr::WriteOwnFormat(e, ..)
            | Expr::CaseSpecific(e)
            | Expr::NotCaseSpecific(e) => vec![e],
            Expr::InList(e, list, _) => std::iter::once(e.as_ref()).chain(list).collect(),
            Expr::InRows(row, ..) => row.iter().collect(),
            Expr::Case(arms, other) => arms
                .iter()
                .flat_map(|(w, t)| [w, t])
                .chain(other.as_deref())
                .collect(),
            Expr::Func(_, args) => args.iter().collect(),
        }
    }

    /// Every input column the expression reads, in a new vector.
    pub(crate) fn columns(&self) -> Vec<usize> {
        let mut out = Vec::new();
        self.columns_used(&mut out);
        out
    }

    /// Marks in `keep` (one flag per input column) every column the expression reads.
    pub(crate) fn mark_columns(&self, keep: &mut [bool]) {
        for c in self.columns() {
            if let Some(k) = keep.get_mut(c) {
                *k = true;
            }
        }
    }

    /// Every input column the expression reads.
    pub(crate) fn columns_used(&self, out: &mut Vec<usize>) {
        crate::stack::deep(|| {
            if let Expr::Column { index, .. } = self {
                out.push(*index);
            }
            for c in self.children() {
                c.columns_used(out);
            }
        })
    }

    /// True if the expression reads a hidden column by its name (a window call's result,
    /// SAMPLEID) anywhere, which [`Expr::columns`] does not list.
    pub(crate) fn reads_by_name(&self) -> bool {
        crate::stack::deep(|| {
            matches!(self, Expr::WindowRef(_) | Expr::SampleId)
                || self.children().into_iter().any(Expr::reads_by_name)
        })
    }

    /// True if the expression calls RANDOM anywhere (a value per evaluation, not per row).
    pub(crate) fn has_random(&self) -> bool {
        crate::stack::deep(|| {
            matches!(
                self,
                Expr::Func(
                    crate::expr::Func::Builtin(crate::functions::Builtin::Random),
                    _
                )
            ) || self.children().into_iter().any(Expr::has_random)
        })
    }

    /// True if the expression reads nothing of a row (no column, no hidden column) and
    /// gives the same value at every evaluation (no RANDOM): a constant, whose value one
    /// evaluation over any row gives (plan.rs evaluates one before the read).
    pub(crate) fn is_constant(&self) -> bool {
        self.columns().is_empty() && !self.reads_by_name() && !self.has_random()
    }

    /// Calls `f` with every literal of the expression (its one-row array) and every row
    /// value IN's set of rows, in tree order.
    pub(crate) fn visit_literals(&self, f: &mut impl FnMut(&ArrayRef)) {
        crate::stack::deep(|| {
            if let Expr::Literal(a) | Expr::InRows(_, a, ..) = self {
                f(a);
            }
            for c in self.children() {
                c.visit_literals(f);
            }
        })
    }

    /// A copy of the expression in which each node that `leaf` maps is replaced by what it
    /// gives (its subtree is not visited); other nodes are copied as they are (an IN list's
    /// items made anew, without the set hashed from the old ones: in_set.rs `Memo`).
    pub(crate) fn rebuild(&self, leaf: &mut impl FnMut(&Expr) -> Option<Expr>) -> Expr {
        crate::stack::deep(|| {
            if let Some(e) = leaf(self) {
                return e;
            }
            let mut r = |e: &Expr| Box::new(e.rebuild(leaf));
            match self {
                Expr::Column { .. } | Expr::Literal(_) | Expr::WindowRef(_) | Expr::SampleId => {
                    self.clone()
                }
                Expr::Binary(op, a, b) => {
                    let a = r(a);
                    Expr::Binary(*op, a, r(b))
                }
                Expr::Like(a, b, not) => {
                    let a = r(a);
                    Expr::Like(a, r(b), *not)
                }
                Expr::Not(e) => Expr::Not(r(e)),
                Expr::Neg(e) => Expr::Neg(r(e)),
                Expr::IsNull(e, not) => Expr::IsNull(r(e), *not),
                Expr::Cast(e, t) => Expr::Cast(r(e), *t),
                Expr::CastFormat(e, t, f) => Expr::CastFormat(r(e), *t, f.clone()),
                Expr::WriteOwnFormat(e, t, f, p) => Expr::WriteOwnFormat(r(e), *t, f.clone(), *p),
                Expr::CaseSpecific(e) => Expr::CaseSpecific(r(e)),
                Expr::NotCaseSpecific(e) => Expr::NotCaseSpecific(r(e)),
                Expr::InList(e, list, not) => {
                    let e = r(e);
                    Expr::InList(e, list.iter().map(|x| x.rebuild(leaf)).collect(), *not)
                }
                // (the same set: its memo stands, checked against the row's types at each use)
                Expr::InRows(row, set, not, memo) => Expr::InRows(
                    row.iter().map(|x| x.rebuild(leaf)).collect(),
                    set.clone(),
                    *not,
                    memo.clone(),
                ),
                Expr::Case(arms, other) => {
                    let arms = arms
                        .iter()
                        .map(|(w, t)| (w.rebuild(leaf), t.rebuild(leaf)))
                        .collect();
                    Expr::Case(arms, other.as_deref().map(|o| Box::new(o.rebuild(leaf))))
                }
                Expr::Func(f, args) => {
                    Expr::Func(*f, args.iter().map(|x| x.rebuild(leaf)).collect())
                }
            }
        })
    }

    /// The same expression reading column `map[i]` where it read column `i`.
    pub(crate) fn remap(&self, map: &[usize]) -> Expr {
        self.rebuild(&mut |e| match e {
            Expr::Column {
                index,
                case_specific,
            } => Some(Expr::Column {
                index: map[*index],
                case_specific: *case_specific,
            }),
            _ => None,
        })
    }
}

/// The type of a plain operand (a column, typed by `ty`, or a literal), if `e` is one.
fn operand_type(e: &Expr, ty: &dyn Fn(usize) -> Option<DataType>) -> Option<DataType> {
    match e {
        Expr::Column { index, .. } => ty(*index),
        Expr::Literal(a) => Some(a.data_type().clone()),
        Expr::CaseSpecific(x) | Expr::NotCaseSpecific(x) => operand_type(x, ty),
        _ => None,
    }
}

/// True if evaluating condition `e` on a row cannot raise an error: ANDs, ORs and NOTs of
/// comparisons, IN lists and IS NULL tests of columns and literals of
/// [`same_family`](crate::types::same_family). Anything else (arithmetic, CAST, a function, a
/// conversion, LIKE, whose pattern becomes a regular expression that can be too large: 9913)
/// may fail.
pub(crate) fn cannot_fail(e: &Expr, ty: &dyn Fn(usize) -> Option<DataType>) -> bool {
    let pair = |a: &Expr, b: &Expr| matches!((operand_type(a, ty), operand_type(b, ty)), (Some(p), Some(q)) if same_family(&p, &q));
    match e {
        Expr::Binary(BinOp::And | BinOp::Or, a, b) => {
            crate::stack::deep(|| cannot_fail(a, ty) && cannot_fail(b, ty))
        }
        Expr::Binary(
            BinOp::Eq | BinOp::NotEq | BinOp::Lt | BinOp::LtEq | BinOp::Gt | BinOp::GtEq,
            a,
            b,
        ) => pair(a, b),
        Expr::Not(x) => cannot_fail(x, ty),
        Expr::IsNull(x, _) => operand_type(x, ty).is_some(),
        Expr::InList(x, list, _) => list.iter().all(|v| pair(x, v)),
        Expr::Literal(_) => true,
        _ => false,
    }
}

/// `op` over `items` (at least one) as a balanced tree: depth log2(n), not n.
pub(crate) fn balanced(op: BinOp, mut items: Vec<Expr>) -> Expr {
    while items.len() > 1 {
        let mut next = Vec::with_capacity(items.len().div_ceil(2));
        let mut it = items.into_iter();
        while let Some(a) = it.next() {
            next.push(match it.next() {
                Some(b) => Expr::Binary(op, Box::new(a), Box::new(b)),
                None => a,
            });
        }
        items = next;
    }
    items
        .pop()
        .unwrap_or_else(|| Expr::lit(Arc::new(arrow::array::BooleanArray::from(vec![true]))))
}
