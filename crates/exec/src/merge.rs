//! `MERGE INTO t [AS a] USING source [AS s] ON cond WHEN MATCHED THEN UPDATE SET … | DELETE
//! WHEN NOT MATCHED THEN INSERT [(cols)] VALUES (…)`.
//!
//! The source's rows (read first, with their positions as a hidden column) are paired with
//! the target's rows (with their row ids as a hidden column) on the ON condition, from one
//! snapshot, by a join the planner plans (bound_from.rs): the target is read at its step
//! through its own conditions, or probed through an index by the source rows' keys when they
//! are few (a one-row upsert reads one target row, not the table). Then
//! each WHEN clause, in the order written: MATCHED updates or deletes the target row of each
//! pair (an `AND` condition narrows the pairs); NOT MATCHED inserts one row per source row that
//! paired with no target row. Each target row (and each unpaired source row) is handled by
//! the first clause that applies to it only. A target row paired with two source rows is 7547,
//! as in
//! Teradata: which source row would win is undefined. Rows the MERGE inserts are not matched
//! by its own MATCHED clauses. The activity count is the rows updated, deleted and inserted.

use crate::bound_from::FromRel;
use crate::dml::with_hidden;
use crate::error::{Error, Result};
use crate::exec::Exec;
use crate::ops::mask_of;
use arrow::array::{ArrayRef, AsArray, UInt64Array};
use arrow::compute::filter_record_batch;
use arrow::datatypes::{Schema, UInt64Type};
use arrow::record_batch::RecordBatch;
use sqlparser::ast;
use std::collections::HashSet;
use std::sync::Arc;

impl Exec<'_> {
    /// MERGE; returns the number of rows changed.
    ///
    /// # Errors
    /// 7547 for a target row matched twice; 3807/3810/3823; the errors of UPDATE and INSERT.
    pub fn merge(&mut self, m: &ast::Merge) -> Result<u64> {
        let ast::TableFactor::Table { name, alias, .. } = &m.table else {
            return Err(Error::Unsupported(format!("MERGE INTO {}", m.table)));
        };
        let table = self.must_get_base_table(name)?;
        crate::subscribers::refuse_change(&table, "MERGE")?;
        let q = crate::join::qualifier_of(name, alias.as_ref());
        let (src_scope, src) = self.relation(&m.source)?;
        let src_width = src.num_columns();
        let positions = Arc::new(UInt64Array::from_iter_values(0..src.num_rows() as u64));
        let (src_scope, src) = with_hidden(src_scope, &src, "\u{1}srcrow", positions)?;
        // the pairs: the source's rows and the target as two relations of a join the planner
        // plans under ON (the target read at its step, or probed through its index by the
        // source rows' keys), then put target first, as the clauses bind
        let width = table.schema.columns.len();
        // (the target's columns the statement may name, the others fetched if a SET value
        // needs them)
        let keep =
            crate::names::names_in(m, &[]).and_then(|n| crate::names::keep_named(&table, &n));
        let (mut scope, target) = FromRel::target(table.clone(), &q, keep.clone());
        let from = [&m.source, &m.table].map(|tf| ast::TableWithJoins {
            relation: tf.clone(),
            joins: Vec::new(),
        });
        let given = vec![
            Some((src_scope.clone(), FromRel::Rows(src.clone()))),
            Some((scope.clone(), target)),
        ];
        let (_, joined) = self.joined_with(&from, Some(&m.on), given)?;
        let order: Vec<usize> = (src_width + 1..src_width + width + 2)
            .chain(0..src_width + 1)
            .collect();
        // (in the target's row id order, as its rows are changed)
        let pairs = crate::dml::by_row_id(joined.project(&order)?, width)?;
        scope.columns.extend(src_scope.columns.iter().cloned());
        let column = |b: &RecordBatch, i: usize| -> Vec<u64> {
            b.column(i).as_primitive::<UInt64Type>().values().to_vec()
        };
        let matched: HashSet<u64> = column(&pairs, width + 1 + src_width).into_iter().collect();
        let mut count = 0;
        // the first clause that applies to a target row (or a source row) is the only one
        let mut done_targets: HashSet<u64> = HashSet::new();
        let mut done_sources: HashSet<u64> = HashSet::new();
        for clause in &m.clauses {
            match clause.clause_kind {
                ast::MergeClauseKind::Matched => {
                    let fresh: arrow::array::BooleanArray = column(&pairs, width)
                        .iter()
                        .map(|r| Some(!done_targets.contains(r)))
                        .collect();
                    let mut rows = filter_record_batch(&pairs, &fresh)?;
                    if let Some(p) = &clause.predicate {
                        let c = self.bind_expr(p, &scope, None)?;
                        rows = filter_record_batch(&rows, &mask_of(&rows, &c)?)?;
                    }
                    let rids = column(&rows, width);
                    let mut seen = HashSet::new();
                    if rids.iter().any(|r| !seen.insert(*r)) {
                        return Err(Error::MultipleSourceRows(table.schema.name.clone()));
                    }
                    done_targets.extend(rids.iter().copied());
                    count += match &clause.action {
                        ast::MergeAction::Update(u) => match &u.kind {
                            ast::MergeUpdateKind::Set(assignments) => self.apply_assignments(
                                &table,
                                (&scope, false),
                                (rows, keep.clone()),
                                &rids,
                                assignments,
                            )?,
                            other => {
                                return Err(Error::Unsupported(format!("MERGE UPDATE {other}")))
                            }
                        },
                        ast::MergeAction::Delete { .. } => {
                            for rid in &rids {
                                self.txn.delete(&table, *rid)?;
                            }
                            rids.len() as u64
                        }
                        ast::MergeAction::Insert(_) => {
                            return Err(Error::TypeMismatch("WHEN MATCHED cannot INSERT".into()))
                        }
                        other => {
                            return Err(Error::Unsupported(format!("WHEN MATCHED THEN {other}")))
                        }
                    };
                }
                ast::MergeClauseKind::NotMatched | ast::MergeClauseKind::NotMatchedByTarget => {
                    let ast::MergeAction::Insert(ins) = &clause.action else {
                        return Err(Error::TypeMismatch(
                            "WHEN NOT MATCHED can only INSERT".into(),
                        ));
                    };
                    // the source rows that paired with no target row
                    let keep: arrow::array::BooleanArray = column(&src, src_width)
                        .iter()
                        .map(|r| Some(!matched.contains(r) && !done_sources.contains(r)))
                        .collect();
                    let mut rows = filter_record_batch(&src, &keep)?;
                    if let Some(p) = &clause.predicate {
                        let c = self.bind_expr(p, &src_scope, None)?;
                        rows = filter_record_batch(&rows, &mask_of(&rows, &c)?)?;
                    }
                    done_sources.extend(column(&rows, src_width));
                    count += self.merge_insert(&table, &src_scope, &rows, ins)?;
                }
                ast::MergeClauseKind::NotMatchedBySource => {
                    return Err(Error::Unsupported("WHEN NOT MATCHED BY SOURCE".into()))
                }
            }
        }
        Ok(count)
    }

    /// Inserts one row per row of `rows` (source rows), with the VALUES bound over the source.
    fn merge_insert(
        &mut self,
        table: &Arc<tdlite_storage::table::Table>,
        scope: &crate::bind::Scope,
        rows: &RecordBatch,
        ins: &ast::MergeInsertExpr,
    ) -> Result<u64> {
        let targets = Self::target_columns(table, &ins.columns)?;
        let ast::MergeInsertKind::Values(values) = &ins.kind else {
            return Err(Error::Unsupported("MERGE INSERT ROW".into()));
        };
        let [row] = values.rows.as_slice() else {
            return Err(Error::TypeMismatch(
                "MERGE INSERT takes one VALUES row".into(),
            ));
        };
        crate::dml::check_arity(row.content.len(), targets.len())?;
        let mut fields = Vec::new();
        let mut arrays: Vec<ArrayRef> = Vec::new();
        for (k, e) in row.content.iter().enumerate() {
            let mut a = match crate::default_cells::default_of(e) {
                Some(d) => self.default_cell(table, targets[k], &d, rows.num_rows())?,
                None => self.bind_expr(e, scope, None)?.eval(rows)?,
            };
            if crate::params::is_marker(e) {
                a = crate::dml::parameter_for(&table.schema.columns[targets[k]], a)?;
            }
            let own = crate::names::own_format(e, scope);
            fields.push(crate::dml::formatted_field(
                format!("c{k}"),
                a.data_type(),
                own,
            ));
            arrays.push(a);
        }
        let batch = RecordBatch::try_new_with_options(
            Arc::new(Schema::new(fields)),
            arrays,
            &arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(rows.num_rows())),
        )?;
        self.insert_batch(table, &targets, &batch, false)
    }
}
