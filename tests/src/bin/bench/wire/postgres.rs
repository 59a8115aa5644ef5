//! A PostgreSQL 15 server for the wire benchmark: started from the machine's binaries
//! (`initdb`/`postgres` on PATH, as the `postgres` user when run as root) in a scratch folder
//! on a free port, with its defaults (`fsync` and `synchronous_commit` on); stopped and its
//! folder removed when dropped.

use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::Duration;

/// A PostgreSQL 15 server in a scratch folder, stopped when dropped.
pub struct Postgres {
    dir: PathBuf,
    child: Child,
    /// Its port on 127.0.0.1.
    pub port: u16,
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

/// Starts one.
///
/// # Errors
/// Why it could not: no binaries, initdb failed, or it did not come up.
pub fn start_postgres() -> Result<Postgres, String> {
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
