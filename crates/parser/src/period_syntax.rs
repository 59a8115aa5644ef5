//! Teradata's PERIOD syntax, brought to forms sqlparser reads and prints back:
//!
//! - the literal `PERIOD '(2005-02-03, 2006-02-04)'` becomes the call
//!   `"tdlite period"('(2005-02-03, 2006-02-04)')` ([`LITERAL_FUNCTION`]; the binder reads the
//!   element type from the text);
//! - a cast's `AS PERIOD(TIMESTAMP(3) WITH TIME ZONE)` keeps its element type as one string
//!   modifier (sqlparser's custom types take words, not nested parentheses), printed back
//!   quoted, `PERIOD('TIMESTAMP(3) WITH TIME ZONE')`, which the one type grammar
//!   (`create_table::parse_data_type`) reads;
//! - the infix operators `p1 P_INTERSECT p2`, `P_NORMALIZE`, `LDIFF`, `RDIFF` (at the precedence
//!   of `+`) and the predicates `CONTAINS`, `MEETS`, `PRECEDES`, `SUCCEEDS`,
//!   `IMMEDIATELY PRECEDES`, `IMMEDIATELY SUCCEEDS` (at the precedence of `=`) parse to
//!   `BinaryOperator::Custom` with the operator's words, which print back as written.
//!
//! A word is an operator only where an operand follows it, so a column alias named `meets`
//! (`SELECT x meets FROM t`) keeps its meaning. `PERIOD(b, e)`, `BEGIN(p)`, `END(p)`, `LAST(p)`
//! are ordinary calls.

use sqlparser::ast::{BinaryOperator, Expr};
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan, Word};

/// The function a PERIOD literal's text is passed to.
pub const LITERAL_FUNCTION: &str = "tdlite period";

/// Operators whose value is a period; they bind as `+` does.
pub(crate) const PERIOD_VALUED: [&str; 4] = ["P_INTERSECT", "P_NORMALIZE", "LDIFF", "RDIFF"];

/// Predicates between periods (or a period and a datetime); they bind as `=` does.
const PREDICATES: [&str; 4] = ["CONTAINS", "MEETS", "PRECEDES", "SUCCEEDS"];

/// sqlparser's precedence of `+`/`-`.
const PLUS_PRECEDENCE: u8 = 30;
/// sqlparser's precedence of `=`.
const EQ_PRECEDENCE: u8 = 20;

/// Words after which no operand starts: a word before one of them is an alias, not an
/// operator.
const NO_OPERAND: [&str; 24] = [
    "FROM",
    "WHERE",
    "GROUP",
    "HAVING",
    "ORDER",
    "QUALIFY",
    "UNION",
    "INTERSECT",
    "EXCEPT",
    "MINUS",
    "SAMPLE",
    "AS",
    "ON",
    "JOIN",
    "INNER",
    "LEFT",
    "RIGHT",
    "FULL",
    "CROSS",
    "WHEN",
    "THEN",
    "ELSE",
    "END",
    "AND",
];

/// The PERIOD literal `e` came from, written as the user wrote it (`PERIOD '(b, e)'`, a
/// heading), if `e` is the call a literal became.
pub fn literal_as_written(e: &Expr) -> Option<Expr> {
    use sqlparser::ast::{
        DataType, FunctionArg, FunctionArgExpr, FunctionArguments, Ident, ObjectName, TypedString,
        Value,
    };
    let Expr::Function(f) = e else {
        return None;
    };
    let [part] = f.name.0.as_slice() else {
        return None;
    };
    if part.as_ident()?.value != LITERAL_FUNCTION {
        return None;
    }
    let FunctionArguments::List(list) = &f.args else {
        return None;
    };
    let [FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(v)))] = list.args.as_slice() else {
        return None;
    };
    if !matches!(v.value, Value::SingleQuotedString(_)) {
        return None;
    }
    Some(Expr::TypedString(TypedString {
        data_type: DataType::Custom(ObjectName::from(vec![Ident::new("PERIOD")]), vec![]),
        value: v.clone(),
        uses_odbc_syntax: false,
    }))
}

/// Rewrites PERIOD literals and a cast's nested PERIOD element type (module docs).
pub(crate) fn rewrite(toks: &mut Vec<TokenWithSpan>) {
    let mut i = 0;
    while i < toks.len() {
        let after_dot = i > 0 && toks[i - 1].token == Token::Period;
        if after_dot || !word(&toks[i].token).is_some_and(|w| w.eq_ignore_ascii_case("PERIOD")) {
            i += 1;
            continue;
        }
        match toks.get(i + 1).map(|t| &t.token) {
            Some(Token::SingleQuotedString(_)) => {
                let span = toks[i].span;
                toks[i].token = Token::Word(Word {
                    value: LITERAL_FUNCTION.into(),
                    quote_style: Some('"'),
                    keyword: sqlparser::keywords::Keyword::NoKeyword,
                });
                toks.insert(
                    i + 1,
                    TokenWithSpan {
                        token: Token::LParen,
                        span,
                    },
                );
                toks.insert(
                    i + 3,
                    TokenWithSpan {
                        token: Token::RParen,
                        span,
                    },
                );
                i += 4;
            }
            Some(Token::LParen) if in_cast_type(toks, i) => {
                let Some(close) = crate::parser::matching_paren(toks, i + 1) else {
                    i += 1;
                    continue;
                };
                let inner = &toks[i + 2..close];
                if inner.len() > 1 {
                    let text = Token::SingleQuotedString(spelled(inner));
                    let span = toks[i + 2].span;
                    toks.splice(i + 2..close, [TokenWithSpan { token: text, span }]);
                }
                i += 2;
            }
            _ => i += 1,
        }
    }
}

/// Whether the word at `i` follows the `AS` of a `CAST(` or `TRY_CAST(` (not a derived
/// table's alias `AS period (a, b)`).
fn in_cast_type(toks: &[TokenWithSpan], i: usize) -> bool {
    if i < 2 || !word(&toks[i - 1].token).is_some_and(|w| w.eq_ignore_ascii_case("AS")) {
        return false;
    }
    // the unmatched `(` before the AS, and the word before it
    let mut depth = 0usize;
    for k in (0..i - 1).rev() {
        match &toks[k].token {
            Token::RParen => depth += 1,
            Token::LParen if depth > 0 => depth -= 1,
            Token::LParen => {
                return k > 0
                    && word(&toks[k - 1].token)
                        .and_then(|w| one_of(w, &["CAST", "TRY_CAST", "TRYCAST"]))
                        .is_some();
            }
            _ => {}
        }
    }
    false
}

/// Tokens written back as text, with no blank before `(`, `)` and `,` or after `(`.
fn spelled(toks: &[TokenWithSpan]) -> String {
    let mut out = String::new();
    for (k, t) in toks.iter().enumerate() {
        let tight = matches!(t.token, Token::LParen | Token::RParen | Token::Comma)
            || (k > 0 && toks[k - 1].token == Token::LParen);
        if k > 0 && !tight {
            out.push(' ');
        }
        out.push_str(&t.token.to_string());
    }
    out
}

/// The unquoted word `t` is, as written (no copy: this runs at every operator check).
fn word(t: &Token) -> Option<&str> {
    match t {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.as_str()),
        _ => None,
    }
}

/// The entry of `list` that `w` spells, case blind.
fn one_of(w: &str, list: &[&'static str]) -> Option<&'static str> {
    list.iter().copied().find(|x| x.eq_ignore_ascii_case(w))
}

/// The words of the period operator the parser is at, and its precedence, if an operand
/// follows it.
fn operator_at(parser: &Parser) -> Option<(Vec<&'static str>, u8)> {
    let first = word(&parser.peek_token_ref().token)?;
    let (words, precedence) = if let Some(op) = one_of(first, &PERIOD_VALUED) {
        (vec![op], PLUS_PRECEDENCE)
    } else if let Some(op) = one_of(first, &PREDICATES) {
        (vec![op], EQ_PRECEDENCE)
    } else if first.eq_ignore_ascii_case("IMMEDIATELY") {
        let second = one_of(
            word(&parser.peek_nth_token_ref(1).token)?,
            &["PRECEDES", "SUCCEEDS"],
        )?;
        (vec!["IMMEDIATELY", second], EQ_PRECEDENCE)
    } else {
        return None;
    };
    let next = &parser.peek_nth_token_ref(words.len()).token;
    let operand = match next {
        Token::Comma | Token::RParen | Token::SemiColon | Token::EOF => false,
        // `p CONTAINS END(q)`: END with its argument is an operand
        Token::Word(w) if w.quote_style.is_none() => {
            one_of(&w.value, &NO_OPERAND).is_none()
                || parser.peek_nth_token_ref(words.len() + 1).token == Token::LParen
        }
        _ => true,
    };
    operand.then_some((words, precedence))
}

/// The precedence of the period operator the parser is at, if any.
pub(crate) fn precedence(parser: &Parser) -> Option<u8> {
    operator_at(parser).map(|(_, p)| p)
}

/// Parses `expr OP right` for the period operator the parser is at (`None` if it is at none).
pub(crate) fn parse_infix(parser: &mut Parser, expr: &Expr) -> Option<Result<Expr, ParserError>> {
    let (words, precedence) = operator_at(parser)?;
    for _ in &words {
        parser.next_token();
    }
    Some(
        parser
            .parse_subexpr(precedence)
            .map(|right| Expr::BinaryOp {
                left: Box::new(expr.clone()),
                op: BinaryOperator::Custom(words.join(" ")),
                right: Box::new(right),
            }),
    )
}

#[cfg(test)]
mod tests {
    use crate::statement::Statement;

    fn printed(sql: &str) -> String {
        match crate::parse_statement_text(sql).expect(sql).statement {
            Statement::Sql(s) => s.to_string(),
            other => panic!("{sql}: {other:?}"),
        }
    }

    #[test]
    fn literals_casts_and_operators_print_back_and_read_again() {
        for (sql, want) in [
            (
                "SELECT PERIOD '(2005-02-03, 2006-02-04)' FROM t",
                "SELECT \"tdlite period\"('(2005-02-03, 2006-02-04)') FROM t",
            ),
            (
                "SELECT CAST(x AS PERIOD(TIMESTAMP(3) WITH TIME ZONE)) FROM t",
                "SELECT CAST(x AS PERIOD('TIMESTAMP(3) WITH TIME ZONE')) FROM t",
            ),
            (
                "SELECT p P_INTERSECT q, p LDIFF q FROM t WHERE p IMMEDIATELY PRECEDES q",
                "SELECT p P_INTERSECT q, p LDIFF q FROM t WHERE p IMMEDIATELY PRECEDES q",
            ),
            (
                "SELECT * FROM t WHERE p CONTAINS DATE '2005-01-01' AND a + 1 = 2",
                "SELECT * FROM t WHERE p CONTAINS DATE '2005-01-01' AND a + 1 = 2",
            ),
            (
                "SELECT BEGIN(p), END(p), LAST(p) FROM t WHERE p MEETS PERIOD(d, e)",
                "SELECT BEGIN(p), END(p), LAST(p) FROM t WHERE p MEETS PERIOD(d, e)",
            ),
        ] {
            let once = printed(sql);
            assert_eq!(once, want, "{sql}");
            assert_eq!(printed(&once), once, "{sql}");
        }
    }

    #[test]
    fn operator_words_without_an_operand_stay_aliases() {
        assert_eq!(
            printed("SELECT x meets, y contains FROM t"),
            "SELECT x AS meets, y AS contains FROM t"
        );
        assert_eq!(
            printed("SELECT * FROM t WHERE p CONTAINS END(q)"),
            "SELECT * FROM t WHERE p CONTAINS END(q)"
        );
    }

    #[test]
    fn only_a_cast_type_is_rewritten() {
        assert_eq!(
            printed("SELECT a FROM (SELECT 1, 2) AS period (a, b)"),
            "SELECT a FROM (SELECT 1, 2) AS period (a, b)"
        );
        assert_eq!(
            printed("SELECT TRYCAST(x AS PERIOD(TIME(2))) FROM t"),
            "SELECT TRY_CAST(x AS PERIOD('TIME(2)')) FROM t"
        );
    }
}
