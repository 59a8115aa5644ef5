//! INSERT, UPDATE, DELETE and the consume step of SELECT AND CONSUME.
//!
//! Values are converted to the target column types in whole batches (Arrow `cast`; a lone
//! VALUES row takes the value path of `insert_row.rs`, which stores the same values), defaults
//! are filled from the request's CURRENT_TIMESTAMP, and the rows go to storage as whole
//! columns (`Transaction::insert_columns`), which checks each row against the constraints
//! that need it (3811, 2801, 2802, 2803).
//!
//! The consume here never waits: it takes the oldest row or reports that there is none. The
//! waiting (the delayed state) belongs to the session, outside every storage lock.

use crate::bind::{Scope, ScopeColumn};
use crate::bound_from::ROW_ID;
use crate::bound_join::{BoundJoin, NotKept};
use crate::bound_joined::KeptJoined;
use crate::error::{Error, OrOverflow, Result};
use crate::exec::Exec;
use crate::expr::{cast_to_sql, repeat, Expr};
use crate::format::Pads;
use crate::names::table_scope;
use crate::ops::{mask_of, single_row};
use crate::result::Rows;
use arrow::array::{Array, ArrayRef, AsArray, StringArray, TimestampMicrosecondArray};
use arrow::compute::{concat, filter_record_batch};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use sqlparser::ast;
use std::sync::Arc;
use tdlite_storage::catalog::{Column, DefaultValue};
use tdlite_storage::table::Table;
use tdlite_storage::types::{value_at, values_to_array, SqlType, Value};
use tdlite_storage::StorageError;

/// What one consume asks for.
#[derive(Clone, Copy)]
pub struct Ask<'a> {
    /// At most this many rows (`TOP n`).
    pub top: usize,
    /// Only rows this condition accepts (selective consume).
    pub filter: Option<&'a crate::consume_filter::ConsumeFilter>,
    /// In a queue that delivers at QITS, only rows whose QITS is at most this (µs since the
    /// epoch), as the session's `Shared::due_by` says.
    pub due_by: i64,
    /// `LEASE`: take the rows for this many µs, outside the transaction (docs/queues.md,
    /// Leases); the result then ends with a `LEASE_ID` column.
    pub lease: Option<i64>,
}

/// A bound select list of a consume: expressions over the queue table's columns.
pub struct ConsumeList {
    items: Vec<(Expr, Field)>,
    /// For a list of plain columns, the result's schema (its types are the columns' own).
    plain: Option<SchemaRef>,
    /// When every item is a column: their positions (only those values are read).
    columns: Option<Vec<usize>>,
}

impl ConsumeList {
    fn new(items: Vec<(Expr, Field)>, plain: Option<SchemaRef>) -> Self {
        let columns = items
            .iter()
            .map(|(e, _)| match e {
                Expr::Column { index, .. } => Some(*index),
                _ => None,
            })
            .collect();
        ConsumeList {
            items,
            plain,
            columns,
        }
    }

    /// True for a list of plain column names (bound from the table's columns alone).
    pub(crate) fn is_plain(&self) -> bool {
        self.plain.is_some()
    }
}

impl Exec<'_> {
    pub(crate) fn default_array(&self, col: &Column, n: usize) -> Result<ArrayRef> {
        let one: ArrayRef = match &col.default {
            None => values_to_array(col.ty, [Value::Null].iter()),
            Some(DefaultValue::Const(v)) => values_to_array(col.ty, [v.clone()].iter()),
            Some(DefaultValue::CurrentTimestamp) => {
                Arc::new(TimestampMicrosecondArray::from(vec![self.now_us()]))
            }
            Some(DefaultValue::CurrentDate) => cast_to_sql(
                &(Arc::new(TimestampMicrosecondArray::from(vec![self.now_us()])) as ArrayRef),
                SqlType::Date,
            )?,
            Some(DefaultValue::CurrentTime) => {
                Arc::new(arrow::array::Time64MicrosecondArray::from(vec![self
                    .now_us()
                    .rem_euclid(86_400_000_000)]))
            }
            Some(DefaultValue::User) => Arc::new(StringArray::from(vec![self.user.to_string()])),
        };
        repeat(&cast_to_sql(&one, col.ty)?, n)
    }

    /// The view `name` names as an updatable view (view_dml.rs), or `None` if it names no
    /// view (a table, or nothing: the statement's own lookup reports that).
    ///
    /// # Errors
    /// 3823 for a view that is not updatable.
    fn updatable_view(&self, name: &ast::ObjectName) -> Result<Option<crate::view_dml::Updatable>> {
        let Ok(t) = self.must_get_table(name) else {
            return Ok(None);
        };
        if t.schema.view.is_none() {
            return Ok(None);
        }
        let columns = |base: &ast::ObjectName| -> Result<Vec<String>> {
            let b = self.must_get_table(base)?;
            Ok(b.schema.columns.iter().map(|c| c.name.clone()).collect())
        };
        crate::view_dml::updatable(&t.schema, columns).map(Some)
    }

    /// Runs `f`, a statement rewritten onto a view's table, one view deeper (9913 past the
    /// views' nesting limit, as reading them is).
    fn through_view<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        if self.view_depth >= crate::view::MAX_DEPTH {
            return Err(Error::TypeMismatch(
                "views nest too deeply (a view that names itself?)".into(),
            ));
        }
        self.view_depth += 1;
        let r = f(self);
        self.view_depth -= 1;
        r
    }

    /// `n` rows of the default `d` names for the column `target` of `table` (default_cells.rs).
    ///
    /// # Errors
    /// 3810 for `DEFAULT(c)` of a column `table` lacks; the default's conversion errors.
    pub(crate) fn default_cell(
        &self,
        table: &Table,
        target: usize,
        d: &crate::default_cells::DefaultOf,
        n: usize,
    ) -> Result<ArrayRef> {
        let col = match d {
            crate::default_cells::DefaultOf::Own => target,
            crate::default_cells::DefaultOf::Column(name) => table
                .schema
                .column_index(name)
                .ok_or_else(|| Error::ColumnNotFound(name.clone()))?,
        };
        self.default_array(&table.schema.columns[col], n)
    }

    /// `a` converted to `col`'s type as an INSERT or UPDATE stores it: [`Exec::conform`],
    /// but a number, date or time with a FORMAT of its own (`own`: `n (FORMAT '9(5)')`, a
    /// column declared with one) going to a character column is written by that FORMAT, as
    /// Teradata's rule has it ("the format of the original numeric value determines how to
    /// display the data"; Data Types and Literals, Numeric-to-Character Conversion).
    ///
    /// # Errors
    /// As [`Exec::conform`] (a FORMAT tdlite cannot write gives the plain conversion).
    pub(crate) fn conform_formatted(
        &self,
        col: &Column,
        a: &ArrayRef,
        own: Option<&str>,
    ) -> Result<ArrayRef> {
        match own {
            Some(f) if col.ty.is_character() && !matches!(a.data_type(), DataType::Utf8) => {
                let text = crate::format::write_own(a, col.ty, Some(f), Pads::Keep)?;
                self.conform(col, &text)
            }
            _ => self.conform(col, a),
        }
    }

    /// Converts a source column to a table column's type (CHAR padding included), applying
    /// UPPERCASE and TIMESTAMP/TIME precision. A number going to a character column is
    /// written by its type's default FORMAT, pads kept, then cut to the column's length.
    pub fn conform(&self, col: &Column, a: &ArrayRef) -> Result<ArrayRef> {
        if self.ansi {
            check_truncation(col, a)?;
        }
        // character input to a DATE, TIMESTAMP or number column with a FORMAT is read by
        // that format ('2020/01/02' into DATE FORMAT 'YYYY/MM/DD', '1,234.50' into DECIMAL
        // FORMAT 'ZZZ,ZZ9.99': Data Types and Literals, "FORMAT can also be used for input");
        // a value that does not fit it is read as usual (the ANSI form '2020-01-02', '12.5')
        let parsed;
        let a = match (&col.format, a.data_type(), col.ty) {
            (
                Some(mask),
                arrow::datatypes::DataType::Utf8,
                SqlType::Date | SqlType::Timestamp(_),
            ) => {
                parsed = by_format(a, col.ty, mask)?;
                &parsed
            }
            (Some(mask), arrow::datatypes::DataType::Utf8, ty)
                if ty.arrow_type().is_numeric() && crate::numfmt::is_numeric(mask) =>
            {
                parsed = by_format(a, col.ty, mask)?;
                &parsed
            }
            // a number assigned to a character column is written by its type's default
            // FORMAT, pads kept, then cut or padded to the column's length without an error
            // (Data Types and Literals, "Truncation During Conversion": 2 into a VARCHAR(1)
            // is one blank, as BYTEINT's `-(3)9` writes it `'   2'`)
            (_, t, ty) if ty.is_character() && t.is_numeric() => {
                parsed = crate::format::write_own(a, ty, None, crate::format::Pads::Keep)?;
                &parsed
            }
            _ => a,
        };
        // one zero is stored, as comparisons see one (see `positive_zero`)
        let mut out = crate::expr::positive_zero(&cast_to_sql(a, col.ty)?);
        // (a CHAR(n) value comes padded to n from `cast_to_sql`)
        if col.ty.is_character() && col.uppercase {
            let s = out.as_string::<i32>();
            out = Arc::new(StringArray::from_iter(
                s.iter().map(|v| v.map(str::to_uppercase)),
            ));
        }
        if let SqlType::Timestamp(p) | SqlType::Time(p) = col.ty {
            if p < 6 {
                let unit = 10i64.pow(6 - p as u32);
                // a value so far out of range that its truncation overflows is 2616
                let vals: Vec<Option<i64>> = (0..out.len())
                    .map(|i| match value_at(out.as_ref(), i) {
                        Value::Timestamp(t) | Value::Time(t) => {
                            t.checked_sub(t.rem_euclid(unit)).map(Some).or_overflow()
                        }
                        _ => Ok(None),
                    })
                    .collect::<Result<_>>()?;
                let v: Vec<Value> = vals
                    .into_iter()
                    .map(|o| {
                        o.map_or(Value::Null, |t| {
                            if matches!(col.ty, SqlType::Time(_)) {
                                Value::Time(t)
                            } else {
                                Value::Timestamp(t)
                            }
                        })
                    })
                    .collect();
                out = values_to_array(col.ty, v.iter());
            }
        }
        Ok(out)
    }

    /// Inserts the rows of `source` into `targets` (column positions) of `table`; other columns
    /// get their defaults. With `skip_duplicates`, duplicate rows of a SET table are dropped
    /// silently (Teradata mode INSERT … SELECT). Returns the number of rows inserted.
    ///
    /// # Errors
    /// 3811, 2801, 2802, 2803 from storage; conversion errors from the values.
    pub fn insert_batch(
        &mut self,
        table: &Arc<Table>,
        targets: &[usize],
        source: &RecordBatch,
        skip_duplicates: bool,
    ) -> Result<u64> {
        self.insert_batch_numbered(table, targets, source, skip_duplicates, true)
    }

    /// [`Exec::insert_batch`]; with `number` false, an identity column keeps the values
    /// `source` gives (a table rebuilt by ALTER TABLE keeps its rows' numbers).
    pub(crate) fn insert_batch_numbered(
        &mut self,
        table: &Arc<Table>,
        targets: &[usize],
        source: &RecordBatch,
        skip_duplicates: bool,
        number: bool,
    ) -> Result<u64> {
        let n = source.num_rows();
        let mut cols: Vec<ArrayRef> = Vec::with_capacity(table.schema.columns.len());
        for (i, col) in table.schema.columns.iter().enumerate() {
            let a = match targets.iter().position(|&t| t == i) {
                Some(k) => {
                    let field = source.schema_ref().field(k).clone();
                    let own = field.metadata().get("format").map(String::as_str);
                    self.conform_formatted(col, source.column(k), own)?
                }
                None => {
                    let d = self.default_array(col, n)?;
                    self.conform(col, &d)?
                }
            };
            cols.push(a);
        }
        if number {
            crate::identity::fill_columns(self.txn, table, &mut cols, n)?;
        }
        reject_nulls(table, cols.iter().enumerate())?;
        self.check_constraints(table, &cols, n)?;
        Ok(self.txn.insert_columns(table, &cols, skip_duplicates)?)
    }

    pub(crate) fn target_columns(table: &Table, columns: &[ast::ObjectName]) -> Result<Vec<usize>> {
        if columns.is_empty() {
            return Ok((0..table.schema.columns.len()).collect());
        }
        columns
            .iter()
            .map(|c| {
                // the column's own name: the last part of a qualified one
                let found = match c.0.last() {
                    Some(ast::ObjectNamePart::Identifier(i)) => table.schema.column_index(&i.value),
                    _ => None,
                };
                found.ok_or_else(|| Error::ColumnNotFound(tdlite_parser::object_name_string(c)))
            })
            .collect()
    }

    /// Evaluates the table's CHECK constraints on new rows (columns in table order); a
    /// condition that is false (not NULL) for any row fails with 5317. Then its partitioning's
    /// conditions (partition.rs): one that is not true for a row fails with 5728. Both are
    /// parsed and bound once per table ([`RowConditions`]).
    fn check_constraints(&mut self, table: &Table, cols: &[ArrayRef], n: usize) -> Result<()> {
        if !has_row_checks(table) || n == 0 {
            return Ok(());
        }
        let batch = RecordBatch::try_new(table.schema.arrow.clone(), cols.to_vec())?;
        let conds = self.row_conditions(table)?;
        for (field, cond) in &conds.checks {
            let v = cond.eval(&batch)?;
            let v = v.as_boolean_opt().ok_or_else(|| {
                Error::TypeMismatch(format!("a CHECK of {field} is no condition"))
            })?;
            if v.iter().any(|x| x == Some(false)) {
                return Err(Error::CheckViolation(field.clone()));
            }
        }
        for cond in &conds.partitions {
            let v = cond.eval(&batch)?;
            let v = v.as_boolean_opt().ok_or_else(|| {
                Error::Internal("a partitioning's condition is no condition".into())
            })?;
            if v.iter().any(|x| x != Some(true)) {
                return Err(Error::PartitionViolation(table.schema.name.clone()));
            }
        }
        Ok(())
    }

    /// `table`'s CHECK and partitioning conditions, bound: from the database's cache, or
    /// parsed and bound now and kept there.
    fn row_conditions(&mut self, table: &Table) -> Result<Arc<RowConditions>> {
        // binding reads the session mode (ANSI literals compare case specifically)
        let key = (table.id, self.ansi);
        if let Some(c) = self.shared.row_conditions.lock().get(&key) {
            return Ok(c.clone());
        }
        let scope = table_scope(table, &table.schema.name);
        let mut bind = |sql: &str, what: &str| -> Result<Expr> {
            let e = tdlite_parser::parse_expression(sql)
                .map_err(|e| Error::Internal(format!("stored {what} '{sql}': {e}")))?;
            self.bind_expr(&e, &scope, None)
        };
        let mut conds = RowConditions::default();
        // a CHECK that may read CURRENT_DATE, USER, … is bound again at each statement (a
        // partitioning's bounds are fixed when the table is made, as Teradata resolves them)
        let mut keep = true;
        for (column, sql) in &table.schema.checks {
            let field = match column {
                Some(c) => format!("{}.{c}", table.schema.name),
                None => table.schema.name.clone(),
            };
            keep &= tdlite_parser::parse_expression(sql)
                .is_ok_and(|e| !crate::names::reads_request_values(&e));
            conds.checks.push((field, bind(sql, "CHECK")?));
        }
        for sql in &table.schema.partition_checks {
            conds.partitions.push(bind(sql, "partitioning")?);
        }
        let conds = Arc::new(conds);
        if keep {
            (self.shared.row_conditions.lock()).insert(key, conds.clone());
        }
        Ok(conds)
    }

    /// The columns `table`'s partitioning reads (its RANGE_N and CASE_N tests): from its
    /// bound row conditions where they are kept, else its partitioning conditions bound
    /// here (not its CHECKs, which only rows written need); none for a table without one.
    ///
    /// # Errors
    /// The errors of binding the conditions (not expected for a table that was created).
    pub(crate) fn partitioning_columns(&mut self, table: &Table) -> Result<Vec<usize>> {
        if table.schema.partition_checks.is_empty() {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        let kept = (self.shared.row_conditions.lock())
            .get(&(table.id, self.ansi))
            .cloned();
        match kept {
            Some(conds) => conds
                .partitions
                .iter()
                .for_each(|p| p.columns_used(&mut out)),
            None => {
                let scope = table_scope(table, &table.schema.name);
                for sql in &table.schema.partition_checks {
                    let e = tdlite_parser::parse_expression(sql).map_err(|e| {
                        Error::Internal(format!("stored partitioning '{sql}': {e}"))
                    })?;
                    self.bind_expr(&e, &scope, None)?.columns_used(&mut out);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }

    /// INSERT … VALUES / INSERT … SELECT.
    ///
    /// # Errors
    /// 3807, 3810, 3812/3813 arity, and the errors of [`Exec::insert_batch`].
    pub fn insert(&mut self, ins: &ast::Insert) -> Result<u64> {
        let name = match &ins.table {
            ast::TableObject::TableName(n) => n,
            other => return Err(Error::Unsupported(format!("INSERT INTO {other}"))),
        };
        if let Some(view) = self.updatable_view(name)? {
            let rewritten = crate::view_dml::insert(ins, &view)?;
            return self.through_view(|ex| ex.insert(&rewritten));
        }
        let table = self.target_table(name)?;
        // the columns named, if any (the list of every column is made only where needed)
        let named = match ins.columns.is_empty() {
            true => None,
            false => Some(Self::target_columns(&table, &ins.columns)?),
        };
        let Some(source) = &ins.source else {
            // `INSERT INTO t DEFAULT VALUES`: one row of every column's default
            let row = crate::default_cells::default_row(&table);
            let targets = Self::target_columns(&table, &[])?;
            let batch = self.values_batch(&[row], &table, &targets)?;
            return self.insert_batch(&table, &targets, &batch, false);
        };
        // one row of values (a prepared producer's INSERT) goes to storage as values
        if let ast::SetExpr::Values(v) = source.body.as_ref() {
            if let ([row], true) = (v.rows.as_slice(), self.param_rows.is_empty()) {
                if let Some(n) = self.insert_row(&table, named.as_deref(), &row.content)? {
                    return Ok(n);
                }
            }
        }
        let targets = match named {
            Some(t) => t,
            None => Self::target_columns(&table, &[])?,
        };
        let (batches, from_select) = match source.body.as_ref() {
            ast::SetExpr::Values(v) if !self.param_rows.is_empty() => {
                (vec![self.parameter_sets_batch(v, &table, &targets)?], false)
            }
            ast::SetExpr::Values(v) => {
                let rows: Vec<Vec<ast::Expr>> = v.rows.iter().map(|r| r.content.clone()).collect();
                (vec![self.values_batch(&rows, &table, &targets)?], false)
            }
            _ => {
                // the query's batches go in one by one, as they came (a streamed query gives
                // one per segment; storage takes whole segments without copying)
                let rows = self.run_query(source)?;
                let width = rows.schema.fields().len();
                check_arity(width, targets.len())?;
                (rows.batches, true)
            }
        };
        // Teradata mode drops the duplicate rows an INSERT … SELECT gives a SET table; ANSI
        // mode refuses them (2802; SQL Data Manipulation Language, INSERT … SELECT)
        let skip = from_select
            && !self.ansi
            && table.schema.kind == tdlite_storage::catalog::TableKind::Set;
        let mut inserted = 0;
        for batch in &batches {
            check_arity(batch.num_columns(), targets.len())?;
            inserted += self.insert_batch(&table, &targets, batch, skip)?;
        }
        Ok(inserted)
    }

    /// The VALUES rows `rows` of an INSERT into `targets` of `table` as one batch, a cell
    /// going to a character column already text, written by a FORMAT it has of its own (see
    /// [`Exec::conform_formatted`]; each row by its own).
    pub(crate) fn values_batch(
        &mut self,
        rows: &[Vec<ast::Expr>],
        table: &Table,
        targets: &[usize],
    ) -> Result<RecordBatch> {
        let width = targets.len();
        let one = single_row();
        let scope = Scope::default();
        // a batched INSERT of `?` markers: each column's parameters as one array
        if rows.len() > 1 {
            if let Some(batch) = self.parameter_rows(rows, table, targets)? {
                return Ok(batch);
            }
        }
        let mut columns: Vec<Vec<ArrayRef>> = Vec::new();
        for row in rows {
            check_arity(row.len(), width)?;
            if columns.is_empty() {
                columns = vec![Vec::new(); row.len()];
            }
            for (k, e) in row.iter().enumerate() {
                let mut a = match crate::default_cells::default_of(e) {
                    Some(d) => self.default_cell(table, targets[k], &d, 1)?,
                    None => self.bind_expr(e, &scope, None)?.eval(&one)?,
                };
                let col = &table.schema.columns[targets[k]];
                if crate::params::is_marker(e) {
                    a = parameter_for(col, a)?;
                } else if col.ty.is_character() && *a.data_type() != DataType::Utf8 {
                    // text now, each row by its own FORMAT (the column is one type after)
                    let own = crate::names::own_format(e, &scope);
                    a = self.conform_formatted(col, &a, own.as_deref())?;
                }
                columns[k].push(a);
            }
        }
        let mut fields = Vec::new();
        let mut arrays = Vec::new();
        for (k, parts) in columns.iter().enumerate() {
            let a = concat_mixed(parts)?;
            fields.push(Field::new(format!("c{k}"), a.data_type().clone(), true));
            arrays.push(a);
        }
        Ok(RecordBatch::try_new_with_options(
            Arc::new(Schema::new(fields)),
            arrays,
            &arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(rows.len())),
        )?)
    }

    /// The VALUES row of a batched INSERT (`Session::execute_batch`): one row per parameter
    /// set. A marker's column whose values are of one kind is built at once; one of mixed
    /// kinds (an `int` beside a `Decimal`, DECIMALs of two scales) converts each kind to the
    /// target column's type, as a set on its own would, and the rows are picked back in order.
    /// A cell that is the same for every set ([`crate::params::batch_cells`]) is evaluated
    /// once and repeated.
    fn parameter_sets_batch(
        &mut self,
        values: &ast::Values,
        table: &Table,
        targets: &[usize],
    ) -> Result<RecordBatch> {
        let (row, sources) = match values.rows.as_slice() {
            [row] => (&row.content, crate::params::batch_cells(&row.content)),
            _ => {
                return Err(Error::Internal(
                    "a batched INSERT has one VALUES row".into(),
                ))
            }
        };
        let sources = sources
            .ok_or_else(|| Error::Internal("a batched INSERT is not VALUES (?, …)".into()))?;
        let width = sources.len();
        if width > targets.len() {
            return Err(Error::TooManyValues);
        }
        let n = self.param_rows.len();
        let mut fields = Vec::with_capacity(width);
        let mut arrays = Vec::with_capacity(width);
        let mut cells: Vec<&Value> = Vec::with_capacity(n);
        for ((&target, source), e) in targets.iter().zip(&sources).zip(row) {
            let Some(k) = *source else {
                let a = match crate::default_cells::default_of(e) {
                    Some(d) => self.default_cell(table, target, &d, n)?,
                    None => {
                        let a = self
                            .bind_expr(e, &Scope::default(), None)?
                            .eval(&single_row())?;
                        repeat(&a, n)?
                    }
                };
                fields.push(Field::new(
                    format!("c{}", fields.len()),
                    a.data_type().clone(),
                    true,
                ));
                arrays.push(a);
                continue;
            };
            cells.clear();
            for set in self.param_rows {
                cells.push(set.get(k).ok_or(Error::ParameterCount {
                    expected: k + 1,
                    given: set.len(),
                })?);
            }
            let col = &table.schema.columns[target];
            let a = match crate::params::values_column(&cells) {
                Some(a) => parameter_for(col, a)?,
                None => self.mixed_column(col, &cells)?,
            };
            fields.push(Field::new(
                format!("c{}", fields.len()),
                a.data_type().clone(),
                true,
            ));
            arrays.push(a);
        }
        Ok(RecordBatch::try_new_with_options(
            Arc::new(Schema::new(fields)),
            arrays,
            &arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(n)),
        )?)
    }

    /// Parameter values of several kinds as one column of `col`'s type: each kind (a DECIMAL
    /// scale counting as a kind) built as an array of its own with NULL elsewhere and
    /// converted to the column's type, then each row taken from its kind's array.
    fn mixed_column(&self, col: &Column, cells: &[&Value]) -> Result<ArrayRef> {
        // a DECIMAL's scale and a PERIOD's element kind count as kinds of their own
        let key = |v: &Value| {
            (
                std::mem::discriminant(v),
                match v {
                    Value::Decimal(_, s) => Some(i16::from(*s)),
                    Value::Period(p) => Some(p.kind as i16),
                    _ => None,
                },
            )
        };
        let mut keys = Vec::new();
        let mut pick: Vec<(usize, usize)> = Vec::with_capacity(cells.len());
        for (r, v) in cells.iter().enumerate() {
            let g = if matches!(v, Value::Null) {
                0
            } else {
                let k = key(v);
                keys.iter().position(|x| *x == k).unwrap_or_else(|| {
                    keys.push(k);
                    keys.len() - 1
                })
            };
            pick.push((g, r));
        }
        let mut groups = Vec::with_capacity(keys.len());
        for group in &keys {
            let members: Vec<&Value> = cells
                .iter()
                .map(|v| {
                    if !matches!(v, Value::Null) && key(v) == *group {
                        *v
                    } else {
                        &Value::Null
                    }
                })
                .collect();
            let a = crate::params::values_column(&members)
                .ok_or_else(|| Error::Internal("a parameter kind split in two".into()))?;
            groups.push(self.conform(col, &parameter_for(col, a)?)?);
        }
        let refs: Vec<&dyn Array> = groups.iter().map(|a| a.as_ref()).collect();
        Ok(arrow::compute::interleave(&refs, &pick)?)
    }

    /// VALUES rows of `?` markers only, as a batch of one array per column when each column's
    /// values are of one kind; `None` otherwise (`values_batch` then goes cell by cell).
    fn parameter_rows(
        &self,
        rows: &[Vec<ast::Expr>],
        table: &Table,
        targets: &[usize],
    ) -> Result<Option<RecordBatch>> {
        let width = targets.len();
        let marker = |e: &ast::Expr| match e {
            ast::Expr::Value(v) => match &v.value {
                ast::Value::Placeholder(p) => Some(p.clone()),
                _ => None,
            },
            _ => None,
        };
        let mut names: Vec<Vec<String>> = vec![Vec::with_capacity(rows.len()); width];
        for row in rows {
            if row.len() != width {
                return Ok(None);
            }
            for (k, e) in row.iter().enumerate() {
                match marker(e) {
                    Some(p) => names[k].push(p),
                    None => return Ok(None),
                }
            }
        }
        let mut fields = Vec::with_capacity(width);
        let mut arrays = Vec::with_capacity(width);
        for (k, column) in names.iter().enumerate() {
            let refs: Vec<&str> = column.iter().map(String::as_str).collect();
            let Some(a) = crate::params::parameter_column(&refs, self.params)? else {
                return Ok(None);
            };
            let a = parameter_for(&table.schema.columns[targets[k]], a)?;
            fields.push(Field::new(format!("c{k}"), a.data_type().clone(), true));
            arrays.push(a);
        }
        Ok(Some(RecordBatch::try_new_with_options(
            Arc::new(Schema::new(fields)),
            arrays,
            &arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(rows.len())),
        )?))
    }

    /// The table an UPDATE or DELETE changes, its qualifier (alias or name) and its scope.
    fn table_of(&self, t: &ast::TableWithJoins) -> Result<(Arc<Table>, String, Arc<Scope>)> {
        if !t.joins.is_empty() {
            return Err(Error::Unsupported("joins in UPDATE/DELETE".into()));
        }
        match (&t.relation, crate::target_from::known_as(&t.relation)) {
            (ast::TableFactor::Table { name, .. }, Some(q)) => {
                let (table, scope) = self.target_with_scope(name, &q)?;
                Ok((table, q, scope))
            }
            (other, _) => Err(Error::Unsupported(format!("UPDATE/DELETE of {other}"))),
        }
    }

    /// The rows of `table` that `selection` selects and their ids (`also`, the statement's
    /// expressions bound after the read, an UPDATE's SET values, are resolved before its
    /// subqueries run: `Exec::bind_deferring`). The batch holds the
    /// columns the third value marks, the others NULL (`None`: every column): a caller that
    /// needs more fetches them by id ([`Exec::apply_assignments`]), one that needs only the
    /// ids (DELETE) copies nothing of a wide row.
    fn matching_rows(
        &mut self,
        table: &Arc<Table>,
        scope: &Scope,
        (selection, also): (&Option<ast::Expr>, &[&ast::Expr]),
    ) -> Result<(RecordBatch, Vec<u64>, Option<Vec<bool>>)> {
        // only the columns the condition reads
        let marks = |cond: Option<&Expr>| {
            let mut keep = vec![false; table.schema.columns.len()];
            if let Some(c) = cond {
                c.mark_columns(&mut keep);
            }
            keep
        };
        if let Some(w) = selection {
            if let Some(cached) = self.cached_expr(table, scope, (w, also))? {
                let cond = cached.as_cond(&table.schema);
                // (the bound condition reads the columns its run reads)
                let keep = marks(Some(cond.bound()));
                let (batch, ids) = self.reader().read_where(table, Some(&cond), Some(&keep))?;
                return Ok((batch, ids, Some(keep)));
            }
        }
        // its operands' types checked over no row before a row is read, as a SELECT's WHERE
        // (query.rs `bind_then_read`): a type error is raised over an empty table too; its
        // uncorrelated subqueries run after that (deferred_run.rs)
        let schema = &table.schema.arrow;
        let cond = match selection {
            Some(w) => match self.bind_deferring(&[w], also, scope, schema)? {
                Some(mut c) => c.pop(),
                // a correlated subquery needs the rows: the conjuncts without a subquery read
                // them (through an index where they allow), the others run per row on those
                None => {
                    let ty =
                        |c: usize| Some(table.schema.arrow.fields().get(c)?.data_type().clone());
                    let mut safe = |p: &ast::Expr| self.binds_safely(p, scope, &ty);
                    let (plain, with) = crate::conjuncts::split_subqueries(w, &mut safe);
                    let plain = match plain {
                        Some(p) => {
                            let p = self.bind_expr(&p, scope, None)?;
                            p.check_types(schema)?;
                            Some(p)
                        }
                        None => None,
                    };
                    let (mut batch, ids) =
                        self.reader()
                            .read_where_keeping(table, plain.as_ref(), None)?;
                    let mut ids = arrow::array::UInt64Array::from(ids);
                    // each in turn, bound where it is written (a correlated subquery's block
                    // is the WHERE's own, kept by a plan cache) over the rows the ones before
                    // it kept, so its subqueries run for those rows only, as a SELECT's do
                    // (`Exec::filter_correlated`)
                    let width = batch.num_columns();
                    for c in with {
                        let (cond, wide) =
                            self.with_correlation(scope, batch, |ex| ex.bind_expr(c, scope, None))?;
                        let mask = mask_of(&wide, &cond)?;
                        let kept = arrow::compute::filter(&ids, &mask)?;
                        ids = kept.as_primitive::<arrow::datatypes::UInt64Type>().clone();
                        batch = filter_record_batch(&wide, &mask)?
                            .project(&(0..width).collect::<Vec<_>>())?;
                    }
                    return Ok((batch, ids.values().to_vec(), None));
                }
            },
            None => None,
        };
        let keep = marks(cond.as_ref());
        let (batch, ids) = self
            .reader()
            .read_where_keeping(table, cond.as_ref(), Some(&keep))?;
        Ok((batch, ids, Some(keep)))
    }

    /// UPDATE … SET … [WHERE …]; returns the number of rows changed.
    ///
    /// # Errors
    /// 3807, 3810, 2631 on a write conflict, and constraint errors.
    pub fn update(&mut self, u: &ast::Update) -> Result<u64> {
        if let ast::TableFactor::Table { name, .. } = &u.table.relation {
            if let Some(view) = self.updatable_view(name)? {
                let n = tdlite_parser::object_name_string(name);
                let rewritten = crate::view_dml::update(u, &view, &n)?;
                return self.through_view(|ex| ex.update(&rewritten));
            }
        }
        let from = match &u.from {
            Some(
                ast::UpdateTableFromKind::BeforeSet(f) | ast::UpdateTableFromKind::AfterSet(f),
            ) => Some(f),
            None => None,
        };
        // `UPDATE a FROM t a, s …`: the target is named by an alias of its FROM list
        let target = match from {
            Some(f) => crate::target_from::update_target(&u.table, f),
            None => &u.table,
        };
        let (table, q, scope) = self.table_of(target)?;
        crate::subscribers::refuse_change(&table, "UPDATE")?;
        // the columns set, resolved before anything runs or is read
        for a in &u.assignments {
            assigned_column(&table, a)?;
        }
        let (batch, ids, have, scope) = match from {
            None => {
                // (the SET values resolved before the WHERE's subqueries run)
                let values = set_values(&u.assignments);
                let (batch, ids, have) =
                    self.matching_rows(&table, &scope, (&u.selection, &values))?;
                (batch, ids, have, scope)
            }
            Some(f) => {
                // the target's columns the statement may name, the others fetched if a SET
                // value needs them
                let names = crate::names::names_in(u, f);
                let keep = names.and_then(|n| crate::names::keep_named(&table, &n));
                // a prepared request's kept plan, its SET values bound (bound_joined.rs)
                let statement = (f.as_slice(), u.selection.as_ref(), &u.assignments[..]);
                let target = (&target.relation, q.as_str());
                let block = crate::plan_cache::Block::Update(u);
                let kept = self.kept_joined(block, (&table, &keep), target, statement)?;
                if let Some((j, sets)) = kept {
                    let set = (u.assignments.as_slice(), Some(sets.as_slice()));
                    let rows = (j.batch, j.have);
                    return self.apply_assignments(&table, (&j.scope, false), rows, &j.ids, set);
                }
                let j = self.joined_rows((&table, keep), target, f, u.selection.as_ref(), false)?;
                (j.batch, j.ids, j.have, j.scope)
            }
        };
        // a SET value binds against the target's rows alone only without FROM
        let kept = from.is_none();
        let set = (u.assignments.as_slice(), None);
        self.apply_assignments(&table, (&scope, kept), (batch, have), &ids, set)
    }

    /// Updates the target rows `ids`, whose current values are the first columns of `batch`
    /// (a joined batch may carry more), by `assignments` bound over `scope` (each one's
    /// value given already bound where `given` has it: a kept MERGE's). `have` marks the
    /// target columns `batch` holds (`None`: all of them); a SET value that reads another
    /// column has it fetched first, and so does a table with CHECK constraints (they see
    /// whole rows). Only the columns assigned go to storage: the new versions keep the others
    /// from the rows they replace.
    ///
    /// # Errors
    /// 3810 for unknown columns; 3811, 5317 and storage errors.
    pub(crate) fn apply_assignments(
        &mut self,
        table: &Arc<Table>,
        (scope, cacheable): (&Scope, bool),
        (mut batch, mut have): (RecordBatch, Option<Vec<bool>>),
        ids: &[u64],
        (assignments, given): (&[ast::Assignment], Option<&[Option<Expr>]>),
    ) -> Result<u64> {
        let width = table.schema.columns.len();
        // the target's own columns (UPDATE … FROM appends the row ids and the sources' columns)
        let mut new_cols: Vec<ArrayRef> = batch.columns()[..width].to_vec();
        // the columns assigned, each once
        let mut changed: Vec<usize> = Vec::new();
        for (i, a) in assignments.iter().enumerate() {
            let idx = assigned_column(table, a)?;
            if let Some(d) = crate::default_cells::default_of(&a.value) {
                // `SET c = DEFAULT` / `DEFAULT(x)`: the default, as an INSERT would store it
                let v = self.default_cell(table, idx, &d, ids.len())?;
                new_cols[idx] = self.conform(&table.schema.columns[idx], &v)?;
                if !changed.contains(&idx) {
                    changed.push(idx);
                }
                continue;
            }
            // a prepared request's kept binding where it has one (the value's `?`s and
            // scalar subqueries as slots), else bound here; the values after it resolved
            // before its subqueries run
            let rest = set_values(&assignments[i + 1..]);
            let kept = match cacheable {
                true => self.cached_expr(table, scope, (&a.value, &rest))?,
                false => None,
            };
            // (its operand types checked over no row, then its uncorrelated subqueries run,
            // deferred_run.rs)
            let given = given.and_then(|g| g.get(i)).cloned().flatten();
            let bound = match (given, kept) {
                (Some(e), _) => Some(e),
                (None, Some(e)) => Some(e.into_expr()),
                (None, None) => {
                    let schema = match cacheable {
                        true => table.schema.arrow.clone(),
                        false => batch.schema(),
                    };
                    (self.bind_deferring(&[&a.value], &rest, scope, &schema)?)
                        .and_then(|mut v| v.pop())
                }
            };
            let mut v = match bound {
                Some(bound) => {
                    let mut reads = vec![false; width];
                    bound.mark_columns(&mut reads);
                    batch = fetch_missing(table, batch, &mut have, &reads, ids)?;
                    bound.eval(&batch)?
                }
                // a correlated scalar subquery runs per target row (Teradata treats the
                // UPDATE as a joined one): over whole rows, as a query's select list does
                None => {
                    batch = fetch_missing(table, batch, &mut have, &vec![true; width], ids)?;
                    let (bound, wide) = self.with_correlation(scope, batch.clone(), |ex| {
                        ex.bind_expr(&a.value, scope, None)
                    })?;
                    bound.eval(&wide)?
                }
            };
            if crate::params::is_marker(&a.value) {
                v = parameter_for(&table.schema.columns[idx], v)?;
            }
            let own = crate::names::own_format(&a.value, scope);
            new_cols[idx] =
                self.conform_formatted(&table.schema.columns[idx], &v, own.as_deref())?;
            if !changed.contains(&idx) {
                changed.push(idx);
            }
        }
        // checked in the table's order, as the whole-row check did
        changed.sort_unstable();
        reject_nulls(table, changed.iter().map(|&c| (c, &new_cols[c])))?;
        if has_row_checks(table) {
            let all = fetch_missing(table, batch, &mut have, &vec![true; width], ids)?;
            for (c, col) in new_cols.iter_mut().enumerate() {
                if !changed.contains(&c) {
                    *col = all.column(c).clone();
                }
            }
            self.check_constraints(table, &new_cols, ids.len())?;
        }
        for (r, rid) in ids.iter().enumerate() {
            let cells = changed
                .iter()
                .map(|&c| (c, value_at(new_cols[c].as_ref(), r)));
            self.txn.update(table, *rid, cells)?;
        }
        Ok(ids.len() as u64)
    }

    /// The target rows of `UPDATE t FROM …` joined with their source rows on WHERE: the
    /// joined batch (target columns first, then its row id, then the other entries'
    /// columns), the target row of each joined row, the joined scope, and the target's
    /// columns the batch holds (those `keep` marks, read so; `None`: all). `target` is the
    /// entry that names `table` (known as the qualifier given); Teradata's form names it in
    /// its own FROM list (`UPDATE t FROM t, s` or `UPDATE a FROM t a, s`), and that entry is
    /// the target, not a second copy of it (target_from.rs).
    ///
    /// The target is one relation of the FROM the join planner plans (`Exec::joined_with`):
    /// read at its step through its own conditions (an index where they allow), or probed
    /// by the keys of the rows joined before it (an ON or USING of a joined entry sees its
    /// own comma item's relations, never the target's). A FROM entry with an outer join
    /// (`UPDATE t FROM s LEFT JOIN u ON …`: the target is a comma item beside it) has the
    /// entries joined on their own and then joined to the whole target's rows on WHERE
    /// (`Exec::join_onto`). The rows come in row id order.
    ///
    /// With `dedup` (DELETE), each target row is kept once however many rows it matched.
    ///
    /// # Errors
    /// 7547 without `dedup` if a target row matches more than one source row (which value
    /// would win is undefined); binding errors.
    fn joined_rows(
        &mut self,
        (table, keep): (&Arc<Table>, Option<Vec<bool>>),
        (target, q): (&ast::TableFactor, &str),
        from: &[ast::TableWithJoins],
        selection: Option<&ast::Expr>,
        dedup: bool,
    ) -> Result<Joined> {
        let full = crate::target_from::target_first(target, (q, &table.schema.name), from);
        // (an outer join beside a comma joins its own comma item first: `t, s RIGHT JOIN u`
        // is `t × (s ⟖ u)`, which no plan of the three relations gives)
        let planned = !crate::join::outer_beside_comma(&full);
        let (joined_scope, joined, have) = match planned {
            true => {
                let target = crate::bound_from::FromRel::target(table.clone(), q, keep.clone());
                let (scope, joined) = self.joined_with(&full, selection, vec![Some(target)])?;
                (scope, joined, keep)
            }
            false => {
                let (batch, ids) = self.scan_table(table)?;
                // the target's row ids ride along as a last, hidden column
                let scope = table_scope(table, q);
                let base = with_hidden(scope, &batch, ROW_ID, Arc::new(ids))?;
                let (scope, joined) = self.join_onto(base, &full[1..], selection)?;
                (scope, joined, None)
            }
        };
        finish_joined(table, (Arc::new(joined_scope), joined), have, dedup)
    }

    /// A prepared request's joined UPDATE or DELETE (`block`; `statement`: its FROM, WHERE
    /// and SET assignments, none for a DELETE) run from the plan it keeps (bound_joined.rs;
    /// bound and kept at its first execution): the joined rows as [`Exec::joined_rows`]
    /// gives them, and the SET values bound with this run's values put in. `None` without a
    /// plan cache, for a statement the cache refuses, or where this run's inputs do not fit
    /// the plan (the general path then runs it).
    ///
    /// # Errors
    /// As [`Exec::joined_rows`].
    fn kept_joined(
        &mut self,
        block: crate::plan_cache::Block<'_>,
        (table, keep): (&Arc<Table>, &Option<Vec<bool>>),
        target: (&ast::TableFactor, &str),
        statement: JoinedStatement<'_>,
    ) -> Result<Option<(Joined, Vec<Option<Expr>>)>> {
        let fits = |k: &KeptJoined| k.table.upgrade().is_some_and(|t| Arc::ptr_eq(&t, table));
        let bind = |ex: &mut Self| ex.bind_joined_dml((table, keep), target, statement);
        let Some((kept, values, kept_hit)) = self.statement_plan(block, fits, bind)? else {
            return Ok(None);
        };
        let inputs = crate::inputs::Inputs::new(&kept.slots.slots, &values);
        let Some((from, _)) = kept.join.from(|e| inputs.put(e)) else {
            return Ok(None);
        };
        if let Some(cache) = kept_hit {
            cache.hit();
        }
        let (_, joined) = self.run_from(from, &kept.from)?;
        // (a DELETE changes each target row once; an UPDATE's row matched twice is 7547)
        let dedup = matches!(block, crate::plan_cache::Block::Delete(_));
        let joined = finish_joined(
            table,
            (kept.scope.clone(), joined),
            kept.keep.clone(),
            dedup,
        )?;
        let sets = (kept.sets.iter())
            .map(|e| e.as_ref().map(|e| inputs.put(e)))
            .collect();
        Ok(Some((joined, sets)))
    }

    /// A joined UPDATE or DELETE bound for a prepared request's plan cache (bound_joined.rs).
    /// Not kept ([`NotKept::Never`]): a subquery in WHERE or a SET value, an outer join
    /// beside a comma, a FROM whose names clash, a relation that is not a base table (a
    /// view, a derived table, rows read while binding), a conjunct set aside for the joined
    /// rows, a slot other than a `?` parameter, a value of the request or session, a name
    /// that resolves to no column or to two; not with this run's values
    /// ([`NotKept::NotNow`]): any other binding error or a SET value's type error (the
    /// general path raises it in its order) or a parameter the binder folded.
    fn bind_joined_dml(
        &mut self,
        (table, keep): (&Arc<Table>, &Option<Vec<bool>>),
        (target, q): (&ast::TableFactor, &str),
        (from, selection, assignments): JoinedStatement<'_>,
    ) -> std::result::Result<KeptJoined, NotKept> {
        let mut written = selection
            .into_iter()
            .chain(assignments.iter().map(|a| &a.value));
        if written.any(crate::correlate::has_subquery) {
            return Err(NotKept::Never);
        }
        let full = crate::target_from::target_first(target, (q, &table.schema.name), from);
        if crate::join::outer_beside_comma(&full) {
            return Err(NotKept::Never);
        }
        // (the general path's check of the names, `Exec::joined_with`)
        crate::join::check_from(&full).map_err(|_| NotKept::Never)?;
        let given = vec![Some(crate::bound_from::FromRel::target(
            table.clone(),
            q,
            keep.clone(),
        ))];
        let (bound, recording) = self.recorded(|ex| {
            let bound = ex.bind_joined_with(&full, selection, given)?;
            let mut sets = Vec::with_capacity(assignments.len());
            for a in assignments {
                sets.push(match crate::default_cells::default_of(&a.value) {
                    Some(_) => None,
                    None => Some(ex.bind_expr(&a.value, &bound.scope, None)?),
                });
            }
            Ok((bound, sets))
        });
        // (a name that resolves to nothing, or to two columns, does so whatever the values)
        let (bound, sets) = bound.map_err(|e| NotKept::of(&e))?;
        // (base tables only: a view, a derived table or rows read while binding are not
        // kept as such, `BoundJoin::with_given`)
        if !bound.rels.iter().all(|r| r.base().is_some()) {
            return Err(NotKept::Never);
        }
        // each SET value's types checked over no joined row, as the general path checks them
        // before it evaluates any (`Exec::bind_deferring`): one that fails is left to it
        let fields: Vec<Field> = (bound.rels.iter())
            .flat_map(crate::bound_from::FromRel::column_types)
            .enumerate()
            .map(|(i, t)| Field::new(format!("c{i}"), t, true))
            .collect();
        let joined = Arc::new(Schema::new(fields));
        if sets
            .iter()
            .flatten()
            .any(|e| e.check_types(&joined).is_err())
        {
            return Err(NotKept::NotNow);
        }
        let scope = Arc::new(bound.scope.clone());
        let tail = crate::block_tail::Tail::default();
        let join = BoundJoin::with_given(bound, Default::default(), None, tail, true)
            .ok_or(NotKept::Never)?;
        let exprs: Vec<&Expr> = join.exprs().chain(sets.iter().flatten()).collect();
        crate::bound_select::statement_slots(&recording, &exprs)?;
        Ok(KeptJoined {
            table: Arc::downgrade(table),
            from: full,
            keep: keep.clone(),
            scope,
            join,
            sets,
            slots: crate::bound_select::KeptSlots::new(recording.slots),
        })
    }

    /// `DELETE [FROM] t [WHERE …]` (also `DELETE t ALL`); returns the number of rows removed.
    ///
    /// # Errors
    /// 3807, 3810, 2631 on a write conflict.
    pub fn delete(&mut self, d: &ast::Delete) -> Result<u64> {
        let from = match &d.from {
            ast::FromTable::WithFromKeyword(v) | ast::FromTable::WithoutKeyword(v) => v,
        };
        if d.using.is_some() || d.tables.len() > 1 {
            return Err(Error::Unsupported(
                "DELETE … USING or of several tables".into(),
            ));
        }
        // Teradata's joined delete: `DELETE t FROM t, s WHERE …` (or `DELETE a FROM t a, s …`)
        if let Some(target) = d.tables.first() {
            let n = tdlite_parser::object_name_string(target);
            // the FROM entry that is the target: aliased `a` or named `t`
            let entry = crate::target_from::delete_entry(target, from);
            let name = match entry {
                Some(ast::TableFactor::Table { name, .. }) => name,
                _ => target,
            };
            let table = self.must_get_base_table(name)?;
            let plain;
            let entry = match entry {
                Some(e) => e,
                None => {
                    plain = crate::target_from::plain_factor(target);
                    &plain
                }
            };
            let names = crate::names::names_in(d, from);
            let keep = names.and_then(|n| crate::names::keep_named(&table, &n));
            let sel = d.selection.as_ref();
            let block = crate::plan_cache::Block::Delete(d);
            let kept = self.kept_joined(block, (&table, &keep), (entry, &n), (from, sel, &[]))?;
            let ids = match kept {
                Some((j, _)) => j.ids,
                None => (self.joined_rows((&table, keep), (entry, &n), from, sel, true)?).ids,
            };
            for rid in &ids {
                self.txn.delete(&table, *rid)?;
            }
            return Ok(ids.len() as u64);
        }
        let [t] = from.as_slice() else {
            return Err(Error::Unsupported("DELETE from several tables".into()));
        };
        if let ast::TableFactor::Table { name, .. } = &t.relation {
            if let Some(view) = self.updatable_view(name)? {
                let n = tdlite_parser::object_name_string(name);
                let rewritten = crate::view_dml::delete(d, &view, &n)?;
                return self.through_view(|ex| ex.delete(&rewritten));
            }
        }
        let (table, _, scope) = self.table_of(t)?;
        let (_, ids, _) = self.matching_rows(&table, &scope, (&d.selection, &[]))?;
        for rid in &ids {
            self.txn.delete(&table, *rid)?;
        }
        Ok(ids.len() as u64)
    }

    /// Binds the select list of a consume against the queue table (before anything is taken).
    ///
    /// # Errors
    /// 3810/3822 for bad names.
    pub fn bind_consume(
        &mut self,
        table: &Table,
        projection: &[ast::SelectItem],
    ) -> Result<ConsumeList> {
        // a list of plain column names (the usual consume) needs no scope
        let plain: Option<Vec<(Expr, Field)>> = projection
            .iter()
            .map(|item| {
                let ast::SelectItem::UnnamedExpr(ast::Expr::Identifier(id)) = item else {
                    return None;
                };
                let i = table.schema.column_index(&id.value)?;
                let c = &table.schema.columns[i];
                let f = Field::new(&c.name, c.ty.arrow_type(), true);
                let f = match &c.title {
                    Some(t) => f.with_metadata(std::collections::HashMap::from([(
                        "title".to_string(),
                        t.clone(),
                    )])),
                    None => f,
                };
                Some((
                    Expr::Column {
                        index: i,
                        case_specific: c.case_specific,
                    },
                    f,
                ))
            })
            .collect();
        if let Some(items) = plain {
            let fields: Vec<Field> = items.iter().map(|(_, f)| f.clone()).collect();
            return Ok(ConsumeList::new(items, Some(Arc::new(Schema::new(fields)))));
        }
        let q = table.schema.name.clone();
        let scope = table_scope(table, &q);
        let mut empty = None;
        let mut items = Vec::new();
        for item in projection {
            match item {
                ast::SelectItem::Wildcard(_) | ast::SelectItem::QualifiedWildcard(..) => {
                    for (i, c) in table.schema.columns.iter().enumerate() {
                        let f = Field::new(&c.name, c.ty.arrow_type(), true);
                        items.push((
                            Expr::Column {
                                index: i,
                                case_specific: c.case_specific,
                            },
                            with_title(f, &scope.columns[i]),
                        ));
                    }
                }
                ast::SelectItem::UnnamedExpr(e)
                | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
                    let bound = self.bind_expr(e, &scope, None)?;
                    let dt = match &bound {
                        Expr::Column { index, .. } => {
                            table.schema.arrow.field(*index).data_type().clone()
                        }
                        other => {
                            let empty = empty.get_or_insert_with(|| {
                                RecordBatch::new_empty(table.schema.arrow.clone())
                            });
                            other.eval(empty)?.data_type().clone()
                        }
                    };
                    let name = match item {
                        ast::SelectItem::ExprWithAlias { alias, .. } => alias.value.clone(),
                        _ => match e {
                            ast::Expr::Identifier(id) => table
                                .schema
                                .column_index(&id.value)
                                .map(|i| table.schema.columns[i].name.clone())
                                .unwrap_or(id.value.clone()),
                            other => other.to_string(),
                        },
                    };
                    let mut field = Field::new(name, dt, true);
                    if let (ast::Expr::Identifier(id), ast::SelectItem::UnnamedExpr(_)) = (e, item)
                    {
                        if let Some(i) = table.schema.column_index(&id.value) {
                            field = with_title(field, &scope.columns[i]);
                        }
                    }
                    items.push((bound, field));
                }
                other => return Err(Error::Unsupported(format!("the select item {other}"))),
            }
        }
        Ok(ConsumeList::new(items, None))
    }

    /// Binds a selective consume's condition against queue table `table`'s columns.
    ///
    /// # Errors
    /// 3810/3822 for bad names; a type mismatch if the condition is not true/false.
    pub(crate) fn bind_consume_filter(
        &mut self,
        table: &Table,
        cond: &ast::Expr,
    ) -> Result<crate::consume_filter::ConsumeFilter> {
        let scope = table_scope(table, &table.schema.name);
        let cond = self.bind_expr(cond, &scope, None)?;
        crate::consume_filter::ConsumeFilter::new(cond, table)
    }

    /// Takes up to `ask.top` of the oldest rows of a queue table (own uncommitted inserts
    /// included) in one step and projects them; `None` if there is none. With a filter, only
    /// rows it accepts, skipping the rest (selective consume). If another transaction holds a
    /// conflicting table lock, waits for it when `wait_for_lock`, else fails with 7423.
    ///
    /// # Errors
    /// Lock errors; evaluation errors of the filter or the select list (the rows are then
    /// still claimed by the transaction, whose failure returns them to the queue).
    pub fn try_consume(
        &mut self,
        table: &Arc<Table>,
        list: &ConsumeList,
        ask: Ask<'_>,
        wait_for_lock: bool,
    ) -> Result<Option<Rows>> {
        let all: Vec<usize>;
        let cols = match list.read_columns(table) {
            Some(cols) => cols,
            None => {
                all = (0..table.schema.columns.len()).collect();
                &all
            }
        };
        let Ask {
            top,
            filter,
            due_by,
            lease,
        } = ask;
        // one row (the usual consume): only the columns read, sliced out of the row's segment
        // where it is sealed, under the same hold of the table as the pop
        // the rows' ids are kept only for a lease (a one-row consume allocates none)
        let (n, rows, arrays) = if let Some(f) = filter {
            let mut test = |b: &RecordBatch| f.test(b);
            let sel = f.selection(&mut test);
            match self
                .txn
                .take_matching(table, (wait_for_lock, due_by), (top, cols), sel)?
            {
                Some((rows, arrays)) => (rows.len(), rows, arrays),
                None => return Ok(None),
            }
        } else if top == 1 {
            match self.txn.take_arrays(table, (wait_for_lock, due_by), cols)? {
                Some((row, arrays)) => (1, lease.map(|_| vec![row]).unwrap_or_default(), arrays),
                None => return Ok(None),
            }
        } else {
            match self
                .txn
                .take_many(table, (wait_for_lock, due_by), top, cols)?
            {
                Some((rows, arrays)) => (rows.len(), rows, arrays),
                None => return Ok(None),
            }
        };
        let result = list.project(table, n, arrays)?;
        match lease {
            None => Ok(Some(result)),
            Some(us) => {
                let id = self.txn.lease_taken(table, &rows, us)?;
                result.with_lease_column(Some(id)).map(Some)
            }
        }
    }
}

impl ConsumeList {
    /// The columns to read for a list of plain columns; `None`: read every column.
    fn read_columns(&self, table: &Table) -> Option<&[usize]> {
        self.columns
            .as_deref()
            .filter(|cols| cols.iter().all(|&c| c < table.schema.columns.len()))
    }

    /// The result of a consume that took nothing (a `NOWAIT` on an empty queue): no rows,
    /// with the columns and types a taken row would have.
    ///
    /// # Errors
    /// Evaluation errors of the select list.
    pub(crate) fn empty_rows(&self, table: &Table) -> Result<Rows> {
        let empty =
            |c: usize| arrow::array::new_empty_array(table.schema.arrow.field(c).data_type());
        let arrays = match self.read_columns(table) {
            Some(cols) => cols.iter().map(|&c| empty(c)).collect(),
            None => (0..table.schema.columns.len()).map(empty).collect(),
        };
        self.project(table, 0, arrays)
    }

    /// The select list over `n` taken rows: `arrays` are the columns [`Self::read_columns`]
    /// names (every column of `table` where it says `None`).
    fn project(&self, table: &Table, n: usize, arrays: Vec<ArrayRef>) -> Result<Rows> {
        let arrays = match self.read_columns(table) {
            Some(_) => arrays,
            None => {
                // expressions: evaluate them over the whole rows
                let rows = RecordBatch::try_new(table.schema.arrow.clone(), arrays)?;
                self.items
                    .iter()
                    .map(|(e, _)| e.eval(&rows))
                    .collect::<Result<Vec<_>>>()?
            }
        };
        let schema = match &self.plain {
            Some(schema) => schema.clone(),
            None => {
                let fields: Vec<Field> = self
                    .items
                    .iter()
                    .zip(&arrays)
                    .map(|((_, f), a)| f.clone().with_data_type(a.data_type().clone()))
                    .collect();
                Arc::new(Schema::new(fields))
            }
        };
        let batch = RecordBatch::try_new_with_options(
            schema.clone(),
            arrays,
            &arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(n)),
        )?;
        Ok(Rows {
            schema,
            batches: vec![batch],
        })
    }
}

/// 3812 if `given` values are fewer than the `wanted` target columns, 3813 if more.
pub(crate) fn check_arity(given: usize, wanted: usize) -> Result<()> {
    match given.cmp(&wanted) {
        std::cmp::Ordering::Less => Err(Error::TooFewValues),
        std::cmp::Ordering::Greater => Err(Error::TooManyValues),
        std::cmp::Ordering::Equal => Ok(()),
    }
}

/// The rows of a joined UPDATE or DELETE (`Exec::joined_rows`).
struct Joined {
    /// The joined rows: the target's columns, its row id, the other relations' columns.
    batch: RecordBatch,
    /// The target row of each joined row (each once for a DELETE).
    ids: Vec<u64>,
    /// The joined rows' scope.
    scope: Arc<Scope>,
    /// The target's columns `batch` holds (`None`: all; the others NULL).
    have: Option<Vec<bool>>,
}

/// A joined UPDATE's or DELETE's FROM, WHERE and SET assignments (none for a DELETE).
type JoinedStatement<'a> = (
    &'a [ast::TableWithJoins],
    Option<&'a ast::Expr>,
    &'a [ast::Assignment],
);

/// The end of a joined UPDATE's or DELETE's join (`joined`, over `scope`: the target's
/// columns, those `have` marks read, then its row id, then the other relations'): the rows
/// in row id order and the target row of each, each once with `dedup` (DELETE).
///
/// # Errors
/// 7547 without `dedup` if a target row matches more than one source row (which value would
/// win is undefined).
fn finish_joined(
    table: &Table,
    (scope, joined): (Arc<Scope>, RecordBatch),
    have: Option<Vec<bool>>,
    dedup: bool,
) -> Result<Joined> {
    let width = table.schema.columns.len();
    // changed in row id order, whatever order the join found them in (a unique key shifted
    // row by row clashes or not the same way on every plan)
    let joined = by_row_id(joined, width)?;
    let rid = joined
        .column(width)
        .as_primitive::<arrow::datatypes::UInt64Type>()
        .values()
        .to_vec();
    let mut seen = std::collections::HashSet::new();
    let ids = match dedup {
        true => rid.into_iter().filter(|r| seen.insert(*r)).collect(),
        false if rid.iter().any(|r| !seen.insert(*r)) => {
            return Err(Error::MultipleSourceRows(table.schema.name.clone()))
        }
        false => rid,
    };
    Ok(Joined {
        batch: joined,
        ids,
        scope,
        have,
    })
}

/// `batch`'s rows in the order of their row ids (column `col`, `UInt64`): a statement
/// changes rows in that order whatever order a join found them in.
///
/// # Errors
/// Arrow's (none for a `UInt64` column).
pub(crate) fn by_row_id(batch: RecordBatch, col: usize) -> Result<RecordBatch> {
    let ids = batch.column(col);
    let sorted = (ids.as_primitive::<arrow::datatypes::UInt64Type>().values())
        .windows(2)
        .all(|w| w[0] <= w[1]);
    if sorted {
        return Ok(batch);
    }
    let order = arrow::compute::sort_to_indices(ids, None, None)?;
    Ok(arrow::compute::take_record_batch(&batch, &order)?)
}

/// `batch` and `scope` with one more column, `name`, that no SQL name can reach.
pub(crate) fn with_hidden(
    mut scope: Scope,
    batch: &RecordBatch,
    name: &str,
    column: ArrayRef,
) -> Result<(Scope, RecordBatch)> {
    scope.columns.push(ScopeColumn::hidden(name));
    let b = crate::ops::with_columns(batch, [(name.to_string(), column)])?;
    Ok((scope, b))
}

/// NOT NULL first (3811), before anything builds a batch with the table's non-nullable
/// schema: `cols` are (column number, new values).
fn reject_nulls<'a>(
    table: &Table,
    cols: impl IntoIterator<Item = (usize, &'a ArrayRef)>,
) -> Result<()> {
    for (c, a) in cols {
        let col = &table.schema.columns[c];
        if !col.nullable && a.null_count() > 0 {
            return Err(StorageError::NotNull(col.name.clone()).into());
        }
    }
    Ok(())
}

/// The values `assignments` set that are expressions (not DEFAULT).
fn set_values(assignments: &[ast::Assignment]) -> Vec<&ast::Expr> {
    (assignments.iter())
        .filter(|a| crate::default_cells::default_of(&a.value).is_none())
        .map(|a| &a.value)
        .collect()
}

/// The column of `table` that assignment `a` sets.
///
/// # Errors
/// 3810 for a column `table` lacks; a tuple assignment; an identity column's refusal
/// (`identity::check_update`).
pub(crate) fn assigned_column(table: &Table, a: &ast::Assignment) -> Result<usize> {
    let ast::AssignmentTarget::ColumnName(c) = &a.target else {
        return Err(Error::Unsupported("tuple assignment".into()));
    };
    let name = tdlite_parser::object_name_string(c);
    let Some(idx) = table
        .schema
        .column_index(name.rsplit('.').next().unwrap_or(&name))
    else {
        return Err(Error::ColumnNotFound(name));
    };
    crate::identity::check_update(table, [idx])?;
    Ok(idx)
}

/// `batch` (rows `ids` of `table`, holding the columns `have` marks; `None`: all) with the
/// columns `wanted` marks that it lacks fetched and put in.
fn fetch_missing(
    table: &Table,
    batch: RecordBatch,
    have: &mut Option<Vec<bool>>,
    wanted: &[bool],
    ids: &[u64],
) -> Result<RecordBatch> {
    let Some(marks) = have.as_mut() else {
        return Ok(batch);
    };
    let missing: Vec<bool> = wanted
        .iter()
        .zip(marks.iter())
        .map(|(&w, &h)| w && !h)
        .collect();
    if !missing.contains(&true) {
        return Ok(batch);
    }
    let got = table.fetch_columns(ids, Some(&missing));
    let mut cols = batch.columns().to_vec();
    for (c, m) in missing.iter().enumerate() {
        if *m {
            cols[c] = got.column(c).clone();
            marks[c] = true;
        }
    }
    Ok(RecordBatch::try_new(batch.schema(), cols)?)
}

fn with_title(f: Field, c: &ScopeColumn) -> Field {
    match &c.title {
        Some(t) => f.with_metadata([("title".to_string(), t.clone())]),
        None => f,
    }
}

/// Concatenates one-row arrays of possibly different types, casting to the first non-null
/// type.
fn concat_mixed(parts: &[ArrayRef]) -> Result<ArrayRef> {
    // one row of VALUES (the common INSERT): nothing to reconcile
    if let [one] = parts {
        return Ok(one.clone());
    }
    let mut acc: ArrayRef = arrow::array::new_null_array(&arrow::datatypes::DataType::Null, 0);
    for p in parts {
        acc = crate::expr::coerce_pair(acc, p.slice(0, 0))?.0;
    }
    let target = acc.data_type().clone();
    let cast: Vec<ArrayRef> = parts
        .iter()
        .map(|p| crate::expr::cast_to_arrow(p, &target))
        .collect::<Result<_>>()?;
    let refs: Vec<&dyn Array> = cast.iter().map(|a| a.as_ref()).collect();
    Ok(concat(&refs)?)
}

/// ANSI mode: a character value assigned to a CHAR(n)/VARCHAR(n) column that has characters
/// other than blanks past the n-th is 3996 (trailing blanks are cut, as in Teradata mode,
/// which cuts everything silently). International Character Set Support, "Truncation
/// Exceptions in ANSI Mode".
///
/// # Errors
/// 3996 naming the column.
fn check_truncation(col: &Column, a: &ArrayRef) -> Result<()> {
    let (SqlType::Char(n) | SqlType::VarChar(n)) = col.ty else {
        return Ok(());
    };
    let Some(s) = a.as_string_opt::<i32>() else {
        return Ok(());
    };
    let cut = |v: &str| v.chars().skip(n as usize).any(|c| c != ' ');
    if s.iter().flatten().any(|v| v.len() > n as usize && cut(v)) {
        return Err(Error::RightTruncation(col.name.clone()));
    }
    Ok(())
}

/// A parameter's values `a` as `col` takes them: a number going to a character column as its
/// plain text (`5`, `5.00`). A `?` has no declared type (tdlite types it by the host value: an
/// integer is a BIGINT, a Decimal a DECIMAL(38,s)), so no default FORMAT of a type is
/// applied, where a typed value is written by its FORMAT ([`Exec::conform`]).
///
/// # Errors
/// None in practice (a number always has a text).
pub(crate) fn parameter_for(col: &Column, a: ArrayRef) -> Result<ArrayRef> {
    if col.ty.is_character() && a.data_type().is_numeric() {
        cast_to_sql(&a, SqlType::VarChar(64000))
    } else {
        Ok(a)
    }
}

/// A source column's field, with the FORMAT its values have of their own (`own`) as its
/// `format` metadata, the way a query's result carries it ([`Exec::conform_formatted`]
/// writes a number or date by it into a character column).
pub(crate) fn formatted_field(name: String, ty: &DataType, own: Option<String>) -> Field {
    let field = Field::new(name, ty.clone(), true);
    match own {
        Some(f) => {
            field.with_metadata(std::collections::HashMap::from([("format".to_string(), f)]))
        }
        None => field,
    }
}

/// Text `a` read as `ty` by `mask` where a value fits it, as usual where it does not (each
/// value on its own).
///
/// # Errors
/// 2665 for a value that fits neither.
fn by_format(a: &ArrayRef, ty: SqlType, mask: &str) -> Result<ArrayRef> {
    if let Ok(v) = crate::format::cast(a, ty, mask) {
        if v.null_count() == a.null_count() {
            return Ok(v);
        }
    }
    let values = (0..a.len())
        .map(|i| {
            let one = a.slice(i, 1);
            let v = match crate::format::cast(&one, ty, mask) {
                Ok(v) if v.null_count() == one.null_count() => v,
                _ => cast_to_sql(&one, ty)?,
            };
            Ok(value_at(v.as_ref(), 0))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(values_to_array(ty, values.iter()))
}

/// Whether new rows of `table` must be checked: CHECK constraints or a partitioning's
/// conditions.
pub(crate) fn has_row_checks(table: &Table) -> bool {
    has_row_checks_in(&table.schema)
}

/// [`has_row_checks`] of a table definition.
pub(crate) fn has_row_checks_in(schema: &tdlite_storage::catalog::TableSchema) -> bool {
    !schema.checks.is_empty() || !schema.partition_checks.is_empty()
}

/// A table's row conditions, bound: its CHECK constraints (with the field a violation names)
/// and its partitioning's conditions (partition.rs).
#[derive(Debug, Default)]
pub(crate) struct RowConditions {
    checks: Vec<(String, Expr)>,
    partitions: Vec<Expr>,
}

/// The bound row conditions of each table with any, by table id and session mode (ANSI or
/// not; ids are never reused, and a changed definition is a new table: an entry never
/// outlives its definition's meaning).
pub(crate) type RowConditionCache =
    parking_lot::Mutex<std::collections::HashMap<(u64, bool), Arc<RowConditions>>>;
