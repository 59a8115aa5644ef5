//! `tdlite serve`: one tdlite database shared by many processes, spoken to over the
//! PostgreSQL frontend/backend protocol (v3) by any PostgreSQL client (psql, psycopg, JDBC,
//! tokio-postgres). Clients send Teradata SQL; tdlite answers as it answers an embedded
//! session. docs/server.md is the user's page.
//!
//! Layers: `lib` (listening, the connection limit, timeouts, shutdown) → `handler` (pgwire's
//! handlers: simple and extended query protocol, errors) → `worker` (a connection's session
//! thread) and `params` / `wire_types` (values in and out). The crate uses `tdlite` only
//! through its public API.
//!
//! Invariants: nothing listens beyond loopback unless the caller says so
//! ([`Config::allow_remote`]); each connection is one tdlite session, and a request that
//! waits (a consume on an empty queue) blocks only its own connection; a connection the
//! server closes (idle timeout, shutdown) has its uncommitted work rolled back.

pub mod auth;
pub mod handler;
pub mod params;
pub mod settings;
pub mod wire_types;
pub mod worker;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};
use tdlite::Database;
use tokio::net::TcpListener;

/// How a server listens.
#[derive(Debug, Clone)]
pub struct Config {
    /// The address to listen on (`127.0.0.1:5433` by default).
    pub listen: SocketAddr,
    /// Whether an address other than loopback may be listened on.
    pub allow_remote: bool,
    /// The most connections served at once; one more is refused with SQLSTATE 53300.
    pub max_connections: usize,
    /// A connection that sends no request for this long is closed (its uncommitted work
    /// rolled back); `None`: never.
    pub idle_timeout: Option<Duration>,
    /// Each request's bound (tdlite's 9920 past it); `None`: none. A consume's wait for a
    /// row is not bounded by it (docs/errors.md, 9920).
    pub statement_timeout: Option<Duration>,
    /// On SIGTERM: how long open transactions may go on before they are rolled back.
    pub shutdown_grace: Duration,
    /// The users who may log in (SCRAM-SHA-256); `None`: anyone, without a password.
    pub users: Option<Arc<auth::Users>>,
    /// TLS: a PEM certificate chain and its private key; `None`: no TLS.
    pub tls: Option<(Vec<u8>, Vec<u8>)>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 5433)),
            allow_remote: false,
            max_connections: 100,
            idle_timeout: None,
            statement_timeout: None,
            shutdown_grace: Duration::from_secs(10),
            users: None,
            tls: None,
        }
    }
}

/// The server's open connections.
type Registry = Arc<Mutex<Vec<Weak<handler::Connection>>>>;

/// A bound listener, ready to serve.
pub struct Server {
    listener: TcpListener,
    db: Database,
    config: Config,
    open: Arc<AtomicUsize>,
    /// Every open connection, by its cancel key (PostgreSQL cancel requests).
    cancels: handler::Cancels,
    connections: Registry,
    scram: Option<handler::Scram>,
    tls: Option<pgwire::tokio::TlsAcceptor>,
    /// Bounds the connections being refused at once (each holds a socket until it has
    /// read a startup packet or timed out).
    refusing: Arc<tokio::sync::Semaphore>,
}

/// The most connections being refused at once; past it, one over the limit is closed at once.
const REFUSING: usize = 64;
/// How long a refused connection may take to send its startup packet.
const REFUSE_WITHIN: Duration = Duration::from_secs(5);

impl Server {
    /// Binds `config.listen` for `db`.
    ///
    /// # Errors
    /// An address beyond loopback without `allow_remote`, or the OS's error binding it.
    pub async fn bind(db: Database, config: Config) -> std::io::Result<Server> {
        if !config.listen.ip().is_loopback() && !config.allow_remote {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!(
                    "{} is not a loopback address: listening beyond this machine needs --allow-remote",
                    config.listen
                ),
            ));
        }
        let tls = match &config.tls {
            Some((cert, key)) => Some(auth::tls(cert, key)?),
            None => None,
        };
        let scram = config
            .users
            .as_ref()
            .map(|users| Arc::new(auth::scram(users.clone())));
        let listener = TcpListener::bind(config.listen).await?;
        Ok(Server {
            scram,
            tls,
            listener,
            db,
            config,
            open: Arc::new(AtomicUsize::new(0)),
            cancels: Arc::new(Mutex::new(std::collections::HashMap::new())),
            connections: Arc::new(Mutex::new(Vec::new())),
            refusing: Arc::new(tokio::sync::Semaphore::new(REFUSING)),
        })
    }

    /// The address the server listens on (with the port the OS chose for port 0).
    ///
    /// # Errors
    /// The OS's.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// The connections open now.
    fn live(&self) -> Vec<Arc<handler::Connection>> {
        let Ok(mut list) = self.connections.lock() else {
            return Vec::new();
        };
        list.retain(|w| w.strong_count() > 0);
        list.iter().filter_map(Weak::upgrade).collect()
    }

    /// Serves connections until the listener fails (or the future is dropped: the
    /// connections already open go on).
    ///
    /// # Errors
    /// The listener's error.
    pub async fn run(&self) -> std::io::Result<()> {
        let mut tick = tokio::time::interval(Duration::from_millis(500));
        loop {
            let (socket, peer) = tokio::select! {
                accepted = self.listener.accept() => match accepted {
                    Ok(pair) => pair,
                    // a connection's own failure, or resources running out for a moment:
                    // the server goes on (only a broken listener ends it)
                    Err(e) if !listener_broken(&e) => {
                        eprintln!("tdlite serve: accept: {e}");
                        if out_of_resources(&e) {
                            tokio::time::sleep(Duration::from_millis(50)).await;
                        }
                        continue;
                    }
                    Err(e) => return Err(e),
                },
                _ = tick.tick() => {
                    self.close_idle();
                    continue;
                }
            };
            let open = self.open.clone();
            if open.fetch_add(1, Ordering::SeqCst) >= self.config.max_connections {
                open.fetch_sub(1, Ordering::SeqCst);
                eprintln!(
                    "tdlite serve: refused {peer}: {} connections are open",
                    self.config.max_connections
                );
                // bounded in number and in time, so that idle sockets cannot pile up
                tokio::spawn(refuse(socket, self.cancels.clone(), self.refusing.clone()));
                continue;
            }
            let (socket, link) = match split(socket) {
                Ok(pair) => pair,
                Err(e) => {
                    eprintln!("tdlite serve: connection from {peer}: {e}");
                    open.fetch_sub(1, Ordering::SeqCst);
                    continue;
                }
            };
            let worker = match worker::Worker::start(&self.db, self.config.statement_timeout) {
                Ok(w) => w,
                Err(e) => {
                    eprintln!("tdlite serve: no session for {peer}: {e}");
                    open.fetch_sub(1, Ordering::SeqCst);
                    continue;
                }
            };
            let conn = handler::Connection::new(worker, link, self.cancels.clone());
            if let Ok(mut list) = self.connections.lock() {
                list.push(Arc::downgrade(&conn));
            }
            let handlers = Arc::new(handler::Handlers {
                conn,
                scram: self.scram.clone(),
            });
            let tls = self.tls.clone();
            tokio::spawn(async move {
                // counted out however the task ends (a panic included)
                let _open = Counted(open);
                if let Err(e) = pgwire::tokio::process_socket(socket, tls, handlers).await {
                    eprintln!("tdlite serve: connection from {peer}: {e}");
                }
            });
        }
    }

    /// Closes the connections idle past the idle timeout.
    fn close_idle(&self) {
        let Some(limit) = self.config.idle_timeout else {
            return;
        };
        for c in self.live() {
            if matches!(c.idle(), (Some(t), _) if t > limit) {
                eprintln!(
                    "tdlite serve: closed a connection idle for {} s",
                    limit.as_secs()
                );
                c.close(false);
            }
        }
    }

    /// Shuts down after a SIGTERM (the accept loop already stopped): connections outside a
    /// transaction and between requests are closed at once, the others as they get there,
    /// until `shutdown_grace` has passed; then the rest are cancelled and closed (their
    /// transactions roll back), and a database on disk is checkpointed.
    ///
    /// # Errors
    /// The checkpoint's.
    pub async fn shutdown(&self) -> std::io::Result<()> {
        let until = Instant::now() + self.config.shutdown_grace;
        loop {
            for c in self.live() {
                if matches!(c.idle(), (Some(_), false)) {
                    // the reading side only: a reply still being written gets out
                    c.close(true);
                }
            }
            if self.open.load(Ordering::SeqCst) == 0 || Instant::now() >= until {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        for c in self.live() {
            c.close(false);
        }
        // the closed connections' sessions end (and roll back) on their threads
        let settle = Instant::now() + Duration::from_secs(5);
        while self.open.load(Ordering::SeqCst) > 0 && Instant::now() < settle {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        if self.db.path().is_some() {
            self.db
                .checkpoint()
                .map_err(|e| std::io::Error::other(e.to_string()))?;
        }
        Ok(())
    }
}

/// An accept error that says the listening socket itself is unusable (Linux's EBADF, EFAULT,
/// EINVAL, ENOTSOCK); any other is the new connection's (a reset, a network error, a
/// firewall's EPERM) or a passing shortage.
fn listener_broken(e: &std::io::Error) -> bool {
    matches!(e.raw_os_error(), Some(9 | 14 | 22 | 88))
}

/// An accept error from a shortage that a moment's wait may end (EMFILE, ENFILE, ENOMEM,
/// ENOBUFS).
fn out_of_resources(e: &std::io::Error) -> bool {
    matches!(e.raw_os_error(), Some(12 | 23 | 24 | 105))
}

/// One open connection in the server's count, until dropped.
struct Counted(Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// `socket` and a [`handler::Link`] on the same connection: a handle to notice a client that
/// has gone, and one to close the connection from the server's side.
fn split(socket: tokio::net::TcpStream) -> std::io::Result<(tokio::net::TcpStream, handler::Link)> {
    let std_socket = socket.into_std()?;
    let watch = std_socket.try_clone()?;
    watch.set_nonblocking(true)?;
    let closer = std_socket.try_clone()?;
    Ok((
        tokio::net::TcpStream::from_std(std_socket)?,
        handler::Link {
            watch: tokio::net::TcpStream::from_std(watch)?,
            closer,
        },
    ))
}

/// Answers a connection over the limit with PostgreSQL's `too_many_connections` (53300)
/// error and closes it, after reading its startup packet (and refusing SSL if asked). A
/// cancel request is not refused: it comes on a connection of its own, so a server at its
/// limit must still act on it (a client's Ctrl-C would do nothing otherwise). The first packet
/// must come within a second; then a cancel is acted on (without a bound of its own: it waits
/// for the request it cancels), and anything else is answered within `REFUSE_WITHIN` if one
/// of the `refusing` permits is free, else the socket is closed at once.
async fn refuse(
    mut socket: tokio::net::TcpStream,
    cancels: handler::Cancels,
    refusing: Arc<tokio::sync::Semaphore>,
) {
    let Ok(Some(first)) = tokio::time::timeout(FIRST_PACKET, read_packet(&mut socket)).await else {
        return;
    };
    if code_of(&first) == Some(80_877_102) {
        // CancelRequest: the process id, then the secret key
        if let Some(pid) = first.get(4..8) {
            let pid = i32::from_be_bytes([pid[0], pid[1], pid[2], pid[3]]);
            let secret = bytes::Bytes::copy_from_slice(first.get(8..).unwrap_or_default());
            handler::Canceller(cancels).cancel_key((pid, secret)).await;
        }
        return;
    }
    let Ok(_permit) = refusing.try_acquire_owned() else {
        return;
    };
    let _ = tokio::time::timeout(REFUSE_WITHIN, too_many(socket, first)).await;
}

/// How long a connection over the limit may take to send its first packet.
const FIRST_PACKET: Duration = Duration::from_secs(1);

/// One packet of the startup phase (length, then body; the body cut at 10,000 bytes), or
/// `None` if the client went.
async fn read_packet(socket: &mut tokio::net::TcpStream) -> Option<Vec<u8>> {
    use tokio::io::AsyncReadExt;
    let mut len = [0u8; 4];
    socket.read_exact(&mut len).await.ok()?;
    let n = usize::try_from(u32::from_be_bytes(len))
        .unwrap_or(0)
        .saturating_sub(4);
    let mut body = vec![0u8; n.min(10_000)];
    socket.read_exact(&mut body).await.ok()?;
    Some(body)
}

/// The request code a startup-phase packet starts with.
fn code_of(body: &[u8]) -> Option<u32> {
    body.get(..4)
        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// Says no to SSL (or GSS) if `first` asks, then answers the startup message with FATAL
/// 53300.
async fn too_many(mut socket: tokio::net::TcpStream, first: Vec<u8>) {
    use tokio::io::AsyncWriteExt;
    let mut body = first;
    for _ in 0..2 {
        // an SSLRequest (80877103) or GSSENCRequest: say no, then read the startup message
        if !matches!(code_of(&body), Some(80_877_103 | 80_877_104)) {
            break;
        }
        if socket.write_all(b"N").await.is_err() {
            return;
        }
        match read_packet(&mut socket).await {
            Some(next) => body = next,
            None => return,
        }
    }
    let mut fields = Vec::new();
    for (k, v) in [
        (b'S', "FATAL"),
        (b'V', "FATAL"),
        (b'C', "53300"),
        (b'M', "sorry, too many clients already"),
    ] {
        fields.push(k);
        fields.extend_from_slice(v.as_bytes());
        fields.push(0);
    }
    fields.push(0);
    let mut msg = vec![b'E'];
    msg.extend_from_slice(&u32::try_from(fields.len() + 4).unwrap_or(0).to_be_bytes());
    msg.extend_from_slice(&fields);
    let _ = socket.write_all(&msg).await;
}

/// Serves `db` as `config` says, on a runtime of its own, until SIGTERM or SIGINT (then
/// [`Server::shutdown`]) or a listener failure; calls `ready` with the bound address first.
///
/// # Errors
/// As [`Server::bind`], [`Server::run`] and [`Server::shutdown`].
pub fn serve(db: Database, config: Config, ready: impl FnOnce(SocketAddr)) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let server = Server::bind(db, config).await?;
        ready(server.local_addr()?);
        tokio::select! {
            r = server.run() => r,
            () = stop_signal() => {
                eprintln!("tdlite serve: shutting down");
                server.shutdown().await
            }
        }
    })
}

/// Resolves at SIGTERM or SIGINT (Ctrl-C).
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
