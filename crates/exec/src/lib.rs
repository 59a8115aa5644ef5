//! tdlite: an embedded SQL engine that speaks Teradata, with queue tables.
//!
//! # Life of a statement
//!
//! 1. [`Session::execute`] receives a request's text.
//! 2. `tdlite_parser::parse_request` tokenizes it (sqlparser's `TeradataDialect`), splits it
//!    into statements at `;`, parses the Teradata forms itself (`CREATE TABLE …, QUEUE`,
//!    `SELECT AND CONSUME`, `BT`/`ET`, `LOCKING`) and hands the rest to sqlparser.
//! 3. `session::check_request` applies request-level rules (BT first; no DELETE/UPDATE of a
//!    queue consumed in the same request).
//! 4. The request gets one CURRENT_TIMESTAMP (`Shared::request_timestamp`), and the session
//!    opens its transaction if none is open (`tdlite_storage::Transaction::begin`).
//! 5. `Session::run_statement` takes the statement's `LOCKING` locks, then `Session::run`
//!    dispatches it to an [`exec::Exec`] method: `run_query` (bind
//!    with `bind_expr`; read each table through the access path `plan` picks: index probes
//!    or a MIN/MAX walk with `Table::index_entries`, else `Table::scan`; then
//!    filter/aggregate/sort/project with Arrow kernels), `insert`/`update`/`delete`, `create_table`/`drop_table`, or the consume path
//!    (`bind_consume`, then `try_consume` → `Transaction::consume`, which pops the queue
//!    index; if the queue is empty the session waits in `consume_attempts` without holding any
//!    storage lock).
//!    Every write takes a table lock first (`tdlite_storage::locks`); a statement that meets a
//!    row another transaction changed is undone to its savepoint, waits (deadlocks: 2631) and
//!    runs again on a fresh snapshot.
//! 6. A failure rolls the whole transaction back (`Transaction::rollback`, Teradata mode; in
//!    ANSI mode only the request, back to its savepoint, unless the error ends the
//!    transaction); otherwise, outside `BT … ET` in Teradata mode, the transaction commits
//!    (`Transaction::commit`) and releases its locks. In a
//!    database on disk ([`Database::open`]) the commit first appends the transaction's log
//!    record and waits for it to be durable (`tdlite_storage::durable`).
//! 7. The commit's or rollback's `Outcome` wakes the consumers waiting on queues that gained
//!    rows (`Shared::publish`).
//! 8. The caller gets one [`StatementResult`] per statement: Arrow batches for rows, an
//!    activity count for DML, a status for the rest.
//!
//! # Example
//!
//! ```
//! use tdlite::Database;
//! let db = Database::new();
//! let mut s = db.session();
//! s.execute("CREATE TABLE q, QUEUE (qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), n INTEGER)").unwrap();
//! s.execute("INS q (CURRENT_TIMESTAMP, 1); INS q (CURRENT_TIMESTAMP + INTERVAL '1' SECOND, 2);").unwrap();
//! let r = s.execute("SELECT AND CONSUME TOP 1 n FROM q").unwrap();
//! assert_eq!(r[0].activity_count, 1);
//! ```

mod access;
mod alter;
pub mod bind;
pub mod correlate;
mod ctas;
mod cte;
pub mod database;
pub mod ddl;
mod decimal;
pub mod dml;
pub mod error;
pub mod exec;
mod explain;
pub mod expr;
mod format;
pub mod functions;
mod hash_join;
pub mod join;
mod locking;
mod merge;
mod plan;
pub mod prepared;
pub mod query;
pub mod result;
mod sample;
pub mod session;
pub mod setops;
mod view;
mod wait;
mod window;

pub use database::Database;
pub use error::{Error, ErrorCode, PositionedError};
pub use prepared::Prepared;
pub use result::{Rows, StatementKind, StatementResult};
pub use session::{Session, SessionMode};
pub use tdlite_storage::sim::SimVfs;
pub use tdlite_storage::types::Value;
pub use tdlite_storage::{sim, vfs, Options, SyncMode};
pub use wait::CancelHandle;
