//! Runs every `tests/slt/**/*.slt` file (found by glob) against a fresh in-memory database,
//! and again (`disk/…`) against a database in a temporary folder, which is then reopened: every
//! committed table must come back with the same rows (a file with the line `# tdlite: memory
//! only` skips the second run). Errors are matched by their Teradata code: a failing
//! statement's message reads `[3807] Object 'x' does not exist.`, so `statement error (3807)` matches it.
//!
//! Strict mode (docs/queues.md): every file under `queue/` runs again with strict sessions
//! (`strict/queue/…`), so the queue suite holds in both modes, unless it has the line `#
//! tdlite: extensions` (it uses tdlite's extensions: normal sessions only); a file with the
//! line `# tdlite: strict` runs with strict sessions only (it pins what strict mode refuses).
//!
//! Each `connection NAME` is a separate session of the same database. Sessions here have a
//! consume timeout of zero, so a `SELECT AND CONSUME` on an empty queue fails at once with 9904
//! instead of blocking the single-threaded runner; real waits are tested in
//! `tests/integration/delayed_state.rs` with threads.

use crate::adapter::{self, Outcome, SqlError};
use arrow::array::Array;
use arrow::datatypes::DataType;
use libtest_mimic::{Failed, Trial};
use sqllogictest::{strict_column_validator, DBOutput, DefaultColumnType, Runner, DB};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tdlite::{Database, Session};

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
    type Error = SqlError;
    type ColumnType = DefaultColumnType;

    fn run(&mut self, sql: &str) -> Result<DBOutput<DefaultColumnType>, SqlError> {
        let rows = match adapter::run(&mut self.session, sql)? {
            Outcome::Count(n) => return Ok(DBOutput::StatementComplete(n)),
            Outcome::Rows(rows) => rows,
        };
        let types = rows
            .schema
            .fields()
            .iter()
            .map(|f| column_type(f.data_type()))
            .collect();
        let rows = adapter::cells(&rows, |_, col, i, text| {
            if text.is_empty() && col.is_valid(i) {
                "(empty)".to_string()
            } else {
                text
            }
        })?;
        Ok(DBOutput::Rows { types, rows })
    }
}

/// Runs the file against `db`, its sessions strict or not.
fn run_on(db: &Database, path: &Path, strict: bool) -> Result<(), Failed> {
    let db = db.clone();
    let mut runner = Runner::new(move || {
        let db = db.clone();
        async move {
            let mut session = db.session();
            session.set_consume_timeout(Some(Duration::ZERO));
            session.set_strict(strict);
            Ok::<_, SqlError>(Conn { session })
        }
    });
    runner.with_column_validator(strict_column_validator);
    runner
        .run_file(path)
        .map_err(|e| Failed::from(e.display(true).to_string()))
    // (the runner's sessions end here: open transactions roll back)
}

fn run_file(path: &Path, strict: bool) -> Result<(), Failed> {
    run_on(&Database::new(), path, strict)
}

/// Each table's name and its rows.
type Contents = Vec<(String, Vec<Vec<String>>)>;

/// Every committed table's rows (sorted), by name, as a fresh session reads them.
fn contents(db: &Database) -> Result<Contents, Failed> {
    let mut s = db.session();
    let failed = |e: tdlite::PositionedError| Failed::from(e.to_string());
    let r = s
        .execute(
            "SEL DatabaseName, TableName FROM DBC.TablesV \
             WHERE TableKind IN ('T', 'O', 'Q') ORDER BY 1, 2",
        )
        .map_err(failed)?;
    let names = r[0]
        .rows
        .as_ref()
        .map(|r| r.to_strings())
        .unwrap_or_default();
    let mut out = Vec::new();
    for n in names {
        let name = format!("\"{}\".\"{}\"", n[0], n[1]);
        let r = s.execute(&format!("SEL * FROM {name}")).map_err(failed)?;
        let mut rows = r[0]
            .rows
            .as_ref()
            .map(|r| r.to_strings())
            .unwrap_or_default();
        rows.sort();
        out.push((name, rows));
    }
    Ok(out)
}

/// Runs the file against a database in a folder, then checks that a reopen of the folder
/// finds every committed table with the same rows.
fn run_file_on_disk(path: &Path, strict: bool) -> Result<(), Failed> {
    let dir = tempfile::tempdir().map_err(|e| Failed::from(e.to_string()))?;
    let options = || tdlite::Options {
        sync: tdlite::SyncMode::Normal,
        ..tdlite::Options::default()
    };
    let open =
        || Database::open_with(dir.path(), options()).map_err(|e| Failed::from(e.to_string()));
    let db = open()?;
    run_on(&db, path, strict)?;
    let before = contents(&db)?;
    drop(db);
    let db = open()?;
    let after = contents(&db)?;
    if before != after {
        let differ: Vec<&str> = before
            .iter()
            .filter(|t| !after.contains(t))
            .map(|t| t.0.as_str())
            .collect();
        return Err(Failed::from(format!(
            "after a reopen the tables differ ({} before, {} after; changed or missing: {differ:?})",
            before.len(),
            after.len()
        )));
    }
    Ok(())
}

/// The comment that keeps a file from the on-disk run.
const MEMORY_ONLY: &str = "# tdlite: memory only";

/// The comment of a file that uses tdlite's extensions: no strict run.
const EXTENSIONS: &str = "# tdlite: extensions";

/// The comment of a file that runs with strict sessions only (a line of its own).
const STRICT: &str = "# tdlite: strict";

/// The folder whose files run in both modes.
const BOTH_MODES: &str = "queue/";

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
        // a file whose expected output names transaction numbers (HELP LOCKS) runs in memory
        // only: opening a folder takes numbers of its own
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let modes: &[bool] = if text.lines().any(|l| l.trim_end() == STRICT) {
            &[true]
        } else if name.starts_with(BOTH_MODES) && !text.contains(EXTENSIONS) {
            &[false, true]
        } else {
            &[false]
        };
        for &strict in modes {
            let name = if strict {
                format!("strict/{name}")
            } else {
                name.clone()
            };
            if !text.contains(MEMORY_ONLY) {
                let on_disk = path.clone();
                trials.push(Trial::test(format!("disk/{name}"), move || {
                    run_file_on_disk(&on_disk, strict)
                }));
            }
            let path = path.clone();
            trials.push(Trial::test(name, move || run_file(&path, strict)));
        }
    }
    assert!(!trials.is_empty(), "no .slt file under {}", root.display());
    trials
}
