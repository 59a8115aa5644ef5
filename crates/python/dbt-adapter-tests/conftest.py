"""dbt's adapter test suite (dbt-tests-adapter), run against dbt-teradata on tdlite through
the teradatasql shim. A pytest run of its own (.ci/python-tests), since the suite's fixtures
come as a plugin that must be declared in a root conftest."""

import os

import pytest

import tdlite

os.environ["DBT_SEND_ANONYMOUS_USAGE_STATS"] = "False"
os.environ["DO_NOT_TRACK"] = "1"

# one in-memory Teradata for the run: each test class works in a schema of its own, which
# the suite creates and drops
tdlite.install_as_teradatasql()

pytest_plugins = ["dbt.tests.fixtures.project"]


@pytest.fixture(scope="class")
def dbt_profile_target():
    """The profile dbt-teradata reads: any host and credentials (the shim ignores them)."""
    return {
        "type": "teradata",
        "threads": 1,
        "host": "localhost",
        "user": "dbc",
        "password": "dbc",
        "schema": "dbt_test",
        "tmode": "ANSI",
    }


@pytest.fixture(scope="class")
def logs_dir(tmp_path_factory):
    """dbt's logs in a temporary folder (the suite's own fixture writes them into the
    checkout)."""
    folder = tmp_path_factory.mktemp("dbt-logs")
    os.environ["DBT_LOG_PATH"] = str(folder)
    yield str(folder)
    del os.environ["DBT_LOG_PATH"]
