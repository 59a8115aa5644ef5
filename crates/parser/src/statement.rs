//! The statements tdlite understands: sqlparser's AST for standard SQL, our own types for the
//! forms tdlite parses itself (`CREATE TABLE …, QUEUE` with Teradata options,
//! `SELECT AND CONSUME`, `BT`/`ET`, `LOCKING`, views, indexes, `ALTER TABLE`, `HELP`/`SHOW`,
//! `EXPLAIN`, …).
//!
//! Invariant: every statement keeps the [`Location`] of its first token, so later stages can
//! point at it in errors.

use crate::error::Location;
use sqlparser::ast;

/// One statement of a request, with where it starts and its `LOCKING` modifiers.
#[derive(Debug, Clone, PartialEq)]
pub struct Spanned {
    /// The statement.
    pub statement: Statement,
    /// `LOCKING … FOR …` modifiers written before it, in order.
    pub locking: Vec<Locking>,
    /// Position of the statement's first token (of the LOCKING modifier, if any).
    pub location: Location,
    /// The statement's source text, as written.
    pub text: String,
}

/// A tdlite statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Statement {
    /// Standard SQL handled by sqlparser: SELECT, INSERT, UPDATE, DELETE, DROP TABLE, …
    Sql(Box<ast::Statement>),
    /// Teradata's atomic upsert, `UPDATE t … ELSE INSERT INTO t …`: the INSERT runs when the
    /// UPDATE changes no row.
    Upsert {
        /// The UPDATE.
        update: Box<ast::Statement>,
        /// The INSERT.
        insert: Box<ast::Statement>,
    },
    /// Teradata `CREATE TABLE` (also `CT`), queue tables included.
    CreateTable(Box<CreateTable>),
    /// `SELECT AND CONSUME TOP 1 list FROM queue`.
    Consume(Box<Consume>),
    /// `INSERT INTO t [(cols)] SELECT AND CONSUME TOP 1 … FROM queue`.
    InsertConsume {
        /// Target table.
        table: ast::ObjectName,
        /// Optional target column list.
        columns: Vec<ast::Ident>,
        /// The consume that feeds the insert.
        consume: Box<Consume>,
    },
    /// `BT` / `BEGIN TRANSACTION`.
    BeginTransaction,
    /// `ET` / `END TRANSACTION`.
    EndTransaction,
    /// `COMMIT [WORK]`.
    Commit,
    /// `ROLLBACK [WORK]` or `ABORT` (`abort` says which was written), with Teradata's
    /// `['message'] [FROM tables] [WHERE condition]`.
    Rollback {
        /// True for `ABORT`.
        abort: bool,
        /// The message the failure reports instead of Teradata's default.
        message: Option<String>,
        /// `[FROM …] WHERE condition` as the query `SELECT 1 [FROM …] WHERE condition`: the
        /// transaction is rolled back only if it returns a row.
        condition: Option<Box<ast::Query>>,
    },
    /// `HELP TABLE name`: one row per column.
    HelpTable(ast::ObjectName),
    /// `HELP INDEX t`: the table's indexes.
    HelpIndex(ast::ObjectName),
    /// `HELP MACRO m`: the macro's parameters, as HELP TABLE shows columns.
    HelpMacro(ast::ObjectName),
    /// `HELP COLUMN …`: the named columns of a table (`None`: all of them, `t.*`).
    HelpColumn {
        /// The table.
        table: ast::ObjectName,
        /// Column names, or `None` for all.
        columns: Option<Vec<String>>,
    },
    /// `SHOW TABLE name`: the table's DDL.
    ShowTable(ast::ObjectName),
    /// A `LOCKING` modifier with no statement after it (locks the object only).
    LockOnly,
    /// `CREATE VIEW` / `REPLACE VIEW name [(columns)] AS [LOCKING …] query`.
    CreateView {
        /// The view's name.
        name: ast::ObjectName,
        /// Its column names, if listed.
        columns: Vec<String>,
        /// The query.
        query: Box<ast::Query>,
        /// `REPLACE VIEW` (replaces an existing view).
        replace: bool,
    },
    /// `ALTER TABLE name ADD column … | DROP column …` (comma-separated actions).
    AlterTable {
        /// The table.
        name: ast::ObjectName,
        /// What to change, in order.
        actions: Vec<AlterAction>,
    },
    /// `CREATE [UNIQUE] INDEX [name] (cols) ON t` or `CREATE [UNIQUE] INDEX name ON t (cols)`.
    CreateIndex {
        /// The index's name, if given.
        name: Option<String>,
        /// UNIQUE.
        unique: bool,
        /// Its columns.
        columns: Vec<String>,
        /// The table.
        table: ast::ObjectName,
    },
    /// `DROP INDEX name [ON t]`, `DROP INDEX (cols) ON t`, `DROP INDEX [IF EXISTS] name`.
    DropIndex {
        /// The index's name, if given.
        name: Option<String>,
        /// Its columns, when named by them.
        columns: Vec<String>,
        /// The table, if given.
        table: Option<ast::ObjectName>,
        /// IF EXISTS.
        if_exists: bool,
    },
    /// `DATABASE name`: the session's default database.
    Database(String),
    /// `SET QUERY_BAND = '…' | NONE [UPDATE] FOR SESSION [VOLATILE] | TRANSACTION`.
    QueryBand {
        /// The `name=value;` pairs; None for NONE.
        text: Option<String>,
        /// `UPDATE`: the pairs replace those of the same names, the others stay.
        update: bool,
        /// `FOR SESSION` (else `FOR TRANSACTION`).
        session: bool,
    },
    /// `DIAGNOSTIC name [NOT] ON FOR SESSION|REQUEST` (the name upper-cased): accepted, no
    /// effect.
    Diagnostic(String),
    /// `COLLECT|DROP STATISTICS …` (see statistics.rs for the forms).
    Statistics {
        /// DROP STATISTICS.
        drop: bool,
        /// The table.
        table: ast::ObjectName,
        /// The column sets named (`COLUMN (a, b)` is one); none: every set the table has.
        groups: Vec<StatsGroup>,
    },
    /// `HELP STATISTICS name [FROM qcd]`.
    HelpStatistics(ast::ObjectName),
    /// `EXPLAIN statement`: the statement's plan, without running it.
    Explain(Box<Statement>),
    /// `HELP LOCKS` (tdlite extension): who holds which table lock and who waits for whom.
    HelpLocks,
    /// `HELP SESSION`: the session's user, default database, mode and settings.
    HelpSession,
    /// `HELP VOLATILE TABLE`: the tables created VOLATILE.
    HelpVolatileTable,
    /// Databases and users, rights, comments, renames (see admin.rs).
    Admin(AdminStatement),
    /// `CREATE|REPLACE MACRO name [(params)] AS (body)`.
    CreateMacro {
        /// The macro's name.
        name: ast::ObjectName,
        /// Parameters: name and type as written (with any DEFAULT).
        params: Vec<(String, String)>,
        /// The statements between `AS (` and `)`, as written.
        body: String,
        /// Where the body is in the request (for `body`).
        body_span: (crate::Location, crate::Location),
        /// Where each parameter's type is in the request (for `params`).
        param_spans: Vec<(crate::Location, crate::Location)>,
        /// REPLACE MACRO.
        replace: bool,
    },
    /// `EXEC|EXECUTE name [(args)]`: arguments as text, with their names when given.
    ExecMacro {
        /// The macro.
        name: ast::ObjectName,
        /// `[name =] argument` in order, each argument's text as written.
        args: Vec<(Option<String>, String)>,
        /// Where each argument is in the request (for `args`).
        arg_spans: Vec<(crate::Location, crate::Location)>,
    },
    /// `DROP MACRO name`.
    DropMacro(ast::ObjectName),
    /// `CREATE|REPLACE PROCEDURE name (params) body` (procedure.rs): parameters as (mode,
    /// name as written, type text), the body's text from its first word (`BEGIN` or a label)
    /// to its end.
    CreateProcedure {
        /// The procedure.
        name: ast::ObjectName,
        /// Its parameters.
        params: Vec<(crate::procedure::ParamMode, String, String)>,
        /// Where each parameter's type is in the request (for `params`).
        param_spans: Vec<(crate::Location, crate::Location)>,
        /// The body as written.
        body: String,
        /// Where the body is in the request (for `body`).
        body_span: (crate::Location, crate::Location),
        /// REPLACE rather than CREATE.
        replace: bool,
    },
    /// `DROP PROCEDURE name`.
    DropProcedure(ast::ObjectName),
    /// `SHOW PROCEDURE name`.
    ShowProcedure(ast::ObjectName),
    /// `CALL name(args)`: each argument's text as written.
    Call {
        /// The procedure.
        name: ast::ObjectName,
        /// The arguments.
        args: Vec<String>,
        /// Where each argument is in the request (for `args`).
        arg_spans: Vec<(crate::Location, crate::Location)>,
    },
    /// `DROP TEMPORARY TABLE name` (this session's instance of a global temporary table) or
    /// `DROP TABLE name ALL` (its definition and every instance). A plain `DROP TABLE` is
    /// sqlparser's.
    DropTemporary {
        /// The global temporary table.
        name: ast::ObjectName,
        /// `DROP TABLE … ALL` rather than `DROP TEMPORARY TABLE`.
        all: bool,
    },
    /// `SHOW MACRO name`.
    ShowMacro(ast::ObjectName),
    /// `HELP DATABASE name` / `HELP USER name`: the tables and views in a database.
    HelpDatabase(String),
    /// `SET SESSION TRANSACTION ANSI | BTET` (tdlite extension; BTEQ's
    /// `.SET SESSION TRANSACTION` as a statement): the session mode for the next transaction.
    SetSessionMode {
        /// True for ANSI, false for Teradata (BTET).
        ansi: bool,
    },
    /// `SET SESSION DATEFORM | ISOLATION LEVEL | COLLATION …`, `SET TIME ZONE …`
    /// (session_set.rs).
    SessionOption(SessionOption),
    /// `HELP QUEUE name` (tdlite extension): the queue's figures, as `DBC.QueueStatsV` has
    /// them (docs/queues.md, Metrics).
    HelpQueue(ast::ObjectName),
    /// `SET SESSION CONSUME WAIT s SECONDS | WAIT FOREVER | NOWAIT` (tdlite extension): how
    /// long this session's consumes wait on an empty queue (docs/queues.md).
    SetConsumeWait(ConsumeWait),
    /// `ACKNOWLEDGE q LEASE id [, id …]` / `RELEASE q LEASE id [, id …]` (tdlite extensions,
    /// docs/queues.md Leases): delete a lease's rows, or give them back to the queue now.
    EndLease {
        /// The queue.
        table: ast::ObjectName,
        /// The leases, as the consume that took them numbered them.
        leases: Vec<u64>,
        /// ACKNOWLEDGE (delete the rows) rather than RELEASE (give them back).
        acknowledge: bool,
    },
    /// `CREATE SUBSCRIBER name ON q` / `DROP SUBSCRIBER name ON q` (tdlite extensions,
    /// docs/queues.md Subscribers): add a subscriber to a queue with subscribers (it gets the
    /// rows inserted from then on), or remove one (its unconsumed copies go with it).
    Subscriber {
        /// The subscriber's name.
        name: String,
        /// The queue.
        queue: ast::ObjectName,
        /// CREATE rather than DROP.
        create: bool,
    },
}

impl Statement {
    /// True for statements that define or drop objects (DDL).
    pub fn is_ddl(&self) -> bool {
        match self {
            Statement::CreateTable(_)
            | Statement::CreateView { .. }
            | Statement::AlterTable { .. }
            | Statement::CreateIndex { .. }
            | Statement::DropIndex { .. }
            | Statement::Subscriber { .. } => true,
            Statement::Admin(a) => !matches!(a, AdminStatement::Rights { .. }),
            Statement::CreateMacro { .. }
            | Statement::DropMacro(_)
            | Statement::CreateProcedure { .. }
            | Statement::DropProcedure(_)
            | Statement::DropTemporary { .. } => true,
            Statement::Sql(s) => matches!(
                **s,
                ast::Statement::Drop { .. } | ast::Statement::CreateTable(_)
            ),
            _ => false,
        }
    }
}

/// Teradata's administrative statements (parsed in admin.rs).
#[derive(Debug, Clone, PartialEq)]
pub enum AdminStatement {
    /// `CREATE DATABASE|USER name …` (space and credentials are not kept).
    CreateDatabase {
        /// The name.
        name: String,
        /// `CREATE USER`.
        user: bool,
    },
    /// `DROP DATABASE|USER name`.
    DropDatabase {
        /// The name.
        name: String,
        /// `DROP USER`.
        user: bool,
    },
    /// `MODIFY DATABASE|USER name AS …`.
    ModifyDatabase {
        /// The name.
        name: String,
    },
    /// `DELETE DATABASE|USER name [ALL]`: drops every table and view in it.
    DeleteDatabase {
        /// The name.
        name: String,
    },
    /// `GRANT … ON … TO …` / `REVOKE … ON … FROM …`.
    Rights {
        /// REVOKE.
        revoke: bool,
        /// The rights as written, upper-cased (`SELECT`, `INSERT`, `ALL`, a role name).
        privileges: Vec<String>,
        /// What they are on (`db` or `db.t`); `None` for a role grant.
        object: Option<String>,
        /// Who gets or loses them.
        grantees: Vec<String>,
        /// `WITH GRANT OPTION`.
        with_grant_option: bool,
    },
    /// `COMMENT ON [kind] name [AS|IS] 'text'`.
    Comment {
        /// TABLE, VIEW, COLUMN, DATABASE, … (OBJECT when not given).
        kind: String,
        /// The name (dotted).
        object: String,
        /// The comment.
        text: String,
    },
    /// `RENAME TABLE|VIEW old TO|AS new`.
    Rename {
        /// The current name.
        from: ast::ObjectName,
        /// The new name.
        to: ast::ObjectName,
        /// RENAME VIEW.
        view: bool,
    },
}

/// A `LOCKING` request modifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locking {
    /// What is locked.
    pub object: LockObject,
    /// The lock severity.
    pub mode: LockMode,
    /// `NOWAIT`: fail at once instead of waiting.
    pub nowait: bool,
}

/// The object a `LOCKING` modifier names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LockObject {
    /// `LOCKING ROW`.
    Row,
    /// `LOCKING [TABLE] name`.
    Table(String),
    /// `LOCKING DATABASE name`.
    Database(String),
    /// `LOCKING VIEW name`.
    View(String),
}

/// Lock severities of the `LOCKING` modifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockMode {
    /// `ACCESS`: dirty reads allowed.
    Access,
    /// `READ` / `SHARE`.
    Read,
    /// `WRITE`.
    Write,
    /// `EXCLUSIVE` / `EXCL`.
    Exclusive,
}

/// `SELECT AND CONSUME TOP 1 list FROM queue`.
#[derive(Debug, Clone, PartialEq)]
pub struct Consume {
    /// `TOP n`: how many rows to take at most (1 in Teradata; more is batch consume, a tdlite
    /// extension).
    pub top: u32,
    /// Where `n` of `TOP n` is written.
    pub top_location: Location,
    /// The select list (`*` or expressions).
    pub projection: Vec<ast::SelectItem>,
    /// The queue table.
    pub table: ast::ObjectName,
    /// Where the queue table's name is written.
    pub table_location: Location,
    /// `WHERE condition` after the table (selective consume, a tdlite extension) and where
    /// `WHERE` is written.
    pub filter: Option<(ast::Expr, Location)>,
    /// `LEASE n SECONDS|MINUTES|HOURS` after the table (a tdlite extension, docs/queues.md
    /// Leases): take the rows for that long, outside the transaction, and where `LEASE` is.
    pub lease: Option<(std::time::Duration, Location)>,
    /// The wait clause after the table (a tdlite extension) and where it starts.
    pub wait: Option<(ConsumeWait, Location)>,
    /// `FOR SUBSCRIBER name` after the table (a tdlite extension, docs/queues.md
    /// Subscribers): consume as that subscriber; and where `FOR` is written.
    pub subscriber: Option<(String, Location)>,
}

/// How long a consume waits on an empty queue (docs/queues.md, Wait control).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConsumeWait {
    /// `WAIT s SECONDS`: at most this long, then error 9904.
    For(std::time::Duration),
    /// `WAIT FOREVER`: until a row comes (Teradata's behaviour).
    Forever,
    /// `NOWAIT`: never; an empty queue gives no rows.
    NoWait,
}

/// Teradata `CREATE TABLE`.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateTable {
    /// Table name (possibly `db.table`).
    pub name: ast::ObjectName,
    /// `SET`, `MULTISET`, or unspecified (session default).
    pub kind: Option<TableKind>,
    /// `VOLATILE`.
    pub volatile: bool,
    /// `GLOBAL TEMPORARY`.
    pub global_temporary: bool,
    /// `, QUEUE`.
    pub queue: bool,
    /// Table options after the name (`FALLBACK`, `NO JOURNAL`, `CHECKSUM = …`), as written.
    pub options: Vec<String>,
    /// Column definitions in order.
    pub columns: Vec<ColumnDef>,
    /// `[UNIQUE] PRIMARY INDEX [name] (cols)`, if given.
    pub primary_index: Option<IndexDef>,
    /// `NO PRIMARY INDEX`.
    pub no_primary_index: bool,
    /// `PARTITION BY …` was given (read past: it changes no query's answer).
    pub partitioned: bool,
    /// The RANGE_N and CASE_N levels of `PARTITION BY` (partitioning.rs): a row must fall in
    /// a partition of each (5728).
    pub partitioning: Vec<Partitioning>,
    /// Secondary `[UNIQUE] INDEX [name] (cols)` definitions.
    pub indexes: Vec<IndexDef>,
    /// Table-level `PRIMARY KEY (cols)` / `UNIQUE (cols)` constraints.
    pub unique_constraints: Vec<IndexDef>,
    /// The PRIMARY KEY's columns (table-level or on a column), if there is one.
    pub primary_key: Option<Vec<String>>,
    /// `ON COMMIT PRESERVE|DELETE ROWS` (true = preserve).
    pub on_commit_preserve: Option<bool>,
    /// Where the `QUEUE` keyword is, if present.
    pub queue_location: Option<Location>,
    /// Table-level `CHECK (…)` constraints.
    pub checks: Vec<ast::Expr>,
    /// `AS (query) | AS table WITH [NO] DATA`: where the columns (and rows) come from.
    pub as_source: Option<AsSource>,
    /// `CONSUME ORDER (column [ASC|DESC])` (a tdlite extension, docs/queues.md): a queue's
    /// consume order before QITS.
    pub consume_order: Option<ConsumeOrder>,
    /// `DELIVER AT (column)` (a tdlite extension, docs/queues.md): rows are consumable from
    /// that time on; the column's name, and where `DELIVER` is written.
    pub deliver_at: Option<(String, Location)>,
    /// `ATTEMPTS (column)`, `MAX ATTEMPTS n`, `EXPIRE AFTER n unit`, `DEAD LETTER TO table`
    /// (tdlite extensions, docs/queues.md): attempts, expiry and dead letters.
    pub limits: QueueLimits,
    /// `SUBSCRIBERS (name, …)` (a tdlite extension, docs/queues.md Subscribers): a queue each
    /// of whose rows every subscriber consumes once; the names, and where the word is.
    pub subscribers: Option<(Vec<String>, Location)>,
}

/// A queue table's attempt, expiry and dead-letter options, each with where its first word
/// is written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueueLimits {
    /// `ATTEMPTS (column)`: the column a rolled-back consume counts in.
    pub column: Option<(String, Location)>,
    /// `MAX ATTEMPTS n`: the count at which a row goes to the dead-letter table.
    pub max: Option<(u64, Location)>,
    /// `EXPIRE AFTER n SECONDS|MINUTES|HOURS|DAYS`: how long after its QITS a row expires.
    pub expire_after: Option<(std::time::Duration, Location)>,
    /// `RETRY DELAY n SECONDS|MINUTES|HOURS|DAYS`: how long a counted row waits before it
    /// comes back (with `ATTEMPTS` and `DELIVER AT (qits)`).
    pub retry_delay: Option<(std::time::Duration, Location)>,
    /// `DEAD LETTER TO table`: where rows past their last attempt or expired go.
    pub dead_letter: Option<(ast::ObjectName, Location)>,
}

impl QueueLimits {
    /// Where the first of the options is written, if any is.
    pub fn location(&self) -> Option<Location> {
        [
            self.column.as_ref().map(|c| c.1),
            self.max.as_ref().map(|m| m.1),
            self.expire_after.as_ref().map(|e| e.1),
            self.retry_delay.as_ref().map(|e| e.1),
            self.dead_letter.as_ref().map(|d| d.1),
        ]
        .into_iter()
        .flatten()
        .min_by_key(|l| (l.line, l.column))
    }
}

/// A queue table's declared consume order: rows leave by this column first (largest first
/// when `descending`), then by QITS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumeOrder {
    /// The column's name, as written.
    pub column: String,
    /// `DESC`: the largest value leaves first.
    pub descending: bool,
    /// Where `CONSUME` is written.
    pub location: Location,
}

/// A column set of `COLLECT|DROP STATISTICS`.
#[derive(Debug, Clone, PartialEq)]
pub enum StatsGroup {
    /// `COLUMN c`, `COLUMN (a, b)`, `INDEX (a, b)`; `PARTITION` is the PARTITION column.
    Columns(Vec<String>),
    /// `INDEX name`: the columns of the table's index of that name.
    Index(String),
}

/// One change of `ALTER TABLE`.
#[derive(Debug, Clone, PartialEq)]
pub enum AlterAction {
    /// `ADD [COLUMN] definition`.
    Add(ColumnDef),
    /// `DROP [COLUMN] name`.
    Drop(String),
    /// `RENAME [COLUMN] old TO|AS new`.
    Rename(String, String),
}

/// The source of `CREATE TABLE … AS … WITH [NO] DATA`.
#[derive(Debug, Clone, PartialEq)]
pub struct AsSource {
    /// A query's result or another table.
    pub from: AsFrom,
    /// `WITH DATA` (true) or `WITH NO DATA`.
    pub with_data: bool,
    /// `CREATE TABLE t (c [attributes], …) AS …`: new names of the source's columns, in order,
    /// with attributes (NOT NULL, TITLE, FORMAT, DEFAULT, CASESPECIFIC or NOT CASESPECIFIC,
    /// UPPERCASE) and no type (each column's `data_type` is an unused INTEGER); empty when not
    /// written.
    pub columns: Vec<ColumnDef>,
}

/// What `CREATE TABLE … AS` copies.
#[derive(Debug, Clone, PartialEq)]
pub enum AsFrom {
    /// `AS (query)`: the result's columns.
    Query(Box<ast::Query>),
    /// `AS table`: the table's definition.
    Table(ast::ObjectName),
}

/// One level of `PARTITION BY` that constrains the rows (partitioning.rs).
#[derive(Debug, Clone, PartialEq)]
pub enum Partitioning {
    /// `RANGE_N(test BETWEEN …)`.
    Range {
        /// The value the ranges partition.
        test: Box<ast::Expr>,
        /// The ranges, in order.
        ranges: Vec<RangeSpec>,
        /// `NO RANGE`: a value in no range has a partition.
        no_range: bool,
        /// `UNKNOWN` (or `NO RANGE OR UNKNOWN`): a NULL value has a partition.
        unknown: bool,
    },
    /// `CASE_N(condition, …)`.
    Case {
        /// The conditions, in order.
        conditions: Vec<ast::Expr>,
        /// `NO CASE`: a row no condition holds for has a partition.
        no_case: bool,
        /// `UNKNOWN` (or `NO CASE OR UNKNOWN`): a row whose conditions are unknown has one.
        unknown: bool,
    },
}

/// One range of RANGE_N: `start [AND end] [EACH size]`.
#[derive(Debug, Clone, PartialEq)]
pub struct RangeSpec {
    /// The first value; `None` for `*`.
    pub start: Option<ast::Expr>,
    /// Where it ends.
    pub end: RangeEnd,
}

/// The end of a RANGE_N range.
#[derive(Debug, Clone, PartialEq)]
pub enum RangeEnd {
    /// `AND end`: up to this value, included.
    Inclusive(Box<ast::Expr>),
    /// `AND *`.
    Unbounded,
    /// No `AND`: up to the next range's start, excluded.
    UntilNext,
}

/// `SET` or `MULTISET`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableKind {
    /// Duplicate rows rejected.
    Set,
    /// Duplicate rows allowed.
    Multiset,
}

/// A primary or secondary index definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexDef {
    /// Optional index name.
    pub name: Option<String>,
    /// `UNIQUE`.
    pub unique: bool,
    /// Indexed columns, in order.
    pub columns: Vec<String>,
    /// Where the definition starts.
    pub location: Location,
}

/// A Teradata column type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DataType {
    /// `BYTEINT` (1 byte).
    ByteInt,
    /// `SMALLINT`.
    SmallInt,
    /// `INTEGER` / `INT`.
    Integer,
    /// `BIGINT`.
    BigInt,
    /// `DECIMAL(p,s)` / `NUMERIC` / `NUMBER`.
    Decimal(u8, i8),
    /// `FLOAT` / `REAL` / `DOUBLE PRECISION`.
    Float,
    /// `CHAR(n)`.
    Char(u32),
    /// `VARCHAR(n)`.
    VarChar(u32),
    /// `DATE`.
    Date,
    /// `TIME(p)`.
    Time(u8),
    /// `TIMESTAMP(p)`; `explicit` says whether the precision was written.
    Timestamp {
        /// Fractional-second precision.
        precision: u8,
        /// True if `(p)` was written.
        explicit: bool,
        /// `WITH TIME ZONE`.
        with_time_zone: bool,
    },
    /// `BYTE(n)`.
    Byte(u32),
    /// `VARBYTE(n)`.
    VarByte(u32),
    /// `PERIOD(DATE)`, `PERIOD(TIME(n))`, `PERIOD(TIMESTAMP(n) [WITH TIME ZONE])`.
    Period(PeriodOf),
    /// `BLOB`, `CLOB`, `JSON`, `XML` and other large or structured types (kept by name).
    Unsupported(LargeType),
}

/// The element type of a `PERIOD` type, with its fractional-second precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PeriodOf {
    /// `PERIOD(DATE)`.
    Date,
    /// `PERIOD(TIME(n))`.
    Time(u8),
    /// `PERIOD(TIMESTAMP(n))` (`WITH TIME ZONE` is read and kept as TIMESTAMP is).
    Timestamp(u8),
}

/// Types tdlite parses but cannot store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LargeType {
    /// `BLOB`.
    Blob,
    /// `CLOB`.
    Clob,
    /// `JSON`.
    Json,
    /// `XML`.
    Xml,
}

/// `GENERATED ALWAYS|BY DEFAULT AS IDENTITY (START WITH n INCREMENT BY n MINVALUE n |
/// NO MINVALUE MAXVALUE n | NO MAXVALUE [NO] CYCLE)`, as written (unset options are `None`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdentitySpec {
    /// ALWAYS (else BY DEFAULT).
    pub always: bool,
    /// START WITH.
    pub start: Option<i128>,
    /// INCREMENT BY.
    pub increment: Option<i128>,
    /// MINVALUE (`NO MINVALUE`: None).
    pub min: Option<i128>,
    /// MAXVALUE (`NO MAXVALUE`: None).
    pub max: Option<i128>,
    /// CYCLE.
    pub cycle: bool,
}

/// A column's `DEFAULT`.
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnDefault {
    /// `DEFAULT expr` (a literal, `NULL`, `CURRENT_TIMESTAMP[(p)]`, `DATE`, `USER`, …).
    Expr(Box<ast::Expr>),
    /// `WITH DEFAULT`: the type's system default (0, blanks, current date/time).
    System,
}

/// One column definition.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnDef {
    /// Column name.
    pub name: String,
    /// Its type.
    pub data_type: DataType,
    /// `NOT NULL`.
    pub not_null: bool,
    /// `DEFAULT …` / `WITH DEFAULT`.
    pub default: Option<ColumnDefault>,
    /// `CASESPECIFIC` (Some(true)) / `NOT CASESPECIFIC` (Some(false)).
    pub case_specific: Option<bool>,
    /// `UPPERCASE`.
    pub uppercase: bool,
    /// `FORMAT '…'`.
    pub format: Option<String>,
    /// `TITLE '…'`.
    pub title: Option<String>,
    /// `CHARACTER SET name`.
    pub character_set: Option<String>,
    /// `COMPRESS [...]` (accepted; compression is a storage hint tdlite ignores).
    pub compress: bool,
    /// Column-level `PRIMARY KEY`.
    pub primary_key: bool,
    /// Column-level `UNIQUE`.
    pub unique: bool,
    /// `GENERATED … AS IDENTITY (…)`.
    pub identity: Option<Box<IdentitySpec>>,
    /// `CHECK (…)` constraints.
    pub checks: Vec<ast::Expr>,
    /// Where the column name is written.
    pub location: Location,
    /// Where the `DEFAULT` clause starts, if any.
    pub default_location: Option<Location>,
}

/// A session setting of Teradata's SET statements (session_set.rs).
#[derive(Debug, Clone, PartialEq)]
pub enum SessionOption {
    /// `SET SESSION DATEFORM = ANSIDATE` (`ansi`) or `INTEGERDATE`.
    DateForm {
        /// ANSIDATE.
        ansi: bool,
    },
    /// `SET SESSION [CHARACTERISTICS AS TRANSACTION] ISOLATION LEVEL …`.
    Isolation {
        /// READ UNCOMMITTED (RU) rather than SERIALIZABLE (SR).
        read_uncommitted: bool,
    },
    /// `SET SESSION COLLATION name` (upper-cased).
    Collation(String),
    /// `SET TIME ZONE …`: `LOCAL`, `USER`, `INTERVAL '…' HOUR TO MINUTE` or the zone's name.
    TimeZone(String),
}
