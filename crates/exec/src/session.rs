//! Sessions: Teradata session mode transactions, request execution, and the consume wait.
//!
//! Teradata mode (teradata-reference.md §2.4): a request outside `BT … ET` is one implicit
//! transaction; any failure rolls back the whole transaction (explicit or implicit) and the
//! request's results are discarded; `ROLLBACK`/`ABORT` roll back and report 3514; `COMMIT` is an
//! error (9911, and the transaction is rolled back); after a DDL statement inside `BT` only
//! `ET` may follow (3932). Dropping a session rolls back its open transaction.
//!
//! Invariant: whenever a transaction ends, its [`tdlite_storage::Outcome`] is published so that
//! waiting consumers of queues that gained rows are woken.

use crate::database::Shared;
use crate::error::{Error, PositionedError, Result};
use crate::exec::Exec;
use crate::result::{Rows, StatementKind, StatementResult};
use crate::wait::{CancelHandle, WaitCell, WaitEnd};
use sqlparser::ast;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tdlite_parser::{parse_request, Consume, Spanned, Statement};
use tdlite_storage::table::Table;
use tdlite_storage::Transaction;

/// A connection-like handle: one open transaction at a time, used from one thread.
pub struct Session {
    shared: Arc<Shared>,
    txn: Option<Transaction>,
    bt_depth: u32,
    ddl_in_bt: bool,
    consume_timeout: Option<Duration>,
    cancel: CancelHandle,
    user: String,
}

impl Session {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        Session {
            shared,
            txn: None,
            bt_depth: 0,
            ddl_in_bt: false,
            consume_timeout: None,
            cancel: CancelHandle::default(),
            user: "TDLITE".to_string(),
        }
    }

    /// Bounds how long `SELECT AND CONSUME` waits on an empty queue (`None`: forever, as in
    /// Teradata). When the bound expires the statement fails with 9904 and consumes nothing.
    pub fn set_consume_timeout(&mut self, timeout: Option<Duration>) {
        self.consume_timeout = timeout;
    }

    /// A handle that cancels this session's waiting consume from another thread (9905).
    pub fn cancel_handle(&self) -> CancelHandle {
        self.cancel.clone()
    }

    /// True while an explicit `BT` transaction is open.
    pub fn in_explicit_transaction(&self) -> bool {
        self.bt_depth > 0
    }

    /// Executes one request (one or more statements separated by `;`) and returns one result
    /// per statement.
    ///
    /// # Errors
    /// The first failing statement's error, with its position and statement number. In
    /// Teradata mode the whole transaction has then been rolled back and no result of the
    /// request is returned.
    pub fn execute(
        &mut self,
        sql: &str,
    ) -> std::result::Result<Vec<StatementResult>, PositionedError> {
        let stmts = match parse_request(sql) {
            Ok(s) => s,
            // a null request is legal and changes nothing (not even an open transaction)
            Err(e) if e.kind == tdlite_parser::ParseErrorKind::EmptyRequest => {
                return Ok(Vec::new())
            }
            Err(e) => {
                let location = Some(e.location);
                self.abort();
                return Err(PositionedError {
                    error: e.into(),
                    location,
                    statement: 1,
                });
            }
        };
        if let Err((error, i)) = check_request(&stmts) {
            self.abort();
            return Err(PositionedError {
                error,
                location: Some(stmts[i].location),
                statement: i + 1,
            });
        }
        let now = self.shared.request_timestamp();
        let mut results = Vec::with_capacity(stmts.len());
        for (i, st) in stmts.iter().enumerate() {
            match self.run(st, now) {
                Ok(r) => results.push(r),
                Err(error) => {
                    self.abort();
                    return Err(PositionedError {
                        error,
                        location: Some(st.location),
                        statement: i + 1,
                    });
                }
            }
        }
        if self.bt_depth == 0 {
            if let Err(error) = self.commit() {
                let last = stmts.len() - 1;
                return Err(PositionedError {
                    error,
                    location: Some(stmts[last].location),
                    statement: last + 1,
                });
            }
        }
        Ok(results)
    }

    fn txn(&mut self) -> &mut Transaction {
        let storage = &self.shared.storage;
        self.txn.get_or_insert_with(|| Transaction::begin(storage))
    }

    /// Commits the open transaction. If it cannot be made durable it is rolled back instead.
    fn commit(&mut self) -> Result<()> {
        self.bt_depth = 0;
        self.ddl_in_bt = false;
        if let Some(t) = self.txn.take() {
            match t.commit() {
                Ok(outcome) => self.shared.publish(outcome),
                Err(failed) => {
                    self.shared.publish(failed.outcome);
                    return Err(failed.error.into());
                }
            }
        }
        Ok(())
    }

    fn abort(&mut self) {
        if let Some(t) = self.txn.take() {
            let outcome = t.rollback();
            self.shared.publish(outcome);
        }
        self.bt_depth = 0;
        self.ddl_in_bt = false;
    }

    fn exec(&mut self, now: i64) -> Exec<'_> {
        let storage = &self.shared.storage;
        let txn = self.txn.get_or_insert_with(|| Transaction::begin(storage));
        Exec {
            txn,
            shared: &self.shared,
            now_us: now,
            user: &self.user,
            outer: Vec::new(),
            corr: None,
        }
    }

    fn run(&mut self, st: &Spanned, now: i64) -> Result<StatementResult> {
        // after DDL inside BT only ET may follow; ABORT/ROLLBACK are always allowed
        if self.ddl_in_bt
            && !matches!(
                st.statement,
                Statement::EndTransaction | Statement::Rollback { .. }
            )
        {
            return Err(Error::DdlNotLast);
        }
        let s = &st.statement;
        if s.is_ddl() && self.bt_depth > 0 {
            self.ddl_in_bt = true;
        }
        Ok(match s {
            Statement::BeginTransaction => {
                self.bt_depth += 1;
                self.txn();
                StatementResult::status(StatementKind::BeginTransaction)
            }
            Statement::EndTransaction => {
                if self.bt_depth == 0 {
                    return Err(Error::TooManyEt);
                }
                self.bt_depth -= 1;
                if self.bt_depth == 0 {
                    self.commit()?;
                }
                StatementResult::status(StatementKind::EndTransaction)
            }
            Statement::Commit => return Err(Error::CommitInTeradataMode),
            Statement::Rollback { .. } => {
                self.abort();
                return Err(Error::UserAbort);
            }
            Statement::LockOnly => StatementResult::status(StatementKind::Lock),
            Statement::CreateTable(ct) => {
                let mut ex = self.exec(now);
                ex.create_table(ct, &st.text, true)?;
                StatementResult::status(StatementKind::CreateTable)
            }
            Statement::HelpTable(name) => {
                StatementResult::rows(StatementKind::Help, self.exec(now).help_table(name)?)
            }
            Statement::ShowTable(name) => {
                StatementResult::rows(StatementKind::Show, self.exec(now).show_table(name)?)
            }
            Statement::Consume(c) => {
                StatementResult::rows(StatementKind::Consume, self.consume(c, now)?)
            }
            Statement::InsertConsume {
                table,
                columns,
                consume,
            } => {
                // resolve the target before waiting, so a bad target fails at once
                let target = self.exec(now).must_get_table(table)?;
                let targets = if columns.is_empty() {
                    (0..target.schema.columns.len()).collect::<Vec<_>>()
                } else {
                    columns
                        .iter()
                        .map(|c| {
                            target
                                .schema
                                .column_index(&c.value)
                                .ok_or_else(|| Error::ColumnNotFound(c.value.clone()))
                        })
                        .collect::<Result<Vec<_>>>()?
                };
                let rows = self.consume(consume, now)?;
                let batch = arrow::compute::concat_batches(&rows.schema, &rows.batches)?;
                if batch.num_columns() < targets.len() {
                    return Err(Error::TooFewValues);
                }
                if batch.num_columns() > targets.len() {
                    return Err(Error::TooManyValues);
                }
                // Teradata mode INSERT … SELECT into a SET table drops duplicate rows silently;
                // the consumed row is then gone (consumed, not inserted), as in Teradata.
                let skip = target.schema.kind == tdlite_storage::catalog::TableKind::Set;
                let n = self
                    .exec(now)
                    .insert_batch(&target, &targets, &batch, skip)?;
                StatementResult::count(StatementKind::Insert, n)
            }
            Statement::Sql(sql) => self.run_sql(sql, now)?,
        })
    }

    fn run_sql(&mut self, sql: &ast::Statement, now: i64) -> Result<StatementResult> {
        let mut ex = self.exec(now);
        Ok(match sql {
            ast::Statement::Query(q) => {
                StatementResult::rows(StatementKind::Select, ex.run_query(q)?)
            }
            ast::Statement::Insert(i) => {
                StatementResult::count(StatementKind::Insert, ex.insert(i)?)
            }
            ast::Statement::Update(u) => {
                StatementResult::count(StatementKind::Update, ex.update(u)?)
            }
            ast::Statement::Delete(d) => {
                StatementResult::count(StatementKind::Delete, ex.delete(d)?)
            }
            ast::Statement::Drop {
                object_type: ast::ObjectType::Table,
                names,
                if_exists,
                ..
            } => {
                let mut dropped = Vec::new();
                for n in names {
                    match ex.drop_table(n) {
                        Ok(t) => dropped.push(t),
                        Err(Error::Storage(tdlite_storage::StorageError::ObjectNotFound(_)))
                            if *if_exists => {}
                        Err(e) => return Err(e),
                    }
                }
                for t in dropped {
                    self.shared.waiters.drop_table(t.id);
                }
                StatementResult::status(StatementKind::DropTable)
            }
            other => {
                let text = other.to_string();
                let word = text
                    .split_whitespace()
                    .take(2)
                    .collect::<Vec<_>>()
                    .join(" ");
                return Err(Error::Unsupported(word));
            }
        })
    }

    /// `SELECT AND CONSUME`: take the oldest row, or wait in the delayed state until a commit
    /// makes one available, the queue is dropped, the wait is cancelled or times out.
    fn consume(&mut self, c: &Consume, now: i64) -> Result<Rows> {
        let mut ex = self.exec(now);
        let table = ex.must_get_table(&c.table)?;
        if !table.schema.queue {
            return Err(Error::NotAQueueTable(table.schema.name.clone()));
        }
        let list = ex.bind_consume(&table, &c.projection)?;
        // a bound too large to represent is no bound
        let deadline = self
            .consume_timeout
            .and_then(|d| Instant::now().checked_add(d));
        let cell = Arc::new(WaitCell::default());
        self.cancel.set(Some(cell.clone()));
        let result = self.consume_loop(&table, &list, &cell, deadline, now);
        self.cancel.set(None);
        result
    }

    fn consume_loop(
        &mut self,
        table: &Arc<Table>,
        list: &crate::dml::ConsumeList,
        cell: &Arc<WaitCell>,
        deadline: Option<Instant>,
        now: i64,
    ) -> Result<Rows> {
        let name = table.schema.name.clone();
        let mut at_front = false;
        loop {
            {
                let shared = self.shared.clone();
                let mut reg = shared.waiters.lock();
                if table.is_dropped() {
                    return Err(Error::QueueDropped(name));
                }
                let mut ex = self.exec(now);
                if let Some(rows) = ex.try_consume(table, list)? {
                    return Ok(rows);
                }
                if cell.is_cancelled() {
                    return Err(Error::ConsumeCancelled(name));
                }
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    return Err(Error::ConsumeTimeout(name));
                }
                let q = reg.entry(table.id).or_default();
                if at_front {
                    q.push_front(cell.clone());
                } else {
                    q.push_back(cell.clone());
                }
            }
            let end = cell.wait(deadline);
            if end != WaitEnd::Woken
                && !self.shared.waiters.leave(table.id, cell)
                && end != WaitEnd::Dropped
            {
                // We were woken at the same moment we gave up: hand the wake-up on.
                self.shared.waiters.notify(table.id, 1);
            }
            match end {
                WaitEnd::Woken => at_front = true,
                WaitEnd::Dropped => return Err(Error::QueueDropped(name)),
                WaitEnd::Cancelled => return Err(Error::ConsumeCancelled(name)),
                WaitEnd::TimedOut => return Err(Error::ConsumeTimeout(name)),
            }
        }
    }
}

/// Request-level rules: BT only first; no DELETE/UPDATE of a queue consumed in the same
/// request (teradata-reference.md §1.6).
fn check_request(stmts: &[Spanned]) -> std::result::Result<(), (Error, usize)> {
    for (i, s) in stmts.iter().enumerate() {
        if i > 0 && matches!(s.statement, Statement::BeginTransaction) {
            return Err((Error::BtNotFirst, i));
        }
    }
    let consumed: Vec<String> = stmts
        .iter()
        .filter_map(|s| match &s.statement {
            Statement::Consume(c) => Some(&c.table),
            Statement::InsertConsume { consume, .. } => Some(&consume.table),
            _ => None,
        })
        .map(|n| tdlite_parser::object_name_string(n).to_uppercase())
        .collect();
    if consumed.is_empty() {
        return Ok(());
    }
    for (i, s) in stmts.iter().enumerate() {
        let target = match &s.statement {
            Statement::Sql(b) => match b.as_ref() {
                ast::Statement::Update(u) => match &u.table.relation {
                    ast::TableFactor::Table { name, .. } => {
                        Some(tdlite_parser::object_name_string(name))
                    }
                    _ => None,
                },
                ast::Statement::Delete(d) => match &d.from {
                    ast::FromTable::WithFromKeyword(v) | ast::FromTable::WithoutKeyword(v) => {
                        v.first().and_then(|t| match &t.relation {
                            ast::TableFactor::Table { name, .. } => {
                                Some(tdlite_parser::object_name_string(name))
                            }
                            _ => None,
                        })
                    }
                },
                _ => None,
            },
            _ => None,
        };
        if let Some(t) = target {
            if consumed.contains(&t.to_uppercase()) {
                return Err((Error::ConsumeWithModify(t), i));
            }
        }
    }
    Ok(())
}

impl Drop for Session {
    fn drop(&mut self) {
        self.abort();
    }
}
