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


# The one module object that stands for teradatasql: a tool that imported it keeps this very
# object, so a later install (a fresh database for the next test) must reach it too.
_shim = None
# What its connect uses: the Database and the default parameters of the latest install, and
# the module `teradatasql` was before the first install (restored by uninstall).
_target = {"database": None, "defaults": {}, "before": None}


def _connect(json=None, **params):
    database = _target["database"]
    if database is None:
        raise _native.InterfaceError(
            "the teradatasql shim is not installed (tdlite.install_as_teradatasql())")
    merged = dict(_target["defaults"])
    merged.update(params)
    return database.connect(json, **merged)


def install_as_teradatasql(path=None, sync=None, **defaults):
    """Makes ``import teradatasql`` give tdlite, until ``uninstall_teradatasql()``.

    Every ``teradatasql.connect(...)`` after it opens a session on one ``tdlite.Database``: in
    memory without ``path`` (a fresh one at each call of this function), else the database
    folder ``path`` (opened with ``sync``: ``full``, the default, ``normal`` or ``off``).
    ``defaults`` are connection parameters given to every ``connect`` (its own
    parameters win), for example ``tmode="ANSI"``. teradatasql's logon parameters (host, user,
    password, …) are accepted and ignored. Returns the ``tdlite.Database``.

    The module is one object for the life of the process: a tool that imported teradatasql
    before (dbt-teradata, teradatasqlalchemy) reaches the database of the latest install.
    Call it before the tool imports ``teradatasql``; in a ``conftest.py``::

        import tdlite; tdlite.install_as_teradatasql()
    """
    global _shim
    database = _native.Database(path, sync)
    current = sys.modules.get(_NAME)
    if current is not None and not getattr(current, "__tdlite__", False):
        _target["before"] = current
    if _shim is None:
        import tdlite

        _shim = types.ModuleType(_NAME, "tdlite standing in for teradatasql (tdlite's test shim)")
        for name in tdlite.__all__:
            setattr(_shim, name, getattr(tdlite, name))
        _connect.__doc__ = _native.connect.__doc__
        _shim.connect = _connect
        _shim.__tdlite__ = True
    _target["database"] = database
    _target["defaults"] = dict(defaults)
    _shim.database = database
    sys.modules[_NAME] = _shim
    return database


def uninstall_teradatasql():
    """Removes the shim from ``sys.modules`` (putting back a ``teradatasql`` that was there
    before the install); the shim's connect then refuses (InterfaceError), also for modules
    that imported it."""
    module = sys.modules.get(_NAME)
    if module is not None and getattr(module, "__tdlite__", False):
        del sys.modules[_NAME]
        if _target["before"] is not None:
            sys.modules[_NAME] = _target["before"]
    if _shim is not None:
        _shim.database = None
    _target["database"] = None
    _target["defaults"] = {}
    _target["before"] = None
