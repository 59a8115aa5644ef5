//! Parses every statement of the Teradata corpus kept in the repository
//! (`tests/corpora/teradata/`: inputs of sqlglot's Teradata dialect tests; see its README.md).
//! Expression inputs are wrapped as `SELECT <expr>`. A statement that does not parse must be
//! listed, with its reason, in `tests/teradata_corpus_out_of_scope.tsv` (and docs/corpus.md); a
//! listed statement that parses fails the test too, so the list stays true. A missing or empty
//! corpus fails the test.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// How many inputs the two corpus files hold (statements plus expressions).
pub const CORPUS_INPUTS: usize = 93;

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpora/teradata")
}

/// The inputs of one corpus file: blocks separated by blank lines, each a `-- ` comment line
/// and then the input.
fn inputs(file: &str) -> Vec<String> {
    let text = std::fs::read_to_string(corpus_dir().join(file)).expect("readable corpus file");
    text.split("\n\n")
        .filter_map(|block| {
            let body: Vec<&str> = block
                .lines()
                .filter(|l| !l.trim_start().starts_with("--") && !l.trim().is_empty())
                .collect();
            (!body.is_empty()).then(|| body.join("\n"))
        })
        .collect()
}

fn out_of_scope() -> BTreeMap<String, String> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/teradata_corpus_out_of_scope.tsv");
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once('\t'))
        .map(|(sql, why)| (sql.to_string(), why.to_string()))
        .collect()
}

#[test]
fn every_teradata_corpus_statement_parses_or_is_listed_out_of_scope() {
    let listed = out_of_scope();
    let mut cases = Vec::new();
    for sql in inputs("sqlglot_teradata.sql") {
        cases.push(sql);
    }
    for e in inputs("sqlglot_teradata_expressions.sql") {
        cases.push(format!("SELECT {}", e.trim_end_matches(';')));
    }
    assert_eq!(
        cases.len(),
        CORPUS_INPUTS,
        "the corpus changed size: a cut file, or new inputs (then update CORPUS_INPUTS)"
    );
    let (mut parsed, mut failed_listed) = (0, 0);
    let mut problems = Vec::new();
    for sql in &cases {
        let ok = tdlite_parser::parse_request(sql);
        match (ok, listed.get(sql)) {
            (Ok(_), None) => parsed += 1,
            (Ok(_), Some(_)) => problems.push(format!("now parses, unlist it: {sql}")),
            (Err(_), Some(_)) => failed_listed += 1,
            (Err(e), None) => problems.push(format!("does not parse ({e}): {sql}")),
        }
    }
    println!(
        "teradata-corpus: {} inputs, {parsed} parse, {failed_listed} listed out of scope",
        cases.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
