//! Parser snapshots: one snapshot per `tests/inputs/<area>/*.sql` file.
//!
//! Each input file is split into requests by BTEQ's rule ([`tdlite_parser::split_requests`]);
//! every request is parsed with [`tdlite_parser::parse_request`] and rendered as either its
//! statements or its error. Rendering leaves positions out of the tree on purpose: positions are
//! tested in `errors.rs`, and keeping them out means an unrelated whitespace change in an input
//! does not rewrite the whole snapshot. Error lines do show the position (request-relative
//! `LINE:COLUMN`), because there the position *is* the behaviour under test.
//!
//! Add a case by dropping a `.sql` file under `tests/inputs/`; refresh with
//! `INSTA_UPDATE=always cargo test -p tdlite-parser --test parse` and read the diff.

mod errors;
mod teradata_corpus;

use std::fmt::Write as _;
use tdlite_parser::{
    parse_request, split_requests, ColumnDef, ColumnDefault, Consume, CreateTable, IndexDef,
    LockObject, Locking, ParseError, Spanned, Statement,
};

#[test]
fn parse_inputs() {
    insta::glob!("inputs/**/*.sql", |path| {
        let script = std::fs::read_to_string(path).expect("input file is readable UTF-8");
        insta::assert_snapshot!(render_script(&script));
    });
}

/// Renders every request of `script` in order.
fn render_script(script: &str) -> String {
    let (requests, rest) = split_requests(script);
    let mut out = String::new();
    for req in &requests {
        render_request(&mut out, &format!("line {}", req.line), &req.text);
    }
    if !rest.trim().is_empty() {
        // BTEQ would keep waiting for the `;`; parse it anyway so nothing in an input is silent.
        render_request(&mut out, "unterminated rest", rest.trim());
    }
    out
}

fn render_request(out: &mut String, label: &str, text: &str) {
    writeln!(out, "==== request at {label} ====").unwrap();
    for line in text.lines() {
        writeln!(out, "> {line}").unwrap();
    }
    match parse_request(text) {
        Ok(stmts) => {
            let many = stmts.len() > 1;
            for (i, s) in stmts.iter().enumerate() {
                if many {
                    writeln!(out, "-- statement {}: {}", i + 1, one_line(&s.text)).unwrap();
                }
                render_spanned(out, s);
            }
        }
        Err(e) => writeln!(out, "{}", render_error(&e)).unwrap(),
    }
    out.push('\n');
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn render_error(e: &ParseError) -> String {
    format!(
        "error {} at {}:{}: {}",
        e.code(),
        e.location.line,
        e.location.column,
        e
    )
}

fn render_spanned(out: &mut String, s: &Spanned) {
    let Spanned {
        statement,
        locking,
        location: _,
        text: _,
    } = s;
    for l in locking {
        writeln!(out, "{}", render_locking(l)).unwrap();
    }
    render_statement(out, statement);
}

fn render_locking(l: &Locking) -> String {
    let Locking {
        object,
        mode,
        nowait,
    } = l;
    let object = match object {
        LockObject::Row => "ROW".to_string(),
        LockObject::Table(n) => format!("TABLE {n}"),
        LockObject::Database(n) => format!("DATABASE {n}"),
        LockObject::View(n) => format!("VIEW {n}"),
    };
    let nowait = if *nowait { " NOWAIT" } else { "" };
    format!("Locking {object} FOR {mode:?}{nowait}")
}

fn render_statement(out: &mut String, statement: &Statement) {
    match statement {
        Statement::Sql(s) => writeln!(out, "Sql: {s}").unwrap(),
        Statement::CreateTable(c) => render_create_table(out, c),
        Statement::Consume(c) => {
            writeln!(out, "Consume").unwrap();
            render_consume(out, c, "  ");
        }
        Statement::InsertConsume {
            table,
            columns,
            consume,
        } => {
            writeln!(out, "InsertConsume").unwrap();
            writeln!(out, "  table: {table}").unwrap();
            if !columns.is_empty() {
                writeln!(out, "  columns: ({})", join(columns)).unwrap();
            }
            writeln!(out, "  consume:").unwrap();
            render_consume(out, consume, "    ");
        }
        Statement::BeginTransaction => writeln!(out, "BeginTransaction").unwrap(),
        Statement::EndTransaction => writeln!(out, "EndTransaction").unwrap(),
        Statement::Commit => writeln!(out, "Commit").unwrap(),
        Statement::HelpVolatileTable => writeln!(out, "HelpVolatileTable").unwrap(),
        Statement::Rollback {
            abort,
            message,
            condition,
        } => {
            write!(out, "Rollback {{ abort: {abort}").unwrap();
            if let Some(m) = message {
                write!(out, ", message: {m:?}").unwrap();
            }
            if let Some(c) = condition {
                write!(out, ", condition: {c}").unwrap();
            }
            writeln!(out, " }}").unwrap();
        }
        Statement::HelpTable(name) => writeln!(out, "HelpTable {name}").unwrap(),
        Statement::ShowTable(name) => writeln!(out, "ShowTable {name}").unwrap(),
        Statement::LockOnly => writeln!(out, "LockOnly").unwrap(),
        Statement::HelpLocks => writeln!(out, "HelpLocks").unwrap(),
        Statement::HelpSession => writeln!(out, "HelpSession").unwrap(),
        Statement::SessionOption(o) => writeln!(out, "SessionOption {o:?}").unwrap(),
        // names without their positions (see the module doc)
        Statement::Admin(tdlite_parser::AdminStatement::Rename { from, to, view }) => {
            let what = if *view { "VIEW" } else { "TABLE" };
            writeln!(out, "Rename {what} {from} -> {to}").unwrap()
        }
        Statement::Admin(a) => writeln!(out, "{a:?}").unwrap(),
        Statement::CreateMacro {
            name,
            params,
            body,
            replace,
            ..
        } => writeln!(
            out,
            "{} MACRO {name} {params:?} AS ({body})",
            if *replace { "REPLACE" } else { "CREATE" }
        )
        .unwrap(),
        Statement::ExecMacro { name, args, .. } => writeln!(out, "EXEC {name} {args:?}").unwrap(),
        Statement::DropMacro(name) => writeln!(out, "DROP MACRO {name}").unwrap(),
        Statement::CreateProcedure {
            name,
            params,
            body,
            replace,
            ..
        } => {
            writeln!(out, "CreateProcedure {name} replace: {replace}").unwrap();
            for (mode, p, ty) in params {
                writeln!(out, "  param {mode:?} {p} {ty}").unwrap();
            }
            match tdlite_parser::procedure::parse_body(body) {
                Ok(stmts) => {
                    for st in stmts {
                        writeln!(out, "  {st:?}").unwrap();
                    }
                }
                Err(e) => writeln!(out, "  body error {} at {}", e.code(), e.location).unwrap(),
            }
        }
        Statement::DropProcedure(name) => writeln!(out, "DROP PROCEDURE {name}").unwrap(),
        Statement::ShowProcedure(name) => writeln!(out, "SHOW PROCEDURE {name}").unwrap(),
        Statement::Call { name, args, .. } => writeln!(out, "CALL {name} {args:?}").unwrap(),
        Statement::DropTemporary { name, all } => {
            writeln!(out, "DropTemporary {name} all: {all}").unwrap()
        }
        Statement::ShowMacro(name) => writeln!(out, "SHOW MACRO {name}").unwrap(),
        Statement::HelpDatabase(name) => writeln!(out, "HelpDatabase {name}").unwrap(),
        Statement::Explain(inner) => {
            writeln!(out, "Explain").unwrap();
            render_statement(out, inner);
        }
        Statement::CreateIndex {
            name,
            unique,
            columns,
            table,
        } => writeln!(
            out,
            "CreateIndex {name:?} unique={unique} {columns:?} ON {table}"
        )
        .unwrap(),
        Statement::DropIndex {
            name,
            columns,
            table,
            if_exists,
        } => writeln!(
            out,
            "DropIndex {name:?} {columns:?} ON {table:?} if_exists={if_exists}"
        )
        .unwrap(),
        Statement::AlterTable { name, actions } => {
            writeln!(out, "AlterTable {name} {} action(s)", actions.len()).unwrap()
        }
        Statement::CreateView {
            name,
            columns,
            query,
            replace,
        } => writeln!(
            out,
            "CreateView {name} {columns:?} replace={replace}: {query}"
        )
        .unwrap(),
        Statement::Database(name) => writeln!(out, "Database {name}").unwrap(),
        Statement::QueryBand {
            text,
            update,
            session,
        } => writeln!(
            out,
            "QueryBand {text:?} update: {update} for: {}",
            if *session { "SESSION" } else { "TRANSACTION" }
        )
        .unwrap(),
        Statement::HelpColumn { table, columns } => {
            writeln!(out, "HelpColumn {table} {columns:?}").unwrap()
        }
        Statement::HelpIndex(name) => writeln!(out, "HelpIndex {name}").unwrap(),
        Statement::HelpMacro(name) => writeln!(out, "HelpMacro {name}").unwrap(),
        Statement::Upsert { update, insert } => {
            writeln!(out, "Upsert\n  update: {update}\n  insert: {insert}").unwrap()
        }
        Statement::Diagnostic(name) => writeln!(out, "Diagnostic {name}").unwrap(),
        Statement::Statistics {
            drop,
            table,
            groups,
        } => writeln!(out, "Statistics drop={drop} {table} {groups:?}").unwrap(),
        Statement::HelpStatistics(name) => writeln!(out, "HelpStatistics {name}").unwrap(),
        Statement::SetSessionMode { ansi } => writeln!(out, "SetSessionMode ansi={ansi}").unwrap(),
        Statement::SetConsumeWait(wait) => writeln!(out, "SetConsumeWait {wait:?}").unwrap(),
        Statement::HelpQueue(name) => writeln!(out, "HelpQueue {name}").unwrap(),
        Statement::EndLease {
            table,
            leases,
            acknowledge,
        } => writeln!(out, "EndLease {table} {leases:?} acknowledge={acknowledge}").unwrap(),
        Statement::Subscriber {
            name,
            queue,
            create,
        } => writeln!(out, "Subscriber {name} on {queue} create={create}").unwrap(),
    }
}

fn render_consume(out: &mut String, c: &Consume, indent: &str) {
    let Consume {
        top,
        top_location: _,
        projection,
        table,
        table_location: _,
        filter,
        lease,
        wait,
        subscriber,
    } = c;
    // TOP 1 and no wait clause (Teradata's form) print as before the extensions came
    if *top != 1 {
        writeln!(out, "{indent}top: {top}").unwrap();
    }
    writeln!(out, "{indent}projection: {}", join(projection)).unwrap();
    writeln!(out, "{indent}table: {table}").unwrap();
    if let Some((name, at)) = subscriber {
        writeln!(out, "{indent}for subscriber: {name} at {at}").unwrap();
    }
    if let Some((cond, at)) = filter {
        writeln!(out, "{indent}where: {cond} at {at}").unwrap();
    }
    if let Some((lease, at)) = lease {
        writeln!(out, "{indent}lease: {lease:?} at {at}").unwrap();
    }
    if let Some((wait, at)) = wait {
        writeln!(out, "{indent}wait: {wait:?} at {at}").unwrap();
    }
}

fn render_create_table(out: &mut String, c: &CreateTable) {
    let CreateTable {
        name,
        kind,
        volatile,
        global_temporary,
        queue,
        options,
        columns,
        primary_index,
        no_primary_index,
        partitioned,
        partitioning,
        indexes,
        unique_constraints,
        primary_key,
        on_commit_preserve,
        queue_location: _,
        checks,
        as_source,
        consume_order,
        deliver_at,
        limits,
        subscribers,
    } = c;
    writeln!(out, "CreateTable").unwrap();
    writeln!(out, "  name: {name}").unwrap();
    writeln!(out, "  kind: {kind:?}").unwrap();
    writeln!(out, "  volatile: {volatile}").unwrap();
    if *global_temporary {
        writeln!(out, "  global temporary").unwrap();
    }
    writeln!(out, "  queue: {queue}").unwrap();
    if !options.is_empty() {
        writeln!(out, "  options: [{}]", options.join(", ")).unwrap();
    }
    if let Some(o) = consume_order {
        let dir = if o.descending { "DESC" } else { "ASC" };
        writeln!(out, "  consume order: {} {dir} at {}", o.column, o.location).unwrap();
    }
    if let Some((column, at)) = deliver_at {
        writeln!(out, "  deliver at: {column} at {at}").unwrap();
    }
    if let Some((names, at)) = subscribers {
        writeln!(out, "  subscribers: {names:?} at {at}").unwrap();
    }
    if let Some((column, at)) = &limits.column {
        writeln!(out, "  attempts: {column} at {at}").unwrap();
    }
    if let Some((n, at)) = &limits.max {
        writeln!(out, "  max attempts: {n} at {at}").unwrap();
    }
    if let Some((delay, at)) = &limits.retry_delay {
        writeln!(out, "  retry delay: {delay:?} at {at}").unwrap();
    }
    if let Some((after, at)) = &limits.expire_after {
        writeln!(out, "  expire after: {after:?} at {at}").unwrap();
    }
    if let Some((table, at)) = &limits.dead_letter {
        writeln!(out, "  dead letter to: {table} at {at}").unwrap();
    }
    writeln!(out, "  columns:").unwrap();
    for col in columns {
        writeln!(out, "    {}", render_column(col)).unwrap();
    }
    if let Some(pi) = primary_index {
        writeln!(out, "  primary_index: {}", render_index(pi)).unwrap();
    }
    if *partitioned {
        writeln!(out, "  partitioned: true").unwrap();
    }
    for level in partitioning {
        writeln!(out, "  partition level: {}", render_partitioning(level)).unwrap();
    }
    if *no_primary_index {
        writeln!(out, "  no_primary_index: true").unwrap();
    }
    for ix in indexes {
        writeln!(out, "  index: {}", render_index(ix)).unwrap();
    }
    for ix in unique_constraints {
        writeln!(out, "  unique_constraint: {}", render_index(ix)).unwrap();
    }
    if let Some(key) = primary_key {
        writeln!(out, "  primary_key: ({})", join(key)).unwrap();
    }
    if let Some(preserve) = on_commit_preserve {
        let rows = if *preserve { "PRESERVE" } else { "DELETE" };
        writeln!(out, "  on_commit: {rows} ROWS").unwrap();
    }
    for check in checks {
        writeln!(out, "  check: {check}").unwrap();
    }
    if let Some(a) = as_source {
        let from = match &a.from {
            tdlite_parser::AsFrom::Query(q) => format!("({q})"),
            tdlite_parser::AsFrom::Table(t) => t.to_string(),
        };
        writeln!(out, "  as: {from} with_data: {}", a.with_data).unwrap();
        for c in &a.columns {
            writeln!(out, "  as column: {}", render_column(c)).unwrap();
        }
    }
}

/// A RANGE_N or CASE_N level as text: its parts and the extra partitions.
fn render_partitioning(level: &tdlite_parser::Partitioning) -> String {
    use tdlite_parser::{Partitioning, RangeEnd};
    match level {
        Partitioning::Range {
            test,
            ranges,
            no_range,
            unknown,
        } => {
            let ranges: Vec<String> = ranges
                .iter()
                .map(|r| {
                    let start = r.start.as_ref().map_or("*".into(), |s| s.to_string());
                    match &r.end {
                        RangeEnd::Inclusive(e) => format!("{start} AND {e}"),
                        RangeEnd::Unbounded => format!("{start} AND *"),
                        RangeEnd::UntilNext => start,
                    }
                })
                .collect();
            format!(
                "RANGE_N({test} BETWEEN {}) no range: {no_range} unknown: {unknown}",
                ranges.join(", ")
            )
        }
        Partitioning::Case {
            conditions,
            no_case,
            unknown,
        } => {
            let c: Vec<String> = conditions.iter().map(ToString::to_string).collect();
            format!(
                "CASE_N({}) no case: {no_case} unknown: {unknown}",
                c.join(", ")
            )
        }
    }
}

/// One line per column: name, type, then only the attributes that are set.
fn render_column(col: &ColumnDef) -> String {
    let ColumnDef {
        name,
        data_type,
        not_null,
        default,
        case_specific,
        uppercase,
        format,
        title,
        character_set,
        compress,
        primary_key,
        unique,
        identity,
        checks,
        location: _,
        default_location: _,
    } = col;
    let mut s = format!("{name}: {data_type:?}");
    if *not_null {
        s.push_str(" not_null");
    }
    match default {
        Some(ColumnDefault::Expr(e)) => write!(s, " default=Expr({e})").unwrap(),
        Some(ColumnDefault::System) => s.push_str(" default=System"),
        None => {}
    }
    if let Some(cs) = case_specific {
        write!(s, " case_specific={cs}").unwrap();
    }
    if *uppercase {
        s.push_str(" uppercase");
    }
    if let Some(f) = format {
        write!(s, " format={f:?}").unwrap();
    }
    if let Some(t) = title {
        write!(s, " title={t:?}").unwrap();
    }
    if let Some(c) = character_set {
        write!(s, " character_set={c}").unwrap();
    }
    if *compress {
        s.push_str(" compress");
    }
    if *primary_key {
        s.push_str(" primary_key");
    }
    if *unique {
        s.push_str(" unique");
    }
    if let Some(i) = identity {
        write!(s, " identity={i:?}").unwrap();
    }
    for c in checks {
        write!(s, " check=({c})").unwrap();
    }
    s
}

fn render_index(ix: &IndexDef) -> String {
    let IndexDef {
        name,
        unique,
        columns,
        location: _,
    } = ix;
    let mut s = String::new();
    if *unique {
        s.push_str("UNIQUE ");
    }
    if let Some(n) = name {
        write!(s, "{n} ").unwrap();
    }
    write!(s, "({})", columns.join(", ")).unwrap();
    s
}

fn join<T: std::fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
