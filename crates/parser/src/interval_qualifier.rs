//! Teradata's interval qualifier after a parenthesized difference: `(d1 - d2) DAY(4)`,
//! `(ts1 - ts2) DAY(4) TO SECOND`, `(d1 - d2) MONTH` (SQL Date and Time Functions and
//! Expressions, "ANSI DateTime and Interval Expressions": a DATE or TIMESTAMP difference is an
//! interval of the fields the qualifier names). sqlparser would read the field as an alias; the
//! tokens become the call `"tdlite interval"((d1 - d2), 'DAY(4) TO SECOND')`
//! ([`INTERVAL_FUNCTION`]), which the binder reads.
//!
//! Invariant: only a `)` directly followed by YEAR, MONTH, DAY, HOUR, MINUTE or SECOND is
//! rewritten (Teradata reserves those words, so none is an alias there).

use crate::parser::unquoted_upper;
use sqlparser::tokenizer::{Token, TokenWithSpan, Word};

/// The call a qualified difference becomes.
pub const INTERVAL_FUNCTION: &str = "tdlite interval";

const FIELDS: [&str; 6] = ["YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND"];

/// Rewrites every `( … ) field [(p)] [TO field [(p)]]`.
///
/// The text of a heading with such a call in it reads back as written ([`as_written`]).
pub(crate) fn rewrite(toks: &mut Vec<TokenWithSpan>) {
    let mut i = 0;
    while i + 1 < toks.len() {
        if toks[i].token == Token::RParen && is_field(toks, i + 1) {
            if let (Some(open), Some((text, end))) = (opening(toks, i), qualifier(toks, i + 1)) {
                // the parenthesis must open an expression, not close a call's arguments
                let call = open > 0
                    && matches!(toks[open - 1].token, Token::Word(_))
                    && !is_operator_word(&toks[open - 1].token);
                if !call {
                    let span = toks[i].span;
                    let at = |token| TokenWithSpan { token, span };
                    let name = Token::Word(Word {
                        value: INTERVAL_FUNCTION.to_string(),
                        quote_style: Some('"'),
                        keyword: sqlparser::keywords::Keyword::NoKeyword,
                    });
                    let tail = [
                        at(Token::Comma),
                        at(Token::SingleQuotedString(text)),
                        at(Token::RParen),
                    ];
                    toks.splice(i + 1..end, tail);
                    toks.insert(open, at(Token::LParen));
                    toks.insert(open, at(name));
                    i += 4;
                    continue;
                }
            }
        }
        i += 1;
    }
}

/// Words before a `(` that make it an expression's parenthesis, not a call's.
fn is_operator_word(t: &Token) -> bool {
    matches!(
        unquoted_upper(t).as_deref(),
        Some(
            "SELECT"
                | "SEL"
                | "DISTINCT"
                | "ALL"
                | "AND"
                | "OR"
                | "NOT"
                | "WHERE"
                | "ON"
                | "WHEN"
                | "THEN"
                | "ELSE"
                | "HAVING"
                | "QUALIFY"
                | "BY"
                | "AS"
                | "IN"
                | "MOD"
                | "BETWEEN"
                | "RETURN"
                | "SET"
                | "VALUES"
                | "IS"
                | "LIKE"
                | "CASE"
                | "END"
        )
    )
}

fn is_field(toks: &[TokenWithSpan], k: usize) -> bool {
    toks.get(k)
        .and_then(|t| unquoted_upper(&t.token))
        .is_some_and(|w| FIELDS.contains(&w.as_str()))
}

/// The `(` that the `)` at `close` closes.
fn opening(toks: &[TokenWithSpan], close: usize) -> Option<usize> {
    let mut depth = 0usize;
    for k in (0..=close).rev() {
        match toks[k].token {
            Token::RParen => depth += 1,
            Token::LParen => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// The qualifier starting at `k` as text (`DAY(4) TO SECOND(6)`) and the token after it.
fn qualifier(toks: &[TokenWithSpan], mut k: usize) -> Option<(String, usize)> {
    let mut text = String::new();
    for part in 0..2 {
        let word = unquoted_upper(&toks.get(k)?.token)?;
        if !FIELDS.contains(&word.as_str()) {
            return None;
        }
        text.push_str(&word);
        k += 1;
        // (p) or (p, f): a parenthesis with a number in it (not a phrase after the qualifier)
        let number_next = matches!(toks.get(k + 1).map(|t| &t.token), Some(Token::Number(..)));
        if toks.get(k).map(|t| &t.token) == Some(&Token::LParen) && number_next {
            let mut inner = String::from("(");
            let mut j = k + 1;
            loop {
                match &toks.get(j)?.token {
                    Token::Number(n, _) => inner.push_str(n),
                    Token::Comma => inner.push(','),
                    Token::RParen => break,
                    _ => return None,
                }
                j += 1;
            }
            inner.push(')');
            text.push_str(&inner);
            k = j + 1;
        }
        let to = toks.get(k).and_then(|t| unquoted_upper(&t.token));
        if part == 0 && to.as_deref() == Some("TO") && is_field(toks, k + 1) {
            text.push_str(" TO ");
            k += 1;
        } else {
            break;
        }
    }
    Some((text, k))
}

/// `text` (an expression as sqlparser prints it) with every `"tdlite interval"((…), 'Q')` call
/// written back as `(…) Q`, the way it was written: for headings.
pub fn as_written(text: &str) -> String {
    let call = format!("\"{INTERVAL_FUNCTION}\"(");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(&call) {
        out.push_str(&rest[..at]);
        let args = &rest[at + call.len()..];
        // the first argument: a parenthesized difference, up to its matching `)`
        let mut depth = 0usize;
        let mut end = None;
        for (k, c) in args.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = Some(k + 1);
                        break;
                    }
                }
                _ => {}
            }
        }
        let tail = end.and_then(|e| {
            let q = args[e..].strip_prefix(", '")?;
            let close = q.find("')")?;
            Some((e, &q[..close], &q[close + 2..]))
        });
        match tail {
            Some((e, q, after)) => {
                out.push_str(&as_written(&args[..e]));
                out.push(' ');
                out.push_str(q);
                rest = after;
            }
            None => {
                out.push_str(&call);
                rest = args;
            }
        }
    }
    out.push_str(rest);
    out
}
