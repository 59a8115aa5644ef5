//! Runs the `tdlite` binary on every `scripts/*.sql` and compares its output and exit status
//! with `scripts/*.out`. Set `TDLITE_UPDATE=1` to rewrite the `.out` files, then read the diff.

use std::path::Path;
use std::process::{Command, Stdio};

fn tdlite() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tdlite"))
}

fn run_with_stdin(args: &[&str], stdin: &[u8]) -> (String, String, i32) {
    use std::io::Write;
    let mut child = tdlite()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tdlite runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin)
        .expect("write stdin");
    let out = child.wait_with_output().expect("tdlite finishes");
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
        let (stdout, stderr, code) =
            run_with_stdin(&["-f", sql.to_str().expect("utf-8 path")], b"");
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
fn a_non_utf8_script_is_an_error_not_a_crash() {
    let (out, _, code) = run_with_stdin(&[], b"SEL 1;\n\xff\xfe;\n");
    assert!(out.contains("not valid UTF-8"), "{out}");
    assert_eq!(code, 8);
}

#[test]
fn a_database_path_gets_a_clear_message() {
    let (_, err, code) = run_with_stdin(&["/tmp/tdlite-db"], b"");
    assert!(err.contains("cannot open a database folder"), "{err}");
    assert_eq!(code, 8);
}

#[test]
fn the_consume_timeout_flag_bounds_a_wait() {
    let script = b"CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), n INTEGER);\nSELECT AND CONSUME TOP 1 n FROM q;\n";
    let (out, _, code) = run_with_stdin(&["--consume-timeout", "0"], script);
    assert!(out.contains(" *** Failure 9904 "), "{out}");
    assert_eq!(code, 8);
}
