//! `tdlite serve [PATH] [--listen ADDR] [--allow-remote] [--max-connections N]
//! [--sync full|normal|off]`: the database in folder PATH (or in memory) served to PostgreSQL
//! clients (crate `tdlite-server`; docs/server.md). Runs until killed.

use std::net::SocketAddr;
use std::time::Duration;
use tdlite::SyncMode;

const USAGE: &str = "\
usage: tdlite serve [PATH] [--listen ADDR] [--allow-remote] [--max-connections N]
                    [--idle-timeout SECONDS] [--statement-timeout SECONDS]
                    [--shutdown-grace SECONDS] [--user NAME:PASSWORD]... [--users FILE]
                    [--tls-cert FILE --tls-key FILE] [--sync full|normal|off]";

const HELP: &str = "\
tdlite serve: one tdlite database shared by many processes over the PostgreSQL wire protocol.
Clients (psql, psycopg, JDBC, …) send Teradata SQL; each connection is one tdlite session.

  PATH                  keep the database in this folder (else in memory, gone at exit)
  --listen ADDR         the address and port to listen on (default 127.0.0.1:5433)
  --allow-remote        allow an address beyond loopback (nothing listens beyond this
                        machine without it)
  --max-connections N   connections served at once (default 100); one more is refused
                        with SQLSTATE 53300
  --idle-timeout SECONDS      close a connection that sends no request for this long
                              (its uncommitted work is rolled back); default: never
  --statement-timeout SECONDS bound each request (error 9920 past it; a consume's wait for
                              a row is not bounded by it); default: none
  --shutdown-grace SECONDS    on SIGTERM or Ctrl-C: how long open transactions may go on
                              before they are rolled back (default 10); connections between
                              requests and outside a transaction close at once; then a
                              database folder is checkpointed
  --user NAME:PASSWORD        a user who may log in (SCRAM-SHA-256); repeat for more
  --users FILE                users from a file of NAME:PASSWORD lines (# comments); with
                              users, every login needs its password, else any is accepted
  --tls-cert FILE, --tls-key FILE
                              offer TLS with this PEM certificate chain and private key
  --sync full|normal|off      with PATH: as for tdlite PATH";

/// Runs `tdlite serve` with its arguments (those after `serve`); the exit status.
pub fn main(args: &[String]) -> i32 {
    let mut config = tdlite_server::Config::default();
    let mut path = None;
    let mut sync = None;
    let mut users = tdlite_server::auth::Users::default();
    let (mut cert, mut key) = (None, None);
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
            "--user" => match value.map(|v| users.add_entry(v)) {
                Some(Ok(())) => i += 1,
                Some(Err(e)) => return usage(&format!("--user: {e}")),
                None => return usage("--user needs NAME:PASSWORD"),
            },
            "--users" => {
                let Some(file) = value else {
                    return usage("--users needs a file");
                };
                let text = match std::fs::read_to_string(file) {
                    Ok(t) => t,
                    Err(e) => return usage(&format!("--users {file}: {e}")),
                };
                if let Err(e) = users.add_lines(&text) {
                    return usage(&format!("--users {file}: {e}"));
                }
                i += 1;
            }
            "--tls-cert" | "--tls-key" => {
                let Some(file) = value else {
                    return usage(&format!("{} needs a file", args[i]));
                };
                match std::fs::read(file) {
                    Ok(pem) if args[i] == "--tls-cert" => cert = Some(pem),
                    Ok(pem) => key = Some(pem),
                    Err(e) => return usage(&format!("{} {file}: {e}", args[i])),
                }
                i += 1;
            }
            "--idle-timeout" | "--statement-timeout" | "--shutdown-grace" => {
                let Some(d) = value
                    .and_then(|v| v.parse::<f64>().ok())
                    .and_then(|s| Duration::try_from_secs_f64(s).ok())
                else {
                    return usage(&format!("{} needs a number of seconds", args[i]));
                };
                match args[i].as_str() {
                    "--idle-timeout" => config.idle_timeout = Some(d),
                    "--statement-timeout" => config.statement_timeout = Some(d),
                    _ => config.shutdown_grace = d,
                }
                i += 1;
            }
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
    config.tls = match (cert, key) {
        (Some(c), Some(k)) => Some((c, k)),
        (None, None) => None,
        _ => return usage("--tls-cert and --tls-key go together"),
    };
    if !users.is_empty() {
        config.users = Some(std::sync::Arc::new(users));
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
