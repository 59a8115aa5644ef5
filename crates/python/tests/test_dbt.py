"""dbt-teradata, unchanged, on tdlite through the teradatasql shim: the sample project in
dbt_project/ goes through `dbt seed`, `run`, `test`, `snapshot` (twice, with a change between),
`run` again (incremental) and `docs generate`, and the tables hold what they should.
.ci/python-tests installs dbt-core and dbt-teradata (without the real driver)."""

import datetime
import json
import os
import shutil
from pathlib import Path

import pytest

import tdlite

# no usage statistics sent anywhere from a test
os.environ["DBT_SEND_ANONYMOUS_USAGE_STATS"] = "False"
os.environ["DO_NOT_TRACK"] = "1"

# dbt-teradata imports teradatasql as it loads: the shim goes in first (per test, below, it
# is installed again with a fresh database)
tdlite.install_as_teradatasql()
from dbt.cli.main import dbtRunner  # noqa: E402

PROJECT = Path(__file__).parent / "dbt_project"

PROFILE = """
tdlite_demo:
  target: dev
  outputs:
    dev:
      type: teradata
      host: localhost
      user: dbc
      password: dbc
      schema: dbt_demo
      tmode: ANSI
      threads: 1
"""


@pytest.fixture
def project(tmp_path):
    """The sample project in a scratch folder, a fresh in-memory Teradata behind the shim."""
    root = tmp_path / "project"
    shutil.copytree(PROJECT, root)
    (root / "profiles.yml").write_text(PROFILE)
    database = tdlite.install_as_teradatasql()
    yield root, database
    tdlite.uninstall_teradatasql()


def dbt(root, *args):
    """Runs one dbt command in this process; fails the test with dbt's own message."""
    result = dbtRunner().invoke(
        [*args, "--project-dir", str(root), "--profiles-dir", str(root), "--no-use-colors"])
    assert result.success, f"dbt {' '.join(args)} failed: {result.exception or result.result}"
    return result


def rows(database, sql):
    with database.connect() as con:
        return con.cursor().execute(sql).fetchall()


def test_seed_run_test_snapshot_docs(project):
    root, database = project
    dbt(root, "seed")
    assert rows(database, "SELECT id, name, amount, joined FROM dbt_demo.people ORDER BY id") == [
        [1, "ann", 10.5, datetime.date(2024, 1, 2)], [2, "bob", 20.0, datetime.date(2024, 2, 3)],
        [3, "cid", 7.25, datetime.date(2024, 3, 4)]]

    dbt(root, "run")
    assert rows(database, "SELECT id, name_up, double_amount FROM dbt_demo.people_table "
                          "ORDER BY id") == [[1, "ANN", 21.0], [2, "BOB", 40.0], [3, "CID", 14.5]]
    assert rows(database, "SELECT n, total FROM dbt_demo.spender_count") == [[2, 30.5]]
    assert rows(database, "SELECT TableKind FROM DBC.TablesV WHERE DatabaseName = 'dbt_demo' "
                          "AND TableName = 'stg_people'") == [["V"]]
    # the ephemeral model is no object of its own
    assert rows(database, "SELECT COUNT(*) FROM DBC.TablesV WHERE TableName = 'big_spenders'") \
        == [[0]]

    test = dbt(root, "test")
    assert len(test.result) == 6
    assert all(r.status == "pass" for r in test.result)

    dbt(root, "snapshot")
    assert rows(database, "SELECT COUNT(*) FROM dbt_demo.people_snapshot") == [[3]]
    # a change to a checked column: the next snapshot closes the old version, adds the new
    with database.connect() as con:
        con.cursor().execute("UPDATE dbt_demo.people SET amount = 99 WHERE id = 1")
    dbt(root, "snapshot")
    versions = rows(database, "SELECT amount, dbt_valid_to IS NULL FROM dbt_demo.people_snapshot "
                              "WHERE id = 1 ORDER BY dbt_valid_from")
    assert [(v[0], v[1]) for v in versions] == [(10.5, 0), (99.0, 1)]
    assert rows(database, "SELECT COUNT(*) FROM dbt_demo.people_snapshot") == [[4]]

    # incremental: a second run merges on the key (the changed row updated, none doubled)
    dbt(root, "run")
    assert rows(database, "SELECT id, amount FROM dbt_demo.people_incremental ORDER BY id") == [
        [1, 99.0], [2, 20.0], [3, 7.25]]

    dbt(root, "docs", "generate")
    catalog = json.loads((root / "target" / "catalog.json").read_text())
    nodes = catalog["nodes"]
    table = nodes["model.tdlite_demo.people_table"]
    assert table["metadata"]["type"] == "table"
    assert list(table["columns"]) == ["id", "name_up", "double_amount"]
    assert nodes["model.tdlite_demo.stg_people"]["metadata"]["type"] == "view"
    assert not catalog.get("errors")


def test_a_failing_data_test_fails(project):
    root, database = project
    dbt(root, "seed")
    dbt(root, "run")
    with database.connect() as con:
        con.cursor().execute("INSERT INTO dbt_demo.people_table VALUES (1, 'ZED', 0)")
    result = dbtRunner().invoke(["test", "--project-dir", str(root), "--profiles-dir",
                                 str(root), "--no-use-colors"])
    assert not result.success
    failed = sorted(r.node.name for r in result.result if r.status == "fail")
    assert any(name.startswith("unique_people_table_id") for name in failed), failed
    assert any(name.startswith("accepted_values_people_table") for name in failed), failed
