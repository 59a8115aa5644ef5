//! The tdlite parser: Teradata SQL text → [`Spanned`] statements.
//!
//! sqlparser's `TeradataDialect` does most of the work; this crate adds what it cannot express
//! (queue tables, `SELECT AND CONSUME`, `BT`/`ET`, `LOCKING`, Teradata `CREATE TABLE`, the
//! `SEL`/`INS`/`UPD`/`DEL` abbreviations) and splits scripts into requests by BTEQ's rule.
//!
//! ```
//! let stmts = tdlite_parser::parse_request("SEL * FROM q; INS q (1, 'a');").unwrap();
//! assert_eq!(stmts.len(), 2);
//! let err = tdlite_parser::parse_request("SELECT AND CONSUME TOP 0 * FROM q").unwrap_err();
//! assert_eq!(err.code(), 3706);
//! // strict mode (docs/queues.md): tdlite's extensions are refused as Teradata refuses them
//! let sql = "SELECT AND CONSUME TOP 2 * FROM q";
//! let stmts = tdlite_parser::parse_request(sql).unwrap();
//! assert_eq!(tdlite_parser::strict::check(sql, &stmts).unwrap_err().code(), 3706);
//! ```
#![warn(missing_docs)]

mod admin;
mod cast_attributes;
pub mod conditions;
mod consume;
mod create_table;
mod cursor;
pub mod dialect;
pub mod error;
mod implicit_from;
pub mod interval_qualifier;
mod lease;
pub mod legacy_olap;
pub mod limits;
mod macros;
mod parser;
mod partitioning;
mod period_syntax;
pub mod phrase;
pub mod procedure;
mod sample_clause;
mod session_set;
pub mod split;
pub mod statement;
mod statistics;
pub mod strict;
mod subscriber;
mod table_function;
mod top_rules;
mod translate_using;
mod using;

pub use create_table::{parse_column_definition, parse_data_type};
pub use error::{Location, ParseError, ParseErrorKind};
pub use implicit_from::plain_table_factor;
pub use parser::{
    ends_with_check_option, object_name_string, parameter_count, parse_expression, parse_request,
    parse_statement_text,
};
pub use period_syntax::{
    literal_as_written as period_literal_as_written, LITERAL_FUNCTION as PERIOD_LITERAL_FUNCTION,
};
pub use sample_clause::SAMPLE_FUNCTION;
pub use split::{is_dot_command, split_requests, RequestText, Splitter};
/// sqlparser's AST, as used inside [`Statement::Sql`].
pub use sqlparser::ast;
pub use statement::{
    AdminStatement, AlterAction, AsFrom, AsSource, ColumnDef, ColumnDefault, Consume, ConsumeOrder,
    ConsumeWait, CreateTable, DataType, IdentitySpec, IndexDef, LargeType, LockMode, LockObject,
    Locking, Partitioning, PeriodOf, QueueLimits, RangeEnd, RangeSpec, SessionOption, Spanned,
    Statement, StatsGroup, TableKind,
};
pub use table_function::RETURNS_CALL;
pub use using::{parse_using, replace_host_variables, replace_markers, replace_variables, Using};
