//! `wire`: the queue job over the PostgreSQL wire protocol (issue 19): `tdlite serve` against
//! PostgreSQL 15 doing the same job with `FOR UPDATE SKIP LOCKED`, in one run, both on disk
//! with every commit synced. The clients are **separate processes** (child.rs: this binary
//! started again), speaking the simple query protocol through tokio-postgres:
//!
//! - enqueue: 1 and 8 processes insert `--wire-rows` rows between them, one autocommitted
//!   INSERT each;
//! - consume: 1 and 8 processes drain them, one row per autocommitted request: tdlite
//!   `SELECT AND CONSUME TOP 1`, PostgreSQL `DELETE … WHERE seq = (SELECT seq … ORDER BY seq
//!   FOR UPDATE SKIP LOCKED LIMIT 1) RETURNING`;
//! - wake latency: a waiting consumer process, and this process inserting a row every 10 ms
//!   (`--wakes` of them): from the producer's clock reading before its INSERT to the row in
//!   the consumer's hands (the insert's commit, its sync, the wake-up and the pop). tdlite's
//!   consumer waits in its consume; PostgreSQL's LISTENs, the producer's INSERT and NOTIFY are
//!   one transaction, and the consumer pops after the notification.
//!
//! Without PostgreSQL's binaries the run prints tdlite's figures alone and says so.

mod child;
mod postgres;

pub use child::main as child;

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_postgres::NoTls;

/// Which server: its SQL for the job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Tdlite,
    Postgres,
}

impl Kind {
    fn named(name: &str) -> Kind {
        if name == "postgres" {
            Kind::Postgres
        } else {
            Kind::Tdlite
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Tdlite => "tdlite",
            Kind::Postgres => "postgres",
        }
    }

    fn create(self) -> &'static str {
        match self {
            Kind::Tdlite => {
                "CREATE MULTISET TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT \
                 CURRENT_TIMESTAMP(6), id BIGINT NOT NULL, payload VARCHAR(100))"
            }
            Kind::Postgres => {
                "CREATE TABLE q (seq BIGSERIAL PRIMARY KEY, id BIGINT NOT NULL, payload TEXT)"
            }
        }
    }

    fn insert(self, k: i64) -> String {
        let p = crate::common::PAYLOAD;
        match self {
            Kind::Tdlite => format!("INS q (id, payload) VALUES ({k}, '{p}')"),
            Kind::Postgres => format!("INSERT INTO q (id, payload) VALUES ({k}, '{p}')"),
        }
    }

    /// An insert that wakes a waiting consumer (PostgreSQL: with its NOTIFY, one transaction).
    fn insert_and_wake(self, k: i64) -> String {
        match self {
            Kind::Tdlite => self.insert(k),
            Kind::Postgres => format!("{}; NOTIFY q_wake", self.insert(k)),
        }
    }

    fn pop(self) -> &'static str {
        match self {
            Kind::Tdlite => "SELECT AND CONSUME TOP 1 id, payload FROM q",
            Kind::Postgres => {
                "DELETE FROM q WHERE seq = (SELECT seq FROM q ORDER BY seq FOR UPDATE SKIP LOCKED \
                 LIMIT 1) RETURNING id, payload"
            }
        }
    }
}

/// A server to measure: its kind and how to reach it.
struct Engine {
    kind: Kind,
    conninfo: String,
}

impl Engine {
    async fn connect(&self) -> tokio_postgres::Client {
        let (c, conn) = tokio_postgres::connect(&self.conninfo, NoTls)
            .await
            .unwrap_or_else(|e| panic!("connect to {}: {e}", self.kind.name()));
        tokio::spawn(conn);
        c
    }

    /// Starts one child process per `roles` entry, waits until all are connected, starts
    /// them together, and returns their answers and the time until the last one answered.
    fn children(&self, roles: &[Vec<String>]) -> (Vec<String>, Duration) {
        let exe = std::env::current_exe().expect("the running binary's path");
        let mut kids = Vec::new();
        for role in roles {
            let mut kid = Command::new(&exe)
                .arg("wire-child")
                .arg(&role[0])
                .arg(self.kind.name())
                .arg(&self.conninfo)
                .args(&role[1..])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .expect("start a client process");
            let out = BufReader::new(kid.stdout.take().expect("its output"));
            kids.push((kid, out));
        }
        for (_, out) in &mut kids {
            let mut line = String::new();
            out.read_line(&mut line).expect("read ready");
            assert_eq!(line.trim(), "ready", "a client process failed to connect");
        }
        let start = Instant::now();
        for (kid, _) in &mut kids {
            let stdin = kid.stdin.as_mut().expect("its input");
            stdin.write_all(b"go\n").expect("start a client");
        }
        let mut answers = Vec::new();
        for (kid, out) in &mut kids {
            let mut line = String::new();
            out.read_line(&mut line).expect("read the answer");
            answers.push(line.trim().to_string());
            assert!(kid.wait().expect("a client's end").success());
        }
        (answers, start.elapsed())
    }

    /// Rows per second of `procs` processes enqueuing `n` rows between them.
    fn enqueue(&self, n: i64, procs: i64) -> f64 {
        let each = n / procs;
        let roles: Vec<Vec<String>> = (0..procs)
            .map(|p| vec!["enqueue".into(), (p * each).to_string(), each.to_string()])
            .collect();
        let (_, took) = self.children(&roles);
        (each * procs) as f64 / took.as_secs_f64()
    }

    /// Rows per second of `procs` processes draining the queue's `n` rows (a sentinel each
    /// after them tells a process to stop).
    async fn consume(&self, c: &tokio_postgres::Client, n: i64, procs: i64) -> f64 {
        for _ in 0..procs {
            c.simple_query(&self.kind.insert(-1))
                .await
                .expect("a sentinel");
        }
        let roles = vec![vec!["consume".to_string()]; usize::try_from(procs).unwrap_or(1)];
        let (answers, took) = self.children(&roles);
        let taken: i64 = answers
            .iter()
            .map(|a| {
                a.trim_start_matches("done ")
                    .parse::<i64>()
                    .expect("a count")
            })
            .sum();
        assert_eq!(taken, n, "every row consumed once");
        n as f64 / took.as_secs_f64()
    }

    /// The wake latencies (µs, sorted) of `wakes` rows inserted 10 ms apart for a waiting
    /// consumer process.
    async fn latency(&self, c: &tokio_postgres::Client, wakes: i64) -> Vec<i64> {
        let exe = std::env::current_exe().expect("the running binary's path");
        let mut kid = Command::new(&exe)
            .args(["wire-child", "wait", self.kind.name(), &self.conninfo])
            .arg(wakes.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the waiting process");
        let mut out = BufReader::new(kid.stdout.take().expect("its output"));
        let mut line = String::new();
        out.read_line(&mut line).expect("read ready");
        assert_eq!(line.trim(), "ready");
        kid.stdin
            .as_mut()
            .expect("its input")
            .write_all(b"go\n")
            .expect("start it");
        for _ in 0..wakes {
            // the consumer is waiting again by the time the next row comes
            tokio::time::sleep(Duration::from_millis(10)).await;
            let sql = self.kind.insert_and_wake(child::now_us());
            c.simple_query(&sql).await.expect("insert and wake");
        }
        line.clear();
        out.read_line(&mut line).expect("read the latencies");
        assert!(kid.wait().expect("its end").success());
        let mut lat: Vec<i64> = line
            .split_whitespace()
            .skip(1)
            .map(|v| v.parse().expect("a latency"))
            .collect();
        assert_eq!(
            lat.len(),
            usize::try_from(wakes).unwrap_or(0),
            "every row woke it"
        );
        lat.sort_unstable();
        lat
    }

    /// Every figure of one engine: enqueue 1 and 8, consume 1 and 8 (rows/s), and the wake
    /// latencies.
    async fn measure(&self, n: i64, wakes: i64) -> ([f64; 4], Vec<i64>) {
        let c = self.connect().await;
        c.simple_query(self.kind.create()).await.expect("create");
        let enq1 = self.enqueue(n, 1);
        let con1 = self.consume(&c, n, 1).await;
        let enq8 = self.enqueue(n, 8);
        let con8 = self.consume(&c, n / 8 * 8, 8).await;
        let lat = self.latency(&c, wakes).await;
        ([enq1, enq8, con1, con8], lat)
    }
}

/// The `p`th percentile of sorted `v` (µs).
fn percentile(v: &[i64], p: f64) -> i64 {
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v.get(i).copied().unwrap_or(0)
}

pub fn run(n: i64, wakes: i64, scratch: &std::path::Path) {
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
    let td = Engine {
        kind: Kind::Tdlite,
        conninfo: format!("host={} port={} user=dbc", addr.ip(), addr.port()),
    };
    let td = runtime.block_on(td.measure(n, wakes));
    let pg = match postgres::start_postgres() {
        Ok(pg) => {
            let e = Engine {
                kind: Kind::Postgres,
                conninfo: format!(
                    "host=127.0.0.1 port={} user=postgres dbname=postgres",
                    pg.port
                ),
            };
            Some(runtime.block_on(e.measure(n, wakes)))
        }
        Err(e) => {
            println!("PostgreSQL not started ({e}): tdlite's figures alone");
            None
        }
    };
    let _ = std::fs::remove_dir_all(&folder);
    println!("wire ({n} rows, on disk, each commit synced, client processes; rows/s):");
    let names = [
        "enqueue, 1 process",
        "enqueue, 8 processes",
        "consume, 1 process",
        "consume, 8 processes",
    ];
    for (i, what) in names.iter().enumerate() {
        match &pg {
            Some((pg, _)) => println!(
                "  {what:<22} tdlite {:>9.0}  PostgreSQL {:>9.0}  ratio {:.2}x",
                td.0[i],
                pg[i],
                td.0[i] / pg[i]
            ),
            None => println!("  {what:<22} tdlite {:>9.0}", td.0[i]),
        }
    }
    println!("wake latency ({wakes} rows 10 ms apart, insert to row in the consumer's hands; µs):");
    let show = |name: &str, lat: &[i64]| {
        println!(
            "  {name:<10} p50 {:>6}  p90 {:>6}  p99 {:>6}  max {:>6}",
            percentile(lat, 0.5),
            percentile(lat, 0.9),
            percentile(lat, 0.99),
            lat.last().copied().unwrap_or(0)
        );
    };
    show("tdlite", &td.1);
    if let Some((_, lat)) = &pg {
        show("PostgreSQL", lat);
        println!(
            "  ratio (PostgreSQL/tdlite) p50 {:.2}x  p99 {:.2}x",
            percentile(lat, 0.5) as f64 / percentile(&td.1, 0.5).max(1) as f64,
            percentile(lat, 0.99) as f64 / percentile(&td.1, 0.99).max(1) as f64
        );
    }
}
