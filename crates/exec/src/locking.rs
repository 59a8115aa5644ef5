//! The `LOCKING` request modifier and `HELP LOCKS`.
//!
//! `LOCKING [TABLE] t FOR mode [NOWAIT]` takes a table lock held until the transaction ends
//! (see `tdlite_storage::locks` for the modes and what conflicts). `LOCKING ROW FOR mode`
//! locks, at that mode, every table the statement names: tdlite has no row-hash locks, so the
//! row form is as strong as the table form (never weaker than Teradata's). `LOCKING DATABASE`
//! and `LOCKING VIEW` lock nothing: tdlite has no database objects, and it does not lock the
//! tables under a view.
//!
//! `HELP LOCKS` (a tdlite extension) lists every granted table lock, every transaction waiting
//! for a lock or for a row's writer (one row per transaction it waits for), and every consumer
//! in the delayed state.

use crate::error::Result;
use crate::result::Rows;
use arrow::array::{ArrayRef, Int64Array, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use arrow::record_batch::RecordBatch;
use sqlparser::ast;
use std::ops::ControlFlow;
use std::sync::Arc;
use tdlite_parser::{LockMode as Written, LockObject, Spanned, Statement};
use tdlite_storage::locks::{LockMode, WaitTarget};
use tdlite_storage::{Storage, Transaction};

fn mode(m: Written) -> LockMode {
    match m {
        Written::Access => LockMode::Access,
        Written::Read => LockMode::Read,
        Written::Write => LockMode::Write,
        Written::Exclusive => LockMode::Exclusive,
    }
}

/// The tables a statement names (for `LOCKING ROW`), as written.
fn named_tables(st: &Statement) -> Vec<String> {
    let mut out = Vec::new();
    match st {
        Statement::Sql(s) => {
            let _ = ast::visit_relations(s.as_ref(), |r| {
                out.push(tdlite_parser::object_name_string(r));
                ControlFlow::<()>::Continue(())
            });
        }
        Statement::Consume(c) => out.push(tdlite_parser::object_name_string(&c.table)),
        Statement::InsertConsume { table, consume, .. } => {
            out.push(tdlite_parser::object_name_string(table));
            out.push(tdlite_parser::object_name_string(&consume.table));
        }
        _ => {}
    }
    out
}

/// Takes the locks a statement's `LOCKING` modifiers ask for, in the order written.
///
/// # Errors
/// 3807 for a table that does not exist; 7423 (NOWAIT and taken); 2631 (deadlock).
/// `names` is the session's (default database, user, session id): an unqualified name (or
/// one qualified by the user) may be one of its volatile tables.
pub(crate) fn take_locks(
    storage: &Storage,
    names: (Option<&str>, &str, u64),
    txn: &mut Transaction,
    st: &Spanned,
) -> Result<()> {
    let (database, user, session) = names;
    for l in &st.locking {
        let names = match &l.object {
            LockObject::Table(name) => vec![name.clone()],
            LockObject::Row => named_tables(&st.statement),
            LockObject::Database(_) | LockObject::View(_) => Vec::new(),
        };
        for name in names {
            let volatile = match name.split_once('.') {
                None => storage.catalog.get_volatile(session, &name),
                Some((db, bare)) if db.eq_ignore_ascii_case(user) => {
                    storage.catalog.get_volatile(session, bare)
                }
                Some(_) => None,
            };
            // an unqualified name is in the session's default database
            let name = match database {
                Some(db) if !name.contains('.') => format!("{db}.{name}"),
                _ => name,
            };
            // A name the statement itself creates or that is a derived-table alias is not a
            // table yet: the statement reports that, not the modifier.
            // (a subscriber's table is reached through its queue only)
            let permanent = storage.catalog.get_table(&name);
            let permanent = permanent.filter(|t| t.schema.subscription.is_none());
            // (an instance of a global temporary table is found through its definition)
            let volatile = volatile.filter(|t| t.schema.volatile.is_some_and(|v| !v.is_instance()));
            let Some(t) = volatile.or(permanent) else {
                if matches!(l.object, LockObject::Row) || system_object(&name, database, user) {
                    continue;
                }
                return Err(tdlite_storage::StorageError::ObjectNotFound(name).into());
            };
            // a global temporary table: the session's own instance, if it has one (no other
            // session reads or writes it, so the lock orders nothing but this session's own
            // work); never the shared definition, which would make sessions wait on each other
            let t = match t.schema.global_temporary {
                None => t,
                Some(_) => match storage.catalog.get_volatile(session, &t.schema.name) {
                    Some(i) if i.schema.volatile.and_then(|v| v.instance_of) == Some(t.id) => i,
                    _ => continue,
                },
            };
            txn.lock(&t, mode(l.mode), l.nowait)?;
        }
    }
    Ok(())
}

/// True for a name a LOCKING modifier may name that is no table here: a dictionary view
/// (`LOCKING DBC.TablesV FOR ACCESS`, the usual way to read the dictionary), the system
/// calendar, or a database written without `DATABASE` (`LOCKING DBC FOR ACCESS`: DBC, the
/// user's or the default database). tdlite's dictionary reads take no locks, so these lock
/// nothing.
fn system_object(name: &str, database: Option<&str>, user: &str) -> bool {
    let parts: Vec<String> = name.split('.').map(str::to_string).collect();
    let is_database = |n: &str| {
        ["DBC", "SYS_CALENDAR", user]
            .iter()
            .chain(&database)
            .any(|d| d.eq_ignore_ascii_case(n))
    };
    match parts.as_slice() {
        [db] => is_database(db),
        // (an unqualified name was qualified by the default database above)
        [db, object] => {
            (db.eq_ignore_ascii_case("SYS_CALENDAR")
                && ["CALENDAR", "CALDATES"]
                    .iter()
                    .any(|v| v.eq_ignore_ascii_case(object)))
                || crate::dbc::which(&parts, None).is_some()
                || (database.is_some_and(|d| d.eq_ignore_ascii_case(db)) && is_database(object))
        }
        _ => false,
    }
}

/// One `HELP LOCKS` row.
struct Line {
    session: u64,
    txn: u64,
    table: String,
    lock: String,
    status: &'static str,
    blocking: Option<(u64, u64)>,
}

/// `HELP LOCKS`: granted locks, lock and row waits, and delayed consumers.
///
/// # Errors
/// Only Arrow errors building the batch (none expected).
pub(crate) fn help_locks(storage: &Storage, delayed: Vec<(u64, u64, u64)>) -> Result<Rows> {
    let mut lines = Vec::new();
    for h in storage.held_locks() {
        lines.push(Line {
            session: h.session,
            txn: h.holder,
            table: h.table,
            lock: h.mode.name().to_string(),
            status: "GRANTED",
            blocking: None,
        });
    }
    for w in storage.lock_waits() {
        let lock = match w.wants {
            WaitTarget::Table(m) => m.name().to_string(),
            WaitTarget::Row => "ROW".to_string(),
        };
        for (b, bs) in w.blockers {
            lines.push(Line {
                session: w.session,
                txn: w.waiter,
                table: w.table.clone(),
                lock: lock.clone(),
                status: "WAITING",
                blocking: Some((bs, b)),
            });
        }
    }
    let tables = storage.catalog.all_tables();
    for (table, session, txn) in delayed {
        let name = tables
            .iter()
            .find(|t| t.id == table)
            .map_or_else(|| format!("#{table}"), |t| t.schema.name.clone());
        lines.push(Line {
            session,
            txn,
            table: name,
            lock: "CONSUME".to_string(),
            status: "DELAYED",
            blocking: None,
        });
    }
    let int = |f: &dyn Fn(&Line) -> Option<u64>| -> ArrayRef {
        Arc::new(Int64Array::from_iter(
            lines.iter().map(|l| f(l).map(|v| v as i64)),
        ))
    };
    let text = |f: &dyn Fn(&Line) -> String| -> ArrayRef {
        Arc::new(StringArray::from_iter_values(lines.iter().map(f)))
    };
    let arrays = vec![
        int(&|l| Some(l.session)),
        int(&|l| Some(l.txn)),
        text(&|l| l.table.clone()),
        text(&|l| l.lock.clone()),
        text(&|l| l.status.to_string()),
        int(&|l| l.blocking.map(|b| b.0)),
        int(&|l| l.blocking.map(|b| b.1)),
    ];
    let schema = Arc::new(Schema::new(vec![
        Field::new("Session", DataType::Int64, false),
        Field::new("Transaction", DataType::Int64, false),
        Field::new("TableName", DataType::Utf8, false),
        Field::new("Lock", DataType::Utf8, false),
        Field::new("Status", DataType::Utf8, false),
        Field::new("BlockedBySession", DataType::Int64, true),
        Field::new("BlockedByTransaction", DataType::Int64, true),
    ]));
    Ok(Rows {
        schema: schema.clone(),
        batches: vec![RecordBatch::try_new(schema, arrays)?],
    })
}
