//! `wire`: the queue job over the PostgreSQL wire protocol (issue 19): `tdlite serve` against
//! PostgreSQL 15 doing the same job with `FOR UPDATE SKIP LOCKED`, in one run, both on disk
//! with every commit synced, clients speaking the simple query protocol (tokio-postgres).
//!
//! - enqueue: one client inserts `--wire-rows` rows, one autocommitted INSERT each;
//! - consume: 1 and 8 clients (connections, each its own task) drain them, one row per
//!   autocommitted request: tdlite `SELECT AND CONSUME TOP 1`, PostgreSQL
//!   `DELETE … WHERE seq = (SELECT seq … ORDER BY seq FOR UPDATE SKIP LOCKED LIMIT 1)
//!   RETURNING`.
//!
//! PostgreSQL is started from the machine's binaries (`initdb`/`postgres` on PATH, as the
//! `postgres` user when run as root) in a scratch folder on a free port; without them the
//! run prints tdlite's figures alone and says so.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_postgres::{Client, NoTls, SimpleQueryMessage};

/// One engine behind the wire: how to connect, and its SQL for the job.
struct Engine {
    name: &'static str,
    conninfo: String,
    create: &'static str,
    insert: fn(i64) -> String,
    pop: &'static str,
}

fn tdlite_engine(addr: SocketAddr) -> Engine {
    Engine {
        name: "tdlite serve",
        conninfo: format!("host={} port={} user=dbc", addr.ip(), addr.port()),
        create: "CREATE MULTISET TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT \
                 CURRENT_TIMESTAMP(6), id BIGINT NOT NULL, payload VARCHAR(100))",
        insert: |k| {
            format!(
                "INS q (id, payload) VALUES ({k}, '{}')",
                crate::common::PAYLOAD
            )
        },
        pop: "SELECT AND CONSUME TOP 1 id, payload FROM q",
    }
}

fn postgres_engine(port: u16) -> Engine {
    Engine {
        name: "PostgreSQL",
        conninfo: format!("host=127.0.0.1 port={port} user=postgres dbname=postgres"),
        create: "CREATE TABLE q (seq BIGSERIAL PRIMARY KEY, id BIGINT NOT NULL, payload TEXT)",
        insert: |k| {
            format!(
                "INSERT INTO q (id, payload) VALUES ({k}, '{}')",
                crate::common::PAYLOAD
            )
        },
        pop: "DELETE FROM q WHERE seq = (SELECT seq FROM q ORDER BY seq FOR UPDATE SKIP LOCKED \
              LIMIT 1) RETURNING id, payload",
    }
}

async fn connect(e: &Engine) -> Client {
    let (c, conn) = tokio_postgres::connect(&e.conninfo, NoTls)
        .await
        .unwrap_or_else(|err| panic!("connect to {}: {err}", e.name));
    tokio::spawn(conn);
    c
}

fn rows(m: &[SimpleQueryMessage]) -> usize {
    m.iter()
        .filter(|m| matches!(m, SimpleQueryMessage::Row(_)))
        .count()
}

/// Rows per second of one client enqueuing `n` rows.
async fn enqueue(e: &Engine, n: i64) -> f64 {
    let c = connect(e).await;
    let start = Instant::now();
    for k in 0..n {
        c.simple_query(&(e.insert)(k)).await.expect("insert");
    }
    n as f64 / start.elapsed().as_secs_f64()
}

/// Rows per second of `clients` connections draining `n` rows (each pop is a request).
async fn consume(e: &Engine, n: i64, clients: usize) -> f64 {
    let tickets = Arc::new(AtomicI64::new(0));
    let mut conns = Vec::new();
    for _ in 0..clients {
        conns.push(connect(e).await);
    }
    let start = Instant::now();
    let mut tasks = Vec::new();
    for c in conns {
        let (tickets, pop) = (tickets.clone(), e.pop);
        tasks.push(tokio::spawn(async move {
            let mut got = 0i64;
            while tickets.fetch_add(1, Ordering::SeqCst) < n {
                // SKIP LOCKED may find every row left held by another client: ask again
                while rows(&c.simple_query(pop).await.expect("pop")) == 0 {}
                got += 1;
            }
            got
        }));
    }
    let mut total = 0;
    for t in tasks {
        total += t.await.expect("a client");
    }
    assert_eq!(total, n, "every row consumed once");
    n as f64 / start.elapsed().as_secs_f64()
}

/// A PostgreSQL 15 server in a scratch folder, stopped when dropped.
struct Postgres {
    dir: PathBuf,
    child: Child,
    port: u16,
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `program args…`, as the `postgres` user when this process is root (PostgreSQL refuses
/// to run as root).
fn as_postgres(program: &str) -> Command {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0"));
    if root {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--", program]);
        c
    } else {
        Command::new(program)
    }
}

fn start_postgres() -> Result<Postgres, String> {
    let dir = std::env::temp_dir().join(format!("tdlite-bench-pg-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let _ = Command::new("chown")
        .args(["postgres:postgres", &dir.display().to_string()])
        .status();
    let data = dir.join("data");
    let init = as_postgres("initdb")
        .args([
            "-D",
            &data.display().to_string(),
            "-A",
            "trust",
            "-U",
            "postgres",
        ])
        .output()
        .map_err(|e| format!("initdb: {e}"))?;
    if !init.status.success() {
        return Err(format!("initdb: {}", String::from_utf8_lossy(&init.stderr)));
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| e.to_string())?
        .port();
    let child = as_postgres("postgres")
        .args([
            "-D",
            &data.display().to_string(),
            "-p",
            &port.to_string(),
            "-k",
            &dir.display().to_string(),
            "-c",
            "listen_addresses=127.0.0.1",
        ])
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("postgres: {e}"))?;
    let pg = Postgres { dir, child, port };
    // ready when it accepts a login
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            std::thread::sleep(Duration::from_millis(300));
            return Ok(pg);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Err("postgres did not start".into())
}

async fn one_engine(e: &Engine, n: i64) -> [f64; 3] {
    let c = connect(e).await;
    c.simple_query(e.create).await.expect("create");
    let enq = enqueue(e, n).await;
    let one = consume(e, n, 1).await;
    enqueue(e, n).await;
    let eight = consume(e, n, 8).await;
    [enq, one, eight]
}

pub fn run(n: i64, scratch: &Path) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    // tdlite serve on a folder, every commit synced (the default), in this process
    let folder = scratch.join(format!("tdlite-bench-wire-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    let db = tdlite::Database::open(&folder).expect("open the folder");
    let server = runtime.block_on(tdlite_server::Server::bind(
        db,
        tdlite_server::Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            ..tdlite_server::Config::default()
        },
    ));
    let server = Arc::new(server.expect("bind"));
    let addr = server.local_addr().expect("address");
    let s = server.clone();
    runtime.spawn(async move { s.run().await });
    let td = runtime.block_on(one_engine(&tdlite_engine(addr), n));
    let pg = match start_postgres() {
        Ok(pg) => {
            let r = runtime.block_on(one_engine(&postgres_engine(pg.port), n));
            Some(r)
        }
        Err(e) => {
            println!("PostgreSQL not started ({e}): tdlite's figures alone");
            None
        }
    };
    let _ = std::fs::remove_dir_all(&folder);
    println!("wire ({n} rows, on disk, each commit synced; rows/s):");
    for (i, what) in [
        "enqueue, 1 client",
        "consume, 1 client",
        "consume, 8 clients",
    ]
    .iter()
    .enumerate()
    {
        match &pg {
            Some(pg) => println!(
                "  {what:<20} tdlite {:>9.0}  PostgreSQL {:>9.0}  ratio {:.2}x",
                td[i],
                pg[i],
                td[i] / pg[i]
            ),
            None => println!("  {what:<20} tdlite {:>9.0}", td[i]),
        }
    }
}
