//! GROUP BY and the aggregate functions over one batch: each row numbered into its group by
//! its Teradata-normalised key (one group in all without keys), then one value per group per
//! aggregate call.

use crate::bind::{AggCall, AggFunc};
use crate::error::{Error, OrOverflow, Result};
use crate::expr::Expr;
use crate::types::{sql_type_of, type_name};
use arrow::array::{Array, ArrayRef, UInt32Array};
use arrow::compute::take;
use arrow::datatypes::{DataType, Field, Schema};
use arrow::record_batch::{RecordBatch, RecordBatchOptions};
use std::collections::HashMap;
use std::sync::Arc;
use tdlite_storage::types::{
    compare_values, normalize_for_key, value_at, values_to_array, RowKey, SqlType, Value,
};

/// GROUP BY: one output row per distinct key (one row in all when there are no keys), with
/// the key columns first and one column per aggregate call.
pub(crate) fn aggregate(
    input: &RecordBatch,
    keys: &[Expr],
    calls: &[AggCall],
) -> Result<RecordBatch> {
    let key_arrays = keys
        .iter()
        .map(|k| k.eval(input))
        .collect::<Result<Vec<_>>>()?;
    let n = input.num_rows();
    if keys.is_empty() && n == 1 {
        if let Some(cols) = min_max_of_one_row(input, calls)? {
            return output(Vec::new(), cols, 1);
        }
    }
    // each row's group, numbered in order of first appearance
    let mut group_of: Vec<u32> = Vec::with_capacity(n);
    let mut groups = 0u32;
    let ints = match key_arrays.as_slice() {
        [a] => crate::expr::int_values(a),
        _ => None,
    };
    if keys.is_empty() {
        // no GROUP BY: one group of every row (also of none)
        group_of.resize(n, 0);
        groups = 1;
    } else if let Some(ints) = ints {
        // one integer key: the group of each row by its i64, no key value built
        let mut slot: foldhash::HashMap<Option<i64>, u32> = Default::default();
        for v in ints.iter() {
            let g = *slot.entry(*v).or_insert_with(|| {
                groups += 1;
                groups - 1
            });
            group_of.push(g);
        }
    } else {
        let mut slot: HashMap<RowKey, u32> = HashMap::new();
        for i in 0..n {
            let k = RowKey(
                key_arrays
                    .iter()
                    .zip(keys)
                    .map(|(a, e)| normalize_for_key(&value_at(a.as_ref(), i), e.case_specific()))
                    .collect(),
            );
            let g = *slot.entry(k).or_insert_with(|| {
                groups += 1;
                groups - 1
            });
            group_of.push(g);
        }
    }
    // the rows of each group, in row order, one after another (`rows[start[g]..start[g + 1]]`)
    let mut start = vec![0usize; groups as usize + 1];
    for &g in &group_of {
        start[g as usize + 1] += 1;
    }
    for g in 0..groups as usize {
        start[g + 1] += start[g];
    }
    let mut next = start.clone();
    let mut rows = vec![0u32; n];
    for (i, &g) in group_of.iter().enumerate() {
        rows[next[g as usize]] = i as u32;
        next[g as usize] += 1;
    }
    let group_rows: Vec<&[u32]> = (0..groups as usize)
        .map(|g| &rows[start[g]..start[g + 1]])
        .collect();
    // each group's first row holds its key (only with keys: without them the one group
    // may be empty)
    let key_cols = match key_arrays.is_empty() {
        true => Vec::new(),
        false => {
            let firsts = UInt32Array::from(group_rows.iter().map(|r| r[0]).collect::<Vec<_>>());
            key_arrays
                .iter()
                .map(|a| take(a.as_ref(), &firsts, None))
                .collect::<Result<Vec<_>, _>>()?
        }
    };
    let call_cols = calls
        .iter()
        .map(|call| {
            let arg = call.arg.as_ref().map(|e| e.eval(input)).transpose()?;
            match (call.func, &arg) {
                (AggFunc::XmlAgg, Some(a)) => {
                    crate::xmlagg::xmlagg(input, a, &call.order, group_rows.iter().copied())
                }
                _ => aggregate_call(call, arg.as_ref(), group_rows.iter().copied()),
            }
        })
        .collect::<Result<Vec<_>>>()?;
    output(key_cols, call_cols, group_rows.len())
}

/// The result of [`aggregate`]: the key columns (`k0`, …), then one column per call (`a0`,
/// …), `rows` rows.
fn output(keys: Vec<ArrayRef>, calls: Vec<ArrayRef>, rows: usize) -> Result<RecordBatch> {
    let named = |p: char| {
        move |(k, col): (usize, &ArrayRef)| {
            Field::new(format!("{p}{k}"), col.data_type().clone(), true)
        }
    };
    let fields: Vec<Field> = (keys.iter().enumerate().map(named('k')))
        .chain(calls.iter().enumerate().map(named('a')))
        .collect();
    Ok(RecordBatch::try_new_with_options(
        Arc::new(Schema::new(fields)),
        keys.into_iter().chain(calls).collect(),
        &RecordBatchOptions::new().with_row_count(Some(rows)),
    )?)
}

/// MIN and MAX (without DISTINCT) over one row, as a MIN/MAX walk's read gives them: each
/// is its argument's value in that row, NULL included. `None` for other calls.
fn min_max_of_one_row(input: &RecordBatch, calls: &[AggCall]) -> Result<Option<Vec<ArrayRef>>> {
    let mut cols = Vec::with_capacity(calls.len());
    for call in calls {
        let (AggFunc::Min | AggFunc::Max, false, Some(arg)) = (call.func, call.distinct, &call.arg)
        else {
            return Ok(None);
        };
        let col = arg.eval(input)?;
        // the type the general path gives (`result_type`), or that path decides
        if sql_type_of(col.data_type()).arrow_type() != *col.data_type() {
            return Ok(None);
        }
        cols.push(col);
    }
    Ok(Some(cols))
}

/// The type of `func`'s result over `arg` (none: `COUNT(*)`).
///
/// # Errors
/// 9913 for a SUM of a type that does not add up.
pub(crate) fn result_type(func: AggFunc, arg: Option<&ArrayRef>) -> Result<SqlType> {
    let in_type = arg
        .map(|a| a.data_type().clone())
        .unwrap_or(DataType::Int32);
    Ok(match (func, &in_type) {
        (AggFunc::Count, _) => SqlType::Integer,
        (
            AggFunc::Avg
            | AggFunc::StddevSamp
            | AggFunc::StddevPop
            | AggFunc::VarSamp
            | AggFunc::VarPop
            | AggFunc::Skew
            | AggFunc::Kurtosis,
            _,
        ) => SqlType::Float,
        // Teradata's SUM result types (SQL Functions, Expressions, and Predicates, "SUM:
        // Return Values", MaxDecimal 0): BYTEINT, SMALLINT and INTEGER sum to an INTEGER,
        // BIGINT to a BIGINT (a sum past the type is 2616, as in Teradata); DECIMAL(n,m) to
        // DECIMAL(15,m) up to 15 digits, DECIMAL(18,m) up to 18, else DECIMAL(38,m)
        (AggFunc::Sum, DataType::Decimal128(p, s)) => SqlType::Decimal(
            match *p {
                ..=15 => 15,
                16..=18 => 18,
                _ => 38,
            },
            *s,
        ),
        (AggFunc::Sum, DataType::Float64 | DataType::Utf8) => SqlType::Float,
        (AggFunc::Sum, DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Null) => {
            SqlType::Integer
        }
        (AggFunc::Sum, DataType::Int64) => SqlType::BigInt,
        (AggFunc::Sum, t) => return Err(Error::TypeMismatch(format!("SUM of {}", type_name(t)))),
        (AggFunc::Min | AggFunc::Max, t) => sql_type_of(t),
        // "the same data type as the data type of the argument" (PERCENTILE_CONT/DISC)
        (AggFunc::Percentile { .. }, DataType::Null) => SqlType::Float,
        (AggFunc::Percentile { .. }, t) => sql_type_of(t),
        (AggFunc::XmlAgg, _) => crate::xmlagg::RESULT_TYPE,
    })
}

pub(crate) fn aggregate_call<'g>(
    call: &AggCall,
    arg: Option<&ArrayRef>,
    groups: impl Iterator<Item = &'g [u32]>,
) -> Result<ArrayRef> {
    let numeric = numeric_argument(call.func, arg)?;
    let arg = numeric.as_ref().or(arg);
    let out_type = result_type(call.func, arg)?;
    if let (AggFunc::Percentile { .. }, Some(a)) = (call.func, arg) {
        return percentile(call.func, a, out_type, groups);
    }
    let cs = call.arg.as_ref().is_some_and(Expr::case_specific);
    let mut out = Vec::new();
    // COUNT(*): the group sizes
    if arg.is_none() && call.func == AggFunc::Count {
        let counts: Vec<Value> = groups.map(|rows| Value::Int(rows.len() as i64)).collect();
        return Ok(values_to_array(out_type, counts.iter()));
    }
    // an integer argument without DISTINCT: read the array directly, no `Value` per row
    if let (Some(ints), false) = (arg.and_then(crate::expr::int_values), call.distinct) {
        for rows in groups {
            let vals = rows.iter().filter_map(|&i| ints[i as usize]);
            out.push(match call.func {
                AggFunc::Count => Value::Int(vals.count() as i64),
                AggFunc::Sum => {
                    let mut acc: Option<i64> = None;
                    for v in vals {
                        acc = Some(acc.unwrap_or(0).checked_add(v).or_overflow()?);
                    }
                    acc.map_or(Value::Null, Value::Int)
                }
                AggFunc::Min => vals.min().map_or(Value::Null, Value::Int),
                AggFunc::Max => vals.max().map_or(Value::Null, Value::Int),
                AggFunc::Avg => {
                    let (n, total) = vals.fold((0usize, 0f64), |(n, t), v| (n + 1, t + v as f64));
                    if n == 0 {
                        Value::Null
                    } else {
                        Value::Float(total / n as f64)
                    }
                }
                f => spread(f, &vals.map(|v| v as f64).collect::<Vec<_>>()),
            });
        }
        return aggregate_array(out_type, &out);
    }
    for rows in groups {
        let mut vals: Vec<Value> = match arg {
            None => rows.iter().map(|_| Value::Int(1)).collect(),
            Some(a) => rows
                .iter()
                .map(|&i| value_at(a.as_ref(), i as usize))
                .filter(|v| !v.is_null())
                .collect(),
        };
        if call.distinct {
            let mut seen = HashMap::new();
            vals.retain(|v| {
                seen.insert(RowKey(vec![normalize_for_key(v, cs)]), ())
                    .is_none()
            });
        }
        out.push(match call.func {
            AggFunc::Count => Value::Int(vals.len() as i64),
            _ if vals.is_empty() => Value::Null,
            // characters compare by Teradata's rules (trailing blanks, case unless CS); the
            // value returned is the original one
            AggFunc::Min => vals
                .into_iter()
                .min_by(|a, b| compare_values(&normalize_for_key(a, cs), &normalize_for_key(b, cs)))
                .unwrap_or(Value::Null),
            AggFunc::Max => vals
                .into_iter()
                .max_by(|a, b| compare_values(&normalize_for_key(a, cs), &normalize_for_key(b, cs)))
                .unwrap_or(Value::Null),
            AggFunc::Sum => sum(&vals)?,
            AggFunc::Avg => {
                let n = vals.len() as f64;
                let total: f64 = vals.iter().map(as_f64).sum();
                Value::Float(total / n)
            }
            f => spread(f, &vals.iter().map(as_f64).collect::<Vec<_>>()),
        });
    }
    aggregate_array(out_type, &out)
}

/// The argument of SUM, AVG and the spread functions as FLOAT where it is character data (as
/// Teradata converts it); a DATE's as Teradata's number for it, for AVG and the spread
/// functions (SQL Functions, Expressions, and Predicates, window aggregates' "Result Type and
/// Format": AVG of a DATE is a FLOAT; td_date.rs); `None` where it is used as it is.
///
/// # Errors
/// 3535 for text that is not a number; 9913 for AVG or a spread function of a value that is
/// no number (TIME, TIMESTAMP, PERIOD, BYTE, …).
pub(crate) fn numeric_argument(func: AggFunc, arg: Option<&ArrayRef>) -> Result<Option<ArrayRef>> {
    let Some(a) = arg else {
        return Ok(None);
    };
    match (func, a.data_type()) {
        (AggFunc::Count | AggFunc::Min | AggFunc::Max, _) => Ok(None),
        (_, DataType::Utf8) => Ok(Some(crate::expr::cast_to_sql(a, SqlType::Float)?)),
        (AggFunc::Sum, _) => Ok(None),
        // PERCENTILE's value "must be a numeric value"
        (AggFunc::Percentile { .. }, DataType::Date32) => {
            Err(Error::TypeMismatch(format!("{} of DATE", func.name())))
        }
        (_, DataType::Date32) => Ok(Some(crate::td_date::to_number(a))),
        (_, t) if t.is_numeric() || t == &DataType::Null => Ok(None),
        (f, t) => Err(Error::TypeMismatch(format!(
            "{} of {}",
            f.name(),
            type_name(t)
        ))),
    }
}

/// PERCENTILE_CONT, PERCENTILE_DISC and MEDIAN of `arg` (a number) per group, NULLs left
/// out (SQL Functions, Expressions, and Predicates, PERCENTILE_CONT/PERCENTILE_DISC): over the
/// group's n values in the call's order, DISC is the first value whose cumulative share
/// (position / n) reaches p; CONT interpolates linearly at position 1 + p·(n − 1), computed
/// as FLOAT and given back in the argument's type (as a cast converts: a DECIMAL rounds to its
/// scale, an integer is cut to a whole number).
///
/// # Errors
/// The conversion's (2616 for a value past the type; none expected).
fn percentile<'g>(
    func: AggFunc,
    arg: &ArrayRef,
    out_type: SqlType,
    groups: impl Iterator<Item = &'g [u32]>,
) -> Result<ArrayRef> {
    let AggFunc::Percentile {
        cont,
        fraction,
        descending,
    } = func
    else {
        return Err(Error::Internal("not a percentile".into()));
    };
    let p = f64::from_bits(fraction);
    let mut disc: Vec<Value> = Vec::new();
    let mut interpolated: Vec<Option<f64>> = Vec::new();
    for rows in groups {
        let mut vals: Vec<Value> = rows
            .iter()
            .map(|&i| value_at(arg.as_ref(), i as usize))
            .filter(|v| !v.is_null())
            .collect();
        vals.sort_by(compare_values);
        if descending {
            vals.reverse();
        }
        let n = vals.len();
        if cont {
            interpolated.push((n > 0).then(|| {
                let at = p * (n - 1) as f64;
                let (lo, hi) = (at.floor() as usize, at.ceil() as usize);
                let (a, b) = (as_f64(&vals[lo]), as_f64(&vals[hi.min(n - 1)]));
                a + (at - lo as f64) * (b - a)
            }));
        } else {
            let k = ((p * n as f64).ceil() as usize).clamp(1, n.max(1)) - 1;
            disc.push(vals.get(k).cloned().unwrap_or(Value::Null));
        }
    }
    if !cont {
        return aggregate_array(out_type, &disc);
    }
    let floats: ArrayRef = Arc::new(arrow::array::Float64Array::from(interpolated));
    crate::expr::cast_to_sql(&floats, out_type)
}

/// Aggregate results as an array of `out_type`.
///
/// # Errors
/// 2616 for a value past its type: a SUM beyond INTEGER (or BIGINT), a DECIMAL sum beyond its
/// precision.
pub(crate) fn aggregate_array(out_type: SqlType, out: &[Value]) -> Result<ArrayRef> {
    let fits = |i: i64| match out_type {
        SqlType::ByteInt => i8::try_from(i).is_ok(),
        SqlType::SmallInt => i16::try_from(i).is_ok(),
        SqlType::Integer => i32::try_from(i).is_ok(),
        _ => true,
    };
    if out.iter().any(|v| matches!(v, Value::Int(i) if !fits(*i))) {
        return Err(Error::Overflow);
    }
    let out = values_to_array(out_type, out.iter());
    crate::limits::check(&out)?;
    Ok(out)
}

/// STDDEV_SAMP, STDDEV_POP, VAR_SAMP, VAR_POP, SKEW or KURTOSIS of `vals` (NULLs already left
/// out): two passes, the mean first, so large values with a small spread keep their
/// precision. SKEW and KURTOSIS are the sample statistics (SQL Functions, Expressions, and
/// Predicates, SKEW and KURTOSIS): n/((n−1)(n−2)) Σz³ and n(n+1)/((n−1)(n−2)(n−3)) Σz⁴ −
/// 3(n−1)²/((n−2)(n−3)), z the value's distance from the mean in sample standard deviations;
/// NULL for fewer than three (four) values or a spread of zero.
fn spread(f: AggFunc, vals: &[f64]) -> Value {
    if matches!(f, AggFunc::Skew | AggFunc::Kurtosis) {
        return shape(f == AggFunc::Skew, vals);
    }
    let n = vals.len() as f64;
    let sample = matches!(f, AggFunc::StddevSamp | AggFunc::VarSamp);
    if vals.is_empty() || sample && vals.len() < 2 {
        return Value::Null;
    }
    let mean = vals.iter().sum::<f64>() / n;
    let squares: f64 = vals.iter().map(|v| (v - mean) * (v - mean)).sum();
    let variance = squares / if sample { n - 1.0 } else { n };
    Value::Float(match f {
        AggFunc::StddevSamp | AggFunc::StddevPop => variance.sqrt(),
        _ => variance,
    })
}

/// SKEW (`skew`) or KURTOSIS of `vals` (see [`spread`]).
fn shape(skew: bool, vals: &[f64]) -> Value {
    let count = vals.len();
    if count < if skew { 3 } else { 4 } {
        return Value::Null;
    }
    let n = count as f64;
    let mean = vals.iter().sum::<f64>() / n;
    let sd = (vals.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1.0)).sqrt();
    if sd == 0.0 || !sd.is_finite() {
        return Value::Null;
    }
    let z = |p: i32| vals.iter().map(|v| ((v - mean) / sd).powi(p)).sum::<f64>();
    Value::Float(if skew {
        n / ((n - 1.0) * (n - 2.0)) * z(3)
    } else {
        n * (n + 1.0) / ((n - 1.0) * (n - 2.0) * (n - 3.0)) * z(4)
            - 3.0 * (n - 1.0) * (n - 1.0) / ((n - 2.0) * (n - 3.0))
    })
}

fn as_f64(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::Decimal(d, s) => *d as f64 / 10f64.powi(*s as i32),
        Value::Float(f) => *f,
        _ => 0.0,
    }
}

fn sum(vals: &[Value]) -> Result<Value> {
    match vals.first() {
        Some(Value::Int(_)) => {
            let mut acc: i64 = 0;
            for v in vals {
                if let Value::Int(i) = v {
                    acc = acc.checked_add(*i).or_overflow()?;
                }
            }
            Ok(Value::Int(acc))
        }
        Some(Value::Decimal(_, s)) => {
            let mut acc: i128 = 0;
            for v in vals {
                if let Value::Decimal(d, _) = v {
                    acc = acc.checked_add(*d).or_overflow()?;
                }
            }
            Ok(Value::Decimal(acc, *s))
        }
        _ => Ok(Value::Float(vals.iter().map(as_f64).sum())),
    }
}
