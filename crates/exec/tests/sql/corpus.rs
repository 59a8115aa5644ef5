//! SQLite's sqllogictest corpus (kept in the repository: `tests/corpora/sqllogictest`) run in
//! place against tdlite, one test per file, each printing records run, passed, failed, skipped
//! and excluded (`cargo test -p tdlite --test sql -- corpus/ --nocapture`;
//! `TDLITE_CORPUS_SHOW=n` also prints the first n failures of each file). All 48 files take
//! about 15 s in a debug build, so all run by default. The files are the ones MANIFEST.tsv
//! lists: a missing, cut or resized file fails `corpus/manifest`, so a green run means the
//! whole corpus ran.
//!
//! How the files are run (the corpus's README.md explains why each step is needed):
//! trailing `# comments` on skipif/onlyif lines are stripped; a conditional `halt` is resolved
//! for an engine with no label (`skipif X` + `halt` stops the file, `onlyif X` + `halt` is
//! dropped); results compare value-wise with a hash threshold of 8; each value is formatted by
//! the record's I/T/R letter (I: integer, truncating; R: `%.3f`; NULL; `(empty)`); records run one
//! by one so a failure does not stop the file; `onlyif` records are skipped.
//!
//! `corpus/exclusions.tsv` lists records that are SQLite-only or where Teradata must differ,
//! with the reason. `corpus/baseline.tsv` holds the passes each file reached: a file that passes
//! fewer records fails (a regression). `TDLITE_CORPUS_BASELINE=write` records the new counts.

use crate::adapter::{self, Outcome, SqlError};
use arrow::array::{Array, ArrayRef};
use arrow::datatypes::DataType;
use libtest_mimic::{Failed, Trial};
use sqllogictest::{DBOutput, DefaultColumnType, QueryExpect, Record, Runner, DB};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tdlite::{Database, Session};

/// The type letters of the query about to run (the runner does not pass them to the DB).
type Letters = Arc<Mutex<Vec<DefaultColumnType>>>;

struct Conn {
    session: Session,
    letters: Letters,
}

/// One cell, formatted the way SQLite's reference runner prints a value of type `letter`.
fn cell(col: &ArrayRef, i: usize, text: String, letter: &DefaultColumnType) -> String {
    if col.is_null(i) {
        return "NULL".into();
    }
    let numeric = matches!(
        col.data_type(),
        DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::Float64
            | DataType::Decimal128(..)
    );
    if col.data_type() == &DataType::Boolean {
        // a predicate in the select list (a tdlite extension; SQLite prints it as 1/0)
        return if text == "true" { "1" } else { "0" }.into();
    }
    match letter {
        DefaultColumnType::Integer if numeric => match text.parse::<f64>() {
            Ok(f) => format!("{}", f.trunc() as i64),
            Err(_) => text,
        },
        DefaultColumnType::Integer => text
            .trim()
            .parse::<f64>()
            .map_or("0".into(), |f| format!("{}", f.trunc() as i64)),
        DefaultColumnType::FloatingPoint => match text.trim().parse::<f64>() {
            Ok(f) => format!("{f:.3}"),
            Err(_) => "0.000".into(),
        },
        _ if text.is_empty() => "(empty)".into(),
        _ => text
            .chars()
            .map(|c| {
                if c.is_control() || !c.is_ascii() {
                    '@'
                } else {
                    c
                }
            })
            .collect(),
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
        let letters = self.letters.lock().unwrap().clone();
        let rows = adapter::cells(&rows, |c, col, i, text| {
            let letter = letters.get(c).unwrap_or(&DefaultColumnType::Text);
            cell(col, i, text, letter)
        })?;
        Ok(DBOutput::Rows {
            types: letters,
            rows,
        })
    }
}

/// The steps that make the upstream files readable by sqllogictest-rs (module docs). Every
/// upstream line keeps its line number (after the two lines put on top), so failures and
/// exclusions name upstream lines.
fn preprocess(text: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut conditions: Vec<String> = Vec::new();
    for raw in text.lines() {
        let line = raw.trim_end();
        let word = line.split_whitespace().next().unwrap_or("");
        if word == "skipif" || word == "onlyif" {
            conditions.push(line.split('#').next().unwrap_or("").trim_end().to_string());
            continue;
        }
        if line == "halt" {
            // no engine label: `skipif X` always selects us, `onlyif X` never does
            let selected = conditions.iter().all(|c| c.starts_with("skipif"));
            let n = conditions.len() + 1;
            conditions.clear();
            if selected {
                break;
            }
            lines.extend(std::iter::repeat_n(
                "# tdlite: halt for another engine".to_string(),
                n,
            ));
            continue;
        }
        lines.append(&mut conditions);
        lines.push(line.to_string());
    }
    let mut out = String::from("control resultmode valuewise\n\n");
    for l in lines {
        out.push_str(&l);
        out.push('\n');
    }
    out
}

#[derive(Default, Debug)]
struct Stats {
    run: usize,
    passed: usize,
    failed: usize,
    skipped: usize,
    excluded: usize,
}

/// `(file, line) → reason` from exclusions.tsv (lines as in the upstream file).
fn exclusions(root: &Path) -> HashMap<(String, u32), String> {
    let text = std::fs::read_to_string(root.join("exclusions.tsv")).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let mut p = l.splitn(3, '\t');
            let (f, n, why) = (p.next()?, p.next()?.parse().ok()?, p.next()?);
            Some(((f.to_string(), n), why.to_string()))
        })
        .collect()
}

fn run_file(path: &Path, name: &str, excluded: &HashMap<(String, u32), String>) -> Stats {
    let text = std::fs::read_to_string(path).expect("readable corpus file");
    let records = match sqllogictest::parse_with_name::<DefaultColumnType>(&preprocess(&text), name)
    {
        Ok(r) => r,
        Err(e) => panic!("{name}: cannot parse: {e}"),
    };
    let db = Database::new();
    let letters: Letters = Arc::default();
    let l2 = letters.clone();
    let mut runner = Runner::new(move || {
        let (db, letters) = (db.clone(), l2.clone());
        async move {
            Ok::<_, SqlError>(Conn {
                session: db.session(),
                letters,
            })
        }
    });
    runner.with_hash_threshold(8);
    let mut stats = Stats::default();
    let mut shown = 0;
    let show: usize = std::env::var("TDLITE_CORPUS_SHOW")
        .ok()
        .map_or(0, |v| v.parse().unwrap_or(3));
    for record in records {
        // the preprocessed text has two extra lines at the top
        let (conditions, line) = match &record {
            Record::Statement {
                conditions, loc, ..
            }
            | Record::Query {
                conditions, loc, ..
            } => (conditions.clone(), loc.line() - 2),
            _ => {
                let _ = runner.run(record);
                continue;
            }
        };
        if conditions
            .iter()
            .any(|c| matches!(c, sqllogictest::Condition::OnlyIf { .. }))
        {
            stats.skipped += 1;
            continue;
        }
        if excluded.contains_key(&(name.to_string(), line)) {
            stats.excluded += 1;
            continue;
        }
        if let Record::Query {
            expected: QueryExpect::Results { types, .. },
            ..
        } = &record
        {
            *letters.lock().unwrap() = types.clone();
        }
        stats.run += 1;
        match runner.run(record) {
            Ok(_) => stats.passed += 1,
            Err(e) => {
                stats.failed += 1;
                if shown < show {
                    shown += 1;
                    eprintln!("{name}:{line}: {}", e.display(false));
                }
            }
        }
    }
    stats
}

fn baseline_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/baseline.tsv")
}

fn read_baseline() -> BTreeMap<String, usize> {
    std::fs::read_to_string(baseline_path())
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let (f, n) = l.split_once('\t')?;
            Some((f.to_string(), n.trim().parse().ok()?))
        })
        .collect()
}

/// The corpus folder: kept in the repository (`tests/corpora/sqllogictest`, with its README and
/// MANIFEST.tsv), so a green run always means the corpus ran.
fn corpus_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpora/sqllogictest")
}

/// The `test/…` files MANIFEST.tsv lists, with their byte sizes.
fn manifest(root: &Path) -> Result<Vec<(String, u64)>, String> {
    let path = root.join("MANIFEST.tsv");
    let text = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "the sqllogictest corpus is missing ({}: {e})",
            path.display()
        )
    })?;
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut cols = l.split('\t');
            let (Some(file), Some(bytes)) = (cols.next(), cols.next()) else {
                return Err(format!("MANIFEST.tsv: bad line {l:?}"));
            };
            let bytes = bytes
                .parse()
                .map_err(|_| format!("MANIFEST.tsv: bad size in {l:?}"))?;
            Ok((file.to_string(), bytes))
        })
        .collect()
}

/// One test per corpus file, named `corpus/<path>`, plus `corpus/manifest`, which fails when a
/// listed file is missing or has another size, when a `.test` file is not listed, or when the
/// folder holds no corpus at all.
pub fn trials() -> Vec<Trial> {
    let manifest_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let corpus = corpus_root();
    let excluded = Arc::new(exclusions(&manifest_dir.join("tests/corpus")));
    let baseline = Arc::new(read_baseline());
    let write = std::env::var("TDLITE_CORPUS_BASELINE").as_deref() == Ok("write");
    let written: Arc<Mutex<BTreeMap<String, usize>>> = Arc::new(Mutex::new((*baseline).clone()));
    let listed = manifest(&corpus);
    let mut trials = Vec::new();
    {
        let (listed, corpus) = (listed.clone(), corpus.clone());
        trials.push(Trial::test("corpus/manifest", move || {
            let listed = listed.map_err(Failed::from)?;
            if listed.is_empty() {
                return Err("MANIFEST.tsv lists no corpus file".into());
            }
            for (file, bytes) in &listed {
                let len = std::fs::metadata(corpus.join(file)).map(|m| m.len());
                if len.as_ref().ok() != Some(bytes) {
                    return Err(format!("{file}: expected {bytes} bytes, found {len:?}").into());
                }
            }
            // a file added without its manifest line would never run
            let pattern = format!("{}/test/**/*.test", corpus.display());
            for path in glob::glob(&pattern).expect("valid glob pattern").flatten() {
                let rel = path
                    .strip_prefix(&corpus)
                    .unwrap_or(&path)
                    .display()
                    .to_string();
                if !listed.iter().any(|(f, _)| *f == rel) {
                    return Err(format!("{rel} is not in MANIFEST.tsv").into());
                }
            }
            Ok(())
        }));
    }
    for (file, _) in listed.unwrap_or_default() {
        let entry = corpus.join(&file);
        // named as in baseline.tsv and exclusions.tsv: the path under `test/`
        let name = file.strip_prefix("test/").unwrap_or(&file).to_string();
        let (excluded, baseline, written) = (excluded.clone(), baseline.clone(), written.clone());
        let trial_name = format!("corpus/{name}");
        let trial = Trial::test(trial_name, move || {
            let s = run_file(&entry, &name, &excluded);
            let total = s.run + s.excluded;
            let rate = 100.0 * s.passed as f64 / s.run.max(1) as f64;
            println!(
                "{name}: {} run, {} passed ({rate:.1}%), {} failed, {} skipped, {} excluded ({:.2}% of runnable)",
                s.run, s.passed, s.failed, s.skipped, s.excluded,
                100.0 * s.excluded as f64 / total.max(1) as f64
            );
            written.lock().unwrap().insert(name.clone(), s.passed);
            if write {
                let text: String =
                    std::iter::once("# file\tpasses (TDLITE_CORPUS_BASELINE=write)\n".to_string())
                        .chain(
                            written
                                .lock()
                                .unwrap()
                                .iter()
                                .map(|(f, n)| format!("{f}\t{n}\n")),
                        )
                        .collect();
                std::fs::write(baseline_path(), text).map_err(|e| Failed::from(e.to_string()))?;
            }
            match baseline.get(&name) {
                Some(&b) if s.passed < b => {
                    Err(format!("{name}: {} passes, the baseline is {b}", s.passed).into())
                }
                None if !write => Err(format!(
                    "{name}: no baseline; run with TDLITE_CORPUS_BASELINE=write"
                )
                .into()),
                _ => Ok(()),
            }
        });
        trials.push(trial);
    }
    trials
}
