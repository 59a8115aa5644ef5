//! The row constraint of a partitioned table (SQL Data Definition Language, "PARTITION BY",
//! RANGE_N and CASE_N; Messages, 5728 "Partitioning violation"): tdlite does not lay rows out
//! by partition, but a row must still fall in a partition of every RANGE_N or CASE_N level,
//! or INSERT, UPDATE and MERGE fail with 5728, as on Teradata.
//!
//! Each level becomes one condition, kept as SQL text with the table's definition
//! (`TableSchema::partition_checks`) and bound and evaluated with the CHECK constraints
//! (dml.rs `RowConditions`); a row
//! passes only where the condition is TRUE:
//!
//! - RANGE_N: `CASE WHEN <in a range> THEN 1 WHEN <test> IS NULL THEN <UNKNOWN?> ELSE
//!   <NO RANGE?> END = 1`, a range being `test >= start AND test <= end` (`*` leaves a side
//!   open; a range without `AND end` stops before the next range's start);
//! - CASE_N: `CASE WHEN c1 OR c2 … THEN 1 WHEN NOT (c1 OR c2 …) THEN <NO CASE?> ELSE
//!   <UNKNOWN?> END = 1` (some condition unknown and none true: the UNKNOWN partition).
//!
//! Invariant: a level's condition is TRUE exactly when Teradata's partitioning expression
//! gives the row a partition number.

use tdlite_parser::{Partitioning, RangeEnd};

/// The condition of each level, as SQL text.
pub(crate) fn conditions(levels: &[Partitioning]) -> Vec<String> {
    levels.iter().map(condition).collect()
}

fn condition(level: &Partitioning) -> String {
    let flag = |b: bool| if b { 1 } else { 0 };
    match level {
        Partitioning::Range {
            test,
            ranges,
            no_range,
            unknown,
        } => {
            let t = format!("({test})");
            let parts: Vec<String> = ranges
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let mut sides = Vec::new();
                    if let Some(s) = &r.start {
                        sides.push(format!("{t} >= ({s})"));
                    }
                    match &r.end {
                        RangeEnd::Inclusive(e) => sides.push(format!("{t} <= ({e})")),
                        RangeEnd::Unbounded => {}
                        RangeEnd::UntilNext => {
                            // up to the next range's start; the last such range is its start
                            match ranges.get(i + 1).and_then(|n| n.start.as_ref()) {
                                Some(next) => sides.push(format!("{t} < ({next})")),
                                None => {
                                    if let Some(s) = &r.start {
                                        sides.push(format!("{t} <= ({s})"));
                                    }
                                }
                            }
                        }
                    }
                    // BETWEEN * AND *: every value, NULL too ("RANGE_N returns 1")
                    match sides.is_empty() {
                        true => "1 = 1".to_string(),
                        false => format!("({})", sides.join(" AND ")),
                    }
                })
                .collect();
            format!(
                "CASE WHEN {} THEN 1 WHEN {t} IS NULL THEN {} ELSE {} END = 1",
                parts.join(" OR "),
                flag(*unknown),
                flag(*no_range)
            )
        }
        Partitioning::Case {
            conditions,
            no_case,
            unknown,
        } => {
            let any: Vec<String> = conditions.iter().map(|c| format!("({c})")).collect();
            let any = any.join(" OR ");
            format!(
                "CASE WHEN {any} THEN 1 WHEN NOT ({any}) THEN {} ELSE {} END = 1",
                flag(*no_case),
                flag(*unknown)
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn levels(sql: &str) -> Vec<Partitioning> {
        match &tdlite_parser::parse_request(sql).unwrap()[0].statement {
            tdlite_parser::Statement::CreateTable(ct) => ct.partitioning.clone(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn ranges_become_bounds_and_the_extra_partitions_flags() {
        let c = conditions(&levels(
            "CREATE TABLE t (n INTEGER) PARTITION BY RANGE_N(n BETWEEN 1 AND 10 EACH 1, 20, 30 AND *, UNKNOWN)",
        ));
        assert_eq!(
            c,
            ["CASE WHEN ((n) >= (1) AND (n) <= (10)) OR ((n) >= (20) AND (n) < (30)) OR ((n) >= (30)) \
              THEN 1 WHEN (n) IS NULL THEN 1 ELSE 0 END = 1"]
        );
    }

    #[test]
    fn case_n_is_true_for_a_true_condition_or_its_extra_partitions() {
        let c = conditions(&levels(
            "CREATE TABLE t (a INTEGER) PARTITION BY CASE_N(a < 10, a < 20, NO CASE)",
        ));
        assert_eq!(
            c,
            ["CASE WHEN (a < 10) OR (a < 20) THEN 1 WHEN NOT ((a < 10) OR (a < 20)) THEN 1 ELSE 0 END = 1"]
        );
    }
}
