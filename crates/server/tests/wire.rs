//! `tdlite serve` spoken to by a real PostgreSQL client (tokio-postgres): the simple and
//! extended query protocols, types, errors, the connection limit, and a queue shared by
//! several connections (exactly-once, a waiting consume woken by another connection's
//! insert, a consume whose client goes consuming nothing).

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tdlite::Database;
use tdlite_server::{Config, Server};
use tokio_postgres::types::Type;
use tokio_postgres::{Client, NoTls, SimpleQueryMessage};

/// A server of a new database on a free loopback port, serving in the background.
async fn start(config: Config) -> SocketAddr {
    start_on(Database::new(), config).await
}

/// A server of `db` on a free loopback port, serving in the background.
async fn start_on(db: Database, config: Config) -> SocketAddr {
    let config = Config {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        ..config
    };
    let server = Server::bind(db, config)
        .await
        .expect("bind a loopback port");
    let addr = server.local_addr().expect("the bound address");
    tokio::spawn(async move { server.run().await });
    addr
}

async fn connect(addr: SocketAddr) -> Result<Client, tokio_postgres::Error> {
    let (client, connection) = tokio_postgres::connect(
        &format!(
            "host={} port={} user=dbc dbname=tdlite",
            addr.ip(),
            addr.port()
        ),
        NoTls,
    )
    .await?;
    tokio::spawn(connection);
    Ok(client)
}

/// Creates queue `q (qits, n INTEGER)`.
async fn create_queue(c: &Client) {
    c.batch_execute(
        "CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), n INTEGER)",
    )
    .await
    .expect("create the queue");
}

/// The rows of a simple query's result, each as its columns' text.
fn texts(messages: &[SimpleQueryMessage]) -> Vec<Vec<Option<String>>> {
    messages
        .iter()
        .filter_map(|m| match m {
            SimpleQueryMessage::Row(r) => {
                Some((0..r.len()).map(|i| r.get(i).map(str::to_string)).collect())
            }
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_simple_query_is_one_teradata_request() {
    let addr = start(Config::default()).await;
    let c = connect(addr).await.expect("connect");
    c.batch_execute("CREATE TABLE t (k INTEGER, v VARCHAR(10))")
        .await
        .expect("create");
    // two statements, one request: the failing second undoes the first (Teradata mode)
    let err = c
        .simple_query("INS t (1, 'a'); INS t (1/0, 'b')")
        .await
        .expect_err("division by zero");
    let db = err.as_db_error().expect("a database error");
    assert_eq!(db.code().code(), "22012");
    assert!(db.message().starts_with("[Error 2618]"), "{}", db.message());
    let rows = texts(&c.simple_query("SEL COUNT(*) FROM t").await.expect("count"));
    assert_eq!(rows, [[Some("0".to_string())]]);
    // a request of several statements answers each
    let messages = c
        .simple_query("INS t (1, 'a'); INS t (2, 'b'); SEL k, v FROM t ORDER BY k")
        .await
        .expect("insert and select");
    let done: Vec<u64> = messages
        .iter()
        .filter_map(|m| match m {
            SimpleQueryMessage::CommandComplete(n) => Some(*n),
            _ => None,
        })
        .collect();
    assert_eq!(done, [1, 1, 2]);
    assert_eq!(
        texts(&messages),
        [
            [Some("1".to_string()), Some("a".to_string())],
            [Some("2".to_string()), Some("b".to_string())]
        ]
    );
    // an unknown table: Teradata's code, PostgreSQL's class
    let err = c
        .simple_query("SEL * FROM nowhere")
        .await
        .expect_err("3807");
    let db = err.as_db_error().expect("a database error");
    assert_eq!(db.code().code(), "42P01");
    assert!(db.message().contains("3807"), "{}", db.message());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_extended_protocol_binds_numbered_parameters() {
    let addr = start(Config::default()).await;
    let c = connect(addr).await.expect("connect");
    // a DDL statement ends its request (Teradata's 3932 otherwise)
    c.batch_execute("CREATE TABLE t (k INTEGER, v VARCHAR(10))")
        .await
        .expect("create");
    c.batch_execute("INS t (1, 'a'); INS t (2, 'b')")
        .await
        .expect("insert");
    // untyped parameters are described as text; tdlite converts them where used
    let rows = c
        .query(
            "SEL k, v FROM t WHERE k = $1 OR v = $2 ORDER BY k",
            &[&"2", &"a"],
        )
        .await
        .expect("select");
    let got: Vec<(i32, String)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    assert_eq!(got, [(1, "a".to_string()), (2, "b".to_string())]);
    // typed parameters, out of order and repeated
    let n = c
        .execute_typed(
            "INS t ($2, $1 || $1)",
            &[(&"c", Type::TEXT), (&3i32, Type::INT4)],
        )
        .await
        .expect("insert");
    assert_eq!(n, 1);
    let row = c
        .query_one("SEL v FROM t WHERE k = $1", &[&"3"])
        .await
        .expect("the row");
    assert_eq!(row.get::<_, String>(0), "cc");
    // the same statement again, as a prepared one
    let st = c
        .prepare("SEL COUNT(*) FROM t WHERE k >= $1")
        .await
        .expect("prepare");
    for (from, count) in [("1", 3), ("3", 1), ("4", 0)] {
        let row = c.query_one(&st, &[&from]).await.expect("count");
        assert_eq!(row.get::<_, i32>(0), count, "k >= {from}");
    }
    let err = c
        .query("SEL k FROM t WHERE k = $1", &[&"x"])
        .await
        .expect_err("not a number");
    assert!(err.as_db_error().is_some(), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn values_arrive_as_their_postgresql_types() {
    let addr = start(Config::default()).await;
    let c = connect(addr).await.expect("connect");
    // binary results (tokio-postgres asks for them)
    let row = c
        .query_one(
            "SEL CAST(1 AS BYTEINT), CAST(2 AS SMALLINT), CAST(3 AS INTEGER), CAST(4 AS BIGINT), \
             CAST(1.5 AS FLOAT), DATE '2024-05-01', TIMESTAMP '2024-05-01 10:00:00.5', \
             TIME '10:20:30', 'text', CAST(NULL AS INTEGER)",
            &[],
        )
        .await
        .expect("select");
    assert_eq!(row.get::<_, i16>(0), 1);
    assert_eq!(row.get::<_, i16>(1), 2);
    assert_eq!(row.get::<_, i32>(2), 3);
    assert_eq!(row.get::<_, i64>(3), 4);
    assert_eq!(row.get::<_, f64>(4), 1.5);
    assert_eq!(
        row.get::<_, chrono::NaiveDate>(5),
        chrono::NaiveDate::from_ymd_opt(2024, 5, 1).expect("a date")
    );
    assert_eq!(
        row.get::<_, chrono::NaiveDateTime>(6).to_string(),
        "2024-05-01 10:00:00.500"
    );
    assert_eq!(row.get::<_, chrono::NaiveTime>(7).to_string(), "10:20:30");
    assert_eq!(row.get::<_, String>(8), "text");
    assert_eq!(row.get::<_, Option<i32>>(9), None);
    assert_eq!(row.columns()[5].type_(), &Type::DATE);
    // DECIMAL is numeric, written with its scale; a PERIOD is its text
    let messages = c
        .simple_query(
            "SEL CAST(12.5 AS DECIMAL(9,2)), CAST(-0.005 AS DECIMAL(5,3)), \
             PERIOD(DATE '2020-01-01', DATE '2020-02-01')",
        )
        .await
        .expect("select");
    assert_eq!(
        texts(&messages),
        [[
            Some("12.50".to_string()),
            Some("-0.005".to_string()),
            Some("('2020-01-01', '2020-02-01')".to_string())
        ]]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_binary_numeric_parameter_is_a_decimal() {
    use tdlite_server::wire_types::Numeric;
    let addr = start(Config::default()).await;
    let c = connect(addr).await.expect("connect");
    // as a driver with a decimal type sends one (tokio-postgres with rust_decimal): binary
    let st = c
        .prepare_typed(
            "SEL TRIM(CAST($1 * 2 AS VARCHAR(50))), TYPE($1)",
            &[Type::NUMERIC],
        )
        .await
        .expect("prepare");
    for (unscaled, scale, doubled, ty) in [
        (-1250, 2, "-25.00", ",2)"),
        (1, 4, ".0002", ",4)"),
        (123_456_789_012, 0, "246913578024.", ",0)"), // Teradata writes DECIMAL(n,0) with its point
    ] {
        let n = Numeric { unscaled, scale };
        let row = c.query_one(&st, &[&n]).await.expect("a numeric parameter");
        assert_eq!(row.get::<_, String>(0), doubled, "{unscaled}e-{scale}");
        // a DECIMAL with the value's scale
        let t = row.get::<_, String>(1);
        assert!(
            t.starts_with("DECIMAL(") && t.ends_with(ty),
            "{unscaled}e-{scale}: {t}"
        );
    }
}

async fn consume_one(c: &Client, q: &str) -> Option<i64> {
    let messages = c
        .simple_query(&format!("SELECT AND CONSUME TOP 1 n FROM {q}"))
        .await
        .expect("consume");
    texts(&messages)
        .first()
        .and_then(|r| r[0].as_ref())
        .and_then(|t| t.parse().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_share_one_queue_exactly_once() {
    let addr = start(Config::default()).await;
    let producer = connect(addr).await.expect("connect");
    create_queue(&producer).await;
    const ROWS: i64 = 60;
    const CONSUMERS: i64 = 3;
    let mut tasks = Vec::new();
    for _ in 0..CONSUMERS {
        let c = connect(addr).await.expect("connect");
        tasks.push(tokio::spawn(async move {
            let mut got = Vec::new();
            // each waits for rows the producer has not inserted yet
            for _ in 0..ROWS / CONSUMERS {
                got.push(consume_one(&c, "q").await.expect("a row"));
            }
            got
        }));
    }
    for n in 0..ROWS {
        producer
            .execute("INS q (n) VALUES ($1)", &[&n.to_string()])
            .await
            .expect("insert");
    }
    let mut all = Vec::new();
    for t in tasks {
        let got = t.await.expect("a consumer");
        // each consumer sees its rows in queue order
        assert!(got.windows(2).all(|w| w[0] < w[1]), "{got:?}");
        all.extend(got);
    }
    let distinct: BTreeSet<i64> = all.iter().copied().collect();
    assert_eq!(all.len(), distinct.len(), "a row consumed twice: {all:?}");
    assert_eq!(distinct, (0..ROWS).collect::<BTreeSet<_>>());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_consume_whose_client_goes_consumes_nothing() {
    let addr = start(Config::default()).await;
    let c = connect(addr).await.expect("connect");
    create_queue(&c).await;
    // a consumer waits on the empty queue, then its process is gone
    let (gone, connection) = tokio_postgres::connect(
        &format!("host={} port={} user=dbc", addr.ip(), addr.port()),
        NoTls,
    )
    .await
    .expect("connect");
    let conn_task = tokio::spawn(connection);
    let waiting =
        tokio::spawn(async move { gone.simple_query("SELECT AND CONSUME TOP 1 n FROM q").await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    waiting.abort();
    conn_task.abort();
    tokio::time::sleep(Duration::from_millis(300)).await;
    c.batch_execute("INS q (n) VALUES (7)")
        .await
        .expect("insert");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rows = texts(&c.simple_query("SEL n FROM q").await.expect("browse"));
    assert_eq!(
        rows,
        [[Some("7".to_string())]],
        "the row went to a client that was gone"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_over_the_limit_is_refused() {
    let addr = start(Config {
        max_connections: 1,
        ..Config::default()
    })
    .await;
    let first = connect(addr).await.expect("the first connection");
    let err = connect(addr).await.expect_err("the second is refused");
    let db = err.as_db_error().expect("a protocol error");
    assert_eq!(db.code().code(), "53300");
    // the first is served still, and once it has gone another may come
    first.batch_execute("SEL 1").await.expect("still served");
    drop(first);
    let mut again = None;
    for _ in 0..50 {
        if let Ok(c) = connect(addr).await {
            again = Some(c);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    again.expect("a connection after the first closed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_listens_beyond_loopback_unless_asked() {
    let err = Server::bind(
        Database::new(),
        Config {
            listen: SocketAddr::from(([0, 0, 0, 0], 0)),
            ..Config::default()
        },
    )
    .await
    .err()
    .expect("refused");
    assert_eq!(err.kind(), std::io::ErrorKind::PermissionDenied);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_driver_s_transactions_are_teradata_transactions() {
    let addr = start(Config::default()).await;
    let mut c = connect(addr).await.expect("connect");
    create_queue(&c).await;
    c.batch_execute("INS q (n) VALUES (1); INS q (n) VALUES (2)")
        .await
        .expect("insert");
    // BEGIN … ROLLBACK: the consumed row is back
    let tx = c.transaction().await.expect("BEGIN");
    let got = texts(
        &tx.simple_query("SELECT AND CONSUME TOP 1 n FROM q")
            .await
            .expect("consume"),
    );
    assert_eq!(got, [[Some("1".to_string())]]);
    tx.rollback().await.expect("ROLLBACK");
    let count = texts(&c.simple_query("SEL COUNT(*) FROM q").await.expect("count"));
    assert_eq!(count, [[Some("2".to_string())]]);
    // BEGIN … COMMIT: it is gone for good
    let tx = c.transaction().await.expect("BEGIN");
    let got = texts(
        &tx.simple_query("SELECT AND CONSUME TOP 1 n FROM q")
            .await
            .expect("consume"),
    );
    assert_eq!(got, [[Some("1".to_string())]]);
    tx.commit().await.expect("COMMIT");
    let left = texts(&c.simple_query("SEL n FROM q").await.expect("browse"));
    assert_eq!(left, [[Some("2".to_string())]]);
    // an error inside a transaction: Teradata mode has rolled it back; the driver's ROLLBACK
    // that follows succeeds
    let tx = c.transaction().await.expect("BEGIN");
    tx.simple_query("SELECT AND CONSUME TOP 1 n FROM q")
        .await
        .expect("consume");
    tx.simple_query("SEL 1/0").await.expect_err("2618");
    tx.rollback().await.expect("ROLLBACK after the error");
    let left = texts(&c.simple_query("SEL n FROM q").await.expect("browse"));
    assert_eq!(left, [[Some("2".to_string())]]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_request_ends_a_waiting_consume() {
    let addr = start(Config::default()).await;
    let c = connect(addr).await.expect("connect");
    create_queue(&c).await;
    let waiter = connect(addr).await.expect("connect");
    let token = waiter.cancel_token();
    let waiting = tokio::spawn(async move {
        let r = waiter
            .simple_query("SELECT AND CONSUME TOP 1 n FROM q")
            .await;
        (r.map(|m| texts(&m)), waiter)
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    token
        .cancel_query(NoTls)
        .await
        .expect("send the cancel request");
    let (result, waiter) = waiting.await.expect("the waiting task");
    let err = result.expect_err("cancelled");
    assert_eq!(
        err.as_db_error().map(|e| e.code().code()),
        Some("57014"),
        "{err}"
    );
    // nothing was consumed, and the connection goes on
    c.batch_execute("INS q (n) VALUES (5)")
        .await
        .expect("insert");
    let rows = texts(&c.simple_query("SEL n FROM q").await.expect("browse"));
    assert_eq!(rows, [[Some("5".to_string())]]);
    let got = texts(
        &waiter
            .simple_query("SELECT AND CONSUME TOP 1 n FROM q")
            .await
            .expect("consume after the cancel"),
    );
    assert_eq!(got, [[Some("5".to_string())]]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_connection_is_closed_and_its_transaction_rolled_back() {
    let addr = start(Config {
        idle_timeout: Some(Duration::from_millis(300)),
        ..Config::default()
    })
    .await;
    let c = connect(addr).await.expect("connect");
    c.batch_execute("CREATE TABLE t (k INTEGER)")
        .await
        .expect("create");
    let idle = connect(addr).await.expect("connect");
    idle.batch_execute("BT; INS t (1)")
        .await
        .expect("an open transaction");
    // c stays busy enough; idle waits past the timeout
    for _ in 0..20 {
        c.batch_execute("SEL 1")
            .await
            .expect("a busy connection stays");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        idle.batch_execute("SEL 1").await.is_err(),
        "the idle connection was closed"
    );
    let rows = texts(&c.simple_query("SEL COUNT(*) FROM t").await.expect("count"));
    assert_eq!(
        rows,
        [[Some("0".to_string())]],
        "its insert was rolled back"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_statement_timeout_stops_a_long_request() {
    let db = Database::new();
    // the rows come through a server without the timeout (a debug build is slow at them)
    let setup = connect(start_on(db.clone(), Config::default()).await)
        .await
        .expect("connect");
    let addr = start_on(
        db,
        Config {
            statement_timeout: Some(Duration::from_millis(200)),
            ..Config::default()
        },
    )
    .await;
    let c = connect(addr).await.expect("connect");
    c.batch_execute("CREATE TABLE t (k INTEGER)")
        .await
        .expect("create");
    setup
        .batch_execute(
            "INSERT INTO t WITH RECURSIVE r (n) AS (SEL CAST(1 AS INTEGER) FROM (SEL 1 AS x) d \
         UNION ALL SEL n + 1 FROM r WHERE n < 2000) SEL n FROM r",
        )
        .await
        .expect("2,000 rows");
    let err = c
        .simple_query("SEL COUNT(*) FROM t a, t b, t c WHERE a.k + b.k = c.k")
        .await
        .expect_err("past the timeout");
    let db = err.as_db_error().expect("a database error");
    assert!(db.message().starts_with("[Error 9920]"), "{}", db.message());
    assert_eq!(db.code().code(), "57014");
    // the session goes on
    c.batch_execute("SEL 1").await.expect("served again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_closes_idle_connections_and_rolls_back_open_transactions() {
    let db = Database::new();
    let server = std::sync::Arc::new(
        Server::bind(
            db.clone(),
            Config {
                listen: SocketAddr::from(([127, 0, 0, 1], 0)),
                shutdown_grace: Duration::from_millis(500),
                ..Config::default()
            },
        )
        .await
        .expect("bind"),
    );
    let addr = server.local_addr().expect("address");
    let running = {
        let s = server.clone();
        tokio::spawn(async move { s.run().await })
    };
    let c = connect(addr).await.expect("connect");
    c.batch_execute("CREATE TABLE t (k INTEGER)")
        .await
        .expect("create");
    c.batch_execute("INS t (1)").await.expect("committed");
    let in_txn = connect(addr).await.expect("connect");
    in_txn
        .batch_execute("BT; INS t (2)")
        .await
        .expect("open transaction");
    // SIGTERM's path: stop accepting, then shut down
    running.abort();
    let started = Instant::now();
    server.shutdown().await.expect("shutdown");
    assert!(c.batch_execute("SEL 1").await.is_err(), "closed");
    assert!(
        in_txn.batch_execute("SEL 1").await.is_err(),
        "closed after the grace"
    );
    assert!(
        started.elapsed() >= Duration::from_millis(500),
        "the open transaction had its grace"
    );
    let mut s = db.session();
    let rows = s.execute("SEL k FROM t ORDER BY k").expect("read");
    let n = rows[0].rows.as_ref().map_or(0, tdlite::Rows::num_rows);
    assert_eq!(
        n, 1,
        "the committed row stays, the open transaction's is rolled back"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_users_a_login_needs_its_password() {
    let mut users = tdlite_server::auth::Users::default();
    users.add("alice", "s3cret");
    let addr = start(Config {
        users: Some(std::sync::Arc::new(users)),
        ..Config::default()
    })
    .await;
    let login = |user: &str, password: &str| {
        format!(
            "host={} port={} user={user} password={password}",
            addr.ip(),
            addr.port()
        )
    };
    let (c, connection) = tokio_postgres::connect(&login("alice", "s3cret"), NoTls)
        .await
        .expect("the right password");
    tokio::spawn(connection);
    c.batch_execute("SEL 1").await.expect("served");
    for (user, password) in [("alice", "wrong"), ("mallory", "s3cret")] {
        let Err(err) = tokio_postgres::connect(&login(user, password), NoTls).await else {
            panic!("{user} with {password} was let in");
        };
        assert_eq!(
            err.as_db_error().map(|e| e.code().code()),
            Some("28P01"),
            "{user}: {err}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prepared_statement_is_described_in_the_connection_s_default_database() {
    let addr = start(Config::default()).await;
    let admin = connect(addr).await.expect("connect");
    admin
        .batch_execute("CREATE DATABASE shop AS PERM = 1e6")
        .await
        .expect("database");
    admin
        .batch_execute("CREATE TABLE shop.orders (id INTEGER, item VARCHAR(10))")
        .await
        .expect("table");
    let (c, conn) = tokio_postgres::connect(
        &format!(
            "host={} port={} user=dbc options='-c default_database=shop'",
            addr.ip(),
            addr.port()
        ),
        NoTls,
    )
    .await
    .expect("connect with a default database");
    tokio::spawn(conn);
    // Describe of an unbound statement runs it in the describing session: it resolves
    // `orders` in the connection's default database
    let st = c
        .prepare("SEL id, item FROM orders WHERE id = $1")
        .await
        .expect("prepare");
    assert_eq!(st.columns().len(), 2);
    // a value for a declared parameter the text does not use is taken, as PostgreSQL takes it
    let st = c
        .prepare_typed("SEL 1", &[Type::INT4])
        .await
        .expect("prepare");
    let rows = c
        .query(&st, &[&7i32])
        .await
        .expect("an unused declared parameter");
    assert_eq!(rows.len(), 1);
}
