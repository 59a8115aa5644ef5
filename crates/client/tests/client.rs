//! tdlite-client against a real `tdlite serve` (in this process, on a loopback port): every
//! type there and back, requests of several statements, parameters (pipelined sets too),
//! errors with their Teradata codes, login settings, a consume waiting across connections and
//! cancelled, transactions, SCRAM and TLS.

use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tdlite::arrow::array::{Array, AsArray};
use tdlite::arrow::datatypes::{
    DataType, Date32Type, Decimal128Type, Float64Type, Int32Type, Int64Type, Time64MicrosecondType,
    TimeUnit, TimestampMicrosecondType,
};
use tdlite::{Database, Value};
use tdlite_client::{Client, Config, Error, Reply};

/// A server of `db` with `config` on a free loopback port, run by a runtime of its own.
fn serve(db: Database, config: tdlite_server::Config) -> SocketAddr {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime");
        rt.block_on(async move {
            let config = tdlite_server::Config {
                listen: SocketAddr::from(([127, 0, 0, 1], 0)),
                ..config
            };
            let server = tdlite_server::Server::bind(db, config)
                .await
                .expect("bind a loopback port");
            tx.send(server.local_addr().expect("its address"))
                .expect("the test waits");
            server.run().await
        })
    });
    rx.recv().expect("the server started")
}

fn start() -> SocketAddr {
    serve(Database::new(), tdlite_server::Config::default())
}

fn config(addr: SocketAddr) -> Config {
    Config::new(&addr.ip().to_string(), addr.port(), "dbc")
}

fn connect(addr: SocketAddr) -> Client {
    Client::connect(&config(addr)).expect("connect")
}

fn run(c: &mut Client, sql: &str) -> Vec<Reply> {
    c.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// The Teradata code of a failed call.
fn code<T: std::fmt::Debug>(r: Result<T, Error>) -> u32 {
    match r {
        Err(Error::Server { code, .. }) => code,
        other => panic!("expected a server error, got {other:?}"),
    }
}

fn only_rows(replies: &[Reply]) -> &tdlite::Rows {
    replies
        .last()
        .and_then(|r| r.rows.as_ref())
        .expect("a result with rows")
}

/// The first value of the last reply, an INTEGER.
fn first_int(replies: &[Reply]) -> i32 {
    only_rows(replies).batches[0]
        .column(0)
        .as_primitive::<Int32Type>()
        .value(0)
}

#[test]
fn every_type_goes_there_and_back_as_itself() {
    let addr = start();
    let mut c = connect(addr);
    run(
        &mut c,
        "CREATE TABLE t (i INTEGER, b BIGINT, d DECIMAL(10,2), f FLOAT, s VARCHAR(40), \
         y VARBYTE(10), dt DATE, tm TIME(6), ts TIMESTAMP(6), ts0 TIMESTAMP(0))",
    );
    let text = "it''s \\ 'quoted' ünïcode";
    let params = vec![
        Value::Int(7),
        Value::Int(-9_000_000_000),
        Value::Decimal(-1250, 2),
        Value::Float(0.1),
        Value::Str(text.to_string()),
        Value::Bytes(vec![0, 255, 10]),
        Value::Date(-1),
        Value::Time(3_723_000_001),
        Value::Timestamp(1_700_000_000_123_456),
        Value::Timestamp(1_700_000_000_000_000),
    ];
    let r = c
        .query_with(
            "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            &params,
        )
        .expect("insert");
    assert_eq!((r.command.as_str(), r.activity_count), ("INSERT", 1));
    let nulls = vec![Value::Null; 10];
    c.query_with(
        "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        &nulls,
    )
    .expect("insert NULLs");

    // the same rows through both protocols
    let simple = run(&mut c, "SELECT * FROM t ORDER BY i NULLS LAST");
    let extended = c
        .query_with(
            "SELECT * FROM t WHERE i = ? OR i IS NULL ORDER BY i NULLS LAST",
            &[Value::Int(7)],
        )
        .expect("select with a parameter");
    for rows in [only_rows(&simple), extended.rows.as_ref().expect("rows")] {
        let b = &rows.batches[0];
        assert_eq!(b.num_rows(), 2);
        let types: Vec<DataType> = rows
            .schema
            .fields()
            .iter()
            .map(|f| f.data_type().clone())
            .collect();
        assert_eq!(
            types,
            vec![
                DataType::Int32,
                DataType::Int64,
                DataType::Decimal128(10, 2),
                DataType::Float64,
                DataType::Utf8,
                DataType::Binary,
                DataType::Date32,
                DataType::Time64(TimeUnit::Microsecond),
                DataType::Timestamp(TimeUnit::Microsecond, None),
                DataType::Timestamp(TimeUnit::Microsecond, None),
            ]
        );
        let col = |i: usize| b.column(i);
        assert_eq!(col(0).as_primitive::<Int32Type>().value(0), 7);
        assert_eq!(col(1).as_primitive::<Int64Type>().value(0), -9_000_000_000);
        assert_eq!(col(2).as_primitive::<Decimal128Type>().value(0), -1250);
        assert_eq!(col(3).as_primitive::<Float64Type>().value(0), 0.1);
        assert_eq!(col(4).as_string::<i32>().value(0), text);
        assert_eq!(col(5).as_binary::<i32>().value(0), &[0, 255, 10]);
        assert_eq!(col(6).as_primitive::<Date32Type>().value(0), -1);
        assert_eq!(
            col(7).as_primitive::<Time64MicrosecondType>().value(0),
            3_723_000_001
        );
        assert_eq!(
            col(8).as_primitive::<TimestampMicrosecondType>().value(0),
            1_700_000_000_123_456
        );
        // TIMESTAMP(0): its precision travels as the type modifier
        assert_eq!(
            rows.schema
                .field(9)
                .metadata()
                .get("precision")
                .map(String::as_str),
            Some("0")
        );
        for i in 0..10 {
            assert!(col(i).is_null(1), "column {i} of the NULL row");
        }
    }
}

#[test]
fn a_request_of_several_statements_answers_per_statement_and_errors_carry_codes() {
    let addr = start();
    let mut c = connect(addr);
    run(&mut c, "CREATE TABLE t (k INTEGER)");
    let replies = run(
        &mut c,
        "INS t (1); INS t (2); SEL COUNT(*) FROM t; SEL k FROM t ORDER BY k",
    );
    let commands: Vec<(&str, u64)> = replies
        .iter()
        .map(|r| (r.command.as_str(), r.activity_count))
        .collect();
    assert_eq!(
        commands,
        [("INSERT", 1), ("INSERT", 1), ("SELECT", 1), ("SELECT", 2)]
    );
    // a failing request leaves nothing of itself, and the connection goes on
    assert_eq!(code(c.query("INS t (3); INS t (1/0)")), 2618);
    assert_eq!(code(c.query("SEL * FROM nowhere")), 3807);
    assert_eq!(
        code(c.query_with("SEL * FROM t WHERE k = ?", &[Value::Str("x".into())])),
        3535
    );
    let count = run(&mut c, "SEL COUNT(*) FROM t");
    let rows = only_rows(&count);
    assert_eq!(
        rows.batches[0]
            .column(0)
            .as_primitive::<Int32Type>()
            .value(0),
        2
    );
}

#[test]
fn many_parameter_sets_are_pipelined_and_stop_at_the_first_failure() {
    let addr = start();
    let mut c = connect(addr);
    run(&mut c, "CREATE TABLE t (k INTEGER NOT NULL, v VARCHAR(10))");
    // more sets than one chunk, a column mixing kinds (sent as character data)
    let sets: Vec<Vec<Value>> = (0..600)
        .map(|i| {
            let v = if i % 2 == 0 {
                Value::Int(i)
            } else {
                Value::Str(format!("s{i}"))
            };
            vec![Value::Int(i), v]
        })
        .collect();
    let replies = c
        .query_many("INSERT INTO t VALUES (?, ?)", &sets)
        .expect("insert 600");
    assert_eq!(replies.len(), 600);
    assert!(replies.iter().all(|r| r.activity_count == 1));
    let n = run(&mut c, "SEL COUNT(*), SUM(k) FROM t");
    let b = &only_rows(&n).batches[0];
    assert_eq!(b.column(0).as_primitive::<Int32Type>().value(0), 600);
    // a NULL into NOT NULL in the middle: the sets before it ran, none after
    let bad: Vec<Vec<Value>> = (0..5)
        .map(|i| {
            vec![
                if i == 2 {
                    Value::Null
                } else {
                    Value::Int(1000 + i)
                },
                Value::Null,
            ]
        })
        .collect();
    assert_eq!(
        code(c.query_many("INSERT INTO t VALUES (?, ?)", &bad)),
        3811
    );
    let n = run(&mut c, "SEL COUNT(*) FROM t WHERE k >= 1000");
    assert_eq!(first_int(&n), 2);
}

#[test]
fn a_consume_waits_across_connections_and_a_cancel_stops_it() {
    let addr = start();
    let mut producer = connect(addr);
    run(
        &mut producer,
        "CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), n INTEGER)",
    );
    let consumer = std::thread::spawn(move || {
        let mut c = connect(addr);
        // with a parameter: the extended protocol, its Describe runs the consume
        c.query_with("SELECT AND CONSUME TOP 1 n + ? FROM q", &[Value::Int(100)])
            .expect("consume")
    });
    std::thread::sleep(Duration::from_millis(300));
    run(&mut producer, "INS q (CURRENT_TIMESTAMP(6), 5)");
    let reply = consumer.join().expect("the consumer");
    let rows = reply.rows.expect("the consumed row");
    assert_eq!(
        rows.batches[0]
            .column(0)
            .as_primitive::<Int64Type>()
            .value(0),
        105
    );

    // a consume waiting on the empty queue, cancelled from another thread: 9905, and the
    // row inserted afterwards stays for the next consumer
    let mut waiter = connect(addr);
    let token = waiter.cancel_token();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        token.cancel().expect("send the cancel request");
    });
    assert_eq!(
        code(waiter.query("SELECT AND CONSUME TOP 1 * FROM q")),
        9905
    );
    canceller.join().expect("the canceller");
    run(&mut producer, "INS q (CURRENT_TIMESTAMP(6), 6)");
    let left = run(&mut waiter, "SELECT AND CONSUME TOP 1 n FROM q");
    assert_eq!(first_int(&left), 6);
}

#[test]
fn login_settings_shape_the_session_and_a_bad_one_refuses_the_login() {
    let addr = start();
    let mut admin = connect(addr);
    run(&mut admin, "CREATE DATABASE shop AS PERM = 1e6");
    run(
        &mut admin,
        "CREATE TABLE shop.q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), n INTEGER)",
    );
    let mut cfg = config(addr);
    cfg.settings = vec![
        ("default_database".into(), "shop".into()),
        ("consume_timeout".into(), "0.2".into()),
        ("tmode".into(), "ANSI".into()),
    ];
    let mut c = Client::connect(&cfg).expect("connect with settings");
    let started = Instant::now();
    // the default database finds q; the consume gives up after its timeout
    assert_eq!(code(c.query("SELECT AND CONSUME TOP 1 * FROM q")), 9904);
    assert!(started.elapsed() >= Duration::from_millis(200));
    // ANSI mode: a statement opens a transaction that COMMIT ends
    run(&mut c, "INSERT INTO q (n) VALUES (1)");
    assert!(c.in_transaction());
    run(&mut c, "COMMIT");
    assert!(!c.in_transaction());

    for (name, value, expected) in [("tmode", "X", 0), ("default_database", "nowhere", 3802)] {
        let mut bad = config(addr);
        bad.settings = vec![(name.into(), value.into())];
        match Client::connect(&bad) {
            Err(Error::Server { code, message, .. }) => {
                assert_eq!(code, expected, "{name}={value}: {message}");
                if expected == 0 {
                    assert!(message.contains(name), "{message}");
                }
            }
            Err(e) => panic!("{name}={value}: {e}"),
            Ok(_) => panic!("{name}={value} was accepted"),
        }
    }
}

#[test]
fn teradata_mode_transactions_are_reported() {
    let addr = start();
    let mut c = connect(addr);
    run(&mut c, "CREATE TABLE t (k INTEGER)");
    run(&mut c, "BT");
    assert!(c.in_transaction());
    run(&mut c, "INS t (1)");
    // the driver-style ROLLBACK: the insert is undone, the transaction over
    run(&mut c, "ROLLBACK");
    assert!(!c.in_transaction());
    let n = run(&mut c, "SEL COUNT(*) FROM t");
    assert_eq!(first_int(&n), 0);
}

/// A server whose one user is alice (password `s3cret`), and a login as her, no password.
fn alices_server() -> Config {
    let mut users = tdlite_server::auth::Users::default();
    users.add("alice", "s3cret");
    let addr = serve(
        Database::new(),
        tdlite_server::Config {
            users: Some(std::sync::Arc::new(users)),
            ..Default::default()
        },
    );
    Config::new("127.0.0.1", addr.port(), "alice")
}

#[test]
fn scram_logins_need_the_password() {
    let mut cfg = alices_server();
    cfg.password = Some("s3cret".into());
    let mut c = Client::connect(&cfg).expect("the right password");
    run(&mut c, "SEL 1");
    cfg.password = Some("wrong".into());
    assert!(matches!(Client::connect(&cfg), Err(Error::Server { .. })));
    cfg.password = None;
    assert!(matches!(Client::connect(&cfg), Err(Error::Protocol(_))));
}

#[test]
fn tls_checks_the_servers_certificate() {
    let dir = tempfile_dir();
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    let made = std::process::Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        ])
        .args([
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost",
        ])
        // a server's own certificate, not an authority's (rustls refuses a CA as the server)
        .args(["-addext", "basicConstraints=critical,CA:FALSE"])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .expect("openssl makes the test's certificate");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let pem = |p: &std::path::Path| std::fs::read(p).expect("read a PEM file");
    let addr = serve(
        Database::new(),
        tdlite_server::Config {
            tls: Some((pem(&cert), pem(&key))),
            ..Default::default()
        },
    );
    let mut cfg = Config::new("localhost", addr.port(), "dbc");
    cfg.tls_root = Some(cert.clone());
    let mut c = Client::connect(&cfg).expect("TLS with the server's certificate");
    run(&mut c, "SEL 1");
    // a name the certificate does not carry is refused
    let mut wrong = cfg.clone();
    wrong.host = "127.0.0.1".into();
    assert!(matches!(Client::connect(&wrong), Err(Error::Io(_))));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A fresh folder under the system's temporary folder.
fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "tdlite-client-tls-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

#[test]
fn a_failure_in_teradata_mode_ends_the_transaction_the_client_sees() {
    let addr = start();
    let mut c = connect(addr);
    run(&mut c, "CREATE TABLE t (k INTEGER)");
    run(&mut c, "BT");
    run(&mut c, "INS t (1)");
    assert!(c.in_transaction());
    // Teradata mode: the failure rolls the whole transaction back
    assert_eq!(code(c.query("INS t (1/0)")), 2618);
    assert!(
        !c.in_transaction(),
        "the server reports the transaction gone"
    );
    assert_eq!(
        code(c.query_with("INS t (?)", &[Value::Str("x".into())])),
        3535
    );
    assert!(!c.in_transaction());
    assert_eq!(first_int(&run(&mut c, "SEL COUNT(*) FROM t")), 0);
    // a mode switch is reported
    assert_eq!(c.reported_mode(), None);
    run(&mut c, "SET SESSION TRANSACTION ANSI");
    assert_eq!(c.reported_mode(), Some("ANSI"));
    run(&mut c, "SET SESSION TRANSACTION BTET");
    assert_eq!(c.reported_mode(), Some("TERA"));
}

#[test]
fn bad_parameter_sets_are_refused_and_the_client_goes_on() {
    let addr = start();
    let mut c = connect(addr);
    // more values than markers: the server's 3939, as an embedded prepared request
    assert_eq!(
        code(c.query_with("SEL ? + 1", &[Value::Int(1), Value::Int(2)])),
        3939
    );
    // sets of different widths, a PERIOD: refused before anything is sent
    let uneven = vec![vec![Value::Int(1)], vec![]];
    assert!(matches!(
        c.query_many("SEL ?", &uneven),
        Err(Error::Value(_))
    ));
    assert_eq!(first_int(&run(&mut c, "SEL 41 + 1")), 42);
}

#[test]
fn big_pipelined_sets_with_big_answers_do_not_deadlock() {
    let addr = start();
    let mut c = connect(addr);
    // each set sends 60 KB and gets it back: more than the sockets hold, both ways
    let big = "x".repeat(60_000);
    let sets: Vec<Vec<Value>> = (0..40).map(|_| vec![Value::Str(big.clone())]).collect();
    let replies = c
        .query_many("SEL CAST(? AS VARCHAR(64000))", &sets)
        .expect("echo the sets");
    assert_eq!(replies.len(), 40);
    let rows = replies[39].rows.as_ref().expect("rows");
    assert_eq!(
        rows.batches[0].column(0).as_string::<i32>().value(0).len(),
        60_000
    );
}

#[test]
fn a_cancel_reaches_a_server_at_its_connection_limit() {
    let addr = serve(
        Database::new(),
        tdlite_server::Config {
            max_connections: 1,
            ..Default::default()
        },
    );
    let mut c = connect(addr);
    run(
        &mut c,
        "CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), n INTEGER)",
    );
    let token = c.cancel_token();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        token.cancel().expect("send the cancel request");
    });
    assert_eq!(code(c.query("SELECT AND CONSUME TOP 1 * FROM q")), 9905);
    canceller.join().expect("the canceller");
}

#[test]
fn with_users_login_settings_wait_for_the_password() {
    let mut cfg = alices_server();
    cfg.settings = vec![("default_database".into(), "nowhere".into())];
    // without the password, nothing is said of the database
    cfg.password = Some("wrong".into());
    match Client::connect(&cfg) {
        Err(Error::Server { sqlstate, code, .. }) => {
            assert_eq!((sqlstate.as_str(), code), ("28P01", 0));
        }
        other => panic!("expected the password's refusal, got {:?}", other.err()),
    }
    // with it, the setting is applied at the first request: FATAL, the connection ends
    cfg.password = Some("s3cret".into());
    let mut c = Client::connect(&cfg).expect("the password is right");
    assert_eq!(code(c.query("SEL 1")), 3802);
    assert!(matches!(c.query("SEL 1"), Err(Error::Io(_))));
    // the same through the extended protocol (a FATAL error ends it without a ReadyForQuery)
    let mut c = Client::connect(&cfg).expect("the password is right");
    assert_eq!(code(c.query_with("SEL ?", &[Value::Int(1)])), 3802);
}
