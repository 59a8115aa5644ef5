//! `tdlite serve`: one tdlite database shared by many processes, spoken to over the
//! PostgreSQL frontend/backend protocol (v3) by any PostgreSQL client (psql, psycopg, JDBC,
//! tokio-postgres). Clients send Teradata SQL; tdlite answers as it answers an embedded
//! session. docs/server.md is the user's page.
//!
//! Layers: `lib` (listening, the connection limit) → `handler` (pgwire's handlers: simple
//! and extended query protocol, errors) → `worker` (a connection's session thread) and
//! `params` / `wire_types` (values in and out). The crate uses `tdlite` only through its
//! public API.
//!
//! Invariants: nothing listens beyond loopback unless the caller says so
//! ([`Config::allow_remote`]); each connection is one tdlite session, and a request that
//! waits (a consume on an empty queue) blocks only its own connection.

pub mod handler;
pub mod params;
pub mod wire_types;
pub mod worker;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
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
}

impl Default for Config {
    fn default() -> Self {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 5433)),
            allow_remote: false,
            max_connections: 100,
        }
    }
}

/// A bound listener, ready to serve.
pub struct Server {
    listener: TcpListener,
    db: Database,
    config: Config,
    open: Arc<AtomicUsize>,
}

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
        let listener = TcpListener::bind(config.listen).await?;
        Ok(Server {
            listener,
            db,
            config,
            open: Arc::new(AtomicUsize::new(0)),
        })
    }

    /// The address the server listens on (with the port the OS chose for port 0).
    ///
    /// # Errors
    /// The OS's.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves connections until the listener fails.
    ///
    /// # Errors
    /// The listener's error.
    pub async fn run(self) -> std::io::Result<()> {
        loop {
            let (socket, peer) = self.listener.accept().await?;
            let open = self.open.clone();
            if open.fetch_add(1, Ordering::SeqCst) >= self.config.max_connections {
                open.fetch_sub(1, Ordering::SeqCst);
                eprintln!(
                    "tdlite serve: refused {peer}: {} connections are open",
                    self.config.max_connections
                );
                tokio::spawn(refuse(socket));
                continue;
            }
            let db = self.db.clone();
            tokio::spawn(async move {
                // a second handle on the socket, to see the client go while a request runs
                let (socket, watch) = match split_watch(socket) {
                    Ok(pair) => pair,
                    Err(e) => {
                        eprintln!("tdlite serve: connection from {peer}: {e}");
                        open.fetch_sub(1, Ordering::SeqCst);
                        return;
                    }
                };
                match worker::Worker::start(&db) {
                    Ok(w) => {
                        let conn = Arc::new(handler::Connection::new(w, watch));
                        let handlers = Arc::new(handler::Handlers(conn));
                        if let Err(e) = pgwire::tokio::process_socket(socket, None, handlers).await
                        {
                            eprintln!("tdlite serve: connection from {peer}: {e}");
                        }
                    }
                    Err(e) => eprintln!("tdlite serve: no session for {peer}: {e}"),
                }
                open.fetch_sub(1, Ordering::SeqCst);
            });
        }
    }
}

/// `socket` and a second handle on the same connection, for [`handler::Connection`] to
/// notice a client that has gone.
fn split_watch(
    socket: tokio::net::TcpStream,
) -> std::io::Result<(tokio::net::TcpStream, tokio::net::TcpStream)> {
    let std_socket = socket.into_std()?;
    let watch = std_socket.try_clone()?;
    watch.set_nonblocking(true)?;
    Ok((
        tokio::net::TcpStream::from_std(std_socket)?,
        tokio::net::TcpStream::from_std(watch)?,
    ))
}

/// Answers a connection over the limit with PostgreSQL's `too_many_connections` (53300)
/// error and closes it, after reading its startup packet (and refusing SSL if asked).
async fn refuse(mut socket: tokio::net::TcpStream) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut len = [0u8; 4];
    for _ in 0..2 {
        if socket.read_exact(&mut len).await.is_err() {
            return;
        }
        let n = usize::try_from(u32::from_be_bytes(len))
            .unwrap_or(0)
            .saturating_sub(4);
        let mut body = vec![0u8; n.min(10_000)];
        if socket.read_exact(&mut body).await.is_err() {
            return;
        }
        // an SSLRequest (80877103) or GSSENCRequest: say no, then read the startup message
        let code = body
            .get(..4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
        if matches!(code, Some(80_877_103 | 80_877_104)) {
            if socket.write_all(b"N").await.is_err() {
                return;
            }
            continue;
        }
        break;
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

/// Serves `db` as `config` says, on a runtime of its own, until the listener fails; calls
/// `ready` with the bound address first.
///
/// # Errors
/// As [`Server::bind`] and [`Server::run`].
pub fn serve(db: Database, config: Config, ready: impl FnOnce(SocketAddr)) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let server = Server::bind(db, config).await?;
        ready(server.local_addr()?);
        server.run().await
    })
}
