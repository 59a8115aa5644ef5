"""tdlite's DB-API reaching a `tdlite serve` (``connect(host=..., port=...)``) as well as
embedding: the same code gives the same answers both ways, worker *processes* share one queue
through the server with tdlite's own module, and what is remote-only (login errors, settings
fixed at connect, TLS) behaves.
"""

import datetime
import decimal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import tdlite
from test_server import serve


@pytest.fixture
def server(tmp_path):
    proc, port = serve(tmp_path / "db", tmp_path / "port", 1)
    yield port
    proc.kill()
    proc.wait()


QUEUE = (
    "CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), "
    "n INTEGER, amount DECIMAL(9,2))"
)


def tour(con):
    """The README's kind of session; returns everything it saw, to compare."""
    seen = []
    cur = con.cursor()
    cur.execute(QUEUE)
    cur.execute(
        "CREATE TABLE t (i INTEGER, d DECIMAL(10,2), f FLOAT, s VARCHAR(40), b VARBYTE(8), "
        "dt DATE, tm TIME(6), ts TIMESTAMP(6))"
    )
    row = [7, decimal.Decimal("-12.50"), 0.25, "it''s \\ 'x'", b"\x00\xff",
           datetime.date(1999, 12, 31), datetime.time(1, 2, 3, 4),
           datetime.datetime(2024, 5, 1, 10, 11, 12, 131415)]
    cur.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?)", row)
    seen.append(cur.rowcount)
    cur.executemany("INSERT INTO t (i, s) VALUES (?, ?)", [[i, f"s{i}"] for i in range(10, 20)])
    seen.append(cur.rowcount)
    cur.execute("SELECT * FROM t WHERE i = ?", [7])
    seen.append(cur.fetchall())
    seen.append([(d[0], d[1], d[4], d[5]) for d in cur.description])
    # one request, one result per statement
    cur.execute("SEL COUNT(*) FROM t; SEL MAX(i) FROM t; UPD t SET f = 1 WHERE i > 15")
    sets = [(cur.activityname, cur.rowcount, cur.fetchall())]
    while cur.nextset():
        sets.append((cur.activityname, cur.rowcount, cur.fetchall() if cur.description else None))
    seen.append(sets)
    # errors keep their Teradata code
    with pytest.raises(tdlite.OperationalError) as e:
        cur.execute("SEL * FROM nowhere")
    seen.append(e.value.code)
    assert "[Error 3807]" in str(e.value)
    # the queue: a consume rolled back puts its row back; committed, it is gone
    cur.executemany("INS q (n, amount) VALUES (?, ?)", [[1, decimal.Decimal("1.5")], [2, None]])
    con.autocommit = False
    cur.execute("SELECT AND CONSUME TOP 1 n, amount FROM q")
    seen.append(cur.fetchall())
    con.rollback()
    cur.execute("SELECT AND CONSUME TOP 1 n, amount FROM q")
    seen.append(cur.fetchall())
    con.commit()
    con.autocommit = True
    cur.execute("SEL n FROM q")
    seen.append(cur.fetchall())
    return seen


def test_the_same_code_gives_the_same_answers_embedded_and_remote(server):
    with tdlite.connect() as local:
        expected = tour(local)
    with tdlite.connect(host="127.0.0.1", port=server) as remote:
        got = tour(remote)
    assert got == expected
    # and it saw what it should
    assert expected[0] == 1 and expected[1] == 10
    assert expected[2][0][3] == "it''s \\ 'x'"
    assert expected[-3] == [[1, decimal.Decimal("1.50")]] == expected[-2]
    assert expected[-1] == [[2]]


CONSUMER = textwrap.dedent(
    """
    import sys, tdlite
    port, name = int(sys.argv[1]), sys.argv[2]
    con = tdlite.connect(host="127.0.0.1", port=port, autocommit=False)
    con.autocommit = False
    cur = con.cursor()
    while True:
        cur.execute("SELECT AND CONSUME TOP 1 n FROM q")
        (n,) = cur.fetchone()
        if n < 0:
            con.commit()
            break
        cur.execute("INS done (n, who) VALUES (?, ?)", [n, name])
        con.commit()
    """
)


def test_worker_processes_share_one_queue_through_the_server(server):
    with tdlite.connect(host="127.0.0.1", port=server) as c:
        cur = c.cursor()
        cur.execute("CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), n INTEGER)")
        cur.execute("CREATE TABLE done (n INTEGER, who VARCHAR(10))")
        workers = [
            subprocess.Popen([sys.executable, "-c", CONSUMER, str(server), f"w{i}"])
            for i in range(3)
        ]
        # the workers wait on the empty queue first: a lost wake-up would hang them
        time.sleep(0.5)
        total = 300
        for start in range(0, total, 50):
            cur.executemany("INS q (n) VALUES (?)", [[n] for n in range(start, start + 50)])
        cur.executemany("INS q (n) VALUES (?)", [[-1]] * len(workers))
        for w in workers:
            assert w.wait(timeout=120) == 0
        cur.execute("SEL n, COUNT(*) FROM done GROUP BY n HAVING COUNT(*) > 1")
        assert cur.fetchall() == []
        cur.execute("SEL COUNT(*), COUNT(DISTINCT n), MIN(n), MAX(n) FROM done")
        assert cur.fetchone() == [total, total, 0, total - 1]
        cur.execute("SEL COUNT(DISTINCT who) FROM done")
        (who,) = cur.fetchone()
        assert who >= 1
        cur.execute("SEL COUNT(*) FROM q")
        assert cur.fetchone() == [0]


def test_a_waiting_remote_consume_is_cancelled_and_times_out(server):
    with tdlite.connect(host="127.0.0.1", port=server) as c:
        c.cursor().execute(QUEUE)
        timer = threading.Timer(0.3, c.cancel)
        timer.start()
        with pytest.raises(tdlite.OperationalError) as e:
            c.cursor().execute("SELECT AND CONSUME TOP 1 * FROM q")
        assert e.value.code == 9905
        timer.join()
    with tdlite.connect(host="127.0.0.1", port=server, consume_timeout=0.2, strict=True) as c:
        assert c.consume_timeout == 0.2 and c.strict is True
        with pytest.raises(tdlite.OperationalError) as e:
            c.cursor().execute("SELECT AND CONSUME TOP 1 * FROM q")
        assert e.value.code == 9904
        # a server's session takes its settings at login
        with pytest.raises(tdlite.NotSupportedError):
            c.consume_timeout = 5
        with pytest.raises(tdlite.NotSupportedError):
            c.strict = False


def test_login_failures_are_errors(server, tmp_path):
    with pytest.raises(tdlite.OperationalError) as e:
        tdlite.connect(host="127.0.0.1", port=server, database="nowhere")
    assert e.value.code == 3802
    with pytest.raises(tdlite.InterfaceError):
        tdlite.connect(host="127.0.0.1", port=server, tmode="X")
    with pytest.raises(tdlite.InterfaceError):
        tdlite.connect(host="127.0.0.1", port=server, path=str(tmp_path / "x"))
    with pytest.raises(tdlite.InterfaceError):
        tdlite.connect(port="not a port")
    # nothing listens on the port after the server's: refused
    with pytest.raises(tdlite.OperationalError):
        tdlite.connect(host="127.0.0.1", port=1)


def test_users_and_tls_from_python(tmp_path):
    cert, key, users = tmp_path / "cert.pem", tmp_path / "key.pem", tmp_path / "users"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
         "-addext", "basicConstraints=critical,CA:FALSE",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )
    users.write_text("alice:s3cret\n")
    proc, port = serve(tmp_path / "db", tmp_path / "port", 1,
                       "--users", str(users), "--tls-cert", str(cert), "--tls-key", str(key))
    try:
        with tdlite.connect(host="localhost", port=port, user="alice", password="s3cret",
                            sslca=str(cert)) as c:
            assert c.cursor().execute("SEL 1 + 1").fetchone() == [2]
        with pytest.raises(tdlite.OperationalError):
            tdlite.connect(host="localhost", port=port, user="alice", password="wrong",
                           sslca=str(cert))
    finally:
        proc.kill()
        proc.wait()


def test_psycopg_passes_session_settings_as_options(server):
    import psycopg

    with tdlite.connect(host="127.0.0.1", port=server) as c:
        c.cursor().execute("CREATE DATABASE shop AS PERM = 1e6")
        c.cursor().execute(QUEUE.replace("TABLE q", "TABLE shop.q"))
    options = "-c default_database=shop -c consume_timeout=0.2 -c tmode=ANSI"
    with psycopg.connect(f"host=127.0.0.1 port={server} user=dbc", options=options,
                         autocommit=True) as p:
        with pytest.raises(psycopg.Error) as e:
            p.execute("SELECT AND CONSUME TOP 1 * FROM q")
        assert "[Error 9904]" in str(e.value)
    with pytest.raises(psycopg.OperationalError) as e:
        psycopg.connect(f"host=127.0.0.1 port={server} user=dbc", options="-c tmode=X")
    assert "tmode" in str(e.value)


def test_remote_transactions_follow_the_servers_state(server):
    url = dict(host="127.0.0.1", port=server)
    with tdlite.connect(**url) as c, tdlite.connect(**url) as other:
        cur = c.cursor()
        cur.execute("CREATE TABLE t (k INTEGER)")
        c.autocommit = False
        cur.execute("INS t (1)")
        # Teradata mode: the failure rolls the transaction back, and the next request starts
        # a new one (BT), which rollback() undoes
        with pytest.raises(tdlite.OperationalError) as e:
            cur.execute("INS t (1/0)")
        assert e.value.code == 2618
        cur.execute("INS t (2)")
        c.rollback()
        c.autocommit = True
        assert other.cursor().execute("SEL COUNT(*) FROM t").fetchone() == [0]
        # a mode switch by SQL is followed: in ANSI mode autocommit commits each request
        cur.execute("SET SESSION TRANSACTION ANSI")
        cur.execute("INSERT INTO t VALUES (3)")
        assert other.cursor().execute("SEL COUNT(*) FROM t").fetchone() == [1]
        # no parameters (an empty set): every statement answers, as embedded
        cur.execute("SEL 1; SEL 2", ())
        assert cur.fetchall() == [[1]] and cur.nextset() and cur.fetchall() == [[2]]
        # several empty parameter sets run the statement once each, as embedded
        cur.execute("CREATE TABLE ticks (at TIMESTAMP(6))")
        cur.executemany("INS ticks (CURRENT_TIMESTAMP(6))", [(), (), ()])
        assert cur.rowcount == 3
        assert cur.execute("SEL COUNT(*) FROM ticks").fetchone() == [3]
        # a value that cannot go over the wire is the caller's error; the connection goes on
        with pytest.raises(tdlite.ProgrammingError):
            cur.executemany("SEL ?", [[b"\x00"], ["text"]])
        assert cur.execute("SEL 5").fetchone() == [5]
    with pytest.raises(tdlite.InterfaceError):
        tdlite.connect(host="127.0.0.1", port=server, sslmode="VERIFY-FULL")
