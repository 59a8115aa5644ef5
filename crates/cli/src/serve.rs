//! `tdlite serve [PATH] [--listen ADDR] [--allow-remote] [--max-connections N]
//! [--sync full|normal|off]`: the database in folder PATH (or in memory) served to PostgreSQL
//! clients (crate `tdlite-server`; docs/server.md). Runs until killed.

use std::net::SocketAddr;
use tdlite::SyncMode;

const USAGE: &str = "\
usage: tdlite serve [PATH] [--listen ADDR] [--allow-remote] [--max-connections N]
                    [--sync full|normal|off]";

const HELP: &str = "\
tdlite serve: one tdlite database shared by many processes over the PostgreSQL wire protocol.
Clients (psql, psycopg, JDBC, …) send Teradata SQL; each connection is one tdlite session.

  PATH                  keep the database in this folder (else in memory, gone at exit)
  --listen ADDR         the address and port to listen on (default 127.0.0.1:5433)
  --allow-remote        allow an address beyond loopback (nothing listens beyond this
                        machine without it)
  --max-connections N   connections served at once (default 100); one more is refused
                        with SQLSTATE 53300
  --sync full|normal|off  with PATH: as for tdlite PATH";

/// Runs `tdlite serve` with its arguments (those after `serve`); the exit status.
pub fn main(args: &[String]) -> i32 {
    let mut config = tdlite_server::Config::default();
    let mut path = None;
    let mut sync = None;
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1);
        match args[i].as_str() {
            "-h" | "--help" => {
                println!("{HELP}");
                return 0;
            }
            "--listen" => match value.and_then(|v| v.parse::<SocketAddr>().ok()) {
                Some(a) => {
                    config.listen = a;
                    i += 1;
                }
                None => return usage("--listen needs an address and port, like 127.0.0.1:5433"),
            },
            "--allow-remote" => config.allow_remote = true,
            "--max-connections" => match value.and_then(|v| v.parse::<usize>().ok()) {
                Some(n) if n > 0 => {
                    config.max_connections = n;
                    i += 1;
                }
                _ => return usage("--max-connections needs a positive number"),
            },
            "--sync" => match value.map(|v| v.parse::<SyncMode>()) {
                Some(Ok(s)) => {
                    sync = Some(s);
                    i += 1;
                }
                _ => return usage("--sync needs full, normal or off"),
            },
            other if other.starts_with('-') => return usage(&format!("unknown option {other}")),
            p if path.is_none() => path = Some(p.to_string()),
            extra => return usage(&format!("unexpected argument '{extra}'")),
        }
        i += 1;
    }
    let db = match crate::open_database(path.as_deref(), sync) {
        Ok(db) => db,
        Err(status) => return status,
    };
    let result = tdlite_server::serve(db, config, |addr| {
        eprintln!("tdlite serve: listening on {addr}");
    });
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!(" *** Failure: tdlite serve: {e}");
            12
        }
    }
}

fn usage(msg: &str) -> i32 {
    eprintln!(" *** Error: {msg}\n{USAGE}");
    8
}
