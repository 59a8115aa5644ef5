//! A blocking client for `tdlite serve`: Teradata SQL over the PostgreSQL wire protocol, with
//! results as tdlite's own [`Rows`] (Arrow batches), so that code written against an embedded
//! session runs against a server unchanged (the Python package's remote mode is built on it).
//!
//! PostgreSQL's message framing and SCRAM are `postgres-protocol`'s; TLS is rustls's. What this
//! crate adds is the conversation tdlite's server holds (docs/server.md):
//! - a request without parameters goes as one simple query, so a request of several statements
//!   answers with one [`Reply`] per statement, as an embedded session does;
//! - a request with parameters goes through the extended protocol (Parse, Bind, Describe of
//!   the portal, Execute, Sync): the server runs it at the Describe and describes the result it
//!   really has, a consume included;
//! - many parameter sets share one Parse and go in pipelined chunks ([`Client::query_many`]);
//! - results come as text and are read back into the Arrow types the server mapped from
//!   (numeric's precision and scale from the type modifier) — [`convert`].
//!
//! Invariant: a [`Client`] is always between requests when a call returns (every reply is read
//! up to its ReadyForQuery, also when a value in it did not convert), or broken for good (an
//! I/O failure or a message it cannot read: every later call fails at once).

mod connect;
pub mod convert;
mod params;
mod transport;

use bytes::BytesMut;
use postgres_protocol::message::{backend, frontend};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::Duration;
use tdlite::{Rows, Value};

pub use connect::CancelToken;

/// Where and how to connect (its `Debug` leaves the password out).
#[derive(Clone)]
pub struct Config {
    /// The server's host name or address.
    pub host: String,
    /// Its port.
    pub port: u16,
    /// The user (any name when the server has no users).
    pub user: String,
    /// The password, for a server with users (SCRAM-SHA-256).
    pub password: Option<String>,
    /// TLS: `None` for a plain connection, else the PEM file of the certificate authority
    /// (or the self-signed certificate, which must not be marked as a CA: rustls refuses a
    /// CA certificate as a server's) the server's certificate must be signed by; the
    /// server's name is checked against `host`.
    pub tls_root: Option<PathBuf>,
    /// Session settings sent at login (`tmode`, `default_database`, `consume_timeout`, `strict`:
    /// docs/server.md).
    pub settings: Vec<(String, String)>,
    /// How long to wait for the connection to be made (not for requests: a consume may wait
    /// for as long as it must).
    pub connect_timeout: Duration,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "…"))
            .field("tls_root", &self.tls_root)
            .field("settings", &self.settings)
            .field("connect_timeout", &self.connect_timeout)
            .finish()
    }
}

impl Config {
    /// A plain connection to `host:port` as `user`, no settings, a 10 s connect timeout.
    pub fn new(host: &str, port: u16, user: &str) -> Config {
        Config {
            host: host.to_string(),
            port,
            user: user.to_string(),
            password: None,
            tls_root: None,
            settings: Vec::new(),
            connect_timeout: Duration::from_secs(10),
        }
    }
}

/// Why a call failed.
#[derive(Debug)]
pub enum Error {
    /// The server refused the request (or the login): its message leads with the Teradata
    /// code, `[Error 3807] Object 'q' does not exist.`
    Server {
        /// The Teradata error number (0 if the message carries none).
        code: u32,
        /// PostgreSQL's SQLSTATE.
        sqlstate: String,
        /// The message, without its `[Error NNNN]` lead.
        message: String,
        /// A FATAL error: the server ended the connection with it.
        fatal: bool,
    },
    /// The connection failed (refused, closed, reset); the client is broken.
    Io(std::io::Error),
    /// The server said something this client cannot read; the client is broken (unless
    /// the whole reply could still be read: a value that did not convert).
    Protocol(String),
    /// A parameter value that cannot be sent (a PERIOD, a set of another width, bytes among
    /// text); nothing was sent, the client goes on.
    Value(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Server { code, message, .. } if *code > 0 => {
                write!(f, "[Error {code}] {message}")
            }
            Error::Server {
                sqlstate, message, ..
            } => write!(f, "{message} (SQLSTATE {sqlstate})"),
            Error::Io(e) => write!(f, "the connection to the server failed: {e}"),
            Error::Protocol(m) | Error::Value(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}

/// One statement's answer.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The command tag (`SELECT 2`, `INSERT 0 1`, `CREATE TABLE`), its count left out.
    pub command: String,
    /// The activity count: rows returned or changed.
    pub activity_count: u64,
    /// The rows, for a statement that returns some.
    pub rows: Option<Rows>,
}

/// A connection to a tdlite server: one session.
pub struct Client {
    stream: transport::Transport,
    /// Bytes read and not yet parsed.
    input: BytesMut,
    /// The status of the last ReadyForQuery: `I` idle, `T` in a transaction, `E` failed.
    status: u8,
    cancel: CancelToken,
    /// Set by an I/O or protocol failure: the conversation's place is lost.
    broken: bool,
    /// The session mode the server last reported (ParameterStatus `tmode`: `ANSI`, `TERA`).
    tmode: Option<String>,
}

/// How many parameter sets go to the server before their replies are read…
const CHUNK: usize = 256;
/// …and how many bytes of them at most (the server reads a set at a time and writes its
/// reply: a chunk that fits in the sockets' buffers cannot leave both sides writing).
const CHUNK_BYTES: usize = 32 * 1024;

impl Client {
    /// Connects and logs in.
    ///
    /// # Errors
    /// The connection's, the TLS handshake's, or the server's refusal of the login (a wrong
    /// password, a setting it cannot apply).
    pub fn connect(config: &Config) -> Result<Client, Error> {
        connect::connect(config)
    }

    /// Whether the session is inside a transaction (as the server last reported).
    pub fn in_transaction(&self) -> bool {
        self.status != b'I'
    }

    /// A handle that cancels this client's running request from another thread.
    pub fn cancel_token(&self) -> CancelToken {
        self.cancel.clone()
    }

    /// The session mode as the server last reported it (`ANSI` or `TERA`), if it did: after
    /// a request that switched it (`SET SESSION TRANSACTION`; the mode asked for at login is
    /// not reported).
    pub fn reported_mode(&self) -> Option<&str> {
        self.tmode.as_deref()
    }

    /// The server's process id for this connection (its session's number in logs).
    pub fn process_id(&self) -> i32 {
        self.cancel.process_id
    }

    /// Runs `sql` as one request (simple query protocol): one [`Reply`] per statement.
    ///
    /// # Errors
    /// The server's error for the request (nothing of it is left), or a broken connection.
    pub fn query(&mut self, sql: &str) -> Result<Vec<Reply>, Error> {
        self.usable()?;
        let mut out = BytesMut::new();
        frontend::query(sql, &mut out).map_err(|e| Error::Protocol(e.to_string()))?;
        self.send(&out)?;
        self.replies()
    }

    /// Runs `sql` with `params` for its `?` markers (extended protocol): the reply of its
    /// last statement (the extended protocol answers an Execute with one result).
    ///
    /// # Errors
    /// As [`Client::query`]; a value that cannot be sent (a PERIOD) is [`Error::Value`],
    /// before anything is sent.
    pub fn query_with(&mut self, sql: &str, params: &[Value]) -> Result<Reply, Error> {
        let mut replies = self.query_many(sql, std::slice::from_ref(&params.to_vec()))?;
        replies
            .pop()
            .ok_or_else(|| Error::Protocol("the server answered without a result".into()))
    }

    /// Runs `sql` once per parameter set, parsed once, the sets sent in pipelined chunks:
    /// one reply per set. Stops at the first set that fails (its error; the sets before it
    /// have run: wrap the call in a transaction to have all or none).
    ///
    /// # Errors
    /// As [`Client::query_with`]; every set is checked before anything is sent.
    pub fn query_many(&mut self, sql: &str, sets: &[Vec<Value>]) -> Result<Vec<Reply>, Error> {
        self.usable()?;
        let (types, texts) = params::texts(sets)?;
        let protocol = |e: std::io::Error| Error::Protocol(e.to_string());
        // each set's messages: Bind, Describe of the portal, Execute
        let mut sets = texts
            .into_iter()
            .map(|set| -> Result<BytesMut, Error> {
                let mut m = BytesMut::new();
                params::bind(set, &mut m)?;
                frontend::describe(b'P', "", &mut m).map_err(protocol)?;
                frontend::execute("", 0, &mut m).map_err(protocol)?;
                Ok(m)
            })
            .peekable();
        let mut replies = Vec::with_capacity(sets.len());
        let mut out = BytesMut::new();
        frontend::parse("", sql, types.iter().copied(), &mut out).map_err(protocol)?;
        while sets.peek().is_some() {
            let mut in_chunk = 0;
            // a chunk stays within its bounds but always takes one set (the server reads a
            // whole Bind before it answers, so a lone big set cannot leave both sides writing)
            while let Some(next) = sets.peek() {
                let fits = match next {
                    Ok(m) => in_chunk < CHUNK && out.len() + m.len() <= CHUNK_BYTES,
                    Err(_) => true,
                };
                if in_chunk > 0 && !fits {
                    break;
                }
                match sets.next() {
                    Some(Ok(m)) => out.extend_from_slice(&m),
                    Some(Err(e)) => return Err(e),
                    None => break,
                }
                in_chunk += 1;
            }
            frontend::sync(&mut out);
            self.send(&out)?;
            out.clear();
            replies.extend(self.replies()?);
        }
        Ok(replies)
    }

    /// Ends the conversation politely (Terminate); dropping the client closes it too.
    pub fn close(mut self) {
        let mut out = BytesMut::new();
        frontend::terminate(&mut out);
        let _ = self.send(&out);
    }

    fn usable(&self) -> Result<(), Error> {
        if self.broken {
            return Err(Error::Io(std::io::Error::new(
                std::io::ErrorKind::NotConnected,
                "the connection to the server was lost",
            )));
        }
        Ok(())
    }

    fn send(&mut self, bytes: &[u8]) -> Result<(), Error> {
        let r = self
            .stream
            .write_all(bytes)
            .and_then(|()| self.stream.flush());
        r.map_err(|e| self.fail(Error::Io(e)))
    }

    /// Marks the client broken and gives `e` back.
    fn fail(&mut self, e: Error) -> Error {
        self.broken = true;
        e
    }

    /// The next message from the server.
    fn message(&mut self) -> Result<backend::Message, Error> {
        loop {
            match backend::Message::parse(&mut self.input) {
                Ok(Some(m)) => return Ok(m),
                Ok(None) => {}
                Err(e) => return Err(self.fail(Error::Protocol(e.to_string()))),
            }
            let mut chunk = [0u8; 16 * 1024];
            let n = match self.stream.read(&mut chunk) {
                Ok(0) => {
                    return Err(self.fail(Error::Io(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        "the server closed the connection",
                    ))))
                }
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.fail(Error::Io(e))),
            };
            self.input.extend_from_slice(&chunk[..n]);
        }
    }

    /// The replies up to the next ReadyForQuery, or the first error among them.
    fn replies(&mut self) -> Result<Vec<Reply>, Error> {
        let mut replies = Vec::new();
        let mut error = None;
        let mut columns: Option<Vec<convert::Column>> = None;
        let mut rows: Vec<Vec<Option<bytes::Bytes>>> = Vec::new();
        loop {
            let message = match self.message() {
                Ok(m) => m,
                // a FATAL error closes the connection without a ReadyForQuery: its own
                // message, not the closing, is the answer
                Err(e) => {
                    return Err(match error {
                        Some(server @ Error::Server { fatal: true, .. }) => server,
                        _ => e,
                    })
                }
            };
            match message {
                backend::Message::RowDescription(body) => {
                    columns = Some(convert::columns(&body).map_err(|e| self.fail(e))?);
                    rows.clear();
                }
                backend::Message::DataRow(body) => {
                    rows.push(convert::cells(&body).map_err(|e| self.fail(e))?);
                }
                backend::Message::ParameterStatus(body)
                    if body.name().is_ok_and(|n| n == "tmode") =>
                {
                    self.tmode = body.value().ok().map(str::to_string);
                }
                backend::Message::NoData => columns = None,
                backend::Message::CommandComplete(body) => {
                    let tag = body
                        .tag()
                        .map_err(|e| self.fail(Error::Protocol(e.to_string())))?;
                    let (command, count) = convert::tag(tag);
                    // a value that does not convert fails the call, after the whole reply
                    // is read (the conversation stays in step)
                    match columns
                        .take()
                        .map(|cols| convert::rows(&cols, std::mem::take(&mut rows)))
                        .transpose()
                    {
                        Ok(result) => replies.push(Reply {
                            command,
                            activity_count: count,
                            rows: result,
                        }),
                        Err(e) => {
                            error.get_or_insert(e);
                        }
                    }
                }
                backend::Message::EmptyQueryResponse => {}
                backend::Message::ErrorResponse(body) => {
                    let e = connect::server_error(body.fields()).map_err(|e| self.fail(e))?;
                    // the first error answers the call, unless a FATAL one ends it
                    if error.is_none() || matches!(e, Error::Server { fatal: true, .. }) {
                        error = Some(e);
                    }
                }
                backend::Message::ReadyForQuery(body) => {
                    self.status = body.status();
                    return match error {
                        Some(e) => Err(e),
                        None => Ok(replies),
                    };
                }
                // ParseComplete, BindComplete, notices, parameter statuses: nothing to keep
                _ => {}
            }
        }
    }
}
