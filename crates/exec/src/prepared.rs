//! Prepared requests: a request parsed once and run many times with `?` parameters.
//!
//! `Session::prepare` parses and checks the request (the parser numbers each `?` in textual
//! order: `?1`, `?2`, … across the whole request). `Session::execute_prepared` runs it with
//! one typed value per `?`, skipping the parser entirely; each value binds as a literal of its
//! own type (`Value::Int` as BIGINT, `Value::Decimal(v, s)` as DECIMAL(38, s), `Value::Str`
//! as VARCHAR, …), which the statement converts as it would a literal (a column it is stored
//! into, a comparison's common type). A consume (`SELECT AND CONSUME`) goes straight to the
//! queue path; it never passes through the query planner.
//!
//! Invariant: a prepared request is immutable and independent of the session that prepared
//! it (it holds no table, only the parsed statements), so any session of the database may run
//! it, and a table dropped and re-created in between is simply looked up again.

use crate::error::{Error, Result};
use arrow::array::{new_null_array, ArrayRef};
use arrow::datatypes::DataType;
use tdlite_parser::Spanned;
use tdlite_storage::types::{values_to_array, SqlType, Value};

/// A parsed request, ready to run with parameters.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub(crate) statements: Vec<Spanned>,
    pub(crate) parameters: usize,
}

impl Prepared {
    /// How many `?` parameters the request has.
    pub fn parameter_count(&self) -> usize {
        self.parameters
    }

    /// How many statements the request has.
    pub fn statement_count(&self) -> usize {
        self.statements.len()
    }
}

/// Rows of one batched statement ([`batched_insert`]): enough to make the per-request cost
/// small, few enough that a statement's syntax tree stays small.
pub(crate) const BATCH_ROWS: usize = 1000;

/// For a request that is a lone `INSERT … VALUES (?, …)` of markers only, the same INSERT with
/// `rows` rows of markers (`?1…?k`, `?k+1…?2k`, …): one statement inserting `rows` parameter
/// sets. `None` for any other request.
pub(crate) fn batched_insert(p: &Prepared, rows: usize) -> Option<Spanned> {
    let [st] = p.statements.as_slice() else {
        return None;
    };
    let tdlite_parser::Statement::Sql(sql) = &st.statement else {
        return None;
    };
    let sqlparser::ast::Statement::Insert(ins) = sql.as_ref() else {
        return None;
    };
    let source = ins.source.as_ref()?;
    let sqlparser::ast::SetExpr::Values(values) = source.body.as_ref() else {
        return None;
    };
    let [row] = values.rows.as_slice() else {
        return None;
    };
    let markers_only = row.content.iter().all(|e| {
        matches!(e, sqlparser::ast::Expr::Value(v)
            if matches!(v.value, sqlparser::ast::Value::Placeholder(_)))
    });
    if !markers_only || row.content.len() != p.parameters || p.parameters == 0 {
        return None;
    }
    let k = p.parameters;
    let mut batched = ins.clone();
    let mut new_values = values.clone();
    new_values.rows = (0..rows)
        .map(|r| {
            let mut rr = row.clone();
            for (c, e) in rr.content.iter_mut().enumerate() {
                if let sqlparser::ast::Expr::Value(v) = e {
                    v.value = sqlparser::ast::Value::Placeholder(format!("?{}", r * k + c + 1));
                }
            }
            rr
        })
        .collect();
    let mut new_source = source.as_ref().clone();
    new_source.body = Box::new(sqlparser::ast::SetExpr::Values(new_values));
    batched.source = Some(Box::new(new_source));
    Some(Spanned {
        statement: tdlite_parser::Statement::Sql(Box::new(sqlparser::ast::Statement::Insert(
            batched,
        ))),
        ..st.clone()
    })
}

/// True if each column of `sets` holds one kind of value (NULLs aside; DECIMALs of one
/// scale): what lets a batched INSERT build each column at once and convert it as the row by
/// row path would.
pub(crate) fn uniform_columns(sets: &[Vec<Value>]) -> bool {
    let width = sets.first().map_or(0, Vec::len);
    (0..width).all(|c| {
        let mut kind: Option<&Value> = None;
        sets.iter().all(|set| match (kind, set.get(c)) {
            (_, None | Some(Value::Null)) => true,
            (None, Some(v)) => {
                kind = Some(v);
                true
            }
            (Some(Value::Decimal(_, a)), Some(Value::Decimal(_, b))) => a == b,
            (Some(k), Some(v)) => std::mem::discriminant(k) == std::mem::discriminant(v),
        })
    })
}

/// The one-row array a parameter value binds as.
pub(crate) fn parameter_array(v: &Value) -> ArrayRef {
    let ty = match v {
        Value::Null => return new_null_array(&DataType::Null, 1),
        Value::Int(_) => SqlType::BigInt,
        Value::Decimal(_, s) => SqlType::Decimal(38, *s),
        Value::Float(_) => SqlType::Float,
        Value::Str(s) => SqlType::VarChar(s.chars().count().max(1) as u32),
        Value::Bytes(b) => SqlType::VarByte(b.len().max(1) as u32),
        Value::Date(_) => SqlType::Date,
        Value::Time(_) => SqlType::Time(6),
        Value::Timestamp(_) => SqlType::Timestamp(6),
    };
    values_to_array(ty, std::iter::once(v))
}

/// The values of parameters `names` (`?n`) as one array, when they are all of one kind (or
/// NULL): what a column of a batched INSERT's VALUES is, built at once rather than a row at a
/// time. `None` when the kinds differ (the caller then reconciles them value by value).
///
/// # Errors
/// 3939 when a parameter has no value.
pub(crate) fn parameter_column(names: &[&str], params: &[Value]) -> Result<Option<ArrayRef>> {
    let mut values = Vec::with_capacity(names.len());
    for name in names {
        let n: usize = name
            .strip_prefix('?')
            .and_then(|d| d.parse().ok())
            .ok_or_else(|| Error::Unsupported(format!("the parameter marker {name}")))?;
        values.push(
            n.checked_sub(1)
                .and_then(|i| params.get(i))
                .ok_or(Error::ParameterCount {
                    expected: n,
                    given: params.len(),
                })?,
        );
    }
    let mut kind: Option<&Value> = None;
    let mut longest = 1usize;
    for v in &values {
        match (kind, v) {
            (_, Value::Null) => {}
            (None, v) => kind = Some(v),
            (Some(k), v) if std::mem::discriminant(k) != std::mem::discriminant(*v) => {
                return Ok(None)
            }
            (Some(Value::Decimal(_, a)), Value::Decimal(_, b)) if a != b => return Ok(None),
            _ => {}
        }
        match v {
            Value::Str(s) => longest = longest.max(s.chars().count()),
            Value::Bytes(b) => longest = longest.max(b.len()),
            _ => {}
        }
    }
    let ty = match kind {
        None => return Ok(Some(new_null_array(&DataType::Null, values.len()))),
        Some(Value::Str(_)) => SqlType::VarChar(u32::try_from(longest).unwrap_or(u32::MAX)),
        Some(Value::Bytes(_)) => SqlType::VarByte(u32::try_from(longest).unwrap_or(u32::MAX)),
        Some(other) => crate::query::sql_type_of(parameter_array(other).data_type()),
    };
    Ok(Some(values_to_array(ty, values.iter().copied())))
}

/// The value of parameter `name` (`?n`, numbered from 1) among `params`.
///
/// # Errors
/// 3939 when the request has no such parameter value.
pub(crate) fn parameter(name: &str, params: &[Value]) -> Result<ArrayRef> {
    let n: usize = name
        .strip_prefix('?')
        .and_then(|d| d.parse().ok())
        .ok_or_else(|| Error::Unsupported(format!("the parameter marker {name}")))?;
    match n.checked_sub(1).and_then(|i| params.get(i)) {
        Some(v) => Ok(parameter_array(v)),
        None => Err(Error::ParameterCount {
            expected: n,
            given: params.len(),
        }),
    }
}

/// `v` as an SQL literal of its type (what EXEC's arguments are made of).
pub(crate) fn literal(v: &Value) -> String {
    let stamp = |us: i64, fmt: &str| {
        chrono::DateTime::from_timestamp_micros(us).map_or_else(
            || "NULL".to_string(),
            |t| t.naive_utc().format(fmt).to_string(),
        )
    };
    match v {
        Value::Null => "NULL".to_string(),
        Value::Int(i) => i.to_string(),
        Value::Decimal(d, s) => crate::decimal::decimal_text(*d, *s),
        Value::Float(f) if f.is_finite() => format!("{f:e}"),
        Value::Float(_) => "NULL".to_string(),
        Value::Str(s) => format!("'{}'", s.replace('\'', "''")),
        Value::Bytes(b) => format!(
            "'{}'XB",
            b.iter().map(|x| format!("{x:02X}")).collect::<String>()
        ),
        Value::Date(d) => crate::functions::date_from_days(*d).map_or_else(
            || "NULL".to_string(),
            |d| format!("DATE '{}'", d.format("%Y-%m-%d")),
        ),
        Value::Time(us) => format!("TIME '{}'", stamp(*us, "%H:%M:%S%.6f")),
        Value::Timestamp(us) => format!("TIMESTAMP '{}'", stamp(*us, "%Y-%m-%d %H:%M:%S%.6f")),
    }
}
