//! The layers of the engine's modules (`crates/exec/src`), checked: every module has a layer,
//! and a module imports (`crate::x`) only modules of its own layer or a lower one, except the
//! edges listed in [`KNOWN_UPWARD`], which the redesign of issue 15 is to remove. A new upward
//! import fails here; so does a listed edge that no longer exists (the list only shrinks).
//! docs/architecture.md ("Layers") describes the layers.

use std::collections::BTreeSet;
use std::path::Path;

/// Each module's layer, lowest first.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "values and errors",
        &[
            "error",
            "interrupt",
            "limits",
            "numfmt",
            "stack",
            "query_band",
            "result",
            "to_char",
            "types",
            "period_text",
        ],
    ),
    (
        "expressions",
        &[
            "expr",
            "td_date",
            "calendar",
            "date_round",
            "greatest",
            "interval_diff",
            "expr_tree",
            "functions",
            "branch_types",
            "period",
            "period_fns",
            "regexp",
            "format",
            "to_char_date",
            "to_char_number",
            "ops",
            "decimal",
            "hash_join",
            "in_set",
            "join_step",
            "set_combine",
            "table_function",
            "pivot",
            "text_distance",
        ],
    ),
    (
        "binding",
        &[
            "bind",
            "params",
            "clauses",
            "window",
            "window_value",
            "window_frame",
            "grouping_sets",
            "conjuncts",
            "correlate",
            "decorrelate",
            "deferred",
            "cte",
            "cte_inline",
            "view",
            "sample",
            "names",
            "aggregate",
            "xmlagg",
            "text_type",
            "slots",
            "target_from",
            "merge_rules",
        ],
    ),
    (
        "planning and access",
        &[
            "plan",
            "join_plan",
            "pushdown",
            "bound_from",
            "early",
            "deferred_run",
            "access",
            "join",
            "plan_cache",
            "bound_select",
            "bound_join",
            "bound_merge",
            "bound_joined",
            "block_tail",
            "stream",
            "inputs",
            "consume_filter",
            "sys_calendar",
            "dbc",
            "dictionary",
            "wait",
        ],
    ),
    (
        "statements",
        &[
            "query",
            "dml",
            "insert_row",
            "merge",
            "upsert_rules",
            "setops",
            "ctas",
            "ddl",
            "alter",
            "admin",
            "help_attrs",
            "statistics",
            "macros",
            "locking",
            "queue_limits",
            "subscribers",
            "identity",
            "default_cells",
            "partition",
            "view_dml",
            "session_option",
            "explain",
            "shared",
            "exec",
        ],
    ),
    (
        "session",
        &["session", "database", "prepared", "requests", "lib"],
    ),
];

/// Imports that go up a layer today. Most are `exec`: the per-statement context (`Exec`)
/// that binding, planning and execution all take, which holds state of several layers.
const KNOWN_UPWARD: &[(&str, &str)] = &[
    ("bind", "exec"),
    ("bound_select", "exec"),
    ("clauses", "exec"),
    ("correlate", "exec"),
    ("cte", "exec"),
    ("decorrelate", "exec"),
    ("deferred_run", "exec"),
    ("join", "exec"),
    ("view", "exec"),
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|(_, ms)| ms.contains(&module))
}

/// The modules `source` imports through `crate::name` (tests left out).
fn imports(source: &str) -> BTreeSet<String> {
    let code = source.split("#[cfg(test)]").next().unwrap_or(source);
    let mut out = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.insert(name);
        }
    }
    out
}

#[test]
fn modules_import_only_their_own_layer_or_lower_ones() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    // (module, file): a file in a module's folder (`explain/joins.rs`) is that module's
    let mut modules = Vec::new();
    let mut nested = 0;
    for entry in std::fs::read_dir(&src).expect("the crate's src folder") {
        let path = entry.expect("a folder entry").path();
        let name = path
            .file_stem()
            .expect("a file name")
            .to_string_lossy()
            .to_string();
        if path.extension().is_some_and(|e| e == "rs") {
            modules.push((name, path));
        } else if path.is_dir() {
            for inner in std::fs::read_dir(&path).expect("a module's folder") {
                let inner = inner.expect("a folder entry").path();
                if inner.extension().is_some_and(|e| e == "rs") {
                    modules.push((name.clone(), inner));
                    nested += 1;
                }
            }
        }
    }
    assert!(modules.len() > 40, "found only {} modules", modules.len());
    assert!(nested >= 3, "found only {nested} files in module folders");
    let mut upward = BTreeSet::new();
    for (name, path) in &modules {
        let from = layer_of(name)
            .unwrap_or_else(|| panic!("module {name} has no layer: add it to LAYERS"));
        let source = std::fs::read_to_string(path).expect("a module's source");
        for dep in imports(&source) {
            if dep == *name {
                continue;
            }
            if let Some(to) = layer_of(&dep) {
                if to > from {
                    upward.insert((name.clone(), dep));
                }
            }
        }
    }
    let known: BTreeSet<(String, String)> = KNOWN_UPWARD
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    let new: Vec<_> = upward.difference(&known).collect();
    assert!(
        new.is_empty(),
        "imports that go up a layer (docs/architecture.md, Layers): {new:?}"
    );
    let gone: Vec<_> = known.difference(&upward).collect();
    assert!(
        gone.is_empty(),
        "upward imports that no longer exist: take them out of KNOWN_UPWARD: {gone:?}"
    );
}
