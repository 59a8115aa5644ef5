//! `COLLECT STATISTICS`, `DROP STATISTICS` and `HELP STATISTICS`: tdlite's planner uses no
//! statistics, but scripts collect them, drop them and look at them, so tdlite keeps what
//! Teradata shows of them: per table, each column set collected, when, and how many distinct
//! values it had then.
//!
//! Statistics live in the process's [`Registry`](crate::dictionary::Registry), keyed by the
//! table's id: a table dropped and made again starts without any, and nothing is kept on disk
//! (a reopened database has none, as if never collected).
//!
//! Invariant: a column set is kept once per table (by its columns' names, upper-cased, in
//! order); collecting it again replaces it. A rebuilt table (ALTER TABLE, CREATE/DROP INDEX)
//! keeps its sets (`carry_over`).

use crate::error::{Error, Result};
use crate::exec::Exec;
use crate::result::{Rows, StatementKind, StatementResult};
use arrow::array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use arrow::row::{RowConverter, SortField};
use sqlparser::ast;
use tdlite_parser::StatsGroup;
use tdlite_storage::table::Table;

use crate::dictionary::Registry;
use crate::dictionary::Stat;
use std::collections::HashSet;
use std::sync::Arc;

impl Exec<'_> {
    /// `COLLECT STATISTICS` (`remove` false) or `DROP STATISTICS` of `groups` on `name`; no
    /// groups: recollect, or drop, every set the table has.
    ///
    /// # Errors
    /// 3807 for a table that does not exist, 3810 for a column it does not have, 3526 for an
    /// index it does not have, 3624 for a recollection or DROP where there are no statistics
    /// (a DROP of several sets drops none unless all have them).
    pub(crate) fn statistics(
        &mut self,
        remove: bool,
        name: &ast::ObjectName,
        groups: &[StatsGroup],
    ) -> Result<StatementResult> {
        let table = self.base_table_definition(name)?;
        let schema = &table.schema;
        // each set's columns by position; None: Teradata's PARTITION column
        let mut sets: Vec<Vec<Option<usize>>> = Vec::with_capacity(groups.len());
        for group in groups {
            let set = match group {
                StatsGroup::Columns(cols) => cols
                    .iter()
                    .map(|c| match schema.column_index(c) {
                        Some(i) => Ok(Some(i)),
                        None if c.eq_ignore_ascii_case("PARTITION") => Ok(None),
                        None => Err(Error::ColumnNotFound(c.clone())),
                    })
                    .collect::<Result<Vec<_>>>()?,
                StatsGroup::Index(ix) => schema
                    .primary_index
                    .iter()
                    .chain(&schema.secondary)
                    .find(|i| {
                        i.name
                            .as_deref()
                            .is_some_and(|n| n.eq_ignore_ascii_case(ix))
                    })
                    .map(|i| i.columns.iter().map(|&p| Some(p)).collect())
                    .ok_or_else(|| Error::IndexNotFound(ix.clone()))?,
            };
            sets.push(set);
        }
        let names = |set: &[Option<usize>]| -> Vec<String> {
            set.iter()
                .map(|c| {
                    c.map_or_else(
                        || "PARTITION".to_string(),
                        |i| schema.columns[i].name.clone(),
                    )
                })
                .collect()
        };
        let same = |a: &[String], b: &[String]| {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.eq_ignore_ascii_case(y))
        };
        let none = || Error::NoStatistics(table.schema.name.clone());
        let mut registry = self.shared.registry.stats.lock();
        let kept = registry.entry(table.id).or_default();
        if remove {
            if sets.is_empty() {
                if kept.is_empty() {
                    return Err(none());
                }
                kept.clear();
            } else {
                // every set must have statistics before any is dropped
                let named: Vec<Vec<String>> = sets.iter().map(|set| names(set)).collect();
                if !named
                    .iter()
                    .all(|cols| kept.iter().any(|s| same(&s.columns, cols)))
                {
                    return Err(none());
                }
                kept.retain(|s| !named.iter().any(|cols| same(&s.columns, cols)));
            }
            return Ok(StatementResult::status(StatementKind::DropStatistics));
        }
        if sets.is_empty() {
            // recollect what the table has
            if kept.is_empty() {
                return Err(none());
            }
            for s in kept.iter() {
                let set = s
                    .columns
                    .iter()
                    .map(|c| schema.columns.iter().position(|col| &col.name == c))
                    .collect();
                sets.push(set);
            }
        }
        // the lock is not held while the table is read
        drop(registry);
        let (batch, _) = self.scan_table(&table)?;
        let mut fresh = Vec::with_capacity(sets.len());
        for set in &sets {
            fresh.push(Stat {
                columns: names(set),
                collected_us: self.now_us(),
                unique: distinct(&batch, set)?,
            });
        }
        let mut registry = self.shared.registry.stats.lock();
        let kept = registry.entry(table.id).or_default();
        for stat in fresh {
            match kept.iter_mut().find(|s| same(&s.columns, &stat.columns)) {
                Some(old) => *old = stat,
                None => kept.push(stat),
            }
        }
        Ok(StatementResult::status(StatementKind::CollectStatistics))
    }

    /// `HELP STATISTICS t`: a row per column set collected: Date, Time, Unique Values, Column
    /// Names (Teradata's first columns).
    ///
    /// # Errors
    /// 3807 for a table that does not exist, 3624 for one without statistics.
    pub(crate) fn help_statistics(&mut self, name: &ast::ObjectName) -> Result<Rows> {
        let table = self.base_table_definition(name)?;
        let stats = self
            .shared
            .registry
            .stats
            .lock()
            .get(&table.id)
            .cloned()
            .unwrap_or_default();
        if stats.is_empty() {
            return Err(Error::NoStatistics(table.schema.name.clone()));
        }
        let when = |s: &Stat, f: &str| {
            chrono::DateTime::from_timestamp_micros(s.collected_us)
                .unwrap_or_default()
                .naive_utc()
                .format(f)
                .to_string()
        };
        let schema = Arc::new(Schema::new(vec![
            Field::new("Date", DataType::Utf8, false),
            Field::new("Time", DataType::Utf8, false),
            Field::new("Unique Values", DataType::Int64, false),
            Field::new("Column Names", DataType::Utf8, false),
        ]));
        let columns: Vec<ArrayRef> = vec![
            Arc::new(StringArray::from_iter_values(
                stats.iter().map(|s| when(s, "%y/%m/%d")),
            )),
            Arc::new(StringArray::from_iter_values(
                stats.iter().map(|s| when(s, "%H:%M:%S")),
            )),
            Arc::new(Int64Array::from_iter_values(stats.iter().map(|s| s.unique))),
            Arc::new(StringArray::from_iter_values(
                stats.iter().map(|s| s.columns.join(",")),
            )),
        ];
        Ok(Rows {
            schema: schema.clone(),
            batches: vec![RecordBatch::try_new(schema, columns)?],
        })
    }
}

/// A table rebuilt (ALTER TABLE, CREATE/DROP INDEX) keeps its statistics: the sets of `old`
/// are copied to `new` with their columns' new names (`origin[i]`: the old position of new
/// column i); a set with a dropped column is not. Copied, not moved, so a rollback that
/// brings `old` back finds them still there.
pub(crate) fn carry_over(registry: &Registry, old: &Table, new: &Table, origin: &[Option<usize>]) {
    let mut stats = registry.stats.lock();
    let Some(sets) = stats.get(&old.id).cloned() else {
        return;
    };
    let carried: Vec<Stat> = sets
        .into_iter()
        .filter_map(|mut st| {
            st.columns = st
                .columns
                .iter()
                .map(|c| match old.schema.column_index(c) {
                    Some(p) => origin
                        .iter()
                        .position(|o| *o == Some(p))
                        .map(|i| new.schema.columns[i].name.clone()),
                    // the PARTITION column
                    None => Some(c.clone()),
                })
                .collect::<Option<Vec<_>>>()?;
            Some(st)
        })
        .collect();
    stats.insert(new.id, carried);
}

/// How many distinct combinations the columns `set` of `batch` hold (the PARTITION column,
/// `None`, has one value: tdlite keeps a table in one partition).
fn distinct(batch: &RecordBatch, set: &[Option<usize>]) -> Result<i64> {
    let columns: Vec<ArrayRef> = set
        .iter()
        .flatten()
        .map(|&i| batch.column(i).clone())
        .collect();
    if columns.is_empty() {
        return Ok(i64::from(batch.num_rows() > 0));
    }
    let converter = RowConverter::new(
        columns
            .iter()
            .map(|c| SortField::new(c.data_type().clone()))
            .collect(),
    )?;
    let rows = converter.convert_columns(&columns)?;
    let unique: HashSet<&[u8]> = rows.iter().map(|r| r.data()).collect();
    Ok(i64::try_from(unique.len()).unwrap_or(i64::MAX))
}
