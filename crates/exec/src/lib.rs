//! tdlite: an embedded SQL engine that speaks Teradata, with queue tables.
//!
//! Open a [`Database`] (in memory, or a folder on disk), take a [`Session`] per thread, and run
//! Teradata SQL with [`Session::execute`]. Each request returns one [`StatementResult`] per
//! statement: rows come back as Arrow record batches ([`Rows`]; the `arrow` crate tdlite uses is
//! re-exported as [`tdlite::arrow`](arrow), so you need not pin its version yourself), DML
//! carries its activity count, and every failure is a [`PositionedError`] with a Teradata error
//! number ([`PositionedError::code`]) and the position of the statement or token at fault.
//!
//! Queue tables (`CREATE TABLE …, QUEUE`) are the headline: `SELECT AND CONSUME TOP 1` pops the
//! row with the oldest QITS inside the session's transaction; a rollback puts it back; a consumer
//! of an empty queue waits for another session's committed insert (bound the wait with
//! [`Session::set_consume_timeout`], or end it from another thread with a [`CancelHandle`]).
//!
//! ```
//! use tdlite::arrow::array::AsArray;
//! use tdlite::arrow::datatypes::Int32Type;
//! use tdlite::{Database, Value};
//!
//! fn main() -> Result<(), tdlite::PositionedError> {
//!     let db = Database::new(); // Database::open("folder")? keeps it on disk
//!     let mut s = db.session(); // Database is Send + Sync: clone it into threads
//!     s.execute(
//!         "CREATE TABLE q, QUEUE (
//!            qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
//!            n INTEGER)",
//!     )?;
//!     // A prepared request skips parsing; one value per `?`.
//!     let ins = s.prepare("INSERT INTO q (n) VALUES (?)")?;
//!     for n in 1..=3 {
//!         s.execute_prepared(&ins, &[Value::Int(n)])?;
//!     }
//!     let results = s.execute("SELECT AND CONSUME TOP 1 n FROM q")?;
//!     let rows = results[0].rows.as_ref().expect("a consume returns rows");
//!     let n = rows.batches[0].column(0).as_primitive::<Int32Type>().value(0);
//!     assert_eq!(n, 1); // the oldest row
//!
//!     let err = s.execute("SEL * FROM missing").unwrap_err();
//!     assert_eq!(err.code().number, 3807); // Object 'missing' does not exist.
//!     Ok(())
//! }
//! ```
//!
//! Sessions start in Teradata mode (implicit per-request transactions, `BT`/`ET`); ANSI mode is
//! [`Database::session_in`] with [`SessionMode::Ansi`]. A database on disk is opened with
//! [`Database::open`] or, to choose the [`SyncMode`], [`Database::open_with`] and [`Options`].
//!
//! How a statement runs inside (parse, bind, plan, execute, commit) is described in the
//! repository's `docs/architecture.md`; the error numbers are listed in `docs/errors.md`.

mod access;
mod admin;
mod aggregate;
mod alter;
mod bind;
mod block_tail;
mod bound_from;
mod bound_join;
mod bound_joined;
mod bound_merge;
mod bound_select;
mod branch_types;
mod calendar;
mod clauses;
mod conjuncts;
mod consume_filter;
mod correlate;
mod ctas;
mod cte;
mod cte_inline;
mod database;
mod date_round;
mod dbc;
mod ddl;
mod decimal;
mod decorrelate;
mod default_cells;
mod deferred;
mod deferred_run;
mod dictionary;
mod dml;
mod early;
mod error;
mod exec;
mod explain;
mod expr;
mod expr_tree;
mod format;
mod functions;
mod greatest;
mod grouping_sets;
mod hash_join;
mod help_attrs;
mod identity;
mod in_set;
mod inputs;
mod insert_row;
mod interrupt;
mod interval_diff;
mod join;
mod join_plan;
mod join_step;
mod limits;
mod locking;
mod macros;
mod merge;
mod merge_rules;
mod names;
mod numfmt;
mod ops;
mod params;
mod partition;
mod period;
mod period_fns;
pub mod period_text;
mod pivot;
mod plan;
mod plan_cache;
mod prepared;
mod pushdown;
mod query;
mod query_band;
mod queue_limits;
mod regexp;
mod requests;
mod result;
mod sample;
mod session;
mod session_option;
mod set_combine;
mod setops;
mod shared;
mod slots;
mod stack;
mod statistics;
mod stream;
mod subscribers;
mod sys_calendar;
mod table_function;
mod target_from;
mod td_date;
mod text_distance;
mod text_type;
mod to_char;
mod to_char_date;
mod to_char_number;
mod types;
mod upsert_rules;
mod view;
mod view_dml;
mod wait;
mod window;
mod window_frame;
mod window_value;
mod xmlagg;

pub use arrow;
pub use database::Database;
pub use error::{Error, ErrorCode, PositionedError};
pub use format::display as display_with_format;
pub use format::numeric_text;
pub use prepared::Prepared;
pub use result::{Rows, StatementKind, StatementResult, Warning};
pub use session::{Session, SessionMode};
pub use tdlite_parser::{Location, ParseError};
pub use tdlite_storage::locks::LockWait;
pub use tdlite_storage::period::{Period, PeriodKind};
pub use tdlite_storage::types::Value;
pub use tdlite_storage::{Options, StorageError, SyncMode};
pub use types::fixed_char_length;
pub use wait::CancelHandle;

/// Storage simulation for tdlite's own power-cut tests: not part of the embedding API.
#[doc(hidden)]
pub use tdlite_storage::{sim, sim::SimVfs, vfs};

/// The README's code blocks, compiled and run as doc tests so that its example stays true.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
