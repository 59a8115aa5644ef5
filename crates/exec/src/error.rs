//! tdlite's error type: parse and storage errors plus binder and executor conditions, each with
//! a Teradata error number (or one of tdlite's own, 9900–9999) from one exhaustive match.
//!
//! Invariant: [`Error::code`] has no wildcard arm, so a new variant does not compile until it
//! has a number; `docs/errors.md` lists every number.

use tdlite_parser::{Location, ParseError};
use tdlite_storage::StorageError;

/// A Teradata error number and what it means for a retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorCode {
    /// The number shown to users (`*** Failure 3807 …`).
    pub number: u32,
    /// True if running the same request again may succeed (deadlock, conflict, timeout).
    pub retryable: bool,
}

/// An error from executing a request.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The SQL text could not be parsed.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// Storage refused a change.
    #[error(transparent)]
    Storage(StorageError),
    /// A column name that no table in scope has (3810).
    #[error("Column/Parameter '{0}' does not exist.")]
    ColumnNotFound(String),
    /// A column name that more than one table in scope has (3822).
    #[error("Cannot resolve column '{0}'. Specify table or view.")]
    AmbiguousColumn(String),
    /// A table that does not exist (3807).
    #[error("Object '{0}' does not exist.")]
    ObjectNotFound(String),
    /// An unqualified name that is both a table of the default database and one of the
    /// session's volatile tables (3806).
    #[error("Table/view/trigger name '{0}' is ambiguous.")]
    AmbiguousTable(String),
    /// A database that does not exist (3802).
    #[error("Database '{0}' does not exist.")]
    DatabaseNotFound(String),
    /// A queue-table definition broke a rule (tdlite 9903).
    #[error("Invalid queue table definition: {0}")]
    InvalidQueueTable(String),
    /// SELECT AND CONSUME on a table without QUEUE (tdlite 9901).
    #[error("Table '{0}' is not a queue table; SELECT AND CONSUME needs a table created with the QUEUE option.")]
    NotAQueueTable(String),
    /// The consume wait reached the session's consume timeout (tdlite 9904).
    #[error("SELECT AND CONSUME on '{0}' timed out waiting for a row; nothing was consumed.")]
    ConsumeTimeout(String),
    /// The consume wait was cancelled (tdlite 9905).
    #[error("SELECT AND CONSUME on '{0}' was cancelled while waiting; nothing was consumed.")]
    ConsumeCancelled(String),
    /// The queue table was dropped while a consumer waited (tdlite 9906).
    #[error(
        "Queue table '{0}' was dropped while waiting to consume; the transaction was rolled back."
    )]
    QueueDropped(String),
    /// A statement a queue with subscribers does not allow, or a subscriber it does not have
    /// (tdlite 9924; docs/queues.md, Subscribers).
    #[error("{0}")]
    Subscribers(String),
    /// A view whose query names a queue table (tdlite 9925; SQL Data Definition Language,
    /// CREATE VIEW: "You cannot create a view on a queue table").
    #[error("A view cannot be created on queue table '{0}'.")]
    ViewOnQueue(String),
    /// DELETE/UPDATE of the queue in the same request as a consume of it (tdlite 9907).
    #[error("A request that consumes from '{0}' cannot also DELETE from or UPDATE it.")]
    ConsumeWithModify(String),
    /// INSERT with too few values (3812).
    #[error("The positional assignment list has too few values.")]
    TooFewValues,
    /// INSERT with too many values (3813).
    #[error("The positional assignment list has too many values.")]
    TooManyValues,
    /// A non-aggregate select item not in GROUP BY (3504).
    #[error("Selected non-aggregate values must be part of the associated group.")]
    NotInGroup,
    /// Scalar subquery returned more than one row (3669).
    #[error("More than one value was returned by a subquery.")]
    SubqueryTooManyRows,
    /// Division by zero (2618).
    #[error("Invalid calculation: division by zero.")]
    DivisionByZero,
    /// Numeric overflow (2616).
    #[error("Numeric overflow occurred during computation.")]
    Overflow,
    /// A string that is not a valid date/time (2665).
    #[error("Invalid date supplied: '{0}'.")]
    InvalidDate(String),
    /// CASE (COALESCE, NVL, …) branches whose types do not mix (3800): a date, time, period or
    /// byte branch with a branch of another type.
    #[error("Datatype Mismatch in THEN/ELSE expression: {0}.")]
    BranchTypeMismatch(String),
    /// A PERIOD made with a beginning bound not before its ending bound (9103).
    #[error("Invalid Period value constructor. The beginning bound must be less than the ending bound, both values of the element type: {0}.")]
    InvalidPeriod(String),
    /// Text cast to a PERIOD (or a PERIOD literal) that is no period of its type (9102).
    #[error("Invalid CAST. '{0}' is not a valid Period value.")]
    InvalidPeriodText(String),
    /// A string that does not convert to a number (3535).
    #[error("A character string failed conversion to a numeric value.")]
    BadNumber,
    /// Types or operands that cannot be combined (tdlite 9913; Teradata's numbers for these
    /// vary by case and are not researched yet).
    #[error("Invalid operation or data type mismatch: {0}")]
    TypeMismatch(String),
    /// ET without BT (3510).
    #[error("Too many END TRANSACTION statements.")]
    TooManyEt,
    /// COMMIT in Teradata mode (3706, with Teradata's own text for it).
    #[error("Syntax error: COMMIT WORK not allowed for a DBC/SQL session.")]
    CommitInTeradataMode,
    /// BT inside a multi-statement request but not first (3706 class; tdlite 9912).
    #[error("BEGIN TRANSACTION must be the first statement of a multistatement request.")]
    BtNotFirst,
    /// The user's ROLLBACK/ABORT (3514), with its message if it gave one.
    #[error("{}", .0.as_deref().unwrap_or("User-generated transaction ABORT."))]
    UserAbort(Option<String>),
    /// A DDL statement inside an explicit transaction that is not followed by ET (3932).
    #[error("Only an ET or null statement is legal after a DDL Statement.")]
    DdlNotLast,
    /// In ANSI mode a DDL statement must be the last before COMMIT (3722).
    #[error("Only a COMMIT WORK or null statement is legal after a DDL Statement.")]
    DdlNotLastAnsi,
    /// BT or ET in an ANSI mode session (tdlite 9917; Teradata's number is unknown).
    #[error(
        "BEGIN TRANSACTION and END TRANSACTION are not allowed in ANSI session mode; use COMMIT."
    )]
    BtEtInAnsiMode,
    /// SET SESSION TRANSACTION while a transaction is open, or not alone in its request
    /// (tdlite 9918).
    #[error(
        "The session mode can change only between transactions, in a request of its own; COMMIT, ET or ROLLBACK first."
    )]
    ModeChangeInTransaction,
    /// A function argument outside the function's domain (tdlite 9919; Teradata's numbers for
    /// these vary by function and are not researched yet).
    #[error("Invalid argument for function {0}.")]
    BadArgument(String),
    /// A prepared request run with another number of parameter values than it has `?`
    /// markers, or a `?` in a request run without values (3939).
    #[error("There is a mismatch between the number of parameters specified and the number of parameters required ({expected} required, {given} given).")]
    ParameterCount {
        /// Markers in the request (or the marker number that has no value).
        expected: usize,
        /// Values given.
        given: usize,
    },
    /// `TRANSLATE(x USING UNICODE_TO_LATIN)` of a character LATIN lacks, without `WITH
    /// ERROR` (6706).
    #[error("The string contains an untranslatable character.")]
    Untranslatable,
    /// Arithmetic on a DATE, TIME, TIMESTAMP or INTERVAL that Teradata does not define:
    /// `TIMESTAMP + 1`, `TIME - TIME` or `TIMESTAMP - TIMESTAMP` without an interval
    /// qualifier, `TIMESTAMP * 2` (5407).
    #[error("Invalid operation for DateTime or Interval: {0}.")]
    DateTimeOperation(String),
    /// `ALTER TABLE … ADD` of an existing column that changes what cannot change: its type
    /// (beyond a longer VARCHAR or VARBYTE), or the type or nullability of an indexed column
    /// (3558).
    #[error("Cannot alter the specified attribute(s) for {0}.")]
    CannotAlter(String),
    /// A use of an identity column Teradata does not allow: on a type that is not an exact
    /// whole number, a second one in a table, an UPDATE of a GENERATED ALWAYS one (5784).
    #[error("Illegal usage of Identity Column {0}.")]
    IdentityUsage(String),
    /// An identity column option out of range or inconsistent with the others (5785).
    #[error("Invalid value for Identity Column parameter {0}.")]
    IdentityParameter(String),
    /// ANSI mode: a character value too long for its column, past its trailing blanks (3996).
    #[error("Right truncation of string data: the value for column '{0}' is too long.")]
    RightTruncation(String),
    /// ANSI mode: a CAST to a character type that would cut characters other than trailing
    /// blanks (3996; SQL Fundamentals' Teradata-vs-ANSI example,
    /// `cast('Teradata Database' as varchar(10))`).
    #[error("Right truncation of string data.")]
    CastTruncation,
    /// An aggregate in a SELECT's WHERE clause (3569).
    #[error("Improper use of an aggregate function in a WHERE Clause.")]
    AggregateInWhere,
    /// A statement tdlite parses but does not run yet (tdlite 9910).
    #[error("{0} is not supported by tdlite yet.")]
    Unsupported(String),
    /// A CHECK constraint failed (5317).
    #[error("Check constraint violation: Check error in field {0}.")]
    CheckViolation(String),
    /// A join would produce more rows than tdlite allows for one step (2646).
    #[error("No more spool space: a join step would produce more than {0} rows.")]
    SpoolSpace(usize),
    /// UPDATE … FROM or MERGE where a target row matches more than one source row (7547).
    #[error("Target row updated by multiple source rows in {0}.")]
    MultipleSourceRows(String),
    /// A MERGE whose ON does not equate each target primary-index (and partitioning) column
    /// with an expression of the source, or whose INSERT gives them other values (5758).
    #[error("The search condition must fully specify the Target table primary index and partition column(s) and expression must match INSERT specification primary index and partition column(s).")]
    MergePrimaryCondition,
    /// An atomic upsert whose UPDATE does not set the primary index to values, or whose
    /// INSERT gives it others (5562).
    #[error("The UPDATE part of the UPSERT statement is not a single-AMP operation: {0}.")]
    UpsertNotSingleAmp(String),
    /// A MERGE against another of Teradata's rules: a subquery in ON, an UPDATE of the
    /// primary index, an identity primary index (5977).
    #[error("Invalid MERGE-INTO statement: {0}.")]
    InvalidMerge(String),
    /// A view where a table is needed: INSERT, UPDATE, DELETE, consume (3823).
    #[error("VIEW '{0}' may not be used for Update, Delete or Insert.")]
    ViewNotUpdatable(String),
    /// DROP TABLE of a view (3853).
    #[error("'{0}' is not a table.")]
    NotATable(String),
    /// DROP VIEW or REPLACE VIEW of a table (3854).
    #[error("'{0}' is not a view.")]
    NotAView(String),
    /// A macro statement on a table or view (tdlite 3855; Teradata's number not verified).
    #[error("'{0}' is not a macro.")]
    NotAMacro(String),
    /// CREATE DATABASE or USER of a name that exists (5612).
    #[error("User, role or database '{0}' already exists.")]
    DatabaseExists(String),
    /// DROP DATABASE of a database that holds tables or views, or of the user's own (3552).
    #[error(
        "Cannot DROP databases with tables, journal tables, views, macros, or triggers: '{0}'."
    )]
    DatabaseNotEmpty(String),
    /// CREATE INDEX with a name the table's indexes already use (5612).
    #[error("Index '{0}' already exists.")]
    IndexExists(String),
    /// DROP INDEX of an index that does not exist (3526).
    #[error("The specified index does not exist: {0}.")]
    IndexNotFound(String),
    /// 3624: HELP STATISTICS, a recollection or DROP STATISTICS of a table (or column set)
    /// with no statistics.
    #[error("There are no statistics defined for the table {0}.")]
    NoStatistics(String),
    /// Two FROM items known by the same name (3868).
    #[error("A table or view name appears more than once in FROM clause: {0}. Give one an alias.")]
    DuplicateFromName(String),
    /// A recursive CTE that does not stop (2646).
    #[error("No more spool space: WITH RECURSIVE {0}.")]
    RecursionLimit(String),
    /// The running request was cancelled (`CancelHandle::cancel`, Ctrl-C) (3110); the
    /// transaction is rolled back.
    #[error("The transaction was aborted by the user.")]
    Cancelled,
    /// The request ran past the session's statement timeout (tdlite 9920).
    #[error("The request ran longer than the statement timeout of {0} s and was stopped.")]
    StatementTimeout(f64),
    /// A FROM clause with more tables or views than one query block may have (tdlite 9921;
    /// Teradata's limit is the same, its number not researched).
    #[error("A query block names {0} tables or views; the most is 128.")]
    TooManyTables(usize),
    /// An interval literal whose leading field has more digits than its precision (7453).
    #[error("Interval field overflow: '{0}'.")]
    IntervalOverflow(String),
    /// An intermediate result larger than the session's spool space (2646).
    #[error("No more spool space: an intermediate result would take more than {} MiB (the session's spool space).", .0 >> 20)]
    SpoolBytes(usize),
    /// A value over a size limit: a character value over 64,000 characters (3577; see
    /// limits.rs).
    #[error("Row size or Sort Key size overflow: {0}.")]
    SizeLimit(String),
    /// A row in no partition of a partitioned table (5728).
    #[error("Partitioning violation for table {0}.")]
    PartitionViolation(String),
    /// DROP TABLE (or another change of the definition) of a global temporary table that a
    /// session has materialized (5337); the statement's name, as `Drop Table`.
    #[error("{0} is not allowed due to materialized temporary tables.")]
    MaterializedTemporary(String),
    /// CALL of a name that is no stored procedure (5494).
    #[error("'{0}' is not a stored procedure.")]
    NotAProcedure(String),
    /// CALL of a procedure that does not exist (5495).
    #[error("Stored Procedure '{0}' does not exist.")]
    ProcedureNotFound(String),
    /// CALL of a procedure made in the other session mode (5510: "A stored procedure created
    /// in ANSI transaction mode cannot be executed in Teradata transaction mode, and vice
    /// versa").
    #[error("Invalid session mode for procedure execution.")]
    ProcedureMode,
    /// A stored procedure's `SELECT … INTO` found more than one row (7627).
    #[error("SELECT-INTO returned more than one row.")]
    SelectIntoRows,
    /// The queries of a set operation select different numbers of columns (3653).
    #[error("All select-lists do not contain the same number of expressions.")]
    SetOpArity,
    /// A view read at its step in a join gives other columns (types or attributes) than the
    /// ones the catalog records for it, which the join was bound with (a table under it
    /// changed): the join is bound again over the view's rows (join.rs `joined_source`, and
    /// a kept plan gives way to the general path), so a user never sees it (9913 if a bug let
    /// it through).
    #[error("view {0} no longer gives the columns recorded when it was created; replace the view")]
    ViewRetyped(String),
    /// A bug: an invariant did not hold (tdlite 9999). Please report it.
    #[error("Internal error: {0}")]
    Internal(String),
}

/// An [`Error`] with the position of the statement that raised it.
#[derive(Debug, Clone, PartialEq)]
pub struct PositionedError {
    /// The error.
    pub error: Error,
    /// Where in the request text (for parse errors, the exact token).
    pub location: Option<Location>,
    /// 1-based number of the statement within its request.
    pub statement: usize,
}

impl std::fmt::Display for PositionedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.error)
    }
}

impl std::error::Error for PositionedError {}

/// Where in statement `st` the name an error is about is written (a column or table that does
/// not exist): the first identifier spelled that way in the text, if the parse kept its
/// position.
pub(crate) fn name_location(st: &tdlite_parser::Spanned, error: &Error) -> Option<Location> {
    use sqlparser::ast::{self, Visit, Visitor};
    use std::ops::ControlFlow;
    // a syntax error the executor found in text the statement carries (a procedure's body)
    // knows its place in the request
    if let (Error::Parse(p), tdlite_parser::Statement::CreateProcedure { .. }) =
        (error, &st.statement)
    {
        return Some(p.location);
    }
    let name = match error {
        Error::ColumnNotFound(n) | Error::ObjectNotFound(n) => n,
        _ => return None,
    };
    let tdlite_parser::Statement::Sql(stmt) = &st.statement else {
        return None;
    };
    struct Find<'a> {
        name: &'a str,
        at: Option<sqlparser::tokenizer::Location>,
    }
    impl Find<'_> {
        fn try_parts(&mut self, parts: &[&ast::Ident]) -> ControlFlow<()> {
            let written: Vec<&str> = parts.iter().map(|p| p.value.as_str()).collect();
            let first = parts.first().map(|p| p.span.start);
            // the earliest in the text: the statement may hold its parts in another order
            // than written (a CTE put in where it is named, cte_inline.rs)
            match (first, written.join(".").eq_ignore_ascii_case(self.name)) {
                (Some(at), true)
                    if at.line > 0
                        && self
                            .at
                            .is_none_or(|b| (at.line, at.column) < (b.line, b.column)) =>
                {
                    self.at = Some(at);
                }
                _ => {}
            }
            ControlFlow::Continue(())
        }
    }
    impl Visitor for Find<'_> {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &ast::Expr) -> ControlFlow<()> {
            match e {
                ast::Expr::Identifier(id) => self.try_parts(&[id]),
                ast::Expr::CompoundIdentifier(parts) => {
                    self.try_parts(&parts.iter().collect::<Vec<_>>())
                }
                _ => ControlFlow::Continue(()),
            }
        }
        fn pre_visit_relation(&mut self, r: &ast::ObjectName) -> ControlFlow<()> {
            let parts: Vec<&ast::Ident> = r.0.iter().filter_map(|p| p.as_ident()).collect();
            self.try_parts(&parts)
        }
    }
    let mut find = Find { name, at: None };
    let _ = stmt.visit(&mut find);
    find.at.map(|l| Location::new(l.line, l.column))
}

impl PositionedError {
    /// The Teradata error number.
    pub fn code(&self) -> ErrorCode {
        self.error.code()
    }
}

fn code(number: u32) -> ErrorCode {
    ErrorCode {
        number,
        retryable: false,
    }
}

fn retryable(number: u32) -> ErrorCode {
    ErrorCode {
        number,
        retryable: true,
    }
}

impl From<StorageError> for Error {
    /// A lock wait stopped by the request's cancel or timeout is that cancel or timeout.
    fn from(e: StorageError) -> Self {
        use tdlite_storage::locks::Interruption;
        match e {
            StorageError::Interrupted(Interruption::Cancelled, _) => Error::Cancelled,
            StorageError::Interrupted(Interruption::TimedOut(secs), _) => {
                Error::StatementTimeout(secs)
            }
            e => Error::Storage(e),
        }
    }
}

impl Error {
    /// True if this error rolls back the whole transaction even in ANSI mode, where other
    /// errors undo only the failing request: a deadlock (any 2631: a row another transaction
    /// held or changed, met past the statement's retries, too), a NOWAIT refusal, a failed
    /// commit, a dropped queue, an explicit ABORT.
    pub fn ends_transaction(&self) -> bool {
        matches!(
            self,
            Error::Storage(
                StorageError::Deadlock(_)
                    | StorageError::RowBusy { .. }
                    | StorageError::RowChanged(_)
                    | StorageError::LockNowait(_)
                    | StorageError::WriteConflict(_)
                    | StorageError::Io(_)
                    | StorageError::Interrupted(tdlite_storage::locks::Interruption::Cancelled, _)
            ) | Error::QueueDropped(_)
                | Error::UserAbort(_)
                | Error::Cancelled
        )
    }

    /// The error's Teradata (or tdlite) number.
    pub fn code(&self) -> ErrorCode {
        match self {
            Error::Parse(p) => code(p.code()),
            Error::Storage(s) => match s {
                StorageError::TableExists(_) => code(3803),
                StorageError::ObjectNotFound(_) => code(3807),
                StorageError::DuplicateRow(_) => code(2802),
                StorageError::DuplicatePrimaryKey(_) => code(2801),
                StorageError::DuplicateUniqueKey(_) => code(2803),
                StorageError::NotNull(_) => code(3811),
                StorageError::IdentityExhausted(_) => code(7545),
                StorageError::WriteConflict(_)
                | StorageError::Deadlock(_)
                | StorageError::RowBusy { .. }
                | StorageError::RowChanged(_) => retryable(2631),
                StorageError::LockNowait(_) => retryable(7423),
                StorageError::BadValue { .. } => code(3996),
                StorageError::TransactionEnded => code(9999),
                StorageError::LeaseEnded { .. } => code(9922),
                StorageError::LeaseOwnRows(_) => code(9923),
                StorageError::NoSubscribers(_) => code(9924),
                StorageError::Io(_) => code(9914),
                StorageError::Locked(_) => code(9915),
                StorageError::Corrupt { .. } => code(9916),
                // never kept: `From` makes it `Cancelled` or `StatementTimeout`
                StorageError::Interrupted(tdlite_storage::locks::Interruption::Cancelled, _) => {
                    code(3110)
                }
                StorageError::Interrupted(..) => retryable(9920),
            },
            Error::ColumnNotFound(_) => code(3810),
            Error::AmbiguousColumn(_) => code(3822),
            Error::ObjectNotFound(_) => code(3807),
            Error::AmbiguousTable(_) => code(3806),
            Error::DatabaseNotFound(_) => code(3802),
            Error::InvalidQueueTable(_) => code(9903),
            Error::Subscribers(_) => code(9924),
            Error::NotAQueueTable(_) => code(9901),
            Error::ConsumeTimeout(_) => retryable(9904),
            Error::ConsumeCancelled(_) => code(9905),
            Error::QueueDropped(_) => code(9906),
            Error::ConsumeWithModify(_) => code(9907),
            Error::ViewOnQueue(_) => code(9925),
            Error::TooFewValues => code(3812),
            Error::TooManyValues => code(3813),
            Error::NotInGroup => code(3504),
            Error::SubqueryTooManyRows => code(3669),
            Error::DivisionByZero => code(2618),
            Error::Overflow => code(2616),
            Error::InvalidDate(_) => code(2665),
            Error::InvalidPeriod(_) => code(9103),
            Error::BranchTypeMismatch(_) => code(3800),
            Error::InvalidPeriodText(_) => code(9102),
            Error::BadNumber => code(3535),
            Error::TypeMismatch(_) => code(9913),
            Error::TooManyEt => code(3510),
            Error::CommitInTeradataMode => code(3706),
            Error::BtNotFirst => code(9912),
            Error::UserAbort(_) => code(3514),
            Error::DdlNotLast => code(3932),
            Error::DdlNotLastAnsi => code(3722),
            Error::BtEtInAnsiMode => code(9917),
            Error::ModeChangeInTransaction => code(9918),
            Error::BadArgument(_) => code(9919),
            Error::RecursionLimit(_) => code(2646),
            Error::DuplicateFromName(_) => code(3868),
            Error::MultipleSourceRows(_) => code(7547),
            Error::MergePrimaryCondition => code(5758),
            Error::InvalidMerge(_) => code(5977),
            Error::UpsertNotSingleAmp(_) => code(5562),
            Error::ViewNotUpdatable(_) => code(3823),
            Error::IndexExists(_) | Error::DatabaseExists(_) => code(5612),
            Error::DatabaseNotEmpty(_) => code(3552),
            Error::NotAMacro(_) => code(3855),
            Error::IndexNotFound(_) => code(3526),
            Error::NoStatistics(_) => code(3624),
            Error::NotATable(_) => code(3853),
            Error::NotAView(_) => code(3854),
            Error::Unsupported(_) => code(9910),
            Error::IdentityUsage(_) => code(5784),
            Error::CannotAlter(_) => code(3558),
            Error::DateTimeOperation(_) => code(5407),
            Error::Untranslatable => code(6706),
            Error::AggregateInWhere => code(3569),
            Error::RightTruncation(_) | Error::CastTruncation => code(3996),
            Error::IdentityParameter(_) => code(5785),
            Error::ParameterCount { .. } => code(3939),
            Error::CheckViolation(_) => code(5317),
            Error::SizeLimit(_) => code(3577),
            Error::Cancelled => code(3110),
            Error::SpoolBytes(_) => code(2646),
            Error::IntervalOverflow(_) => code(7453),
            Error::TooManyTables(_) => code(9921),
            Error::SetOpArity => code(3653),
            Error::PartitionViolation(_) => code(5728),
            Error::MaterializedTemporary(_) => code(5337),
            Error::NotAProcedure(_) => code(5494),
            Error::ProcedureNotFound(_) => code(5495),
            Error::SelectIntoRows => code(7627),
            Error::ProcedureMode => code(5510),
            Error::StatementTimeout(_) => retryable(9920),
            Error::ViewRetyped(_) => code(9913),
            Error::Internal(_) => code(9999),
            Error::SpoolSpace(_) => code(2646),
        }
    }
}

/// An Arrow kernel's error where the call site did not classify it: division by zero and
/// overflow by their kinds; anything else is 9913. Casts classify their own failures by the
/// types involved (`expr::cast_to_arrow`); no error is classified by its message.
impl From<arrow::error::ArrowError> for Error {
    fn from(e: arrow::error::ArrowError) -> Self {
        use arrow::error::ArrowError as A;
        match e {
            A::DivideByZero => Error::DivisionByZero,
            A::ArithmeticOverflow(_) => Error::Overflow,
            other => Error::TypeMismatch(other.to_string()),
        }
    }
}

/// Result alias for exec.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// `Option` to `Result` with [`Error::Overflow`] (2616) for `None`, as `ok_or(Error::Overflow)`
/// would, without making (and dropping) an error for every `Some`: checked arithmetic in
/// per-row loops calls it once a row.
pub(crate) trait OrOverflow<T> {
    fn or_overflow(self) -> Result<T>;
}

impl<T> OrOverflow<T> for Option<T> {
    #[inline]
    fn or_overflow(self) -> Result<T> {
        match self {
            Some(v) => Ok(v),
            None => Err(Error::Overflow),
        }
    }
}
