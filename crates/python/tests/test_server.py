"""`tdlite serve` with real PostgreSQL clients in separate processes (psycopg).

A producer (this test) and three consumer processes share one queue through the server:
each consumer takes a row and records it in a `done` table in the same transaction, so
the invariant is exact: every row produced is in `done` exactly once, or still in the
queue. Halfway, the server is killed with SIGKILL while consumers are inside their
transactions, and started again on the same folder; the consumers reconnect and go on.
Consumers wait on an empty queue before rows arrive, so a lost wake-up hangs the test.
"""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psycopg
import pytest

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(os.environ.get("TDLITE_BIN", ROOT / "target" / "debug" / "tdlite"))

CONSUMER = textwrap.dedent(
    """
    import sys, time, psycopg
    port_file, name = sys.argv[1], sys.argv[2]
    epoch, conn = None, None
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            if conn is None:
                epoch, port = open(port_file).read().split()
                conn = psycopg.connect(f"host=127.0.0.1 port={port} user=dbc", connect_timeout=5)
            cur = conn.cursor()
            cur.execute("SELECT AND CONSUME TOP 1 n FROM q")
            (n,) = cur.fetchone()
            if n < 0:
                conn.commit()
                sys.exit(0)
            cur.execute("INS done (n, who, epoch) VALUES (%s, %s, %s)", (n, name, int(epoch)))
            conn.commit()
        except psycopg.OperationalError:
            # the server went away: its transaction is rolled back; connect again
            conn = None
            time.sleep(0.2)
    sys.exit("gave up waiting for the server")
    """
)


def serve(folder, port_file, epoch, *extra):
    """Starts `tdlite serve` on the folder and writes `epoch port` to port_file."""
    if not BIN.exists():
        pytest.fail(f"{BIN} is missing: build it with cargo build -p tdlite-cli")
    proc = subprocess.Popen(
        [str(BIN), "serve", str(folder), "--listen", "127.0.0.1:0", *extra],
        stderr=subprocess.PIPE,
        text=True,
    )
    line = proc.stderr.readline()
    assert "listening on" in line, line
    port = int(line.strip().rsplit(":", 1)[1])
    tmp = port_file.with_suffix(".tmp")
    tmp.write_text(f"{epoch} {port}")
    tmp.replace(port_file)
    return proc, port


def connect(port):
    return psycopg.connect(f"host=127.0.0.1 port={port} user=dbc", autocommit=True)


def test_producer_and_consumer_processes_share_one_queue_across_a_kill(tmp_path):
    folder, port_file = tmp_path / "db", tmp_path / "port"
    server, port = serve(folder, port_file, 1)
    consumers = []
    try:
        with connect(port) as c:
            c.execute(
                "CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL "
                "DEFAULT CURRENT_TIMESTAMP(6), n INTEGER)"
            )
            c.execute("CREATE MULTISET TABLE done (n INTEGER, who VARCHAR(10), epoch INTEGER)")
        consumers = [
            subprocess.Popen([sys.executable, "-c", CONSUMER, str(port_file), f"c{i}"])
            for i in range(3)
        ]
        time.sleep(0.5)  # the consumers now wait on the empty queue
        with connect(port) as c:
            for n in range(0, 150):
                c.execute("INS q (n) VALUES (%s)", (n,))
        time.sleep(0.3)  # consumers are inside their transactions
        server.send_signal(signal.SIGKILL)
        server.wait()
        server, port = serve(folder, port_file, 2)
        with connect(port) as c:
            for n in range(150, 300):
                c.execute("INS q (n) VALUES (%s)", (n,))
            for _ in consumers:
                c.execute("INS q (n) VALUES (-1)")
        for p in consumers:
            assert p.wait(timeout=120) == 0
        with connect(port) as c:
            done = c.execute("SEL n, who, epoch FROM done").fetchall()
            left = [r[0] for r in c.execute("SEL n FROM q").fetchall()]
        got = sorted(r[0] for r in done)
        # exactly once: nothing lost (committed rows survived the kill) and nothing twice
        assert len(got) == len(set(got)), "a row consumed twice"
        assert sorted(got + left) == list(range(300)), "a row lost"
        assert left == [], "rows left in the queue"
        # FIFO within an epoch: each consumer took its rows oldest first
        for who in {r[1] for r in done}:
            for epoch in (1, 2):
                mine = [r[0] for r in done if r[1] == who and r[2] == epoch]
                assert mine == sorted(mine), (who, epoch, mine)
        assert {r[2] for r in done} == {1, 2}, "the kill came before or after all the work"
    finally:
        for p in consumers:
            if p.poll() is None:
                p.kill()
        server.kill()
        server.wait()


def test_psql_style_simple_queries_and_errors(tmp_path):
    server, port = serve(tmp_path / "db", tmp_path / "port", 1)
    try:
        with connect(port) as c:
            c.execute("CREATE TABLE t (k INTEGER, amt DECIMAL(9,2), d DATE)")
            c.execute("INS t (1, 12.50, DATE '2024-05-01'); INS t (2, NULL, NULL)")
            rows = c.execute("SEL k, amt, d FROM t ORDER BY k").fetchall()
            assert [(r[0], str(r[1]), str(r[2])) for r in rows] == [
                (1, "12.50", "2024-05-01"),
                (2, "None", "None"),
            ]
            with pytest.raises(psycopg.errors.UndefinedTable) as e:
                c.execute("SEL * FROM nowhere")
            assert "[Error 3807]" in str(e.value)
    finally:
        server.kill()
        server.wait()


def test_sigterm_lets_the_server_end_cleanly_rolling_back_open_work(tmp_path):
    folder, port_file = tmp_path / "db", tmp_path / "port"
    server, port = serve(folder, port_file, 1, "--shutdown-grace", "1")
    try:
        with connect(port) as c:
            c.execute("CREATE TABLE t (k INTEGER)")
            c.execute("INS t (1)")
        open_txn = psycopg.connect(f"host=127.0.0.1 port={port} user=dbc")
        open_txn.execute("INS t (2)")  # psycopg began a transaction: not committed
        started = time.time()
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 0
        assert time.time() - started >= 1, "the open transaction had its grace"
        assert "shutting down" in server.stderr.read()
        server, port = serve(folder, port_file, 2)
        with connect(port) as c:
            assert c.execute("SEL k FROM t ORDER BY k").fetchall() == [(1,)]
    finally:
        server.kill()
        server.wait()


def test_users_and_tls(tmp_path):
    cert, key = tmp_path / "server.crt", tmp_path / "server.key"
    made = subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=localhost", "-keyout", str(key), "-out", str(cert)],
        capture_output=True,
    )
    assert made.returncode == 0, made.stderr
    users = tmp_path / "users"
    users.write_text("# who may log in\nalice:s3cret\n")
    server, port = serve(
        tmp_path / "db", tmp_path / "port", 1,
        "--users", str(users), "--tls-cert", str(cert), "--tls-key", str(key),
    )
    try:
        dsn = f"host=127.0.0.1 port={port} user=alice"
        with psycopg.connect(f"{dsn} password=s3cret sslmode=require") as c:
            assert c.pgconn.ssl_in_use
            assert c.execute("SEL 1").fetchone() == (1,)
        with psycopg.connect(f"{dsn} password=s3cret sslmode=disable") as c:
            assert not c.pgconn.ssl_in_use
        with pytest.raises(psycopg.OperationalError) as e:
            psycopg.connect(f"{dsn} password=wrong sslmode=require")
        assert "authentication failed" in str(e.value)
    finally:
        server.kill()
        server.wait()
    assert "refused a login" in server.stderr.read()


def test_ansi_mode_transactions_commit_through_psycopg(tmp_path):
    server, port = serve(tmp_path / "db", tmp_path / "port", 1)
    try:
        with connect(port) as c:
            c.execute(
                "CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL "
                "DEFAULT CURRENT_TIMESTAMP(6), n INTEGER)"
            )
            c.execute("INS q (n) VALUES (1)")
            c.execute("INS q (n) VALUES (2)")
        conn = psycopg.connect(f"host=127.0.0.1 port={port} user=dbc", autocommit=True)
        conn.execute("SET SESSION TRANSACTION ANSI")
        conn.autocommit = False
        assert conn.execute("SELECT AND CONSUME TOP 1 n FROM q").fetchall() == [(1,)]
        assert conn.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS
        conn.rollback()  # ROLLBACK reaches the session: the row is back
        with connect(port) as c:
            assert c.execute("SEL COUNT(*) FROM q").fetchone() == (2,)
        assert conn.execute("SELECT AND CONSUME TOP 1 n FROM q").fetchall() == [(1,)]
        conn.commit()  # COMMIT reaches the session: the row is gone for good
        conn.close()
        with connect(port) as c:
            assert c.execute("SEL n FROM q").fetchall() == [(2,)]
    finally:
        server.kill()
        server.wait()


README_TOUR = """\
CREATE TABLE jobs, QUEUE (
  qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  job_id INTEGER NOT NULL,
  task VARCHAR(40));
INSERT INTO jobs (job_id, task) VALUES (1, 'resize image');
INS jobs (CURRENT_TIMESTAMP, 2, 'send mail');
INS jobs (TIMESTAMP '2020-01-01 00:00:00', 0, 'urgent');
SEL job_id, task FROM jobs ORDER BY qits;
SELECT AND CONSUME TOP 1 * FROM jobs;
BT;
SELECT AND CONSUME TOP 1 job_id FROM jobs;
ABORT;
SELECT AND CONSUME TOP 1 job_id FROM jobs;
SEL * FROM nowhere;
"""


def test_psql_runs_the_readme_tour(tmp_path):
    """The README's tour (its SQL; the REPL's dot commands are the REPL's) through the real
    psql, which sends each statement as a simple query."""
    import shutil

    psql = shutil.which("psql")
    if psql is None:
        pytest.fail("psql is missing: install Debian's postgresql-client")
    script = tmp_path / "tour.sql"
    script.write_text(README_TOUR)
    server, port = serve(tmp_path / "db", tmp_path / "port", 1)
    try:
        out = subprocess.run(
            [psql, "-X", "-A", "-t", "-h", "127.0.0.1", "-p", str(port), "-U", "dbc",
             "-f", str(script)],
            capture_output=True, text=True, timeout=60,
            env={**os.environ, "PGCONNECT_TIMEOUT": "5"},
        )
        # browse in QITS order; the old QITS pops first (with its QITS); ABORT puts job 1
        # back, so the next consume takes it again
        assert out.stdout.split("\n")[:12] == [
            "CREATE TABLE", "INSERT 0 1", "INSERT 0 1", "INSERT 0 1",
            "0|urgent", "1|resize image", "2|send mail",
            "2020-01-01 00:00:00.000000|0|urgent",
            "BEGIN", "1", "ROLLBACK", "1",
        ], out.stdout
        assert "[Error 3807] Object 'nowhere' does not exist." in out.stderr
    finally:
        server.kill()
        server.wait()


def test_psycopg_runs_the_readme_tour(tmp_path):
    """The same tour through psycopg, statement by statement, as an application would."""
    server, port = serve(tmp_path / "db", tmp_path / "port", 1)
    try:
        with connect(port) as c:
            seen = []
            for statement in README_TOUR.split(";\n"):
                if not statement.strip():
                    continue
                try:
                    cur = c.execute(statement)
                except psycopg.Error as e:
                    seen.append(str(e).split(" (line")[0])
                    continue
                seen.append(cur.fetchall() if cur.description else cur.statusmessage)
        assert seen[:4] == ["CREATE TABLE", "INSERT 0 1", "INSERT 0 1", "INSERT 0 1"]
        assert seen[4] == [(0, "urgent"), (1, "resize image"), (2, "send mail")]
        assert [r[1:] for r in seen[5]] == [(0, "urgent")]
        assert seen[6:10] == ["BEGIN", [(1,)], "ROLLBACK", [(1,)]]
        assert seen[10] == "[Error 3807] Object 'nowhere' does not exist."
    finally:
        server.kill()
        server.wait()
