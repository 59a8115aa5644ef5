"""tdlite: Teradata SQL and queue tables in-process, behind a DB-API 2.0 (PEP 249) interface
shaped like Teradata's ``teradatasql`` driver.

>>> import tdlite
>>> with tdlite.connect() as con:          # a fresh database in memory
...     cur = con.cursor()
...     cur.execute("SELECT 1 + 1").fetchone()
[2]

``connect(path="folder")`` opens a durable database; connections with the same ``path`` in one
process share it, as do the connections of one ``tdlite.Database``. ``install_as_teradatasql()``
makes ``import teradatasql`` resolve to tdlite, so that tools written for teradatasql
(teradatasqlalchemy, dbt-teradata) run on it in a test. See docs/python.md.
"""

import datetime as _datetime
import decimal as _decimal

from tdlite._native import (  # noqa: F401 (re-exported)
    Connection,
    Cursor,
    Database,
    DatabaseError,
    DataError,
    Error,
    IntegrityError,
    InterfaceError,
    InternalError,
    NotSupportedError,
    OperationalError,
    ProgrammingError,
    Warning,
    __version__,
    apilevel,
    connect,
    paramstyle,
    threadsafety,
)
from tdlite._shim import install_as_teradatasql, uninstall_teradatasql  # noqa: F401

# PEP 249's constructors
Date = _datetime.date
Time = _datetime.time
Timestamp = _datetime.datetime
Binary = bytes


def DateFromTicks(ticks):
    """The local date of a POSIX time, as PEP 249 asks."""
    return _datetime.date.fromtimestamp(ticks)


def TimeFromTicks(ticks):
    """The local time of day of a POSIX time, as PEP 249 asks."""
    return _datetime.datetime.fromtimestamp(ticks).time()


def TimestampFromTicks(ticks):
    """The local date and time of a POSIX time, as PEP 249 asks."""
    return _datetime.datetime.fromtimestamp(ticks)


class _TypeObject:
    """A PEP 249 type object: equal to each type code (a Python type, as ``description``
    gives) that it stands for."""

    def __init__(self, name, *types):
        self._name = name
        self._types = frozenset(types)

    def __eq__(self, other):
        if isinstance(other, _TypeObject):
            return self is other
        return other in self._types

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self._name)

    def __repr__(self):
        return f"tdlite.{self._name}"


STRING = _TypeObject("STRING", str)
BINARY = _TypeObject("BINARY", bytes)
NUMBER = _TypeObject("NUMBER", int, float, _decimal.Decimal)
DATETIME = _TypeObject("DATETIME", _datetime.date, _datetime.time, _datetime.datetime)
ROWID = _TypeObject("ROWID")

__all__ = [
    "apilevel", "threadsafety", "paramstyle", "__version__", "connect", "Connection", "Cursor",
    "Database", "install_as_teradatasql", "uninstall_teradatasql",
    "Warning", "Error", "InterfaceError", "DatabaseError", "DataError", "OperationalError",
    "IntegrityError", "InternalError", "ProgrammingError", "NotSupportedError",
    "Date", "Time", "Timestamp", "Binary", "DateFromTicks", "TimeFromTicks",
    "TimestampFromTicks", "STRING", "BINARY", "NUMBER", "DATETIME", "ROWID",
]
