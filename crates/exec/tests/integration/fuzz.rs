//! Issue 16's habit: hostile input generated, not only written by hand. Three stable-Rust
//! fuzzers (cargo-fuzz needs nightly), seeded and replayable:
//!
//! - **mutated statements**: statements of the Teradata corpus and of tdlite's own `.slt`
//!   files, cut, doubled, spliced and sprinkled with tokens;
//! - **generated queries**: expressions built from a grammar of tdlite's operators,
//!   functions, casts, CASE, subqueries and window calls over a fixed schema, in every clause;
//! - **damaged files**: a database folder whose log, manifest or table file gets flipped bytes,
//!   cuts and appended garbage.
//!
//! The rule for all of them (SPEC.md): each request runs or fails with a numbered error that
//! is not an internal one (9999), nothing panics, and the session (or the next open) carries
//! on: `SEL 1` still answers, and a damaged folder opens or is refused with 9916.
//!
//! CI runs a short pass with a fixed seed. A longer run is one command, e.g.
//! `TDLITE_FUZZ_CASES=20000 TDLITE_FUZZ_SEED=7 cargo test --release -p tdlite --test
//! integration fuzz -- --nocapture` (the seed is printed; docs/testing.md).

use crate::common::{pick, Rng};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tdlite::{Database, Session};

/// Cases per fuzzer: `TDLITE_FUZZ_CASES`, else `default`.
fn cases(default: usize) -> usize {
    std::env::var("TDLITE_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `TDLITE_FUZZ_SEED`, else a fixed one (CI runs the same cases each time).
fn seed(name: &str) -> u64 {
    let s = std::env::var("TDLITE_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x16_F022);
    println!("{name}: seed {s} (TDLITE_FUZZ_SEED)");
    s | 1
}

/// A session with the fuzzers' schema, bounded so that a generated runaway stops quickly.
fn session(db: &Database) -> Session {
    let mut s = db.session();
    for sql in [
        "CREATE TABLE t (a INTEGER, b VARCHAR(20), c DECIMAL(9,2), d DATE, e FLOAT, f TIMESTAMP(6))",
        "CREATE TABLE u (a INTEGER, b VARCHAR(20) CASESPECIFIC, c BIGINT)",
        "CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), v INTEGER, w VARCHAR(10))",
        "CREATE UNIQUE INDEX (a) ON u",
        "CREATE VIEW vt AS SELECT a, b FROM t WHERE a > 0",
    ] {
        s.execute(sql).unwrap();
    }
    for i in 0..12 {
        s.execute(&format!(
            "INSERT INTO t VALUES ({}, '{}', {}.25, DATE '2020-01-{:02}', {}e-1, TIMESTAMP '2020-02-03 04:05:{:02}.5')",
            (i % 5) as i64 - 1,
            ["ab", "AB", "ab  ", "x", ""][i % 5],
            (i * 7) as i64 - 20,
            i + 1,
            i * 3,
            i
        ))
        .unwrap();
        s.execute(&format!(
            "INSERT INTO u VALUES ({i}, 'k{}', {})",
            i % 3,
            i * 1000
        ))
        .unwrap();
        s.execute(&format!("INSERT INTO q (v, w) VALUES ({i}, 'w{i}')"))
            .unwrap();
    }
    s.set_statement_timeout(Some(Duration::from_secs(5)));
    // a consume of an emptied queue would wait for a row nobody inserts
    s.set_consume_timeout(Some(Duration::from_millis(50)));
    s.set_spool_space(64 << 20);
    s
}

/// Runs `sql`; fails the test on a panic, an internal error or a dead session.
fn run_one(s: &mut Session, sql: &str, what: &str) -> Option<u32> {
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.execute(sql)));
    let code = match out {
        Err(_) => panic!("{what}: a panic on {sql:?}"),
        Ok(Ok(_)) => None,
        Ok(Err(e)) => {
            let n = e.code().number;
            assert_ne!(n, 9999, "{what}: an internal error on {sql:?}: {e}");
            Some(n)
        }
    };
    // the session carries on (a request that left a transaction open is ended first)
    let _ = s.execute("ROLLBACK");
    let alive = s.execute("SEL 1 AS alive");
    assert!(
        alive.is_ok(),
        "{what}: the session died after {sql:?}: {alive:?}"
    );
    code
}

/// The statements mutations start from.
fn seeds_text() -> Vec<String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    let td = root.join("../../tests/corpora/teradata/sqlglot_teradata.sql");
    let text = std::fs::read_to_string(td).expect("the Teradata corpus");
    out.extend(
        text.split(';')
            .map(|s| {
                s.lines()
                    .filter(|l| !l.starts_with("--"))
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .filter(|s| !s.trim().is_empty()),
    );
    let mut slt = Vec::new();
    collect_slt(&root.join("tests/slt"), &mut slt);
    slt.sort();
    for f in slt {
        let text = std::fs::read_to_string(&f).unwrap();
        for block in text.split("\n\n") {
            let mut lines = block.lines().skip_while(|l| l.starts_with('#'));
            if let Some(head) = lines.next() {
                if head.starts_with("statement") || head.starts_with("query") {
                    let body: Vec<&str> = lines.take_while(|l| *l != "----").collect();
                    out.push(body.join("\n"));
                }
            }
        }
    }
    out
}

fn collect_slt(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            collect_slt(&p, out);
        } else if p.extension().is_some_and(|x| x == "slt") {
            out.push(p);
        }
    }
}

/// Tokens worth sprinkling: the ones that start and end constructs.
const TOKENS: &[&str] = &[
    "(",
    ")",
    ",",
    "'",
    "\"",
    ";",
    "SELECT",
    "FROM",
    "WHERE",
    "AND",
    "OR",
    "NOT",
    "NULL",
    "CASE",
    "WHEN",
    "THEN",
    "END",
    "OVER",
    "(PARTITION BY a)",
    "||",
    "+",
    "-",
    "*",
    "/",
    "**",
    "MOD",
    "=",
    "<>",
    "IN",
    "BETWEEN",
    "LIKE",
    "IS",
    "CAST(",
    "AS",
    "INTEGER",
    "DATE",
    "TIMESTAMP",
    "INTERVAL '1' DAY",
    "99999999999999999999999999999999999999",
    "1e308",
    "-0e0",
    "?",
    "TOP 1",
    "AND CONSUME",
    "QUALIFY",
    "SAMPLE 2",
    "GROUP BY 1",
    "ORDER BY 1",
    "UNION ALL SELECT 1",
    "EXISTS (SELECT 1)",
    "(SELECT a FROM t)",
    "t",
    "u",
    "q",
    "a",
    "b",
    "WITH RECURSIVE",
    "FORMAT 'YYYY-MM-DD'",
    "(TITLE 'x')",
    "DECIMAL(38,38)",
    "CHAR(64000)",
    "''",
    "x'00'",
];

fn mutate(r: &mut Rng, s: &str, donor: &str) -> String {
    let mut chars: Vec<char> = s.chars().collect();
    for _ in 0..1 + r.below(3) {
        let n = chars.len().max(1) as u64;
        let at = r.below(n) as usize;
        let len = (r.below(12) as usize).min(chars.len().saturating_sub(at));
        match r.below(5) {
            0 => drop(chars.drain(at..at + len)),
            1 => {
                let dup: Vec<char> = chars[at..at + len].to_vec();
                chars.splice(at..at, dup);
            }
            2 => {
                let t: Vec<char> = format!(" {} ", pick(r, TOKENS)).chars().collect();
                chars.splice(at..at, t);
            }
            3 => {
                // splice in a piece of another statement
                let d: Vec<char> = donor.chars().collect();
                let from = r.below(d.len().max(1) as u64) as usize;
                let piece = &d[from..(from + 20).min(d.len())];
                chars.splice(at..at, piece.iter().copied());
            }
            _ => chars.truncate(at),
        }
    }
    chars.into_iter().collect()
}

#[test]
fn mutated_statements_run_or_fail_with_a_number() {
    let mut r = Rng(seed("mutated statements"));
    let texts = seeds_text();
    assert!(texts.len() > 1000, "the seeds are there: {}", texts.len());
    let db = Database::new();
    let mut s = session(&db);
    let mut failed = 0;
    let n = cases(400);
    for case in 0..n {
        let base = &texts[r.below(texts.len() as u64) as usize];
        let donor = &texts[r.below(texts.len() as u64) as usize];
        let sql = mutate(&mut r, base, donor);
        failed += usize::from(run_one(&mut s, &sql, &format!("case {case}")).is_some());
    }
    println!("{n} mutated statements, {failed} refused with a number");
    assert!(
        failed > 0 && failed < n,
        "mutations both break and keep statements"
    );
}

/// A random scalar expression of depth at most `depth` over t's columns.
fn expr(r: &mut Rng, depth: u32) -> String {
    const LEAVES: &[&str] = &[
        "a",
        "b",
        "c",
        "d",
        "e",
        "f",
        "NULL",
        "0",
        "1",
        "-1",
        "2147483647",
        "-2147483648",
        "9223372036854775807",
        "0.5",
        "1e308",
        "-0e0",
        "'ab'",
        "'AB '",
        "''",
        "DATE '2020-02-29'",
        "DATE '9999-12-31'",
        "TIMESTAMP '2020-01-01 00:00:00'",
        "CURRENT_DATE",
        "CURRENT_TIMESTAMP",
        "INTERVAL '1' MONTH",
        "INTERVAL '99' DAY",
        "99999999999999999999999999999999999999",
        "CAST(0.9 AS DECIMAL(38,38))",
        "USER",
        "(SELECT MAX(a) FROM u)",
        "(SELECT a FROM u WHERE u.a = t.a)",
    ];
    if depth == 0 || r.below(4) == 0 {
        return pick(r, LEAVES).to_string();
    }
    let x = expr(r, depth - 1);
    let y = expr(r, depth - 1);
    match r.below(14) {
        0 => format!(
            "({x} {} {y})",
            pick(r, &["+", "-", "*", "/", "MOD", "**", "||"])
        ),
        1 => format!("({x} {} {y})", pick(r, &["=", "<>", "<", ">=", "LIKE"])),
        2 => format!("CASE WHEN {x} = {y} THEN {x} ELSE {y} END"),
        3 => format!(
            "CAST({x} AS {})",
            pick(
                r,
                &[
                    "INTEGER",
                    "BIGINT",
                    "DECIMAL(5,2)",
                    "DECIMAL(38,38)",
                    "VARCHAR(3)",
                    "CHAR(2)",
                    "DATE",
                    "TIME",
                    "TIMESTAMP(0)",
                    "FLOAT",
                    "BYTEINT",
                    "VARCHAR(64000)"
                ]
            )
        ),
        4 => format!(
            "{}({x})",
            pick(
                r,
                &[
                    "ABS",
                    "SQRT",
                    "LN",
                    "EXP",
                    "CHARACTER_LENGTH",
                    "UPPER",
                    "TRIM",
                    "ROUND",
                    "CEILING",
                    "LAST_DAY",
                    "ZEROIFNULL",
                    "NULLIFZERO",
                    "COALESCE",
                    "TRYCAST"
                ]
            )
        ),
        5 => format!(
            "{}({x}, {y})",
            pick(
                r,
                &["COALESCE", "NULLIF", "ADD_MONTHS", "POWER", "INDEX", "MOD"]
            )
        ),
        6 => format!("OREPLACE({x}, {y}, {x})"),
        7 => format!(
            "LPAD({x}, {}, {y})",
            pick(r, &["0", "5", "64000", "-1", "c"])
        ),
        8 => format!(
            "SUBSTR({x}, {}, {})",
            pick(r, &["0", "1", "-5", "a"]),
            pick(r, &["2", "0", "a"])
        ),
        9 => format!(
            "EXTRACT({} FROM {x})",
            pick(r, &["YEAR", "MONTH", "DAY", "HOUR", "SECOND"])
        ),
        10 => format!("({x} IN ({y}, 1, NULL))"),
        11 => format!("({x} BETWEEN {y} AND {x})"),
        12 => format!(
            "{x} (FORMAT '{}')",
            pick(r, &["YYYY-MM-DD", "9(5).99", "X(3)", "Z9"])
        ),
        _ => format!("({x} IS {}NULL)", pick(r, &["", "NOT "])),
    }
}

fn query(r: &mut Rng) -> String {
    let e1 = expr(r, 3);
    let e2 = expr(r, 2);
    let agg = pick(r, &["COUNT", "SUM", "AVG", "MIN", "MAX", "STDDEV_SAMP"]);
    match r.below(7) {
        0 => format!("SELECT {e1}, {e2} FROM t WHERE {} ORDER BY 1", expr(r, 2)),
        1 => format!("SELECT {e2}, {agg}({e1}) FROM t GROUP BY 1 HAVING {agg}({e1}) IS NOT NULL"),
        2 => format!(
            "SELECT a, {agg}({e1}) OVER (PARTITION BY b ORDER BY a ROWS BETWEEN {} AND CURRENT ROW) FROM t",
            pick(r, &["UNBOUNDED PRECEDING", "2 PRECEDING", "CURRENT ROW"])
        ),
        3 => format!("SELECT * FROM t x JOIN u y ON {} WHERE {}", expr(r, 2), expr(r, 1)),
        4 => format!("UPDATE t SET c = {e1} WHERE {e2} = a"),
        5 => format!("INSERT INTO t (a, b, c) SELECT {e1}, {e2}, c FROM t WHERE a = 1"),
        _ => format!("SELECT AND CONSUME TOP 1 v, {e1} FROM q"),
    }
}

#[test]
fn generated_queries_run_or_fail_with_a_number() {
    let mut r = Rng(seed("generated queries"));
    let db = Database::new();
    let mut s = session(&db);
    let (mut ok, n) = (0, cases(400));
    for case in 0..n {
        let sql = query(&mut r);
        // a consume that found the queue empty would wait: keep it filled
        if sql.contains("CONSUME") {
            s.execute("INSERT INTO q (v, w) VALUES (1, 'x')").unwrap();
        }
        ok += usize::from(run_one(&mut s, &sql, &format!("case {case}")).is_none());
    }
    println!("{n} generated queries, {ok} ran");
    assert!(
        ok > n / 10,
        "the grammar makes runnable queries: {ok} of {n}"
    );
}

#[test]
fn damaged_database_files_open_or_fail_with_9916() {
    let mut r = Rng(seed("damaged files"));
    let n = cases(400) / 10;
    for case in 0..n {
        let dir = tempfile::tempdir().unwrap();
        {
            let db = Database::open(dir.path()).unwrap();
            let mut s = db.session();
            s.execute("CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), v INTEGER)")
                .unwrap();
            for i in 0..5 {
                s.execute(&format!("INS q (v) VALUES ({i})")).unwrap();
            }
            if r.below(2) == 0 {
                db.checkpoint().unwrap();
                s.execute("INS q (v) VALUES (99)").unwrap();
            }
        }
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| !p.ends_with("LOCK") && !p.ends_with(".gitignore"))
            .collect();
        files.sort();
        let file = &files[r.below(files.len() as u64) as usize];
        let mut bytes = std::fs::read(file).unwrap();
        let what = match r.below(4) {
            0 if !bytes.is_empty() => {
                let at = r.below(bytes.len() as u64) as usize;
                bytes[at] ^= 1 << r.below(8);
                format!("bit flip at {at}")
            }
            1 => {
                let at = r.below(bytes.len() as u64 + 1) as usize;
                bytes.truncate(at);
                format!("cut at {at}")
            }
            2 => {
                bytes.extend((0..1 + r.below(40)).map(|i| i as u8 ^ 0x5A));
                "garbage appended".to_string()
            }
            _ => {
                let at = r.below(bytes.len() as u64 + 1) as usize;
                let end = (at + 1 + r.below(64) as usize).min(bytes.len());
                bytes.drain(at..end);
                format!("bytes {at}..{end} removed")
            }
        };
        std::fs::write(file, &bytes).unwrap();
        let what = format!("case {case}: {} {what}", file.display());
        let opened = std::panic::catch_unwind(|| Database::open(dir.path()));
        match opened {
            Err(_) => panic!("{what}: open panicked"),
            Ok(Err(e)) => assert!(
                matches!(e.code().number, 9916),
                "{what}: refused with {} not 9916: {e}",
                e.code().number
            ),
            Ok(Ok(db)) => {
                // what opens is usable, and holds only rows that were committed
                let mut s = db.session();
                let r = s
                    .execute("SEL v FROM q ORDER BY qits")
                    .expect("the queue reads");
                for row in r[0].rows.as_ref().unwrap().to_strings() {
                    let v: i64 = row[0].parse().unwrap();
                    assert!(
                        (0..5).contains(&v) || v == 99,
                        "{what}: a row never committed: {v}"
                    );
                }
                s.execute("INS q (v) VALUES (7)")
                    .expect("the database takes writes");
            }
        }
    }
}
