//! tdlite's sqlparser dialect: sqlparser's `TeradataDialect` (every setting it makes is
//! repeated here, and `dialect()` reports `TeradataDialect`, so sqlparser treats the two
//! alike) plus Teradata's exponent operator `**` and the PERIOD operators
//! (`period_syntax.rs`).
//!
//! Teradata's data attribute phrases (`expr (FORMAT 'f')`, `(TITLE 't')`, `(NAMED n)`,
//! `(type)`) reach the parser behind a marker token (`parser::rewrite_tokens`); here they bind
//! tightest and `phrase::parse` reads them.
//!
//! The tokenizer splits `**` into two `*`; `parser::rewrite_tokens` turns an adjacent pair into
//! one `^` token (Teradata has no `^` operator of its own: `^=` was rewritten before). Here
//! `^` binds tighter than `*` and `/` and associates to the left — Teradata evaluates operators
//! of equal precedence left to right, `**` included: `2 ** 3 ** 2` is `(2 ** 3) ** 2`, 64
//! (SQL Functions, Expressions, and Predicates, "Order of Evaluation") — and parses to `BinaryOperator::PGExp`, which the binder evaluates as POWER. Unary `+`/`-`
//! bind tighter still (as in Teradata: `-2 ** 2` is 4).

use sqlparser::ast::{BinaryOperator, Expr, UnaryOperator};
use sqlparser::dialect::{Dialect, TeradataDialect};
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;
use std::any::TypeId;

/// Above sqlparser's `*`/`/` (40) and below unary and postfix operators.
const EXPONENT_PRECEDENCE: u8 = 45;

/// Binds tighter than any operator: a phrase written right after its operand.
const PHRASE_PRECEDENCE: u8 = 100;

/// The dialect tdlite parses with.
#[derive(Debug, Default, Clone, Copy)]
pub struct TdliteDialect;

impl Dialect for TdliteDialect {
    fn dialect(&self) -> TypeId {
        TypeId::of::<TeradataDialect>()
    }
    fn identifier_quote_style(&self, identifier: &str) -> Option<char> {
        TeradataDialect.identifier_quote_style(identifier)
    }
    fn is_delimited_identifier_start(&self, ch: char) -> bool {
        TeradataDialect.is_delimited_identifier_start(ch)
    }
    fn is_identifier_start(&self, ch: char) -> bool {
        TeradataDialect.is_identifier_start(ch)
    }
    fn is_identifier_part(&self, ch: char) -> bool {
        TeradataDialect.is_identifier_part(ch)
    }
    /// `SUM(SELECT …)`: a subquery as a function's only argument, without its own
    /// parentheses (SQL Data Manipulation Language, "Scalar Subqueries": "Aggregate
    /// expressions: SELECT SUM(SELECT count(*) FROM sales …)"); `phrase::name_select_items`
    /// makes it the one argument `(SELECT …)`.
    fn supports_subquery_as_function_arg(&self) -> bool {
        true
    }
    fn supports_group_by_expr(&self) -> bool {
        TeradataDialect.supports_group_by_expr()
    }
    /// QUALIFY and SAMPLE are Teradata reserved words: `SEL t.c QUALIFY …` (a select list
    /// with no FROM, which Teradata's implicit FROM reads) starts the clause, it does not name
    /// the column.
    fn is_column_alias(&self, kw: &sqlparser::keywords::Keyword, _parser: &mut Parser) -> bool {
        use sqlparser::keywords::Keyword;
        !sqlparser::keywords::RESERVED_FOR_COLUMN_ALIAS.contains(kw)
            && !matches!(kw, Keyword::QUALIFY | Keyword::SAMPLE)
    }
    fn supports_boolean_literals(&self) -> bool {
        TeradataDialect.supports_boolean_literals()
    }
    fn require_interval_qualifier(&self) -> bool {
        TeradataDialect.require_interval_qualifier()
    }
    fn supports_comment_on(&self) -> bool {
        TeradataDialect.supports_comment_on()
    }
    fn supports_create_table_select(&self) -> bool {
        TeradataDialect.supports_create_table_select()
    }
    fn supports_execute_immediate(&self) -> bool {
        TeradataDialect.supports_execute_immediate()
    }
    fn supports_top_before_distinct(&self) -> bool {
        TeradataDialect.supports_top_before_distinct()
    }
    fn supports_window_function_null_treatment_arg(&self) -> bool {
        TeradataDialect.supports_window_function_null_treatment_arg()
    }
    fn supports_string_literal_concatenation(&self) -> bool {
        TeradataDialect.supports_string_literal_concatenation()
    }
    fn supports_leading_comma_before_table_options(&self) -> bool {
        TeradataDialect.supports_leading_comma_before_table_options()
    }

    /// Unary `+`/`-` bind tighter than `**` (Teradata's operator precedence): `-2 ** 2` is 4.
    fn parse_prefix(&self, parser: &mut Parser) -> Option<Result<Expr, ParserError>> {
        let op = match parser.peek_token_ref().token {
            Token::Minus => UnaryOperator::Minus,
            Token::Plus => UnaryOperator::Plus,
            _ => return None,
        };
        parser.next_token();
        Some(
            parser
                .parse_subexpr(EXPONENT_PRECEDENCE + 1)
                .map(|e| Expr::UnaryOp {
                    op,
                    expr: Box::new(e),
                }),
        )
    }

    fn get_next_precedence(&self, parser: &Parser) -> Option<Result<u8, ParserError>> {
        match &parser.peek_token_ref().token {
            Token::Caret => Some(Ok(EXPONENT_PRECEDENCE)),
            Token::Placeholder(p) if p == crate::phrase::MARKER => Some(Ok(PHRASE_PRECEDENCE)),
            _ => crate::period_syntax::precedence(parser).map(Ok),
        }
    }

    fn parse_infix(
        &self,
        parser: &mut Parser,
        expr: &Expr,
        _precedence: u8,
    ) -> Option<Result<Expr, ParserError>> {
        if matches!(&parser.peek_token_ref().token, Token::Placeholder(p) if p == crate::phrase::MARKER)
        {
            return Some(crate::phrase::parse(parser, expr));
        }
        if parser.peek_token_ref().token != Token::Caret {
            return crate::period_syntax::parse_infix(parser, expr);
        }
        parser.next_token();
        // left-associative: 2 ** 3 ** 2 is (2 ** 3) ** 2
        Some(
            parser
                .parse_subexpr(EXPONENT_PRECEDENCE)
                .map(|right| Expr::BinaryOp {
                    left: Box::new(expr.clone()),
                    op: BinaryOperator::PGExp,
                    right: Box::new(right),
                }),
        )
    }
}
