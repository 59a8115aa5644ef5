//! `CREATE TABLE t AS (query) WITH [NO] DATA` and `CREATE TABLE t AS src WITH [NO] DATA`.
//!
//! From a query: one column per result column, with the result's name, type and TITLE and
//! CASESPECIFIC attributes; a character column has the CHAR(n)/VARCHAR(n) its select item
//! declares (text_type.rs: a column's, a CAST's, a literal's, `||`'s, …), else VARCHAR(64000)
//! (Arrow does not keep a string's declared length); all columns are nullable, the primary index is a NUPI on the
//! first column, and the table kind is the session mode's default. From a table: a copy of its
//! definition (columns with their attributes, defaults, constraints, indexes and kind, as
//! Teradata copies them); a view as the source is its query. A written SET/MULTISET, PRIMARY
//! INDEX or NO PRIMARY INDEX replaces the derived one, and written secondary indexes are added.
//! `CREATE TABLE …, QUEUE AS` is 9910. `WITH DATA` then inserts the rows, in the same
//! transaction (duplicates into a SET table are skipped, as INSERT … SELECT does).
//!
//! Invariant: the new table exists with its rows, or, on any error, not at all (the
//! transaction rolls back the CREATE with the inserts).

use crate::error::{Error, Result};
use crate::exec::Exec;
use crate::view::{column_of, parse_query};
use arrow::compute::concat_batches;
use tdlite_parser::{AsFrom, AsSource, CreateTable, TableKind as PKind};
use tdlite_storage::catalog::{Column, IndexSpec, TableKind, TableSchema};

impl Exec<'_> {
    /// Runs `CREATE TABLE … AS …`; returns the number of rows copied.
    ///
    /// # Errors
    /// 3803 if the table exists, 3807 for a missing source, 3810 for an index on an unknown
    /// column, and the query's own errors.
    pub(crate) fn create_table_as(
        &mut self,
        ct: &CreateTable,
        src: &AsSource,
        text: &str,
        ansi: bool,
    ) -> Result<u64> {
        let name = self.created_table_name(ct)?;
        if ct.queue {
            return Err(Error::Unsupported(
                "CREATE TABLE …, QUEUE AS (create the queue, then INSERT … SELECT)".into(),
            ));
        }
        // a view as the source is a query of all of it: its columns as the view names them
        // (its column list), the ones it was created with
        let from = match &src.from {
            AsFrom::Table(t) => match self.must_get_table(t)?.schema.view.is_some() {
                true => AsFrom::Query(Box::new(parse_query(&format!("SELECT * FROM {t}"))?)),
                false => src.from.clone(),
            },
            other => other.clone(),
        };
        // a copy of a table with an identity column keeps its rows' numbers and goes on
        // where the source's sequence is
        let mut numbered_from = None;
        let (mut schema, rows) = match &from {
            AsFrom::Table(t) => {
                let source = self.must_get_table(t)?;
                numbered_from = Some(source.clone());
                let mut schema = source.schema.clone();
                schema.name = name.clone();
                schema.ddl = text.to_string();
                // a queue with subscribers gives its columns and rows, not its subscribers
                schema.multi_consumer = false;
                schema.subscription = None;
                let rows = src
                    .with_data
                    .then(|| self.scan_table(&source).map(|(b, _)| b))
                    .transpose()?;
                (schema, rows)
            }
            AsFrom::Query(q) => {
                // WITH NO DATA: the query's columns, its rows not read
                let result = match src.with_data {
                    true => self.run_query(q)?,
                    false => self.shape_of(q)?,
                };
                let mut columns: Vec<Column> = Vec::new();
                for f in result.schema.fields() {
                    if columns
                        .iter()
                        .any(|c| c.name.eq_ignore_ascii_case(f.name()))
                    {
                        return Err(Error::TypeMismatch(format!(
                            "the query of CREATE TABLE … AS has two columns named '{}'; name them with AS",
                            f.name()
                        )));
                    }
                    // "the system copies only the data types": no TITLE or FORMAT from the
                    // query
                    let mut column = column_of(f, f.name().clone());
                    column.title = None;
                    column.format = None;
                    columns.push(column);
                }
                if columns.is_empty() {
                    return Err(Error::TypeMismatch("a table needs a column".into()));
                }
                let kind = match ct.kind {
                    Some(PKind::Set) => TableKind::Set,
                    Some(PKind::Multiset) => TableKind::Multiset,
                    None if !ansi => TableKind::Set,
                    None => TableKind::Multiset,
                };
                let pi = Some(IndexSpec {
                    name: None,
                    columns: vec![crate::ddl::default_index_column(&columns)],
                    unique: false,
                });
                let schema = TableSchema::new(
                    name.clone(),
                    columns,
                    kind,
                    false,
                    pi,
                    Vec::new(),
                    text.into(),
                );
                let batch = concat_batches(&result.schema, &result.batches)?;
                (schema, src.with_data.then_some(batch))
            }
        };
        if !src.columns.is_empty() {
            self.name_copied_columns(&mut schema, &src.columns)?;
        }
        if let Some(kind) = ct.kind {
            schema.kind = match kind {
                PKind::Set => TableKind::Set,
                PKind::Multiset => TableKind::Multiset,
            };
        }
        schema.volatile = self.volatile_of(ct);
        schema.global_temporary = crate::ddl::global_temporary_of(ct);
        if schema.global_temporary.is_some() && schema.queue {
            return Err(crate::ddl::queue_rule(
                "a queue table cannot be GLOBAL TEMPORARY (only SET or MULTISET base tables can be queues).",
            ));
        }
        if schema.volatile.is_some() && schema.queue {
            // `CREATE VOLATILE TABLE v AS queue_table`: the queue rule of CREATE holds here too
            return Err(crate::ddl::queue_rule(
                "a queue table cannot be VOLATILE (only SET or MULTISET base tables can be queues).",
            ));
        }
        if ct.no_primary_index {
            // a NoPI table is always MULTISET, whatever the session mode (as in Teradata)
            schema.primary_index = None;
            schema.kind = TableKind::Multiset;
        }
        for ix in &ct.indexes {
            let columns = column_positions(&schema, &ix.columns)?;
            crate::ddl::no_period_in_index(&schema.columns, &columns)?;
            schema.secondary.push(IndexSpec {
                name: ix.name.clone(),
                columns,
                unique: ix.unique,
            });
        }
        if !ct.partitioning.is_empty() {
            schema.partition_checks = crate::partition::conditions(&ct.partitioning);
            self.check_partitioning(&schema)?;
        }
        if let Some(p) = &ct.primary_index {
            let columns = column_positions(&schema, &p.columns)?;
            crate::ddl::no_period_in_index(&schema.columns, &columns)?;
            schema.primary_index = Some(IndexSpec {
                name: p.name.clone(),
                columns,
                unique: p.unique,
            });
        }
        let table = self.txn.create_table(schema)?;
        let copy = match &numbered_from {
            Some(from) if table.identity.is_some() => {
                self.txn.continue_identity(&table, from);
                true
            }
            _ => false,
        };
        match rows {
            Some(batch) => {
                let targets: Vec<usize> = (0..table.schema.columns.len()).collect();
                let skip = table.schema.kind == TableKind::Set;
                self.insert_batch_numbered(&table, &targets, &batch, skip, !copy)
            }
            None => Ok(0),
        }
    }
}

impl Exec<'_> {
    /// `CREATE TABLE t (c [attributes], …) AS …`: the copied columns take these names, in
    /// order, and the attributes written (NOT NULL, TITLE, FORMAT, DEFAULT, [NOT]
    /// CASESPECIFIC, UPPERCASE).
    ///
    /// # Errors
    /// 3706 for a list of another length than the source's columns; 9913 for a name written
    /// twice (as CREATE TABLE); 9910 for renaming the columns of a table with CHECK constraints (their text
    /// names the old columns); the DEFAULT's errors.
    fn name_copied_columns(
        &mut self,
        schema: &mut TableSchema,
        names: &[tdlite_parser::ColumnDef],
    ) -> Result<()> {
        if names.len() != schema.columns.len() {
            return Err(Error::Parse(tdlite_parser::ParseError::syntax(
                format!(
                    "CREATE TABLE … AS names {} columns, its source has {}",
                    names.len(),
                    schema.columns.len()
                ),
                names[0].location,
            )));
        }
        for (i, d) in names.iter().enumerate() {
            if names[..i]
                .iter()
                .any(|o| o.name.eq_ignore_ascii_case(&d.name))
            {
                return Err(Error::TypeMismatch(format!(
                    "column '{}' is defined twice",
                    d.name
                )));
            }
        }
        let renamed = (names.iter().zip(&schema.columns)).any(|(d, c)| d.name != c.name);
        if renamed && crate::dml::has_row_checks_in(schema) {
            return Err(Error::Unsupported(
                "new column names for a copy of a table with CHECK constraints or a partitioning"
                    .into(),
            ));
        }
        for (d, c) in names.iter().zip(schema.columns.iter_mut()) {
            c.name = d.name.clone();
            c.nullable &= !d.not_null;
            if d.title.is_some() {
                c.title = d.title.clone();
            }
            if d.format.is_some() {
                c.format = d.format.clone();
            }
            if let Some(cs) = d.case_specific {
                c.case_specific = cs;
            }
            c.uppercase |= d.uppercase;
            if let Some(default) = &d.default {
                c.default = Some(self.column_default(default, c.ty)?);
            }
        }
        Ok(())
    }
}

/// The positions of named columns in a table definition.
///
/// # Errors
/// 3810 for a name the table does not have.
pub(crate) fn column_positions(schema: &TableSchema, columns: &[String]) -> Result<Vec<usize>> {
    columns
        .iter()
        .map(|c| {
            schema
                .column_index(c)
                .ok_or_else(|| Error::ColumnNotFound(c.clone()))
        })
        .collect()
}
