//! The one-row `INSERT … VALUES (…)`: the row goes to storage as values, with no one-row
//! Arrow batch in between (a prepared producer's `INS q (CURRENT_TIMESTAMP, ?, ?)` run once per
//! message is the case that matters).
//!
//! A `?` parameter is taken as its value; a value of the request (CURRENT_TIMESTAMP, …) is
//! taken without binding; any other expression is bound and evaluated as usual (a literal
//! without evaluation). Each value is then converted to its column's type.
//!
//! Invariant: every value stored is the one [`Exec::conform`] stores for it. A value is kept
//! as it is only where conform provably leaves it unchanged (an integer within the column's
//! range, a string within the column's length, a DECIMAL of the column's scale and precision,
//! a timestamp into `TIMESTAMP(6)`, …); every other value goes through conform itself as the
//! one-element array a parameter binds as ([`crate::params::parameter_array`]). Tables
//! with CHECK constraints take the batch path, which evaluates them.

use crate::bind::Scope;
use crate::error::Result;
use crate::exec::Exec;
use crate::expr::Expr;
use crate::ops::single_row;
use arrow::array::ArrayRef;
use arrow::datatypes::{DataType, TimeUnit};
use smallvec::SmallVec;
use sqlparser::ast;
use std::sync::Arc;
use tdlite_storage::catalog::{Column, DefaultValue};
use tdlite_storage::table::Table;
use tdlite_storage::types::{value_at, SqlType, Value};
use tdlite_storage::StorageError;

/// One cell of the row before conversion: a parameter's value, a value, or an evaluated
/// expression's array.
enum Cell {
    Param(Value),
    Value(Value),
    Array(ArrayRef),
}

impl Exec<'_> {
    /// Inserts the one VALUES row `row` into `targets` of `table` (`None`: every column, in
    /// order); other columns get their defaults. `None` when the row path does not apply (the
    /// table has CHECK constraints): the caller then takes the batch path.
    ///
    /// As the batch path does, every cell is evaluated first (in the row's order), then each
    /// column in the table's order gets its cell converted or its default: the first failing
    /// step's error is the one raised. A column named twice takes its first cell.
    ///
    /// # Errors
    /// 3812/3813 arity, conversion errors, and storage's (3811, 2801, 2802, 2803).
    pub(crate) fn insert_row(
        &mut self,
        table: &Arc<Table>,
        targets: Option<&[usize]>,
        row: &[ast::Expr],
    ) -> Result<Option<u64>> {
        // CHECK constraints and DEFAULT cells take the general path
        if crate::dml::has_row_checks(table) || crate::default_cells::any_default(row) {
            return Ok(None);
        }
        let columns = &table.schema.columns;
        crate::dml::check_arity(row.len(), targets.map_or(columns.len(), <[usize]>::len))?;
        // inline for a row of a few cells: one row per request allocates no list of them
        let mut cells: SmallVec<[Option<Cell>; 8]> = SmallVec::with_capacity(row.len());
        for e in row {
            cells.push(Some(self.cell(e)?));
        }
        let mut values = Vec::with_capacity(columns.len());
        for (i, col) in columns.iter().enumerate() {
            let k = match targets {
                None => Some(i),
                Some(t) => t.iter().position(|&c| c == i),
            };
            let v = match k.and_then(|k| Some((cells.get_mut(k)?.take()?, &row[k]))) {
                Some((c, e)) => self.conform_cell(col, c, e)?,
                None => self.default_value(col)?,
            };
            values.push(v);
        }
        crate::identity::fill_row(self.txn, table, &mut values)?;
        // after every conversion, as the batch path checks
        for (v, col) in values.iter().zip(columns) {
            if v.is_null() && !col.nullable {
                return Err(StorageError::NotNull(col.name.clone()).into());
            }
        }
        self.txn.insert(table, values)?;
        Ok(Some(1))
    }

    /// A VALUES cell: a parameter's value, or the expression evaluated.
    fn cell(&mut self, e: &ast::Expr) -> Result<Cell> {
        if let ast::Expr::Value(v) = e {
            if let ast::Value::Placeholder(name) = &v.value {
                return Ok(Cell::Param(
                    crate::params::parameter_value(name, self.params)?.clone(),
                ));
            }
        }
        // a value of the request (CURRENT_TIMESTAMP, …) needs no binding
        if let ast::Expr::Function(f) = e {
            let mut buf = [0u8; NAME_MAX];
            if let (None, Some(name)) = (&f.over, upper_name(&f.name, &mut buf)) {
                if let Some(v) = self.clock_call(name, f)? {
                    return Ok(Cell::Value(v));
                }
                if let Some(a) = self.current_call(name, f)? {
                    return Ok(literal_cell(a));
                }
            }
        }
        match self.bind_expr(e, &Scope::default(), None)? {
            Expr::Literal(a) if a.len() == 1 => Ok(literal_cell(a)),
            // an ANSI session's character literal: its case specificity does not matter here
            Expr::CaseSpecific(inner) => match *inner {
                Expr::Literal(a) if a.len() == 1 => Ok(literal_cell(a)),
                other => Ok(Cell::Array(other.eval(&single_row())?)),
            },
            bound => Ok(Cell::Array(bound.eval(&single_row())?)),
        }
    }

    /// A cell, the value of `e`, converted to `col`'s type, as
    /// [`Exec::conform_formatted`] converts it.
    fn conform_cell(&self, col: &Column, cell: Cell, e: &ast::Expr) -> Result<Value> {
        let a = match cell {
            Cell::Value(v) => match as_stored(col, v) {
                Ok(v) => return Ok(v),
                Err(v) => crate::params::parameter_array(&v),
            },
            Cell::Param(v) => match as_stored(col, v) {
                Ok(v) => return Ok(v),
                Err(v) => crate::dml::parameter_for(col, crate::params::parameter_array(&v))?,
            },
            Cell::Array(a) => a,
        };
        // a FORMAT of its own matters only where a value becomes text
        let own = match col.ty.is_character() && *a.data_type() != DataType::Utf8 {
            true => crate::names::own_format(e, &Scope::default()),
            false => None,
        };
        Ok(value_at(
            self.conform_formatted(col, &a, own.as_deref())?.as_ref(),
            0,
        ))
    }

    /// `col`'s default for a row that does not name it.
    fn default_value(&self, col: &Column) -> Result<Value> {
        let v = match &col.default {
            None => Some(Value::Null),
            Some(DefaultValue::Const(v)) => Some(v.clone()),
            Some(DefaultValue::CurrentTimestamp) => Some(Value::Timestamp(self.now_us())),
            Some(_) => None,
        };
        if let Some(Ok(v)) = v.map(|v| as_stored(col, v)) {
            return Ok(v);
        }
        let d = self.default_array(col, 1)?;
        Ok(value_at(self.conform(col, &d)?.as_ref(), 0))
    }
}

/// The longest function name [`upper_name`] gives: longer than any value of the request
/// (CURRENT_TIMESTAMP and the like, see [`Exec::current_call`]).
const NAME_MAX: usize = 24;

/// A one-part function name in upper case, written into `buf` (a per-row call allocates
/// nothing); `None` for a longer or qualified name, which is no value of the request.
fn upper_name<'b>(name: &ast::ObjectName, buf: &'b mut [u8; NAME_MAX]) -> Option<&'b str> {
    let [ast::ObjectNamePart::Identifier(i)] = name.0.as_slice() else {
        return None;
    };
    let out = buf.get_mut(..i.value.len())?;
    out.copy_from_slice(i.value.as_bytes());
    out.make_ascii_uppercase();
    std::str::from_utf8(out).ok()
}

/// A one-row literal as a cell: its value where the value's own array
/// ([`crate::params::parameter_array`]) has the literal's type, so [`Exec::conform_cell`]
/// converts it exactly as it would the literal; else the array itself.
fn literal_cell(a: ArrayRef) -> Cell {
    let one_to_one = matches!(
        a.data_type(),
        DataType::Int64
            | DataType::Float64
            | DataType::Utf8
            | DataType::Date32
            | DataType::Time64(TimeUnit::Microsecond)
            | DataType::Timestamp(TimeUnit::Microsecond, None)
    );
    if one_to_one {
        Cell::Value(value_at(a.as_ref(), 0))
    } else {
        Cell::Array(a)
    }
}

/// `Ok(v)` (or the padded string of a CHAR column) when [`Exec::conform`] would store `v`
/// exactly so; `Err(v)`, handed back, when it needs conform's own conversion.
fn as_stored(col: &Column, v: Value) -> std::result::Result<Value, Value> {
    let fits = match (&v, col.ty) {
        (Value::Null, _) => true,
        (Value::Int(_), SqlType::BigInt) => true,
        (Value::Int(i), SqlType::Integer) => i32::try_from(*i).is_ok(),
        (Value::Int(i), SqlType::SmallInt) => i16::try_from(*i).is_ok(),
        (Value::Int(i), SqlType::ByteInt) => i8::try_from(*i).is_ok(),
        (Value::Decimal(d, s), SqlType::Decimal(p, scale)) => {
            *s == scale && d.unsigned_abs() < 10u128.pow(u32::from(p.min(38)))
        }
        (Value::Float(f), SqlType::Float) => f.is_finite() && !(*f == 0.0 && f.is_sign_negative()),
        (Value::Str(s), SqlType::VarChar(n)) => !col.uppercase && fits_chars(s, n),
        (Value::Str(s), SqlType::Char(n)) if !col.uppercase && fits_chars(s, n) => {
            let Value::Str(s) = v else { return Err(v) };
            return Ok(Value::Str(crate::limits::pad_end(&s, n as usize)));
        }
        (Value::Date(_), SqlType::Date) => true,
        (Value::Time(_), SqlType::Time(6)) | (Value::Timestamp(_), SqlType::Timestamp(6)) => true,
        _ => false,
    };
    if fits {
        Ok(v)
    } else {
        Err(v)
    }
}

/// True when `s` has at most `n` characters (counted only when its bytes could exceed `n`).
fn fits_chars(s: &str, n: u32) -> bool {
    let n = n as usize;
    s.len() <= n || s.chars().count() <= n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(parts: &[&str]) -> ast::ObjectName {
        ast::ObjectName(
            parts
                .iter()
                .map(|p| ast::ObjectNamePart::Identifier(ast::Ident::new(*p)))
                .collect(),
        )
    }

    #[test]
    fn upper_name_gives_one_part_names_up_to_its_limit_in_upper_case() {
        let mut buf = [0u8; NAME_MAX];
        let got = upper_name(&name(&["current_Timestamp"]), &mut buf);
        assert_eq!(got, Some("CURRENT_TIMESTAMP"));
        let mut buf = [0u8; NAME_MAX];
        let exact = "u".repeat(NAME_MAX);
        assert_eq!(
            upper_name(&name(&[&exact]), &mut buf),
            Some("U".repeat(NAME_MAX).as_str())
        );
        let mut buf = [0u8; NAME_MAX];
        assert_eq!(
            upper_name(&name(&[&"u".repeat(NAME_MAX + 1)]), &mut buf),
            None
        );
        let mut buf = [0u8; NAME_MAX];
        assert_eq!(upper_name(&name(&["syslib", "user"]), &mut buf), None);
        // non-ASCII letters stay as they are, as to_ascii_uppercase leaves them
        let mut buf = [0u8; NAME_MAX];
        assert_eq!(upper_name(&name(&["dätum"]), &mut buf), Some("DäTUM"));
    }
}
