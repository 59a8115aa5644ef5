//! How `?` parameters bind: each value of a parameter set as a one-row literal array of its
//! own type (`Value::Int` as BIGINT, `Value::Decimal(v, s)` as DECIMAL(38, s), `Value::Str` as
//! VARCHAR, …), a batched INSERT's markers as whole columns, and a value as SQL literal text
//! (a macro's arguments). The binder and the DML paths use these; prepared.rs keeps the
//! requests.

use crate::error::{Error, Result};
use arrow::array::{new_null_array, ArrayRef};
use arrow::datatypes::DataType;
use tdlite_storage::types::{values_to_array, SqlType, Value};

/// For the VALUES row of a batched INSERT, each cell's source: `Some(k)` for the marker
/// `?k+1` (value `k` of each parameter set), `None` for an expression that is the same for
/// every set (no marker, no subquery, no RANDOM: a literal, CURRENT_TIMESTAMP, …), evaluated
/// once for the request. `None` overall when the markers are not `?1, ?2, …` in order or a
/// cell is neither kind.
pub(crate) fn batch_cells(row: &[sqlparser::ast::Expr]) -> Option<Vec<Option<usize>>> {
    let mut markers = 0;
    row.iter()
        .map(|e| match marker_number(e) {
            Some(k) if k == markers + 1 => {
                markers = k;
                Some(Some(k - 1))
            }
            Some(_) => None,
            None => is_fixed(e).then_some(None),
        })
        .collect()
}

/// The `k` of a marker `?k`.
fn marker_number(e: &sqlparser::ast::Expr) -> Option<usize> {
    match e {
        sqlparser::ast::Expr::Value(v) => match &v.value {
            sqlparser::ast::Value::Placeholder(name) => name.strip_prefix('?')?.parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

/// True for an expression whose value cannot differ between parameter sets of one request:
/// no marker, no subquery (it could read rows the request inserted), no RANDOM.
pub(crate) fn is_fixed(e: &sqlparser::ast::Expr) -> bool {
    use sqlparser::ast::{Expr, Query, Value, Visit, Visitor};
    use std::ops::ControlFlow;
    struct Varies;
    impl Visitor for Varies {
        type Break = ();
        fn pre_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
            ControlFlow::Break(())
        }
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            let varies = match e {
                Expr::Value(v) => matches!(v.value, Value::Placeholder(_)),
                Expr::Function(f) => {
                    tdlite_parser::object_name_string(&f.name).eq_ignore_ascii_case("RANDOM")
                }
                _ => false,
            };
            if varies {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        }
    }
    e.visit(&mut Varies).is_continue()
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
        Value::Period(p) => SqlType::Period(p.kind.elem()),
    };
    values_to_array(ty, std::iter::once(v))
}

/// The values of parameters `names` (`?n`) as one array ([`values_column`]).
///
/// # Errors
/// 3939 when a parameter has no value.
pub(crate) fn parameter_column(names: &[&str], params: &[Value]) -> Result<Option<ArrayRef>> {
    let mut values = Vec::with_capacity(names.len());
    for name in names {
        values.push(parameter_value(name, params)?);
    }
    Ok(values_column(&values))
}

/// Parameter values as one array, when they are all of one kind (or NULL): what a column of
/// a batched INSERT's VALUES is, built at once rather than a row at a time. `None` when the
/// kinds differ (the caller then reconciles them value by value).
pub(crate) fn values_column(values: &[&Value]) -> Option<ArrayRef> {
    let mut kind: Option<&Value> = None;
    let mut longest = 1usize;
    for v in values {
        match (kind, v) {
            (_, Value::Null) => {}
            (None, v) => kind = Some(v),
            (Some(k), v) if std::mem::discriminant(k) != std::mem::discriminant(*v) => return None,
            (Some(Value::Decimal(_, a)), Value::Decimal(_, b)) if a != b => return None,
            (Some(Value::Period(a)), Value::Period(b)) if a.kind != b.kind => return None,
            _ => {}
        }
        match v {
            Value::Str(s) => longest = longest.max(s.chars().count()),
            Value::Bytes(b) => longest = longest.max(b.len()),
            _ => {}
        }
    }
    let ty = match kind {
        None => return Some(new_null_array(&DataType::Null, values.len())),
        Some(Value::Str(_)) => SqlType::VarChar(u32::try_from(longest).unwrap_or(u32::MAX)),
        Some(Value::Bytes(_)) => SqlType::VarByte(u32::try_from(longest).unwrap_or(u32::MAX)),
        Some(other) => crate::types::sql_type_of(parameter_array(other).data_type()),
    };
    Some(values_to_array(ty, values.iter().copied()))
}

/// 3939 when the request has no such parameter value.
pub(crate) fn parameter(name: &str, params: &[Value]) -> Result<ArrayRef> {
    parameter_value(name, params).map(parameter_array)
}

/// The value of parameter `name` (`?n`).
///
/// # Errors
/// 3939 when the request has no such parameter value.
pub(crate) fn parameter_value<'v>(name: &str, params: &'v [Value]) -> Result<&'v Value> {
    let n: usize = name
        .strip_prefix('?')
        .and_then(|d| d.parse().ok())
        .ok_or_else(|| Error::Unsupported(format!("the parameter marker {name}")))?;
    n.checked_sub(1)
        .and_then(|i| params.get(i))
        .ok_or(Error::ParameterCount {
            expected: n,
            given: params.len(),
        })
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
        Value::Period(p) => format!(
            "PERIOD '({}, {})'",
            crate::period_text::bound_text(p.kind, p.begin, None),
            crate::period_text::bound_text(p.kind, p.end, None)
        ),
    }
}

/// True if query `q` holds a `?` (or `:name`) marker anywhere.
pub(crate) fn has_placeholder(q: &sqlparser::ast::Query) -> bool {
    use sqlparser::ast::{Expr, Visit, Visitor};
    use std::ops::ControlFlow;
    struct Marker;
    impl Visitor for Marker {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            match is_marker(e) {
                true => ControlFlow::Break(()),
                false => ControlFlow::Continue(()),
            }
        }
    }
    q.visit(&mut Marker).is_break()
}

/// The names of the `?` (or `:name`) markers in `q`, each once, in the order met.
pub(crate) fn markers(q: &sqlparser::ast::Query) -> Vec<String> {
    use sqlparser::ast::{Expr, Visit, Visitor};
    use std::ops::ControlFlow;
    struct Markers(Vec<String>);
    impl Visitor for Markers {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            if let Expr::Value(v) = e {
                if let sqlparser::ast::Value::Placeholder(name) = &v.value {
                    if !self.0.contains(name) {
                        self.0.push(name.clone());
                    }
                }
            }
            ControlFlow::Continue(())
        }
    }
    let mut found = Markers(Vec::new());
    let _ = q.visit(&mut found);
    found.0
}

/// True for a `?` (or `:name`) marker.
pub(crate) fn is_marker(e: &sqlparser::ast::Expr) -> bool {
    matches!(e, sqlparser::ast::Expr::Value(v) if matches!(v.value, sqlparser::ast::Value::Placeholder(_)))
}
