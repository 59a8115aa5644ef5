//! The client processes of `bench wire`: the bench binary started again as
//! `bench wire-child ROLE ENGINE CONNINFO [N]`, one process per client, so that the clients
//! are separate processes as an application's workers are.
//!
//! Each child connects (tokio-postgres, simple query protocol), prints `ready`, waits for a
//! line on its standard input (the coordinator starts every child's clock at once), does its
//! job, and prints its answer:
//! - `enqueue FROM N`: inserts rows FROM…FROM+N-1, one autocommitted INSERT each → `done N`;
//! - `consume`: pops one row per autocommitted request until it takes a sentinel (a negative
//!   id) → `done K`, K the real rows it took;
//! - `wait N`: N times, waits for the next row and takes it → `lat` and each row's latency in
//!   µs (now minus the producer's clock reading carried in the row's id). tdlite's consume
//!   waits by itself; on PostgreSQL the child LISTENs and pops after each notification.

use super::Kind;
use std::io::{BufRead, Write};
use tokio_postgres::{AsyncMessage, NoTls, SimpleQueryMessage};

/// Microseconds since the Unix epoch: a clock every process on the machine shares.
pub fn now_us() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
}

/// The id of the first row of a simple query's answer, if it has one.
fn first_id(m: &[SimpleQueryMessage]) -> Option<i64> {
    m.iter().find_map(|m| match m {
        SimpleQueryMessage::Row(r) => r.get(0).and_then(|v| v.parse().ok()),
        _ => None,
    })
}

/// Runs the child named by `args` (the words after `wire-child`).
pub fn main(args: &[String]) {
    let word = |i: usize| args.get(i).map(String::as_str).unwrap_or_default();
    let kind = Kind::named(word(1));
    let conninfo = word(2).to_string();
    let number = |i: usize| word(i).parse::<i64>().unwrap_or(0);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let answer = runtime.block_on(async move {
        let (client, mut connection) = tokio_postgres::connect(&conninfo, NoTls)
            .await
            .unwrap_or_else(|e| panic!("connect to {conninfo}: {e}"));
        // the connection's messages: notifications to the waiter, the rest drives it
        let (wake, mut woken) = tokio::sync::mpsc::unbounded_channel::<()>();
        tokio::spawn(async move {
            while let Some(m) = std::future::poll_fn(|cx| connection.poll_message(cx)).await {
                match m {
                    Ok(AsyncMessage::Notification(_)) => {
                        let _ = wake.send(());
                    }
                    Ok(_) => {}
                    Err(_) => break,
                }
            }
        });
        let role = word(0).to_string();
        if role == "wait" && kind == Kind::Postgres {
            client.batch_execute("LISTEN q_wake").await.expect("listen");
        }
        println!("ready");
        let _ = std::io::stdout().flush();
        let mut go = String::new();
        let _ = std::io::stdin().lock().read_line(&mut go);
        match role.as_str() {
            "enqueue" => {
                let (from, n) = (number(3), number(4));
                for k in from..from + n {
                    client.simple_query(&kind.insert(k)).await.expect("insert");
                }
                format!("done {n}")
            }
            "consume" => {
                let mut got = 0;
                loop {
                    // SKIP LOCKED may find every row left held by another client: ask again
                    let Some(id) = first_id(&client.simple_query(kind.pop()).await.expect("pop"))
                    else {
                        continue;
                    };
                    if id < 0 {
                        break format!("done {got}");
                    }
                    got += 1;
                }
            }
            "wait" => {
                let mut out = String::from("lat");
                for _ in 0..number(3) {
                    let id = loop {
                        if kind == Kind::Postgres {
                            woken.recv().await.expect("a notification");
                        }
                        if let Some(id) =
                            first_id(&client.simple_query(kind.pop()).await.expect("pop"))
                        {
                            break id;
                        }
                    };
                    out.push_str(&format!(" {}", now_us() - id));
                }
                out
            }
            other => panic!("no child role {other}"),
        }
    });
    println!("{answer}");
}
