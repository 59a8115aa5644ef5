//! Runs the `tdlite` binary on every `scripts/*.sql` and compares its output and exit status
//! with `scripts/*.out`. Set `TDLITE_UPDATE=1` to rewrite the `.out` files, then read the diff.

use std::path::Path;
use std::process::{Command, Stdio};

fn tdlite() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tdlite"))
}

fn run_with_stdin(args: &[&str], stdin: &[u8]) -> (String, String, i32) {
    run_in(Path::new("."), args, stdin)
}

/// Runs tdlite in folder `dir` (where `.RUN FILE` looks for relative paths).
fn run_in(dir: &Path, args: &[&str], stdin: &[u8]) -> (String, String, i32) {
    use std::io::Write;
    let mut child = tdlite()
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tdlite runs");
    // written from another thread: a long input and a long output would fill both pipes
    let mut input = child.stdin.take().expect("stdin");
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || input.write_all(&stdin));
    let out = child.wait_with_output().expect("tdlite finishes");
    // a tdlite that fails at startup (a locked folder) exits without reading its input
    match writer.join().expect("the writer thread") {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other.expect("write stdin"),
    }
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().expect("exit code"),
    )
}

#[test]
fn scripts_match_their_expected_output() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts");
    let mut checked = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("scripts dir")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for sql in entries
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "sql"))
    {
        let (stdout, stderr, code) = run_in(&dir, &["-f", sql.to_str().expect("utf-8 path")], b"");
        let actual = format!("{stdout}{stderr}--\nexit status: {code}\n");
        let expected_path = sql.with_extension("out");
        if std::env::var_os("TDLITE_UPDATE").is_some() {
            std::fs::write(&expected_path, &actual).expect("write .out");
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        assert_eq!(
            actual,
            expected,
            "output of {} differs from {}",
            sql.display(),
            expected_path.display()
        );
        checked += 1;
    }
    assert!(
        checked >= 3,
        "expected at least three scripts, found {checked}"
    );
}

/// The README's first command runs `examples/demo.sql`: it must end, and say what it said.
#[test]
fn the_readme_demo_runs_as_pinned() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let (stdout, stderr, code) = run_in(&root, &["-f", "examples/demo.sql"], b"");
    let actual = format!("{stdout}{stderr}--\nexit status: {code}\n");
    let expected_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/demo.out");
    if std::env::var_os("TDLITE_UPDATE").is_some() {
        std::fs::write(&expected_path, &actual).expect("write demo.out");
    }
    let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
    assert_eq!(
        actual, expected,
        "examples/demo.sql's output differs from tests/demo.out"
    );
}

#[test]
fn a_script_on_standard_input_runs_non_interactively() {
    let (out, _, code) = run_with_stdin(&[], b"SEL 1 AS one;\n");
    assert!(
        out.contains(" *** Query completed. One row found. One column returned."),
        "{out}"
    );
    assert_eq!(code, 0);
}

#[test]
fn a_failing_request_gives_return_code_8_and_later_requests_still_run() {
    let (out, _, code) = run_with_stdin(&[], b"SEL * FROM nope;\nSEL 2 AS two;\n");
    assert!(
        out.contains(" *** Failure 3807 Object 'nope' does not exist."),
        "{out}"
    );
    assert!(
        out.contains(" *** Query completed. One row found."),
        "{out}"
    );
    assert_eq!(code, 8);
}

#[test]
fn a_line_that_is_not_utf8_fails_its_request_and_the_rest_runs() {
    let (out, _, code) = run_with_stdin(&[], b"SEL 1;\nSEL '\xff\xfe';\nSEL 2 AS two;\n");
    assert!(out.contains(" *** Failure 6706 "), "{out}");
    assert!(out.contains("line 2 is not UTF-8"), "{out}");
    assert!(out.contains("two\n---\n  2"), "{out}");
    assert_eq!(code, 8);
    // read as Latin-1, the same byte is a letter
    let (out, _, code) = run_with_stdin(&["--charset", "latin1"], b"SEL 'caf\xe9' AS w;\n");
    assert!(out.contains("caf\u{e9}"), "{out}");
    assert_eq!(code, 0);
}

#[test]
fn a_database_folder_keeps_tables_and_rows_between_runs() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let db = db.to_str().unwrap();
    let first = b"CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), n INTEGER);\n\
INS q (n) VALUES (1);\nINS q (n) VALUES (2);\n.checkpoint\nINS q (n) VALUES (3);\n";
    let (out, err, code) = run_with_stdin(&[db], first);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("*** Checkpoint written."), "{out}");
    let (out, err, code) = run_with_stdin(
        &[db, "--sync", "normal"],
        b"SELECT AND CONSUME TOP 1 n FROM q;\n",
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("One row found"), "{out}");
    let (out, _, _) = run_with_stdin(&[db], b"SEL n FROM q ORDER BY n;\n");
    assert!(out.contains("2 rows found"), "the consume was kept: {out}");
}

#[test]
fn a_folder_open_in_another_process_is_refused_with_9915() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().to_str().unwrap();
    // the first process holds the folder while it waits for its (empty) standard input to end
    let hold = || {
        tdlite()
            .arg(db)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("tdlite runs")
    };
    let mut holder = hold();
    let mut err = String::new();
    let mut code = 0;
    for _ in 0..200 {
        if holder.try_wait().unwrap().is_some() {
            holder = hold(); // it lost the race to one of our probes: hold again
        }
        let (_, e, c) = run_with_stdin(&[db], b"SEL 1;\n");
        (err, code) = (e, c);
        if code != 0 {
            break; // the holder has opened the folder
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    drop(holder.stdin.take());
    holder.wait().unwrap();
    assert!(err.contains("Failure 9915"), "{err}");
    assert!(err.contains("another process"), "{err}");
    assert_eq!(code, 8);
}

#[test]
fn a_bad_sync_mode_is_a_usage_error() {
    let (_, err, code) = run_with_stdin(&["--sync", "sometimes"], b"");
    assert!(err.contains("unknown sync mode"), "{err}");
    assert_eq!(code, 8);
}

#[test]
fn the_consume_timeout_flag_bounds_a_wait() {
    let script = b"CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), n INTEGER);\nSELECT AND CONSUME TOP 1 n FROM q;\n";
    let (out, _, code) = run_with_stdin(&["--consume-timeout", "0"], script);
    assert!(out.contains(" *** Failure 9904 "), "{out}");
    assert_eq!(code, 8);
}

#[test]
fn the_strict_flag_refuses_tdlite_extensions_and_dot_commands() {
    let script = b"CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), n INTEGER);\nINS q (CURRENT_TIMESTAMP, 1);\nSELECT AND CONSUME TOP 2 n FROM q;\n.timeout 0\nSEL AND CONSUME TOP 1 n FROM q NOWAIT;\n.logoff\n.logon u\nSELECT 7 % 2;\nSELECT AND CONSUME TOP 1 n FROM q;\n";
    let (out, _, code) = run_with_stdin(&["--strict"], script);
    assert_eq!(
        out.matches(" *** Failure 3706 ").count(),
        3,
        "TOP 2, NOWAIT and % (after a new logon too):\n{out}"
    );
    assert!(out.contains("not TOP 2"), "{out}");
    assert!(out.contains("Unrecognized command 'timeout'"), "{out}");
    // Teradata's own consume still runs, and takes the row nothing else took
    assert!(
        out.contains(" *** Query completed. One row found."),
        "{out}"
    );
    assert_eq!(code, 8);
    // without the flag the same extensions run
    let (out, _, _) = run_with_stdin(&[], script);
    assert!(!out.contains("3706"), "{out}");
}

#[test]
fn the_mode_flag_starts_an_ansi_session() {
    let (out, _, code) = run_with_stdin(
        &["--mode", "ansi"],
        b"CREATE TABLE t (n INTEGER);\nINS t (1);\nINS t (2);\nROLLBACK;\nSEL COUNT(*) FROM t;\n",
    );
    // the CREATE was not committed: ROLLBACK undid it along with the inserts
    assert!(out.contains(" *** ROLLBACK done."), "{out}");
    assert!(
        out.contains(" *** Error 3807 Object 't' does not exist."),
        "{out}"
    );
    assert_eq!(code, 8);
    let (_, err, code) = run_with_stdin(&["--mode", "serializable"], b"");
    assert!(err.contains("--mode needs teradata or ansi"), "{err}");
    assert_eq!(code, 8);
}

#[test]
fn version_and_help_describe_every_flag_of_the_usage_line() {
    let (out, _, code) = run_with_stdin(&["--version"], b"");
    assert_eq!(out.trim(), format!("tdlite {}", env!("CARGO_PKG_VERSION")));
    assert_eq!(code, 0);
    let (help, _, code) = run_with_stdin(&["--help"], b"");
    assert_eq!(code, 0);
    let (usage, described) = help.split_once("\n\n").expect("usage, then descriptions");
    let flags: Vec<&str> = usage
        .split(|c: char| c.is_whitespace() || "[]|".contains(c))
        .filter(|w| w.starts_with('-'))
        .collect();
    assert!(flags.len() >= 7, "flags found in the usage line: {flags:?}");
    for flag in flags {
        let is_described = described
            .lines()
            .any(|l| l.trim_start().starts_with('-') && l.contains(flag));
        assert!(
            is_described,
            "{flag} is in the usage line but not described:\n{help}"
        );
    }
}

#[test]
fn contradictory_or_useless_flags_are_refused() {
    let (_, err, code) = run_with_stdin(&["-f", "a.sql", "--init", "b.sql"], b"");
    assert!(err.contains("-f and --init"), "{err}");
    assert_eq!(code, 8);
    let (_, err, code) = run_with_stdin(&["--sync", "normal"], b"");
    assert!(err.contains("--sync needs a database folder"), "{err}");
    assert_eq!(code, 8);
}

#[cfg(target_os = "linux")]
/// Runs `tdlite` at a pseudo-terminal (util-linux `script`), so it starts its REPL, with
/// `input` typed in; returns everything the terminal showed.
fn run_at_terminal(input: &[u8]) -> String {
    use std::io::Write;
    let home = tempfile::tempdir().expect("temp home");
    let mut child = Command::new("script")
        .args(["-qec", env!("CARGO_BIN_EXE_tdlite"), "/dev/null"])
        .env("HOME", home.path())
        .env("TERM", "dumb")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("util-linux `script` runs (it gives tdlite a terminal)");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("write input");
    let out = child.wait_with_output().expect("script finishes");
    String::from_utf8_lossy(&out.stdout).replace('\r', "")
}

#[cfg(target_os = "linux")] // util-linux `script` gives tdlite a terminal
#[test]
fn the_repl_prompts_for_the_rest_of_an_unfinished_request() {
    let screen = run_at_terminal(b"SEL 1 AS one\n;\n.quit\n");
    assert!(screen.contains("tdlite> "), "{screen}");
    assert!(
        screen.contains("     -> "),
        "no continuation prompt:\n{screen}"
    );
    assert!(
        screen.contains(" *** Query completed. One row found. One column returned."),
        "{screen}"
    );
}

#[cfg(target_os = "linux")] // util-linux `script` gives tdlite a terminal
#[test]
fn the_repl_runs_a_dot_command_typed_inside_an_unfinished_request() {
    let screen = run_at_terminal(b"SEL 2 AS two\n.timeout 5\n;\n.quit\n");
    let confirmed = screen
        .find(" *** Consume timeout set")
        .expect("the .timeout ran as a command");
    let ran = screen
        .find(" *** Query completed")
        .expect("the request went on after the command");
    assert!(confirmed < ran, "{screen}");
    assert!(!screen.contains("Failure"), "{screen}");
}

#[cfg(target_os = "linux")] // util-linux `script` gives tdlite a terminal
#[test]
fn the_repl_says_when_a_consume_waits_and_when_leaving_rolls_back() {
    let screen = run_at_terminal(
        b".timeout 2\nCREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), n INTEGER);\nBT;\nSELECT AND CONSUME TOP 1 n FROM q;\nBT;\n.quit\n",
    );
    let waiting = screen
        .find(" *** Waiting for a row to consume")
        .expect("a notice while the consume waits");
    let timed_out = screen
        .find(" *** Failure 9904")
        .expect("the wait timed out");
    assert!(waiting < timed_out, "{screen}");
    assert!(screen.contains("Ctrl-C"), "{screen}");
    assert!(
        screen.contains(" *** Warning: leaving rolls back the transaction opened by BT"),
        "{screen}"
    );
}

#[test]
fn leaving_warns_only_when_something_is_rolled_back() {
    let (out, _, _) = run_with_stdin(&["--mode", "ansi"], b"SEL 1;\n");
    assert!(!out.contains("Warning: leaving"), "{out}");
    let (out, _, _) = run_with_stdin(&["--mode", "ansi"], b"CREATE TABLE t (a INTEGER);\n");
    assert!(
        out.contains(" *** Warning: leaving rolls back the work since the last COMMIT."),
        "{out}"
    );
    let (out, _, _) = run_with_stdin(&[], b"BT;\nET;\n");
    assert!(!out.contains("Warning: leaving"), "{out}");
}

#[test]
fn each_request_on_a_pipe_runs_before_the_pipe_closes() {
    use std::io::{BufRead, BufReader, Write};
    let mut child = tdlite()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("tdlite runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let (lines, seen) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().expect("stdout");
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if lines.send(line.expect("utf-8 output")).is_err() {
                break;
            }
        }
    });
    // the guard only keeps a broken build from hanging the suite; nothing here is timed
    let wait_for = |what: &str| loop {
        match seen.recv_timeout(std::time::Duration::from_secs(120)) {
            Ok(l) if l.contains(what) => break,
            Ok(_) => {}
            Err(e) => panic!("no '{what}' while the pipe is still open: {e}"),
        }
    };
    for (i, request) in [
        "CREATE TABLE t (a INTEGER);\n",
        "INS t (1);\n",
        "SEL\n",
        "a FROM t;\n",
    ]
    .iter()
    .enumerate()
    {
        stdin.write_all(request.as_bytes()).expect("write");
        stdin.flush().expect("flush");
        match i {
            0 => wait_for("Table has been created."),
            1 => wait_for("Insert completed."),
            3 => wait_for("Query completed. One row found."),
            _ => {}
        }
    }
    drop(stdin);
    assert_eq!(child.wait().expect("exit").code(), Some(0));
}

#[test]
fn export_writes_the_report_or_the_data_to_a_file_and_reset_returns_to_the_screen() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = b"CREATE TABLE t (a INTEGER, s VARCHAR(10), ts TIMESTAMP(0));
INS t (1, 'x,y', TIMESTAMP '2020-01-02 03:04:05');
INS t (2, NULL, NULL);
.EXPORT REPORT FILE = report.txt
SEL a, s FROM t ORDER BY a;
.EXPORT CSV FILE = rows.csv
SEL a, s, ts FROM t ORDER BY a;
.EXPORT RESET
SEL COUNT(*) AS n FROM t;
.EXPORT DIF FILE = rows.dif
";
    let (out, _, code) = run_in(dir.path(), &[], script);
    let read = |f: &str| std::fs::read_to_string(dir.path().join(f)).expect("export file");
    assert_eq!(read("report.txt"), "a  s\n-  ---\n1  x,y\n2  ?\n");
    // a TIMESTAMP(0) is written without fractional seconds
    assert_eq!(
        read("rows.csv"),
        "a,s,ts\n1,\"x,y\",2020-01-02 03:04:05\n2,,\n"
    );
    assert!(out.contains(" *** Output returned to console."), "{out}");
    // only the last query's rows reach the screen
    assert_eq!(
        out.matches("x,y").count(),
        1,
        "only the INS echo shows it:\n{out}"
    );
    assert!(out.contains("n\n-\n2"), "{out}");
    assert!(out.contains(".EXPORT DIF: not supported"), "{out}");
    assert_eq!(code, 8);
}

#[test]
fn the_format_flag_gives_standard_output_to_the_rows() {
    let (out, err, code) = run_with_stdin(
        &["--format", "json"],
        b"CREATE TABLE t (a INTEGER, s VARCHAR(5));\nINS t (1, 'q\"');\nSEL * FROM t;\n",
    );
    assert_eq!(out, "{\"a\":1,\"s\":\"q\\\"\"}\n");
    assert!(
        err.contains(" *** Query completed. One row found."),
        "{err}"
    );
    assert_eq!(code, 0);
}

#[test]
fn export_indicdata_then_import_it_gives_the_same_rows() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = b"CREATE TABLE src (id INTEGER, amt DECIMAL(9,2), d DATE, note VARCHAR(20));
INS src (1, 10.50, DATE '2024-02-29', 'first');
INS src (2, NULL, NULL, NULL);
INS src (3, -0.01, DATE '1899-12-31', 'caf\xc3\xa9');
.EXPORT INDICDATA FILE = rows.dat
SEL id, amt, d, note FROM src ORDER BY id;
.EXPORT RESET
CREATE TABLE dst (id INTEGER, amt DECIMAL(9,2), d DATE, note VARCHAR(20));
.IMPORT INDICDATA FILE = rows.dat
.REPEAT *
USING (id INTEGER, amt DECIMAL(9,2), d DATE, note VARCHAR(20))
INS dst (:id, :amt, :d, :note);
SEL COUNT(*) AS differ FROM (SEL * FROM src MINUS SEL * FROM dst) x;
SEL COUNT(*) AS copied FROM dst;
";
    let (out, _, code) = run_in(dir.path(), &[], script);
    assert!(out.contains("differ\n------\n     0"), "{out}");
    assert!(out.contains("copied\n------\n     3"), "{out}");
    assert_eq!(
        out.matches(" *** Insert completed. One row added.").count(),
        6,
        "{out}"
    );
    assert!(out.contains(" *** Warning: Out of data."), "{out}");
    assert_eq!(code, 0, "{out}");
}

#[test]
fn export_data_writes_char_columns_fixed_so_their_own_types_import_them() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = b"CREATE TABLE src (code CHAR(3), note VARCHAR(10));
INS src ('ab', 'x');
INS src (NULL, 'y');
.EXPORT DATA FILE = rows.dat
SEL code, note FROM src ORDER BY note;
.EXPORT RESET
CREATE TABLE dst (code CHAR(3), note VARCHAR(10));
.IMPORT DATA FILE = rows.dat
.REPEAT *
USING (code CHAR(3), note VARCHAR(10))
INS dst (:code, :note);
SEL COUNT(*) AS copied FROM dst WHERE code = 'ab' OR code = '';
";
    let (out, _, code) = run_in(dir.path(), &[], script);
    let bytes = std::fs::read(dir.path().join("rows.dat")).expect("export file");
    // a record: length 6 (3 for CHAR(3), 2 + 1 for VARCHAR 'x'), data, end byte
    assert_eq!(&bytes[..9], b"\x06\x00ab \x01\x00x\x0a", "{bytes:?}");
    assert!(out.contains("copied\n------\n     2"), "{out}");
    assert_eq!(code, 0, "{out}");
}

#[test]
fn export_data_writes_times_with_their_declared_digits_so_their_own_types_import_them() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = b"CREATE TABLE src (id INTEGER, ts TIMESTAMP(0), t TIME(0), t3 TIMESTAMP(3));
INS src (1, TIMESTAMP '2024-01-02 03:04:05', TIME '10:11:12', TIMESTAMP '2024-01-02 03:04:05.123');
.EXPORT DATA FILE = rows.dat
SEL * FROM src;
.EXPORT RESET
CREATE TABLE dst (id INTEGER, ts TIMESTAMP(0), t TIME(0), t3 TIMESTAMP(3));
.IMPORT DATA FILE = rows.dat
USING (id INTEGER, ts TIMESTAMP(0), t TIME(0), t3 TIMESTAMP(3))
INS dst (:id, :ts, :t, :t3);
SEL COUNT(*) AS copied FROM dst, src WHERE dst.ts = src.ts AND dst.t = src.t AND dst.t3 = src.t3;
";
    let (out, _, code) = run_in(dir.path(), &[], script);
    let bytes = std::fs::read(dir.path().join("rows.dat")).expect("export file");
    // Data Types and Literals, "External Representation": TIMESTAMP(0) is CHAR(19), TIME(0)
    // CHAR(8), TIMESTAMP(3) CHAR(23): 4 + 19 + 8 + 23 = 54 bytes of data
    assert_eq!(&bytes[..2], b"\x36\x00", "{bytes:?}");
    assert_eq!(&bytes[6..33], b"2024-01-02 03:04:0510:11:12", "{bytes:?}");
    assert!(out.contains("copied\n------\n     1"), "{out}");
    assert_eq!(code, 0, "{out}");
}

#[test]
fn export_data_writes_a_char_column_with_wider_characters_as_varchar() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = "CREATE TABLE src (code CHAR(3));
INS src ('\u{e9}\u{e9}');
.EXPORT DATA FILE = rows.dat
SEL code FROM src;
.EXPORT RESET
CREATE TABLE dst (code CHAR(3));
.IMPORT DATA FILE = rows.dat
.REPEAT *
USING (code VARCHAR(3))
INS dst (:code);
SEL COUNT(*) AS same FROM src, dst WHERE src.code = dst.code;
";
    let (out, _, code) = run_in(dir.path(), &[], script.as_bytes());
    let bytes = std::fs::read(dir.path().join("rows.dat")).expect("export file");
    // 'éé ' (the CHAR(3) padded) is 5 bytes in UTF-8: no 3-byte CHAR(3) field holds it, so
    // a VARCHAR one (a record of 7: the length 5, the 5 bytes)
    assert_eq!(&bytes[..4], b"\x07\x00\x05\x00", "{bytes:?}");
    assert!(out.contains("same\n----\n   1"), "{out}");
    assert_eq!(code, 0, "{out}");
}

/// Runs every script of `tests/bteq_corpus` (BTEQ's documented examples, see its README) in a
/// copy of the folder, and checks its exit status and the lines its `.expect` file says the
/// output contains.
#[test]
fn documented_bteq_examples_behave_as_documented() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bteq_corpus");
    let work = tempfile::tempdir().expect("temp dir");
    let mut scripts = Vec::new();
    for entry in std::fs::read_dir(&corpus).expect("the corpus folder") {
        let path = entry.expect("entry").path();
        let name = path.file_name().expect("name").to_owned();
        std::fs::copy(&path, work.path().join(&name)).expect("copy");
        if path.extension().is_some_and(|e| e == "bteq") {
            scripts.push(name.to_string_lossy().into_owned());
        }
    }
    scripts.sort();
    assert!(
        scripts.len() >= 15,
        "the corpus has {} scripts",
        scripts.len()
    );
    let mut failures = Vec::new();
    for script in &scripts {
        let expect = std::fs::read_to_string(work.path().join(script.replace(".bteq", ".expect")))
            .unwrap_or_else(|e| panic!("{script} has no .expect file: {e}"));
        let (out, err, code) = run_in(work.path(), &["-f", script], b"");
        let output = format!("{out}{err}");
        let mut checked = 0;
        for line in expect.lines().map(str::trim) {
            if let Some(rc) = line.strip_prefix("rc:") {
                checked += 1;
                let rc: i32 = rc.trim().parse().expect("rc: N");
                if rc != code {
                    failures.push(format!("{script}: exit status {code}, expected {rc}"));
                }
            } else if let Some(text) = line.strip_prefix("contains:") {
                checked += 1;
                if !output.lines().any(|l| l.contains(text.trim())) {
                    failures.push(format!("{script}: no line contains {:?}", text.trim()));
                }
            } else if let Some(text) = line.strip_prefix("lacks:") {
                checked += 1;
                if let Some(l) = output.lines().find(|l| l.contains(text.trim())) {
                    failures.push(format!(
                        "{script}: a line contains {:?}: {l:?}",
                        text.trim()
                    ));
                }
            } else if !line.is_empty() && !line.starts_with('#') {
                failures.push(format!(
                    "{script}: an .expect line says nothing known: {line:?}"
                ));
            }
        }
        assert!(checked > 1, "{script}: its .expect file checks nothing");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn export_report_then_import_report_gives_the_same_rows() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = b"CREATE TABLE src (id INTEGER, name VARCHAR(30), amt DECIMAL(9,2), d DATE);
INS src (1, 'Ada Lovelace', 10.50, DATE '2024-02-29');
INS src (2, NULL, -3.25, NULL);
INS src (10, 'x', 0, DATE '1999-12-31');
.EXPORT REPORT FILE = rows.txt
SEL id, name, amt, d FROM src ORDER BY id;
.EXPORT RESET
CREATE TABLE dst (id INTEGER, name VARCHAR(30), amt DECIMAL(9,2), d DATE);
.IMPORT REPORT FILE = rows.txt
.REPEAT *
USING (id VARCHAR(5), name VARCHAR(30), amt VARCHAR(12), d VARCHAR(10))
INS dst (:id, :name, :amt, :d);
SEL COUNT(*) AS differ FROM (SEL * FROM src MINUS SEL * FROM dst) x;
SEL COUNT(*) AS copied FROM dst;
";
    let (out, _, code) = run_in(dir.path(), &[], script);
    assert!(out.contains("differ\n------\n     0"), "{out}");
    assert!(out.contains("copied\n------\n     3"), "{out}");
    assert_eq!(code, 0, "{out}");
}

#[test]
fn data_export_with_recordmode_off_writes_rows_as_text_without_headings() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = b"CREATE TABLE t (id INTEGER, name VARCHAR(20));
INS t (1, 'Ada'); INS t (22, NULL);
.SET RECORDMODE OFF
.SET SEPARATOR '|'
.EXPORT DATA FILE = rows.txt
SEL id, name FROM t ORDER BY id;
.EXPORT RESET
.EXPORT FILE = plain.txt
SEL id FROM t ORDER BY id;
.EXPORT RESET
";
    let (out, _, code) = run_in(dir.path(), &[], script);
    let read = |f: &str| std::fs::read_to_string(dir.path().join(f)).expect("export file");
    assert_eq!(read("rows.txt"), " 1|Ada\n22|?\n");
    assert_eq!(read("plain.txt"), "id\n--\n 1\n22\n", "no kind: a report");
    assert_eq!(code, 0, "{out}");
}

/// Issue 16: an output column wider than 65,535 characters (a value or a heading) panicked
/// (`format!`'s width limit); it is printed like any other, in table and record mode.
#[test]
fn a_column_wider_than_65535_characters_is_printed() {
    let wide = "x".repeat(70_000);
    let script = format!("SEL '{wide}' AS v;\nSEL 1 AS \"{wide}\";\nSEL 'done' AS last;\n");
    let (out, err, code) = run_with_stdin(&[], script.as_bytes());
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.contains(&wide), "the value is printed whole");
    assert!(
        out.contains(&format!("{}\n", "-".repeat(70_000))),
        "the heading's dashes are as wide as the column"
    );
    assert!(out.contains("done"), "{out}");
}

/// Issue 16: Ctrl-C under `-f` cancels the running request (3110, rolled back) and stops the
/// script after it, with the logoff lines and return code 8.
#[test]
fn ctrl_c_under_a_script_cancels_the_running_request_and_stops_the_script() {
    use std::io::{BufRead, BufReader, Write};
    let dir = std::env::temp_dir().join(format!("tdlite-ctrl-c-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("long.sql");
    let mut f = std::fs::File::create(&script).unwrap();
    writeln!(f, "CREATE TABLE d (k INTEGER);").unwrap();
    for k in 0..10 {
        writeln!(f, "INS d ({k});").unwrap();
    }
    writeln!(f, "CREATE TABLE t AS (SELECT a.k * 1000 + b.k * 100 + c.k * 10 + e.k AS a FROM d a, d b, d c, d e) WITH DATA;").unwrap();
    // a subquery correlated by a non-equality, per row of 10,000: minutes uncancelled
    writeln!(
        f,
        "SELECT COUNT(*) FROM t x WHERE x.a > (SELECT AVG(y.a) FROM t y WHERE y.a < x.a);"
    )
    .unwrap();
    writeln!(f, "SEL 'after the cancel' AS never;").unwrap();
    drop(f);
    let mut child = tdlite()
        .args(["-f", script.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut seen = String::new();
    // the long request is echoed as it starts
    loop {
        let mut line = String::new();
        assert!(out.read_line(&mut line).unwrap() > 0, "ended early: {seen}");
        seen.push_str(&line);
        if line.starts_with("SELECT COUNT(*) FROM t x") {
            break;
        }
    }
    // give the request a moment to start, then interrupt it
    std::thread::sleep(std::time::Duration::from_millis(500));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    let code = child.wait().unwrap().code();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        rest.contains(" *** Failure 3110 The transaction was aborted by the user."),
        "{rest}"
    );
    assert!(
        rest.contains(" *** The script was interrupted (Ctrl-C)."),
        "{rest}"
    );
    assert!(
        !rest.contains("after the cancel"),
        "the script stopped: {rest}"
    );
    assert!(rest.contains(" *** RC (return code) = 8"), "{rest}");
    assert_eq!(code, Some(8));
}
