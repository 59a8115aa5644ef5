//! Teradata's PERIOD functions and operators (SQL Functions, Expressions, and Predicates,
//! "Period Functions and Operators"; SQL Data Types and Literals, "Period Data Types"):
//!
//! - `PERIOD(b, e)`, `PERIOD(b)` (one granule long), `PERIOD(b, UNTIL_CHANGED)` (ends at
//!   the element type's last value), and the literal `PERIOD '(b, e)'`;
//! - `BEGIN(p)`, `END(p)`, `LAST(p)` (the last value in the period: END less one granule);
//! - `p1 P_INTERSECT p2` (the common part), `p1 P_NORMALIZE p2` (the union of two periods
//!   that overlap or meet), `p1 LDIFF p2` and `p1 RDIFF p2` (the part of p1 before / after p2
//!   when they overlap): NULL when there is no such period;
//! - the predicates `OVERLAPS`, `CONTAINS` (a period or a value), `MEETS`, `PRECEDES`,
//!   `SUCCEEDS`, `IMMEDIATELY PRECEDES`, `IMMEDIATELY SUCCEEDS`.
//!
//! They run row by row over storage values. Invariants: a NULL operand gives NULL; both
//! periods of an operator have the same element type (else 9913); every period made passes
//! `period::check` (begin before end, else 9103). A granule is a day for DATE and 10^(6-n)
//! microseconds for a TIME(n) or TIMESTAMP(n) whose precision the binder knows (a column, a
//! CAST); a computed time has six digits, so its granule is a microsecond.

use crate::error::{Error, Result};
use crate::expr::{Expr, Func};
use crate::period::check;
use crate::period_text::kind_of;
use arrow::array::{Array, ArrayRef, BooleanArray};
use arrow::datatypes::DataType;
use std::sync::Arc;
use tdlite_storage::period::{Period, PeriodKind};
use tdlite_storage::types::{value_at, values_to_array, SqlType, Value};

/// One period function or operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeriodFn {
    /// `PERIOD(b, e)`; `PERIOD(b)` is one granule long (in days for a DATE, microseconds for
    /// a TIME or TIMESTAMP: 10^(6-n) for precision n).
    Make {
        /// The granule of `b`'s type.
        granule: i64,
    },
    /// `PERIOD(b, UNTIL_CHANGED)`.
    UntilChanged,
    /// `BEGIN(p)`.
    Begin,
    /// `END(p)`.
    End,
    /// `LAST(p)`: END less one granule.
    Last {
        /// The granule of `p`'s element type.
        granule: i64,
    },
    /// `p1 P_INTERSECT p2`.
    Intersect,
    /// `p1 P_NORMALIZE p2`.
    Normalize,
    /// `p1 LDIFF p2`.
    LDiff,
    /// `p1 RDIFF p2`.
    RDiff,
    /// `p1 OVERLAPS p2`.
    Overlaps,
    /// `p CONTAINS p2` or `p CONTAINS value`.
    Contains,
    /// `p1 MEETS p2`.
    Meets,
    /// `p1 PRECEDES p2`.
    Precedes,
    /// `p1 SUCCEEDS p2`.
    Succeeds,
    /// `p1 IMMEDIATELY PRECEDES p2`.
    ImmediatelyPrecedes,
    /// `p1 IMMEDIATELY SUCCEEDS p2`.
    ImmediatelySucceeds,
}

/// The function a call's name is, for the functions that take bound arguments.
pub(crate) fn lookup(name: &str) -> Option<PeriodFn> {
    Some(match name {
        "BEGIN" => PeriodFn::Begin,
        "END" => PeriodFn::End,
        "LAST" => PeriodFn::Last { granule: 1 },
        _ => return None,
    })
}

/// The granule of a value whose type has `precision` fractional digits (`None`: a DATE, or a
/// time computed with six): 10^(6-n) microseconds, else 1 (a day, or a microsecond).
pub(crate) fn granule(precision: Option<u8>) -> i64 {
    match precision {
        Some(p) if p < 6 => 10i64.pow(6 - u32::from(p)),
        _ => 1,
    }
}

/// The operator written with these words (`P_INTERSECT`, `IMMEDIATELY PRECEDES`, …).
pub(crate) fn operator(words: &str) -> Option<PeriodFn> {
    Some(match words.to_ascii_uppercase().as_str() {
        "P_INTERSECT" => PeriodFn::Intersect,
        "P_NORMALIZE" => PeriodFn::Normalize,
        "LDIFF" => PeriodFn::LDiff,
        "RDIFF" => PeriodFn::RDiff,
        "CONTAINS" => PeriodFn::Contains,
        "MEETS" => PeriodFn::Meets,
        "PRECEDES" => PeriodFn::Precedes,
        "SUCCEEDS" => PeriodFn::Succeeds,
        "IMMEDIATELY PRECEDES" => PeriodFn::ImmediatelyPrecedes,
        "IMMEDIATELY SUCCEEDS" => PeriodFn::ImmediatelySucceeds,
        _ => return None,
    })
}

/// A bound call of `f` (its argument count checked).
///
/// # Errors
/// 9913 for the wrong number of arguments.
pub(crate) fn call(f: PeriodFn, args: Vec<Expr>) -> Result<Expr> {
    let want: &[usize] = match f {
        PeriodFn::Make { .. } => &[1, 2],
        PeriodFn::UntilChanged | PeriodFn::Begin | PeriodFn::End | PeriodFn::Last { .. } => &[1],
        _ => &[2],
    };
    if !want.contains(&args.len()) {
        return Err(Error::TypeMismatch(format!(
            "{f:?} takes {} argument(s), not {}",
            want[0],
            args.len()
        )));
    }
    Ok(Expr::Func(Func::Period(f), args))
}

/// The period literal `PERIOD '(b, e)'` as a one-row array.
///
/// # Errors
/// 9102 for text that is no period (bounds out of order included).
pub(crate) fn literal(text: &str) -> Result<ArrayRef> {
    let p = crate::period::parse(text, None)?;
    Ok(values_to_array(
        SqlType::Period(p.kind.elem()),
        [Value::Period(p)].iter(),
    ))
}

/// The kind of value a DATE, TIME or TIMESTAMP array holds.
fn value_kind(t: &DataType) -> Option<PeriodKind> {
    match t {
        DataType::Date32 => Some(PeriodKind::Date),
        DataType::Time64(_) => Some(PeriodKind::Time),
        DataType::Timestamp(..) => Some(PeriodKind::Timestamp),
        _ => None,
    }
}

/// A DATE, TIME or TIMESTAMP value as a bound.
fn bound_of(v: &Value) -> Option<i64> {
    match v {
        Value::Date(d) => Some(i64::from(*d)),
        Value::Time(t) | Value::Timestamp(t) => Some(*t),
        _ => None,
    }
}

/// A bound as a value of its kind.
fn value_of(kind: PeriodKind, v: i64) -> Result<Value> {
    Ok(match kind {
        PeriodKind::Date => Value::Date(i32::try_from(v).map_err(|_| Error::Overflow)?),
        PeriodKind::Time => Value::Time(v),
        PeriodKind::Timestamp => Value::Timestamp(v),
    })
}

/// `UNTIL_CHANGED`'s end: the last value of a kind (DATE '9999-12-31', TIMESTAMP
/// '9999-12-31 23:59:59.999999'; a TIME period has none, the caller refuses it).
fn until_changed(kind: PeriodKind) -> i64 {
    use crate::period::LAST_DAY;
    match kind {
        PeriodKind::Date => LAST_DAY,
        PeriodKind::Time => 86_400_000_000 - 1,
        PeriodKind::Timestamp => (LAST_DAY + 1) * 86_400_000_000 - 1,
    }
}

/// The element kind the arguments of `f` work on, from their types: 9913 when they are no
/// periods (or values) of one kind.
fn operand_kind(f: PeriodFn, types: &[&DataType]) -> Result<Option<PeriodKind>> {
    let mismatch = || {
        Error::TypeMismatch(format!(
            "{f:?} needs {}, not {}",
            match f {
                PeriodFn::Make { .. } | PeriodFn::UntilChanged => "DATE, TIME or TIMESTAMP values",
                _ => "PERIOD values of one element type",
            },
            types
                .iter()
                .map(|t| crate::types::type_name(t))
                .collect::<Vec<_>>()
                .join(" and ")
        ))
    };
    let mut kind = None;
    for (k, t) in types.iter().enumerate() {
        if **t == DataType::Null {
            continue;
        }
        let this = match f {
            PeriodFn::Make { .. } | PeriodFn::UntilChanged => value_kind(t),
            // CONTAINS takes a period or a value on its right
            PeriodFn::Contains if k == 1 => kind_of(t).or_else(|| value_kind(t)),
            _ => kind_of(t),
        }
        .ok_or_else(mismatch)?;
        if kind.is_some_and(|k| k != this) {
            return Err(mismatch());
        }
        kind = Some(this);
    }
    Ok(kind)
}

/// Evaluates `f` over `n` rows of `args`.
///
/// # Errors
/// 9913 for operands of the wrong types; 9103 for a period whose bounds are out of order.
pub(crate) fn eval(f: PeriodFn, args: &[ArrayRef], n: usize) -> Result<ArrayRef> {
    let types: Vec<&DataType> = args.iter().map(|a| a.data_type()).collect();
    let kind = operand_kind(f, &types)?.unwrap_or(PeriodKind::Date);
    // UNTIL_CHANGED ends a DATE or TIMESTAMP period only
    if f == PeriodFn::UntilChanged && kind == PeriodKind::Time {
        return Err(Error::TypeMismatch(
            "UNTIL_CHANGED cannot end a PERIOD(TIME)".into(),
        ));
    }
    let predicate = matches!(
        f,
        PeriodFn::Overlaps
            | PeriodFn::Contains
            | PeriodFn::Meets
            | PeriodFn::Precedes
            | PeriodFn::Succeeds
            | PeriodFn::ImmediatelyPrecedes
            | PeriodFn::ImmediatelySucceeds
    );
    let mut vals = Vec::with_capacity(args.len());
    if predicate {
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            vals.clear();
            vals.extend(args.iter().map(|a| value_at(a.as_ref(), i)));
            out.push(test(f, &vals));
        }
        return Ok(Arc::new(BooleanArray::from(out)));
    }
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        if i % 4096 == 4095 {
            crate::interrupt::check()?;
        }
        vals.clear();
        vals.extend(args.iter().map(|a| value_at(a.as_ref(), i)));
        out.push(row(f, kind, &vals)?);
    }
    let ty = match f {
        PeriodFn::Begin | PeriodFn::End | PeriodFn::Last { .. } => match kind {
            PeriodKind::Date => SqlType::Date,
            PeriodKind::Time => SqlType::Time(6),
            PeriodKind::Timestamp => SqlType::Timestamp(6),
        },
        _ => SqlType::Period(kind.elem()),
    };
    Ok(values_to_array(ty, out.iter()))
}

/// The periods among `vals` (`None` if any is NULL).
fn periods(vals: &[Value]) -> Option<Vec<Period>> {
    vals.iter()
        .map(|v| match v {
            Value::Period(p) => Some(*p),
            _ => None,
        })
        .collect()
}

/// One row of a function whose value is a period or a bound.
fn row(f: PeriodFn, kind: PeriodKind, vals: &[Value]) -> Result<Value> {
    let make = |begin: i64, end: i64| -> Result<Value> {
        Ok(Value::Period(check(Period { kind, begin, end })?))
    };
    match f {
        PeriodFn::Make { .. } | PeriodFn::UntilChanged => {
            let Some(b) = vals.first().and_then(bound_of) else {
                return Ok(Value::Null);
            };
            let e = match (f, vals.get(1)) {
                (PeriodFn::UntilChanged, _) => until_changed(kind),
                (_, Some(v)) => match bound_of(v) {
                    Some(e) => e,
                    None => return Ok(Value::Null),
                },
                (PeriodFn::Make { granule }, None) => b.saturating_add(granule),
                (_, None) => b.saturating_add(1),
            };
            make(b, e)
        }
        _ => {
            let Some(ps) = periods(vals) else {
                return Ok(Value::Null);
            };
            let p = ps[0];
            match (f, ps.get(1)) {
                (PeriodFn::Begin, _) => value_of(kind, p.begin),
                (PeriodFn::End, _) => value_of(kind, p.end),
                (PeriodFn::Last { granule }, _) => value_of(kind, p.end - granule),
                (PeriodFn::Intersect, Some(q)) => {
                    let (b, e) = (p.begin.max(q.begin), p.end.min(q.end));
                    if b < e {
                        make(b, e)
                    } else {
                        Ok(Value::Null)
                    }
                }
                (PeriodFn::Normalize, Some(q)) => {
                    if p.begin.max(q.begin) <= p.end.min(q.end) {
                        make(p.begin.min(q.begin), p.end.max(q.end))
                    } else {
                        Ok(Value::Null)
                    }
                }
                (PeriodFn::LDiff, Some(q)) if overlap(&p, q) && p.begin < q.begin => {
                    make(p.begin, q.begin)
                }
                (PeriodFn::RDiff, Some(q)) if overlap(&p, q) && q.end < p.end => make(q.end, p.end),
                _ => Ok(Value::Null),
            }
        }
    }
}

/// Whether two periods share an instant (closed-open: one that ends where the other begins
/// does not).
fn overlap(p: &Period, q: &Period) -> bool {
    p.begin < q.end && q.begin < p.end
}

/// One row of a predicate: `None` (unknown) when an operand is NULL.
fn test(f: PeriodFn, vals: &[Value]) -> Option<bool> {
    let Value::Period(p) = vals.first()? else {
        return None;
    };
    if let (PeriodFn::Contains, Some(x)) = (f, vals.get(1).and_then(bound_of)) {
        return Some(p.begin <= x && x < p.end);
    }
    let Value::Period(q) = vals.get(1)? else {
        return None;
    };
    Some(match f {
        PeriodFn::Overlaps => overlap(p, q),
        PeriodFn::Contains => p.begin <= q.begin && q.end <= p.end,
        PeriodFn::Meets => p.end == q.begin || q.end == p.begin,
        PeriodFn::Precedes => p.end <= q.begin,
        PeriodFn::Succeeds => p.begin >= q.end,
        PeriodFn::ImmediatelyPrecedes => p.end == q.begin,
        PeriodFn::ImmediatelySucceeds => p.begin == q.end,
        _ => return None,
    })
}
