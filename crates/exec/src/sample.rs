//! Teradata's SAMPLE clause: a random subset of a query's result.
//!
//! Teradata samples the rows a SELECT produces (after WHERE, GROUP BY, HAVING and QUALIFY,
//! before ORDER BY). sqlparser reads `SAMPLE` as a table sample after a FROM item; the parser
//! moves a SAMPLE written where Teradata writes it to the block's first FROM item (see the
//! parser's sample_clause.rs, which also gives the forms below), and tdlite applies it to the
//! block's result as Teradata does.
//!
//! - `SAMPLE n` keeps n rows; a fraction f in (0, 1] keeps f of the rows, rounded to the
//!   nearest row (6.5 → 7, as Teradata's "fractional results greater than .4999 generate an
//!   added row"). Several sizes (`SAMPLE 0.25, 0.25, 0.5`, all counts or all fractions adding
//!   up to at most 1, at most 16) draw disjoint samples, each size computed on its own from
//!   the whole; `SAMPLEID` numbers them from 1 (`expr::SAMPLE_ID_COLUMN`, which
//!   `Exec::sample_rows` in query.rs adds).
//! - Counts that ask for more rows than there are give what there is, the later samples
//!   shortened first, and the statement's warning 7473 ([`Sampled::short`]).
//! - `WITH REPLACEMENT`: each sample draws its rows independently with replacement (a row may
//!   come more than once, and counts may exceed the rows). `RANDOMIZED ALLOCATION` only says
//!   how Teradata spreads the draw over its AMPs: one process samples the whole, so it changes
//!   nothing here.
//! - `WHEN c THEN sizes … [ELSE sizes] END` (stratified): each row belongs to the first WHEN
//!   whose condition is true (else to ELSE, else to none: not returned), and each stratum is
//!   sampled by its sizes; SAMPLEID goes on numbering across the strata in order.
//!
//! Invariant: the rows kept come out in their input order (a row drawn several times with
//! replacement, once per draw); without replacement no row is kept twice.

use crate::error::{Error, Result};
use crate::expr::take_batch;
use arrow::array::{Array, ArrayRef, BooleanArray, Int32Array};
use arrow::record_batch::RecordBatch;
use sqlparser::ast;
use std::sync::Arc;

/// The most sizes one list may give (Teradata's limit).
const MAX_SIZES: usize = 16;

/// How many rows one sample keeps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Part {
    /// `SAMPLE n`
    Rows(usize),
    /// `SAMPLE f`, 0 < f ≤ 1
    Fraction(f64),
}

/// The sizes one stratum is sampled by, and the condition that puts a row in it (`None`: the
/// whole input, or ELSE's rows).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Stratum {
    pub(crate) when: Option<ast::Expr>,
    parts: Vec<Part>,
}

/// One SAMPLE clause.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Sample {
    replacement: bool,
    pub(crate) strata: Vec<Stratum>,
}

/// A sample's rows, each sample's number, and whether counts asked for more rows than there
/// were (Teradata's warning 7473).
pub(crate) struct Sampled {
    pub(crate) rows: RecordBatch,
    pub(crate) ids: ArrayRef,
    pub(crate) short: bool,
}

/// One sample size: an integer count or a fraction in (0, 1].
fn part(e: &ast::Expr) -> Result<Part> {
    let unsupported = || Error::Unsupported(format!("the sample size {e}"));
    // a macro's parameter stands as `(CAST((n) AS type))` (macros.rs): the number inside
    if let ast::Expr::Nested(inner) | ast::Expr::Cast { expr: inner, .. } = e {
        return part(inner);
    }
    let ast::Expr::Value(v) = e else {
        return Err(unsupported());
    };
    let ast::Value::Number(n, _) = &v.value else {
        return Err(unsupported());
    };
    if n.contains('.') || n.contains(['e', 'E']) {
        let f: f64 = n.parse().map_err(|_| Error::BadNumber)?;
        if !(f > 0.0 && f <= 1.0) {
            return Err(Error::TypeMismatch(format!(
                "a SAMPLE fraction must be above 0 and at most 1, not {n}"
            )));
        }
        Ok(Part::Fraction(f))
    } else {
        Ok(Part::Rows(n.parse().map_err(|_| Error::Overflow)?))
    }
}

/// The sizes of one list: `n`, `(n)` or `(a, b, …)`.
fn sizes(e: &ast::Expr) -> Result<Vec<Part>> {
    let parts = match e {
        ast::Expr::Tuple(list) => list.iter().map(part).collect::<Result<Vec<_>>>()?,
        ast::Expr::Nested(one) => vec![part(one)?],
        one => vec![part(one)?],
    };
    if parts.len() > MAX_SIZES {
        return Err(Error::TypeMismatch(format!(
            "a SAMPLE clause gives at most {MAX_SIZES} sizes in a list, not {}",
            parts.len()
        )));
    }
    let total: f64 = parts
        .iter()
        .map(|p| match p {
            Part::Fraction(f) => *f,
            Part::Rows(_) => 0.0,
        })
        .sum();
    if total > 1.0 + 1e-9 {
        return Err(Error::TypeMismatch(format!(
            "the SAMPLE fractions add up to {total}, more than 1"
        )));
    }
    Ok(parts)
}

/// `from` with the SAMPLE of its first item taken off (a block samples its result, not that
/// item's rows: query.rs); `None` when the first item has none.
pub(crate) fn taken_off(from: &[ast::TableWithJoins]) -> Option<Vec<ast::TableWithJoins>> {
    let (ast::TableFactor::Table {
        sample: Some(_), ..
    }
    | ast::TableFactor::Derived {
        sample: Some(_), ..
    }) = &from.first()?.relation
    else {
        return None;
    };
    let mut from = from.to_vec();
    let (ast::TableFactor::Table { sample, .. } | ast::TableFactor::Derived { sample, .. }) =
        &mut from.first_mut()?.relation
    else {
        return None;
    };
    sample.take()?;
    Some(from)
}

impl Sample {
    /// The conditions of its strata (`WHEN c`), in order.
    pub(crate) fn conditions(&self) -> impl Iterator<Item = &ast::Expr> {
        self.strata.iter().filter_map(|s| s.when.as_ref())
    }

    /// Those of its conditions that hold no subquery: they bind before the block's rows are
    /// read (a subquery may be correlated, and binds over the rows).
    pub(crate) fn plain_conditions(&self) -> impl Iterator<Item = &ast::Expr> {
        self.conditions()
            .filter(|c| !crate::correlate::has_subquery(c))
    }

    /// [`Sample::check_grouping`] where each of its conditions binds before the block's rows
    /// are read (none holds a subquery): with a WHEN subquery, that subquery's binding errors
    /// come first, where the sample is taken.
    ///
    /// # Errors
    /// 9910.
    pub(crate) fn check_grouping_early(&self, grouped: bool) -> Result<()> {
        match self.plain_conditions().count() == self.conditions().count() {
            true => self.check_grouping(grouped),
            false => Ok(()),
        }
    }

    /// 9910 for a stratified sample (WHEN) of a `grouped` block, which tdlite does not take.
    ///
    /// # Errors
    /// That one.
    pub(crate) fn check_grouping(&self, grouped: bool) -> Result<()> {
        match grouped && self.conditions().next().is_some() {
            true => Err(Error::Unsupported(
                "SAMPLE WHEN in a query with GROUP BY or aggregates".into(),
            )),
            false => Ok(()),
        }
    }
}

/// The sample as Teradata writes it after `SAMPLE` (EXPLAIN's line).
impl std::fmt::Display for Sample {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.replacement {
            f.write_str("WITH REPLACEMENT ")?;
        }
        let sizes = |parts: &[Part]| -> String {
            let each = parts.iter().map(|p| match p {
                Part::Rows(n) => n.to_string(),
                // (always with a point: `1.0` is the whole, `1` one row)
                Part::Fraction(x) if x.fract() == 0.0 => format!("{x:.1}"),
                Part::Fraction(x) => x.to_string(),
            });
            each.collect::<Vec<_>>().join(", ")
        };
        match self.strata.as_slice() {
            [Stratum { when: None, parts }] => f.write_str(&sizes(parts)),
            strata => {
                for s in strata {
                    match &s.when {
                        Some(c) => write!(f, "WHEN {c} THEN {} ", sizes(&s.parts))?,
                        None => write!(f, "ELSE {} ", sizes(&s.parts))?,
                    }
                }
                f.write_str("END")
            }
        }
    }
}

/// The sample a FROM item carries, if any.
pub(crate) fn of_table(tf: &ast::TableFactor) -> Result<Option<Sample>> {
    let (ast::TableFactor::Table {
        sample: Some(kind), ..
    }
    | ast::TableFactor::Derived {
        sample: Some(kind), ..
    }) = tf
    else {
        return Ok(None);
    };
    let s = match kind {
        ast::TableSampleKind::BeforeTableAlias(s) | ast::TableSampleKind::AfterTableAlias(s) => s,
    };
    let unsupported = || Error::Unsupported(format!("the sample {s}"));
    if s.name.is_some() || s.seed.is_some() || s.bucket.is_some() || s.offset.is_some() {
        return Err(unsupported());
    }
    let Some(q) = &s.quantity else {
        return Err(unsupported());
    };
    if q.unit.is_some() {
        return Err(unsupported());
    }
    let sample = match extended(&q.value) {
        Some((replacement, body)) => {
            let strata = match body {
                ast::Expr::Case {
                    operand: None,
                    conditions,
                    else_result,
                    ..
                } => {
                    let mut strata = conditions
                        .iter()
                        .map(|w| {
                            Ok(Stratum {
                                when: Some(w.condition.clone()),
                                parts: sizes(&w.result)?,
                            })
                        })
                        .collect::<Result<Vec<_>>>()?;
                    if let Some(e) = else_result {
                        strata.push(Stratum {
                            when: None,
                            parts: sizes(e)?,
                        });
                    }
                    strata
                }
                other => vec![Stratum {
                    when: None,
                    parts: sizes(other)?,
                }],
            };
            Sample {
                replacement,
                strata,
            }
        }
        None => Sample {
            replacement: false,
            strata: vec![Stratum {
                when: None,
                parts: sizes(&q.value)?,
            }],
        },
    };
    let all: Vec<&Part> = sample.strata.iter().flat_map(|s| &s.parts).collect();
    let fractions = all
        .iter()
        .filter(|p| matches!(p, Part::Fraction(_)))
        .count();
    if fractions != 0 && fractions != all.len() {
        return Err(Error::TypeMismatch(
            "a SAMPLE clause gives either row counts or fractions, not both".into(),
        ));
    }
    Ok(Some(sample))
}

/// `"tdlite sample"(replacement, randomized, body)`, the parser's form of a SAMPLE clause with
/// WITH REPLACEMENT, RANDOMIZED ALLOCATION or WHEN: whether rows are drawn with replacement,
/// and the body.
fn extended(e: &ast::Expr) -> Option<(bool, &ast::Expr)> {
    let ast::Expr::Function(f) = e else {
        return None;
    };
    let [part] = f.name.0.as_slice() else {
        return None;
    };
    if part.as_ident()?.value != tdlite_parser::SAMPLE_FUNCTION {
        return None;
    }
    let ast::FunctionArguments::List(list) = &f.args else {
        return None;
    };
    let [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(r)), _, ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(body))] =
        list.args.as_slice()
    else {
        return None;
    };
    let replacement =
        matches!(r, ast::Expr::Value(v) if v.value == ast::Value::Number("1".into(), false));
    Some((replacement, body))
}

/// A small xorshift generator seeded from the clock: samples are not repeatable, as Teradata
/// says of its own.
struct Rng(u64);

impl Rng {
    fn new() -> Self {
        Rng(std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0x9E37_79B9, |d| d.as_nanos() as u64)
            | 1)
    }

    /// A number in `0..n` (n > 0).
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Samples `batch` by `sample`. `strata` holds, for each stratum with a WHEN, its condition's
/// value on every row (in the sample's order).
pub(crate) fn apply(
    batch: &RecordBatch,
    sample: &Sample,
    strata: &[BooleanArray],
) -> Result<Sampled> {
    let n = batch.num_rows();
    // each row's stratum: the first WHEN that holds, else the one without a condition
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); sample.strata.len()];
    let mut conditions = strata.iter();
    let tests: Vec<Option<&BooleanArray>> = sample
        .strata
        .iter()
        .map(|s| s.when.as_ref().and_then(|_| conditions.next()))
        .collect();
    for row in 0..n {
        let at = tests.iter().position(|t| match t {
            Some(c) => c.is_valid(row) && c.value(row),
            None => true,
        });
        if let Some(k) = at {
            members[k].push(row as u32);
        }
    }
    let mut rng = Rng::new();
    let mut picked: Vec<(u32, i32)> = Vec::new();
    let mut short = false;
    let mut id = 0i32;
    for (stratum, rows) in sample.strata.iter().zip(members.iter_mut()) {
        let m = rows.len();
        let wants: Vec<usize> = stratum
            .parts
            .iter()
            .map(|p| match *p {
                Part::Rows(r) => r,
                Part::Fraction(f) => ((m as f64) * f).round() as usize,
            })
            .collect();
        if sample.replacement {
            // the draws are bounded by the spool space before any is made
            let all = wants.iter().fold(0usize, |a, w| a.saturating_add(*w));
            crate::interrupt::check_spool(picked.len().saturating_add(all).saturating_mul(8))?;
            for (want, part) in wants.into_iter().zip(&stratum.parts) {
                id += 1;
                if m == 0 {
                    short |= want > 0 && matches!(part, Part::Rows(_));
                    continue;
                }
                picked.extend((0..want).map(|_| (rows[rng.below(m)], id)));
            }
            continue;
        }
        let total = wants.iter().fold(0usize, |a, w| a.saturating_add(*w));
        // counts that ask for more rows than there are warn; fractions that each round up
        // past the whole just leave the last sample a row short
        short |= total > m && stratum.parts.iter().any(|p| matches!(p, Part::Rows(_)));
        // partial Fisher–Yates: the first `take` places get a uniform random choice of rows
        let take = total.min(m);
        for i in 0..take {
            let j = i + rng.below(m - i);
            rows.swap(i, j);
        }
        let mut next = 0usize;
        for want in wants {
            id += 1;
            let end = next.saturating_add(want).min(take);
            picked.extend(rows[next..end].iter().map(|&r| (r, id)));
            next = end;
        }
    }
    picked.sort_unstable();
    crate::interrupt::check_spool(picked.len().saturating_mul(8))?;
    let keep: Vec<u32> = picked.iter().map(|(r, _)| *r).collect();
    let ids: ArrayRef = Arc::new(Int32Array::from_iter_values(picked.iter().map(|(_, i)| *i)));
    Ok(Sampled {
        rows: take_batch(batch, &keep)?,
        ids,
        short,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::datatypes::{DataType, Field, Schema};

    fn batch(n: i32) -> RecordBatch {
        RecordBatch::try_new(
            Arc::new(Schema::new(vec![Field::new("k", DataType::Int32, false)])),
            vec![Arc::new(Int32Array::from_iter_values(0..n))],
        )
        .unwrap()
    }

    fn plain(parts: Vec<Part>, replacement: bool) -> Sample {
        Sample {
            replacement,
            strata: vec![Stratum { when: None, parts }],
        }
    }

    fn ids(s: &Sampled) -> Vec<i32> {
        let a = s.ids.as_any().downcast_ref::<Int32Array>().unwrap();
        a.values().to_vec()
    }

    #[test]
    fn several_fractions_round_each_and_number_the_samples() {
        // Teradata's example: 9 rows, .25, .25, .50 → 2, 2 and 5 rows
        let s = apply(
            &batch(9),
            &plain(
                vec![
                    Part::Fraction(0.25),
                    Part::Fraction(0.25),
                    Part::Fraction(0.5),
                ],
                false,
            ),
            &[],
        )
        .unwrap();
        let mut per = [0; 4];
        for i in ids(&s) {
            per[i as usize] += 1;
        }
        assert_eq!(per, [0, 2, 2, 5]);
        let keys = s
            .rows
            .column(0)
            .as_any()
            .downcast_ref::<Int32Array>()
            .unwrap();
        let mut seen: Vec<i32> = keys.values().to_vec();
        assert!(
            seen.windows(2).all(|w| w[0] < w[1]),
            "input order, no row twice"
        );
        seen.dedup();
        assert_eq!(seen.len(), 9);
        assert!(!s.short);
    }

    #[test]
    fn counts_past_the_rows_are_short_and_replacement_may_repeat() {
        let s = apply(
            &batch(3),
            &plain(vec![Part::Rows(2), Part::Rows(5)], false),
            &[],
        )
        .unwrap();
        assert!(s.short);
        assert_eq!(ids(&s).iter().filter(|&&i| i == 1).count(), 2);
        assert_eq!(ids(&s).iter().filter(|&&i| i == 2).count(), 1);
        let r = apply(&batch(3), &plain(vec![Part::Rows(10)], true), &[]).unwrap();
        assert_eq!(r.rows.num_rows(), 10);
        assert!(!r.short);
    }

    #[test]
    fn strata_take_rows_by_their_first_true_condition() {
        let cond = |e: &str| Some(tdlite_parser::parse_expression(e).unwrap());
        let sample = Sample {
            replacement: false,
            strata: vec![
                Stratum {
                    when: cond("k < 4"),
                    parts: vec![Part::Rows(10)],
                },
                Stratum {
                    when: cond("k < 8"),
                    parts: vec![Part::Rows(1)],
                },
            ],
        };
        let lt = |limit: i32| BooleanArray::from_iter((0..10).map(|k| Some(k < limit)));
        let s = apply(&batch(10), &sample, &[lt(4), lt(8)]).unwrap();
        // rows 0..4 all (stratum 1, short), one of 4..8 (stratum 2), none of 8..10
        assert_eq!(ids(&s), vec![1, 1, 1, 1, 2]);
        assert!(s.short);
    }
}
