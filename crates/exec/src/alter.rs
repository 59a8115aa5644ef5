//! `ALTER TABLE t ADD column …, DROP column …, RENAME old TO new`, `CREATE [UNIQUE] INDEX` and
//! `DROP INDEX`.
//!
//! Indexes: a secondary index is part of its table's definition (`TableSchema::secondary`),
//! and storage keeps an ordered index for it (`tdlite_storage::index`). A UNIQUE one is
//! enforced like a UNIQUE constraint (2803). The planner (`plan.rs`, `access.rs`) reads any
//! index, primary or secondary, to find the rows of equalities, IN lists, ranges and MIN/MAX,
//! and EXPLAIN shows which it picks; an index changes how rows are found, never which rows a
//! statement gets. Both Teradata forms are accepted (`CREATE INDEX name (cols) ON t` and
//! `… name ON t (cols)`); `DROP INDEX` names an index or its columns, and without ON looks the
//! name up in every table (9913 if several tables have it).
//!
//! All three statements rebuild the table in the statement's transaction: read the rows, drop
//! the table and create it again under the same name with the new definition, then insert the
//! rows (an added column gets its DEFAULT, or NULL). The log therefore holds an ordinary DROP,
//! CREATE and INSERTs, and a rollback brings the old table back whole. Indexes and CHECK
//! constraints move with their columns; dropping a column an index or a CHECK uses is refused,
//! as is dropping a queue table's QITS column, and adding a column with a constraint is 9910.
//! ADD of an existing column modifies it (`modify_column`): a longer VARCHAR/VARBYTE, new
//! NOT NULL, DEFAULT, FORMAT, TITLE or case attributes; any other change is 3558.
//! SHOW TABLE shows the CREATE text followed by these statements.
//!
//! Invariants: the table keeps its rows, their values and (for a queue) their QITS; other
//! sessions wait for the rebuild (DROP and CREATE hold EXCLUSIVE locks). Consumers waiting on a
//! queue that is rebuilt fail with 9906, as for a DROP.

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
        let old = self.base_table_definition(name)?;
        crate::subscribers::refuse_change(&old, "ALTER TABLE")?;
        let schema = &old.schema;
        // where each new column comes from: Some(old position) or None (added)
        let mut columns = schema.columns.clone();
        let mut origin: Vec<Option<usize>> = (0..columns.len()).map(Some).collect();
        // a CHECK names its columns in its text
        let in_check = |c: &str| {
            schema.checks.iter().any(|(col, sql)| {
                col.as_deref().is_some_and(|x| x.eq_ignore_ascii_case(c))
                    || crate::names::names_in_text(sql)
                        .iter()
                        .any(|n| n.eq_ignore_ascii_case(c))
            }) || (schema.partition_checks.iter()).any(|sql| {
                crate::names::names_in_text(sql)
                    .iter()
                    .any(|n| n.eq_ignore_ascii_case(c))
            })
        };
        // the columns an ADD modified (one change per column in a request)
        let mut modified: Vec<usize> = Vec::new();
        for a in actions {
            match a {
                AlterAction::Add(def) => {
                    if !def.checks.is_empty() || def.unique || def.primary_key {
                        return Err(Error::Unsupported(
                            "a constraint on an added column (add it, then CREATE UNIQUE INDEX)"
                                .into(),
                        ));
                    }
                    if def.identity.is_some()
                        && columns
                            .iter()
                            .any(|c| c.name.eq_ignore_ascii_case(&def.name))
                    {
                        return Err(Error::IdentityUsage(format!(
                            "{} (ALTER TABLE cannot add the identity attribute to a column)",
                            def.name
                        )));
                    }
                    if let Some(i) = columns
                        .iter()
                        .position(|c| c.name.eq_ignore_ascii_case(&def.name))
                    {
                        // ADD of an existing column modifies it (SQL Data Definition
                        // Language, ALTER TABLE, "ADD column_name")
                        if modified.contains(&i) {
                            return Err(Error::CannotAlter(def.name.clone()));
                        }
                        modified.push(i);
                        let indexed = origin[i].is_some_and(|p| {
                            schema
                                .primary_index
                                .iter()
                                .chain(&schema.secondary)
                                .any(|ix| ix.columns.contains(&p))
                        });
                        let new = self.column_from_def(def, ansi)?;
                        columns[i] = modify_column(&columns[i], new, def, indexed)?;
                        continue;
                    }
                    if def.identity.is_some() {
                        return Err(Error::IdentityUsage(format!(
                            "{} (ALTER TABLE cannot add an identity column)",
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
                    let queue_column = schema.queue
                        && (old_pos == Some(0)
                            || old_pos.is_some_and(|p| {
                                schema.queue_order.is_some_and(|o| o.column == p)
                                    || schema
                                        .limits
                                        .as_ref()
                                        .is_some_and(|l| l.attempts == Some(p))
                            }));
                    if in_index || in_check(c) || queue_column {
                        return Err(Error::TypeMismatch(format!(
                            "column '{c}' is used by an index, a CHECK, the partitioning or the \
                             queue (its QITS, CONSUME ORDER or ATTEMPTS); it cannot be dropped"
                        )));
                    }
                    if columns.len() == 1 {
                        return Err(Error::TypeMismatch("a table needs a column".into()));
                    }
                    columns.remove(i);
                    origin.remove(i);
                }
                AlterAction::Rename(from, to) => {
                    let i = columns
                        .iter()
                        .position(|x| x.name.eq_ignore_ascii_case(from))
                        .ok_or_else(|| Error::ColumnNotFound(from.clone()))?;
                    if columns.iter().any(|c| c.name.eq_ignore_ascii_case(to)) {
                        return Err(Error::TypeMismatch(format!("column '{to}' already exists")));
                    }
                    if in_check(from) {
                        return Err(Error::TypeMismatch(format!(
                            "column '{from}' is used by a CHECK or the partitioning; it cannot be \
                             renamed"
                        )));
                    }
                    columns[i].name = to.clone();
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
        new_schema.partition_checks = schema.partition_checks.clone();
        // the consume order follows its column (which cannot be dropped)
        new_schema.queue_order = schema.queue_order.and_then(|o| {
            let column = origin.iter().position(|p| *p == Some(o.column))?;
            Some(tdlite_storage::catalog::QueueOrder { column, ..o })
        });
        new_schema.delivers_at_qits = schema.delivers_at_qits;
        new_schema.limits = schema.limits.clone().map(|l| {
            // the count's column cannot be dropped: it is found
            let attempts = l
                .attempts
                .and_then(|c| origin.iter().position(|p| *p == Some(c)));
            tdlite_storage::catalog::QueueLimits { attempts, ..l }
        });
        self.rebuild(&old, new_schema, &origin)
    }

    /// CREATE [UNIQUE] INDEX: the table rebuilt with one more secondary index.
    ///
    /// # Errors
    /// 3807/3823 for a missing table or a view; 3810 for an unknown column; 5612 for a name
    /// already used by an index of the table; 2803 when UNIQUE finds duplicate values.
    pub(crate) fn create_index(
        &mut self,
        name: Option<&str>,
        unique: bool,
        columns: &[String],
        table: &ast::ObjectName,
        text: &str,
    ) -> Result<Arc<Table>> {
        let old = self.base_table_definition(table)?;
        crate::subscribers::refuse_change(&old, "CREATE INDEX")?;
        let schema = &old.schema;
        let positions = crate::ctas::column_positions(schema, columns)?;
        crate::ddl::no_period_in_index(&schema.columns, &positions)?;
        if schema.queue && unique && positions == [0] {
            // the rule CREATE TABLE applies to a queue's indexes (ddl.rs check_queue_rules)
            return Err(crate::ddl::queue_rule(
                "the QITS column cannot be a UNIQUE index of a queue table.",
            ));
        }
        if let Some(n) = name {
            if index_named(schema, n).is_some() {
                return Err(Error::IndexExists(n.to_string()));
            }
        }
        let mut new_schema = schema.clone();
        new_schema.secondary.push(IndexSpec {
            name: name.map(str::to_string),
            columns: positions,
            unique,
        });
        new_schema.ddl = format!("{};\n{}", schema.ddl.trim_end_matches(';'), text);
        let origin: Vec<Option<usize>> = (0..schema.columns.len()).map(Some).collect();
        self.rebuild(&old, new_schema, &origin)
    }

    /// DROP INDEX by name (in `table`, or in whichever table has it) or by columns.
    ///
    /// # Errors
    /// 3807 for a missing table; 3526 for no such index (unless IF EXISTS); 9913 for a name
    /// that several tables' indexes share (name the table with ON).
    pub(crate) fn drop_index(
        &mut self,
        name: Option<&str>,
        columns: &[String],
        table: Option<&ast::ObjectName>,
        if_exists: bool,
        text: &str,
    ) -> Result<Option<Arc<Table>>> {
        let candidates: Vec<Arc<Table>> = match table {
            Some(t) => vec![self.base_table_definition(t)?],
            None => self.shared.storage.catalog.tables(),
        };
        let mut hits = Vec::new();
        for t in candidates {
            let k = match name {
                Some(n) => index_named(&t.schema, n),
                None => {
                    let want = columns
                        .iter()
                        .map(|c| t.schema.column_index(c))
                        .collect::<Option<Vec<_>>>();
                    want.and_then(|w| t.schema.secondary.iter().position(|s| s.columns == w))
                }
            };
            if let Some(k) = k {
                hits.push((t, k));
            }
        }
        let what = name.map_or_else(|| format!("({})", columns.join(", ")), str::to_string);
        let (old, k) = match hits.len() {
            0 if if_exists => return Ok(None),
            0 => return Err(Error::IndexNotFound(what)),
            1 => hits.remove(0),
            _ => {
                return Err(Error::TypeMismatch(format!(
                    "several tables have an index {what}; name the table with ON"
                )))
            }
        };
        crate::subscribers::refuse_change(&old, "DROP INDEX")?;
        let mut schema = old.schema.clone();
        schema.secondary.remove(k);
        schema.ddl = format!("{};\n{}", schema.ddl.trim_end_matches(';'), text);
        let origin: Vec<Option<usize>> = (0..schema.columns.len()).map(Some).collect();
        self.rebuild(&old, schema, &origin).map(Some)
    }

    /// Replaces `old` by a table of `new_schema` holding the same rows: column `i` of the new
    /// table comes from column `origin[i]` of the old one (None: its DEFAULT). Returns the
    /// dropped old table.
    ///
    /// # Errors
    /// The errors of DROP, CREATE and INSERT (2801/2803 if a new unique index finds
    /// duplicates, 3811 for a NOT NULL column without a DEFAULT).
    pub(crate) fn rebuild(
        &mut self,
        old: &Arc<Table>,
        mut new_schema: TableSchema,
        origin: &[Option<usize>],
    ) -> Result<Arc<Table>> {
        if old.schema.volatile.is_some() {
            return Err(Error::Unsupported(format!(
                "changing the definition of the volatile table {} (drop and create it again)",
                old.schema.name
            )));
        }
        // a global temporary table's definition stays one, and changes only while no
        // session has an instance made from it
        self.refuse_materialized(old, "Alter Table")?;
        new_schema.global_temporary = old.schema.global_temporary;
        self.check_dead_letter_links(&old.schema.name, Some(&new_schema))?;
        let (rows, _) = self.scan_table(old)?;
        let kept: Vec<ArrayRef> = origin
            .iter()
            .filter_map(|o| o.map(|p| rows.column(p).clone()))
            .collect();
        let targets: Vec<usize> = origin
            .iter()
            .enumerate()
            .filter_map(|(i, o)| o.map(|_| i))
            .collect();
        let dropped = self.txn.drop_table(&old.schema.name)?;
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
        self.txn.continue_identity(&table, old);
        self.insert_batch_numbered(&table, &targets, &source, false, false)?;
        crate::statistics::carry_over(&self.shared.registry, old, &table, origin);
        Ok(dropped)
    }
}

/// `old` as `ALTER TABLE … ADD` of an existing column changes it into `new` (made from `def`):
/// the type may stay or, for a VARCHAR or VARBYTE, grow longer; an indexed column keeps its
/// type and nullability; NOT NULL, DEFAULT, FORMAT, TITLE and [NOT] CASESPECIFIC replace the
/// old ones where `def` gives them, the others stay. Adding UPPERCASE is refused (the rebuild
/// would upper-case the stored rows).
///
/// # Errors
/// 3558 for any other change.
fn modify_column(
    old: &tdlite_storage::catalog::Column,
    new: tdlite_storage::catalog::Column,
    def: &tdlite_parser::ColumnDef,
    indexed: bool,
) -> Result<tdlite_storage::catalog::Column> {
    use tdlite_storage::types::SqlType::{VarByte, VarChar};
    let refuse = || Error::CannotAlter(old.name.clone());
    let type_ok = match (old.ty, new.ty) {
        (a, b) if a == b => true,
        (VarChar(n), VarChar(m)) | (VarByte(n), VarByte(m)) => m >= n && !indexed,
        _ => false,
    };
    // UPPERCASE would upper-case the stored rows as the table is rebuilt: refused rather
    // than changing data an attribute change should leave alone
    if !type_ok || (indexed && def.not_null && old.nullable) || (def.uppercase && !old.uppercase) {
        return Err(refuse());
    }
    let mut out = old.clone();
    out.ty = new.ty;
    if def.not_null {
        out.nullable = false;
    }
    if def.default.is_some() {
        out.default = new.default;
    }
    if def.format.is_some() {
        out.format = new.format;
    }
    if def.title.is_some() {
        out.title = new.title;
    }
    if def.case_specific.is_some() {
        out.case_specific = new.case_specific;
    }
    Ok(out)
}

/// The position in `secondary` of the index called `name`.
fn index_named(schema: &TableSchema, name: &str) -> Option<usize> {
    schema.secondary.iter().position(|s| {
        s.name
            .as_deref()
            .is_some_and(|n| n.eq_ignore_ascii_case(name))
    })
}
