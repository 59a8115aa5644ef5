//! What a session can ask about itself and its databases: `HELP SESSION`, `HELP DATABASE`, and
//! the rule for which databases exist (`DATABASE x` fails with 3802 for any other).
//!
//! A database exists when it is the user's own (`TDLITE`, where tables made without a database
//! live), `DBC`, one made with `CREATE DATABASE|USER` in this process (see [`Registry`]), or
//! when some table or view is qualified by it (`CREATE TABLE sales.t` makes `sales` exist).
//!
//! The rule reads the catalog, where a table appears as soon as its CREATE runs (tdlite's DDL is
//! visible to other sessions before it commits; see docs/errors.md, 3803), so a database made
//! by an uncommitted `CREATE TABLE x.t` exists for every session until that transaction rolls
//! back. Catalog names keep the database as a `db.` prefix, so a quoted name with a dot in it
//! (`"a.b"`) reads as table `b` of database `a`.

use crate::error::{Error, Result};
use crate::result::Rows;
use arrow::array::{ArrayRef, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use arrow::record_batch::RecordBatch;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::Arc;
use tdlite_storage::catalog::{Catalog, VolatileCommit};

/// The dictionary database of a Teradata system; accepted as existing.
const DBC: &str = "DBC";

/// The database `qualified` (a catalog name, `db.t` or `t`) is in, upper-cased: `user` when
/// it has no qualifier.
pub(crate) fn database_of(qualified: &str, user: &str) -> String {
    match qualified.rsplit_once('.') {
        Some((db, _)) => db.to_uppercase(),
        None => user.to_uppercase(),
    }
}

/// What `CREATE DATABASE`, `GRANT` and `COMMENT ON` record, for the life of the process (not
/// kept on disk: a database created empty is gone after a reopen until a table is made in
/// it; rights and comments are shown, never enforced).
#[derive(Default)]
pub(crate) struct Registry {
    /// Databases and users made with CREATE DATABASE|USER, upper-cased, with `true` for a
    /// user.
    pub databases: Mutex<Vec<(String, bool)>>,
    /// Rights given with GRANT and not taken back with REVOKE.
    pub rights: Mutex<Vec<Right>>,
    /// Comments by (kind class, upper-cased name): `T` for tables and views, `C` for columns,
    /// `D` for databases and users, `O` for anything else.
    pub comments: Mutex<HashMap<(char, String), String>>,
    /// Statistics collected, by table id (see statistics.rs).
    pub stats: Mutex<HashMap<u64, Vec<Stat>>>,
}

/// One column set's statistics (COLLECT STATISTICS: statistics.rs).
#[derive(Debug, Clone)]
pub(crate) struct Stat {
    /// The columns, as the table declares them.
    pub columns: Vec<String>,
    /// When they were collected, µs since the epoch (UTC).
    pub collected_us: i64,
    /// Distinct values (of the columns together; NULL is a value) then.
    pub unique: i64,
}

/// One right given with GRANT.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Right {
    /// Who has it (upper-cased).
    pub grantee: String,
    /// On what: `db` or `db.t` (as written).
    pub object: String,
    /// The right as written, upper-cased (`SELECT`, `ALL`, …).
    pub privilege: String,
    /// WITH GRANT OPTION.
    pub grant_option: bool,
}

impl Registry {
    /// The comment on `name` of class `kind` (see [`Registry::comments`]), as a view cell.
    pub fn comment(&self, kind: char, name: &str) -> Option<String> {
        self.comments
            .lock()
            .get(&(kind, name.to_uppercase()))
            .cloned()
    }
}

/// True if database `name` exists for a session of `user` (see the module doc).
pub(crate) fn database_exists(
    catalog: &Catalog,
    registry: &Registry,
    user: &str,
    name: &str,
) -> bool {
    let upper = name.to_uppercase();
    upper == user.to_uppercase()
        || upper == DBC
        || registry.databases.lock().iter().any(|(d, _)| *d == upper)
        || has_objects(catalog, user, name)
}

/// True if some table or view is in database `name`.
pub(crate) fn has_objects(catalog: &Catalog, user: &str, name: &str) -> bool {
    let upper = name.to_uppercase();
    catalog
        .tables()
        .iter()
        .any(|t| database_of(&t.schema.name, user) == upper)
}

/// `HELP DATABASE name`: one row per table, view and macro in it, with Teradata's first
/// columns (`Kind` is `T` table, `Q` queue table, `V` view, `M` macro).
///
/// # Errors
/// 3802 if the database does not exist.
pub(crate) fn help_database(
    catalog: &Catalog,
    registry: &Registry,
    user: &str,
    name: &str,
) -> Result<Rows> {
    if !database_exists(catalog, registry, user, name) {
        return Err(Error::DatabaseNotFound(name.to_string()));
    }
    let upper = name.to_uppercase();
    let mut names = Vec::new();
    let mut kinds = Vec::new();
    for t in catalog.tables() {
        let s = &t.schema;
        if database_of(&s.name, user) != upper {
            continue;
        }
        names.push(
            s.name
                .rsplit_once('.')
                .map_or(s.name.as_str(), |(_, n)| n)
                .to_string(),
        );
        kinds.push(match (s.view.is_some(), s.macro_def.is_some(), s.queue) {
            (true, ..) => "V",
            (_, true, _) => "M",
            (_, _, true) => "Q",
            _ => "T",
        });
    }
    let n = names.len();
    let all = |v: &str| vec![Some(v.to_string()); n];
    text_rows(vec![
        (
            "Table/View/Macro name",
            names.into_iter().map(Some).collect(),
        ),
        (
            "Kind",
            kinds.into_iter().map(|k| Some(k.to_string())).collect(),
        ),
        ("Comment", vec![None; n]),
        ("Protection", all("N")),
        ("Creator Name", all(user)),
    ])
}

/// What `HELP SESSION` reports.
pub(crate) struct SessionInfo<'a> {
    pub user: &'a str,
    /// The default database (`DATABASE x`), or the user's own.
    pub database: &'a str,
    /// Logon time, µs since the epoch (UTC).
    pub logon_us: i64,
    /// `Teradata` or `ANSI`.
    pub semantics: &'a str,
}

/// `HELP SESSION`: one row with Teradata's first columns, in its order.
pub(crate) fn help_session(info: &SessionInfo<'_>) -> Result<Rows> {
    let logon = chrono::DateTime::from_timestamp_micros(info.logon_us)
        .unwrap_or_default()
        .naive_utc();
    let one = |v: &str| vec![Some(v.to_string())];
    text_rows(vec![
        ("User Name", one(info.user)),
        ("Account Name", one(info.user)),
        // tdlite's dates are in ANSI form (SET SESSION DATEFORM = INTEGERDATE is 9910)
        ("Logon Date", one(&logon.format("%Y-%m-%d").to_string())),
        ("Logon Time", one(&logon.format("%H:%M:%S").to_string())),
        ("Current DataBase", one(info.database)),
        ("Collation", one("ASCII")),
        ("Character Set", one("UTF8")),
        ("Transaction Semantics", one(info.semantics)),
        ("Current DateForm", one("AnsiDate")),
        ("Session Time Zone", one("00:00")),
        ("Default Character Type", one("UNICODE")),
    ])
}

/// `HELP VOLATILE TABLE`: a row per volatile table of the session, with Teradata's columns
/// (teradatasqlalchemy reads `Table Dictionary Name`).
pub(crate) fn help_volatile_table(catalog: &Catalog, user: &str, session: u64) -> Result<Rows> {
    let tables = catalog.volatile_tables(session, false);
    let col = |f: &dyn Fn(&tdlite_storage::table::Table) -> String| {
        tables.iter().map(|t| Some(f(t))).collect::<Vec<_>>()
    };
    let none = || vec![None; tables.len()];
    text_rows(vec![
        ("Session Id", col(&|_| session.to_string())),
        ("Table Name", col(&|t| t.schema.name.clone())),
        ("Table Id", col(&|t| format!("{:012X}", t.id))),
        ("Protection", col(&|_| "N".into())),
        ("Creator Name", col(&|_| user.to_string())),
        (
            "Commit Option",
            col(&|t| match t.schema.volatile.map(|v| v.on_commit) {
                Some(VolatileCommit::PreserveRows) => "P".into(),
                _ => "D".into(),
            }),
        ),
        ("Transaction Log", col(&|_| "Y".into())),
        ("Table Dictionary Name", col(&|t| t.schema.name.clone())),
        ("Table SQL Name", col(&|t| t.schema.name.clone())),
        ("Table UEscape", none()),
        ("Creator Dictionary Name", col(&|_| user.to_string())),
        ("Creator SQL Name", col(&|_| user.to_string())),
        ("Creator UEscape", none()),
    ])
}

/// A batch of text columns, `(name, values)` each, all of one length; `None` is NULL.
fn text_rows(columns: Vec<(&str, Vec<Option<String>>)>) -> Result<Rows> {
    let schema = Arc::new(Schema::new(
        columns
            .iter()
            .map(|(name, v)| Field::new(*name, DataType::Utf8, v.iter().any(Option::is_none)))
            .collect::<Vec<_>>(),
    ));
    let arrays: Vec<ArrayRef> = columns
        .into_iter()
        .map(|(_, v)| Arc::new(StringArray::from(v)) as ArrayRef)
        .collect();
    Ok(Rows {
        schema: schema.clone(),
        batches: vec![RecordBatch::try_new(schema, arrays)?],
    })
}

#[cfg(test)]
mod tests {
    use super::database_of;

    #[test]
    fn a_name_without_a_qualifier_is_in_the_users_database() {
        assert_eq!(database_of("sales.t", "TDLITE"), "SALES");
        assert_eq!(database_of("t", "tdlite"), "TDLITE");
    }
}
