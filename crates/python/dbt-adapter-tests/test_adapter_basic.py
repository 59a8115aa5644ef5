"""The basic classes of dbt-tests-adapter 1.20.0 every dbt adapter runs, unchanged.

Not here, and why: `BaseDocsGenerate` and `BaseDocsGenReferences` expect a catalog that
dbt-teradata does not produce on any Teradata (it reports no table owner and lower-case
relation types, and refuses the suite's second database as a cross-database reference); its
own repository overrides them, and those overrides are not published with it."""

from dbt.tests.adapter.basic.test_adapter_methods import BaseAdapterMethod
from dbt.tests.adapter.basic.test_base import BaseSimpleMaterializations
from dbt.tests.adapter.basic.test_empty import BaseEmpty
from dbt.tests.adapter.basic.test_ephemeral import BaseEphemeral
from dbt.tests.adapter.basic.test_generic_tests import BaseGenericTests
import pytest
from dbt.tests.adapter.basic import files
from dbt.tests.adapter.basic.test_incremental import (
    BaseIncremental,
    BaseIncrementalNotSchemaChange,
)
from dbt.tests.adapter.basic.test_singular_tests import BaseSingularTests
from dbt.tests.adapter.basic.test_singular_tests_ephemeral import BaseSingularTestsEphemeral
from dbt.tests.adapter.basic.test_snapshot_check_cols import BaseSnapshotCheckCols
from dbt.tests.adapter.basic.test_snapshot_timestamp import BaseSnapshotTimestamp
from dbt.tests.adapter.basic.test_table_materialization import BaseTableMaterialization
from dbt.tests.adapter.basic.test_validate_connection import BaseValidateConnection


class TestSimpleMaterializations(BaseSimpleMaterializations):
    pass


class TestSingularTests(BaseSingularTests):
    pass


class TestSingularTestsEphemeral(BaseSingularTestsEphemeral):
    pass


class TestEmpty(BaseEmpty):
    pass


class TestEphemeral(BaseEphemeral):
    pass


class TestIncremental(BaseIncremental):
    pass


class TestGenericTests(BaseGenericTests):
    pass


class TestSnapshotCheckCols(BaseSnapshotCheckCols):
    pass


class TestSnapshotTimestamp(BaseSnapshotTimestamp):
    pass


class TestAdapterMethod(BaseAdapterMethod):
    pass


class TestTableMaterialization(BaseTableMaterialization):
    pass


class TestValidateConnection(BaseValidateConnection):
    pass


def incremental_with(strategy):
    """The suite's incremental model under another of dbt-teradata's strategies."""
    config = (
        "{{ config(materialized='incremental', incremental_strategy='%s', unique_key='id') }}\n"
        % strategy
    )
    return {"incremental.sql": config + files.model_incremental, "schema.yml": files.schema_base_yml}


class TestIncrementalDeleteInsert(BaseIncremental):
    """delete+insert: `DELETE … WHERE (id) IN (SELECT …)` then INSERT … SELECT."""

    @pytest.fixture(scope="class")
    def models(self):
        return incremental_with("delete+insert")


class TestIncrementalMerge(BaseIncremental):
    """merge: MERGE INTO … USING … WHEN MATCHED THEN UPDATE … WHEN NOT MATCHED THEN INSERT."""

    @pytest.fixture(scope="class")
    def models(self):
        return incremental_with("merge")


class TestIncrementalNotSchemaChange(BaseIncrementalNotSchemaChange):
    pass
