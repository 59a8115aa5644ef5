"""tdlite.Database and the teradatasql shim (install_as_teradatasql)."""

import datetime
import decimal
import sys

import pytest

import tdlite


def test_database_connections_share_tables():
    db = tdlite.Database()
    assert db.path is None
    with db.connect() as a, db.connect(tmode="ANSI") as b:
        a.cursor().execute("CREATE TABLE t (i INTEGER)")
        a.cursor().execute("INSERT INTO t VALUES (1)")
        assert b.cursor().execute("SELECT i FROM t").fetchall() == [[1]]
    # another Database is another system
    with tdlite.Database().connect() as c:
        with pytest.raises(tdlite.OperationalError, match=r"\[Error 3807\]"):
            c.cursor().execute("SELECT i FROM t")
    with pytest.raises(tdlite.InterfaceError):
        db.connect(path="elsewhere")


def test_sync_modes_of_a_folder(tmp_path):
    with tdlite.connect(path=str(tmp_path / "a"), sync="normal") as con:
        con.cursor().execute("CREATE TABLE t (i INTEGER)")
        # the folder is open with normal: another mode is refused, none given is fine
        with pytest.raises(tdlite.InterfaceError, match="sync"):
            tdlite.connect(path=str(tmp_path / "a"), sync="full")
        tdlite.connect(path=str(tmp_path / "a")).close()
    db = tdlite.Database(str(tmp_path / "b"), sync="OFF")
    with db.connect() as con:
        con.cursor().execute("CREATE TABLE t (i INTEGER)")
        con.cursor().execute("INSERT INTO t VALUES (1)")
    del db, con
    # closed, the folder opens again, with its rows (sync off writes them at close)
    with tdlite.connect(path=str(tmp_path / "b")) as con:
        assert con.cursor().execute("SELECT i FROM t").fetchall() == [[1]]
    for bad in [dict(sync="sometimes", path=str(tmp_path / "c")), dict(sync="full")]:
        with pytest.raises(tdlite.InterfaceError):
            tdlite.connect(**bad)
    with pytest.raises(tdlite.InterfaceError):
        tdlite.Database(sync="full")
    with pytest.raises(tdlite.InterfaceError):
        tdlite.Database().connect(sync="full")


def test_database_in_a_folder(tmp_path):
    db = tdlite.Database(str(tmp_path))
    assert db.path == str(tmp_path)
    with db.connect() as con:
        con.cursor().execute("CREATE TABLE t (i INTEGER)")
    # a connect(path=…) to the same folder shares the open database
    with tdlite.connect(path=str(tmp_path)) as con:
        assert con.cursor().execute("SELECT COUNT(*) FROM t").fetchone() == [0]


def test_shim_makes_teradatasql_tdlite():
    sys.modules.pop("teradatasql", None)
    db = tdlite.install_as_teradatasql(tmode="ANSI")
    try:
        import teradatasql
        assert teradatasql.database is db
        assert teradatasql.OperationalError is tdlite.OperationalError
        assert teradatasql.paramstyle == "qmark"
        # every connect goes to one database; the defaults apply, its own parameters win
        with teradatasql.connect('{"host":"whomooz","user":"guest","password":"please"}') as a:
            cur = a.cursor()
            cur.execute("CREATE TABLE t (i INTEGER)")
            cur.execute("INSERT INTO t VALUES (1)")
            # the default tmode applied: an ANSI session
            cur.execute("HELP SESSION")
            names = [d[0] for d in cur.description]
            assert cur.fetchone()[names.index("Transaction Semantics")] == "ANSI"
        with teradatasql.connect(host="whomooz", tmode="TERA") as b:
            assert b.cursor().execute("SELECT i FROM t").fetchall() == [[1]]
            # its own parameter wins over the default
            cur = b.cursor().execute("HELP SESSION")
            names = [d[0] for d in cur.description]
            assert cur.fetchone()[names.index("Transaction Semantics")] == "Teradata"
    finally:
        tdlite.uninstall_teradatasql()
    assert "teradatasql" not in sys.modules


def test_install_again_gives_a_fresh_database():
    tdlite.install_as_teradatasql()
    import teradatasql
    with teradatasql.connect() as con:
        con.cursor().execute("CREATE TABLE only_here (i INTEGER)")
    tdlite.install_as_teradatasql()
    import teradatasql as again
    # one module object: a tool that imported it before reaches the new database too
    assert again is teradatasql
    for module in (teradatasql, again):
        with module.connect() as con:
            with pytest.raises(tdlite.OperationalError, match=r"\[Error 3807\]"):
                con.cursor().execute("SELECT * FROM only_here")
    tdlite.uninstall_teradatasql()
    with pytest.raises(tdlite.InterfaceError):
        teradatasql.connect()


def test_uninstall_puts_back_a_module_that_was_there():
    import types

    other = types.ModuleType("teradatasql")
    sys.modules["teradatasql"] = other
    try:
        tdlite.install_as_teradatasql()
        import teradatasql
        assert teradatasql is not other
        tdlite.uninstall_teradatasql()
        assert sys.modules["teradatasql"] is other
    finally:
        sys.modules.pop("teradatasql", None)
    # sync is for a folder
    with pytest.raises(tdlite.InterfaceError):
        tdlite.install_as_teradatasql(sync="full")


def test_pep249_type_objects_and_constructors():
    with tdlite.connect() as con:
        cur = con.cursor()
        cur.execute("CREATE TABLE b (v VARBYTE(2))")
        cur.execute("INSERT INTO b VALUES (?)", [b"\x00"])
        cur.execute("SELECT 1, 'a', 1.5e0, CAST(1 AS DECIMAL(5,2)), DATE '2024-01-02', "
                    "TIMESTAMP '2024-01-02 03:04:05', v FROM b")
        codes = [d[1] for d in cur.description]
    assert codes[0] == tdlite.NUMBER and codes[2] == tdlite.NUMBER
    assert codes[3] == tdlite.NUMBER
    assert codes[1] == tdlite.STRING and codes[1] != tdlite.NUMBER
    assert codes[4] == tdlite.DATETIME and codes[5] == tdlite.DATETIME
    assert codes[6] == tdlite.BINARY
    assert tdlite.ROWID != int
    assert tdlite.Date(2024, 1, 2) == datetime.date(2024, 1, 2)
    assert tdlite.Binary(b"x") == b"x"
    assert isinstance(tdlite.TimestampFromTicks(0), datetime.datetime)
    assert isinstance(tdlite.DateFromTicks(0), datetime.date)
    assert isinstance(tdlite.TimeFromTicks(0), datetime.time)
    assert decimal.Decimal == tdlite.NUMBER


def test_help_is_useful():
    assert "path" in tdlite.connect.__doc__
    assert tdlite.__doc__ and "install_as_teradatasql" in tdlite.__doc__
    assert tdlite.install_as_teradatasql.__doc__


def test_the_readme_conftest_gives_each_test_a_fresh_teradata(tmp_path):
    """The README's conftest.py, run by pytest in a subprocess: test modules that import
    teradatasql (and teradatasqlalchemy) at the top, two tests that each start empty."""
    import pathlib
    import subprocess

    readme = (pathlib.Path(__file__).parents[3] / "README.md").read_text()
    conftest = next(b.split("```", 1)[0] for b in readme.split("```python\n")[1:]
                    if b.startswith("# conftest.py"))
    (tmp_path / "conftest.py").write_text(conftest)
    (tmp_path / "test_app.py").write_text('''
import teradatasql
import teradatasqlalchemy  # imports teradatasql as it loads
import sqlalchemy as sa

def test_one():
    with teradatasql.connect(host="td", user="u", password="p") as con:
        con.cursor().execute("CREATE TABLE t (i INTEGER)")
        con.cursor().execute("INSERT INTO t VALUES (1)")
    engine = sa.create_engine("teradatasql://u:p@td")
    with engine.connect() as c:
        assert c.execute(sa.text("SELECT i FROM t")).scalar() == 1

def test_two_starts_empty():
    with teradatasql.connect(host="td") as con:
        con.cursor().execute("CREATE TABLE t (i INTEGER)")
        assert con.cursor().execute("SELECT COUNT(*) FROM t").fetchone() == [0]
''')
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          str(tmp_path)], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 passed" in run.stdout
