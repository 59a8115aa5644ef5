//! Teradata's data attribute phrases written after an expression:
//! `expr (FORMAT 'f')`, `expr (TITLE 't')`, `expr (NAMED n)`, `expr (type)` (a data type
//! conversion), `expr (UPPERCASE)`, `expr ([NOT] CASESPECIFIC)` (or `CS`), several in one parenthesis separated by commas
//! (`x (DATE, FORMAT 'YYYYMMDD')`) or one after another (`DATE (FORMAT 'YYYYMMDD') (CHAR(8))`).
//!
//! Three steps, each kept here:
//! - `is_phrase` (tokens): whether the parenthesis at `i` opens a phrase rather than a
//!   function call's arguments or a parenthesised expression. A phrase with FORMAT, TITLE or
//!   NAMED is unambiguous; one with only data types needs the token before it to end an
//!   expression (a `)`, a literal, a `?` parameter, `DATE`/`TIME`/`CURRENT_DATE`/
//!   `CURRENT_TIME`, or a name that is not an SQL keyword), and has one data type
//!   (`COALESCE(DATE, DATE)` is a call). A word that is also a value or a column's name
//!   (`DATE`, `TIME`, `NUMBER`, `UC`, …) needs a `)` or a literal before it: `f(DATE)` and
//!   `SUM(number)` are calls (the binder reads `col(DATE)` on a column as the conversion).
//!   `parser::rewrite_tokens` then turns the `(` into the [`MARKER`] placeholder.
//! - `parse` (in the dialect's `parse_infix`, binding tightest): the attributes, as sqlparser
//!   expressions. A data type becomes a cast of kind `CastKind::DoubleColon` (Teradata's
//!   conversion syntax, which differs from CAST: a number written by its own FORMAT keeps its
//!   pad characters; printed `x::type`, which reads back the same), or with the phrase's
//!   FORMAT a CAST with that format (`'20261130' (DATE, FORMAT
//!   'YYYYMMDD')` reads the text by that format); FORMAT alone becomes the call
//!   `"tdlite format"(expr, 'f')` ([`FORMAT_FUNCTION`]): the value as it was, with a display
//!   format (as does `CAST(expr AS FORMAT 'f')`); UPPERCASE becomes `UPPER(expr)`; `[NOT] CASESPECIFIC` becomes
//!   `Expr::Collate` with [`CASESPECIFIC`] or [`NOT_CASESPECIFIC`] as its collation; NAMED n becomes `Expr::Named` with `n`;
//!   TITLE 't' becomes the call `"tdlite title"(expr, 't')` ([`TITLE_FUNCTION`]).
//! - `name_select_items` (after the statement parsed): a select item whose outermost NAMED
//!   phrase names it becomes `expr AS n`, so aliases work as usual (ORDER BY, QUALIFY, views,
//!   CREATE TABLE AS). TITLE phrases stay for the binder, which takes the outermost as the
//!   column's heading and looks through them everywhere else.

use std::ops::ControlFlow;

use sqlparser::ast::{
    CastFormat, CastKind, DataType, Expr, Function, FunctionArg, FunctionArgExpr,
    FunctionArgumentList, FunctionArguments, Ident, ObjectName, Query, SelectItem, SetExpr, Value,
    ValueWithSpan, VisitMut, VisitorMut,
};
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan};

use crate::parser::unquoted_upper as upper;

/// The placeholder token that stands for a phrase's `(`.
pub const MARKER: &str = "\u{1}PHRASE";

/// The function a TITLE phrase becomes, named with double quotes: `"tdlite title"(expr, 't')`
/// prints and parses back as itself (a view keeps its text), which `Expr::Named` would not.
pub const TITLE_FUNCTION: &str = "tdlite title";

/// The function a FORMAT phrase without a data type becomes: `"tdlite format"(expr, 'f')`,
/// the value of `expr` unchanged, shown (and converted to text) by the format `f`.
pub const FORMAT_FUNCTION: &str = "tdlite format";

/// The collation name `(CASESPECIFIC)` and `(CS)` parse to (as `Expr::Collate`).
pub const CASESPECIFIC: &str = "CASESPECIFIC";

/// The collation name `(NOT CASESPECIFIC)` and `(NOT CS)` parse to.
pub const NOT_CASESPECIFIC: &str = "NOT_CASESPECIFIC";

/// Whether `word` names a data type a conversion phrase may start with: the type words of
/// CREATE TABLE's grammar but the large types and the two-word or extension spellings
/// (`LONG VARCHAR`, `TEXT`), which a phrase does not take.
fn is_phrase_type_word(word: &str) -> bool {
    crate::create_table::TYPE_WORDS.contains(&word)
        && !matches!(word, "LONG" | "TEXT" | "BLOB" | "CLOB" | "JSON" | "XML")
}

/// Words after which `(` opens a list, a subquery or arguments, never a phrase.
const NOT_OPERANDS: &[&str] = &[
    "ALL",
    "AND",
    "ANY",
    "AS",
    "AT",
    "BETWEEN",
    "BY",
    "CALL",
    "CASE",
    "CHECK",
    "DEFAULT",
    "DISTINCT",
    "DO",
    "ELSE",
    "EXCEPT",
    "EXEC",
    "EXECUTE",
    "EXISTS",
    "FROM",
    "FUNCTION",
    "HAVING",
    "IN",
    "INDEX",
    "INTERSECT",
    "INTERVAL",
    "INTO",
    "IS",
    "JOIN",
    "LIKE",
    "MACRO",
    "MINUS",
    "NEW",
    "NOT",
    "ON",
    "OR",
    "OVER",
    "OVERLAPS",
    "PARTITION",
    "PERIOD",
    "PROCEDURE",
    "QUALIFY",
    "RETURN",
    "RETURNS",
    "SAMPLE",
    "SEL",
    "SELECT",
    "SET",
    "SOME",
    "TABLE",
    "THEN",
    "TO",
    "TOP",
    "TYPE",
    "UNION",
    "USING",
    "VALUES",
    "VIEW",
    "WHEN",
    "WHERE",
    "WITH",
];

/// What one attribute of a phrase is, judged from its tokens.
#[derive(PartialEq)]
enum Kind {
    /// FORMAT, TITLE or NAMED with something after it: only ever a phrase
    Sure,
    /// a data type that is no value or column name (`INTEGER`, `CHAR(8)`)
    Type,
    /// UPPERCASE, CASESPECIFIC, NOT CASESPECIFIC, NOT CS
    Attribute,
    /// a word that may also be a value or a column's name: `DATE`, `TIME`, `NUMBER`, `BYTE`,
    /// `VARBYTE` (data types) and `UC`, `CS` (attributes)
    Ambiguous { data_type: bool },
}

fn attribute_kind(item: &[TokenWithSpan]) -> Option<Kind> {
    let first = upper(&item.first()?.token)?;
    match first.as_str() {
        // reserved words in Teradata: a malformed phrase is a syntax error, not a call (but
        // `UPPER(title)` alone stays a call, as other databases allow such column names)
        "FORMAT" | "TITLE" | "NAMED" => (item.len() >= 2).then_some(Kind::Sure),
        "UPPERCASE" | "CASESPECIFIC" if item.len() == 1 => Some(Kind::Attribute),
        "UC" | "CS" if item.len() == 1 => Some(Kind::Ambiguous { data_type: false }),
        "NOT" => (item.len() == 2
            && matches!(
                upper(&item[1].token).as_deref(),
                Some("CASESPECIFIC" | "CS")
            ))
        .then_some(Kind::Attribute),
        "DATE" | "TIME" | "NUMBER" | "BYTE" | "VARBYTE" if item.len() == 1 => {
            Some(Kind::Ambiguous { data_type: true })
        }
        "DOUBLE" => (item.len() == 2 && upper(&item[1].token).as_deref() == Some("PRECISION"))
            .then_some(Kind::Type),
        t if is_phrase_type_word(t) => {
            // the type word, then at most one parenthesised list of numbers
            let rest = &item[1..];
            let ok = rest.is_empty()
                || (rest.first().map(|t| &t.token) == Some(&Token::LParen)
                    && rest.last().map(|t| &t.token) == Some(&Token::RParen)
                    && rest[1..rest.len() - 1]
                        .iter()
                        .all(|t| matches!(t.token, Token::Number(..) | Token::Comma)));
            ok.then_some(Kind::Type)
        }
        _ => None,
    }
}

/// Whether the token before a `(` can end an expression that a phrase without FORMAT, TITLE
/// or NAMED applies to; after a name, `ambiguous` words (`f(DATE)`, `SUM(number)`) are a call.
fn ends_operand(tok: &Token, ambiguous: bool) -> bool {
    match tok {
        Token::RParen
        | Token::Number(..)
        | Token::SingleQuotedString(_)
        | Token::NationalStringLiteral(_)
        | Token::HexStringLiteral(_)
        | Token::Placeholder(_) => true,
        Token::Word(w) if ambiguous => {
            w.quote_style.is_none() && {
                // `DATE (DATE)` is no call: DATE and TIME are values
                let u = w.value.to_ascii_uppercase();
                u == "DATE" || u == "TIME" || u == "CURRENT_DATE" || u == "CURRENT_TIME"
            }
        }
        Token::Word(w) => {
            w.quote_style.is_some()
                || !NOT_OPERANDS.contains(&w.value.to_ascii_uppercase().as_str())
        }
        _ => false,
    }
}

/// Whether the `(` at `i` (with its matching `)` at `close`) opens a data attribute phrase.
pub(crate) fn is_phrase(toks: &[TokenWithSpan], i: usize, close: usize) -> bool {
    if i == 0 || close <= i + 1 {
        return false;
    }
    let mut kinds = Vec::new();
    let mut depth = 0usize;
    let mut start = i + 1;
    for k in i + 1..=close {
        match toks[k].token {
            Token::LParen => depth += 1,
            Token::RParen if depth > 0 => depth -= 1,
            Token::Comma | Token::RParen if depth == 0 => {
                match attribute_kind(&toks[start..k]) {
                    Some(kind) => kinds.push(kind),
                    None => return false,
                }
                start = k + 1;
            }
            _ => {}
        }
    }
    if kinds.contains(&Kind::Sure) {
        return true;
    }
    let types = kinds
        .iter()
        .filter(|k| matches!(k, Kind::Type | Kind::Ambiguous { data_type: true }))
        .count();
    if types > 1 {
        // `COALESCE(DATE, DATE)`, `INS log (DATE, TIME)`: a phrase has one data type
        return false;
    }
    let ambiguous = kinds.iter().any(|k| matches!(k, Kind::Ambiguous { .. }));
    ends_operand(&toks[i - 1].token, ambiguous)
}

/// Parses a phrase after its `MARKER` (already peeked) and applies it to `expr`.
pub(crate) fn parse(parser: &mut Parser, expr: &Expr) -> Result<Expr, ParserError> {
    parser.next_token();
    let (mut format, mut title, mut named, mut ty, mut uppercase) = (None, None, None, None, false);
    let mut case_specific = None;
    loop {
        let tok = parser.peek_token();
        match upper(&tok.token).as_deref() {
            Some("FORMAT") => {
                parser.next_token();
                format = Some(parser.parse_literal_string()?);
            }
            Some("TITLE") => {
                parser.next_token();
                title = Some(parser.parse_literal_string()?);
            }
            Some("NAMED") => {
                parser.next_token();
                named = Some(parser.parse_identifier()?);
            }
            Some("UPPERCASE") | Some("UC") => {
                parser.next_token();
                uppercase = true;
            }
            Some("CASESPECIFIC") | Some("CS") => {
                parser.next_token();
                case_specific = Some(CASESPECIFIC);
            }
            Some("NOT") => {
                parser.next_token();
                parser.next_token(); // CASESPECIFIC or CS, as `is_phrase` checked
                case_specific = Some(NOT_CASESPECIFIC);
            }
            _ if ty.is_some() => return parser.expected("one data type in a phrase", tok),
            _ => ty = Some(parser.parse_data_type()?),
        }
        if !parser.consume_token(&Token::Comma) {
            parser.expect_token(&Token::RParen)?;
            break;
        }
    }
    let format =
        format.map(|f| CastFormat::Value(ValueWithSpan::from(Value::SingleQuotedString(f))));
    // the phrases may come in any order (`x (NAMED n) (UPPERCASE)` is `x (UPPERCASE, NAMED
    // n)`): a NAMED or TITLE of an earlier phrase stays the item's, outside this phrase's
    // conversions; this phrase's own NAMED or TITLE wins over the earlier one
    let (mut out, earlier_name, earlier_title) = names_and_titles(expr);
    let named = named.or(earlier_name);
    let title = title.or(earlier_title);
    match (ty, format) {
        (Some(data_type), format) => {
            out = Expr::Cast {
                // sqlparser prints a `::` cast without its FORMAT: that one stays a CAST (its
                // FORMAT is the target type's, where the two syntaxes agree)
                kind: if format.is_some() {
                    CastKind::Cast
                } else {
                    CastKind::DoubleColon
                },
                expr: Box::new(out),
                data_type,
                format,
            };
        }
        (None, Some(CastFormat::Value(f))) => {
            out = call(
                Ident::with_quote('"', FORMAT_FUNCTION),
                vec![out, Expr::Value(f)],
            );
        }
        (None, _) => {}
    }
    if uppercase {
        out = call(Ident::new("UPPER"), vec![out]);
    }
    if let Some(c) = case_specific {
        out = Expr::Collate {
            expr: Box::new(out),
            collation: ObjectName::from(vec![Ident::new(c)]),
        };
    }
    if let Some(name) = named {
        out = Expr::Named {
            expr: Box::new(out),
            name,
        };
    }
    if let Some(t) = title {
        out = call(
            Ident::with_quote('"', TITLE_FUNCTION),
            vec![out, Expr::value(Value::SingleQuotedString(t))],
        );
    }
    Ok(out)
}

/// `e` without the NAMED and TITLE phrases around it, and the (outermost) name and title
/// they give.
fn names_and_titles(e: &Expr) -> (Expr, Option<Ident>, Option<String>) {
    let (mut core, mut name, mut label) = (e, None, None);
    loop {
        if let Some((inner, t)) = title(core) {
            label = label.or_else(|| Some(t.to_string()));
            core = inner;
        } else if let Expr::Named { expr, name: n } = core {
            name = name.or_else(|| Some(n.clone()));
            core = expr;
        } else {
            return (core.clone(), name, label);
        }
    }
}

/// The call `name(args…)`, as sqlparser parses one.
pub fn call(name: Ident, args: Vec<Expr>) -> Expr {
    Expr::Function(Function {
        name: ObjectName::from(vec![name]),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(FunctionArgumentList {
            duplicate_treatment: None,
            args: args
                .into_iter()
                .map(|a| FunctionArg::Unnamed(FunctionArgExpr::Expr(a)))
                .collect(),
            clauses: vec![],
        }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: vec![],
    })
}

/// A FORMAT phrase's expression and format: `"tdlite format"(expr, 'f')` ([`FORMAT_FUNCTION`]),
/// or `CAST(expr AS FORMAT 'f')` where the parse left it as a cast (an expression parsed
/// outside a statement's visitors).
pub fn format_phrase(e: &Expr) -> Option<(&Expr, &str)> {
    marker_call(e, FORMAT_FUNCTION).or_else(|| format_cast(e))
}

/// `CAST(x AS FORMAT 'f')` as the token rewrite leaves it: a cast to the type named
/// [`FORMAT_FUNCTION`].
fn format_cast(e: &Expr) -> Option<(&Expr, &str)> {
    let Expr::Cast {
        expr,
        data_type: DataType::Custom(name, modifiers),
        format: Some(CastFormat::Value(f)),
        ..
    } = e
    else {
        return None;
    };
    let [part] = name.0.as_slice() else {
        return None;
    };
    let ident = part.as_ident()?;
    if ident.value != FORMAT_FUNCTION || ident.quote_style != Some('"') || !modifiers.is_empty() {
        return None;
    }
    match &f.value {
        Value::SingleQuotedString(f) => Some((expr, f)),
        _ => None,
    }
}

/// A TITLE phrase's expression and title: `"tdlite title"(expr, 't')` ([`TITLE_FUNCTION`]).
pub fn title(e: &Expr) -> Option<(&Expr, &str)> {
    marker_call(e, TITLE_FUNCTION)
}

/// The operands of `"name"(expr, 'text')`, the call a phrase became.
fn marker_call<'a>(e: &'a Expr, name: &str) -> Option<(&'a Expr, &'a str)> {
    let Expr::Function(f) = e else {
        return None;
    };
    let [part] = f.name.0.as_slice() else {
        return None;
    };
    let ident = part.as_ident()?;
    if ident.value != name || ident.quote_style != Some('"') {
        return None;
    }
    let FunctionArguments::List(list) = &f.args else {
        return None;
    };
    let [FunctionArg::Unnamed(FunctionArgExpr::Expr(x)), FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(t)))] =
        list.args.as_slice()
    else {
        return None;
    };
    match &t.value {
        Value::SingleQuotedString(t) => Some((x, t)),
        _ => None,
    }
}

/// Makes every `CAST(x AS FORMAT 'f')` in `v` the FORMAT phrase's call it stands for
/// ([`name_select_items`] does it too).
pub(crate) fn format_casts_as_phrases<V: VisitMut>(v: &mut V) {
    let _ = sqlparser::ast::visit_expressions_mut(v, |e| {
        if let Some(phrase) = format_cast_as_phrase(e) {
            *e = phrase;
        }
        ControlFlow::<()>::Continue(())
    });
}

/// `CAST(x AS FORMAT 'f')`, which the token rewrite turned into a cast to the type named
/// [`FORMAT_FUNCTION`], as the FORMAT phrase's call.
fn format_cast_as_phrase(e: &Expr) -> Option<Expr> {
    let (x, f) = format_cast(e)?;
    Some(call(
        Ident::with_quote('"', FORMAT_FUNCTION),
        vec![
            x.clone(),
            Expr::value(Value::SingleQuotedString(f.to_string())),
        ],
    ))
}

/// `e` with every TITLE and FORMAT phrase replaced by its expression (for headings and
/// comparisons: both change how a value is shown, not the value).
pub fn without_display_phrases(e: &Expr) -> Expr {
    let mut e = e.clone();
    let _ = sqlparser::ast::visit_expressions_mut(&mut e, |x| {
        while let Some((inner, _)) = title(x).or_else(|| format_phrase(x)) {
            *x = inner.clone();
        }
        ControlFlow::<()>::Continue(())
    });
    e
}

/// Turns the outermost NAMED phrase of each select item into the item's alias (`AS` wins
/// over NAMED when both are written), in every query of `stmt`, drops the other NAMED
/// phrases, and makes each `CAST(x AS FORMAT 'f')` the FORMAT phrase it stands for.
pub(crate) fn name_select_items<V: VisitMut>(stmt: &mut V) {
    struct Namer;
    impl VisitorMut for Namer {
        type Break = ();
        fn pre_visit_query(&mut self, q: &mut Query) -> ControlFlow<()> {
            name_in(&mut q.body);
            ControlFlow::Continue(())
        }
        fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
            // a NAMED phrase anywhere else names nothing (and would not print back)
            if let Expr::Named { expr, .. } = e {
                *e = (**expr).clone();
            } else if let Some(phrase) = format_cast_as_phrase(e) {
                *e = phrase;
            } else if let Expr::Function(f) = e {
                // `SUM(SELECT …)` is `SUM((SELECT …))` (see the dialect)
                if let FunctionArguments::Subquery(q) = &f.args {
                    f.args = FunctionArguments::List(FunctionArgumentList {
                        duplicate_treatment: None,
                        args: vec![FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Subquery(
                            q.clone(),
                        )))],
                        clauses: vec![],
                    });
                }
            }
            ControlFlow::Continue(())
        }
    }
    let _ = stmt.visit(&mut Namer);
    // the legacy OLAP functions' GROUP BY rule needs the parsed query too
    crate::legacy_olap::group_by_partitions(stmt);
}

fn name_in(body: &mut SetExpr) {
    match body {
        SetExpr::Select(s) => name_items(&mut s.projection),
        SetExpr::SetOperation { left, right, .. } => {
            name_in(left);
            name_in(right);
        }
        _ => {}
    }
}

/// [`name_select_items`] for one select list.
pub(crate) fn name_items(projection: &mut [SelectItem]) {
    for item in projection {
        if let SelectItem::UnnamedExpr(e) = item {
            if let Some(name) = take_named(e) {
                *item = SelectItem::ExprWithAlias {
                    expr: e.clone(),
                    alias: name,
                };
            }
        } else if let SelectItem::ExprWithAlias { expr, .. } = item {
            // `x (NAMED a) AS b`: b names it; the NAMED phrase goes
            let _ = take_named(expr);
        }
    }
}

/// Removes the outermost NAMED phrase from `e` (looking through TITLE phrases) and returns
/// its name.
fn take_named(e: &mut Expr) -> Option<Ident> {
    if title(e).is_some() {
        let Expr::Function(f) = e else { return None };
        let FunctionArguments::List(list) = &mut f.args else {
            return None;
        };
        return match list.args.first_mut() {
            Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(x))) => take_named(x),
            _ => None,
        };
    }
    match e {
        Expr::Named { expr, name } => {
            let (inner, name) = ((**expr).clone(), name.clone());
            *e = inner;
            Some(name)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::statement::Statement;

    /// The statement as sqlparser prints it after tdlite parsed it.
    fn parsed(sql: &str) -> String {
        match crate::parse_statement_text(sql).unwrap().statement {
            Statement::Sql(s) => s.to_string(),
            other => panic!("{sql}: {other:?}"),
        }
    }

    #[test]
    fn phrases_become_casts_names_and_titles() {
        assert_eq!(
            parsed("SEL x (INTEGER), '1' (DATE, FORMAT 'YYYY'), y (TITLE 'T') FROM t"),
            "SELECT x::INTEGER, CAST('1' AS DATE FORMAT 'YYYY'), \"tdlite title\"(y, 'T') FROM t"
        );
        assert_eq!(
            parsed("SEL x (NAMED a, TITLE 'T'), z (NAMED b) AS c FROM t"),
            "SELECT \"tdlite title\"(x, 'T') AS a, z AS c FROM t"
        );
        assert_eq!(
            parsed("SEL DATE (FORMAT 'YYYY') (CHAR(4)), n (NOT CS), n (UPPERCASE) FROM t"),
            "SELECT \"tdlite format\"((DATE), 'YYYY')::CHAR(4), \
             n COLLATE NOT_CASESPECIFIC, UPPER(n) FROM t"
        );
        // VALUES-less INSERT with a phrase inside; NAMED away from the select list's top
        assert_eq!(
            parsed("INS t ('20260101' (DATE, FORMAT 'YYYYMMDD'), 1 (NAMED a))"),
            "INSERT INTO t VALUES (CAST('20260101' AS DATE FORMAT 'YYYYMMDD'), 1)"
        );
        assert_eq!(
            parsed("SEL x FROM t WHERE x (NAMED y) > 1 AND (z) (CS) = 'a' AND z (CS) = 'b'"),
            "SELECT x FROM t WHERE x > 1 AND (z) COLLATE CASESPECIFIC = 'a' AND z(CS) = 'b'"
        );
    }

    #[test]
    fn format_phrases_print_as_calls_that_read_back_the_same() {
        let once =
            parsed("SEL CAST(d AS FORMAT 'YYYY'), d (FORMAT 'MM') (CHAR(2)), n (CHAR(3)) FROM t");
        assert_eq!(
            once,
            "SELECT \"tdlite format\"(d, 'YYYY'), \"tdlite format\"(d, 'MM')::CHAR(2), n::CHAR(3) FROM t"
        );
        assert_eq!(parsed(&once), once);
    }

    #[test]
    fn parentheses_that_are_no_phrase_keep_their_meaning() {
        for sql in [
            "SELECT f(DATE) FROM t",
            "SELECT f(TIME), g(DATE, 1) FROM t",
            "SELECT x FROM t WHERE x IN (DATE)",
            "INSERT INTO t VALUES (DATE)",
            "SELECT CAST(x AS PERIOD(DATE)) FROM t",
            "SELECT CAST(x AS DECIMAL(10,2)) FROM t",
            "SELECT (x) FROM t WHERE (y) = 1 AND (INTEGER) = 2",
            "INSERT INTO log (DATE, TIME) VALUES (1, 2)",
            "SELECT COALESCE(DATE, DATE), MONTHS_BETWEEN(DATE, DATE) FROM t",
            "SELECT SUM(number), MAX(cs), MIN(uc), UPPER(title), f(named), g(format) FROM t",
            "INSERT INTO t (number) VALUES (1)",
            "SELECT x FROM t SAMPLE (10)",
        ] {
            assert_eq!(parsed(sql), sql, "{sql}");
        }
    }

    #[test]
    fn malformed_phrases_are_syntax_errors() {
        for sql in [
            "SEL x (FORMAT 5) FROM t",
            "SEL x (FORMAT 'a', TITLE) FROM t",
            "SEL x (TITLE 'a' 'b') FROM t",
            "SEL x (NAMED 5) FROM t",
            "SEL x (INTEGER, CHAR(3), FORMAT '9') FROM t",
            "SEL 1 (INTEGER, CHAR(3)) FROM t",
        ] {
            let e = crate::parse_statement_text(sql).unwrap_err();
            assert_eq!(e.code(), 3706, "{sql}: {e}");
        }
    }
}
