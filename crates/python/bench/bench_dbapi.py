"""tdlite's Python benchmark, run by the bench binary (`bench python`): each figure beside its
peer in the same run, as ratios (docs/benchmarks.md).

- executemany vs execute in a loop: INSERT of (INTEGER, VARCHAR(20), DECIMAL(9,2)) rows into a
  MULTISET table, µs per row each way, and their ratio (issue 14 asks executemany to cost at
  most a tenth of the loop per row).
- lookups by key: `SELECT name FROM p WHERE id = ?` with `execute` in a loop over 100,000
  rows (the connection keeps the request prepared), against sqlite3 doing the same.
- fetching N rows of (INTEGER, VARCHAR, FLOAT): tdlite `fetch_arrow()` (a pyarrow.Table),
  tdlite `fetchall()`, and sqlite3 `fetchall()` on the same rows.

Usage: python bench_dbapi.py [--rows N] [--fetch-rows N] [--rounds R]; prints one line per
figure. Each figure is the best of R rounds.
"""

import argparse
import decimal
import sqlite3
import sys
import time

import tdlite


def best(rounds, fn):
    """The fastest of `rounds` runs of fn() (which returns its own elapsed seconds)."""
    return min(fn() for _ in range(rounds))


def insert_rows(n):
    return [[i, f"name {i}", decimal.Decimal(i % 10_000) / 100] for i in range(n)]


def executemany_seconds(rows):
    with tdlite.connect() as con:
        cur = con.cursor()
        cur.execute("CREATE MULTISET TABLE t (id INTEGER, name VARCHAR(20), amt DECIMAL(9,2))")
        start = time.perf_counter()
        cur.executemany("INSERT INTO t VALUES (?, ?, ?)", rows)
        elapsed = time.perf_counter() - start
        assert cur.execute("SELECT COUNT(*) FROM t").fetchone() == [len(rows)]
        return elapsed


def execute_loop_seconds(rows):
    with tdlite.connect() as con:
        con.autocommit = False  # one transaction, as executemany's
        cur = con.cursor()
        cur.execute("CREATE MULTISET TABLE t (id INTEGER, name VARCHAR(20), amt DECIMAL(9,2))")
        con.commit()
        start = time.perf_counter()
        for row in rows:
            cur.execute("INSERT INTO t VALUES (?, ?, ?)", row)
        con.commit()
        elapsed = time.perf_counter() - start
        assert cur.execute("SELECT COUNT(*) FROM t").fetchone() == [len(rows)]
        return elapsed


def fetch_figures(n, rounds):
    rows = [(i, f"name {i}", i * 0.5) for i in range(n)]
    con = tdlite.connect()
    cur = con.cursor()
    cur.execute("CREATE MULTISET TABLE f (id INTEGER, name VARCHAR(20), x FLOAT)")
    cur.executemany("INSERT INTO f VALUES (?, ?, ?)", rows)
    lite = sqlite3.connect(":memory:")
    lite.execute("CREATE TABLE f (id INTEGER, name TEXT, x REAL)")
    lite.executemany("INSERT INTO f VALUES (?, ?, ?)", rows)
    lite.commit()
    query = "SELECT id, name, x FROM f"

    def arrow():
        start = time.perf_counter()
        table = cur.execute(query).fetch_arrow()
        elapsed = time.perf_counter() - start
        assert table.num_rows == n
        return elapsed

    def fetchall():
        start = time.perf_counter()
        got = cur.execute(query).fetchall()
        elapsed = time.perf_counter() - start
        assert len(got) == n
        return elapsed

    def sqlite_fetchall():
        start = time.perf_counter()
        got = lite.execute(query).fetchall()
        elapsed = time.perf_counter() - start
        assert len(got) == n
        return elapsed

    figures = best(rounds, arrow), best(rounds, fetchall), best(rounds, sqlite_fetchall)
    con.close()
    lite.close()
    return figures


def lookup_figures(n, lookups, rounds):
    """Seconds per point query `SELECT ... WHERE id = ?` run with `execute` in a loop (the
    connection keeps the request prepared), tdlite against sqlite3 (which keeps its own)."""
    rows = [(i, f"name {i}") for i in range(n)]
    con = tdlite.connect()
    cur = con.cursor()
    cur.execute("CREATE TABLE p (id INTEGER NOT NULL, name VARCHAR(20)) UNIQUE PRIMARY INDEX (id)")
    cur.executemany("INSERT INTO p VALUES (?, ?)", rows)
    lite = sqlite3.connect(":memory:")
    lite.execute("CREATE TABLE p (id INTEGER PRIMARY KEY, name TEXT)")
    lite.executemany("INSERT INTO p VALUES (?, ?)", rows)
    lite.commit()
    keys = [(i * 7919) % n for i in range(lookups)]
    query = "SELECT name FROM p WHERE id = ?"

    def td():
        start = time.perf_counter()
        for k in keys:
            assert cur.execute(query, [k]).fetchone() == [f"name {k}"]
        return time.perf_counter() - start

    def sq():
        start = time.perf_counter()
        for k in keys:
            assert lite.execute(query, (k,)).fetchone() == (f"name {k}",)
        return time.perf_counter() - start

    figures = best(rounds, td) / lookups, best(rounds, sq) / lookups
    con.close()
    lite.close()
    return figures


def main():
    args = argparse.ArgumentParser()
    args.add_argument("--rows", type=int, default=100_000)
    args.add_argument("--loop-rows", type=int, default=20_000)
    args.add_argument("--fetch-rows", type=int, default=1_000_000)
    args.add_argument("--rounds", type=int, default=3)
    a = args.parse_args()
    print(f"python {sys.version.split()[0]}, tdlite {tdlite.__version__}, "
          f"sqlite {sqlite3.sqlite_version}")
    many = best(a.rounds, lambda: executemany_seconds(insert_rows(a.rows))) / a.rows
    loop = best(a.rounds, lambda: execute_loop_seconds(insert_rows(a.loop_rows))) / a.loop_rows
    print(f"insert: executemany {many * 1e6:.2f} us/row ({a.rows} rows), "
          f"execute loop {loop * 1e6:.2f} us/row ({a.loop_rows} rows), "
          f"loop/executemany = {loop / many:.1f}")
    td, sq = lookup_figures(100_000, a.loop_rows, a.rounds)
    print(f"lookup by key: execute loop {td * 1e6:.2f} us/query, sqlite3 {sq * 1e6:.2f} us/query, "
          f"sqlite3/tdlite = {sq / td:.2f}")
    arrow, fetchall, lite = fetch_figures(a.fetch_rows, a.rounds)
    print(f"fetch {a.fetch_rows} rows: fetch_arrow {arrow * 1e3:.1f} ms, "
          f"fetchall {fetchall * 1e3:.1f} ms, sqlite3 fetchall {lite * 1e3:.1f} ms; "
          f"fetchall/fetch_arrow = {fetchall / arrow:.1f}, sqlite3/fetch_arrow = {lite / arrow:.1f}, "
          f"fetchall/sqlite3 = {fetchall / lite:.2f}")


if __name__ == "__main__":
    main()
