//! Reading one table through the access path `plan` picks: index probes, a MIN/MAX walk, or
//! a full scan, followed by the whole WHERE clause, except where the index's ranges are the
//! condition exactly (`plan::whole_preds`, `read_by_keys`): then they are its answer.
//!
//! A MIN (MAX) walk reads the index forwards (backwards) from the start (end) of the range the
//! prefix fixes, a few entries at a time (1, 4, 16, … up to [`MAX_CHUNK`]), fetches their
//! rows and evaluates the WHERE clause on them; the first row that passes holds the extreme.
//! When every condition is on the index's columns (`plan::key_tests`), the walk tests the
//! entries' keys instead, under the table's mutex for at most [`MAX_CHUNK`] entries at a time
//! (`Table::index_find`), and copies only the entry it finds.
//! When one ranged column sits between the prefix and the aggregated column, the walk finds
//! the first passing row of each value of that column and skips to the next value (at most
//! [`MAX_GROUPS`] of them, else it gives up for a full scan). Each step is O(log n) plus the
//! entries it steps over that the statement's snapshot cannot see.
//!
//! Which index each target walks and how entries are tested (`plan::plan_min_max`) depends
//! on the conditions' shape only; a prepared block keeps it per shape ([`KeptWalks`]), and
//! keeps the key tests and ranges its last run made with that run's input values, used
//! again by a run with the same values.
//!
//! The reads are methods of [`Reader`], which holds the statement's snapshot and nothing else
//! of it (`Exec::reader` gives it): they take conditions bound already and read the catalog's
//! tables, indexes and rows, never binding a name or running a subquery.
//!
//! Invariant: the rows returned satisfy the WHERE clause and, for MIN/MAX, include a row
//! holding each extreme, so aggregating them gives the full scan's answer. Row order of plain
//! reads is the table's (row id) order, as for a full scan.

use crate::bind::{agg_func, visit_own_level, AggFunc, Scope};
use crate::error::{Error, Result};
use crate::expr::Expr;
use crate::inputs::RunCond;
use crate::ops::mask_of;
use crate::plan::{self, IndexAccess, MinMaxWalk, PredShape, Preds};
use arrow::array::{Array, ArrayRef, UInt64Array};
use arrow::compute::filter_record_batch;
use arrow::record_batch::RecordBatch;
use sqlparser::ast;
use std::cell::OnceCell;
use std::ops::Bound::{self, Excluded};
use std::sync::{Arc, Mutex, PoisonError};
use tdlite_storage::catalog::TableSchema;
use tdlite_storage::columns::filter_columns;
use tdlite_storage::index::{after_prefix, before_prefix, IndexEntry, KeyRange};
use tdlite_storage::key::{IndexKey, PartTest};
use tdlite_storage::mvcc::Snapshot;
use tdlite_storage::table::{IndexFind, RowId, Table};
use tdlite_storage::types::Value;
use tdlite_storage::Transaction;

/// A statement's reads of its tables: what its snapshot sees, through the access path
/// `plan` picks. It holds the snapshot alone (the statement's cell of it, filled from its
/// transaction by the first read that needs it, as before any `Reader` existed), not the
/// statement's context (`Exec`): a read binds nothing and runs no subquery, it filters by
/// conditions bound already.
#[derive(Clone, Copy)]
pub(crate) struct Reader<'s> {
    snap: &'s OnceCell<Snapshot>,
    txn: &'s Transaction,
}

impl<'s> Reader<'s> {
    /// Reads as of the snapshot in `snap`, taken of `txn` when first needed.
    pub(crate) fn new(snap: &'s OnceCell<Snapshot>, txn: &'s Transaction) -> Self {
        Reader { snap, txn }
    }

    /// The snapshot the reads see.
    pub(crate) fn snapshot(&self) -> &'s Snapshot {
        self.snap.get_or_init(|| self.txn.snapshot())
    }
}

/// The most index entries a MIN/MAX walk reads in one step.
const MAX_CHUNK: usize = 4096;

/// A MIN/MAX walk that has to visit more values of a skipped column than this stops, and the
/// table is scanned instead.
const MAX_GROUPS: usize = 64;

/// One MIN or MAX call over a column of the table: (qualifier, column name, is MAX).
pub(crate) type MinMaxCall = (Option<String>, String, bool);

/// The MIN/MAX calls of a SELECT when they are its only aggregates over plain columns and it
/// has no GROUP BY, HAVING, QUALIFY or window function; `None` otherwise.
pub(crate) fn min_max_calls(s: &ast::Select) -> Option<Vec<MinMaxCall>> {
    let grouped =
        !matches!(&s.group_by, ast::GroupByExpr::Expressions(v, m) if v.is_empty() && m.is_empty());
    if grouped || s.having.is_some() || s.qualify.is_some() {
        return None;
    }
    let mut calls = Vec::new();
    for item in &s.projection {
        let e = match item {
            ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => e,
            _ => return None,
        };
        if visit_own_level(e, |e| min_max_call(e, &mut calls)).is_break() {
            return None;
        }
    }
    (!calls.is_empty()).then_some(calls)
}

/// Adds `e` to `calls` if it is MIN/MAX of a column; breaks on any other aggregate or window.
fn min_max_call(e: &ast::Expr, calls: &mut Vec<MinMaxCall>) -> std::ops::ControlFlow<()> {
    use std::ops::ControlFlow::{Break, Continue};
    let ast::Expr::Function(f) = e else {
        return Continue(());
    };
    if f.over.is_some() {
        return Break(());
    }
    let max = match agg_func(&tdlite_parser::object_name_string(&f.name)) {
        None => return Continue(()),
        Some(AggFunc::Min) => false,
        Some(AggFunc::Max) => true,
        Some(_) => return Break(()),
    };
    let ast::FunctionArguments::List(list) = &f.args else {
        return Break(());
    };
    let column = match list.args.as_slice() {
        [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(c))] => match c {
            ast::Expr::Identifier(i) => Some((None, i.value.clone())),
            ast::Expr::CompoundIdentifier(v) if v.len() == 2 => {
                Some((Some(v[0].value.clone()), v[1].value.clone()))
            }
            _ => None,
        },
        _ => None,
    };
    match column {
        Some((q, name)) => {
            calls.push((q, name, max));
            Continue(())
        }
        None => Break(()),
    }
}

/// The column positions of MIN/MAX calls in `scope`, with whether each is MAX; `None` if a
/// name does not resolve.
pub(crate) fn min_max_targets(calls: &[MinMaxCall], scope: &Scope) -> Option<Vec<(usize, bool)>> {
    calls
        .iter()
        .map(|(q, n, max)| {
            scope
                .resolve(q.as_deref(), n)
                .ok()
                .flatten()
                .map(|c| (c, *max))
        })
        .collect()
}

/// The fewest rows a part of a scan is filtered alone with (see `Reader::scan_filtered`): a
/// whole segment's. Smaller parts (the tail's chunks, 64 rows and up; a segment with rows
/// deleted) are put together first, as testing a condition has a cost per batch: a small
/// table's tail is tested once, as one batch (`bench scan`'s small-table filter: 17 µs so,
/// 22 µs with parts of 1,024 rows tested alone).
const ALONE_ROWS: usize = tdlite_storage::table::SEGMENT_ROWS;

/// The index `plan::choose` picks for `preds` on `table` and its key ranges; `None` where the
/// rows are read by a full scan.
fn index_ranges(table: &Table, preds: &Preds) -> Option<(IndexAccess, Vec<KeyRange>)> {
    plan::choose(&table.schema, preds, &|| {
        plan::max_probes(table.row_versions())
    })
    .and_then(|a| a.ranges(&table.schema, preds).map(|r| (a, r)))
}

/// The rows of `batch` (with their ids, if given) that pass each of `conds` in turn (a condition sees
/// only the rows the ones before it kept), with only the columns `keep` marks copied (see
/// [`filter_columns`]), or every column for `None`; nothing copied when every row passes.
///
/// # Errors
/// Evaluation errors of `conds`.
fn filter_with_ids(
    table: &Table,
    (mut batch, mut ids): (RecordBatch, Option<Vec<RowId>>),
    conds: &[Expr],
    keep: Option<&[bool]>,
) -> Result<(RecordBatch, Option<Vec<RowId>>)> {
    for cond in conds {
        if batch.num_rows() == 0 {
            break;
        }
        let mask = mask_of(&batch, cond)?;
        if mask.true_count() == mask.len() {
            continue;
        }
        if let Some(all) = &ids {
            ids = Some(
                (mask.values().set_indices())
                    .filter_map(|i| all.get(i).copied())
                    .collect(),
            );
        }
        batch = match keep {
            Some(k) => filter_columns(&batch, &mask, k, table.nullable_schema())?,
            None => filter_record_batch(&batch, &mask)?,
        };
    }
    Ok((batch, ids))
}

/// The MIN/MAX walks a kept block (bound_select.rs) planned for the last shape of conditions
/// it met (`plan::same_shape`), used again while its conditions keep that shape; and, for a
/// block that reads no enclosing row (`memo`), what the last run read them with (their key
/// tests and ranges), used again while a run's inputs are the same values: a condition with
/// no inputs (the inner `MAX` of a priority claim) makes its ranges once. (A correlated
/// block's inputs change from row to row, and each is a slice of the enclosing rows' column,
/// which a kept copy would keep alive.)
///
/// Invariant: the condition a run passes is the block's kept condition with that run's
/// values put in (`inputs::RunCond`), so equal values give the same sargable conditions.
pub(crate) struct KeptWalks {
    kept: Mutex<Option<KeptPlan>>,
    memo: bool,
}

/// A shape of conditions, the walks planned for it (`None`: no index to walk), and the last
/// run's inputs with the walks' reads made from them.
struct KeptPlan {
    shape: Vec<PredShape>,
    walks: Option<Arc<[MinMaxWalk]>>,
    last: Option<(Vec<ArrayRef>, Arc<[WalkRead]>)>,
}

/// One walk as a run reads it, made from the run's sargable conditions: the index access,
/// the tests on the entries' keys (position in the key, what it must satisfy; `None`: each
/// row met is fetched and the condition evaluated on it), and the key ranges walked (`None`:
/// a kept walk that does not fit these conditions, read another way).
pub(crate) struct WalkRead {
    access: IndexAccess,
    keys: Option<Vec<(usize, PartTest)>>,
    ranges: Option<Vec<KeyRange>>,
}

impl WalkRead {
    /// Walk `w` read under the conditions `preds` on `schema`'s rows.
    fn new(w: &MinMaxWalk, schema: &TableSchema, preds: &Preds) -> Self {
        // a condition on the index's columns alone is tested on the entries' keys (each
        // column's conditions are its entry in `preds`)
        let keys = w.keys.as_ref().and_then(|k| {
            k.iter()
                .map(|&(pos, col)| preds.get(&col).map(|p| (pos, plan::part_test(p))))
                .collect()
        });
        WalkRead {
            access: w.access.clone(),
            keys,
            ranges: w.access.ranges(schema, preds),
        }
    }

    /// The reads of `walks` under `preds`.
    fn all(walks: &[MinMaxWalk], schema: &TableSchema, preds: &Preds) -> Arc<[WalkRead]> {
        walks
            .iter()
            .map(|w| WalkRead::new(w, schema, preds))
            .collect()
    }
}

impl KeptWalks {
    /// No walk planned yet; `memo`: the last run's reads are kept with its input values.
    pub(crate) fn new(memo: bool) -> Self {
        KeptWalks {
            kept: Mutex::new(None),
            memo,
        }
    }

    /// The walks' reads for `targets` under `cond` at this run: the last run's when its inputs
    /// were these values (the sargable conditions, made from the kept condition and its
    /// inputs alone, are then the same); else made from the kept walks when the conditions
    /// have their shape, or from walks planned afresh and kept.
    fn reads(
        &self,
        cond: Option<&RunCond<'_>>,
        schema: &TableSchema,
        targets: &[(usize, bool)],
    ) -> Option<Arc<[WalkRead]>> {
        let values = cond.map_or(&[][..], RunCond::values);
        // each step below leaves the value whole: a panic elsewhere cannot tear it
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((last, reads)) = kept.as_ref().and_then(|k| k.last.as_ref()) {
            if same_values(last, values) {
                return Some(reads.clone());
            }
        }
        let made = cond.map(|c| c.preds(schema));
        let none = Preds::new();
        let preds = made.as_ref().map_or(&none, |p| &p.0);
        let plan = match kept.take() {
            Some(k) if plan::same_shape(preds, &k.shape) => k,
            _ => KeptPlan {
                shape: plan::pred_shape(preds),
                walks: plan::plan_min_max(cond.map(RunCond::expr), schema, preds, targets)
                    .map(Into::into),
                last: None,
            },
        };
        let reads = plan
            .walks
            .as_deref()
            .map(|w| WalkRead::all(w, schema, preds));
        let last = (reads.clone())
            .filter(|_| self.memo)
            .map(|r| (values.to_vec(), r));
        *kept = Some(KeptPlan { last, ..plan });
        reads
    }
}

/// Whether two runs' inputs are the same values (the same arrays, or equal ones).
fn same_values(a: &[ArrayRef], b: &[ArrayRef]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| Arc::ptr_eq(x, y) || x.to_data() == y.to_data())
}

/// How a MIN/MAX walk tests the entries it meets.
#[derive(Clone, Copy)]
enum Test<'a> {
    /// On the entries' keys: (position in the key, what it must satisfy); none for no WHERE.
    Keys(&'a [(usize, PartTest)]),
    /// On the rows, fetched: the whole WHERE clause.
    Rows(&'a Expr),
}

impl Reader<'_> {
    /// The rows of `table` that satisfy `cond` (all rows for `None`) and their ids, in row id
    /// order, read through the best index for `cond`, or by a full scan; only the columns
    /// `keep` marks (the others may come back NULL, in a batch of
    /// [`Table::nullable_schema`]), or every column for `None`. `keep` must mark every
    /// column `cond` reads.
    ///
    /// # Errors
    /// Evaluation errors of `cond`.
    pub(crate) fn read_where_keeping(
        &self,
        table: &Table,
        cond: Option<&Expr>,
        keep: Option<&[bool]>,
    ) -> Result<(RecordBatch, Vec<RowId>)> {
        self.read_where(table, cond.map(RunCond::plain).as_ref(), keep)
    }

    /// [`Reader::read_where_keeping`] for a condition at one run of a kept plan: its
    /// expression is made only if the rows must be filtered.
    ///
    /// # Errors
    /// Evaluation errors of `cond`.
    pub(crate) fn read_where(
        &self,
        table: &Table,
        cond: Option<&RunCond<'_>>,
        keep: Option<&[bool]>,
    ) -> Result<(RecordBatch, Vec<RowId>)> {
        let preds = cond.map(|c| c.preds(&table.schema));
        let (batch, ids) = self.read_where_preds(table, cond, preds.as_deref(), keep, true)?;
        Ok((batch, ids.unwrap_or_default()))
    }

    /// [`Reader::read_where`] without the row ids (a reader that only wants the rows: none is
    /// made or filtered on a full scan).
    ///
    /// # Errors
    /// Evaluation errors of `cond`.
    pub(crate) fn read_where_rows(
        &self,
        table: &Table,
        cond: Option<&RunCond<'_>>,
        keep: Option<&[bool]>,
    ) -> Result<RecordBatch> {
        let preds = cond.map(|c| c.preds(&table.schema));
        Ok(self
            .read_where_preds(table, cond, preds.as_deref(), keep, false)?
            .0)
    }

    /// [`Reader::read_where`] with `cond`'s sargable conditions (`RunCond::preds`) already
    /// made (`None` with no condition), the row ids only `with_ids`.
    ///
    /// # Errors
    /// Evaluation errors of `cond`.
    pub(crate) fn read_where_preds(
        &self,
        table: &Table,
        cond: Option<&RunCond<'_>>,
        preds: Option<&(Preds, bool)>,
        keep: Option<&[bool]>,
        with_ids: bool,
    ) -> Result<(RecordBatch, Option<Vec<RowId>>)> {
        let none = (Preds::new(), false);
        let (preds, whole) = preds.unwrap_or(&none);
        if *whole {
            if let Some((batch, ids)) = self.read_by_keys(table, preds, keep) {
                return Ok((batch, Some(ids)));
            }
        }
        let conds = cond.map_or(&[][..], |c| std::slice::from_ref(c.expr()));
        self.read_passing(table, preds, keep, conds, with_ids)
    }

    /// The rows of `table` that pass each of `conds` (in turn: a condition sees only the rows
    /// the ones before it kept), with their ids if `with_ids`, in row id order, read by a
    /// full scan filtered part by part: each whole segment ([`ALONE_ROWS`]) is tested where
    /// it lies, smaller neighbouring parts (the tail's chunks, a segment with rows deleted)
    /// put together first; only the rows that
    /// pass are copied, with only the columns `keep` marks (the others NULL), or every column
    /// for `None`. The same rows, ids, order and schema as filtering the whole scanned batch,
    /// without copying the rows that fail.
    ///
    /// # Errors
    /// Evaluation errors of `conds` (of the first part where a row raises one: where rows of
    /// two parts would raise different errors, which one is raised may differ from a filter of
    /// the whole table); 3110 after a cancel, 9920 past the statement timeout.
    fn scan_filtered(
        &self,
        table: &Table,
        conds: &[Expr],
        keep: Option<&[bool]>,
        with_ids: bool,
    ) -> Result<(RecordBatch, Option<Vec<RowId>>)> {
        let nullable = table.nullable_schema();
        let concat = |batches: &[RecordBatch]| -> Result<RecordBatch> {
            Ok(match (keep, batches) {
                (None, [one]) => one.clone(),
                (Some(k), _) => tdlite_storage::columns::concat_columns(nullable, batches, k)?,
                (None, _) => arrow::compute::concat_batches(&table.schema.arrow, batches)?,
            })
        };
        type Part = (RecordBatch, Option<UInt64Array>);
        // the rows of `parts` (neighbours, in order) that pass, added to `out`
        let flush = |parts: &mut Vec<Part>, out: &mut (Vec<RecordBatch>, Vec<RowId>)| {
            if parts.is_empty() {
                return Ok(());
            }
            let batches: Vec<RecordBatch> = parts.iter().map(|p| p.0.clone()).collect();
            let ids = with_ids.then(|| {
                (parts.iter().flat_map(|p| &p.1))
                    .flat_map(|a| a.values().iter().copied())
                    .collect()
            });
            parts.clear();
            let (batch, ids) = filter_with_ids(table, (concat(&batches)?, ids), conds, keep)?;
            if batch.num_rows() > 0 {
                out.0.push(batch);
                out.1.extend(ids.unwrap_or_default());
            }
            Ok::<(), Error>(())
        };
        let parts: Vec<Part> = match with_ids {
            true => (table.scan_keeping(self.snapshot(), keep).into_iter())
                .map(|p| (p.batch, Some(p.row_ids)))
                .collect(),
            false => (table.scan_rows(self.snapshot(), keep).into_iter())
                .map(|b| (b, None))
                .collect(),
        };
        // (with no condition, every part is put together once, as a plain scan does)
        let alone = match conds.is_empty() {
            true => usize::MAX,
            false => ALONE_ROWS,
        };
        let mut out = (Vec::new(), Vec::new());
        let mut small: Vec<Part> = Vec::new();
        let mut small_rows = 0;
        for part in parts {
            crate::interrupt::check()?;
            if part.0.num_rows() >= alone {
                // (the smaller parts before it first: the rows stay in row id order)
                flush(&mut small, &mut out)?;
                flush(&mut vec![part], &mut out)?;
                small_rows = 0;
                continue;
            }
            small_rows += part.0.num_rows();
            small.push(part);
            if small_rows >= alone {
                flush(&mut small, &mut out)?;
                small_rows = 0;
            }
        }
        flush(&mut small, &mut out)?;
        Ok((concat(&out.0)?, with_ids.then_some(out.1)))
    }

    /// The rows of a condition that `preds` are the whole of ([`plan::whole_preds`]: `pk = ?`,
    /// say) and their ids, as [`Reader::read_where_keeping`] gives them, when the index chosen
    /// for `preds` bounds every column they name: its fixed columns' points and its ranged
    /// column's bounds. The entries in its ranges are then exactly the rows that pass, and
    /// the condition is never evaluated on a row. `None` otherwise (the caller reads and
    /// filters).
    pub(crate) fn read_by_keys(
        &self,
        table: &Table,
        preds: &Preds,
        keep: Option<&[bool]>,
    ) -> Option<(RecordBatch, Vec<RowId>)> {
        let a = plan::choose(&table.schema, preds, &|| {
            plan::max_probes(table.row_versions())
        })?;
        let spec = table.schema.indexes().nth(a.index)?;
        let bounded = spec.columns.get(..a.eq_len + usize::from(a.range))?;
        let ranged = a.range.then(|| spec.columns.get(a.eq_len)).flatten();
        // a ranged column's entry is its bounds alone (points would have fixed it)
        if !preds
            .iter()
            .all(|(c, p)| bounded.contains(c) && (Some(c) != ranged || p.points.is_none()))
        {
            return None;
        }
        // a whole unique key, points on every column: each key's rows by one hash lookup
        let points = (!a.range && a.eq_len == spec.columns.len())
            .then(|| {
                (spec.columns.iter())
                    .map(|c| preds.get(c)?.points.as_deref())
                    .collect::<Option<Vec<&[Value]>>>()
            })
            .flatten();
        if let Some(rids) = points.and_then(|p| self.unique_probes(table, a.index, &p)) {
            return Some((table.fetch_columns(&rids, keep), rids));
        }
        let ranges = a.ranges(&table.schema, preds)?;
        let mut rids = Vec::new();
        for r in ranges {
            let bounds = (r.lo.as_ref(), r.hi.as_ref());
            let found = table.index_entries(a.index, bounds, false, usize::MAX, self.snapshot());
            rids.extend(found.into_iter().map(|e| e.1));
        }
        rids.sort_unstable();
        rids.dedup();
        Some((table.fetch_columns(&rids, keep), rids))
    }

    /// The rows of unique index `ix` whose keys are the combinations of `points` (each
    /// column's points, distinct), found by one hash lookup per key, sorted; `None` where the
    /// index keeps no hashed keys or a key holds a NULL (the caller walks the ordered index).
    fn unique_probes(&self, table: &Table, ix: usize, points: &[&[Value]]) -> Option<Vec<RowId>> {
        let mut key: Vec<Value> = Vec::with_capacity(points.len());
        let found = plan::combinations(points, |combination| {
            key.clear();
            key.extend(combination.iter().map(|v| (*v).clone()));
            table.unique_rows(ix, &key, self.snapshot())
        })?;
        let mut rids: Vec<RowId> = found.into_iter().flatten().collect();
        rids.sort_unstable();
        Some(rids)
    }

    /// The rows of `table` an index finds for `preds` (a superset of the rows they select),
    /// or all rows if no index applies, in row id order, then filtered by each of `conds` in
    /// turn (a condition sees only the rows the ones before it kept; `keep` must mark every
    /// column they read); only the columns `keep` marks copied (the others NULL, see
    /// [`tdlite_storage::columns`]), or every column for `None`. A full scan is filtered part
    /// by part ([`Reader::scan_filtered`]), so rows that fail are never copied. With
    /// `with_ids`, the row ids of the rows returned (a joined UPDATE's or DELETE's target);
    /// else none is made (a join's step).
    ///
    /// # Errors
    /// Evaluation errors of `conds`; a cancel or the statement timeout during a full scan.
    pub(crate) fn read_passing(
        &self,
        table: &Table,
        preds: &Preds,
        keep: Option<&[bool]>,
        conds: &[Expr],
        with_ids: bool,
    ) -> Result<(RecordBatch, Option<Vec<RowId>>)> {
        match index_ranges(table, preds) {
            Some((a, ranges)) => {
                let mut rids = Vec::new();
                for r in ranges {
                    let bounds = (r.lo.as_ref(), r.hi.as_ref());
                    let found =
                        table.index_entries(a.index, bounds, false, usize::MAX, self.snapshot());
                    rids.extend(found.into_iter().map(|e| e.1));
                }
                rids.sort_unstable();
                rids.dedup();
                let batch = table.fetch_columns(&rids, keep);
                filter_with_ids(table, (batch, with_ids.then_some(rids)), conds, keep)
            }
            None => self.scan_filtered(table, conds, keep, with_ids),
        }
    }

    /// For MIN/MAX of `targets` (column, is MAX) over the rows satisfying `cond`: those rows
    /// that hold an extreme (none if no row qualifies), with every column, or with the
    /// columns `keep` marks (the others NULL). `None` when a target has no index to walk, or
    /// a walk gave up.
    ///
    /// # Errors
    /// Evaluation errors of `cond`.
    pub(crate) fn read_min_max(
        &self,
        table: &Table,
        cond: Option<&Expr>,
        targets: &[(usize, bool)],
        keep: Option<&[bool]>,
    ) -> Result<Option<(RecordBatch, Vec<RowId>)>> {
        Ok(self
            .walk_min_max(table, cond.map(RunCond::plain).as_ref(), targets, None)?
            .map(|rids| (table.fetch_columns(&rids, keep), rids)))
    }

    /// The rows [`Reader::read_min_max`] reads, not fetched: the ids of the rows holding the
    /// targets' extremes, sorted and distinct (none when no row passes `cond`); `None` where
    /// no index walk applies. `cond` (a condition at one run of a kept plan, or a plain one)
    /// is made with its values only where a walk tests rows or is planned.
    ///
    /// # Errors
    /// Errors of the condition's evaluation on rows the walk fetches.
    pub(crate) fn walk_min_max(
        &self,
        table: &Table,
        cond: Option<&RunCond<'_>>,
        targets: &[(usize, bool)],
        kept: Option<&KeptWalks>,
    ) -> Result<Option<Vec<RowId>>> {
        let expr = || cond.map(RunCond::expr);
        let reads = match kept {
            Some(k) => k.reads(cond, &table.schema, targets),
            None => {
                let made = cond.map(|c| c.preds(&table.schema));
                let none = Preds::new();
                let preds = made.as_ref().map_or(&none, |p| &p.0);
                plan::plan_min_max(expr(), &table.schema, preds, targets)
                    .map(|w| WalkRead::all(&w, &table.schema, preds))
            }
        };
        let Some(reads) = reads else {
            return Ok(None);
        };
        let mut rids = Vec::new();
        for (w, &(_, max)) in reads.iter().zip(targets) {
            // (the condition is made only for a walk that tests rows)
            let test = match (&w.keys, w.keys.is_none().then(expr).flatten()) {
                (Some(k), _) => Test::Keys(k),
                (None, Some(c)) => Test::Rows(c),
                (None, None) => Test::Keys(&[]),
            };
            match self.walk_extreme(table, test, w, max)? {
                Some(found) => rids.extend(found),
                None => return Ok(None),
            }
        }
        rids.sort_unstable();
        rids.dedup();
        Ok(Some(rids))
    }

    /// The row holding the extreme of walk `w`'s target column among rows passing `test`:
    /// `Some(None)` if no row passes, `None` if the walk gave up.
    fn walk_extreme(
        &self,
        table: &Table,
        test: Test<'_>,
        w: &WalkRead,
        max: bool,
    ) -> Result<Option<Option<RowId>>> {
        let a = &w.access;
        let Some(target) = a.target else {
            return Ok(None);
        };
        let Some(ranges) = &w.ranges else {
            return Ok(None); // a kept walk that does not fit these conditions: read another way
        };
        // the extreme so far: its key (the target part compares as bytes, in value order)
        let mut best: Option<(IndexKey, RowId)> = None;
        let mut groups = 0;
        for r in ranges {
            let mut pos = if max { r.hi.clone() } else { r.lo.clone() };
            while let Some((key, rid)) =
                self.first_match(table, test, (a.index, r), pos, max, target)?
            {
                let Some(v) = key.part_bytes(target) else {
                    return Ok(None);
                };
                let better = best.as_ref().is_none_or(|(b, _)| {
                    b.part_bytes(target).is_none_or(|b| {
                        v.cmp(b)
                            == if max {
                                std::cmp::Ordering::Greater
                            } else {
                                std::cmp::Ordering::Less
                            }
                    })
                });
                // past the first passing row in index order only when a column between the
                // fixed ones and the target is skipped: on to its next value
                let next = (target > a.eq_len).then(|| {
                    if max {
                        before_prefix(&key, target)
                    } else {
                        after_prefix(&key, target)
                    }
                });
                if better {
                    best = Some((key, rid));
                }
                let Some(next) = next else {
                    break; // the first passing row in index order holds the extreme
                };
                groups += 1;
                if groups > MAX_GROUPS {
                    return Ok(None);
                }
                pos = Excluded(next);
            }
        }
        Ok(Some(best.map(|(_, rid)| rid)))
    }

    /// The position of the first of `entries` whose row passes `c` (the rows fetched).
    fn first_passing(
        &self,
        table: &Table,
        c: &Expr,
        entries: &[&IndexEntry],
    ) -> Result<Option<usize>> {
        if entries.is_empty() {
            return Ok(None);
        }
        let rids: Vec<RowId> = entries.iter().map(|e| e.1).collect();
        // only the columns the condition reads (a wide row's other columns stay put)
        let mut keep = vec![false; table.schema.columns.len()];
        c.mark_columns(&mut keep);
        let mask = mask_of(&table.fetch_columns(&rids, Some(&keep)), c)?;
        Ok((0..mask.len()).find(|&i| mask.is_valid(i) && mask.value(i)))
    }

    /// The first entry from `pos` on (backwards for `rev`) within range `r` of index `ix`
    /// whose target column is not NULL and which passes `test`.
    fn first_match(
        &self,
        table: &Table,
        test: Test<'_>,
        (ix, r): (usize, &KeyRange),
        mut pos: Bound<IndexEntry>,
        rev: bool,
        target: usize,
    ) -> Result<Option<IndexEntry>> {
        let c = match test {
            Test::Rows(c) => c,
            Test::Keys(tests) => {
                // tested on the keys under the table's mutex, MAX_CHUNK entries at a time: no
                // entry copied but the one found
                let wanted = |e: &IndexEntry| {
                    !e.0.is_null_at(target)
                        && tests
                            .iter()
                            .all(|(p, t)| e.0.part_bytes(*p).is_some_and(|k| t.passes(k)))
                };
                loop {
                    let bounds = if rev {
                        (r.lo.as_ref(), pos.as_ref())
                    } else {
                        (pos.as_ref(), r.hi.as_ref())
                    };
                    let snapshot = self.snapshot();
                    match table.index_find(ix, bounds, rev, (MAX_CHUNK, snapshot), wanted) {
                        IndexFind::Found(e) => return Ok(Some(e)),
                        IndexFind::None => return Ok(None),
                        IndexFind::Stopped(last) => pos = Excluded(last),
                    }
                }
            }
        };
        let mut chunk = 1;
        loop {
            let bounds = if rev {
                (r.lo.as_ref(), pos.as_ref())
            } else {
                (pos.as_ref(), r.hi.as_ref())
            };
            let entries = table.index_entries(ix, bounds, rev, chunk, self.snapshot());
            let Some(last) = entries.last().cloned() else {
                return Ok(None);
            };
            let candidates: Vec<&IndexEntry> =
                entries.iter().filter(|e| !e.0.is_null_at(target)).collect();
            if let Some(i) = self.first_passing(table, c, &candidates)? {
                return Ok(Some(candidates[i].clone()));
            }
            if entries.len() < chunk {
                return Ok(None);
            }
            pos = Excluded(last);
            chunk = (chunk * 4).min(MAX_CHUNK);
        }
    }
}
