//! CREATE TABLE (queue tables included), DROP TABLE, HELP TABLE and SHOW TABLE.
//!
//! Teradata's queue-table rules are checked here, each violation a 9903 error that names the
//! rule: QITS first, `TIMESTAMP(6)` (precision optional but 6 if given), `NOT NULL`,
//! `DEFAULT CURRENT_TIMESTAMP[(6)]`, not unique / primary key / identity / UPI / USI; no
//! VOLATILE, no NO PRIMARY INDEX, no permanent journal, LOG/NO LOG or MERGEBLOCKRATIO option,
//! no LOB/JSON/XML columns.

use crate::bind::number_literal;
use crate::error::{Error, Result};
use crate::exec::Exec;
use crate::result::Rows;
use arrow::array::{ArrayRef, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use arrow::record_batch::RecordBatch;
use sqlparser::ast;
use std::sync::Arc;
use tdlite_parser::{ColumnDefault, CreateTable, DataType as PType, TableKind as PKind};
use tdlite_storage::catalog::{
    Column, DefaultValue, IndexSpec, TableKind, TableSchema, Volatile, VolatileCommit,
};
use tdlite_storage::locks::LockMode;
use tdlite_storage::table::Table;
use tdlite_storage::types::{value_at, SqlType, Value};

pub(crate) fn queue_rule(rule: &str) -> Error {
    Error::InvalidQueueTable(rule.to_string())
}

/// A queue's `CONSUME ORDER (c [DESC])` (docs/queues.md, Priority): `c` must be an integer
/// column other than the QITS, NOT NULL, of a queue table.
///
/// # Errors
/// 9903 naming the rule broken; 3810 for a column the table does not have.
fn consume_order(
    queue: bool,
    columns: &[Column],
    o: &tdlite_parser::ConsumeOrder,
) -> Result<tdlite_storage::catalog::QueueOrder> {
    if !queue {
        return Err(queue_rule(
            "CONSUME ORDER is for queue tables (CREATE TABLE name, QUEUE, CONSUME ORDER (c)).",
        ));
    }
    let column = columns
        .iter()
        .position(|c| c.name.eq_ignore_ascii_case(&o.column))
        .ok_or_else(|| Error::ColumnNotFound(o.column.clone()))?;
    let c = &columns[column];
    if column == 0 {
        return Err(queue_rule(
            "CONSUME ORDER names a column other than the QITS (QITS orders rows within it).",
        ));
    }
    if !c.ty.is_integer() {
        return Err(queue_rule(&format!(
            "the CONSUME ORDER column {} must be BYTEINT, SMALLINT, INTEGER or BIGINT.",
            c.name
        )));
    }
    if c.nullable {
        return Err(queue_rule(&format!(
            "the CONSUME ORDER column {} must be NOT NULL.",
            c.name
        )));
    }
    Ok(tdlite_storage::catalog::QueueOrder {
        column,
        descending: o.descending,
    })
}

/// A queue's `DELIVER AT (c)` (docs/queues.md, Delayed delivery): `c` must be the QITS of a
/// queue without a consume order.
///
/// # Errors
/// 9903 naming the rule broken; 3810 for a column the table does not have.
fn deliver_at(schema: &TableSchema, column: &str) -> Result<()> {
    if !schema.queue {
        return Err(queue_rule(
            "DELIVER AT is for queue tables (CREATE TABLE name, QUEUE, DELIVER AT (qits)).",
        ));
    }
    let position = schema
        .columns
        .iter()
        .position(|c| c.name.eq_ignore_ascii_case(column))
        .ok_or_else(|| Error::ColumnNotFound(column.to_string()))?;
    if position != 0 {
        return Err(queue_rule(
            "DELIVER AT names the QITS column (rows are consumable from their QITS on).",
        ));
    }
    if schema.queue_order.is_some() {
        return Err(queue_rule(
            "DELIVER AT and CONSUME ORDER cannot be given together (not yet).",
        ));
    }
    Ok(())
}

fn is_current_timestamp(e: &ast::Expr) -> Option<Option<String>> {
    match e {
        ast::Expr::Function(f)
            if tdlite_parser::object_name_string(&f.name)
                .eq_ignore_ascii_case("CURRENT_TIMESTAMP") =>
        {
            match &f.args {
                ast::FunctionArguments::None => Some(None),
                ast::FunctionArguments::List(l) => Some(l.args.first().map(|a| a.to_string())),
                ast::FunctionArguments::Subquery(_) => None,
            }
        }
        ast::Expr::Identifier(id) if id.value.eq_ignore_ascii_case("CURRENT_TIMESTAMP") => {
            Some(None)
        }
        _ => None,
    }
}

/// Teradata's rules for a `CREATE TABLE …, QUEUE`: the QITS column and what a queue table may
/// not be or have (Teradata SQL Data Definition Language manual, CREATE TABLE queue table form).
fn check_queue_rules(ct: &CreateTable) -> Result<()> {
    if ct.volatile {
        return Err(queue_rule(
            "a queue table cannot be VOLATILE (only SET or MULTISET base tables can be queues).",
        ));
    }
    if ct.global_temporary {
        return Err(queue_rule(
            "a queue table cannot be GLOBAL TEMPORARY (only SET or MULTISET base tables can be queues).",
        ));
    }
    if ct.no_primary_index {
        return Err(queue_rule(
            "a queue table cannot be a NO PRIMARY INDEX table.",
        ));
    }
    if ct.partitioned {
        return Err(queue_rule(
            "a queue table cannot have a partitioned primary index (PARTITION BY).",
        ));
    }
    for o in &ct.options {
        if o.contains("JOURNAL") && !o.starts_with("NO ") {
            return Err(queue_rule("a queue table cannot have a permanent journal (only NO [BEFORE|AFTER] JOURNAL is allowed)."));
        }
        if o.starts_with("LOG")
            || o.starts_with("NO LOG")
            || o.contains("MERGEBLOCKRATIO")
            || o.starts_with("WITH JOURNAL")
        {
            return Err(queue_rule(&format!(
                "the option {o} is not allowed on a queue table."
            )));
        }
    }
    let Some(q) = ct.columns.first() else {
        return Err(queue_rule("a queue table needs its QITS column first."));
    };
    let PType::Timestamp { precision, .. } = q.data_type else {
        return Err(queue_rule(&format!(
            "the first column of a queue table must be the QITS column, TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6); '{}' is not a TIMESTAMP.",
            q.name
        )));
    };
    if precision != 6 {
        return Err(queue_rule(&format!("the QITS column '{}' must be TIMESTAMP(6) (the precision may be omitted, but if given it must be 6).", q.name)));
    }
    if !q.not_null {
        return Err(queue_rule(&format!(
            "the QITS column '{}' must be NOT NULL.",
            q.name
        )));
    }
    match &q.default {
        Some(ColumnDefault::Expr(e)) => match is_current_timestamp(e) {
            Some(None) => {}
            Some(Some(p)) if p.trim() == "6" => {}
            Some(Some(p)) => {
                return Err(queue_rule(&format!("the QITS column's DEFAULT must be CURRENT_TIMESTAMP or CURRENT_TIMESTAMP(6), not CURRENT_TIMESTAMP({p}).")));
            }
            None => {
                return Err(queue_rule(&format!(
                    "the QITS column '{}' must have DEFAULT CURRENT_TIMESTAMP(6).",
                    q.name
                )))
            }
        },
        _ => {
            return Err(queue_rule(&format!(
                "the QITS column '{}' must have DEFAULT CURRENT_TIMESTAMP(6).",
                q.name
            )))
        }
    }
    if q.unique || q.primary_key {
        return Err(queue_rule(
            "the QITS column cannot be UNIQUE or a PRIMARY KEY.",
        ));
    }
    if q.identity.is_some() {
        return Err(queue_rule("the QITS column cannot be an identity column."));
    }
    let qits = q.name.to_ascii_uppercase();
    let names_qits = |cols: &[String]| cols.len() == 1 && cols[0].to_ascii_uppercase() == qits;
    if ct
        .primary_index
        .as_ref()
        .is_some_and(|p| p.unique && names_qits(&p.columns))
    {
        return Err(queue_rule("the QITS column cannot be a UNIQUE PRIMARY INDEX (it may be a non-unique primary index)."));
    }
    if ct
        .indexes
        .iter()
        .any(|i| i.unique && names_qits(&i.columns))
    {
        return Err(queue_rule(
            "the QITS column cannot be a unique secondary index.",
        ));
    }
    if ct.unique_constraints.iter().any(|i| names_qits(&i.columns)) {
        return Err(queue_rule(
            "the QITS column cannot be UNIQUE or a PRIMARY KEY.",
        ));
    }
    for c in &ct.columns {
        if let PType::Unsupported(l) = c.data_type {
            return Err(queue_rule(&format!(
                "column '{}': a queue table cannot have {l:?} columns.",
                c.name
            )));
        }
    }
    Ok(())
}

impl Exec<'_> {
    pub(crate) fn column_default(
        &mut self,
        d: &ColumnDefault,
        ty: SqlType,
    ) -> Result<DefaultValue> {
        Ok(match d {
            ColumnDefault::System => match ty {
                SqlType::Char(n) => DefaultValue::Const(Value::Str(" ".repeat(n as usize))),
                SqlType::VarChar(_) => DefaultValue::Const(Value::Str(String::new())),
                SqlType::Date => DefaultValue::CurrentDate,
                SqlType::Time(_) => DefaultValue::CurrentTime,
                SqlType::Timestamp(_) => DefaultValue::CurrentTimestamp,
                SqlType::Byte(_) | SqlType::VarByte(_) => DefaultValue::Const(Value::Bytes(vec![])),
                SqlType::Float => DefaultValue::Const(Value::Float(0.0)),
                SqlType::Decimal(_, s) => DefaultValue::Const(Value::Decimal(0, s)),
                // a PERIOD has no system default value
                SqlType::Period(_) => {
                    return Err(Error::Unsupported("WITH DEFAULT on a PERIOD column".into()))
                }
                _ => DefaultValue::Const(Value::Int(0)),
            },
            ColumnDefault::Expr(e) => {
                if is_current_timestamp(e).is_some() {
                    return Ok(DefaultValue::CurrentTimestamp);
                }
                let upper = e.to_string().to_ascii_uppercase();
                match upper.as_str() {
                    "DATE" | "CURRENT_DATE" => return Ok(DefaultValue::CurrentDate),
                    "TIME" | "CURRENT_TIME" => return Ok(DefaultValue::CurrentTime),
                    "USER" | "CURRENT_USER" => return Ok(DefaultValue::User),
                    _ => {}
                }
                if upper.starts_with("CURRENT_TIME") {
                    return Ok(DefaultValue::CurrentTime);
                }
                let a = match e.as_ref() {
                    ast::Expr::Value(v) if matches!(v.value, ast::Value::Number(..)) => {
                        let ast::Value::Number(n, _) = &v.value else {
                            unreachable!("matched above")
                        };
                        number_literal(n)?
                    }
                    _ => self
                        .bind_expr(e, &crate::bind::Scope::default(), None)?
                        .eval(&crate::ops::single_row())?,
                };
                // kept as written (a CHAR(n) value is padded where it is stored, not here:
                // DBC.ColumnsV shows the default as the DDL gave it)
                let as_written = match ty {
                    SqlType::Char(n) => SqlType::VarChar(n),
                    other => other,
                };
                let a = crate::expr::cast_to_sql(&a, as_written)?;
                DefaultValue::Const(value_at(a.as_ref(), 0))
            }
        })
    }

    /// A storage column from its definition (type, default, attributes; `ansi` makes
    /// character columns CASESPECIFIC unless written otherwise).
    ///
    /// # Errors
    /// 9910 for unsupported types; errors of the DEFAULT value.
    pub(crate) fn column_from_def(
        &mut self,
        c: &tdlite_parser::ColumnDef,
        ansi: bool,
    ) -> Result<Column> {
        let ty = crate::types::storage_type(&c.data_type)?;
        let default = c
            .default
            .as_ref()
            .map(|d| self.column_default(d, ty))
            .transpose()?;
        Ok(Column {
            name: c.name.clone(),
            ty,
            nullable: !c.not_null,
            default,
            case_specific: c.case_specific.unwrap_or(ansi),
            uppercase: c.uppercase,
            title: c.title.clone(),
            format: c.format.clone(),
            identity: match (&c.identity, &c.default) {
                (Some(_), Some(_)) => {
                    return Err(Error::IdentityUsage(format!(
                        "{} (an identity column takes no DEFAULT)",
                        c.name
                    )))
                }
                (Some(spec), None) => Some(crate::identity::definition(spec, ty, &c.name)?),
                (None, _) => None,
            },
        })
    }

    /// A partitioning's conditions (partition.rs) are sound for `schema`: they name its
    /// columns and, tried on a row of NULLs, give a condition (CASE_N of conditions, RANGE_N
    /// bounds of the test value's kind).
    ///
    /// # Errors
    /// 3810 for an unknown column; 9913 for a CASE_N item that is no condition; the
    /// conversion's error (3535, …) for a bound of another kind than the value.
    pub(crate) fn check_partitioning(
        &mut self,
        schema: &tdlite_storage::catalog::TableSchema,
    ) -> Result<()> {
        if schema.partition_checks.is_empty() {
            return Ok(());
        }
        let scope = crate::names::schema_scope(schema, &schema.name);
        let nulls: Vec<arrow::array::ArrayRef> = schema
            .arrow
            .fields()
            .iter()
            .map(|f| arrow::array::new_null_array(f.data_type(), 1))
            .collect();
        let row = RecordBatch::try_new(schema.arrow.clone(), nulls)?;
        for sql in &schema.partition_checks {
            let e = tdlite_parser::parse_expression(sql)?;
            let cond = self.bind_expr(&e, &scope, None)?;
            if arrow::array::AsArray::as_boolean_opt(&cond.eval(&row)?).is_none() {
                return Err(Error::TypeMismatch(
                    "PARTITION BY: a CASE_N item is a condition".into(),
                ));
            }
        }
        Ok(())
    }

    /// CREATE TABLE. `text` is the statement as written (kept for SHOW TABLE); `ansi` picks
    /// the session mode's defaults (docs/isolation.md, Session modes): Teradata mode makes SET
    /// tables and NOT CASESPECIFIC character columns, ANSI mode MULTISET and CASESPECIFIC.
    ///
    /// # Errors
    /// 3803 if the table exists, 9903 for a queue-rule violation, 3706-class errors for bad
    /// column definitions, 9910 for unsupported types.
    pub fn create_table(&mut self, ct: &CreateTable, text: &str, ansi: bool) -> Result<()> {
        if let Some(src) = &ct.as_source {
            if ct.consume_order.is_some()
                || ct.deliver_at.is_some()
                || ct.limits.location().is_some()
                || ct.subscribers.is_some()
            {
                return Err(queue_rule(
                    "CONSUME ORDER, DELIVER AT, ATTEMPTS, SUBSCRIBERS and the like need the queue's column definitions, \
                     not CREATE TABLE … AS.",
                ));
            }
            return self.create_table_as(ct, src, text, ansi).map(|_| ());
        }
        let default_set = !ansi;
        if ct.queue {
            check_queue_rules(ct)?;
        }
        let name = self.created_table_name(ct)?;
        let mut columns = Vec::new();
        for c in &ct.columns {
            if columns
                .iter()
                .any(|x: &Column| x.name.eq_ignore_ascii_case(&c.name))
            {
                return Err(Error::TypeMismatch(format!(
                    "column '{}' is defined twice",
                    c.name
                )));
            }
            let col = self.column_from_def(c, ansi)?;
            if col.identity.is_some() && columns.iter().any(|x| x.identity.is_some()) {
                return Err(Error::IdentityUsage(format!(
                    "{} (a table has at most one identity column)",
                    c.name
                )));
            }
            columns.push(col);
        }
        let position = |n: &str| -> Result<usize> {
            columns
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case(n))
                .ok_or_else(|| Error::ColumnNotFound(n.to_string()))
        };
        let spec = |d: &tdlite_parser::IndexDef, unique: bool| -> Result<IndexSpec> {
            let positions = d
                .columns
                .iter()
                .map(|c| position(c))
                .collect::<Result<Vec<_>>>()?;
            no_period_in_index(&columns, &positions)?;
            Ok(IndexSpec {
                name: d.name.clone(),
                columns: positions,
                unique,
            })
        };
        let mut secondary = Vec::new();
        for u in &ct.unique_constraints {
            secondary.push(spec(u, true)?);
        }
        for (i, c) in ct.columns.iter().enumerate() {
            if c.unique || c.primary_key {
                no_period_in_index(&columns, &[i])?;
                secondary.push(IndexSpec {
                    name: None,
                    columns: vec![i],
                    unique: true,
                });
            }
        }
        for i in &ct.indexes {
            secondary.push(spec(i, i.unique)?);
        }
        let primary_key = match &ct.primary_key {
            Some(cols) => Some(cols.iter().map(|c| position(c)).collect::<Result<_>>()?),
            None => ct
                .columns
                .iter()
                .position(|c| c.primary_key)
                .map(|i| vec![i]),
        };
        let primary_index = match (&ct.primary_index, ct.no_primary_index) {
            (Some(p), _) => Some(spec(p, p.unique)?),
            (None, true) => None,
            // Teradata: the PRIMARY KEY becomes the UPI when no PI is given, else the first
            // UNIQUE constraint (SQL Fundamentals, "Primary Index Defaults")
            (None, false) => match (secondary.iter())
                .position(|s| s.unique && Some(&s.columns) == primary_key.as_ref())
                .or_else(|| secondary.iter().position(|s| s.unique))
            {
                Some(k) => Some(secondary.remove(k)),
                None => Some(IndexSpec {
                    name: None,
                    columns: vec![default_index_column(&columns)],
                    unique: false,
                }),
            },
        };
        let kind = match ct.kind {
            Some(PKind::Set) => TableKind::Set,
            Some(PKind::Multiset) => TableKind::Multiset,
            None if default_set && !ct.no_primary_index => TableKind::Set,
            None => TableKind::Multiset,
        };
        let mut schema = TableSchema::new(
            name,
            columns,
            kind,
            ct.queue,
            primary_index,
            secondary,
            text.to_string(),
        );
        schema.primary_key = primary_key;
        schema.queue_order = match &ct.consume_order {
            Some(o) => Some(consume_order(ct.queue, &schema.columns, o)?),
            None => None,
        };
        if let Some((column, _)) = &ct.deliver_at {
            deliver_at(&schema, column)?;
            schema.delivers_at_qits = true;
        }
        schema.limits = self.queue_limits(&schema, &ct.limits)?;
        schema.volatile = self.volatile_of(ct);
        schema.global_temporary = global_temporary_of(ct);
        if let Some((names, _)) = &ct.subscribers {
            Self::check_subscribers(&mut schema, names)?;
        }
        schema.checks = ct
            .columns
            .iter()
            .flat_map(|c| {
                c.checks
                    .iter()
                    .map(|e| (Some(c.name.clone()), e.to_string()))
            })
            .chain(ct.checks.iter().map(|e| (None, e.to_string())))
            .collect();
        schema.partition_checks = crate::partition::conditions(&ct.partitioning);
        self.check_partitioning(&schema)?;
        // a CHECK must name existing columns: bind each once now
        let scope = crate::names::schema_scope(&schema, &schema.name);
        for e in ct
            .columns
            .iter()
            .flat_map(|c| c.checks.iter())
            .chain(&ct.checks)
        {
            self.bind_expr(e, &scope, None)?;
        }
        let table = self.txn.create_table(schema)?;
        if let Some((names, _)) = &ct.subscribers {
            self.create_subscriber_tables(&table, names)?;
        }
        Ok(())
    }

    /// DROP TABLE; returns the dropped table so the session can fail its waiting consumers.
    ///
    /// # Errors
    /// 3807 if it does not exist.
    pub fn drop_table(&mut self, name: &ast::ObjectName) -> Result<Arc<Table>> {
        let found = self.object_definition(name);
        if let Ok(t) = &found {
            if t.schema.view.is_some() || t.schema.macro_def.is_some() {
                return Err(Error::NotATable(t.schema.name.clone()));
            }
        }
        let n = match found {
            Ok(t) if t.schema.volatile.is_some() => {
                self.txn.drop_volatile(t.clone())?;
                return Ok(t);
            }
            // a global temporary table's definition goes only while no session (this one
            // included) has an instance of it (5337; DROP TEMPORARY TABLE drops one), checked
            // once the DROP holds the definition's EXCLUSIVE lock
            Ok(t) if t.schema.global_temporary.is_some() => {
                self.txn.lock(&t, LockMode::Exclusive, false)?;
                self.refuse_materialized(&t, "Drop Table")?;
                t.schema.name.clone()
            }
            Ok(t) => {
                self.check_dead_letter_links(&t.schema.name, None)?;
                t.schema.name.clone()
            }
            // not found: the storage layer says so (3807) after its own wait for the name
            Err(Error::ObjectNotFound(_)) => self.table_name(name),
            Err(e) => return Err(e),
        };
        Ok(self.txn.drop_table(&n)?)
    }

    /// `DROP TEMPORARY TABLE t`: this session's instance of the global temporary table `t`;
    /// `DROP TABLE t ALL`: the definition and every session's instance (each dropped once
    /// no other transaction holds a lock on it, as Teradata waits for the transactions
    /// using them). Both are undone on rollback. Returns what was dropped.
    ///
    /// # Errors
    /// 3807 if there is no such table (for TEMPORARY: no instance in this session), 3853 if
    /// it is not a global temporary table; lock errors.
    pub fn drop_temporary(&mut self, name: &ast::ObjectName, all: bool) -> Result<Vec<Arc<Table>>> {
        let t = self.table_definition(name)?;
        if t.schema.global_temporary.is_none() {
            return Err(Error::NotATable(t.schema.name.clone()));
        }
        let catalog = &self.shared.storage.catalog;
        let instances: Vec<Arc<Table>> = if all {
            self.txn.lock(&t, LockMode::Exclusive, false)?;
            catalog.temporary_instances(t.id)
        } else {
            let own = catalog
                .get_volatile(self.session, &t.schema.name)
                .filter(|i| i.schema.volatile.and_then(|v| v.instance_of) == Some(t.id));
            match own {
                Some(i) => vec![i],
                None => return Err(Error::ObjectNotFound(t.schema.name.clone())),
            }
        };
        let mut dropped = Vec::new();
        for i in instances {
            self.txn.drop_volatile(i.clone())?;
            dropped.push(i);
        }
        if all {
            dropped.push(self.txn.drop_table(&t.schema.name)?);
        }
        Ok(dropped)
    }

    /// Clears the way for a DDL statement that changes or drops the global temporary table
    /// `t`'s definition: 5337 if a session's instance of it holds rows (or held them: any
    /// row version counts, so an INSERT materializes it as Teradata's does); an instance that
    /// never held a row (made by a read, which in Teradata materializes nothing) is dropped
    /// with the statement. Each instance is checked under an EXCLUSIVE lock, so after the
    /// transactions using it.
    pub(crate) fn refuse_materialized(&mut self, t: &Table, statement: &str) -> Result<()> {
        if t.schema.global_temporary.is_none() {
            return Ok(());
        }
        for i in self.shared.storage.catalog.temporary_instances(t.id) {
            self.txn.lock(&i, LockMode::Exclusive, false)?;
            if i.row_versions() > 0 {
                return Err(Error::MaterializedTemporary(statement.to_string()));
            }
            self.txn.drop_volatile(i)?;
        }
        Ok(())
    }

    /// HELP TABLE: Teradata's attributes of each column (`only`: those columns), see
    /// help_attrs.rs.
    ///
    /// # Errors
    /// 3807, and 3810 for a column `only` names that the table does not have.
    pub fn help_table(&self, name: &ast::ObjectName, only: Option<&[String]>) -> Result<Rows> {
        let t = self.table_definition(name)?;
        let cols = help_columns(&t.schema, only)?;
        crate::help_attrs::help_table(&t.schema, &cols, &self.shared.registry)
    }

    /// `HELP COLUMN`: Teradata's HELP COLUMN rows (see help_attrs.rs) for the columns
    /// `only` names, or all.
    ///
    /// # Errors
    /// As [`Exec::help_table`].
    pub fn help_column(&self, name: &ast::ObjectName, only: Option<&[String]>) -> Result<Rows> {
        let t = self.table_definition(name)?;
        let cols = help_columns(&t.schema, only)?;
        crate::help_attrs::help_column(&t.schema, &cols)
    }

    /// HELP INDEX: a row per index, with Teradata's columns: Unique? (Y/N), Primary or
    /// Secondary? (P/S), Column Names, Index Id (1 for the primary index, 4, 8, … for the
    /// secondary ones, as Teradata numbers them), Approximate Count (NULL: tdlite keeps no
    /// statistics of its own), Index Name, Ordered or Partitioned? (H: hash-ordered).
    ///
    /// # Errors
    /// 3807 for a table that does not exist (3853 for a view).
    pub fn help_index(&self, name: &ast::ObjectName) -> Result<Rows> {
        let t = self.base_table_definition(name)?;
        let s = &t.schema;
        // (primary, the index, its id)
        type Entry<'a> = (bool, &'a tdlite_storage::catalog::IndexSpec, i32);
        let indexes: Vec<Entry> = s
            .primary_index
            .iter()
            .map(|p| (true, p, 1))
            .chain(s.secondary.iter().enumerate().map(|(k, ix)| {
                (
                    false,
                    ix,
                    4 * (i32::try_from(k).unwrap_or(i32::MAX / 4) + 1),
                )
            }))
            .collect();
        let text = |f: &dyn Fn(&Entry) -> Option<String>| {
            Arc::new(StringArray::from(indexes.iter().map(f).collect::<Vec<_>>())) as ArrayRef
        };
        let yn = |b: bool| Some(if b { "Y" } else { "N" }.to_string());
        let arrays: Vec<ArrayRef> = vec![
            text(&|(_, ix, _)| yn(ix.unique)),
            text(&|(primary, _, _)| Some(if *primary { "P" } else { "S" }.to_string())),
            text(&|(_, ix, _)| {
                Some(
                    ix.columns
                        .iter()
                        .map(|&c| s.columns[c].name.clone())
                        .collect::<Vec<_>>()
                        .join(","),
                )
            }),
            Arc::new(arrow::array::Int32Array::from(
                indexes.iter().map(|(_, _, id)| *id).collect::<Vec<_>>(),
            )),
            Arc::new(arrow::array::Int64Array::from(vec![
                None::<i64>;
                indexes.len()
            ])),
            text(&|(_, ix, _)| ix.name.clone()),
            text(&|_| Some("H".to_string())),
        ];
        let field = |n: &str, t: DataType| Field::new(n, t, true);
        let schema = Arc::new(Schema::new(vec![
            field("Unique?", DataType::Utf8),
            field("Primary or Secondary?", DataType::Utf8),
            field("Column Names", DataType::Utf8),
            field("Index Id", DataType::Int32),
            field("Approximate Count", DataType::Int64),
            field("Index Name", DataType::Utf8),
            field("Ordered or Partitioned?", DataType::Utf8),
        ]));
        Ok(Rows {
            schema: schema.clone(),
            batches: vec![RecordBatch::try_new(schema, arrays)?],
        })
    }

    /// SHOW TABLE: the DDL as written, with the table kind made explicit.
    ///
    /// # Errors
    /// 3807.
    pub fn show_table(&self, name: &ast::ObjectName) -> Result<Rows> {
        let t = self.table_definition(name)?;
        let kind = match (t.schema.view.is_some(), t.schema.kind) {
            (true, _) => "VIEW",
            (false, TableKind::Set) => "SET TABLE",
            (false, TableKind::Multiset) => "MULTISET TABLE",
        };
        // ending with `;`, as Teradata's does, so that SHOW's text runs as a script
        let mut text = format!(
            "-- {kind}{}\n{};",
            if t.schema.queue { ", QUEUE" } else { "" },
            t.schema.ddl.trim_end().trim_end_matches(';')
        );
        if t.schema.multi_consumer {
            text.push_str(&crate::subscribers::subscribers_since(
                &self.shared.storage.catalog,
                &t,
                self.txn.id(),
            ));
        }
        let schema = Arc::new(Schema::new(vec![Field::new(
            "Request Text",
            DataType::Utf8,
            false,
        )]));
        Ok(Rows {
            schema: schema.clone(),
            batches: vec![RecordBatch::try_new(
                schema,
                vec![Arc::new(StringArray::from(vec![text]))],
            )?],
        })
    }
}

/// What a `CREATE GLOBAL TEMPORARY TABLE` records: its ON COMMIT option (DELETE ROWS unless
/// PRESERVE ROWS is written, Teradata's default). None for other tables.
pub(crate) fn global_temporary_of(ct: &CreateTable) -> Option<VolatileCommit> {
    ct.global_temporary.then(|| {
        if ct.on_commit_preserve == Some(true) {
            VolatileCommit::PreserveRows
        } else {
            VolatileCommit::DeleteRows
        }
    })
}

impl Exec<'_> {
    /// What a `CREATE VOLATILE TABLE` records: this session, and its ON COMMIT option
    /// (DELETE ROWS unless PRESERVE ROWS is written, as Teradata's default). None otherwise.
    pub(crate) fn volatile_of(&self, ct: &CreateTable) -> Option<Volatile> {
        ct.volatile.then(|| Volatile {
            session: self.session,
            on_commit: if ct.on_commit_preserve == Some(true) {
                VolatileCommit::PreserveRows
            } else {
                VolatileCommit::DeleteRows
            },
            instance_of: None,
        })
    }

    /// The catalog name a CREATE TABLE makes. A volatile table is in the logon user's
    /// database whatever the default database is: its name is unqualified (or qualified by
    /// the user), never another database's (3802), nor the name of a permanent table of the
    /// user's database (3803).
    pub(crate) fn created_table_name(&self, ct: &CreateTable) -> Result<String> {
        if !ct.volatile {
            return self.new_permanent_name(&ct.name);
        }
        let written = tdlite_parser::object_name_string(&ct.name);
        let bare = match written.split_once('.') {
            None => written.clone(),
            Some((db, bare)) if db.eq_ignore_ascii_case(self.user) => bare.to_string(),
            Some((db, _)) => {
                return Err(Error::Unsupported(format!(
                    "a volatile table in database {db}: volatile tables are in the logon user's database ({})",
                    self.user
                )))
            }
        };
        let catalog = &self.shared.storage.catalog;
        let permanent = catalog.get_table(&bare).or_else(|| {
            // as tdlite stored a user-qualified name before it read that as unqualified
            catalog.get_table(&format!("{}.{bare}", self.user))
        });
        if permanent.is_some() {
            return Err(Error::Storage(tdlite_storage::StorageError::TableExists(
                bare,
            )));
        }
        Ok(bare)
    }

    /// The catalog name a new permanent object (table, view, macro, rename target) takes; 3803
    /// if it is in the user's database under the name of one of this session's volatile
    /// tables (which would make the name ambiguous for the session).
    pub(crate) fn new_permanent_name(&self, name: &ast::ObjectName) -> Result<String> {
        let n = self.table_name(name);
        if !n.contains('.')
            && self
                .shared
                .storage
                .catalog
                .get_volatile(self.session, &n)
                .is_some()
        {
            return Err(Error::Storage(tdlite_storage::StorageError::TableExists(n)));
        }
        Ok(n)
    }
}

/// The columns `only` names (in its order), or all of `schema`'s; 3810 for one it lacks.
fn help_columns<'s>(schema: &'s TableSchema, only: Option<&[String]>) -> Result<Vec<&'s Column>> {
    match only {
        None => Ok(schema.columns.iter().collect()),
        Some(names) => names
            .iter()
            .map(|n| {
                schema
                    .columns
                    .iter()
                    .find(|c| c.name.eq_ignore_ascii_case(n))
                    .ok_or_else(|| Error::ColumnNotFound(n.clone()))
            })
            .collect(),
    }
}

/// 9913 if one of `positions` is a PERIOD column of `columns`: Teradata allows none in a
/// primary index (SQL Fundamentals, Primary Indexes, "Restrictions": "A primary index column
/// … cannot be a column that has a … Period data type") nor a secondary one (Database Design,
/// "Restrictions on Secondary Indexes"), so neither in a UNIQUE or PRIMARY KEY constraint.
pub(crate) fn no_period_in_index(columns: &[Column], positions: &[usize]) -> Result<()> {
    match positions
        .iter()
        .filter_map(|&i| columns.get(i))
        .find(|c| matches!(c.ty, SqlType::Period(_)))
    {
        Some(c) => Err(Error::TypeMismatch(format!(
            "PERIOD column {} cannot be part of an index",
            c.name
        ))),
        None => Ok(()),
    }
}

/// The column of a primary index nobody named: the first that an index may hold (no PERIOD
/// column: [`no_period_in_index`]).
pub(crate) fn default_index_column(columns: &[Column]) -> usize {
    columns
        .iter()
        .position(|c| !matches!(c.ty, SqlType::Period(_)))
        .unwrap_or(0)
}
