//! One connection's handlers for pgwire: the simple query protocol (a query message is one
//! Teradata request, all its statements in one implicit transaction), the extended protocol
//! (Parse/Bind/Describe/Execute, backed by the session's prepared requests and their cached
//! plans), and errors as PostgreSQL error responses carrying the Teradata code.
//!
//! Describe of a bound portal runs it (a request's result columns are known once it ran) and
//! keeps the results for the Execute that follows, so a request runs once; Describe of a
//! statement not yet bound runs a plain SELECT with NULL parameters in the describing session
//! (worker.rs) and reports no columns for anything else (a consume is not run to be
//! described).
//!
//! Invariant: every request reaches the session thread whole and in the order the client
//! sent it; a result kept by a Describe is taken by the next Execute of that portal only.

use crate::params::{number, Numbered};
use crate::settings::Settings;
use crate::wire_types::{data_rows, fields};
use crate::worker::{Job, Reply, Worker};
use async_trait::async_trait;
use futures::stream;
use pgwire::api::auth::noop::NoopStartupHandler;
use pgwire::api::auth::sasl::SASLAuthStartupHandler;
use pgwire::api::auth::{DefaultServerParameterProvider, StartupHandler};
use pgwire::api::portal::{Format, Portal};
use pgwire::api::query::{ExtendedQueryHandler, SimpleQueryHandler};
use pgwire::api::results::{
    DescribePortalResponse, DescribeStatementResponse, FieldFormat, QueryResponse, Response, Tag,
};
use pgwire::api::stmt::{QueryParser, StoredStatement};
use pgwire::api::{ClientInfo, ClientPortalStore, ErrorHandler, PgWireServerHandlers, Type};
use pgwire::error::{ErrorInfo, PgWireError, PgWireResult};
use pgwire::messages::extendedquery::Sync as PgSync;
use pgwire::messages::response::{ReadyForQuery, TransactionStatus};
use pgwire::messages::{PgWireBackendMessage, PgWireFrontendMessage};
use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tdlite::{PositionedError, StatementKind, StatementResult, Value};

/// A statement of the extended protocol: the request's text with `?` markers.
pub type Statement = Arc<Numbered>;

/// One connection: its session thread and the results a Describe ran early.
pub struct Connection {
    worker: Worker,
    /// Every connection of the server by its cancel key, for PostgreSQL cancel requests.
    cancels: Cancels,
    /// This connection's cancel key, once a request has registered it.
    key: std::sync::OnceLock<CancelKey>,
    /// Itself, for the cancel map.
    me: std::sync::Weak<Connection>,
    /// The client's socket, watched while a request runs (a client that goes cancels it),
    /// and closed by the server (idle timeout, shutdown).
    link: Link,
    /// Whether a request runs now.
    busy: AtomicBool,
    /// Whether the session was inside a transaction after its last request.
    in_transaction: AtomicBool,
    /// When the last request ended (or the connection began).
    idle_since: Mutex<Instant>,
    /// The results a Describe of a portal ran, by portal name (and the portal's identity),
    /// for its Execute; cleared at Sync.
    early: Mutex<HashMap<String, (usize, Reply)>>,
    parser: Arc<Parser>,
    /// Login settings to apply before the first request (a server with users applies them
    /// after the password is proved, settings.rs).
    pending: Mutex<Option<Settings>>,
    /// The session mode the client was last told of (ParameterStatus `tmode`).
    told_ansi: AtomicBool,
}

impl Connection {
    /// A connection served by `worker`.
    pub fn new(worker: Worker, link: Link, cancels: Cancels) -> Arc<Connection> {
        Arc::new_cyclic(|me| Connection {
            me: me.clone(),
            worker,
            cancels,
            key: std::sync::OnceLock::new(),
            link,
            busy: AtomicBool::new(false),
            in_transaction: AtomicBool::new(false),
            idle_since: Mutex::new(Instant::now()),
            early: Mutex::new(HashMap::new()),
            parser: Arc::new(Parser),
            pending: Mutex::new(None),
            told_ansi: AtomicBool::new(false),
        })
    }

    /// Runs `job` on the session; should the client go meanwhile (a consume waiting for a row,
    /// say), cancels it, so that nothing is consumed for a client that cannot receive it.
    async fn run(&self, job: Job) -> PgWireResult<Reply> {
        let pending = self.pending.lock().ok().and_then(|mut p| p.take());
        if let Some(settings) = pending {
            self.apply(settings).await?;
        }
        // should this future be dropped (the connection ends), the session's request is
        // cancelled and the connection counts as idle again
        let mut guard = CancelOnDrop(self, true);
        self.busy.store(true, Ordering::SeqCst);
        let reply = self.worker.run(job);
        tokio::pin!(reply);
        let r = self.run_here(&mut reply).await;
        guard.1 = false;
        if let Ok((_, open)) = &r {
            self.in_transaction.store(*open, Ordering::SeqCst);
        }
        self.done();
        r
    }

    /// Marks the connection idle from now.
    fn done(&self) {
        if let Ok(mut t) = self.idle_since.lock() {
            *t = Instant::now();
        }
        self.busy.store(false, Ordering::SeqCst);
    }

    /// Registers this connection under its client's cancel key (once).
    fn register<C: ClientInfo>(&self, client: &C) {
        if self.key.get().is_some() {
            return;
        }
        let (pid, secret) = client.pid_and_secret_key();
        let key = (pid, secret.to_bytes());
        if self.key.set(key.clone()).is_ok() {
            if let Ok(mut map) = self.cancels.lock() {
                map.insert(key, self.me.clone());
            }
        }
    }

    /// How long the connection has waited for its client's next request (`None` while a
    /// request runs), and whether a transaction is open.
    pub fn idle(&self) -> (Option<std::time::Duration>, bool) {
        let open = self.in_transaction.load(Ordering::SeqCst);
        if self.busy.load(Ordering::SeqCst) {
            return (None, open);
        }
        let since = self.idle_since.lock().map(|t| t.elapsed()).ok();
        (since, open)
    }

    /// Closes the connection: its client sees the socket end, its session rolls back what
    /// it has not committed, and a running request is cancelled. `gently`: only the reading
    /// side, so that a reply being written still reaches the client.
    pub fn close(&self, gently: bool) {
        if !gently {
            self.worker.cancel();
        }
        let how = if gently {
            std::net::Shutdown::Read
        } else {
            std::net::Shutdown::Both
        };
        let _ = self.link.closer.shutdown(how);
    }

    /// Reads the startup `parameters`' session settings (settings.rs): applied now (`now`),
    /// or kept for the first request (a server with users, before the password is proved).
    /// A setting that cannot be read refuses the login.
    async fn configure(
        &self,
        parameters: &std::collections::BTreeMap<String, String>,
        now: bool,
    ) -> PgWireResult<()> {
        let settings = Settings::from_startup(parameters).map_err(|m| fatal("22023", m))?;
        if settings.is_empty() {
            return Ok(());
        }
        if now {
            return self.apply(settings).await;
        }
        if let Ok(mut p) = self.pending.lock() {
            *p = Some(settings);
        }
        Ok(())
    }

    /// Applies login settings to the session; a failure (a default database that does not
    /// exist) is FATAL: the connection ends, as PostgreSQL ends one whose database is missing.
    async fn apply(&self, settings: Settings) -> PgWireResult<()> {
        let (r, _) = self
            .worker
            .run(Job::Configure(settings))
            .await
            .map_err(PgWireError::IoError)?;
        // the client asked for the mode it has: nothing to tell it
        self.told_ansi.store(self.worker.ansi(), Ordering::SeqCst);
        r.map_err(|e| {
            let info = error_response(&e);
            fatal(&info.code, info.message)
        })?;
        Ok(())
    }

    /// Tells the client the session's mode when a request changed it (`SET SESSION
    /// TRANSACTION ANSI|BTET`): a ParameterStatus `tmode` of `ANSI` or `TERA`, as PostgreSQL
    /// reports a changed setting. tdlite's clients follow it; others ignore it.
    async fn report_mode<C>(&self, client: &mut C) -> PgWireResult<()>
    where
        C: futures::Sink<PgWireBackendMessage> + Unpin + Send,
        PgWireError: From<<C as futures::Sink<PgWireBackendMessage>>::Error>,
    {
        use futures::SinkExt;
        let ansi = self.worker.ansi();
        if self.told_ansi.swap(ansi, Ordering::SeqCst) != ansi {
            let value = if ansi { "ANSI" } else { "TERA" };
            client
                .feed(PgWireBackendMessage::ParameterStatus(
                    pgwire::messages::startup::ParameterStatus::new(
                        "tmode".to_owned(),
                        value.to_owned(),
                    ),
                ))
                .await?;
        }
        Ok(())
    }

    /// A request's results, or its failure as the client's error. A failure that left no
    /// transaction open (any failure of a request in Teradata mode rolls the transaction back)
    /// makes the client's transaction status idle, so its next ReadyForQuery says so (pgwire
    /// would report a failed transaction, and drivers would think one still open); one that
    /// left a transaction open (ANSI mode) is reported failed (`E`).
    fn after_failure<C: ClientInfo>(
        &self,
        client: &mut C,
        result: Result<Vec<StatementResult>, PositionedError>,
        open: bool,
    ) -> PgWireResult<Vec<StatementResult>> {
        result.map_err(|e| {
            if !open {
                client.set_transaction_status(TransactionStatus::Idle);
            } else if matches!(client.transaction_status(), TransactionStatus::Idle) {
                // an ANSI transaction that a request of rows only opened: pgwire reports
                // a failed transaction (E) only from an open one
                client.set_transaction_status(TransactionStatus::Transaction);
            }
            failed(e)
        })
    }

    async fn run_here(
        &self,
        reply: &mut std::pin::Pin<&mut impl std::future::Future<Output = std::io::Result<Reply>>>,
    ) -> PgWireResult<Reply> {
        tokio::select! {
            r = reply.as_mut() => r.map_err(PgWireError::IoError),
            () = gone(&self.link.watch) => {
                self.worker.cancel();
                reply.as_mut().await.map_err(PgWireError::IoError)
            }
        }
    }

    /// A PostgreSQL cancel request: cancels the request the session runs, also one sent but
    /// not yet started (tried again until it takes or the request has ended). The client then
    /// gets the request's own answer: 9905 for a waiting consume (nothing taken), or its rows
    /// if it had already finished.
    pub async fn cancel(&self) {
        for _ in 0..500 {
            if self.worker.cancel() || !self.busy.load(Ordering::SeqCst) {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        if let (Some(key), Ok(mut map)) = (self.key.get(), self.cancels.lock()) {
            map.remove(key);
        }
    }
}

/// A connection's cancel key: the process id and secret its client was given at startup
/// (the secret as bytes: a cancel request may decode a 4-byte one as a number).
pub type CancelKey = (i32, bytes::Bytes);

/// The server's connections by cancel key.
pub type Cancels = Arc<Mutex<HashMap<CancelKey, std::sync::Weak<Connection>>>>;

/// Answers PostgreSQL cancel requests from the server's [`Cancels`] (pgwire's own manager
/// would drop the running request's future and lose its answer: a consume that had already
/// taken its row would take it for no one).
pub struct Canceller(pub Cancels);

#[async_trait]
impl pgwire::api::cancel::CancelHandler for Canceller {
    async fn on_cancel_request(&self, request: pgwire::messages::cancel::CancelRequest) {
        self.cancel_key((request.pid, request.secret_key.to_bytes()))
            .await;
    }
}

impl Canceller {
    /// Cancels the running request of the connection with cancel key `key`, if there is one.
    pub async fn cancel_key(&self, key: CancelKey) {
        let conn = self
            .0
            .lock()
            .ok()
            .and_then(|m| m.get(&key).cloned())
            .and_then(|w| w.upgrade());
        if let Some(c) = conn {
            c.cancel().await;
        }
    }
}

/// A second and a third handle on a connection's socket: one watched for the client going,
/// one to close it from the server's side.
pub struct Link {
    /// Non-blocking, for peeking while a request runs.
    pub watch: tokio::net::TcpStream,
    /// For `shutdown`.
    pub closer: std::net::TcpStream,
}

/// Cancels the session's running request when dropped armed (`.1`), and marks the
/// connection idle.
struct CancelOnDrop<'a>(&'a Connection, bool);

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        if self.1 {
            self.0.worker.cancel();
            self.0.done();
        }
    }
}

/// Resolves once the client has closed its end of `socket`, also after sending a last
/// message (libpq's Terminate, TLS's close_notify) that stays unread: the socket's read side
/// closed (EPOLLRDHUP), or a peek that reads nothing.
async fn gone(socket: &tokio::net::TcpStream) {
    let mut byte = [0u8; 1];
    loop {
        match socket.ready(tokio::io::Interest::READABLE).await {
            Err(_) => return,
            Ok(r) if r.is_read_closed() => return,
            Ok(_) => {}
        }
        match socket.peek(&mut byte).await {
            Ok(0) | Err(_) => return,
            // the client sent more (a pipelined message): look again later
            Ok(_) => tokio::time::sleep(std::time::Duration::from_millis(100)).await,
        }
    }
}

/// The SCRAM startup handler a server with users shares among its connections.
pub type Scram = Arc<SASLAuthStartupHandler<DefaultServerParameterProvider>>;

/// The handlers pgwire asks for: one [`Connection`], and how its client logs in.
pub struct Handlers {
    /// The connection.
    pub conn: Arc<Connection>,
    /// SCRAM when the server has users; `None`: any login is accepted.
    pub scram: Option<Scram>,
}

impl PgWireServerHandlers for Handlers {
    fn simple_query_handler(&self) -> Arc<impl SimpleQueryHandler> {
        self.conn.clone()
    }
    fn extended_query_handler(&self) -> Arc<impl ExtendedQueryHandler> {
        self.conn.clone()
    }
    fn startup_handler(&self) -> Arc<impl StartupHandler> {
        Arc::new(Startup {
            conn: self.conn.clone(),
            scram: self.scram.clone(),
        })
    }
    fn cancel_handler(&self) -> Arc<impl pgwire::api::cancel::CancelHandler> {
        Arc::new(Canceller(self.conn.cancels.clone()))
    }
    fn error_handler(&self) -> Arc<impl ErrorHandler> {
        Arc::new(LoginLog)
    }
}

/// How a client logs in: its session settings (settings.rs) read from the startup message,
/// then without a password, or by SCRAM-SHA-256 (auth.rs) when the server has users.
pub struct Startup {
    conn: Arc<Connection>,
    scram: Option<Scram>,
}

#[async_trait]
impl StartupHandler for Startup {
    async fn on_startup<C>(
        &self,
        client: &mut C,
        message: PgWireFrontendMessage,
    ) -> PgWireResult<()>
    where
        C: ClientInfo + futures::Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::Error: Debug,
        PgWireError: From<<C as futures::Sink<PgWireBackendMessage>>::Error>,
    {
        if let PgWireFrontendMessage::Startup(startup) = &message {
            self.conn
                .configure(&startup.parameters, self.scram.is_none())
                .await?;
        }
        match &self.scram {
            Some(s) => s.on_startup(client, message).await,
            None => self.conn.on_startup(client, message).await,
        }
    }
}

/// Logs refused logins (a wrong password or an unknown user).
pub struct LoginLog;

impl ErrorHandler for LoginLog {
    fn on_error<C>(&self, client: &C, error: &mut PgWireError)
    where
        C: ClientInfo,
    {
        if let PgWireError::InvalidPassword(_) = error {
            let user = client.metadata().get("user").cloned().unwrap_or_default();
            eprintln!(
                "tdlite serve: refused a login from {} as '{user}': wrong password or no such user",
                client.socket_addr()
            );
        }
    }
}

impl NoopStartupHandler for Connection {}

/// The error response for a tdlite error: the Teradata code leads the message
/// (`[Error 3807] Object 'q' does not exist.`, as teradatasql writes it), and the SQLSTATE
/// is the PostgreSQL class that fits (`sqlstate`).
pub fn error_response(e: &PositionedError) -> ErrorInfo {
    let code = e.code().number;
    let mut message = format!("[Error {code}] {}", e.error);
    if let Some(at) = e.location {
        message.push_str(&format!(" (line {}, column {})", at.line, at.column));
    }
    ErrorInfo::new("ERROR".to_owned(), sqlstate(code).to_owned(), message)
}

/// The SQLSTATE sent for Teradata error `code`.
pub fn sqlstate(code: u32) -> &'static str {
    match code {
        3706 | 3707 | 3704 | 6916 | 3708 => "42601", // syntax_error
        3807 | 3802 => "42P01",                      // undefined_table
        3810 | 3822 => "42703",                      // undefined_column
        3803 | 3804 => "42P07",                      // duplicate_table
        2801..=2803 => "23505",                      // unique_violation
        3811 => "23502",                             // not_null_violation
        5317 => "23514",                             // check_violation
        2618 | 2619 => "22012",                      // division_by_zero
        2616 => "22003",                             // numeric_value_out_of_range
        2665 | 2666 | 9102 | 9103 => "22007",        // invalid_datetime_format
        3535 | 2620 => "22P02",                      // invalid_text_representation
        3996 => "22001",                             // string_data_right_truncation
        3504 | 3569 => "42803",                      // grouping_error
        3523 | 3524 => "42501",                      // insufficient_privilege
        2631 => "40P01",                             // deadlock_detected
        3110 | 9905 => "57014",                      // query_canceled
        9904 | 9920 => "57014",
        9913 => "42804", // datatype_mismatch
        9910 => "0A000", // feature_not_supported
        9914 | 9916 => "58030",
        _ => "HV000",
    }
}

/// The command tag of a statement's result (`INSERT 0 3`, `SELECT 2`, `CREATE TABLE`).
fn tag(r: &StatementResult) -> Tag {
    let n = usize::try_from(r.activity_count).unwrap_or(usize::MAX);
    match r.kind {
        StatementKind::Insert => Tag::new("INSERT").with_oid(0).with_rows(n),
        StatementKind::Update => Tag::new("UPDATE").with_rows(n),
        StatementKind::Delete => Tag::new("DELETE").with_rows(n),
        StatementKind::Merge => Tag::new("MERGE").with_rows(n),
        StatementKind::Select | StatementKind::Consume => Tag::new("SELECT").with_rows(n),
        StatementKind::BeginTransaction => Tag::new("BEGIN"),
        StatementKind::EndTransaction | StatementKind::Commit => Tag::new("COMMIT"),
        StatementKind::Rollback => Tag::new("ROLLBACK"),
        other => Tag::new(&words(&format!("{other:?}"))),
    }
}

/// `CreateTable` as `CREATE TABLE`.
fn words(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push(' ');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

/// A request's results as responses, rows in `format`.
fn responses(
    results: Vec<StatementResult>,
    format: &dyn Fn(usize) -> FieldFormat,
) -> PgWireResult<Vec<Response>> {
    let mut out = Vec::with_capacity(results.len());
    for r in results {
        match &r.rows {
            Some(rows) => {
                let header = Arc::new(fields(rows, format));
                let data = data_rows(rows, &header)?;
                // pgwire tags it `SELECT n` (a consume too)
                let q = QueryResponse::new(header, stream::iter(data.into_iter().map(Ok)));
                out.push(Response::Query(q));
            }
            None => out.push(Response::Execution(tag(&r))),
        }
    }
    Ok(out)
}

/// Tells the client whether a transaction is open after a request (the status of its next
/// ReadyForQuery, which drivers such as psycopg go by to send COMMIT or ROLLBACK): the last
/// command response of the request says BEGIN or END where the state changed. (A request
/// that answers only with rows cannot say so; such a one changes no state in Teradata mode.)
fn mark_transaction(out: &mut [Response], before: TransactionStatus, open: bool) {
    let was = !matches!(before, TransactionStatus::Idle);
    if was == open {
        return;
    }
    let Some(last) = out
        .iter_mut()
        .rev()
        .find(|r| matches!(r, Response::Execution(_)))
    else {
        return;
    };
    if let Response::Execution(tag) = last {
        let tag = tag.clone();
        *last = if open {
            Response::TransactionStart(tag)
        } else {
            Response::TransactionEnd(tag)
        };
    }
}

/// A FATAL error: the connection ends after it.
fn fatal(code: &str, message: String) -> PgWireError {
    PgWireError::UserError(Box::new(ErrorInfo::new(
        "FATAL".to_owned(),
        code.to_owned(),
        message,
    )))
}

fn failed(e: PositionedError) -> PgWireError {
    PgWireError::UserError(Box::new(error_response(&e)))
}

#[async_trait]
impl SimpleQueryHandler for Connection {
    async fn do_query<C>(&self, client: &mut C, query: &str) -> PgWireResult<Vec<Response>>
    where
        C: ClientInfo
            + ClientPortalStore
            + futures::Sink<PgWireBackendMessage>
            + Unpin
            + Send
            + Sync,
        C::Error: Debug,
        PgWireError: From<<C as futures::Sink<PgWireBackendMessage>>::Error>,
    {
        self.register(client);
        let (result, open) = self
            .run(Job::Run {
                text: query.to_owned(),
                params: None,
            })
            .await?;
        self.report_mode(client).await?;
        let result = self.after_failure(client, result, open)?;
        let mut out = responses(result, &|_| FieldFormat::Text)?;
        mark_transaction(&mut out, client.transaction_status(), open);
        Ok(out)
    }
}

/// Reads a Parse message's text: `$n` markers become `?` (params.rs).
#[derive(Debug, Default)]
pub struct Parser;

#[async_trait]
impl QueryParser for Parser {
    type Statement = Statement;

    async fn parse_sql<C>(
        &self,
        _client: &C,
        sql: &str,
        _types: &[Option<Type>],
    ) -> PgWireResult<Option<Statement>>
    where
        C: ClientInfo + Unpin + Send + Sync,
    {
        let numbered = number(sql);
        numbered.check().map_err(|m| {
            PgWireError::UserError(Box::new(ErrorInfo::new(
                "ERROR".to_owned(),
                "42P18".to_owned(),
                m,
            )))
        })?;
        Ok(Some(Arc::new(numbered)))
    }

    fn get_parameter_types(&self, stmt: &Statement) -> PgWireResult<Vec<Type>> {
        // tdlite learns a parameter's type where it is used: the client may send any as text
        Ok(vec![Type::TEXT; stmt.count])
    }

    fn get_result_schema(
        &self,
        _stmt: &Statement,
        _format: Option<&Format>,
    ) -> PgWireResult<Vec<pgwire::api::results::FieldInfo>> {
        Ok(Vec::new())
    }
}

/// The parameter types of `stmt`: the client's where it gave them, else text.
fn parameter_types(stmt: &StoredStatement<Statement>) -> Vec<Type> {
    (0..stmt.statement.count.max(stmt.parameter_types.len()))
        .map(|i| {
            stmt.parameter_types
                .get(i)
                .cloned()
                .flatten()
                .unwrap_or(Type::TEXT)
        })
        .collect()
}

/// Whether `text` is one plain SELECT (no consume, no other statement): one that can be run
/// to learn its columns without changing anything.
fn plain_select(text: &str) -> bool {
    match tdlite_parser::parse_request(text) {
        Ok(stmts) => {
            stmts.len() == 1
                && stmts[0].locking.is_empty()
                && matches!(&stmts[0].statement, tdlite_parser::Statement::Sql(s)
                    if matches!(**s, sqlparser::ast::Statement::Query(_)))
        }
        Err(_) => false,
    }
}

#[async_trait]
impl ExtendedQueryHandler for Connection {
    type Statement = Statement;
    type QueryParser = Parser;

    fn query_parser(&self) -> Arc<Parser> {
        self.parser.clone()
    }

    /// pgwire's Sync, and results a Describe ran that no Execute took are dropped (a portal
    /// bound again after the Sync runs afresh).
    async fn on_sync<C>(&self, client: &mut C, _message: PgSync) -> PgWireResult<()>
    where
        C: ClientInfo
            + ClientPortalStore
            + futures::Sink<PgWireBackendMessage>
            + Unpin
            + Send
            + Sync,
        C::PortalStore: pgwire::api::store::PortalStore<Statement = Statement>,
        C::Error: Debug,
        PgWireError: From<<C as futures::Sink<PgWireBackendMessage>>::Error>,
    {
        use futures::SinkExt;
        use pgwire::api::store::PortalStore;
        if let Ok(mut early) = self.early.lock() {
            early.clear();
        }
        client.portal_store().rm_portal(pgwire::api::DEFAULT_NAME);
        client
            .send(PgWireBackendMessage::ReadyForQuery(ReadyForQuery::new(
                client.transaction_status(),
            )))
            .await?;
        client.flush().await?;
        Ok(())
    }

    async fn do_describe_statement<C>(
        &self,
        client: &mut C,
        stmt: &StoredStatement<Statement>,
    ) -> PgWireResult<DescribeStatementResponse>
    where
        C: ClientInfo
            + ClientPortalStore
            + futures::Sink<PgWireBackendMessage>
            + Unpin
            + Send
            + Sync,
        C::PortalStore: pgwire::api::store::PortalStore<Statement = Statement>,
        C::Error: Debug,
        PgWireError: From<<C as futures::Sink<PgWireBackendMessage>>::Error>,
    {
        self.register(client);
        let types = parameter_types(stmt);
        let numbered = &stmt.statement;
        let mut columns = Vec::new();
        if plain_select(&numbered.text) {
            let (result, _) = self
                .run(Job::Describe {
                    text: numbered.text.clone(),
                    params: vec![Value::Null; numbered.order.len()],
                })
                .await?;
            if let Ok(results) = result {
                if let Some(rows) = results.first().and_then(|r| r.rows.as_ref()) {
                    columns = fields(rows, |_| FieldFormat::Text);
                }
            }
        }
        Ok(DescribeStatementResponse::new(types, columns))
    }

    async fn do_describe_portal<C>(
        &self,
        client: &mut C,
        portal: &Portal<Statement>,
    ) -> PgWireResult<DescribePortalResponse>
    where
        C: ClientInfo
            + ClientPortalStore
            + futures::Sink<PgWireBackendMessage>
            + Unpin
            + Send
            + Sync,
        C::PortalStore: pgwire::api::store::PortalStore<Statement = Statement>,
        C::Error: Debug,
        PgWireError: From<<C as futures::Sink<PgWireBackendMessage>>::Error>,
    {
        self.register(client);
        let reply = self.run_portal(portal).await?;
        let columns = match &reply.0 {
            Ok(results) => match results.last().and_then(|r| r.rows.as_ref()) {
                Some(rows) => fields(rows, |i| portal.result_column_format.format_for(i)),
                None => Vec::new(),
            },
            Err(_) => Vec::new(),
        };
        if let Ok(mut early) = self.early.lock() {
            early.insert(portal.name.clone(), (identity(portal), reply));
        }
        Ok(DescribePortalResponse::new(columns))
    }

    async fn do_query<C>(
        &self,
        client: &mut C,
        portal: &Portal<Statement>,
        _max_rows: usize,
    ) -> PgWireResult<Response>
    where
        C: ClientInfo
            + ClientPortalStore
            + futures::Sink<PgWireBackendMessage>
            + Unpin
            + Send
            + Sync,
        C::PortalStore: pgwire::api::store::PortalStore<Statement = Statement>,
        C::Error: Debug,
        PgWireError: From<<C as futures::Sink<PgWireBackendMessage>>::Error>,
    {
        self.register(client);
        let kept = self
            .early
            .lock()
            .ok()
            .and_then(|mut e| e.remove(&portal.name))
            .filter(|(id, _)| *id == identity(portal))
            .map(|(_, reply)| reply);
        let reply = match kept {
            Some(r) => r,
            None => self.run_portal(portal).await?,
        };
        self.report_mode(client).await?;
        let open = reply.1;
        let results = self.after_failure(client, reply.0, open)?;
        let format = |i| portal.result_column_format.format_for(i);
        // a request of several statements answers with its last one's result
        let mut last: Vec<Response> = responses(results, &format)?.pop().into_iter().collect();
        mark_transaction(&mut last, client.transaction_status(), open);
        Ok(last.pop().unwrap_or(Response::EmptyQuery))
    }
}

/// A portal's identity while it lives (a portal bound again under its name is another).
fn identity(portal: &Portal<Statement>) -> usize {
    std::ptr::from_ref(portal) as usize
}

impl Connection {
    /// Runs a bound portal's request.
    async fn run_portal(&self, portal: &Portal<Statement>) -> PgWireResult<Reply> {
        let numbered = &portal.statement.statement;
        let types = parameter_types(&portal.statement);
        let params = crate::params::values(portal, numbered, &types)?;
        self.run(Job::Run {
            text: numbered.text.clone(),
            params: Some(params),
        })
        .await
    }
}
