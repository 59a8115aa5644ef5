//! Queues with subscribers in the statement layer (docs/queues.md, Subscribers): `CREATE
//! TABLE q …, QUEUE, SUBSCRIBERS (a, b)`, `CREATE|DROP SUBSCRIBER s ON q`, which table a
//! `SELECT AND CONSUME … FROM q FOR SUBSCRIBER s` takes from, the statements such a queue
//! refuses, and what SHOW TABLE adds for it. (A take from a subscriber's table locks the queue
//! too: storage's `lock_queue_of`.) Copying each inserted row to the subscribers, and deleting it once every copy is
//! consumed, is storage's (`tdlite_storage::transaction`, module `subscribers`).
//!
//! Invariant: a subscriber's table is reached only through its queue (name lookups never find
//! one, see `Exec::object_definition`), and has the queue's columns, consume order and delivery
//! rule, so a copy is consumed exactly as its row would be.

use crate::ddl::queue_rule;
use crate::error::{Error, Result};
use crate::exec::Exec;
use std::sync::Arc;
use tdlite_parser::ast;
use tdlite_storage::catalog::{subscriber_table_name, Subscription, TableKind, TableSchema};
use tdlite_storage::locks::LockMode;
use tdlite_storage::table::Table;

/// The most subscribers a queue may have (each is a table every INSERT writes).
const MAX_SUBSCRIBERS: usize = 256;

/// 9924 with `why`.
fn rule(why: String) -> Error {
    Error::Subscribers(why)
}

/// Refuses statement `what` (UPDATE, MERGE, ALTER TABLE, …) on `table` if it is a queue
/// with subscribers: their copies would no longer be of its rows. (A DELETE deletes the
/// copies too: storage's `Transaction::delete`.)
///
/// # Errors
/// 9924.
pub(crate) fn refuse_change(table: &Table, what: &str) -> Result<()> {
    if !table.schema.multi_consumer {
        return Ok(());
    }
    Err(rule(format!(
        "{what} of {} is not allowed: it is a queue with subscribers, whose rows leave as \
         every subscriber consumes them (DELETE takes rows out for every subscriber).",
        table.schema.name
    )))
}

/// What SHOW TABLE adds to a queue's CREATE TABLE for the subscribers it has now: `DROP
/// SUBSCRIBER` for each one the text names that it no longer has, `CREATE SUBSCRIBER` for each
/// it has that the text does not name (so that SHOW's text, run as a script, makes the queue
/// as it is).
pub(crate) fn subscribers_since(
    catalog: &tdlite_storage::catalog::Catalog,
    queue: &Table,
    me: tdlite_storage::mvcc::TxnId,
) -> String {
    let created: Vec<String> = match tdlite_parser::parse_statement_text(&queue.schema.ddl) {
        Ok(st) => match st.statement {
            tdlite_parser::Statement::CreateTable(ct) => {
                ct.subscribers.map(|(names, _)| names).unwrap_or_default()
            }
            _ => Vec::new(),
        },
        Err(_) => Vec::new(),
    };
    let now: Vec<String> = catalog
        .subscribers_of(queue)
        .iter()
        .filter(|t| t.usable_by(me))
        .filter_map(|t| t.schema.subscription.as_ref().map(|s| s.name.clone()))
        .collect();
    let has = |list: &[String], n: &str| list.iter().any(|x| x.eq_ignore_ascii_case(n));
    let on = quoted_name(&queue.schema.name);
    let mut out = String::new();
    for n in created.iter().filter(|n| !has(&now, n)) {
        out.push_str(&format!("\nDROP SUBSCRIBER {} ON {on};", quoted(n)));
    }
    for n in now.iter().filter(|n| !has(&created, n)) {
        out.push_str(&format!("\nCREATE SUBSCRIBER {} ON {on};", quoted(n)));
    }
    out
}

/// `name` as a quoted identifier.
fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A catalog name (`db.t` or `t`) with each part quoted.
fn quoted_name(name: &str) -> String {
    match name.split_once('.') {
        Some((db, t)) => format!("{}.{}", quoted(db), quoted(t)),
        None => quoted(name),
    }
}

/// The definition of subscriber `name`'s table of queue `queue`: the queue's columns, order
/// and delivery rule; MULTISET, with no unique index (a copy never fails where its row went
/// in) and no CHECK (the row passed them).
fn subscriber_schema(queue_table: &Table, name: &str) -> TableSchema {
    let queue = &queue_table.schema;
    let non_unique = |mut i: tdlite_storage::catalog::IndexSpec| {
        i.unique = false;
        i
    };
    let mut s = TableSchema::new(
        subscriber_table_name(&queue.name, name),
        queue.columns.clone(),
        TableKind::Multiset,
        true,
        queue.primary_index.clone().map(non_unique),
        queue.secondary.iter().cloned().map(non_unique).collect(),
        String::new(),
    );
    s.queue_order = queue.queue_order;
    s.delivers_at_qits = queue.delivers_at_qits;
    // each subscriber's copies count their own attempts, expire and go to the queue's
    // dead-letter table
    s.limits = queue.limits.clone();
    s.subscription = Some(Subscription {
        queue: queue.name.clone(),
        name: name.to_string(),
        queue_id: queue_table.id,
    });
    s
}

impl Exec<'_> {
    /// Checks `SUBSCRIBERS (names)` of the queue `schema` is to be, and marks it a queue with
    /// subscribers; [`Exec::create_subscriber_tables`] makes their tables once it exists.
    ///
    /// # Errors
    /// 9903 naming the rule broken.
    pub(crate) fn check_subscribers(schema: &mut TableSchema, names: &[String]) -> Result<()> {
        if !schema.queue {
            return Err(queue_rule(
                "SUBSCRIBERS is for queue tables (CREATE TABLE name, QUEUE, SUBSCRIBERS (a, b) …).",
            ));
        }
        if schema.volatile.is_some() {
            return Err(queue_rule("a volatile queue cannot have SUBSCRIBERS."));
        }
        if schema
            .limits
            .as_ref()
            .is_some_and(|l| l.retry_delay_us.is_some())
        {
            return Err(queue_rule(
                "SUBSCRIBERS cannot be combined with RETRY DELAY (not built yet).",
            ));
        }
        if names.len() > MAX_SUBSCRIBERS {
            return Err(queue_rule(&format!(
                "a queue has at most {MAX_SUBSCRIBERS} subscribers."
            )));
        }
        for (i, n) in names.iter().enumerate() {
            if names[..i].iter().any(|m| m.eq_ignore_ascii_case(n)) {
                return Err(queue_rule(&format!("subscriber {n} is named twice.")));
            }
        }
        schema.multi_consumer = true;
        Ok(())
    }

    /// Creates the tables of subscribers `names` of the queue `queue` (in this transaction).
    ///
    /// # Errors
    /// 9924 for a subscriber it has already; lock errors.
    pub(crate) fn create_subscriber_tables(
        &mut self,
        queue_table: &Table,
        names: &[String],
    ) -> Result<()> {
        let queue = &queue_table.schema;
        for n in names {
            // a name with the separator in it could make another queue's subscriber's name
            if n.to_uppercase().contains(" FOR SUBSCRIBER ")
                || queue.name.to_uppercase().contains(" FOR SUBSCRIBER ")
            {
                return Err(rule(format!(
                    "a queue with subscribers and its subscribers cannot have ' FOR SUBSCRIBER ' \
                     in their names ({}, {n}).",
                    queue.name
                )));
            }
            let schema = subscriber_schema(queue_table, n);
            if self
                .shared
                .storage
                .catalog
                .get_table(&schema.name)
                .is_some()
            {
                return Err(rule(format!(
                    "{} already has a subscriber {n}.",
                    queue.name
                )));
            }
            self.txn.create_table(schema)?;
        }
        Ok(())
    }

    /// `CREATE SUBSCRIBER name ON q` / `DROP SUBSCRIBER name ON q`; a DROP returns the
    /// subscriber's table, so that its waiting consumers are told.
    ///
    /// # Errors
    /// 9924 if `q` is not a queue with subscribers, or has (CREATE) or lacks (DROP) `name`;
    /// 3807; lock errors.
    pub(crate) fn subscriber(
        &mut self,
        name: &str,
        queue: &ast::ObjectName,
        create: bool,
    ) -> Result<Option<Arc<Table>>> {
        let q = self.must_get_base_table(queue)?;
        if !q.schema.multi_consumer {
            return Err(rule(format!(
                "{} is not a queue with subscribers (CREATE TABLE name, QUEUE, SUBSCRIBERS (…) \
                 makes one).",
                q.schema.name
            )));
        }
        // no INSERT copies rows to the subscribers while they change
        self.txn.lock(&q, LockMode::Exclusive, false)?;
        if create {
            let n = self.shared.storage.catalog.subscribers_of(&q).len();
            if n >= MAX_SUBSCRIBERS {
                return Err(rule(format!(
                    "{} has {n} subscribers, the most a queue may have.",
                    q.schema.name
                )));
            }
            self.create_subscriber_tables(&q, &[name.to_string()])?;
            return Ok(None);
        }
        let sub = self.subscriber_table(&q, name)?;
        // its copies are consumed for good: the queue's rows that only it still had go too
        self.txn.lock(&sub, LockMode::Exclusive, false)?;
        let snapshot = self.txn.snapshot();
        for b in sub.scan(&snapshot) {
            for &rid in b.row_ids.values() {
                self.txn.delete(&sub, rid)?;
            }
        }
        Ok(Some(self.txn.drop_subscriber(&sub)?))
    }

    /// The table subscriber `name` of queue `q` consumes from.
    ///
    /// # Errors
    /// 9924 if there is no such subscriber (or another transaction is adding it).
    fn subscriber_table(&self, q: &Table, name: &str) -> Result<Arc<Table>> {
        let me = self.txn.id();
        self.shared
            .storage
            .catalog
            .get_table(&subscriber_table_name(&q.schema.name, name))
            .filter(|t| t.usable_by(me))
            .ok_or_else(|| rule(format!("{} has no subscriber {name}.", q.schema.name)))
    }

    /// The table a consume of `q` (`FOR SUBSCRIBER subscriber`, if given) takes from.
    ///
    /// # Errors
    /// 9924 if `q` has subscribers and none is named, or none and one is, or not that one.
    pub(crate) fn consume_target(
        &self,
        q: Arc<Table>,
        subscriber: Option<&str>,
    ) -> Result<Arc<Table>> {
        match (q.schema.multi_consumer, subscriber) {
            (false, None) => Ok(q),
            (false, Some(_)) => Err(rule(format!(
                "{} has no subscribers: FOR SUBSCRIBER is for a queue made with SUBSCRIBERS (…).",
                q.schema.name
            ))),
            (true, None) => Err(rule(format!(
                "{} is a queue with subscribers: consume as one of them (… FROM {} FOR \
                 SUBSCRIBER name).",
                q.schema.name, q.schema.name
            ))),
            (true, Some(s)) => self.subscriber_table(&q, s),
        }
    }

    /// The subscribers' tables of queue `q` where lease `id` is (ACKNOWLEDGE/RELEASE name the
    /// queue, and a lease number is one per database): the first subscriber's if none has it
    /// (the lease then ended, 9922).
    pub(crate) fn lease_table(&self, q: &Arc<Table>, id: u64) -> Arc<Table> {
        if !q.schema.multi_consumer {
            return q.clone();
        }
        let subs = self.shared.storage.catalog.subscribers_of(q);
        subs.iter()
            .find(|t| t.holds_lease(id))
            .or(subs.first())
            .cloned()
            .unwrap_or_else(|| q.clone())
    }
}
