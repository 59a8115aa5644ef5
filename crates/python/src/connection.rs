//! `tdlite.connect(...)` and `Connection`, as teradatasql shapes them.
//!
//! `connect(json=None, **params)`: an optional JSON string of parameters, then keyword
//! parameters, which win over the JSON's. teradatasql's connection parameters (`host`, `user`,
//! `password`, `logmech`, `account`, …) are accepted and ignored, unless tdlite's `port` is
//! given: then the connection is a session on a `tdlite serve` (`remote`, backend.rs). Used:
//! `database` (the session's default database, `DATABASE x`), `tmode` (`TERA`, `ANSI` or
//! `DEFAULT`, which is Teradata mode), and tdlite's own `path` (a database folder; without it
//! each connection has a database of its own, in memory). Connections opened with the same
//! `path` in one process share one `Database`, so threads can be producers and consumers of one
//! queue. tdlite's `sync` (`full`, the default, `normal` or `off`; with `path` only) is what a
//! commit waits for (docs/durability.md); a folder open already keeps its mode (asking
//! another is `InterfaceError`). `Database(path=None, sync=None)` (the Python class) shares one
//! database, in memory too, among the connections its `connect` makes.
//!
//! tdlite's `consume_timeout` (seconds; also a property) bounds a consume's wait on an empty
//! queue (9904). tdlite's `strict` (`True` or `False`, the default; also a property) is strict
//! mode: SQL that Teradata lacks is refused with Teradata's error (docs/queues.md).
//!
//! `autocommit` is a property, True by default: each request commits (in ANSI mode the
//! cursor runs `COMMIT` after it). Set to False, the connection starts a transaction before
//! its next request (`BT` in Teradata mode; ANSI mode needs nothing) and `commit()` /
//! `rollback()` end it, as teradatasql does.
//!
//! Invariant: a closed connection refuses every call but `close` with `InterfaceError`; its
//! session is dropped, which rolls back anything uncommitted.

use crate::backend::{Backend, Canceller, Failure, Remote};
use crate::cursor::Cursor;
use crate::errors;
use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock, Weak};
use tdlite::{Database, SessionMode};

/// The databases open in this process, by folder, with their sync mode: a second
/// `connect(path=…)` shares the first.
type OpenDatabases = Mutex<HashMap<PathBuf, (Weak<Database>, tdlite::SyncMode)>>;

fn open_databases() -> &'static OpenDatabases {
    static OPEN: OnceLock<OpenDatabases> = OnceLock::new();
    OPEN.get_or_init(|| Mutex::new(HashMap::new()))
}

/// A connection's session and its state; cursors hold it too.
pub(crate) struct State {
    /// The session, here or on a server; `None` once closed.
    pub(crate) backend: Option<Backend>,
    /// Keeps a shared database open while the connection is (None once closed, so the last
    /// close releases a folder's lock even while Python still holds the objects; None for a
    /// remote session).
    database: Option<Arc<Database>>,
    /// The autocommit property.
    pub(crate) autocommit: bool,
    /// Cancels the session's consume wait or running request (Ctrl-C, `Connection.cancel`).
    pub(crate) cancel: Canceller,
    /// The consume timeout property.
    consume_timeout: Option<f64>,
}

/// The state behind a connection, shared with its cursors.
pub(crate) type Shared = Arc<Mutex<State>>;

/// Locks `state` without blocking other Python threads: a request holds the lock while it
/// runs (a consume for as long as it waits), so waiting for it with the GIL held could stop
/// the very thread that would end it. Waits with the GIL released, then takes the lock with it.
pub(crate) fn lock<'a>(py: Python<'_>, state: &'a Shared) -> parking_lot::MutexGuard<'a, State> {
    loop {
        if let Some(guard) = state.try_lock() {
            return guard;
        }
        py.detach(|| drop(state.lock()));
    }
}

impl State {
    /// The open session, or `InterfaceError` once closed.
    pub(crate) fn session(&mut self) -> PyResult<&mut Backend> {
        self.backend
            .as_mut()
            .ok_or_else(|| errors::interface("the connection is closed"))
    }

    /// Before a request with autocommit off: a transaction is open (BT in Teradata mode).
    pub(crate) fn begin_if_needed(&mut self, py: Python<'_>) -> PyResult<()> {
        let autocommit = self.autocommit;
        let session = self.session()?;
        if !autocommit && session.mode() == SessionMode::Teradata && !session.in_transaction() {
            // without the GIL: a remote session's BT is a round trip to its server
            py.detach(|| session.execute("BT"))
                .map_err(|f| failure(py, f))?;
        }
        Ok(())
    }
}

/// A DB-API connection: one tdlite session.
#[pyclass(module = "tdlite")]
pub struct Connection {
    pub(crate) state: Shared,
    /// Cancels the session's wait without its lock, which the waiting request holds.
    cancel: Canceller,
}

/// connect(json=None, **params) -> Connection
///
/// Opens a connection: one tdlite session. `json` is an optional JSON object of parameters;
/// keyword parameters win over it, as in teradatasql.
///
/// Parameters used: `path` (a database folder, made if missing; connections with the same
/// path in one process share one database; without it, a new database in memory),
/// `sync` (with `path`: `full`, the default, `normal` or `off`, what a commit waits for),
/// `database` (the default database), `tmode` (`TERA`, `ANSI` or `DEFAULT`),
/// `consume_timeout` (seconds a consume waits on an empty queue before error 9904),
/// `strict` (True: refuse tdlite's extensions to Teradata SQL, docs/queues.md).
/// teradatasql's logon parameters (`host`, `user`, `password`, `logmech`, ...) are accepted
/// and ignored, unless `port` is given: then the session is on the `tdlite serve` at `host`
/// (127.0.0.1 by default) and `port`, logged in as `user` (`dbc`) with `password`, over TLS
/// checked against the CA file `sslca` if given. `tdlite.Database(path).connect(...)` shares
/// one database, in memory too.
#[pyfunction]
#[pyo3(signature = (json = None, **params))]
pub fn connect(
    py: Python<'_>,
    json: Option<&Bound<'_, PyString>>,
    params: Option<&Bound<'_, PyDict>>,
) -> PyResult<Connection> {
    let settings = settings(json, params)?;
    if settings.contains_key("port") {
        return remote(py, &settings);
    }
    let sync = sync_mode(settings.get("sync").map(String::as_str))?;
    let database = match settings.get("path") {
        Some(path) => open_shared(path, sync)?,
        None if sync.is_some() => return Err(no_folder_to_sync()),
        None => Arc::new(Database::new()),
    };
    open(py, database, &settings)
}

/// `tdlite.Database(path=None)`: one database that every connection made by its `connect`
/// shares, in memory (without `path`) or in a folder. The teradatasql shim connects through
/// one, as clients of one Teradata system share its data.
#[pyclass(module = "tdlite", name = "Database", frozen)]
pub struct SharedDatabase {
    database: Arc<Database>,
    path: Option<String>,
}

#[pymethods]
impl SharedDatabase {
    #[new]
    #[pyo3(signature = (path = None, sync = None))]
    fn new(path: Option<&str>, sync: Option<&str>) -> PyResult<Self> {
        let sync = sync_mode(sync)?;
        let database = match path {
            Some(path) => open_shared(path, sync)?,
            None if sync.is_some() => return Err(no_folder_to_sync()),
            None => Arc::new(Database::new()),
        };
        Ok(SharedDatabase {
            database,
            path: path.map(str::to_string),
        })
    }

    /// A connection to this database: `tdlite.connect`'s parameters but `path`.
    #[pyo3(signature = (json = None, **params))]
    fn connect(
        &self,
        py: Python<'_>,
        json: Option<&Bound<'_, PyString>>,
        params: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Connection> {
        let settings = settings(json, params)?;
        if settings.contains_key("path") || settings.contains_key("sync") {
            return Err(errors::interface(
                "path and sync are the Database's: a Database's connections share it",
            ));
        }
        if settings.contains_key("port") {
            return Err(errors::interface(
                "a Database's connections are in this process: tdlite.connect(host=..., port=...) reaches a server",
            ));
        }
        open(py, self.database.clone(), &settings)
    }

    /// The folder, or None in memory.
    #[getter]
    fn path(&self) -> Option<String> {
        self.path.clone()
    }

    fn __repr__(&self) -> String {
        match &self.path {
            Some(p) => format!("tdlite.Database({p:?})"),
            None => "tdlite.Database()".to_string(),
        }
    }
}

/// The parameters of `connect`: the JSON string's, then the keywords', names in lower case.
fn settings(
    json: Option<&Bound<'_, PyString>>,
    params: Option<&Bound<'_, PyDict>>,
) -> PyResult<HashMap<String, String>> {
    let mut settings: HashMap<String, String> = HashMap::new();
    if let Some(text) = json {
        let parsed: serde_json::Value = serde_json::from_str(text.to_str()?).map_err(|e| {
            errors::interface(format!("the connection parameters are not JSON: {e}"))
        })?;
        let serde_json::Value::Object(map) = parsed else {
            return Err(errors::interface(
                "the connection parameters are not a JSON object",
            ));
        };
        for (k, v) in map {
            let v = match v {
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            };
            settings.insert(k.to_ascii_lowercase(), v);
        }
    }
    if let Some(params) = params {
        for (k, v) in params.iter() {
            if v.is_none() {
                // `database=None`: as if not given
                continue;
            }
            let v = match v.extract::<bool>() {
                Ok(b) if v.is_instance_of::<pyo3::types::PyBool>() => b.to_string(),
                _ => v.str()?.to_string(),
            };
            settings.insert(k.str()?.to_string().to_ascii_lowercase(), v);
        }
    }
    Ok(settings)
}

/// `sync`: `full`, `normal` or `off` (docs/durability.md), any case.
fn sync_mode(text: Option<&str>) -> PyResult<Option<tdlite::SyncMode>> {
    text.map(|t| {
        t.parse::<tdlite::SyncMode>()
            .map_err(|_| errors::interface(format!("sync is full, normal or off, not {t}")))
    })
    .transpose()
}

fn no_folder_to_sync() -> PyErr {
    errors::interface("sync applies to a database folder: give path too")
}

/// A connection with `settings` (all but `path`) to `database`.
fn open(
    py: Python<'_>,
    database: Arc<Database>,
    settings: &HashMap<String, String>,
) -> PyResult<Connection> {
    let mode = session_mode(settings)?;
    // the default database in Teradata mode: in ANSI mode the statement would open a
    // transaction that nothing commits
    let mut session = database.session_in(SessionMode::Teradata);
    let consume_timeout = consume_timeout(settings)?;
    session.set_consume_timeout(consume_timeout.map(std::time::Duration::from_secs_f64));
    session.set_strict(strict(settings)?);
    if let Some(db) = settings.get("database").filter(|d| !d.is_empty()) {
        let id = session.id();
        session
            .execute(&format!("DATABASE \"{}\"", db.replace('"', "\"\"")))
            .map_err(|e| errors::engine_error(py, id, &e))?;
    }
    session
        .set_mode(mode)
        .map_err(|e| errors::internal(e.to_string()))?;
    Ok(Connection::over(
        Backend::Local(Box::new(session)),
        Some(database),
        consume_timeout,
    ))
}

/// A connection to the `tdlite serve` at `host` (127.0.0.1 by default) and `port`: `user`
/// (`dbc` by default) and `password` log in, `sslca` (a PEM file of the authority that signed
/// the server's certificate) asks for TLS, and `tmode`, `database`, `consume_timeout`,
/// `strict` go to the server for the session. `path` and `sync` are the server's.
fn remote(py: Python<'_>, settings: &HashMap<String, String>) -> PyResult<Connection> {
    if settings.contains_key("path") || settings.contains_key("sync") {
        return Err(errors::interface(
            "path and sync belong to the server (tdlite serve PATH): give host and port only",
        ));
    }
    let port = settings
        .get("port")
        .and_then(|p| p.trim().parse::<u16>().ok())
        .filter(|p| *p > 0)
        .ok_or_else(|| errors::interface("port is a TCP port number"))?;
    let host = settings
        .get("host")
        .filter(|h| !h.is_empty())
        .map_or("127.0.0.1", String::as_str);
    let user = settings
        .get("user")
        .filter(|u| !u.is_empty())
        .map_or("dbc", String::as_str);
    let mode = session_mode(settings)?;
    let strict = strict(settings)?;
    let consume_timeout = consume_timeout(settings)?;
    let mut config = tdlite_client::Config::new(host, port, user);
    config.password = settings.get("password").cloned();
    config.tls_root = settings.get("sslca").map(PathBuf::from);
    // teradatasql's ways of asking for encryption: never answered by a plain connection
    let wants_tls = settings.get("sslmode").is_some_and(|m| {
        matches!(
            m.to_ascii_uppercase().as_str(),
            "REQUIRE" | "VERIFY-CA" | "VERIFY-FULL"
        )
    }) || settings
        .get("encryptdata")
        .is_some_and(|e| e.eq_ignore_ascii_case("true"));
    if wants_tls && config.tls_root.is_none() {
        return Err(errors::interface(
            "encryption asked for (sslmode, encryptdata): give sslca, the PEM file of the \
             authority that signed the server's certificate",
        ));
    }
    let mut send = |name: &str, value: String| config.settings.push((name.to_string(), value));
    if mode == SessionMode::Ansi {
        send("tmode", "ANSI".to_string());
    }
    if strict {
        send("strict", "true".to_string());
    }
    if let Some(t) = consume_timeout {
        send("consume_timeout", t.to_string());
    }
    if let Some(db) = settings.get("database").filter(|d| !d.is_empty()) {
        send("default_database", db.clone());
    }
    let client = py
        .detach(|| tdlite_client::Client::connect(&config))
        .map_err(|e| match e {
            tdlite_client::Error::Server { code, message, .. } if code > 0 => {
                errors::database_error(py, 0, code, &message)
            }
            other => errors::connection(format!(
                "cannot connect to tdlite serve at {host}:{port}: {other}"
            )),
        })?;
    let backend = Backend::Remote(Box::new(Remote {
        client,
        mode,
        strict,
    }));
    Ok(Connection::over(backend, None, consume_timeout))
}

/// `tmode`: `TERA`, `ANSI` or `DEFAULT` (Teradata mode).
fn session_mode(settings: &HashMap<String, String>) -> PyResult<SessionMode> {
    match settings
        .get("tmode")
        .map(|m| m.to_ascii_uppercase())
        .as_deref()
    {
        None | Some("DEFAULT" | "TERA") => Ok(SessionMode::Teradata),
        Some("ANSI") => Ok(SessionMode::Ansi),
        Some(other) => Err(errors::interface(format!(
            "tmode is TERA, ANSI or DEFAULT, not {other}"
        ))),
    }
}

/// `strict`: True or False (the default).
fn strict(settings: &HashMap<String, String>) -> PyResult<bool> {
    match settings
        .get("strict")
        .map(|s| s.to_ascii_lowercase())
        .as_deref()
    {
        None | Some("false" | "0") => Ok(false),
        Some("true" | "1") => Ok(true),
        Some(other) => Err(errors::interface(format!(
            "strict is True or False, not {other}"
        ))),
    }
}

/// `consume_timeout`: seconds, if given.
fn consume_timeout(settings: &HashMap<String, String>) -> PyResult<Option<f64>> {
    settings
        .get("consume_timeout")
        .map(|t| seconds(t))
        .transpose()
}

/// A request's failure as Python's exception.
pub(crate) fn failure(py: Python<'_>, f: Failure) -> PyErr {
    match f {
        Failure::Closed => errors::interface("the connection is closed"),
        Failure::Database(id, code, text) => errors::database_error(py, id, code, &text),
        Failure::Connection(m) => errors::connection(m),
        Failure::Value(m) => errors::programming(m),
        Failure::Panicked => errors::internal("the request stopped on an internal error"),
    }
}

/// A number of seconds (`consume_timeout`): finite, not negative.
fn seconds(text: &str) -> PyResult<f64> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0 && *s <= 1e9)
        .ok_or_else(|| errors::interface(format!("{text} is not a number of seconds")))
}

/// The database folder at `path`, shared with this process's other connections to it, or
/// newly opened (with `sync`, Full by default). Asking an open one for another sync mode is
/// `InterfaceError`, as is a folder that cannot be opened.
fn open_shared(path: &str, sync: Option<tdlite::SyncMode>) -> PyResult<Arc<Database>> {
    let folder = PathBuf::from(path);
    // the folder exists before its name is made canonical, so every spelling of it meets
    let _ = std::fs::create_dir_all(&folder);
    let key = std::fs::canonicalize(&folder).unwrap_or_else(|_| folder.clone());
    let mut open = open_databases().lock();
    if let Some((db, mode)) = open
        .get(&key)
        .and_then(|(w, m)| w.upgrade().map(|d| (d, *m)))
    {
        if sync.is_some_and(|s| s != mode) {
            return Err(errors::interface(format!(
                "the database at {path} is open in this process with sync {mode:?}"
            )));
        }
        return Ok(db);
    }
    let mode = sync.unwrap_or_default();
    let options = tdlite::Options {
        sync: mode,
        ..Default::default()
    };
    let db = Database::open_with(&folder, options)
        .map(Arc::new)
        .map_err(|e| errors::interface(format!("cannot open the database at {path}: {e}")))?;
    open.retain(|_, (w, _)| w.strong_count() > 0);
    open.insert(key, (Arc::downgrade(&db), mode));
    Ok(db)
}

#[pymethods]
impl Connection {
    /// A new cursor on this connection.
    fn cursor(slf: &Bound<'_, Self>) -> PyResult<Cursor> {
        lock(slf.py(), &slf.borrow().state).session()?;
        Ok(Cursor::new(
            slf.clone().unbind(),
            slf.borrow().state.clone(),
        ))
    }

    /// Commits the transaction (`ET` in Teradata mode, `COMMIT` in ANSI mode); nothing to do
    /// with autocommit on.
    fn commit(&self, py: Python<'_>) -> PyResult<()> {
        self.end(py, true)
    }

    /// Rolls the transaction back; nothing to do with autocommit on.
    fn rollback(&self, py: Python<'_>) -> PyResult<()> {
        self.end(py, false)
    }

    /// Closes the connection: the session ends, rolling back what is uncommitted. Closing a
    /// closed connection does nothing.
    fn close(&self, py: Python<'_>) {
        let mut state = lock(py, &self.state);
        // the session first (its rollback needs the database), then the database
        state.backend = None;
        state.database = None;
    }

    /// Stops what this connection is doing, from another thread: a consume waiting on an
    /// empty queue fails with 9905, a running request with 3110 (rolled back). True if
    /// something was stopped (remote: if the server was asked; its answer to the request
    /// says what happened).
    fn cancel(&self, py: Python<'_>) -> bool {
        let cancel = self.cancel.clone();
        py.detach(move || cancel.cancel())
    }

    /// Whether each request commits by itself (True by default).
    #[getter]
    fn get_autocommit(&self, py: Python<'_>) -> PyResult<bool> {
        let mut state = lock(py, &self.state);
        state.session()?;
        Ok(state.autocommit)
    }

    /// How long a consume waits on an empty queue before it fails with 9904, in seconds;
    /// None (the default) waits until a row comes.
    #[getter]
    fn get_consume_timeout(&self, py: Python<'_>) -> PyResult<Option<f64>> {
        let mut state = lock(py, &self.state);
        state.session()?;
        Ok(state.consume_timeout)
    }

    #[setter]
    fn set_consume_timeout(&self, py: Python<'_>, seconds: Option<f64>) -> PyResult<()> {
        if let Some(s) = seconds {
            if !(s.is_finite() && (0.0..=1e9).contains(&s)) {
                return Err(errors::interface(
                    "consume_timeout is a number of seconds or None",
                ));
            }
        }
        let mut state = lock(py, &self.state);
        let current = state.consume_timeout;
        match state.session()? {
            Backend::Local(s) => {
                s.set_consume_timeout(seconds.map(std::time::Duration::from_secs_f64));
            }
            Backend::Remote(_) if seconds != current => {
                return Err(errors::not_supported(
                    "a remote session's consume_timeout is set at connect (connect(consume_timeout=...))",
                ))
            }
            Backend::Remote(_) => {}
        }
        state.consume_timeout = seconds;
        Ok(())
    }

    /// Strict mode: SQL that Teradata lacks (tdlite's extensions) is refused with
    /// Teradata's error (docs/queues.md). False by default.
    #[getter]
    fn get_strict(&self, py: Python<'_>) -> PyResult<bool> {
        let mut state = lock(py, &self.state);
        Ok(state.session()?.is_strict())
    }

    #[setter]
    fn set_strict(&self, py: Python<'_>, on: &Bound<'_, PyAny>) -> PyResult<()> {
        if !on.is_instance_of::<pyo3::types::PyBool>() {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "strict is True or False",
            ));
        }
        let on: bool = on.extract()?;
        let mut state = lock(py, &self.state);
        match state.session()? {
            Backend::Local(s) => s.set_strict(on),
            Backend::Remote(r) if r.strict != on => {
                return Err(errors::not_supported(
                    "a remote session's strict mode is set at connect (connect(strict=...))",
                ))
            }
            Backend::Remote(_) => {}
        }
        Ok(())
    }

    #[setter]
    fn set_autocommit(&self, py: Python<'_>, on: &Bound<'_, PyAny>) -> PyResult<()> {
        if !on.is_instance_of::<pyo3::types::PyBool>() {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "autocommit is True or False",
            ));
        }
        let on: bool = on.extract()?;
        if on && !lock(py, &self.state).autocommit {
            // turning it on ends the open transaction as a commit would
            self.end(py, true)?;
        }
        let mut state = lock(py, &self.state);
        state.session()?;
        state.autocommit = on;
        Ok(())
    }

    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    /// Leaving `with`: the connection closes (as teradatasql's does; uncommitted work rolls
    /// back).
    fn __exit__(
        &self,
        py: Python<'_>,
        _kind: Option<&Bound<'_, PyAny>>,
        _value: Option<&Bound<'_, PyAny>>,
        _traceback: Option<&Bound<'_, PyAny>>,
    ) -> bool {
        self.close(py);
        false
    }
}

impl Connection {
    /// COMMIT (`commit`) or ROLLBACK of the open transaction, if there is one.
    fn end(&self, py: Python<'_>, commit: bool) -> PyResult<()> {
        let mut state = lock(py, &self.state);
        let session = state.session()?;
        if !session.has_open_work() {
            return Ok(());
        }
        let sql = match (&*session, session.mode(), commit) {
            // a server takes a driver's words and ends the transaction as its mode does
            (Backend::Remote(_), _, true) => "COMMIT",
            (Backend::Local(_), SessionMode::Teradata, true) => "ET",
            (Backend::Local(_), SessionMode::Ansi, true) => "COMMIT",
            (_, _, false) => "ROLLBACK",
        };
        // without the GIL: a remote session's end is a round trip to its server
        match py.detach(|| session.execute(sql)) {
            Ok(_) => Ok(()),
            // ROLLBACK reports itself as error 3514 in Teradata mode: the rollback happened
            Err(Failure::Database(_, 3514, _)) if !commit => Ok(()),
            Err(f) => Err(failure(py, f)),
        }
    }

    /// A connection over `backend`, keeping `database` open while it lives.
    fn over(
        backend: Backend,
        database: Option<Arc<Database>>,
        consume_timeout: Option<f64>,
    ) -> Self {
        let cancel = backend.canceller();
        Connection {
            cancel: cancel.clone(),
            state: Arc::new(Mutex::new(State {
                cancel,
                backend: Some(backend),
                database,
                autocommit: true,
                consume_timeout,
            })),
        }
    }
}
