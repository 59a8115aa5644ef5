//! `ALTER TABLE t ADD column …, DROP column …`.
//!
//! tdlite rebuilds the table in the statement's transaction: it reads the rows, drops the table
//! and creates it again under the same name with the new columns, then inserts the rows (an
//! added column gets its DEFAULT, or NULL). The log therefore holds an ordinary DROP, CREATE
//! and INSERTs, and a rollback brings the old table back whole. Indexes and CHECK constraints
//! move with their columns; dropping a column an index or a CHECK uses is refused, as is
//! dropping a queue table's QITS column. SHOW TABLE shows the CREATE text followed by the
//! ALTER statements.
//!
//! Invariants: the table keeps its rows, their values and (for a queue) their QITS; other
//! sessions wait for the rebuild (DROP and CREATE hold EXCLUSIVE locks). Consumers waiting on a
//! queue that is altered fail with 9906, as for a DROP.

use crate::error::{Error, Result};
use crate::exec::Exec;
use arrow::array::ArrayRef;
use arrow::record_batch::RecordBatch;
use sqlparser::ast;
use std::sync::Arc;
use tdlite_parser::AlterAction;
use tdlite_storage::catalog::{IndexSpec, TableSchema};
use tdlite_storage::table::Table;

impl Exec<'_> {
    /// ALTER TABLE; returns the (dropped) old table, whose waiting consumers must fail.
    ///
    /// # Errors
    /// 3807/3823 for a missing table or a view; 3810 for a column that does not exist; 9913
    /// for a column added twice or a drop that an index, CHECK or the QITS needs; the errors
    /// of inserting the rows (3811 for a NOT NULL column added without a DEFAULT).
    pub(crate) fn alter_table(
        &mut self,
        name: &ast::ObjectName,
        actions: &[AlterAction],
        text: &str,
        ansi: bool,
    ) -> Result<Arc<Table>> {
        let old = self.must_get_base_table(name)?;
        let schema = &old.schema;
        // where each new column comes from: Some(old position) or None (added)
        let mut columns = schema.columns.clone();
        let mut origin: Vec<Option<usize>> = (0..columns.len()).map(Some).collect();
        for a in actions {
            match a {
                AlterAction::Add(def) => {
                    if columns
                        .iter()
                        .any(|c| c.name.eq_ignore_ascii_case(&def.name))
                    {
                        return Err(Error::TypeMismatch(format!(
                            "column '{}' already exists",
                            def.name
                        )));
                    }
                    columns.push(self.column_from_def(def, ansi)?);
                    origin.push(None);
                }
                AlterAction::Drop(c) => {
                    let i = columns
                        .iter()
                        .position(|x| x.name.eq_ignore_ascii_case(c))
                        .ok_or_else(|| Error::ColumnNotFound(c.clone()))?;
                    let old_pos = origin[i];
                    let in_index = schema
                        .primary_index
                        .iter()
                        .chain(&schema.secondary)
                        .any(|ix| old_pos.is_some_and(|p| ix.columns.contains(&p)));
                    let in_check = schema.checks.iter().any(|(col, sql)| {
                        col.as_deref().is_some_and(|x| x.eq_ignore_ascii_case(c))
                            || sql.to_ascii_uppercase().contains(&c.to_ascii_uppercase())
                    });
                    if in_index || in_check || (schema.queue && old_pos == Some(0)) {
                        return Err(Error::TypeMismatch(format!(
                            "column '{c}' is used by an index, a CHECK or the queue; it cannot be dropped"
                        )));
                    }
                    if columns.len() == 1 {
                        return Err(Error::TypeMismatch("a table needs a column".into()));
                    }
                    columns.remove(i);
                    origin.remove(i);
                }
            }
        }
        // index column positions follow their columns
        let remap = |ix: &IndexSpec| -> IndexSpec {
            IndexSpec {
                name: ix.name.clone(),
                columns: ix
                    .columns
                    .iter()
                    .filter_map(|p| origin.iter().position(|o| *o == Some(*p)))
                    .collect(),
                unique: ix.unique,
            }
        };
        let mut new_schema = TableSchema::new(
            schema.name.clone(),
            columns,
            schema.kind,
            schema.queue,
            schema.primary_index.as_ref().map(remap),
            schema.secondary.iter().map(remap).collect(),
            format!("{};\n{}", schema.ddl.trim_end_matches(';'), text),
        );
        new_schema.checks = schema.checks.clone();
        let (rows, _) = self.scan_table(&old)?;
        let kept: Vec<ArrayRef> = origin
            .iter()
            .filter_map(|o| o.map(|p| rows.column(p).clone()))
            .collect();
        let targets: Vec<usize> = origin
            .iter()
            .enumerate()
            .filter_map(|(i, o)| o.map(|_| i))
            .collect();
        let dropped = self.txn.drop_table(&schema.name)?;
        let table = self.txn.create_table(new_schema)?;
        let fields: Vec<arrow::datatypes::Field> = targets
            .iter()
            .zip(&kept)
            .map(|(&i, a)| {
                arrow::datatypes::Field::new(
                    table.schema.columns[i].name.clone(),
                    a.data_type().clone(),
                    true,
                )
            })
            .collect();
        let source = RecordBatch::try_new_with_options(
            Arc::new(arrow::datatypes::Schema::new(fields)),
            kept,
            &arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(rows.num_rows())),
        )?;
        self.insert_batch(&table, &targets, &source, false)?;
        Ok(dropped)
    }
}
