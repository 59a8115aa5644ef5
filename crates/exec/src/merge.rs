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

use crate::bind::Scope;
use crate::bound_from::FromRel;
use crate::bound_join::NotKept;
use crate::bound_merge::{KeptClause, KeptMerge};
use crate::dml::with_hidden;
use crate::error::{Error, Result};
use crate::exec::Exec;
use crate::expr::Expr;
use crate::inputs::Inputs;
use crate::ops::mask_of;
use crate::plan_cache::Block;
use arrow::array::{ArrayRef, AsArray, UInt64Array};
use arrow::compute::filter_record_batch;
use arrow::datatypes::{Field, Schema, SchemaRef, UInt64Type};
use arrow::record_batch::RecordBatch;
use sqlparser::ast;
use std::collections::HashSet;
use std::sync::Arc;
use tdlite_storage::table::Table;

/// The rows a MERGE's clauses work on: the target's rows paired with source rows (target
/// columns, its row id, the source's columns, the source row's position), the source rows
/// (with their positions last), the scopes of both, and the target's columns read.
struct Pairs<'s> {
    pairs: RecordBatch,
    src: RecordBatch,
    scope: &'s Scope,
    src_scope: &'s Scope,
    keep: Option<Vec<bool>>,
}

impl Exec<'_> {
    /// MERGE; returns the number of rows changed. A prepared request's MERGE runs from the
    /// plan it keeps where it has one (bound_merge.rs).
    ///
    /// # Errors
    /// 7547 for a target row matched twice; 5758 and 5977 for a MERGE against Teradata's
    /// rules (merge_rules.rs); 3807/3810/3823; the errors of UPDATE and INSERT.
    pub fn merge(&mut self, m: &ast::Merge) -> Result<u64> {
        let ast::TableFactor::Table { name, alias, .. } = &m.table else {
            return Err(Error::Unsupported(format!("MERGE INTO {}", m.table)));
        };
        let table = self.must_get_base_table(name)?;
        crate::subscribers::refuse_change(&table, "MERGE")?;
        let q = crate::join::qualifier_of(name, alias.as_ref());
        let (src_scope, src) = self.relation(&m.source)?;
        let positions = Arc::new(UInt64Array::from_iter_values(0..src.num_rows() as u64));
        let (src_scope, src) = with_hidden(src_scope, &src, "\u{1}srcrow", positions)?;
        if let Some(count) = self.kept_merge(m, (&table, &q), (&src_scope, &src))? {
            return Ok(count);
        }
        // the pairs: the source's rows and the target as two relations of a join the planner
        // plans under ON (the target read at its step, or probed through its index by the
        // source rows' keys), then put target first, as the clauses bind
        let (keep, scope, given) = merge_relations(m, (&table, &q), (&src_scope, &src));
        self.check_merge_rules(m, &table, &scope)?;
        let (_, joined) = self.joined_with(&merge_from(m), Some(&m.on), given)?;
        let pairs = Pairs {
            pairs: joined,
            src,
            scope: &scope,
            src_scope: &src_scope,
            keep,
        };
        self.apply_clauses(m, &table, pairs, None)
    }

    /// The MERGE's clauses applied to the pairs the join found (`p.pairs`, in the join's
    /// column order: the source's, then the target's), each clause bound here, or given
    /// bound by a kept plan (`kept`, one per clause).
    fn apply_clauses(
        &mut self,
        m: &ast::Merge,
        table: &Arc<Table>,
        p: Pairs<'_>,
        kept: Option<&[KeptClause]>,
    ) -> Result<u64> {
        let Pairs {
            pairs: joined,
            src,
            scope,
            src_scope,
            keep,
        } = p;
        let width = table.schema.columns.len();
        let src_width = src.num_columns() - 1;
        let order: Vec<usize> = (src_width + 1..src_width + width + 2)
            .chain(0..src_width + 1)
            .collect();
        // (in the target's row id order, as its rows are changed)
        let pairs = crate::dml::by_row_id(joined.project(&order)?, width)?;
        let column = |b: &RecordBatch, i: usize| -> Vec<u64> {
            b.column(i).as_primitive::<UInt64Type>().values().to_vec()
        };
        let matched: HashSet<u64> = column(&pairs, width + 1 + src_width).into_iter().collect();
        let mut count = 0;
        // the first clause that applies to a target row (or a source row) is the only one
        let mut done_targets: HashSet<u64> = HashSet::new();
        let mut done_sources: HashSet<u64> = HashSet::new();
        for (i, clause) in m.clauses.iter().enumerate() {
            let kept = kept.and_then(|k| k.get(i));
            let predicate = |ex: &mut Self, scope: &Scope| match (kept, &clause.predicate) {
                (Some(k), _) => Ok(k.predicate.clone()),
                (None, Some(p)) => ex.bind_expr(p, scope, None).map(Some),
                (None, None) => Ok(None),
            };
            let values = kept.map(|k| k.values.as_slice());
            match clause.clause_kind {
                ast::MergeClauseKind::Matched => {
                    let fresh: arrow::array::BooleanArray = column(&pairs, width)
                        .iter()
                        .map(|r| Some(!done_targets.contains(r)))
                        .collect();
                    let mut rows = keep_rows(&pairs, &fresh)?;
                    if let Some(c) = predicate(self, scope)? {
                        rows = keep_rows(&rows, &mask_of(&rows, &c)?)?;
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
                                table,
                                (scope, false),
                                (rows, keep.clone()),
                                &rids,
                                (assignments, values),
                            )?,
                            other => {
                                return Err(Error::Unsupported(format!("MERGE UPDATE {other}")))
                            }
                        },
                        ast::MergeAction::Delete { .. } => {
                            for rid in &rids {
                                self.txn.delete(table, *rid)?;
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
                    let fresh: arrow::array::BooleanArray = column(&src, src_width)
                        .iter()
                        .map(|r| Some(!matched.contains(r) && !done_sources.contains(r)))
                        .collect();
                    let mut rows = keep_rows(&src, &fresh)?;
                    if let Some(c) = predicate(self, src_scope)? {
                        rows = keep_rows(&rows, &mask_of(&rows, &c)?)?;
                    }
                    done_sources.extend(column(&rows, src_width));
                    count += self.merge_insert(table, src_scope, &rows, (ins, values))?;
                }
                ast::MergeClauseKind::NotMatchedBySource => {
                    return Err(Error::Unsupported("WHEN NOT MATCHED BY SOURCE".into()))
                }
            }
        }
        Ok(count)
    }

    /// A prepared request's MERGE run from the plan it keeps (bound_merge.rs; bound and kept
    /// at its first execution), over the source rows `src` read already; `None` without a
    /// plan cache, for a MERGE the cache refuses, or where this run's inputs do not fit the
    /// plan (the general path then runs it).
    ///
    /// # Errors
    /// As [`Exec::merge`].
    fn kept_merge(
        &mut self,
        m: &ast::Merge,
        (table, q): (&Arc<Table>, &str),
        (src_scope, src): (&Scope, &RecordBatch),
    ) -> Result<Option<u64>> {
        // the kept plan where this run's target, source and parameters fit it
        let fits = |k: &KeptMerge| {
            k.table.upgrade().is_some_and(|t| Arc::ptr_eq(&t, table))
                && KeptMerge::types_of(src) == k.source_types
        };
        let bind = |ex: &mut Self| ex.bind_merge(m, (table, q), (src_scope, src));
        let Some((kept, values, kept_hit)) = self.statement_plan(Block::Merge(m), fits, bind)?
        else {
            return Ok(None);
        };
        let inputs = Inputs::new(&kept.slots.slots, &values);
        // one source row: the target rows ON pairs it with, read as a WHERE with its values
        let one_row = match (&kept.on, src.num_rows()) {
            (Some(on), 1) => one_row_on(&inputs.put(on), table.schema.columns.len(), src),
            _ => None,
        };
        let joined = match one_row {
            Some(cond) => {
                if let Some(cache) = kept_hit {
                    cache.hit();
                }
                let (rows, ids) =
                    self.reader()
                        .read_where_keeping(table, Some(&cond), kept.keep.as_deref())?;
                one_row_pairs(src, &rows, ids)?
            }
            None => {
                let put = |e: &Expr| inputs.put(e);
                let Some((from, _)) = kept.join.given_from(put, vec![src.clone()]) else {
                    return Ok(None);
                };
                if let Some(cache) = kept_hit {
                    cache.hit();
                }
                self.run_from(from, &kept.from)?.1
            }
        };
        let clauses: Vec<KeptClause> = (kept.clauses.iter())
            .map(|c| c.with_inputs(&inputs))
            .collect();
        let pairs = Pairs {
            pairs: joined,
            src: src.clone(),
            scope: &kept.scope,
            src_scope: &kept.source_scope,
            keep: kept.keep.clone(),
        };
        self.apply_clauses(m, table, pairs, Some(&clauses))
            .map(Some)
    }

    /// MERGE `m` bound for a prepared request's plan cache (bound_merge.rs), over this run's
    /// source rows `src` (their positions last). Not kept ([`NotKept::Never`]): a subquery
    /// in ON or a clause, a clause a kept plan does not take, a FROM whose names clash, a
    /// slot other than a `?` parameter, a value of the request or session, a conjunct set
    /// aside for the joined rows, a name that resolves to no column or to two; not with this
    /// run's values ([`NotKept::NotNow`]): any other binding error (the general path raises
    /// it) or a parameter the binder folded.
    fn bind_merge(
        &mut self,
        m: &ast::Merge,
        (table, q): (&Arc<Table>, &str),
        (src_scope, src): (&Scope, &RecordBatch),
    ) -> std::result::Result<KeptMerge, NotKept> {
        if merge_exprs(m).any(crate::correlate::has_subquery) || !kept_clauses(m) {
            return Err(NotKept::Never);
        }
        let (keep, scope, given) = merge_relations(m, (table, q), (src_scope, src));
        // (the general path raises the error of a MERGE against Teradata's rules)
        if self.check_merge_rules(m, table, &scope).is_err() {
            return Err(NotKept::Never);
        }
        let from = merge_from(m);
        // (the general path's check of the names, `Exec::joined_with`: a source named as the
        // target is 3868 there)
        crate::join::check_from(&from).map_err(|_| NotKept::Never)?;
        // (the pairs' columns as the clauses see them: the target's, its row id, the source's)
        let src_schema = src.schema();
        let fields = (table.schema.arrow.fields().iter().cloned())
            .chain([Arc::new(Field::new(
                crate::bound_from::ROW_ID,
                arrow::datatypes::DataType::UInt64,
                false,
            ))])
            .chain(src_schema.fields().iter().cloned());
        let pairs_schema = Arc::new(Schema::new(fields.collect::<Vec<_>>()));
        let (bound, recording) = self.recorded(|ex| {
            let from = ex.bind_joined_with(&from, Some(&m.on), given)?;
            let clauses = ex.bind_merge_clauses(m, table, (&scope, src_scope), &pairs_schema)?;
            // (ON once more, over the pairs, for a run with one source row: `one_row_on`)
            let on = ex.bind_expr(&m.on, &scope, None)?;
            Ok((from, clauses, on))
        });
        // (a name that resolves to nothing, or to two columns, does so whatever the values)
        let (bound, clauses, on) = bound.map_err(|e| NotKept::of(&e))?;
        let tail = crate::block_tail::Tail::default();
        let join =
            crate::bound_join::BoundJoin::with_given(bound, Default::default(), None, tail, true)
                .ok_or(NotKept::Never)?;
        let exprs: Vec<&Expr> = join
            .exprs()
            .chain(clauses.iter().flat_map(KeptClause::exprs))
            .chain([&on])
            .collect();
        crate::bound_select::statement_slots(&recording, &exprs)?;
        let ty = |c: usize| Some(pairs_schema.fields().get(c)?.data_type().clone());
        let on = crate::expr_tree::cannot_fail(&on, &ty).then_some(on);
        Ok(KeptMerge {
            table: Arc::downgrade(table),
            from,
            keep,
            source_types: KeptMerge::types_of(src),
            scope,
            source_scope: src_scope.clone(),
            join,
            on,
            clauses,
            slots: crate::bound_select::KeptSlots::new(recording.slots),
        })
    }

    /// Checks MERGE `m` against Teradata's rules (merge_rules.rs) without reading a row:
    /// EXPLAIN's check, its source's columns found over tables that look empty.
    ///
    /// # Errors
    /// 3807 for a target or source that does not exist; the source's binding errors; 5758,
    /// 5977.
    pub(crate) fn check_merge_statement(&mut self, m: &ast::Merge) -> Result<()> {
        let ast::TableFactor::Table { name, alias, .. } = &m.table else {
            return Ok(());
        };
        let table = self.base_table_definition(name)?;
        let q = crate::join::qualifier_of(name, alias.as_ref());
        let (src_scope, src) = self.seeing_nothing(|ex| ex.relation(&m.source))?;
        let (_, scope, _) = merge_relations(m, (&table, &q), (&src_scope, &src));
        self.check_merge_rules(m, &table, &scope)
    }

    /// Checks MERGE `m` into `table` against Teradata's rules (merge_rules.rs), its names
    /// resolved in the pairs' scope `scope`.
    ///
    /// # Errors
    /// 5758, 5977.
    fn check_merge_rules(&mut self, m: &ast::Merge, table: &Table, scope: &Scope) -> Result<()> {
        let partitioning = self.partitioning_columns(table)?;
        let names = crate::merge_rules::Names {
            scope,
            width: table.schema.columns.len(),
            home: self.home_database(),
        };
        let keys = |name: &ast::ObjectName| match self.table_definition(name) {
            Ok(t) if t.schema.view.is_none() => unique_keys(&t.schema),
            _ => Vec::new(),
        };
        let single_row = crate::merge_rules::single_row_source(&m.source, &keys);
        crate::merge_rules::check(m, (&table.schema, &partitioning), &names, single_row)
    }

    /// Each WHEN clause of `m` bound, as the general path binds it ([`Exec::apply_clauses`]):
    /// an AND condition and SET values over the pairs (`scope`; SET values type-checked over
    /// no row of `pairs`), an INSERT's condition and VALUES over the source rows.
    ///
    /// # Errors
    /// Binding and type errors; 9910 for a clause a kept plan does not take (the general path
    /// raises its own error or runs it).
    fn bind_merge_clauses(
        &mut self,
        m: &ast::Merge,
        table: &Table,
        (scope, src_scope): (&Scope, &Scope),
        pairs: &SchemaRef,
    ) -> Result<Vec<KeptClause>> {
        let not_kept = || Error::Unsupported("a MERGE clause a kept plan does not take".into());
        let mut clauses = Vec::with_capacity(m.clauses.len());
        for clause in &m.clauses {
            // (the scope a clause binds over, and whether its values are SET values)
            let (over, values, set): (&Scope, Vec<Option<&ast::Expr>>, bool) =
                match (&clause.clause_kind, &clause.action) {
                    (ast::MergeClauseKind::Matched, ast::MergeAction::Update(u)) => {
                        let ast::MergeUpdateKind::Set(assignments) = &u.kind else {
                            return Err(not_kept());
                        };
                        let mut values = Vec::with_capacity(assignments.len());
                        for a in assignments {
                            crate::dml::assigned_column(table, a)?;
                            values.push(
                                crate::default_cells::default_of(&a.value)
                                    .is_none()
                                    .then_some(&a.value),
                            );
                        }
                        (scope, values, true)
                    }
                    (ast::MergeClauseKind::Matched, ast::MergeAction::Delete { .. }) => {
                        (scope, Vec::new(), true)
                    }
                    (
                        ast::MergeClauseKind::NotMatched | ast::MergeClauseKind::NotMatchedByTarget,
                        ast::MergeAction::Insert(ast::MergeInsertExpr {
                            kind: ast::MergeInsertKind::Values(v),
                            ..
                        }),
                    ) => {
                        let [row] = v.rows.as_slice() else {
                            return Err(not_kept());
                        };
                        let values = (row.content.iter())
                            .map(|e| crate::default_cells::default_of(e).is_none().then_some(e))
                            .collect();
                        (src_scope, values, false)
                    }
                    _ => return Err(not_kept()),
                };
            let predicate = match &clause.predicate {
                Some(p) => Some(self.bind_expr(p, over, None)?),
                None => None,
            };
            let mut bound = Vec::with_capacity(values.len());
            for v in values {
                bound.push(match v {
                    Some(e) => {
                        let e = self.bind_expr(e, over, None)?;
                        // (a SET value is checked over no row before any is changed, as an
                        // UPDATE's: `Exec::bind_deferring`)
                        if set {
                            e.check_types(pairs)?;
                        }
                        Some(e)
                    }
                    None => None,
                });
            }
            clauses.push(KeptClause {
                predicate,
                values: bound,
            });
        }
        Ok(clauses)
    }

    /// Inserts one row per row of `rows` (source rows), with the VALUES bound over the source
    /// (or given bound, by a kept MERGE: `given`, one per value).
    fn merge_insert(
        &mut self,
        table: &Arc<tdlite_storage::table::Table>,
        scope: &crate::bind::Scope,
        rows: &RecordBatch,
        (ins, given): (&ast::MergeInsertExpr, Option<&[Option<Expr>]>),
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
                None => match given.and_then(|g| g.get(k)).cloned().flatten() {
                    Some(bound) => bound.eval(rows)?,
                    None => self.bind_expr(e, scope, None)?.eval(rows)?,
                },
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

/// The column names of each unique key of the table of `schema` (its UPI and unique
/// secondary indexes, which hold its PRIMARY KEY's).
fn unique_keys(schema: &tdlite_storage::catalog::TableSchema) -> Vec<Vec<String>> {
    (schema.unique_keys())
        .map(|(key, _)| {
            (key.columns.iter())
                .filter_map(|&c| schema.columns.get(c).map(|c| c.name.clone()))
                .collect()
        })
        .collect()
}

/// The two relations MERGE `m` joins (its source's rows `src`, over `src_scope`, and target
/// `table`, known as `q`), as `Exec::joined_with` takes them; the target's columns read (the
/// ones the statement may name, the others fetched if a SET value needs them); and the
/// pairs' scope (the target's columns and row id, then the source's).
fn merge_relations(
    m: &ast::Merge,
    (table, q): (&Arc<Table>, &str),
    (src_scope, src): (&Scope, &RecordBatch),
) -> (Option<Vec<bool>>, Scope, crate::join::Given) {
    let keep = crate::names::names_in(m, &[]).and_then(|n| crate::names::keep_named(table, &n));
    let (target_scope, target) = FromRel::target(table.clone(), q, keep.clone());
    let mut scope = target_scope.clone();
    scope.columns.extend(src_scope.columns.iter().cloned());
    let given = vec![
        Some((src_scope.clone(), FromRel::Rows(src.clone()))),
        Some((target_scope, target)),
    ];
    (keep, scope, given)
}

/// The FROM a MERGE's pairs are joined by: its source's entry, then its target's.
pub(crate) fn merge_from(m: &ast::Merge) -> Vec<ast::TableWithJoins> {
    [&m.source, &m.table]
        .map(|tf| ast::TableWithJoins {
            relation: tf.clone(),
            joins: Vec::new(),
        })
        .to_vec()
}

/// The expressions of MERGE `m` outside its source: ON, each clause's AND condition, SET
/// values and VALUES.
fn merge_exprs(m: &ast::Merge) -> impl Iterator<Item = &ast::Expr> {
    std::iter::once(m.on.as_ref()).chain(crate::merge_rules::clause_exprs(m))
}

/// Whether each WHEN clause of `m` is one a kept plan takes: MATCHED with UPDATE SET or
/// DELETE, NOT MATCHED with an INSERT of one VALUES row.
fn kept_clauses(m: &ast::Merge) -> bool {
    m.clauses.iter().all(|c| match (&c.clause_kind, &c.action) {
        (ast::MergeClauseKind::Matched, ast::MergeAction::Update(u)) => {
            matches!(u.kind, ast::MergeUpdateKind::Set(_))
        }
        (ast::MergeClauseKind::Matched, ast::MergeAction::Delete { .. }) => true,
        (
            ast::MergeClauseKind::NotMatched | ast::MergeClauseKind::NotMatchedByTarget,
            ast::MergeAction::Insert(ast::MergeInsertExpr {
                kind: ast::MergeInsertKind::Values(v),
                ..
            }),
        ) => v.rows.len() == 1,
        _ => false,
    })
}

/// ON (`on`, bound over the pairs: the target's `width` columns, its row id, the source's
/// columns) as a condition on the target's rows alone, with the source's one row `src` put
/// in for its columns (as an enclosing row's value is put in a correlated subquery: a
/// literal, CASESPECIFIC where its column is); `None` where it reads a column that is
/// neither the target's nor the source's (the row id).
///
/// Where ON cannot raise an error, the target rows it keeps are exactly those the join
/// pairs with that source row, whatever reads them first.
fn one_row_on(on: &Expr, width: usize, src: &RecordBatch) -> Option<Expr> {
    let mut other = false;
    let cond = on.rebuild(&mut |e| match e {
        Expr::Column {
            index,
            case_specific,
        } if *index >= width => {
            let Some(column) = index
                .checked_sub(width + 1)
                .and_then(|i| src.columns().get(i))
            else {
                other = true;
                return None;
            };
            let value = Expr::lit(column.clone());
            Some(match case_specific {
                true => Expr::CaseSpecific(Box::new(value)),
                false => value,
            })
        }
        _ => None,
    });
    (!other).then_some(cond)
}

/// The pairs the join would give for one source row `src` and the target rows `rows` it
/// pairs with (their ids `ids`): in the join's layout, the source's columns (its row
/// repeated) then the target's and its row id, every field nullable.
fn one_row_pairs(src: &RecordBatch, rows: &RecordBatch, ids: Vec<u64>) -> Result<RecordBatch> {
    let n = ids.len();
    // (the join's limits on the pairs it builds: their number, and their size, the source
    // row once per target row)
    if n > crate::join_step::MAX_JOIN_ROWS {
        return Err(Error::SpoolSpace(crate::join_step::MAX_JOIN_ROWS));
    }
    let each = crate::limits::taken_bytes(src, &[0]);
    let all: Vec<u32> = (0..n as u32).collect();
    let bytes = (each.saturating_mul(n)).saturating_add(crate::limits::taken_bytes(rows, &all));
    crate::interrupt::check_spool(bytes)?;
    let row_id: ArrayRef = Arc::new(UInt64Array::from(ids));
    let mut columns = Vec::with_capacity(src.num_columns() + rows.num_columns() + 1);
    for c in src.columns() {
        // (no target row, the insert's case, is no row of the source either)
        columns.push(match n {
            0 => c.slice(0, 0),
            _ => crate::expr::repeat(c, n)?,
        });
    }
    columns.extend(rows.columns().iter().cloned());
    columns.push(row_id);
    let (src_schema, rows_schema) = (src.schema(), rows.schema());
    let fields = (src_schema.fields().iter())
        .chain(rows_schema.fields().iter())
        .map(|f| f.as_ref().clone().with_nullable(true))
        .chain([Field::new(
            crate::bound_from::ROW_ID,
            arrow::datatypes::DataType::UInt64,
            true,
        )]);
    Ok(RecordBatch::try_new_with_options(
        Arc::new(Schema::new(fields.collect::<Vec<_>>())),
        columns,
        &arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(n)),
    )?)
}

/// The rows of `batch` that `mask` keeps; `batch` itself where it keeps every row (a
/// one-row upsert's pair or source row, mostly).
fn keep_rows(batch: &RecordBatch, mask: &arrow::array::BooleanArray) -> Result<RecordBatch> {
    use arrow::array::Array;
    if mask.null_count() == 0 && mask.true_count() == mask.len() {
        return Ok(batch.clone());
    }
    Ok(filter_record_batch(batch, mask)?)
}
