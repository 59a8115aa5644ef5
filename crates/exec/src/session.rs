//! Sessions: transactions in Teradata or ANSI session mode, request execution, statement
//! restarts after a write conflict, and the consume wait.
//!
//! Teradata mode (Teradata's BTET semantics): a request outside `BT … ET` is one implicit
//! transaction; any failure rolls back the whole transaction (explicit or implicit) and the
//! request's results are discarded; `ROLLBACK`/`ABORT` roll back and report 3514; `COMMIT` is an
//! error (3706, and the transaction is rolled back); after a DDL statement inside `BT` only
//! `ET` (or `ABORT`/`ROLLBACK`) may follow (3932).
//!
//! ANSI mode: the first request starts a transaction that runs until `COMMIT` or
//! `ROLLBACK`/`ABORT`; a failing request undoes only itself (a savepoint taken when it starts),
//! except a deadlock or write conflict (2631), a NOWAIT lock refusal (7423), a queue dropped
//! under a waiting consumer (9906), a failed DDL statement or a failed commit, which roll back
//! the whole transaction; `BT`/`ET` are errors (9917); after DDL only `COMMIT` may follow
//! (3722). Tables default to MULTISET and character columns to CASESPECIFIC.
//! `SET SESSION TRANSACTION ANSI|BTET` switches modes between transactions.
//!
//! Write conflicts: a statement that finds a row changed by another open transaction is undone
//! to its savepoint, waits for that transaction to end (deadlocks are detected), and runs again
//! on fresh data; one that finds a row changed by a transaction that committed after it read
//! runs again at once. Dropping a session rolls back its open transaction.
//!
//! Invariant: whenever a transaction ends or rolls back to a savepoint, its
//! [`tdlite_storage::Outcome`] is published so that waiting consumers of queues that gained
//! rows are woken.

use crate::dictionary;
use crate::dml::Ask;
use crate::error::{Error, PositionedError, Result};
use crate::exec::Exec;
use crate::result::{Rows, StatementKind, StatementResult};
use crate::shared::Shared;
use crate::wait::{CancelHandle, WaitCell, WaitEnd};
use sqlparser::ast;
use std::cell::OnceCell;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tdlite_parser::{parse_request, Consume, ConsumeWait, Spanned, Statement};
use tdlite_storage::table::Table;
use tdlite_storage::transaction::Savepoint;
use tdlite_storage::types::Value;
use tdlite_storage::{StorageError, Transaction};

mod lease;
mod spl;

/// How many times a consumer that finds its queue empty yields the CPU (re-checking the queue
/// each time) before it sleeps in the delayed state. A producer that commits meanwhile hands
/// it the row without a futex wake-up and two context switches; measured in
/// `tests/src/bin/bench/concurrent.rs` (docs/benchmarks.md), this is what keeps 8 consumers on 2
/// cores as fast as one when every row must be handed to a waiting consumer.
const SPIN_YIELDS: usize = 8;

/// How many selective tries in a row may be made stale by rows coming in before one is made
/// under the waiter registry instead (as a plain consume's always is): a selective consumer
/// on a busy queue then still goes to sleep rather than walk again and again.
const SELECTIVE_RETRIES: u32 = 3;

/// How transactions begin and end in a session (docs/isolation.md, Session modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SessionMode {
    /// Teradata ("BTET") mode, the default: implicit transactions per request, `BT … ET`.
    #[default]
    Teradata,
    /// ANSI mode: a transaction runs until `COMMIT` or `ROLLBACK`.
    Ansi,
}

/// Whether the request running uses its prepared request's plan cache (plan_cache.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plans {
    /// No cache: none, or `Session::set_plan_cache(false)`.
    Off,
    /// For every block it keeps.
    On,
    /// Only for blocks run per row of an enclosing query (a text's first run).
    ForRowsOnly,
}

/// A connection-like handle: one open transaction at a time, used from one thread.
pub struct Session {
    shared: Arc<Shared>,
    id: u64,
    mode: SessionMode,
    txn: Option<Transaction>,
    bt_depth: u32,
    ddl_in_bt: bool,
    /// How long a consume waits on an empty queue unless its statement says (docs/queues.md).
    consume_wait: ConsumeWait,
    /// Strict mode: tdlite's extensions are refused (docs/queues.md).
    strict: bool,
    /// How long a request may run before it is stopped with 9920 (interrupt.rs).
    statement_timeout: Option<Duration>,
    /// The most bytes one intermediate result may take (2646 past it; interrupt.rs).
    spool: usize,
    cancel: CancelHandle,
    user: String,
    /// When the session began, µs since the epoch (`HELP SESSION`'s logon date and time).
    logon_us: i64,
    /// The default database set by `DATABASE x`; `None` for the user's own.
    database: Option<String>,
    /// How many macros are running inside one another now (EXEC).
    macro_depth: usize,
    /// The parameter values of the request being run (empty outside `execute_prepared`).
    params: Vec<Value>,
    /// The plan cache of the prepared request last run (see plan_cache.rs), kept after the
    /// run so that running it again clones no handle; used only while `plans_on` is not
    /// `Plans::Off`.
    plans: Option<Arc<crate::plan_cache::PlanCache>>,
    /// Whether the running request uses its plan cache.
    plans_on: Plans,
    /// `Session::set_plan_cache(false)` was called.
    plan_cache_off: bool,
    /// Requests kept by their text (requests.rs).
    requests: crate::requests::Requests,
    /// The parameter sets a batched INSERT's VALUES row stands for (`execute_batch`); empty
    /// otherwise.
    param_rows: Vec<Vec<Value>>,
    /// `SET QUERY_BAND`'s bands (`GetQueryBand()`).
    bands: crate::query_band::QueryBands,
    /// The last consume select list of plain columns that was bound: (table id, select list,
    /// bound list). Such a list depends only on the table's columns, and a table id is never
    /// reused (ALTER and re-CREATE make a new table), so the same consume reuses it.
    consume_list: Option<(u64, Vec<ast::SelectItem>, Arc<crate::dml::ConsumeList>)>,
    /// The last selective consume's bound condition (see [`KeptFilter`]).
    consume_filter: Option<KeptFilter>,
    /// The table the last consume's name resolved to: (catalog version, name, default
    /// database, table). Reused while the catalog's version is the same (no table created,
    /// dropped or restored since), as the lookup would give the same answer.
    consume_table: Option<ConsumeTarget>,
    /// The session's last transaction, ended, to be started again for the next one
    /// (`Transaction::restart`: it keeps its handles of the storage and of the tables it
    /// changed, so a consume writes no shared reference count, and its undo list's buffer).
    /// A table dropped meanwhile stays in memory until the restart lets its handle go (or the
    /// session ends), as the consume table's cache already holds one.
    spare: Option<Transaction>,
    /// Whether correlated subqueries may run once as a join (decorrelate.rs), and how many
    /// did.
    decorrelation: (bool, std::cell::Cell<u64>),
    /// It took a lease (docs/queues.md, Leases): its end gives its leases back.
    leased: bool,
    /// The leases the running request took: given back if the request fails (its results,
    /// the lease numbers among them, never reach the client).
    request_leases: Vec<(Arc<Table>, u64)>,
}

/// What `Session::consume_attempts` takes from: the queue, the bound select list, `TOP n`
/// and the selective consume's condition.
type ConsumeArgs<'a> = (
    &'a Arc<Table>,
    &'a crate::dml::ConsumeList,
    (
        usize,
        Option<&'a crate::consume_filter::ConsumeFilter>,
        Option<i64>,
    ),
);

/// See `Session::consume_table`.
type ConsumeTarget = (
    u64,
    ast::ObjectName,
    Option<String>,
    Arc<Table>,
    Option<String>,
);

impl Session {
    pub(crate) fn new(shared: Arc<Shared>, id: u64) -> Self {
        Session {
            shared,
            id,
            mode: SessionMode::Teradata,
            txn: None,
            bt_depth: 0,
            ddl_in_bt: false,
            consume_wait: ConsumeWait::Forever,
            strict: false,
            statement_timeout: None,
            spool: crate::interrupt::DEFAULT_SPOOL,
            cancel: CancelHandle::default(),
            user: "TDLITE".to_string(),
            logon_us: chrono::Utc::now().timestamp_micros(),
            database: None,
            macro_depth: 0,
            params: Vec::new(),
            plans: None,
            plans_on: Plans::Off,
            plan_cache_off: false,
            requests: Default::default(),
            param_rows: Vec::new(),
            bands: Default::default(),
            consume_list: None,
            consume_filter: None,
            consume_table: None,
            spare: None,
            decorrelation: (true, std::cell::Cell::new(0)),
            leased: false,
            request_leases: Vec::new(),
        }
    }

    /// Whether a correlated subquery of the shapes tdlite can decorrelate runs once for all
    /// the rows it is correlated with, as a join (`true`, the default), or once per row. The
    /// answers are the same; this is for comparing the two, or for ruling the optimisation
    /// out when an answer looks wrong.
    pub fn set_decorrelation(&mut self, on: bool) {
        self.decorrelation.0 = on;
    }

    /// How many correlated subqueries this session has run once as a join so far (see
    /// [`Session::set_decorrelation`]).
    pub fn decorrelated_subqueries(&self) -> u64 {
        self.decorrelation.1.get()
    }

    /// Whether requests run in this session keep their SELECT blocks bound between executions
    /// (on by default; see `Prepared::plan_cache_hits`): prepared requests, and requests run
    /// as text, which the session keeps by their text (its 128 most recently used). Off, every
    /// execution binds afresh: for tests that compare both ways.
    pub fn set_plan_cache(&mut self, on: bool) {
        self.plan_cache_off = !on;
    }

    /// This session's number (unique in its database; `HELP LOCKS` shows it).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The session mode.
    pub fn mode(&self) -> SessionMode {
        self.mode
    }

    /// Switches the session mode, as `SET SESSION TRANSACTION ANSI|BTET` does.
    ///
    /// # Errors
    /// 9918 if a transaction is open (end it first).
    pub fn set_mode(&mut self, mode: SessionMode) -> Result<()> {
        // an ANSI request opens its transaction up front; one that did nothing is no
        // transaction to speak of
        if self.bt_depth == 0 && self.txn.as_ref().is_some_and(|t| !t.has_changes()) {
            self.abort();
        }
        if self.txn.is_some() || self.bt_depth > 0 {
            return Err(Error::ModeChangeInTransaction);
        }
        if mode != self.mode {
            // a kept consume filter was bound in the old mode (literals' case specificity)
            self.consume_filter = None;
        }
        self.mode = mode;
        Ok(())
    }

    /// Bounds how long `SELECT AND CONSUME` waits on an empty queue (`None`: forever, as in
    /// Teradata). When the bound expires the statement fails with 9904 and consumes nothing.
    /// (`SET SESSION CONSUME WAIT s SECONDS | WAIT FOREVER` says the same in SQL; a
    /// statement's own wait clause overrides both.)
    pub fn set_consume_timeout(&mut self, timeout: Option<Duration>) {
        self.consume_wait = match timeout {
            Some(d) => ConsumeWait::For(d),
            None => ConsumeWait::Forever,
        };
    }

    /// Strict mode (docs/queues.md): when on, every tdlite extension in request text (batch
    /// and bounded consumes, `SET SESSION CONSUME`, the `TEXT` type, `!=`, …) is refused with
    /// 3706 at the extension, so a request that runs in strict mode is Teradata's SQL. Off by
    /// default. Settings made through this API (timeouts) are not refused. It applies to
    /// requests parsed from then on (the session's kept request texts are forgotten); a
    /// [`Prepared`](crate::prepared::Prepared) made before keeps the text it was made from.
    pub fn set_strict(&mut self, on: bool) {
        if self.strict != on {
            self.requests.clear();
        }
        self.strict = on;
    }

    /// True in strict mode ([`Session::set_strict`]).
    pub fn is_strict(&self) -> bool {
        self.strict
    }

    /// The session's default database: the one `DATABASE x` set, else the user's own.
    pub fn default_database(&self) -> &str {
        self.database.as_deref().unwrap_or(&self.user)
    }

    /// Bounds how long a request may run (`None`, the default: no bound). A request still
    /// running when the bound expires stops at its next check (interrupt.rs) with 9920 and is
    /// undone as any failing request is; a consume's wait on an empty queue is bounded by
    /// [`Session::set_consume_timeout`] instead. A batch (`execute_batch`) is bounded per
    /// group of rows it runs together.
    pub fn set_statement_timeout(&mut self, timeout: Option<Duration>) {
        self.statement_timeout = timeout;
    }

    /// The most memory one intermediate result of a request may take, in bytes; 4 GiB unless
    /// set. Checked at every step whose result can outgrow its inputs: a join's rows, a set
    /// operation's, grouping sets', a recursive query's rows, a select list's computed columns
    /// together, a literal repeated on every row, `||`, a built-in's character results. A
    /// step that would need more fails with 2646 ("No more spool space", as Teradata says when
    /// a request outgrows its spool) before it allocates, and the request is undone; the
    /// session goes on.
    pub fn set_spool_space(&mut self, bytes: usize) {
        self.spool = bytes;
    }

    /// A handle that cancels, from another thread, this session's waiting consume (9905) or
    /// running request (3110).
    pub fn cancel_handle(&self) -> CancelHandle {
        self.cancel.clone()
    }

    /// True while a transaction is open that a later request continues: `BT` in Teradata
    /// mode, any started transaction in ANSI mode.
    pub fn in_explicit_transaction(&self) -> bool {
        self.bt_depth > 0 || (self.mode == SessionMode::Ansi && self.txn.is_some())
    }

    /// True if ending the session now would roll something back: an open `BT` in Teradata
    /// mode, or, in ANSI mode, a transaction that changed or locked anything since its start.
    /// (An ANSI request opens its transaction up front, so `in_explicit_transaction` is true
    /// after any request, even one that changed nothing.)
    pub fn has_uncommitted_work(&self) -> bool {
        self.bt_depth > 0
            || (self.mode == SessionMode::Ansi
                && self.txn.as_ref().is_some_and(|t| t.has_changes()))
    }

    /// Executes one request (one or more statements separated by `;`) and returns one result
    /// per statement.
    ///
    /// # Errors
    /// The first failing statement's error, with its position and statement number. In
    /// Teradata mode the whole transaction has then been rolled back and no result of the
    /// request is returned; in ANSI mode only the request was undone, unless the error says
    /// the transaction was (2631, 7423, a failed DDL statement or commit).
    pub fn execute(
        &mut self,
        sql: &str,
    ) -> std::result::Result<Vec<StatementResult>, PositionedError> {
        crate::stack::for_text(sql, || self.execute_text(sql))
    }

    /// [`Session::execute`] on a stack deep enough for `sql`.
    fn execute_text(
        &mut self,
        sql: &str,
    ) -> std::result::Result<Vec<StatementResult>, PositionedError> {
        if let Some(p) = self.requests.get(sql) {
            // one kept by prepare_cached may have markers: that goes the way of any text
            if p.parameters == 0 {
                return self.execute_prepared_here(&p, &[]);
            }
        }
        let stmts = match self.parse(sql)? {
            Some(s) => s,
            // a null request is legal and changes nothing (not even an open transaction)
            None => return Ok(Vec::new()),
        };
        if let [st] = stmts.as_slice() {
            if let Statement::ExecMacro { name, args, .. } = &st.statement {
                return self.exec_macro(name, args);
            }
            if let Statement::Call { name, args, .. } = &st.statement {
                return self.call_procedure(name, args);
            }
        }
        if tdlite_parser::parameter_count(sql) == 0 && sql.len() <= crate::requests::MAX_TEXT {
            // kept (requests.rs): the next run of this text is not parsed again
            let p = Arc::new(crate::prepared::Prepared::new(stmts, sql));
            self.requests.keep(sql, p.clone());
            // the first run keeps no plan of the request's blocks (most texts run once, and
            // binding for the cache costs a copy of each block; a second run starts keeping
            // them), only of those run per row of an enclosing query: a correlated
            // subquery's, bound once for its rows
            return self.run_prepared(&p, &[], false);
        }
        self.params.clear();
        self.run_request(&stmts)
    }

    /// `sql` prepared (see [`Session::prepare`]), kept by its text in this session: a text
    /// prepared or run before comes back without being parsed again, with the plans its
    /// earlier executions kept (the session keeps its 128 most recently used texts).
    ///
    /// # Errors
    /// As [`Session::prepare`].
    pub fn prepare_cached(
        &mut self,
        sql: &str,
    ) -> std::result::Result<Arc<crate::prepared::Prepared>, PositionedError> {
        if let Some(p) = self.requests.get(sql) {
            return Ok(p);
        }
        let p = Arc::new(self.prepare(sql)?);
        self.requests.keep(sql, p.clone());
        Ok(p)
    }

    /// `EXEC m(args)`: the macro's statements, with the arguments in place, as one request.
    fn exec_macro(
        &mut self,
        name: &ast::ObjectName,
        args: &[(Option<String>, String)],
    ) -> std::result::Result<Vec<StatementResult>, PositionedError> {
        let fail = |error: Error| PositionedError {
            error,
            location: None,
            statement: 1,
        };
        if self.macro_depth >= crate::macros::MAX_DEPTH {
            return Err(fail(Error::RecursionLimit(format!(
                "macros EXEC one another more than {} deep",
                crate::macros::MAX_DEPTH
            ))));
        }
        let clock = OnceCell::new();
        let now = &clock;
        let expanded = self
            .exec(now)
            .must_get_macro(name)
            .and_then(|(_, def)| crate::macros::expand(&def, args))
            .map_err(fail)?;
        self.macro_depth += 1;
        let result = self.execute(&expanded);
        self.macro_depth -= 1;
        result
    }

    /// Parses and checks a request for [`Session::execute_prepared`]: it can then run many
    /// times, with `?` parameters, without being parsed again. Any session of the database
    /// may run it.
    ///
    /// # Errors
    /// The request's parse errors (3706 …), as [`Session::execute`] reports them; an empty
    /// request is 3706 here, since there is nothing to run.
    pub fn prepare(
        &mut self,
        sql: &str,
    ) -> std::result::Result<crate::prepared::Prepared, PositionedError> {
        let levels = tdlite_parser::limits::operator_bound(sql);
        crate::stack::for_bound(levels, || self.prepare_text(sql))
    }

    /// [`Session::prepare`] on a stack deep enough for `sql`.
    fn prepare_text(
        &mut self,
        sql: &str,
    ) -> std::result::Result<crate::prepared::Prepared, PositionedError> {
        let Some(statements) = self.parse(sql)? else {
            return Err(PositionedError {
                error: Error::Parse(tdlite_parser::ParseError::syntax(
                    "expected a statement",
                    tdlite_parser::Location::new(1, 1),
                )),
                location: Some(tdlite_parser::Location::new(1, 1)),
                statement: 1,
            });
        };
        Ok(crate::prepared::Prepared::new(statements, sql))
    }

    /// Runs a prepared request with one value per `?`, in order, as [`Session::execute`] runs
    /// a request.
    ///
    /// # Errors
    /// 3939 if `params` does not have one value per `?`; otherwise as [`Session::execute`].
    pub fn execute_prepared(
        &mut self,
        prepared: &crate::prepared::Prepared,
        params: &[Value],
    ) -> std::result::Result<Vec<StatementResult>, PositionedError> {
        crate::stack::for_bound(prepared.levels, || {
            self.execute_prepared_here(prepared, params)
        })
    }

    /// [`Session::execute_prepared`] on a stack deep enough for the request.
    fn execute_prepared_here(
        &mut self,
        prepared: &crate::prepared::Prepared,
        params: &[Value],
    ) -> std::result::Result<Vec<StatementResult>, PositionedError> {
        if params.len() != prepared.parameters {
            return Err(parameter_count_error(prepared, params.len()));
        }
        periods_in_order(params)?;
        // a lone EXEC runs its macro: the values go into its arguments as literals (a macro
        // runs as its own request, and cannot see the prepared request's parameters)
        if let [st] = &*prepared.statements {
            if let Statement::ExecMacro { name, args, .. } = &st.statement {
                let texts: Vec<&str> = args.iter().map(|(_, t)| t.as_str()).collect();
                let filled = with_values(&texts, params)?;
                let args: Vec<(Option<String>, String)> = args
                    .iter()
                    .zip(filled)
                    .map(|((n, _), t)| (n.clone(), t))
                    .collect();
                return self.exec_macro(name, &args);
            }
            // a lone CALL likewise: the values go into its arguments as literals
            if let Statement::Call { name, args, .. } = &st.statement {
                let texts: Vec<&str> = args.iter().map(String::as_str).collect();
                let args = with_values(&texts, params)?;
                return self.call_procedure(name, &args);
            }
        }
        self.run_prepared(prepared, params, true)
    }

    /// Runs a prepared request (its lone EXEC handled by the caller) with `params`, through
    /// its plan cache where the session's cache is on: for every block if `plans`, else only
    /// for blocks run per row of an enclosing query (`Plans::ForRowsOnly`).
    fn run_prepared(
        &mut self,
        prepared: &crate::prepared::Prepared,
        params: &[Value],
        plans: bool,
    ) -> std::result::Result<Vec<StatementResult>, PositionedError> {
        self.params.clear();
        self.params.extend_from_slice(params);
        // (a text's first run keeps the plans of blocks run per row of an enclosing query
        // alone: a correlated subquery's, bound once instead of for each row)
        let on = match (self.plan_cache_off, plans) {
            (true, _) => Plans::Off,
            (false, true) => Plans::On,
            (false, false) => Plans::ForRowsOnly,
        };
        // the same prepared request run again keeps its handle: no reference count written
        // per run (many sessions may run one prepared request)
        if on != Plans::Off
            && !self
                .plans
                .as_ref()
                .is_some_and(|p| Arc::ptr_eq(p, &prepared.plans))
        {
            self.plans = Some(prepared.plans.clone());
        }
        let was = std::mem::replace(&mut self.plans_on, on);
        let out = self.run_request(&prepared.statements);
        self.plans_on = was;
        self.params.clear();
        out
    }

    /// Runs a prepared request once per parameter set. A lone `INSERT … VALUES (…)` whose row
    /// is the markers `?1, ?2, …` in order, possibly among expressions that are the same for
    /// every set (literals, CURRENT_TIMESTAMP: evaluated once, so every row of the request
    /// shares one CURRENT_TIMESTAMP as in one Teradata request), runs once per 10,000 sets, its
    /// VALUES row standing for every set (each column built at once, no syntax per row, each
    /// value converted as it would be alone); any other request runs once per set. Returns the last request's results, the activity
    /// count of its last statement being the sum over all the sets.
    ///
    /// # Errors
    /// 3939 if a set does not have one value per `?`; the first failing request's error (the
    /// sets before it stay run: wrap the call in a transaction for all or nothing).
    pub fn execute_batch(
        &mut self,
        prepared: &crate::prepared::Prepared,
        sets: Vec<Vec<Value>>,
    ) -> std::result::Result<Vec<StatementResult>, PositionedError> {
        crate::stack::for_bound(prepared.levels, || self.execute_batch_here(prepared, sets))
    }

    /// [`Session::execute_batch`] on a stack deep enough for the request.
    fn execute_batch_here(
        &mut self,
        prepared: &crate::prepared::Prepared,
        sets: Vec<Vec<Value>>,
    ) -> std::result::Result<Vec<StatementResult>, PositionedError> {
        if let Some(bad) = sets.iter().find(|s| s.len() != prepared.parameters) {
            return Err(parameter_count_error(prepared, bad.len()));
        }
        for set in &sets {
            periods_in_order(set)?;
        }
        let mut last = Vec::new();
        let mut changed = 0u64;
        if crate::prepared::is_batch_insert(prepared) {
            let mut sets = sets.into_iter();
            loop {
                self.param_rows.clear();
                self.param_rows
                    .extend(sets.by_ref().take(crate::prepared::BATCH_ROWS));
                if self.param_rows.is_empty() {
                    break;
                }
                let out = self.run_request(&prepared.statements);
                self.param_rows.clear();
                last = out?;
                changed += last.iter().map(|r| r.activity_count).sum::<u64>();
            }
        } else {
            for set in &sets {
                last = self.execute_prepared(prepared, set)?;
                changed += last.iter().map(|r| r.activity_count).sum::<u64>();
            }
        }
        if let Some(r) = last.last_mut() {
            r.activity_count = changed;
        }
        Ok(last)
    }

    /// Parses a request; `None` for a null request. A parse error ends the request as
    /// `execute` reports it.
    fn parse(&mut self, sql: &str) -> std::result::Result<Option<Vec<Spanned>>, PositionedError> {
        let parsed = parse_request(sql).and_then(|mut s| {
            if self.strict {
                tdlite_parser::strict::check(sql, &s)?;
            }
            // CTEs named once become derived tables once, here, not at every run
            for st in &mut s {
                if let Statement::Sql(sql) = &mut st.statement {
                    crate::cte_inline::inline_statement(sql);
                }
            }
            Ok(s)
        });
        match parsed {
            Ok(s) => Ok(Some(s)),
            Err(e) if e.kind == tdlite_parser::ParseErrorKind::EmptyRequest => Ok(None),
            Err(e) => {
                let (location, statement) = (Some(e.location), e.statement);
                self.fail_request(None, false);
                let error = match (self.mode, &e.kind) {
                    // the same rule has its own number in ANSI mode
                    (SessionMode::Ansi, tdlite_parser::ParseErrorKind::DdlNotLast) => {
                        Error::DdlNotLastAnsi
                    }
                    _ => e.into(),
                };
                Err(PositionedError {
                    error,
                    location,
                    statement,
                })
            }
        }
    }

    /// Runs parsed statements as one request (see [`Session::execute`]).
    fn run_request(
        &mut self,
        stmts: &[Spanned],
    ) -> std::result::Result<Vec<StatementResult>, PositionedError> {
        self.request_leases.clear();
        if let Err((error, i)) = check_request(stmts) {
            self.fail_request(None, false);
            return Err(PositionedError {
                error,
                location: Some(stmts[i].location),
                statement: i + 1,
            });
        }
        // a cancel or the statement timeout stops it (interrupt.rs)
        let _watch = self.cancel.watch(self.statement_timeout, self.spool);
        // CURRENT_TIMESTAMP: read from the clock when the request first needs it, then the
        // same for the whole request
        let clock = OnceCell::new();
        let now = &clock;
        // ANSI mode: the request's savepoint (a request undoes only itself)
        let mut request_start = match self.mode {
            SessionMode::Ansi => Some((self.txn().savepoint(), self.ddl_in_bt)),
            SessionMode::Teradata => None,
        };
        let mut results = Vec::with_capacity(stmts.len());
        for (i, st) in stmts.iter().enumerate() {
            match self.run_statement(st, now) {
                Ok(r) => {
                    if matches!(r.kind, StatementKind::Commit | StatementKind::Rollback) {
                        request_start = Some((Savepoint::START, false));
                    }
                    results.push(r)
                }
                Err(error) => {
                    let whole = error.ends_transaction() || st.statement.is_ddl();
                    self.fail_request(request_start, whole);
                    let at = crate::error::name_location(st, &error).unwrap_or(st.location);
                    return Err(PositionedError {
                        error,
                        location: Some(at),
                        statement: i + 1,
                    });
                }
            }
        }
        if self.mode == SessionMode::Teradata && self.bt_depth == 0 {
            if let Err(error) = self.commit() {
                self.release_request_leases();
                let last = stmts.len() - 1;
                return Err(PositionedError {
                    error,
                    location: Some(stmts[last].location),
                    statement: last + 1,
                });
            }
        }
        // the request's results, lease numbers among them, reach the client
        self.request_leases.clear();
        Ok(results)
    }

    /// Undoes a failed request: the whole transaction in Teradata mode or when `whole`, else
    /// (ANSI mode) back to the request's savepoint (and whether DDL was pending then).
    fn fail_request(&mut self, request_start: Option<(Savepoint, bool)>, whole: bool) {
        match (self.mode, request_start) {
            (SessionMode::Ansi, Some((sp, ddl_before))) if !whole => {
                self.ddl_in_bt = ddl_before;
                if let Some(t) = self.txn.as_mut() {
                    let outcome = t.rollback_to(sp);
                    self.shared.publish(outcome);
                }
            }
            (SessionMode::Ansi, None) if !whole => {}
            _ => self.abort(),
        }
        self.release_request_leases();
    }

    fn txn(&mut self) -> &mut Transaction {
        let storage = &self.shared.storage;
        let id = self.id;
        let spare = &mut self.spare;
        self.txn.get_or_insert_with(|| {
            if let Some(mut t) = spare.take() {
                if t.restart() {
                    return t;
                }
            }
            let mut t = Transaction::begin(storage);
            t.set_session(id);
            t
        })
    }

    /// Commits the open transaction. If it cannot be made durable it is rolled back instead.
    fn commit(&mut self) -> Result<()> {
        self.bands.end_transaction();
        self.bt_depth = 0;
        self.ddl_in_bt = false;
        if let Some(mut t) = self.txn.take() {
            let committed = t.commit_in_place();
            if let Some(side) = t.take_side_outcome() {
                self.shared.publish(side);
            }
            self.spare = Some(t);
            match committed {
                Ok(outcome) => self.shared.publish(outcome),
                Err(failed) => {
                    self.shared.publish(*failed.outcome);
                    return Err(failed.error.into());
                }
            }
            // ON COMMIT DELETE ROWS: the session's volatile tables (and instances of global
            // temporary tables) that say so are emptied
            let catalog = &self.shared.storage.catalog;
            let tables = if catalog.has_volatile() {
                catalog.volatile_tables(self.id, true)
            } else {
                Vec::new()
            };
            for t in tables {
                if t.schema.volatile.map(|v| v.on_commit)
                    == Some(tdlite_storage::catalog::VolatileCommit::DeleteRows)
                {
                    t.truncate_volatile();
                }
            }
        }
        Ok(())
    }

    /// Wakes the consumers of rows that transactions run on this one's behalf published
    /// (expiry's moves to a dead-letter table, `Transaction::take_side_outcome`).
    fn publish_side(&mut self) {
        if let Some(side) = self.txn.as_mut().and_then(Transaction::take_side_outcome) {
            self.shared.publish(side);
        }
    }

    fn abort(&mut self) {
        self.bands.end_transaction();
        if let Some(mut t) = self.txn.take() {
            let outcome = t.rollback_in_place();
            if let Some(side) = t.take_side_outcome() {
                self.shared.publish(side);
            }
            self.spare = Some(t);
            self.shared.publish(outcome);
        }
        self.bt_depth = 0;
        self.ddl_in_bt = false;
    }

    /// Runs one statement: its LOCKING modifiers, then the statement, again and again while
    /// it meets rows that other transactions changed (undone to its savepoint each time).
    fn run_statement(&mut self, st: &Spanned, now: &OnceCell<i64>) -> Result<StatementResult> {
        if !st.locking.is_empty() {
            let shared = self.shared.clone();
            let db = self.database.clone();
            let (user, id) = (self.user.clone(), self.id);
            crate::locking::take_locks(
                &shared.storage,
                (db.as_deref(), &user, id),
                self.txn(),
                st,
            )?;
        }
        for retry in 0.. {
            // a statement that opens the transaction rolls back to its start
            let sp = Some(
                self.txn
                    .as_ref()
                    .map_or(Savepoint::START, Transaction::savepoint),
            );
            let ran = self.run(st, now);
            self.publish_side();
            let err = match retried(ran, retry) {
                Ok(e) => e,
                Err(r) => return r,
            };
            let (Some(sp), Some(t)) = (sp, self.txn.as_mut()) else {
                return Err(Error::Internal(format!("{err} outside a transaction")));
            };
            let outcome = t.rollback_to(sp);
            self.shared.publish(outcome);
            if let StorageError::RowBusy { table, holder } = err {
                self.txn().wait_for(holder, &table)?;
            }
        }
        unreachable!("the retries are counted by an unbounded range")
    }

    fn exec<'a>(&'a mut self, now: &'a OnceCell<i64>) -> Exec<'a> {
        self.txn();
        let Some(txn) = self.txn.as_mut() else {
            unreachable!("txn() just opened it")
        };
        Exec {
            txn,
            shared: &self.shared,
            clock: now,
            user: &self.user,
            session: self.id,
            database: self.database.as_deref(),
            params: &self.params,
            param_rows: &self.param_rows,
            query_band: self.bands.text(),
            outer: Vec::new(),
            nearer: Vec::new(),
            corr: None,
            agg_input: None,
            placeholders: None,
            deferral: None,
            random_uses: 0,
            decorrelation: (self.decorrelation.0, &self.decorrelation.1),
            snap: std::cell::OnceCell::new(),
            volatile_uses: std::cell::Cell::new(0),
            ctes: Vec::new(),
            windows: None,
            view_depth: 0,
            view_kept: false,
            made_now: 0,
            views_read_early: false,
            plans: self
                .plans
                .as_deref()
                .filter(|_| self.plans_on != Plans::Off),
            plans_for_rows_only: self.plans_on == Plans::ForRowsOnly,
            recording: std::cell::RefCell::new(None),
            names_read: None,
            sample_ids: false,
            warning: None,
            ansi: self.mode == SessionMode::Ansi,
        }
    }

    fn run(&mut self, st: &Spanned, now: &OnceCell<i64>) -> Result<StatementResult> {
        let ansi = self.mode == SessionMode::Ansi;
        let s = &st.statement;
        // after DDL only ET (Teradata, inside BT) or COMMIT (ANSI) may follow; ABORT/ROLLBACK
        // are always allowed
        if self.ddl_in_bt {
            match (ansi, s) {
                (_, Statement::Rollback { .. })
                | (false, Statement::EndTransaction)
                | (true, Statement::Commit) => {}
                (false, _) => return Err(Error::DdlNotLast),
                (true, _) => return Err(Error::DdlNotLastAnsi),
            }
        }
        if s.is_ddl() && (self.bt_depth > 0 || ansi) {
            self.ddl_in_bt = true;
        }
        Ok(match s {
            Statement::BeginTransaction | Statement::EndTransaction if ansi => {
                return Err(Error::BtEtInAnsiMode)
            }
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
            Statement::Commit if ansi => {
                self.commit()?;
                StatementResult::status(StatementKind::Commit)
            }
            Statement::Commit => return Err(Error::CommitInTeradataMode),
            Statement::Rollback {
                message, condition, ..
            } => {
                // `ABORT … WHERE c`: only if c is true (of some row of the FROM tables)
                if let Some(q) = condition {
                    let rows = match self.exec(now).run_query(q) {
                        // an aggregate condition (`ABORT FROM t WHERE SUM(x) > 100`, which
                        // Teradata allows): the condition of the one group
                        Err(Error::AggregateInWhere) => {
                            self.exec(now).run_query(&condition_as_having(q))?
                        }
                        other => other?,
                    };
                    if rows.batches.iter().all(|b| b.num_rows() == 0) {
                        return Ok(StatementResult::status(StatementKind::AbortNotTaken));
                    }
                }
                self.abort();
                if !ansi {
                    return Err(Error::UserAbort(message.clone()));
                }
                StatementResult::status(StatementKind::Rollback)
            }
            Statement::SetSessionMode { ansi: to_ansi } => {
                self.set_mode(if *to_ansi {
                    SessionMode::Ansi
                } else {
                    SessionMode::Teradata
                })?;
                StatementResult::status(StatementKind::SetSession)
            }
            Statement::SetConsumeWait(wait) => {
                self.consume_wait = *wait;
                StatementResult::status(StatementKind::SetSession)
            }
            Statement::LockOnly => StatementResult::status(StatementKind::Lock),
            // Query bands tag requests for workload management, which tdlite does not have:
            // kept for GetQueryBand()
            Statement::QueryBand {
                text,
                update,
                session,
            } => {
                self.bands.set(text.as_deref(), *update, *session);
                StatementResult::status(StatementKind::QueryBand)
            }
            // Optimizer diagnostics change plans' costs and EXPLAIN's notes, never an answer.
            Statement::Diagnostic(_) => StatementResult::status(StatementKind::Diagnostic),
            // kept for HELP STATISTICS; the planner does not use them
            Statement::Statistics {
                drop,
                table,
                groups,
            } => self.exec(now).statistics(*drop, table, groups)?,
            Statement::SessionOption(o) => crate::session_option::apply(o)?,
            Statement::Database(name) => {
                let (catalog, registry) = (&self.shared.storage.catalog, &self.shared.registry);
                if !dictionary::database_exists(catalog, registry, &self.user, name) {
                    return Err(Error::DatabaseNotFound(name.clone()));
                }
                // the user's own database is where unqualified tables live
                self.database = (!name.eq_ignore_ascii_case(&self.user)).then(|| name.clone());
                StatementResult::status(StatementKind::Database)
            }
            Statement::HelpDatabase(name) => StatementResult::rows(
                StatementKind::Help,
                dictionary::help_database(
                    &self.shared.storage.catalog,
                    &self.shared.registry,
                    &self.user,
                    name,
                )?,
            ),
            Statement::CreateMacro {
                name,
                params,
                body,
                replace,
                ..
            } => {
                self.exec(now)
                    .create_macro(name, params, body, *replace, &st.text)?;
                StatementResult::status(if *replace {
                    StatementKind::ReplaceMacro
                } else {
                    StatementKind::CreateMacro
                })
            }
            Statement::DropMacro(name) => self.exec(now).drop_macro(name)?,
            Statement::CreateProcedure {
                name,
                params,
                body,
                body_span,
                replace,
                ..
            } => self.exec(now).create_procedure(
                name,
                params,
                (body, body_span.0),
                *replace,
                &st.text,
            )?,
            Statement::DropProcedure(name) => self.exec(now).drop_procedure(name)?,
            Statement::ShowProcedure(name) => self.exec(now).show_procedure(name)?,
            // CALL alone is run in `execute`; inside a request with more statements it would
            // need a request inside a request
            Statement::Call { .. } => {
                return Err(Error::Unsupported(
                    "CALL with other statements in one request (CALL a procedure alone)".into(),
                ))
            }
            Statement::DropTemporary { name, all } => {
                // (an instance is never a queue: no consumer waits on what is dropped)
                self.exec(now).drop_temporary(name, *all)?;
                StatementResult::status(StatementKind::DropTable)
            }
            Statement::ShowMacro(name) => self.exec(now).show_macro(name)?,
            // EXEC alone is expanded in `execute`; inside a request with more statements it
            // would need a request inside a request
            Statement::ExecMacro { .. } => {
                return Err(Error::Unsupported(
                    "EXEC with other statements in one request (EXEC a macro alone)".into(),
                ))
            }
            Statement::Admin(a) => {
                let (result, dropped) = self.exec(now).admin(a)?;
                for t in dropped {
                    self.wake_dropped(&t);
                }
                result
            }
            Statement::HelpSession => {
                let info = dictionary::SessionInfo {
                    user: &self.user,
                    database: self.database.as_deref().unwrap_or(&self.user),
                    logon_us: self.logon_us,
                    semantics: match self.mode {
                        SessionMode::Teradata => "Teradata",
                        SessionMode::Ansi => "ANSI",
                    },
                };
                StatementResult::rows(StatementKind::Help, dictionary::help_session(&info)?)
            }
            Statement::HelpVolatileTable => StatementResult::rows(
                StatementKind::Help,
                dictionary::help_volatile_table(&self.shared.storage.catalog, &self.user, self.id)?,
            ),
            Statement::HelpStatistics(name) => {
                StatementResult::rows(StatementKind::Help, self.exec(now).help_statistics(name)?)
            }
            Statement::Explain(inner) => {
                StatementResult::rows(StatementKind::Explain, self.exec(now).explain(inner)?)
            }
            Statement::EndLease {
                table,
                leases,
                acknowledge,
            } => self.end_lease(table, leases, *acknowledge, now)?,
            Statement::Subscriber {
                name,
                queue,
                create,
            } => {
                if let Some(t) = self.exec(now).subscriber(name, queue, *create)? {
                    self.shared.waiters.drop_table(t.id);
                }
                StatementResult::status(if *create {
                    StatementKind::CreateSubscriber
                } else {
                    StatementKind::DropSubscriber
                })
            }
            Statement::HelpQueue(name) => {
                let ex = self.exec(now);
                let table = ex.must_get_base_table(name)?;
                if !table.schema.queue {
                    return Err(Error::NotAQueueTable(table.schema.name.clone()));
                }
                let now_us = ex.now_us();
                let waiters = &self.shared.waiters;
                let source = crate::dbc::QueueSource {
                    txns: &self.shared.storage.txns,
                    waiting: &|id| waiters.count(id),
                    now_us: &|| now_us,
                };
                let tables = crate::dbc::with_subscribers(
                    &self.shared.storage.catalog,
                    std::iter::once(table),
                );
                let rows = crate::dbc::queue_stats(tables.into_iter(), &self.user, &source)?;
                StatementResult::rows(StatementKind::Help, rows)
            }
            Statement::HelpLocks => {
                let delayed = self.shared.waiters.delayed();
                StatementResult::rows(
                    StatementKind::Help,
                    crate::locking::help_locks(&self.shared.storage, delayed)?,
                )
            }
            Statement::CreateTable(ct) => {
                let mut ex = self.exec(now);
                ex.create_table(ct, &st.text, ansi)?;
                StatementResult::status(StatementKind::CreateTable)
            }
            Statement::CreateView {
                name,
                columns,
                query,
                replace,
            } => {
                let mut ex = self.exec(now);
                ex.create_view(name, columns, query, *replace, &st.text)?;
                StatementResult::status(if *replace {
                    StatementKind::ReplaceView
                } else {
                    StatementKind::CreateView
                })
            }
            Statement::CreateIndex {
                name,
                unique,
                columns,
                table,
            } => {
                let mut ex = self.exec(now);
                let old = ex.create_index(name.as_deref(), *unique, columns, table, &st.text)?;
                self.shared.waiters.drop_table(old.id);
                StatementResult::status(StatementKind::CreateIndex)
            }
            Statement::DropIndex {
                name,
                columns,
                table,
                if_exists,
            } => {
                let mut ex = self.exec(now);
                let old = ex.drop_index(
                    name.as_deref(),
                    columns,
                    table.as_ref(),
                    *if_exists,
                    &st.text,
                )?;
                if let Some(old) = old {
                    self.shared.waiters.drop_table(old.id);
                }
                StatementResult::status(StatementKind::DropIndex)
            }
            Statement::AlterTable { name, actions } => {
                let mut ex = self.exec(now);
                let old = ex.alter_table(name, actions, &st.text, ansi)?;
                self.shared.waiters.drop_table(old.id);
                StatementResult::status(StatementKind::AlterTable)
            }
            Statement::HelpTable(name) => {
                StatementResult::rows(StatementKind::Help, self.exec(now).help_table(name, None)?)
            }
            Statement::HelpIndex(name) => {
                StatementResult::rows(StatementKind::Help, self.exec(now).help_index(name)?)
            }
            Statement::HelpMacro(name) => {
                StatementResult::rows(StatementKind::Help, self.exec(now).help_macro(name)?)
            }
            Statement::HelpColumn { table, columns } => StatementResult::rows(
                StatementKind::Help,
                self.exec(now).help_column(table, columns.as_deref())?,
            ),
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
                let target = self.exec(now).must_get_base_table(table)?;
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
                crate::dml::check_arity(batch.num_columns(), targets.len())?;
                // Teradata mode INSERT … SELECT into a SET table drops duplicate rows silently;
                // the consumed row is then gone (consumed, not inserted), as in Teradata. ANSI
                // mode refuses them (2802).
                let skip = self.mode != SessionMode::Ansi
                    && target.schema.kind == tdlite_storage::catalog::TableKind::Set;
                let n = self
                    .exec(now)
                    .insert_batch(&target, &targets, &batch, skip)?;
                StatementResult::count(StatementKind::Insert, n)
            }
            Statement::Sql(sql) => self.run_sql(sql, now)?,
            // the INSERT only where the UPDATE found no row, in the same transaction
            Statement::Upsert { update, insert } => {
                self.exec(now).check_upsert(update, insert)?;
                let updated = self.run_sql(update, now)?;
                if updated.activity_count > 0 {
                    updated
                } else {
                    self.run_sql(insert, now)?
                }
            }
        })
    }

    fn run_sql(&mut self, sql: &ast::Statement, now: &OnceCell<i64>) -> Result<StatementResult> {
        let mut ex = self.exec(now);
        Ok(match sql {
            // a SAMPLE that asked for more rows than there were ends with a warning
            ast::Statement::Query(q) => {
                StatementResult::rows(StatementKind::Select, ex.run_query(q)?)
                    .warned(ex.warning.take())
            }
            ast::Statement::Insert(i) => {
                StatementResult::count(StatementKind::Insert, ex.insert(i)?)
                    .warned(ex.warning.take())
            }
            ast::Statement::Update(u) => {
                StatementResult::count(StatementKind::Update, ex.update(u)?)
            }
            ast::Statement::Delete(d) => {
                StatementResult::count(StatementKind::Delete, ex.delete(d)?)
            }
            ast::Statement::Merge(m) => StatementResult::count(StatementKind::Merge, ex.merge(m)?),
            ast::Statement::Drop {
                object_type: ast::ObjectType::View,
                names,
                if_exists,
                ..
            } => {
                for n in names {
                    match ex.drop_view(n) {
                        Ok(()) => {}
                        Err(Error::ObjectNotFound(_)) if *if_exists => {}
                        Err(e) => return Err(e),
                    }
                }
                StatementResult::status(StatementKind::DropView)
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
                    self.wake_dropped(&t);
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

    /// Tells the consumers waiting on table `t`, which this request dropped, and on its
    /// subscribers' tables (dropped with it), that it is gone (9906).
    fn wake_dropped(&self, t: &Table) {
        self.shared.waiters.drop_table(t.id);
        if t.schema.multi_consumer {
            let catalog = &self.shared.storage.catalog;
            for s in catalog.subscribers_dropping(t) {
                self.shared.waiters.drop_table(s.id);
            }
        }
    }

    /// `SELECT AND CONSUME`: take the oldest row, or wait in the delayed state until a commit
    /// makes one available, the queue is dropped, the wait is cancelled or times out.
    fn consume(&mut self, c: &Consume, now: &OnceCell<i64>) -> Result<Rows> {
        let version = self.shared.storage.catalog.version();
        // the table is taken out of its cache while the consume runs and put back after (no
        // clone: its reference count is written by every session that clones it)
        let target = match self.consume_table.take() {
            Some(t)
                if t.0 == version
                    && t.1 == c.table
                    && t.2 == self.database
                    && t.4.as_deref() == c.subscriber.as_ref().map(|s| s.0.as_str()) =>
            {
                t
            }
            _ => {
                let ex = self.exec(now);
                let q = ex.must_get_base_table(&c.table)?;
                let subscriber = c.subscriber.as_ref().map(|s| s.0.clone());
                let t = ex.consume_target(q, subscriber.as_deref())?;
                (
                    version,
                    c.table.clone(),
                    self.database.clone(),
                    t,
                    subscriber,
                )
            }
        };
        let result = self.consume_from(&target.3, c, now);
        self.consume_table = Some(target);
        result
    }

    /// A selective consume's condition bound against `table`: the last one again if it is
    /// the same condition on the same table with the same parameters (and the catalog did
    /// not change), unless it may read something a request fixes afresh (the clock, the
    /// session's user or database: [`crate::names::reads_request_values`]); else bound now and kept.
    fn consume_filter(
        &mut self,
        table: &Arc<Table>,
        cond: &ast::Expr,
        now: &OnceCell<i64>,
    ) -> Result<Arc<crate::consume_filter::ConsumeFilter>> {
        let version = self.shared.storage.catalog.version();
        // the same condition on the same table as last time: only the parameters may differ
        let same = self
            .consume_filter
            .as_ref()
            .filter(|k| k.version == version && k.table == table.id && k.cond == *cond);
        if let Some(k) = same {
            if !k.reads && k.params == self.params {
                return Ok(k.filter.clone());
            }
        }
        let same = same.is_some();
        let filter = Arc::new(self.exec(now).bind_consume_filter(table, cond)?);
        match &mut self.consume_filter {
            Some(k) if same => {
                k.params.clone_from(&self.params);
                k.filter = filter.clone();
            }
            _ => {
                self.consume_filter = Some(KeptFilter {
                    version,
                    table: table.id,
                    reads: crate::names::reads_request_values(cond),
                    cond: cond.clone(),
                    params: self.params.clone(),
                    filter: filter.clone(),
                })
            }
        }
        Ok(filter)
    }

    /// [`Session::consume`] from `table`, the queue `c` names.
    fn consume_from(
        &mut self,
        table: &Arc<Table>,
        c: &Consume,
        now: &OnceCell<i64>,
    ) -> Result<Rows> {
        if !table.schema.queue {
            return Err(Error::NotAQueueTable(table.schema.name.clone()));
        }
        let list = match &self.consume_list {
            Some((id, items, list)) if *id == table.id && *items == c.projection => list.clone(),
            _ => {
                let list = Arc::new(self.exec(now).bind_consume(table, &c.projection)?);
                if list.is_plain() {
                    self.consume_list = Some((table.id, c.projection.clone(), list.clone()));
                }
                list
            }
        };
        let filter = match &c.filter {
            Some((cond, _)) => Some(self.consume_filter(table, cond, now)?),
            None => None,
        };
        let filter = filter.as_ref();
        let lease = c
            .lease
            .map(|(d, _)| i64::try_from(d.as_micros()).unwrap_or(i64::MAX));
        self.leased |= lease.is_some();
        let rows = self.consume_rows(table, c, &list, filter, lease, now)?;
        if lease.is_some() {
            if let Some(id) = crate::result::lease_of(&rows) {
                self.request_leases.push((table.clone(), id));
            }
        }
        Ok(rows)
    }

    /// [`Session::consume_from`]'s take, once the select list and condition are bound.
    fn consume_rows(
        &mut self,
        table: &Arc<Table>,
        c: &Consume,
        list: &Arc<crate::dml::ConsumeList>,
        filter: Option<&Arc<crate::consume_filter::ConsumeFilter>>,
        lease: Option<i64>,
        now: &OnceCell<i64>,
    ) -> Result<Rows> {
        let top = c.top as usize;
        let ask = |shared: &Shared| Ask {
            top,
            filter: filter.map(|f| &**f),
            due_by: shared.due_by(table),
            lease,
        };
        let first = ask(&self.shared);
        let mut ex = self.exec(now);
        // the common case, a row is there: no wait cell, no cancel handle, no lock-manager
        // round trip for the delayed state. It must not wait for a lock (a cancel then would
        // find no cell to mark), so a taken lock goes to the path below.
        if !table.is_dropped() {
            match ex.try_consume(table, list, first, false) {
                Ok(Some(rows)) => return Ok(rows),
                Ok(None) | Err(Error::Storage(StorageError::LockNowait(_))) => {}
                Err(e) => return Err(e),
            }
        }
        let wait = c.wait.map_or(self.consume_wait, |(w, _)| w);
        if wait == ConsumeWait::NoWait {
            return self.consume_nowait(table, list, ask(&self.shared), now);
        }
        // a bound too large to represent is no bound
        let deadline = match wait {
            ConsumeWait::For(d) => Instant::now().checked_add(d),
            _ => None,
        };
        let txn_id = self.txn().id();
        let matcher = filter.map(|f| crate::consume_filter::matcher(f.clone(), table.clone()));
        let cell = Arc::new(WaitCell::selective(self.id, txn_id, matcher));
        self.cancel.set(Some(cell.clone()));
        let mut at_front = false;
        let result = self.consume_attempts(
            (table, list, (top, filter.map(|f| &**f), lease)),
            &cell,
            deadline,
            now,
            &mut at_front,
        );
        if result.is_err() && at_front {
            // woken for a row we did not take: hand the wake-up on
            self.shared.waiters.pass_on(table.id);
        } else if result.is_ok()
            && table.schema.delivers_at_qits
            && table.queue_depth() > 0
            && self.shared.waiters.count(table.id) > 0
        {
            // A delayed queue: this waiter may have held the timer of a row not due yet, and
            // a waiter that slept before that row came has none: wake one to set it again.
            self.shared.waiters.pass_on(table.id);
        }
        self.cancel.set(None);
        self.shared.storage.locks.leave_delayed(txn_id);
        result
    }

    /// A `NOWAIT` consume that found nothing on its first try without waiting for a lock:
    /// one more try that waits for a table lock another transaction holds (as every consume
    /// does), then the rows or an empty result.
    fn consume_nowait(
        &mut self,
        table: &Arc<Table>,
        list: &crate::dml::ConsumeList,
        ask: Ask<'_>,
        now: &OnceCell<i64>,
    ) -> Result<Rows> {
        if table.is_dropped() {
            return Err(Error::QueueDropped(table.schema.name.clone()));
        }
        match self.exec(now).try_consume(table, list, ask, true) {
            Ok(Some(rows)) => Ok(rows),
            Ok(None) if ask.lease.is_some() => list.empty_rows(table)?.with_lease_column(None),
            Ok(None) => list.empty_rows(table),
            // a cancel that stops a wait for the table's lock is a consume's cancel: 9905
            Err(Error::Cancelled) => Err(Error::ConsumeCancelled(table.schema.name.clone())),
            Err(e) => Err(e),
        }
    }

    fn consume_attempts(
        &mut self,
        (table, list, (top, filter, lease)): ConsumeArgs<'_>,
        cell: &Arc<WaitCell>,
        deadline: Option<Instant>,
        now: &OnceCell<i64>,
        at_front: &mut bool,
    ) -> Result<Rows> {
        let name = table.schema.name.clone();
        // the shortest due timer (µs): it doubles after each timer wake that found nothing
        // due (the request clock can stand still after the system clock steps back), back to
        // nothing once a row is taken
        let mut timer_floor: i64 = 0;
        // the due time of the last try under the registry (every row due by then was there
        // for it)
        let mut due_by;
        // selective tries in a row that rows coming in made stale (see SELECTIVE_RETRIES)
        let mut retried = 0;
        loop {
            // First try outside the waiter registry: taking the row's lock may have to wait
            // (for a LOCKING … FOR READ/WRITE/EXCLUSIVE holder), and no one may wait holding
            // the registry.
            if table.is_dropped() {
                return Err(Error::QueueDropped(name));
            }
            // a cancel that stops a wait for the row's lock is a consume's cancel: 9905
            let cancelled = |e: Error| match e {
                Error::Cancelled => Error::ConsumeCancelled(name.clone()),
                e => e,
            };
            let ask = |shared: &Shared| Ask {
                top,
                filter,
                due_by: shared.due_by(table),
                lease,
            };
            // a selective consume's walk can be long: it is not repeated under the registry
            // if no row came since it began (wait.rs, Waiters::generation), up to
            // SELECTIVE_RETRIES times in a row
            let generation = (filter.is_some() && retried < SELECTIVE_RETRIES)
                .then(|| self.shared.waiters.generation(table.id));
            let asked = ask(&self.shared);
            let outside_due_by = asked.due_by;
            let tried = self.exec(now).try_consume(table, list, asked, true);
            self.publish_side();
            if let Some(rows) = tried.map_err(cancelled)? {
                return Ok(rows);
            }
            // Yield a few times before sleeping (see SPIN_YIELDS); not for a selective
            // consume, which rows in the queue need not satisfy (each try is a walk).
            let mut got = None;
            let spins = if filter.is_some() { 0 } else { SPIN_YIELDS };
            for _ in 0..spins {
                std::thread::yield_now();
                if table.queue_depth() > 0 {
                    let asked = ask(&self.shared);
                    let tried = self.exec(now).try_consume(table, list, asked, true);
                    self.publish_side();
                    if let Some(rows) = tried.map_err(cancelled)? {
                        got = Some(rows);
                    }
                    break;
                }
            }
            if let Some(rows) = got {
                return Ok(rows);
            }
            {
                let shared = self.shared.clone();
                let mut reg = shared.waiters.lock();
                if table.is_dropped() {
                    return Err(Error::QueueDropped(name));
                }
                // Decide to sleep only under the registry, so no commit's wake-up is lost.
                // (stale: rows came since the selective try began; it tries again)
                let stale = match generation {
                    Some(g) if shared.waiters.generation(table.id) == g => {
                        due_by = outside_due_by;
                        retried = 0;
                        false
                    }
                    Some(_) => {
                        // (not slept on: the try comes again)
                        due_by = outside_due_by;
                        retried += 1;
                        true
                    }
                    None => {
                        retried = 0;
                        let asked = ask(&shared);
                        due_by = asked.due_by;
                        // no housekeeping commits under the registry (they may sync the log):
                        // expired rows are passed over all the same, and a lease due is
                        // returned by the next try outside, which the timer brings
                        self.txn().set_side_work(false);
                        let tried = self.exec(now).try_consume(table, list, asked, false);
                        self.txn().set_side_work(true);
                        match tried {
                            Ok(Some(rows)) => return Ok(rows),
                            Ok(None) => {}
                            // the lock is taken: wait for it outside the registry
                            Err(Error::Storage(StorageError::LockNowait(_))) => continue,
                            Err(e) => return Err(e),
                        }
                        false
                    }
                };
                // a cancel that came before the wait cell was set stopped the request instead
                let stopped = matches!(crate::interrupt::check(), Err(Error::Cancelled));
                if cell.is_cancelled() || stopped {
                    return Err(Error::ConsumeCancelled(name));
                }
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    return Err(Error::ConsumeTimeout(name));
                }
                if stale {
                    continue;
                }
                // no one may wait for a transaction that waits for a row (see locks.rs)
                let end = {
                    let cell = cell.clone();
                    Arc::new(move || cell.end_as_deadlock()) as Arc<dyn Fn() + Send + Sync>
                };
                cell.clear_deadlock();
                self.shared
                    .storage
                    .locks
                    .enter_delayed(cell.who.1, &name, end)?;
                let q = reg.entry(table.id).or_default();
                if *at_front {
                    q.push_front(cell.clone());
                } else {
                    q.push_back(cell.clone());
                }
            }
            // what this session's housekeeping moved wakes others before it sleeps (outside
            // the registry: publishing takes it)
            self.publish_side();
            // a queue that delivers at QITS: wake when its next row comes due as well (a
            // timer, not polling); a commit of an earlier row wakes the waiter as any commit
            // (a due time too far to represent is no timer); likewise the end of a lease
            let due = self.txn().next_due(table, due_by).and_then(|at| {
                let ahead = at
                    .saturating_sub(self.shared.clock_now())
                    .max(timer_floor)
                    .max(0);
                Instant::now().checked_add(Duration::from_micros(ahead.unsigned_abs()))
            });
            let until = match (deadline, due) {
                (Some(d), Some(u)) => Some(d.min(u)),
                (d, u) => d.or(u),
            };
            cell.delayed
                .store(true, std::sync::atomic::Ordering::Relaxed);
            let end = cell.wait(until);
            cell.delayed
                .store(false, std::sync::atomic::Ordering::Relaxed);
            self.shared.storage.locks.leave_delayed(cell.who.1);
            if end != WaitEnd::Woken
                && !self.shared.waiters.leave(table.id, cell)
                && end != WaitEnd::Dropped
            {
                // We were woken at the same moment we gave up: hand the wake-up on.
                self.shared.waiters.pass_on(table.id);
            }
            match end {
                WaitEnd::Woken => *at_front = true,
                WaitEnd::Deadlock => return Err(StorageError::Deadlock(name).into()),
                WaitEnd::Dropped => return Err(Error::QueueDropped(name)),
                WaitEnd::Cancelled => return Err(Error::ConsumeCancelled(name)),
                // the timer of a row coming due, sooner than the consume's own bound (which
                // the try after it checks): try again
                WaitEnd::TimedOut if due.is_some_and(|u| deadline.is_none_or(|d| u <= d)) => {
                    *at_front = true;
                    timer_floor = (timer_floor * 2).clamp(100, 1_000_000);
                }
                WaitEnd::TimedOut => return Err(Error::ConsumeTimeout(name)),
            }
        }
    }
}

/// A selective consume's bound condition, kept by the session for the next consume with the
/// same condition, table, parameters and catalog version (a table id is never reused).
struct KeptFilter {
    version: u64,
    table: u64,
    /// Whether the condition may read a per-request value ([`crate::names::reads_request_values`]): then
    /// it is bound again each time (kept only so that this is not judged again).
    reads: bool,
    cond: ast::Expr,
    params: Vec<Value>,
    filter: Arc<crate::consume_filter::ConsumeFilter>,
}

/// Request-level rules: BT only first; SET SESSION TRANSACTION alone; no DELETE/UPDATE of a
/// queue consumed in the same request (Teradata's SELECT AND CONSUME rules).
fn check_request(stmts: &[Spanned]) -> std::result::Result<(), (Error, usize)> {
    // every rule is about two statements of one request
    if stmts.len() < 2 {
        return Ok(());
    }
    for (i, s) in stmts.iter().enumerate() {
        if i > 0 && matches!(s.statement, Statement::BeginTransaction) {
            return Err((Error::BtNotFirst, i));
        }
        // a mode change is a request of its own, so no request runs under two modes
        if stmts.len() > 1 && matches!(s.statement, Statement::SetSessionMode { .. }) {
            return Err((Error::ModeChangeInTransaction, i));
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
    /// The open transaction rolls back; the session's leases end; its volatile tables go.
    fn drop(&mut self) {
        self.abort();
        self.release_all_leases();
        let gone = self.shared.storage.catalog.drop_session(self.id);
        if !gone.is_empty() {
            let mut stats = self.shared.registry.stats.lock();
            for t in gone {
                stats.remove(&t.id);
            }
        }
    }
}

/// 3939: `given` values for a request with another number of `?`.
/// Refuses a PERIOD parameter whose bounds are out of order or outside its element type
/// (9103), before it is bound anywhere: an application's `Value::Period` is unchecked.
fn periods_in_order(params: &[Value]) -> std::result::Result<(), PositionedError> {
    for v in params {
        if let Value::Period(p) = v {
            crate::period::check(*p).map_err(|error| PositionedError {
                error,
                location: None,
                statement: 1,
            })?;
        }
    }
    Ok(())
}

fn parameter_count_error(prepared: &crate::prepared::Prepared, given: usize) -> PositionedError {
    PositionedError {
        error: Error::ParameterCount {
            expected: prepared.parameters,
            given,
        },
        location: prepared.statements.first().map(|s| s.location),
        statement: 1,
    }
}

/// How many times one statement runs again after meeting rows that other transactions
/// changed or hold. Each retry follows another transaction's commit or a wait for one, so in
/// practice only a defect (a read that keeps meeting a row its snapshot should not see) or a
/// statement starved by a ceaseless stream of commits to its rows reaches it; the statement
/// then fails with that row's 2631 (ending the transaction) instead of running forever.
const MAX_STATEMENT_RETRIES: u32 = 10_000;

/// What retry number `retry` of a statement that gave `r` does: `Ok(e)` to undo it and run it
/// again after `e` (a row another transaction changed or holds), `Err(r)` to end with `r` (a
/// result, another error, or the last retry's error).
fn retried(
    r: Result<StatementResult>,
    retry: u32,
) -> std::result::Result<StorageError, Result<StatementResult>> {
    match r {
        Err(Error::Storage(e @ (StorageError::RowBusy { .. } | StorageError::RowChanged(_))))
            if retry < MAX_STATEMENT_RETRIES =>
        {
            Ok(e)
        }
        r => Err(r),
    }
}

/// `SELECT 1 FROM … WHERE c` as `SELECT 1 FROM … HAVING c`: an ABORT condition with
/// aggregates, true or not of the whole FROM as one group.
fn condition_as_having(q: &sqlparser::ast::Query) -> sqlparser::ast::Query {
    let mut q = q.clone();
    if let sqlparser::ast::SetExpr::Select(s) = q.body.as_mut() {
        s.having = s.selection.take();
    }
    q
}

/// The texts of EXEC's or CALL's arguments with the request's `?` values put in, in order, as
/// literals (a macro or procedure runs as requests of its own, which cannot see the prepared
/// request's parameters).
fn with_values(
    texts: &[&str],
    params: &[Value],
) -> std::result::Result<Vec<String>, PositionedError> {
    let mut values = params.iter();
    texts
        .iter()
        .map(|text| {
            tdlite_parser::replace_markers(text, || values.next().map(crate::params::literal))
        })
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| PositionedError {
            error: e.into(),
            location: None,
            statement: 1,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A statement that keeps meeting a row changed under it runs again at most
    /// MAX_STATEMENT_RETRIES times (the loop of `Session::run_statement`), then fails with
    /// 2631; a result or another error ends it at once.
    #[test]
    fn a_statement_that_keeps_meeting_changed_rows_stops_with_2631() {
        let changed = || Err(Error::Storage(StorageError::RowChanged("t".into())));
        let mut runs = 0;
        let mut last = None;
        for retry in 0..=MAX_STATEMENT_RETRIES + 5 {
            runs += 1;
            if let Err(r) = retried(changed(), retry) {
                last = Some(r);
                break;
            }
        }
        assert_eq!(runs, MAX_STATEMENT_RETRIES + 1);
        let err = last.expect("the retries end").expect_err("with an error");
        assert_eq!(err.code().number, 2631);
        // as every 2631, it ends the transaction in ANSI mode too
        assert!(err.ends_transaction());
        assert!(matches!(
            retried(Err(Error::DdlNotLast), 0),
            Err(Err(Error::DdlNotLast))
        ));
        let busy = StorageError::RowBusy {
            table: "t".into(),
            holder: 7,
        };
        assert!(matches!(
            retried(Err(Error::Storage(busy)), 3),
            Ok(StorageError::RowBusy { holder: 7, .. })
        ));
    }

    #[test]
    fn a_condition_that_reads_the_clock_or_the_session_is_bound_each_time() {
        let reads = |sql: &str| {
            crate::names::reads_request_values(&tdlite_parser::parse_expression(sql).unwrap())
        };
        for sql in [
            "qits <= CURRENT_TIMESTAMP",
            "d = DATE",
            "t < TIME",
            "owner = USER",
            "db = DATABASE",
            "s = SESSION",
            "RANDOM(1, 4) = 1",
            "qits < CURRENT_TIMESTAMP(6) - INTERVAL '1' SECOND",
        ] {
            assert!(reads(sql), "{sql}");
        }
        for sql in [
            "tenant = 1",
            "tenant = ? AND n MOD 2 = 0",
            "kind IN ('a', 'b')",
        ] {
            assert!(!reads(sql), "{sql}");
        }
    }
}
