//! What executing a statement returns: rows as Arrow batches, an activity count, and the kind
//! of statement (which the CLI turns into BTEQ's status line).

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use arrow::util::display::{ArrayFormatter, FormatOptions};

/// Rows returned by a statement.
#[derive(Debug, Clone)]
pub struct Rows {
    /// Column names and Arrow types.
    pub schema: SchemaRef,
    /// The rows, in order.
    pub batches: Vec<RecordBatch>,
}

impl Rows {
    /// Total number of rows.
    pub fn num_rows(&self) -> usize {
        self.batches.iter().map(|b| b.num_rows()).sum()
    }

    /// Every row as text, one string per cell (Arrow's display format, a PERIOD as Teradata
    /// writes it; NULL is `?` as in BTEQ). Handy in tests and tools; the CLI has its own BTEQ
    /// formatting.
    pub fn to_strings(&self) -> Vec<Vec<String>> {
        let opts = FormatOptions::default().with_null("?");
        let mut out = Vec::with_capacity(self.num_rows());
        for b in &self.batches {
            let shown: Vec<_> = b
                .columns()
                .iter()
                .map(|c| crate::period_text::display(c, None).unwrap_or_else(|| c.clone()))
                .collect();
            let cols: Vec<_> = shown
                .iter()
                .filter_map(|c| ArrayFormatter::try_new(c.as_ref(), &opts).ok())
                .collect();
            for i in 0..b.num_rows() {
                out.push(cols.iter().map(|f| f.value(i).to_string()).collect());
            }
        }
        out
    }
}

/// The kind of statement that produced a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatementKind {
    /// SELECT (browse).
    Select,
    /// SELECT AND CONSUME.
    Consume,
    /// INSERT (also INSERT … SELECT AND CONSUME).
    Insert,
    /// UPDATE.
    Update,
    /// DELETE.
    Delete,
    /// CREATE TABLE.
    CreateTable,
    /// DROP TABLE.
    DropTable,
    /// BT / BEGIN TRANSACTION.
    BeginTransaction,
    /// ET / END TRANSACTION.
    EndTransaction,
    /// COMMIT (ANSI mode).
    Commit,
    /// HELP TABLE.
    Help,
    /// SHOW TABLE.
    Show,
    /// EXPLAIN.
    Explain,
    /// A LOCKING modifier alone.
    Lock,
    /// ROLLBACK / ABORT in ANSI mode (in Teradata mode they report 3514 instead).
    Rollback,
    /// ROLLBACK / ABORT … WHERE whose condition found no row: nothing was rolled back.
    AbortNotTaken,
    /// SET SESSION TRANSACTION.
    SetSession,
    /// SET SESSION DATEFORM, ISOLATION LEVEL, COLLATION (session_option.rs).
    SetSessionOption,
    /// SET TIME ZONE.
    SetTimeZone,
    /// MERGE.
    Merge,
    /// DATABASE.
    Database,
    /// ALTER TABLE.
    AlterTable,
    /// CREATE INDEX.
    CreateIndex,
    /// DROP INDEX.
    DropIndex,
    /// CREATE VIEW.
    CreateView,
    /// REPLACE VIEW.
    ReplaceView,
    /// DROP VIEW.
    DropView,
    /// SET QUERY_BAND (accepted; no effect in tdlite).
    QueryBand,
    /// `DIAGNOSTIC … FOR SESSION|REQUEST`.
    Diagnostic,
    /// COLLECT STATISTICS.
    CollectStatistics,
    /// DROP STATISTICS.
    DropStatistics,
    /// CREATE DATABASE.
    CreateDatabase,
    /// CREATE USER.
    CreateUser,
    /// DROP DATABASE.
    DropDatabase,
    /// DROP USER.
    DropUser,
    /// MODIFY DATABASE or USER.
    ModifyDatabase,
    /// DELETE DATABASE or USER.
    DeleteDatabase,
    /// GRANT.
    Grant,
    /// REVOKE.
    Revoke,
    /// COMMENT ON.
    Comment,
    /// RENAME TABLE or VIEW.
    Rename,
    /// CREATE MACRO.
    CreateMacro,
    /// REPLACE MACRO.
    ReplaceMacro,
    /// DROP MACRO.
    DropMacro,
    /// CREATE PROCEDURE.
    CreateProcedure,
    /// REPLACE PROCEDURE.
    ReplaceProcedure,
    /// DROP PROCEDURE.
    DropProcedure,
    /// CALL: its OUT and INOUT parameters' values as one row, if it has any.
    Call,
    /// `ACKNOWLEDGE q LEASE …` (docs/queues.md, Leases): rows deleted.
    Acknowledge,
    /// `RELEASE q LEASE …`: rows given back to the queue.
    Release,
    /// `CREATE SUBSCRIBER s ON q` (docs/queues.md, Subscribers).
    CreateSubscriber,
    /// `DROP SUBSCRIBER s ON q`.
    DropSubscriber,
}

impl Rows {
    /// These rows with a last column `LEASE_ID` (BIGINT), `lease` in every row: the result of
    /// a consume with `LEASE` (docs/queues.md, Leases).
    ///
    /// # Errors
    /// Only Arrow errors building the batches (none expected).
    pub(crate) fn with_lease_column(self, lease: Option<u64>) -> crate::error::Result<Rows> {
        use arrow::array::{ArrayRef, Int64Array};
        use arrow::datatypes::{DataType, Field, Schema};
        use std::sync::Arc;
        let mut fields: Vec<Field> = self.schema.fields().iter().map(|f| (**f).clone()).collect();
        fields.push(Field::new(LEASE_ID, DataType::Int64, false));
        let schema = Arc::new(Schema::new(fields));
        let id = lease.map_or(0, |l| i64::try_from(l).unwrap_or(i64::MAX));
        let batches = self
            .batches
            .into_iter()
            .map(|b| {
                let mut columns: Vec<ArrayRef> = b.columns().to_vec();
                columns.push(Arc::new(Int64Array::from(vec![id; b.num_rows()])));
                RecordBatch::try_new(schema.clone(), columns)
            })
            .collect::<std::result::Result<Vec<_>, _>>()?;
        Ok(Rows { schema, batches })
    }
}

/// The lease number in a consume's `LEASE_ID` column (its last), if it took rows.
pub(crate) fn lease_of(rows: &Rows) -> Option<u64> {
    let b = rows.batches.iter().find(|b| b.num_rows() > 0)?;
    let ids = b
        .columns()
        .last()?
        .as_any()
        .downcast_ref::<arrow::array::Int64Array>()?;
    u64::try_from(ids.value(0)).ok()
}

/// The name of the column a consume with `LEASE` adds to its result.
pub const LEASE_ID: &str = "LEASE_ID";

/// A warning a statement that succeeded returns with its result (BTEQ prints it as
/// `*** Warning: <code> <message>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// Teradata's number for it.
    pub code: u32,
    /// Its text.
    pub message: String,
}

/// The result of one statement.
#[derive(Debug, Clone)]
pub struct StatementResult {
    /// What ran.
    pub kind: StatementKind,
    /// Rows returned, inserted, changed or removed (BTEQ's ACTIVITYCOUNT).
    pub activity_count: u64,
    /// Rows, for statements that return them.
    pub rows: Option<Rows>,
    /// The warning it succeeded with, if any.
    pub warning: Option<Warning>,
}

impl StatementResult {
    pub(crate) fn status(kind: StatementKind) -> Self {
        StatementResult {
            kind,
            activity_count: 0,
            rows: None,
            warning: None,
        }
    }

    pub(crate) fn count(kind: StatementKind, n: u64) -> Self {
        StatementResult {
            kind,
            activity_count: n,
            rows: None,
            warning: None,
        }
    }

    /// The result with `warning`.
    pub(crate) fn warned(self, warning: Option<Warning>) -> Self {
        StatementResult { warning, ..self }
    }

    pub(crate) fn rows(kind: StatementKind, rows: Rows) -> Self {
        StatementResult {
            kind,
            activity_count: rows.num_rows() as u64,
            rows: Some(rows),
            warning: None,
        }
    }
}
