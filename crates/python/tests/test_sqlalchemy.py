"""SQLAlchemy with Teradata's dialect (teradatasqlalchemy), unchanged, on tdlite through the
teradatasql shim: Core, ORM, reflection, views, a volatile table, and a queue consumed with
text(). .ci/python-tests installs SQLAlchemy and teradatasqlalchemy (without the real
driver, which the shim replaces)."""

import decimal

import pytest
import sqlalchemy as sa
from sqlalchemy import inspect, text
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

import tdlite

# teradatasqlalchemy imports teradatasql when it is imported: the shim goes in first
tdlite.install_as_teradatasql()
import teradatasqlalchemy  # noqa: E402,F401


@pytest.fixture
def engine():
    """An engine on a fresh in-memory tdlite, as teradatasqlalchemy users write it."""
    tdlite.install_as_teradatasql()
    eng = sa.create_engine("teradatasql://guest:please@whomooz")
    yield eng
    eng.dispose()
    tdlite.uninstall_teradatasql()


def test_core_create_insert_select_and_reflect(engine):
    md = sa.MetaData()
    person = sa.Table(
        "person", md,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(40)),
        sa.Column("amt", sa.Numeric(9, 2)),
    )
    md.create_all(engine)
    with engine.begin() as c:
        c.execute(person.insert(), [{"id": 1, "name": "a", "amt": decimal.Decimal("1.50")},
                                    {"id": 2, "name": "b", "amt": None}])
    with engine.connect() as c:
        rows = c.execute(sa.select(person).where(person.c.id > 0).order_by(person.c.id)).all()
        assert [tuple(r) for r in rows] == [(1, "a", decimal.Decimal("1.50")), (2, "b", None)]
        assert c.execute(sa.select(sa.func.count()).select_from(person)).scalar() == 2
    insp = inspect(engine)
    assert insp.has_table("person")
    assert not insp.has_table("nobody")
    assert "person" in insp.get_table_names()
    cols = {c["name"]: c for c in insp.get_columns("person")}
    assert list(cols) == ["id", "name", "amt"]
    assert isinstance(cols["id"]["type"], sa.Integer)
    assert cols["id"]["nullable"] is False
    assert cols["name"]["type"].length == 40
    assert (cols["amt"]["type"].precision, cols["amt"]["type"].scale) == (9, 2)
    assert insp.get_pk_constraint("person")["constrained_columns"] == ["id"]
    md.drop_all(engine)
    assert not inspect(engine).has_table("person")


class Base(DeclarativeBase):
    pass


class Account(Base):
    __tablename__ = "account"
    id: Mapped[int] = mapped_column(primary_key=True)
    owner: Mapped[str] = mapped_column(sa.String(30))
    balance: Mapped[decimal.Decimal] = mapped_column(sa.Numeric(12, 2))


def test_orm_unit_of_work(engine):
    Base.metadata.create_all(engine)
    with Session(engine) as s:
        s.add_all([Account(id=1, owner="ann", balance=decimal.Decimal("10.00")),
                   Account(id=2, owner="bob", balance=decimal.Decimal("5.50"))])
        s.commit()
    with Session(engine) as s:
        bob = s.get(Account, 2)
        bob.balance += 1
        s.commit()
        s.delete(s.get(Account, 1))
        s.commit()
        got = s.scalars(sa.select(Account).order_by(Account.id)).all()
        assert [(a.id, a.owner, a.balance) for a in got] == [(2, "bob", decimal.Decimal("6.50"))]
    Base.metadata.drop_all(engine)


def test_views_and_volatile_tables_reflect(engine):
    with engine.begin() as c:
        c.execute(text("CREATE TABLE base_t (k INTEGER, v VARCHAR(10))"))
        c.execute(text("CREATE VIEW base_v AS SELECT k, v FROM base_t"))
        c.execute(text("CREATE VOLATILE TABLE scratch (n INTEGER) ON COMMIT PRESERVE ROWS"))
    insp = inspect(engine)
    assert "base_v" in insp.get_view_names()
    assert "base_v" not in insp.get_table_names()
    assert "SELECT k, v FROM base_t" in insp.get_view_definition("base_v")
    assert [c["name"] for c in insp.get_columns("base_v")] == ["k", "v"]
    assert [c["name"] for c in insp.get_columns("scratch")] == ["n"]
    assert insp.has_table("scratch")


def test_a_queue_consumed_through_text(engine):
    with engine.begin() as c:
        c.execute(text("CREATE TABLE jobs, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT "
                       "CURRENT_TIMESTAMP(6), job VARCHAR(20))"))
        for j in ["first", "second"]:
            c.execute(text("INSERT INTO jobs (job) VALUES (:j)"), {"j": j})
    with engine.begin() as c:
        row = c.execute(text("SELECT AND CONSUME TOP 1 job FROM jobs")).one()
        assert row.job == "first"
    # teradatasql sessions commit each request (autocommit, as on Teradata in TERA mode, where
    # the dialect's rollback has nothing to undo): a transaction is the driver's autocommit off
    raw = engine.raw_connection()
    try:
        raw.driver_connection.autocommit = False
        cur = raw.cursor()
        cur.execute("SELECT AND CONSUME TOP 1 job FROM jobs")
        assert cur.fetchone() == ["second"]
        raw.rollback()  # the consumed row goes back, with its QITS
        raw.driver_connection.autocommit = True
    finally:
        raw.close()
    with engine.connect() as c:
        assert c.execute(text("SELECT job FROM jobs")).scalars().all() == ["second"]
