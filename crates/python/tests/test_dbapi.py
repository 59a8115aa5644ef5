"""tdlite's DB-API, checked as teradatasql's users call it (PEP 249 and teradatasql's README)."""

import datetime
import decimal
import re
import threading
import time

import pytest

import tdlite


def test_module_globals():
    assert tdlite.apilevel == "2.0"
    assert tdlite.threadsafety == 2
    assert tdlite.paramstyle == "qmark"
    for name in ["Warning", "Error", "InterfaceError", "DatabaseError", "DataError",
                 "OperationalError", "IntegrityError", "InternalError", "ProgrammingError",
                 "NotSupportedError"]:
        assert issubclass(getattr(tdlite, name), Exception), name
    assert issubclass(tdlite.OperationalError, tdlite.DatabaseError)
    assert issubclass(tdlite.DatabaseError, tdlite.Error)
    assert issubclass(tdlite.InterfaceError, tdlite.Error)


def test_connect_forms_and_ignored_logon_parameters():
    # teradatasql's three forms: kwargs, a JSON string, both (kwargs win)
    for con in [
        tdlite.connect(host="whomooz", user="guest", password="please"),
        tdlite.connect('{"host":"whomooz","user":"guest","password":"please"}'),
        tdlite.connect('{"host":"whomooz","tmode":"ANSI"}', user="guest", tmode="TERA"),
        tdlite.connect(None, logmech="TD2", dbs_port=1025),
    ]:
        with con.cursor() as cur:
            cur.execute("SELECT 1 + 1")
            assert cur.fetchone() == [2]
        con.close()


def test_rows_description_and_rowcount():
    with tdlite.connect() as con:
        cur = con.cursor()
        assert cur.rowcount == -1
        assert cur.arraysize == 1
        cur.execute("CREATE TABLE t (id INTEGER, name VARCHAR(10), amt DECIMAL(9,2))")
        cur.execute("INSERT INTO t VALUES (?, ?, ?)", [1, "a", decimal.Decimal("1.50")])
        assert cur.rowcount == 1
        cur.executemany("INSERT INTO t VALUES (?, ?, ?)",
                        [[2, "b", decimal.Decimal("2.25")], [3, None, None]])
        assert cur.rowcount == 2
        assert cur.execute("SELECT id, name, amt FROM t ORDER BY id") is cur
        assert cur.rowcount == 3
        names = [d[0] for d in cur.description]
        assert names == ["id", "name", "amt"]
        assert cur.description[0][1] is int
        assert cur.description[1][1] is str
        assert cur.description[2][1] is decimal.Decimal
        assert cur.description[2][4:6] == [9, 2]
        assert len(cur.description[0]) == 7
        assert cur.fetchone() == [1, "a", decimal.Decimal("1.50")]
        assert cur.fetchmany(1) == [[2, "b", decimal.Decimal("2.25")]]
        assert cur.fetchall() == [[3, None, None]]
        assert cur.fetchone() is None
        assert cur.fetchmany(5) == []
        # iteration
        cur.execute("SELECT id FROM t WHERE id < ? ORDER BY 1", [3])
        assert [row for row in cur] == [[1], [2]]


def test_values_round_trip():
    with tdlite.connect() as con:
        cur = con.cursor()
        cur.execute(
            "CREATE TABLE v (i BIGINT, f FLOAT, d DATE, t TIME(6), ts TIMESTAMP(6), b VARBYTE(4))")
        values = [2**40, 1.5, datetime.date(2024, 2, 29), datetime.time(10, 11, 12, 500),
                  datetime.datetime(2024, 2, 29, 23, 59, 58, 123456), b"\x00\x01"]
        cur.execute("INSERT INTO v VALUES (?, ?, ?, ?, ?, ?)", values)
        cur.execute("SELECT i, f, d, t, ts, b FROM v")
        assert cur.fetchone() == values
        types = [d[1] for d in cur.description]
        assert types == [int, float, datetime.date, datetime.time, datetime.datetime, bytes]
        # an aware datetime is stored as its UTC time
        aware = datetime.datetime(2024, 1, 1, 12, 0, tzinfo=datetime.timezone(
            datetime.timedelta(hours=2)))
        cur.execute("SELECT CAST(? AS TIMESTAMP(0))", [aware])
        assert cur.fetchone() == [datetime.datetime(2024, 1, 1, 10, 0)]
        # an int beyond BIGINT goes in as a DECIMAL
        cur.execute("SELECT ? + 1", [10**20])
        assert cur.fetchone() == [decimal.Decimal(10**20 + 1)]
        with pytest.raises(TypeError):
            cur.execute("SELECT ?", [object()])
        # Decimals written with an exponent, and zero beyond scale 38
        D = decimal.Decimal
        cur.execute("CREATE TABLE dd (x DECIMAL(38,10))")
        cur.executemany("INSERT INTO dd VALUES (?)",
                        [[D("1E+3")], [D("-1.5E-7")], [D("0E-40")], [D("12.5")]])
        cur.execute("SELECT x FROM dd ORDER BY x")
        assert [r[0] for r in cur.fetchall()] == [D("-0.0000001500"), D("0E-10"), D("12.5"),
                                                  D("1000")]
        # trailing zeros past scale 38 change no value
        cur.execute("SELECT ?", [D("1." + "0" * 45)])
        assert cur.fetchone() == [D(1)]
        for bad in [D("NaN"), D("Infinity"), D("1E+40"), D("1E-39"), D("1E-2147483648"),
                    D("1.5E-2147483647"), D("1E+999999999"), D("-1E+999999999999999999")]:
            with pytest.raises(TypeError):
                cur.execute("SELECT ?", [bad])



def test_periods_are_their_text_as_teradatasql_gives_them():
    # teradatasql's README: PERIOD values are str; their text is Teradata's `('b', 'e')`
    with tdlite.connect() as con:
        cur = con.cursor()
        cur.execute("CREATE TABLE p (k INTEGER, d PERIOD(DATE), s PERIOD(TIMESTAMP(2)))")
        cur.execute("INSERT INTO p VALUES (?, ?, ?)",
                    [1, "(2005-02-03, 2006-02-04)", "('2005-02-03 10:00:00', '2005-02-04 10:00:00')"])
        cur.execute("SELECT d, s, BEGIN(d) FROM p")
        assert cur.fetchone() == ["('2005-02-03', '2006-02-04')",
                                  "('2005-02-03 10:00:00.00', '2005-02-04 10:00:00.00')",
                                  datetime.date(2005, 2, 3)]
        assert [d[1] for d in cur.description] == [str, str, datetime.date]
        with pytest.raises(tdlite.DatabaseError, match="9102"):
            cur.execute("INSERT INTO p VALUES (?, ?, NULL)", [2, "(2006-02-04, 2005-02-03)"])

def test_errors_carry_the_teradata_code():
    with tdlite.connect() as con:
        cur = con.cursor()
        with pytest.raises(tdlite.OperationalError) as info:
            cur.execute("SELECT * FROM nowhere")
        message = str(info.value)
        # tools (dbt-teradata, teradatasql's samples) look for "[Error NNNN]"
        assert re.search(r"\[Error 3807\]", message), message
        assert message.startswith("[Version ")
        assert "[Teradata Database]" in message
        assert info.value.code == 3807
        assert isinstance(info.value, tdlite.DatabaseError)
        assert cur.rowcount == -1
        with pytest.raises(tdlite.OperationalError) as info:
            cur.execute("SELEC 1")
        assert info.value.code == 3706
        with pytest.raises(tdlite.ProgrammingError):
            cur.execute("SELECT ?", {"a": 1})


def test_multi_statement_requests_and_nextset():
    with tdlite.connect() as con:
        cur = con.cursor()
        assert cur.nextset() is None
        cur.execute("SELECT 1; SELECT 2, 3")
        assert cur.fetchall() == [[1]]
        assert cur.nextset() is True
        assert cur.fetchall() == [[2, 3]]
        assert cur.nextset() is False
        assert cur.rowcount == -1


def test_autocommit_off_commit_and_rollback():
    with tdlite.connect() as con:
        assert con.autocommit is True
        cur = con.cursor()
        cur.execute("CREATE TABLE a (n INTEGER)")
        con.autocommit = False
        cur.execute("INSERT INTO a VALUES (1)")
        con.rollback()
        cur.execute("SELECT COUNT(*) FROM a")
        assert cur.fetchone() == [0]
        cur.execute("INSERT INTO a VALUES (2)")
        con.commit()
        con.autocommit = True
        cur.execute("SELECT n FROM a")
        assert cur.fetchall() == [[2]]
        with pytest.raises(TypeError):
            con.autocommit = 1


def test_ansi_mode_and_default_database(tmp_path):
    path = str(tmp_path / "db")
    with tdlite.connect(path=path) as setup:
        setup.cursor().execute("CREATE DATABASE sales AS PERM = 1000000")
        # the same folder: the same database, with its databases
        with tdlite.connect(path=path, tmode="ANSI", database="sales") as con:
            cur = con.cursor()
            cur.execute("HELP SESSION")
            row = dict(zip([d[0] for d in cur.description], cur.fetchone()))
            assert row["Transaction Semantics"] == "ANSI"
            assert row["Current DataBase"] == "sales"
    # a database that does not exist: Teradata's 3802
    with pytest.raises(tdlite.OperationalError) as info:
        tdlite.connect(database="nowhere")
    assert info.value.code == 3802
    with pytest.raises(tdlite.InterfaceError):
        tdlite.connect(tmode="BOGUS")


def test_closed_objects_refuse_calls():
    con = tdlite.connect()
    cur = con.cursor()
    cur.close()
    with pytest.raises(tdlite.ProgrammingError):
        cur.execute("SELECT 1")
    con.close()
    con.close()
    with pytest.raises(tdlite.InterfaceError):
        con.cursor()
    with pytest.raises(tdlite.Error):
        con.commit()


def test_a_folder_is_shared_by_connections_and_threads(tmp_path):
    path = str(tmp_path / "db")
    producer = tdlite.connect(path=path)
    consumer = tdlite.connect(path=path)
    producer.cursor().execute(
        "CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),"
        " n INTEGER)")
    got = []

    def consume():
        with consumer.cursor() as cur:
            # waits on the empty queue with the GIL released
            cur.execute("SELECT AND CONSUME TOP 1 n FROM q")
            got.append(cur.fetchone())

    worker = threading.Thread(target=consume)
    worker.start()
    time.sleep(0.2)
    assert got == [], "the consumer waits for a committed row"
    producer.cursor().execute("INSERT INTO q (n) VALUES (7)")
    worker.join(timeout=30)
    assert got == [[7]]
    producer.close()
    consumer.close()


def test_cancel_stops_a_waiting_consume():
    con = tdlite.connect()
    con.cursor().execute(
        "CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),"
        " n INTEGER)")
    errors = []

    def consume():
        try:
            con.cursor().execute("SELECT AND CONSUME TOP 1 n FROM q")
        except tdlite.OperationalError as e:
            errors.append(e.code)

    worker = threading.Thread(target=consume)
    worker.start()
    deadline = time.monotonic() + 30
    while not con.cancel():
        assert time.monotonic() < deadline, "the consume never waited"
        time.sleep(0.01)
    worker.join(timeout=30)
    assert errors == [9905]


def test_the_readme_example_runs(capsys):
    readme = (__import__("pathlib").Path(__file__).parents[3] / "README.md").read_text()
    block = readme.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(block, "README.md", "exec"), {})
    assert capsys.readouterr().out == "[1]\n"


QUEUE = ("CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),"
         " n INTEGER)")


def test_consume_timeout_per_connection():
    with tdlite.connect(consume_timeout=0.05) as con:
        assert con.consume_timeout == 0.05
        cur = con.cursor()
        cur.execute(QUEUE)
        with pytest.raises(tdlite.OperationalError) as info:
            cur.execute("SELECT AND CONSUME TOP 1 n FROM q")
        assert info.value.code == 9904
        con.consume_timeout = None
        assert con.consume_timeout is None
        cur.execute("INSERT INTO q (n) VALUES (5)")
        cur.execute("SELECT AND CONSUME TOP 1 n FROM q")
        assert cur.fetchone() == [5]
        with pytest.raises(tdlite.InterfaceError):
            con.consume_timeout = -1.0


def test_strict_mode_refuses_tdlite_extensions_with_teradatas_error():
    with tdlite.connect(strict=True) as con:
        assert con.strict is True
        cur = con.cursor()
        cur.execute(QUEUE)
        cur.execute("INSERT INTO q (n) VALUES (1)")
        cur.execute("INSERT INTO q (n) VALUES (2)")
        for sql in ["SELECT AND CONSUME TOP 2 n FROM q",
                    "SELECT AND CONSUME TOP 1 n FROM q NOWAIT",
                    "SELECT n FROM q WHERE n != 1"]:
            with pytest.raises(tdlite.DatabaseError) as info:
                cur.execute(sql)
            assert info.value.code == 3706, sql
        cur.execute("SELECT AND CONSUME TOP 1 n FROM q")
        assert cur.fetchall() == [[1]]
        # off again: the batch consume (an extension) runs
        con.strict = False
        assert con.strict is False
        cur.execute("SELECT AND CONSUME TOP 5 n FROM q NOWAIT")
        assert cur.fetchall() == [[2]]
        cur.execute("SELECT AND CONSUME TOP 5 n FROM q NOWAIT")
        assert cur.fetchall() == []
        with pytest.raises(TypeError):
            con.strict = 1
    with pytest.raises(tdlite.InterfaceError):
        tdlite.connect(strict="maybe")


def test_selective_consume_takes_the_oldest_matching_row_with_a_parameter():
    # docs/queues.md, Selective consume: a worker per tenant on one queue
    with tdlite.connect() as con:
        cur = con.cursor()
        cur.execute("CREATE TABLE jobs, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT "
                    "CURRENT_TIMESTAMP(6), tenant INTEGER, n INTEGER) INDEX (tenant)")
        cur.executemany("INSERT INTO jobs (tenant, n) VALUES (?, ?)",
                        [[1, 10], [2, 20], [1, 11], [2, 21]])
        take = "SELECT AND CONSUME TOP 1 n FROM jobs WHERE tenant = ? NOWAIT"
        got = []
        for tenant in [2, 1, 2, 1, 2]:
            cur.execute(take, [tenant])
            got.append(cur.fetchall())
        assert got == [[[20]], [[10]], [[21]], [[11]], []]
        # strict mode refuses the WHERE as Teradata does
        con.strict = True
        with pytest.raises(tdlite.DatabaseError) as info:
            cur.execute(take, [1])
        assert info.value.code == 3706


def test_each_subscriber_gets_every_row_once():
    # docs/queues.md, Subscribers: billing and audit each consume every event; an event
    # leaves the queue when both have
    with tdlite.connect() as con:
        cur = con.cursor()
        cur.execute("CREATE TABLE events, QUEUE, SUBSCRIBERS (billing, audit) (qits "
                    "TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), n INTEGER)")
        cur.executemany("INSERT INTO events (n) VALUES (?)", [[1], [2]])
        take = "SELECT AND CONSUME TOP 5 n FROM events FOR SUBSCRIBER {} NOWAIT"
        cur.execute(take.format("billing"))
        assert cur.fetchall() == [[1], [2]]
        cur.execute("SELECT COUNT(*) FROM events")
        assert cur.fetchall() == [[2]]
        cur.execute(take.format("audit"))
        assert cur.fetchall() == [[1], [2]]
        cur.execute("SELECT COUNT(*) FROM events")
        assert cur.fetchall() == [[0]]
        with pytest.raises(tdlite.DatabaseError) as info:
            cur.execute("SELECT AND CONSUME TOP 1 n FROM events NOWAIT")
        assert info.value.code == 9924


def test_a_worker_leases_acknowledges_and_dead_letters():
    # docs/queues.md, Leases and Attempts: a worker takes a batch for 30 seconds, acknowledges
    # what it did, gives back what it could not; the third failure is a dead letter
    with tdlite.connect() as con:
        cur = con.cursor()
        cur.execute("CREATE MULTISET TABLE jobs_dead (qits TIMESTAMP(6), tries INTEGER, "
                    "n INTEGER, why VARCHAR(20))")
        cur.execute("CREATE TABLE jobs, QUEUE, ATTEMPTS (tries), MAX ATTEMPTS 3, "
                    "DEAD LETTER TO jobs_dead (qits TIMESTAMP(6) NOT NULL DEFAULT "
                    "CURRENT_TIMESTAMP(6), tries INTEGER NOT NULL DEFAULT 0, n INTEGER)")
        cur.executemany("INSERT INTO jobs (n) VALUES (?)", [[1], [2]])
        take = "SELECT AND CONSUME TOP 1 n, tries FROM jobs LEASE 30 SECONDS NOWAIT"
        cur.execute(take)
        assert [d[0] for d in cur.description] == ["n", "tries", "LEASE_ID"]
        (n, tries, lease), = cur.fetchall()
        assert (n, tries) == (1, 0)
        cur.execute(f"ACKNOWLEDGE jobs LEASE {lease}")
        assert cur.rowcount == 1
        for attempt in range(3):
            cur.execute(take)
            (n, tries, lease), = cur.fetchall()
            assert (n, tries) == (2, attempt)
            cur.execute(f"RELEASE jobs LEASE {lease}")
        cur.execute(take)
        assert cur.fetchall() == []
        cur.execute("SELECT n, tries, why FROM jobs_dead")
        assert cur.fetchall() == [[2, 3, "MAX ATTEMPTS"]]
        with pytest.raises(tdlite.DatabaseError) as info:
            cur.execute(f"ACKNOWLEDGE jobs LEASE {lease}")
        assert info.value.code == 9922


def test_ctrl_c_interrupts_a_waiting_consume():
    import os
    import signal

    with tdlite.connect() as con:
        cur = con.cursor()
        cur.execute(QUEUE)
        timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            cur.execute("SELECT AND CONSUME TOP 1 n FROM q")
        timer.join()
        # the session goes on: nothing was consumed, the queue still works
        cur.execute("INSERT INTO q (n) VALUES (6)")
        cur.execute("SELECT AND CONSUME TOP 1 n FROM q")
        assert cur.fetchone() == [6]


def test_executemany_batches_and_is_all_or_nothing():
    with tdlite.connect() as con:
        cur = con.cursor()
        cur.execute("CREATE TABLE b (id INTEGER, v VARCHAR(10), d DECIMAL(5,2))"
                    " UNIQUE PRIMARY INDEX (id)")
        # more rows than one batched request holds (10,000), with NULLs and mixed kinds in a
        # column
        n = 25_000
        rows = [[i, None if i % 7 == 0 else f"v{i}",
                 decimal.Decimal(i % 400) / 4 if i % 2 else i % 400] for i in range(n)]
        cur.executemany("INSERT INTO b VALUES (?, ?, ?)", rows)
        assert cur.rowcount == n
        cur.execute("SELECT COUNT(*), COUNT(v), SUM(d) FROM b")
        count, with_v, total = cur.fetchone()
        assert (count, with_v) == (n, n - len(range(0, n, 7)))
        assert total == sum(decimal.Decimal(i % 400) / 4 if i % 2 else i % 400
                            for i in range(n))
        # a duplicate key in the second batched request: the first request's rows are undone
        # too (executemany is one transaction)
        dup = [[100_000 + i, "x", 1] for i in range(12_000)] + [[100_000, "z", 3]]
        with pytest.raises(tdlite.OperationalError) as info:
            cur.executemany("INSERT INTO b VALUES (?, ?, ?)", dup)
        assert info.value.code == 2801
        cur.execute("SELECT COUNT(*) FROM b WHERE id >= 100000")
        assert cur.fetchone() == [0]
        # not an INSERT of markers: one request per set
        cur.executemany("UPDATE b SET v = ? WHERE id = ?", [["u1", 1], ["u2", 2]])
        assert cur.rowcount == 2
        cur.execute("SELECT v FROM b WHERE id IN (1, 2) ORDER BY id")
        assert cur.fetchall() == [["u1"], ["u2"]]
        cur.executemany("INSERT INTO b VALUES (?, ?, ?)", [])
        assert cur.rowcount == 0
        with pytest.raises(tdlite.OperationalError) as info:
            cur.executemany("INSERT INTO b VALUES (?, ?, ?)", [[1, 2]])
        assert info.value.code == 3939


def test_ansi_autocommit_commits_each_request(tmp_path):
    path = str(tmp_path / "db")
    with tdlite.connect(path=path, tmode="ANSI") as writer, \
            tdlite.connect(path=path, tmode="ANSI") as reader:
        w = writer.cursor()
        w.execute("CREATE TABLE t (n INTEGER)")
        w.execute("INSERT INTO t VALUES (1)")
        r = reader.cursor()
        r.execute("SELECT n FROM t")
        assert r.fetchall() == [[1]], "committed: another connection sees it"
        # a failing request leaves nothing behind, and the next one runs
        with pytest.raises(tdlite.OperationalError):
            w.execute("INSERT INTO t VALUES ('x')")
        w.executemany("INSERT INTO t VALUES (?)", [[2], [3]])
        r.execute("SELECT COUNT(*) FROM t")
        assert r.fetchone() == [3]


def test_executemany_failing_before_it_runs_leaves_no_transaction():
    with tdlite.connect() as con:
        cur = con.cursor()
        cur.execute("CREATE TABLE t (a INTEGER, b INTEGER)")
        with pytest.raises(tdlite.OperationalError) as info:
            cur.executemany("INSERT INTO t VALUES (?, ?)", [[1, 2], [3]])
        assert info.value.code == 3939
        # autocommit still commits each request: another connection's view is not needed,
        # a ROLLBACK now must find nothing to undo
        cur.execute("INSERT INTO t VALUES (5, 6)")
        con.rollback()
        cur.execute("SELECT COUNT(*) FROM t")
        assert cur.fetchone() == [1]


def test_mixed_kinds_in_a_column_insert_as_one_by_one_would():
    with tdlite.connect() as con:
        cur = con.cursor()
        cur.execute("CREATE TABLE t (v VARCHAR(10), n BIGINT)")
        cur.executemany("INSERT INTO t VALUES (?, ?)", [["abc", 1], [1, 2**62], [None, 3.0]])
        cur.execute("SELECT v, n FROM t ORDER BY n")
        assert cur.fetchall() == [["abc", 1], [None, 3], ["1", 2**62]]


def test_dates_beyond_python_are_errors_not_crashes():
    with tdlite.connect() as con:
        cur = con.cursor()
        # past DATE's range (9999-12-31): the engine refuses it before Python sees it (2665)
        with pytest.raises(tdlite.DatabaseError, match="2665"):
            cur.execute("SELECT DATE '2000-01-01' + 1000000000")
        cur.execute("SELECT DATE '9999-12-31'")
        assert cur.fetchone() == [datetime.date(9999, 12, 31)]


def test_keyword_parameters_win_over_the_json_ones():
    with tdlite.connect('{"tmode":"ANSI"}', tmode="TERA") as con:
        cur = con.cursor()
        cur.execute("HELP SESSION")
        row = dict(zip([d[0] for d in cur.description], cur.fetchone()))
        assert row["Transaction Semantics"] == "Teradata"
    with tdlite.connect('{"tmode":"ANSI"}') as con:
        cur = con.cursor()
        cur.execute("HELP SESSION")
        row = dict(zip([d[0] for d in cur.description], cur.fetchone()))
        assert row["Transaction Semantics"] == "ANSI"


def test_fetch_arrow_hands_the_rows_to_pyarrow():
    import pyarrow as pa  # .ci/python-tests installs it: a missing one fails, never skips
    with tdlite.connect() as con:
        cur = con.cursor()
        cur.execute("CREATE TABLE t (id INTEGER, name VARCHAR(10), amt DECIMAL(9,2), d DATE)")
        cur.executemany("INSERT INTO t VALUES (?, ?, ?, ?)",
                        [[i, f"n{i}", decimal.Decimal(i) / 4, datetime.date(2024, 1, i + 1)]
                         for i in range(5)])
        cur.execute("SELECT id, name, amt, d FROM t ORDER BY id")
        assert cur.fetchone() == [0, "n0", decimal.Decimal("0.00"), datetime.date(2024, 1, 1)]
        table = cur.fetch_arrow()
        assert isinstance(table, pa.Table)
        assert table.column_names == ["id", "name", "amt", "d"]
        assert table.schema.field("amt").type == pa.decimal128(9, 2)
        assert table.schema.field("d").type == pa.date32()
        # the rows not fetched yet
        assert table.column("id").to_pylist() == [1, 2, 3, 4]
        assert table.column("amt").to_pylist()[0] == decimal.Decimal("0.25")
        assert cur.fetchone() is None
        assert cur.fetch_arrow().num_rows == 0
        cur.execute("INSERT INTO t VALUES (9, 'x', 1, NULL)")
        assert cur.fetch_arrow() is None


def test_teradatasql_escape_functions():
    with tdlite.connect() as con:
        cur = con.cursor()
        # the older samples' way to turn autocommit off, and back
        cur.execute("{fn teradata_nativesql}{fn teradata_autocommit_off}")
        assert con.autocommit is False
        cur.execute("{fn teradata_autocommit}")
        assert cur.fetchone() == ["false"]
        cur.execute("{FN TERADATA_AUTOCOMMIT_ON}")
        assert con.autocommit is True
        assert cur.rowcount == -1
        # nativesql answers with the text, running nothing
        cur.execute("{fn teradata_nativesql} SELECT * FROM nowhere")
        assert cur.fetchall() == [["SELECT * FROM nowhere"]]
        # braces inside the request are its own
        cur.execute("SELECT '{fn teradata_nativesql}'")
        assert cur.fetchone() == ["{fn teradata_nativesql}"]
        with pytest.raises(tdlite.NotSupportedError):
            cur.execute("{fn teradata_logon_sequence_number}SELECT 1")
        # FastLoad escapes are read past: the batch INSERT runs as any batch (as a seed of
        # dbt-teradata with use_fastload sends it), rows as lists or tuples
        cur.execute("CREATE TABLE fl (i INTEGER, s VARCHAR(5))")
        cur.execute("{fn teradata_try_fastload}INSERT INTO fl VALUES (?, ?)",
                    [[1, "a"], (2, "b")])
        assert cur.rowcount == 2
        assert cur.execute("SELECT i, s FROM fl ORDER BY i").fetchall() == [[1, "a"], [2, "b"]]
        # one row of values is never taken for a batch
        cur.execute("INSERT INTO fl VALUES (?, ?)", (3, "c"))
        assert cur.rowcount == 1


def test_producer_and_consumers_in_threads_consume_each_row_exactly_once():
    """One producer thread, four consumer threads, each on a connection of its own to one
    in-memory database: every row is consumed once, none twice, none lost; each consumer sees
    the rows in the order they were committed. The seed of the producer's pauses is printed."""
    import os
    import random

    seed = int(os.environ.get("TDLITE_SEED", random.randrange(2**32)))
    print(f"seed {seed} (TDLITE_SEED={seed} replays the producer's pauses)")
    rng = random.Random(seed)
    db = tdlite.Database()
    with db.connect() as setup:
        setup.cursor().execute(
            "CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),"
            " n INTEGER NOT NULL)")
    rows = 400
    done = threading.Event()
    consumed = {}
    errors = []

    def consumer(name):
        mine = consumed.setdefault(name, [])
        with db.connect(consume_timeout=0.2) as con:
            cur = con.cursor()
            while True:
                try:
                    cur.execute("SELECT AND CONSUME TOP 1 n FROM q")
                    mine.append(cur.fetchone()[0])
                except tdlite.OperationalError as e:
                    if e.code == 9904 and done.is_set():
                        return  # the queue stayed empty after the last row
                    if e.code != 9904:
                        errors.append(e)
                        return

    workers = [threading.Thread(target=consumer, args=(i,)) for i in range(4)]
    for w in workers:
        w.start()
    with db.connect() as producer:
        cur = producer.cursor()
        for n in range(rows):
            cur.execute("INSERT INTO q (n) VALUES (?)", [n])
            if rng.random() < 0.05:
                time.sleep(rng.random() / 100)
    done.set()
    for w in workers:
        w.join(timeout=60)
    assert not errors, errors
    everything = [n for got in consumed.values() for n in got]
    assert sorted(everything) == list(range(rows)), f"seed {seed}"
    for got in consumed.values():
        assert got == sorted(got), f"a consumer saw rows out of order (seed {seed})"
    with db.connect() as check:
        assert check.cursor().execute("SELECT COUNT(*) FROM q").fetchone() == [0]


def test_headings_of_session_values_and_casts():
    """Teradata's headings, which tools read results by (dbt-teradata reads
    `cast(current_timestamp(0) as timestamp(0))` as 'Current TimeStamp(0)')."""
    with tdlite.connect() as con:
        cur = con.cursor()
        cur.execute("CREATE TABLE h (a INTEGER)")
        cur.execute("SELECT CAST(CURRENT_TIMESTAMP(0) AS TIMESTAMP(0)), CURRENT_TIMESTAMP, "
                    "CURRENT_DATE, CURRENT_TIME, DATE, TIME, CAST(a AS CHAR(5)), h.a, a + 1 "
                    "FROM h")
        assert [d[0] for d in cur.description] == [
            "Current TimeStamp(0)", "Current TimeStamp(6)", "Current Date", "Current Time(0)",
            "Date", "Time", "a", "a", "a + 1"]


def test_requests_with_parameters_are_prepared_once_per_text_and_stay_right():
    # a text run with parameters before reuses its prepared request (and the plans its
    # executions kept); DDL in between, more texts than are kept, and errors change nothing
    con = tdlite.connect()
    cur = con.cursor()
    cur.execute("CREATE TABLE t (k INTEGER, a VARCHAR(5)) PRIMARY INDEX (k)")
    cur.execute("INS t (1, 'one')")
    query = "SEL * FROM t WHERE k = ?"
    for _ in range(3):
        cur.execute(query, [1])
        assert cur.fetchall() == [[1, "one"]]
    cur.execute("DROP TABLE t")
    cur.execute("CREATE TABLE t (a VARCHAR(5), b INTEGER, k INTEGER) PRIMARY INDEX (k)")
    cur.execute("INS t ('uno', 7, 1)")
    cur.execute(query, [1])
    assert cur.fetchall() == [["uno", 7, 1]]
    assert [d[0] for d in cur.description] == ["a", "b", "k"]
    # more texts than a connection keeps, then the first again
    for i in range(200):
        cur.execute(f"SEL k + {i} FROM t WHERE k = ?", [1])
        assert cur.fetchone() == [1 + i]
    cur.execute(query, [1])
    assert cur.fetchall() == [["uno", 7, 1]]
    # a parameter of another type, then a text that does not parse, twice
    cur.execute(query, ["1"])
    assert cur.fetchall() == [["uno", 7, 1]]
    for _ in range(2):
        with pytest.raises(tdlite.DatabaseError, match="3706"):
            cur.execute("SEL FROM WHERE ?", [1])
    con.close()


def test_stored_procedure_call_with_parameters():
    # teradatasql runs CALL through execute; OUT parameters come back as one row
    con = tdlite.connect()
    cur = con.cursor()
    cur.execute("CREATE MULTISET TABLE audit (step VARCHAR(10), n INTEGER)")
    cur.execute(
        "CREATE PROCEDURE log_step (IN step VARCHAR(10), IN n INTEGER, OUT total INTEGER)\n"
        "BEGIN\n"
        "  INSERT INTO audit VALUES (:step, :n);\n"
        "  SELECT SUM(n) INTO :total FROM audit;\n"
        "END"
    )
    cur.execute("CALL log_step(?, ?, total)", ["load", 4])
    assert [d[0] for d in cur.description] == ["total"]
    assert cur.fetchall() == [[4]]
    cur.execute("CALL log_step('more', 3, total)")
    assert cur.fetchone()[0] == 7
    with pytest.raises(tdlite.DatabaseError) as e:
        cur.execute("CALL log_step(1)")
    assert "3939" in str(e.value)
