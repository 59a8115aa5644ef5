//! Runs every `tests/slt/**/*.slt` file (found by glob, one test per file) against a fresh
//! in-memory database. Errors are matched by their Teradata code: a failing statement's message
//! reads `[3807] Object 'x' does not exist.`, so `statement error (3807)` matches it.
//!
//! Each `connection NAME` is a separate session of the same database. Sessions here have a
//! consume timeout of zero, so a `SELECT AND CONSUME` on an empty queue fails at once with 9904
//! instead of blocking the single-threaded runner; real waits are tested in
//! `tests/integration/delayed_state.rs` with threads.

use arrow::array::Array;
use arrow::datatypes::DataType;
use arrow::util::display::{ArrayFormatter, FormatOptions};
use libtest_mimic::{Failed, Trial};
use sqllogictest::{strict_column_validator, DBOutput, DefaultColumnType, Runner, DB};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tdlite::{Database, Session};

#[derive(Debug)]
struct SltError(String);

impl std::fmt::Display for SltError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SltError {}

struct Conn {
    session: Session,
}

fn column_type(t: &DataType) -> DefaultColumnType {
    match t {
        DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64 => {
            DefaultColumnType::Integer
        }
        DataType::Float64 | DataType::Decimal128(..) => DefaultColumnType::FloatingPoint,
        _ => DefaultColumnType::Text,
    }
}

impl DB for Conn {
    type Error = SltError;
    type ColumnType = DefaultColumnType;

    fn run(&mut self, sql: &str) -> Result<DBOutput<DefaultColumnType>, SltError> {
        let results = self
            .session
            .execute(sql)
            .map_err(|e| SltError(format!("[{}] {}", e.code().number, e.error)))?;
        let Some(last) = results.last() else {
            return Ok(DBOutput::StatementComplete(0));
        };
        let Some(rows) = &last.rows else {
            return Ok(DBOutput::StatementComplete(last.activity_count));
        };
        let opts = FormatOptions::new()
            .with_null("NULL")
            .with_timestamp_format(Some("%Y-%m-%d %H:%M:%S%.6f"))
            .with_date_format(Some("%Y-%m-%d"));
        let types = rows
            .schema
            .fields()
            .iter()
            .map(|f| column_type(f.data_type()))
            .collect();
        let mut out = Vec::new();
        for b in &rows.batches {
            let fmts: Vec<_> = b
                .columns()
                .iter()
                .map(|c| {
                    ArrayFormatter::try_new(c.as_ref(), &opts).map_err(|e| SltError(e.to_string()))
                })
                .collect::<Result<_, _>>()?;
            for i in 0..b.num_rows() {
                out.push(
                    fmts.iter()
                        .zip(b.columns())
                        .map(|(f, c)| {
                            let s = f.value(i).to_string();
                            if s.is_empty() && c.is_valid(i) {
                                "(empty)".to_string()
                            } else {
                                s
                            }
                        })
                        .collect(),
                );
            }
        }
        Ok(DBOutput::Rows { types, rows: out })
    }
}

fn run_file(path: &Path) -> Result<(), Failed> {
    let db = Database::new();
    let mut runner = Runner::new(move || {
        let db = db.clone();
        async move {
            let mut session = db.session();
            session.set_consume_timeout(Some(Duration::ZERO));
            Ok::<_, SltError>(Conn { session })
        }
    });
    runner.with_column_validator(strict_column_validator);
    runner
        .run_file(path)
        .map_err(|e| Failed::from(e.display(true).to_string()))
}

/// One test per `tests/slt/**/*.slt` file, named by its path under `tests/slt`.
pub fn trials() -> Vec<Trial> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/slt");
    let pattern = format!("{}/**/*.slt", root.display());
    let mut trials = Vec::new();
    for entry in glob::glob(&pattern).expect("valid glob pattern") {
        let path = entry.expect("readable test file");
        let name = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .display()
            .to_string();
        trials.push(Trial::test(name, move || run_file(&path)));
    }
    assert!(!trials.is_empty(), "no .slt file under {}", root.display());
    trials
}
