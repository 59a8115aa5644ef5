//! The plan of a FROM clause of inner joins, made before any row is read: the order the
//! relations are joined in and, at each step, the conditions that run there. join.rs runs
//! it and explain.rs prints it, so EXPLAIN shows the order and the hash keys that run.
//!
//! **Sizes.** A table's estimate is its row count (`Table::row_versions`, every version it
//! keeps, deleted ones too) cut down by its own conditions (those that name it alone): a
//! unique index fixed by equalities gives a row per probe (one, or one per IN value);
//! otherwise each column with sargable conditions keeps a tenth if `=` or IN fixes it
//! (however many values: an IN subquery's are known only once it runs, and EXPLAIN runs
//! nothing), a third for a range, and each other condition half. A view, CTE or derived
//! table has no estimate and counts as larger than any table.
//!
//! **Order.** Greedy: first the relation with a condition of its own estimated smallest (if
//! none has one, the smallest that a condition joins to one other relation without waiting
//! for more, else the smallest of all); then, again and again, the smallest relation a
//! condition that can run once it is joined connects to those already joined (the smallest of
//! all if none is). Ties go to the relation written first.
//!
//! **Conditions** run as soon as the relations they name are joined, the ON conditions before
//! the WHERE conjuncts. A condition *cannot fail* ([`cannot_fail`]: comparisons, IN and IS
//! NULL of columns and literals of one type family, typed as the rows read are, with an
//! uncorrelated subquery's value bound in). A WHERE conjunct that could fail (arithmetic, a CAST, a conversion) waits until every ON
//! condition has run, so it sees only rows they accept (`ON z.z <> 0 WHERE 10 / z.z > 1`
//! divides by no zero), and until the relations of every WHERE conjunct written before it
//! are joined, after which those run first (`WHERE g.x <> u.k AND 10 / (g.x - 1) > 1`
//! divides only the pairs the inequality keeps: [`set_waits`]); one that names a single
//! relation is tried on that relation's rows as they are read ([`Step::tries`]), and runs at
//! its own step only if it fails there, so the guard costs nothing where it is not needed; an ON condition that could fail waits until every relation written
//! up to its join is joined (`a JOIN b ON a.id = b.id JOIN c ON c.k = 10 / b.z` divides only
//! b's rows that met a, as the written order would). One that cannot fail runs as soon as its
//! relations are joined; if it names only the relation a step joins, on that relation's rows
//! before the join ([`Step::pre`]; the first relation's are its own rows anyway). At each step
//! the column equalities between the rows joined so far and the new relation that compare
//! without a conversion come first wherever written, then the rest in that order; the step
//! hashes on those equalities, or, when there are none, on the first condition if it is an
//! equality between an operand of each side whose types hash together (`a.k = b.k + 3`,
//! `c.z = a.x + b.y`: hash_join.rs), so such an equality runs where it is written and fails on
//! no row an earlier condition rejects (an equality whose types do not hash together, INTEGER
//! = VARCHAR, is never a key).
//!
//! **Reads.** A base table is read at its step through its own sargable conditions; at a
//! step with hash keys, when the rows joined so far are few ([`probes_pay`]) and an index of
//! the table takes a key column ([`probe_index`]), through that index probed with their key
//! values instead ([`probe_preds`]: an index nested-loop join, `a.k = 17` joined to `b` on
//! `b.k` reads one row of b, not all of them).
//!
//! Invariants: every condition runs at exactly one step; the plan depends only on the sizes
//! and on each condition's [`Cond`], so EXPLAIN, given the same, prints the plan that runs.

use crate::expr::{BinOp, Expr};
pub(crate) use crate::expr_tree::cannot_fail;
use crate::plan::{choose, Preds};
use crate::types::same_family;
use arrow::datatypes::DataType;
use tdlite_storage::catalog::TableSchema;

/// One condition of a join, as the planner sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cond {
    /// The relations (positions in FROM) whose columns it reads, ascending.
    pub rels: Vec<usize>,
    /// From an ON clause (else a WHERE conjunct).
    pub on: bool,
    /// For an equality whose operands read disjoint relations and have types that hash
    /// together ([`key_sides`]), the relations each operand reads: a key at the step that
    /// joins a relation one operand reads alone ([`Cond::key_at`]), where it runs first.
    pub sides: Option<(Vec<usize>, Vec<usize>)>,
    /// Such an equality whose columns compare without a conversion that could fail
    /// ([`same_family`](crate::types::same_family)): the step may hash on it wherever it is written.
    pub hoist: bool,
    /// It cannot fail ([`cannot_fail`]): a WHERE conjunct may run before every ON condition
    /// has, and one that names only the relation a step joins filters that relation's rows
    /// before they are joined.
    pub safe: bool,
    /// The relations that must be joined before it runs, besides its own ([`set_waits`]):
    /// for an ON condition that could fail, every relation written up to its own join (it
    /// then sees only the pairs the written order would give it); for a WHERE conjunct that
    /// could fail, those of every WHERE conjunct written before it (which then run first, so
    /// a guard written before it holds); empty otherwise.
    pub waits: Vec<usize>,
}

/// Fills each condition's [`Cond::waits`] from its `safe` and `on`, the conditions being in
/// the order written (WHERE conjuncts first, as `bind_from` lists them) and `step(i)` the
/// join whose ON condition `i` is.
pub(crate) fn set_waits(conds: &mut [Cond], step: &dyn Fn(usize) -> Option<usize>) {
    // the relations of the WHERE conjuncts written so far
    let mut before: Vec<usize> = Vec::new();
    for (i, c) in conds.iter_mut().enumerate() {
        c.waits = match (c.safe, c.on, step(i)) {
            (true, ..) => Vec::new(),
            (false, true, Some(s)) => (0..=s).collect(),
            (false, true, None) => Vec::new(),
            (false, false, _) => before.clone(),
        };
        if !c.on {
            before.extend(&c.rels);
            before.sort_unstable();
            before.dedup();
        }
    }
}

impl Cond {
    /// Whether it is a key at the step that joins relation `rel`: one operand reads `rel`
    /// alone, the other none of its columns (so the rows joined before: hash_join.rs
    /// `eq_sides`, by side).
    pub(crate) fn key_at(&self, rel: usize) -> bool {
        self.sides.as_ref().is_some_and(|(a, b)| {
            (a.as_slice() == [rel] && !b.contains(&rel))
                || (b.as_slice() == [rel] && !a.contains(&rel))
        })
    }
}

/// One step of a join plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Step {
    /// The relation joined (the first step's is read alone).
    pub rel: usize,
    /// The conditions (positions in the planner's list) that filter the relation's own rows
    /// before the join: those that name it alone and cannot fail (empty on the first step,
    /// whose `conds` all run on the relation alone).
    pub pre: Vec<usize>,
    /// The WHERE conjuncts that name the relation alone and could fail but are held back
    /// (for the ON conditions, or for conjuncts written before them: [`Cond::waits`]): each
    /// is tried on the relation's own rows before the join and, if it fails on none of them,
    /// filters them there; one that fails there runs at its own later step instead, on the
    /// rows the conditions before it keep.
    pub tries: Vec<usize>,
    /// The conditions that run here (positions in the planner's list), in the order they run.
    pub conds: Vec<usize>,
    /// How many of the leading `conds` are the hash keys (0: a nested loop, or the first step).
    pub keys: usize,
}

/// True if `e` is `column = column` as bound (no conversion on either side) and the columns'
/// types (by `ty`) are of [`same_family`].
fn typed_equality(e: &Expr, ty: &dyn Fn(usize) -> Option<DataType>) -> bool {
    match e {
        Expr::Binary(BinOp::Eq, a, b) => match (&**a, &**b) {
            (Expr::Column { index: x, .. }, Expr::Column { index: y, .. }) => {
                matches!((ty(*x), ty(*y)), (Some(p), Some(q)) if same_family(&p, &q))
            }
            _ => false,
        },
        _ => false,
    }
}

/// The relations each operand of `e` reads (`rel` gives a column's), if `e` is an equality
/// whose operands each read a column, of disjoint relations (`a.k = b.k + 3`,
/// `c.z = a.x + b.y`), neither calling RANDOM, with types (columns typed by `ty`) that hash
/// together ([`hashable`](crate::types::hashable)): a key where it runs first at a step
/// ([`Cond::key_at`]), or, if a column on each side of [`is_hoistable`] types, wherever it is
/// written.
pub(crate) fn key_sides(
    e: &Expr,
    ty: &dyn Fn(usize) -> Option<DataType>,
    rel: &dyn Fn(usize) -> usize,
) -> Option<(Vec<usize>, Vec<usize>)> {
    let Expr::Binary(BinOp::Eq, a, b) = e else {
        return None;
    };
    let rels_of = |x: &Expr| {
        let mut r: Vec<usize> = x.columns().into_iter().map(rel).collect();
        r.sort_unstable();
        r.dedup();
        r
    };
    let (ra, rb) = (rels_of(a), rels_of(b));
    let apart = !ra.is_empty() && !rb.is_empty() && !ra.iter().any(|r| rb.contains(r));
    if !apart || a.has_random() || b.has_random() {
        return None;
    }
    use crate::hash_join::side_type;
    matches!((side_type(a, ty), side_type(b, ty)), (Some(p), Some(q)) if crate::types::hashable(&p, &q))
        .then_some((ra, rb))
}

/// `column = column` whose columns (typed by `ty`) are of
/// [`same_family`](crate::types::same_family): a key wherever it is written.
pub(crate) fn is_hoistable(e: &Expr, ty: &dyn Fn(usize) -> Option<DataType>) -> bool {
    typed_equality(e, ty)
}

/// The estimated rows of a table of `rows` row versions read under `own` conditions of its
/// own, whose sargable part is `preds`.
pub(crate) fn table_estimate(rows: usize, schema: &TableSchema, preds: &Preds, own: usize) -> u64 {
    if own == 0 || rows == 0 {
        return rows as u64;
    }
    if let Some(a) = choose(schema, preds, &|| crate::plan::max_probes(rows)) {
        if let Some(spec) = schema
            .indexes()
            .nth(a.index)
            .filter(|s| s.unique && s.columns.len() == a.eq_len)
        {
            // a row per probe at most
            let probes: usize = spec
                .columns
                .iter()
                .map(|c| {
                    preds
                        .get(c)
                        .and_then(|p| p.points.as_ref())
                        .map_or(1, Vec::len)
                })
                .product();
            return probes.min(rows) as u64;
        }
    }
    let mut est = rows as f64;
    let mut sargable = 0;
    for (_, p) in preds.iter() {
        est *= match (&p.points, &p.lo, &p.hi) {
            (Some(_), ..) => 0.1,
            // an entry that records nothing (`c <> v`) is one of the other conditions
            (None, None, None) => continue,
            _ => 1.0 / 3.0,
        };
        sargable += 1;
    }
    for _ in sargable..own {
        est *= 0.5;
    }
    est.ceil() as u64
}

/// The most rows joined so far whose key values a step probes the new table's index with
/// ([`probe_index`]); more, and the table is read through its own conditions only.
pub(crate) const MAX_PROBE_ROWS: usize = 1024;

/// True if a step whose rows joined so far number `left` probes a table of `rows` row
/// versions by their key values rather than reading it: few of them (at most
/// [`MAX_PROBE_ROWS`], and at most a quarter of the table's rows, which are at least 4).
pub(crate) fn probes_pay(left: usize, rows: usize) -> bool {
    rows >= 4 && left <= MAX_PROBE_ROWS && left.saturating_mul(4) <= rows
}

/// The columns of `schema` among `keys` (the new table's columns of a step's hash keys) that
/// its index may be probed by with the other side's values: an equality's values give a
/// superset of the rows `=` accepts through the index when the column is not a character
/// one, or is NOT CASESPECIFIC (its index keys compare as case-blind `=` does).
pub(crate) fn probe_columns(schema: &TableSchema, keys: &[usize]) -> Vec<usize> {
    keys.iter()
        .copied()
        .filter(|&c| {
            schema
                .columns
                .get(c)
                .is_some_and(|col| !col.ty.is_character() || !col.case_specific)
        })
        .collect()
}

/// The index a step probes with the values of its hash keys on `keys` (the new table's
/// columns, from [`probe_columns`]), the table's own sargable conditions being `own`: the
/// one [`choose`] takes once those columns are fixed, if its fixed prefix holds one of them
/// (otherwise the own conditions alone choose the read).
pub(crate) fn probe_index(
    schema: &TableSchema,
    own: &Preds,
    keys: &[usize],
) -> Option<crate::plan::IndexAccess> {
    let mut with = own.clone();
    for &c in keys {
        let p = with.entry(c);
        if p.points.is_none() {
            // (a placeholder: the choice looks at which columns are fixed, not by what)
            p.points = Some(vec![tdlite_storage::types::Value::Null]);
        }
    }
    let access = choose(schema, &with, &crate::plan::fixed_probes)?;
    let spec = schema.indexes().nth(access.index)?;
    spec.columns
        .get(..access.eq_len)?
        .iter()
        .any(|c| keys.contains(c) && own.get(c).is_none_or(|p| p.points.is_none()))
        .then_some(access)
}

/// The (left operand, new table column) pairs of a step's hash keys `keys`, bound over the
/// joined batch (columns before `left_width` are the rows joined so far, the rest the new
/// table's, numbered from 0 there): those whose new table operand is a column.
pub(crate) fn key_pairs(keys: &[Expr], left_width: usize) -> Vec<(Expr, usize)> {
    keys.iter()
        .filter_map(|e| {
            let (l, r) = crate::hash_join::eq_sides(e, &|c| usize::from(c >= left_width))?;
            match r {
                Expr::Column { index, .. } => Some((l.clone(), index - left_width)),
                _ => None,
            }
        })
        .collect()
}

/// The sargable conditions a step reads its new table by when it probes ([`probe_index`]):
/// the table's own conditions `own` (over its columns) and, for each `(values, table column)`
/// of `pairs`, the table column IN `values` (the rows joined so far's values of the key's
/// other operand); a NULL equals nothing and is left out. Like any access path, it only
/// narrows the rows read: the step's conditions still run on them.
pub(crate) fn probe_preds(
    schema: &TableSchema,
    own: Option<&Expr>,
    pairs: &[(arrow::array::ArrayRef, usize)],
) -> Preds {
    let mut cond = own.cloned();
    for (values, c) in pairs {
        let Some(col) = schema.columns.get(*c) else {
            continue;
        };
        let list: Vec<Expr> = (0..values.len())
            .filter(|&i| values.is_valid(i))
            .map(|i| Expr::Literal(values.slice(i, 1)))
            .collect();
        let column = Expr::Column {
            index: *c,
            case_specific: col.case_specific,
        };
        let test = Expr::InList(Box::new(column), list.into(), false);
        cond = Some(match cond {
            None => test,
            Some(x) => Expr::Binary(BinOp::And, Box::new(x), Box::new(test)),
        });
    }
    cond.map(|e| crate::plan::bound_preds(&e, schema))
        .unwrap_or_default()
}

/// The plan for relations of estimated `sizes` (`None`: unknown) under `conds`.
pub(crate) fn plan(sizes: &[Option<u64>], conds: &[Cond]) -> Vec<Step> {
    let key = |r: &usize| (sizes[*r].is_none(), sizes[*r].unwrap_or(0));
    let mut left: Vec<usize> = (0..sizes.len()).collect();
    let mut joined: Vec<usize> = Vec::with_capacity(sizes.len());
    let mut done = vec![false; conds.len()];
    let mut steps = Vec::with_capacity(sizes.len());
    while !left.is_empty() {
        // (a WHERE conjunct of a relation's own that waits for others is tried on its rows as
        // they are read, `Step::tries`, so it counts as filtering them)
        let candidates: Vec<usize> = if joined.is_empty() {
            left.iter()
                .copied()
                .filter(|r| {
                    conds
                        .iter()
                        .any(|c| c.rels == [*r] && (!c.on || c.waits.iter().all(|x| x == r)))
                })
                .collect()
        } else {
            left.iter()
                .copied()
                .filter(|&r| {
                    conds.iter().any(|c| {
                        let joined_with = |x: &usize| *x == r || joined.contains(x);
                        c.rels.len() > 1
                            && c.rels.contains(&r)
                            && c.rels.iter().all(joined_with)
                            && c.waits.iter().all(joined_with)
                    })
                })
                .collect()
        };
        // with nothing filtered to start from, a relation a condition joins to another
        // without waiting for more (not one only a product would join)
        let pairable = |r: &&usize| {
            conds
                .iter()
                .any(|c| c.rels.len() == 2 && c.rels.contains(r) && c.waits.is_empty())
        };
        let next = candidates
            .iter()
            .min_by_key(|r| key(r))
            .or_else(|| match joined.is_empty() {
                true => left.iter().filter(pairable).min_by_key(|r| key(r)),
                false => None,
            })
            .or_else(|| left.iter().min_by_key(|r| key(r)))
            .copied();
        let Some(rel) = next else { break };
        left.retain(|&r| r != rel);
        let first = joined.is_empty();
        joined.push(rel);
        let ready = |c: &Cond| {
            c.rels.iter().all(|x| joined.contains(x)) && c.waits.iter().all(|x| joined.contains(x))
        };
        let is_key = |c: &Cond| !first && c.key_at(rel);
        let mut step = Step {
            rel,
            pre: Vec::new(),
            tries: Vec::new(),
            conds: Vec::new(),
            keys: 0,
        };
        // ON conditions, then WHERE conjuncts: one that could fail only once every ON
        // condition has run
        let mut now = Vec::new();
        for pass_on in [true, false] {
            let on_pending = conds.iter().zip(&done).any(|(c, d)| c.on && !d);
            for i in 0..conds.len() {
                let c = &conds[i];
                let allowed = pass_on || c.safe || !on_pending;
                if !done[i] && c.on == pass_on && ready(c) && allowed {
                    done[i] = true;
                    now.push(i);
                }
            }
        }
        // its own WHERE conjuncts that wait for more relations, tried on its rows
        step.tries = (0..conds.len())
            .filter(|&i| {
                let c = &conds[i];
                !done[i] && !c.on && !c.safe && c.rels == [rel]
            })
            .collect();
        // the new relation's own conditions that cannot fail filter it before the join (a
        // condition of one relation reads the same row before and after it is paired)
        if !first {
            let (pre, rest): (Vec<usize>, Vec<usize>) = now
                .into_iter()
                .partition(|&i| conds[i].safe && conds[i].rels == [rel]);
            step.pre = pre;
            now = rest;
        }
        // the equalities the step hashes on: those that cannot fail, wherever written; if
        // there are none, the first condition if it is a key (hash_join::equi_keys)
        let (mut keys, rest): (Vec<usize>, Vec<usize>) = now
            .into_iter()
            .partition(|&i| is_key(&conds[i]) && conds[i].hoist);
        step.keys = match keys.len() {
            0 => usize::from(rest.first().is_some_and(|&i| is_key(&conds[i]))),
            n => n,
        };
        keys.extend(rest);
        step.conds = keys;
        steps.push(step);
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cond(rels: &[usize], on: bool, equality: bool) -> Cond {
        Cond {
            rels: rels.to_vec(),
            on,
            sides: equality.then(|| (rels[..1].to_vec(), rels[1..].to_vec())),
            hoist: equality,
            safe: !on,
            waits: Vec::new(),
        }
    }

    #[test]
    fn a_filtered_relation_starts_then_the_smallest_connected_one() {
        // a (1,000 rows), b (10 rows), c (5 rows, unconnected); a filtered; a-b joined
        let conds = [cond(&[0], false, false), cond(&[0, 1], true, true)];
        let steps = plan(&[Some(1000), Some(10), Some(5)], &conds);
        let order: Vec<usize> = steps.iter().map(|s| s.rel).collect();
        assert_eq!(order, [0, 1, 2]);
        assert_eq!(
            steps[0].conds,
            [0],
            "the filter runs on the first relation alone"
        );
        assert_eq!((steps[1].conds.clone(), steps[1].keys), (vec![1], 1));
        assert_eq!((steps[2].conds.clone(), steps[2].keys), (vec![], 0));
    }

    #[test]
    fn conditions_that_could_fail_keep_their_place() {
        // ON a.n < b.m AND a.i = b.v (converts: not hoisted); WHERE 10 / b.z > 1 on b alone
        let mut converts = cond(&[0, 1], true, true);
        converts.hoist = false;
        let mut divides = cond(&[1], false, false);
        divides.safe = false;
        let conds = [cond(&[0, 1], true, false), converts, divides];
        let steps = plan(&[Some(1), Some(2)], &conds);
        assert_eq!(steps[0].conds, Vec::<usize>::new());
        assert_eq!(
            (steps[1].conds.clone(), steps[1].keys),
            (vec![0, 1, 2], 0),
            "written order, no hash key, the WHERE after the ON"
        );
        // written first, a converting equality is still a key
        let mut converts = cond(&[0, 1], true, true);
        converts.hoist = false;
        let steps = plan(&[Some(1), Some(2)], &[converts, cond(&[0, 1], true, false)]);
        assert_eq!((steps[1].conds.clone(), steps[1].keys), (vec![0, 1], 1));
        // a type-blind test of literals and columns cannot fail; arithmetic can
        let int =
            |i: i32| Expr::Literal(std::sync::Arc::new(arrow::array::Int32Array::from(vec![i])));
        let col = Expr::Column {
            index: 0,
            case_specific: false,
        };
        let ty = |_: usize| Some(DataType::Int32);
        let cmp = Expr::Binary(BinOp::Gt, Box::new(col.clone()), Box::new(int(5)));
        assert!(cannot_fail(&cmp, &ty));
        let div = Expr::Binary(
            BinOp::Gt,
            Box::new(Expr::Binary(BinOp::Div, Box::new(int(10)), Box::new(col))),
            Box::new(int(1)),
        );
        assert!(!cannot_fail(&div, &ty));
    }

    #[test]
    fn a_where_conjunct_that_could_fail_waits_for_those_written_before_it() {
        // u, g WHERE g.x <> u.k AND 10 / (g.x - 1) > 1 AND g.k > 0: the division waits for
        // u and g; tried on g's rows first; the comparison after it cannot fail
        let mut conds = [
            cond(&[0, 1], false, false),
            cond(&[1], false, false),
            cond(&[1], false, false),
        ];
        conds[1].safe = false;
        set_waits(&mut conds, &|_| None);
        let waits: Vec<Vec<usize>> = conds.iter().map(|c| c.waits.clone()).collect();
        assert_eq!(waits, [vec![], vec![0, 1], vec![]]);
        let steps = plan(&[Some(1), Some(100)], &conds);
        // g starts (filtered by its own conditions), the division tried on its rows there
        assert_eq!(steps[0].rel, 1);
        assert_eq!(
            (steps[0].conds.clone(), steps[0].tries.clone()),
            (vec![2], vec![1])
        );
        assert_eq!(steps[1].conds, [0, 1], "after the pairs' inequality");
        // an ON condition that could fail waits for the joins written up to its own
        let mut on = [cond(&[0, 1], true, false), cond(&[1, 2], true, false)];
        on[0].safe = true;
        set_waits(&mut on, &|i| Some(i + 1));
        assert_eq!(on.map(|c| c.waits), [vec![], vec![0, 1, 2]]);
    }

    #[test]
    fn an_on_condition_that_could_fail_waits_for_the_joins_written_before_it() {
        // a JOIN b ON a.id = b.id JOIN c ON c.k = 10 / b.z: c and b are small, a large; the
        // division waits for a (b's rows without a partner in a never reach it)
        let mut divides = cond(&[1, 2], true, false);
        divides.waits = vec![0, 1, 2];
        let conds = [cond(&[0, 1], true, true), divides, cond(&[1], false, false)];
        let steps = plan(&[Some(100), Some(2), Some(1)], &conds);
        let order: Vec<usize> = steps.iter().map(|s| s.rel).collect();
        assert_eq!(order, [1, 0, 2]);
        assert_eq!(steps[2].conds, [1], "with all three joined");
    }

    #[test]
    fn few_joined_rows_probe_an_index_by_their_keys() {
        // t (a, b, c) with an index on (a, b, c): a key on a probes it, one on b alone not
        let schema = crate::plan::tests::schema();
        let none = Preds::new();
        assert_eq!(probe_columns(&schema, &[0, 1]), [0, 1]);
        assert!(probe_index(&schema, &none, &[0]).is_some_and(|a| a.eq_len == 1));
        assert!(probe_index(&schema, &none, &[1]).is_none());
        // a column the table's own conditions already fix is no probe
        let mut own = Preds::new();
        own.entry(0).points = Some(vec![tdlite_storage::types::Value::Int(9)]);
        assert!(probe_index(&schema, &own, &[0]).is_none());
        // few rows pay, many do not, nor any against a tiny table
        assert!(probes_pay(10, 40) && !probes_pay(11, 40) && !probes_pay(0, 3));
        assert!(!probes_pay(MAX_PROBE_ROWS + 1, usize::MAX));
        // the left rows' keys (NULLs left out, duplicates once) become the column's points
        let left: arrow::array::ArrayRef =
            std::sync::Arc::new(arrow::array::Int32Array::from(vec![
                Some(5),
                None,
                Some(3),
                Some(5),
            ]));
        let preds = probe_preds(&schema, None, &[(left.clone(), 0)]);
        let points = preds.get(&0).and_then(|p| p.points.clone());
        use tdlite_storage::types::Value::Int;
        assert_eq!(points, Some(vec![Int(3), Int(5)]));
        // only NULL keys: no point at all, so the probe reads nothing
        let nulls = left.slice(1, 1);
        let preds = probe_preds(&schema, None, &[(nulls, 0)]);
        assert_eq!(preds.get(&0).and_then(|p| p.points.clone()), Some(vec![]));
    }

    #[test]
    fn with_nothing_filtered_the_first_relation_is_one_a_condition_joins() {
        // a JOIN b ON a.k = b.k JOIN c ON c.x = 10 / b.z: c is smallest but only the
        // division (which waits for all three) joins it; a and b start, hashed
        let mut divides = cond(&[1, 2], true, false);
        divides.waits = vec![0, 1, 2];
        let steps = plan(
            &[Some(100), Some(100), Some(5)],
            &[cond(&[0, 1], true, true), divides],
        );
        let order: Vec<usize> = steps.iter().map(|s| s.rel).collect();
        assert_eq!(order, [0, 1, 2]);
        assert_eq!((steps[1].conds.clone(), steps[1].keys), (vec![0], 1));
        // with no condition joining two relations, the smallest starts
        let steps = plan(&[Some(100), Some(100), Some(5)], &[]);
        assert_eq!(steps[0].rel, 2);
    }

    #[test]
    fn unknown_sizes_come_after_known_ones_and_ties_keep_the_written_order() {
        let steps = plan(&[None, Some(7), Some(7)], &[]);
        let order: Vec<usize> = steps.iter().map(|s| s.rel).collect();
        assert_eq!(order, [1, 2, 0]);
    }

    #[test]
    fn keys_lead_each_step_and_on_comes_before_where() {
        // b joins a by an ON with a non-key first and a key second; at c's step its ON key,
        // then a WHERE key on a-c, then a WHERE filter on c alone after c's own ON filter
        let conds = [
            cond(&[0, 1], true, false),
            cond(&[0, 1], true, true),
            cond(&[0, 2], false, true),
            cond(&[1, 2], true, true),
            cond(&[2], false, false),
            cond(&[2], true, false),
            cond(&[0], false, false),
        ];
        let steps = plan(&[Some(1), Some(2), Some(3)], &conds);
        assert_eq!((steps[0].rel, steps[0].conds.clone()), (0, vec![6]));
        assert_eq!(steps[1].rel, 1);
        assert_eq!((steps[1].conds.clone(), steps[1].keys), (vec![1, 0], 1));
        assert_eq!(steps[2].rel, 2);
        assert_eq!((steps[2].conds.clone(), steps[2].keys), (vec![3, 2, 5], 2));
        assert_eq!(
            steps[2].pre,
            [4],
            "c's own WHERE filter that cannot fail runs on c's rows before the join"
        );
        // a WHERE key comes before an ON condition that is not one
        let conds = [cond(&[0, 1], true, false), cond(&[0, 1], false, true)];
        let steps = plan(&[Some(1), Some(2)], &conds);
        assert_eq!((steps[1].conds.clone(), steps[1].keys), (vec![1, 0], 1));
        let all: usize = steps.iter().map(|s| s.pre.len() + s.conds.len()).sum();
        assert_eq!(all, conds.len(), "every condition runs once");
    }

    #[test]
    fn a_key_that_may_fail_is_hashed_only_where_it_runs_first() {
        // `a.k + 3 = b.k` (a key that is no column pair: it may fail) written first: the key
        let may_fail = |on| Cond {
            hoist: false,
            ..cond(&[0, 1], on, true)
        };
        let steps = plan(&[Some(1), Some(2)], &[may_fail(true), may_fail(true)]);
        assert_eq!(
            (steps[1].conds.clone(), steps[1].keys),
            (vec![0, 1], 1),
            "the second waits for the pairs the first accepts"
        );
        // a column key that cannot fail goes first wherever written, and is the only key
        let conds = [may_fail(true), cond(&[0, 1], true, true)];
        let steps = plan(&[Some(1), Some(2)], &conds);
        assert_eq!((steps[1].conds.clone(), steps[1].keys), (vec![1, 0], 1));
        // after a condition that is no key: none
        let conds = [cond(&[0, 1], true, false), may_fail(true)];
        let steps = plan(&[Some(1), Some(2)], &conds);
        assert_eq!((steps[1].conds.clone(), steps[1].keys), (vec![0, 1], 0));
    }
}
