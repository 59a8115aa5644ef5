"""The teradatasql shim, for test environments: ``import teradatasql`` resolves to tdlite.

Tools built on Teradata's driver (teradatasqlalchemy, dbt-teradata) import ``teradatasql`` and
call its ``connect`` with a host, a user and a password. In a test there is no Teradata system:
``install_as_teradatasql()`` puts a module named ``teradatasql`` in ``sys.modules`` whose
``connect`` opens sessions on one ``tdlite.Database`` (in memory, or a folder), so that all of a
tool's connections see the same tables, as the sessions of one Teradata system do. The shim is
never installed on its own and never published under Teradata's name.
"""

import sys
import types

import tdlite._native as _native

_NAME = "teradatasql"


def install_as_teradatasql(path=None, **defaults):
    """Makes ``import teradatasql`` give tdlite, until ``uninstall_teradatasql()``.

    Every ``teradatasql.connect(...)`` after it opens a session on one ``tdlite.Database``: in
    memory without ``path`` (a fresh one at each call of this function), else the database
    folder ``path``. ``defaults`` are connection parameters given to every ``connect`` (its own
    parameters win), for example ``tmode="ANSI"``. teradatasql's logon parameters (host, user,
    password, …) are accepted and ignored. Returns the ``tdlite.Database``.

    Call it before the tool imports ``teradatasql``; in a ``conftest.py``::

        import tdlite; tdlite.install_as_teradatasql()
    """
    database = _native.Database(path)
    import tdlite

    shim = types.ModuleType(_NAME, "tdlite standing in for teradatasql (tdlite's test shim)")
    for name in tdlite.__all__:
        setattr(shim, name, getattr(tdlite, name))

    def connect(json=None, **params):
        merged = dict(defaults)
        merged.update(params)
        return database.connect(json, **merged)

    connect.__doc__ = _native.connect.__doc__
    shim.connect = connect
    shim.database = database
    shim.__tdlite__ = True
    sys.modules[_NAME] = shim
    return database


def uninstall_teradatasql():
    """Removes the shim from ``sys.modules`` (modules that imported it keep their reference)."""
    module = sys.modules.get(_NAME)
    if module is not None and getattr(module, "__tdlite__", False):
        del sys.modules[_NAME]
