//! `TABLE (f(args) RETURNS (c1 type, c2 type, …)) AS d`: a table function in FROM
//! (STRTOK_SPLIT_TO_TABLE, REGEXP_SPLIT_TO_TABLE; SQL Functions, Expressions, and Predicates).
//! sqlparser reads `TABLE(<expr>)` but no RETURNS clause, so the tokens become
//! `TABLE ("tdlite returns"(f(args), 'c1 type', 'c2 type', …)) AS d`: the call first, then one
//! string per column the RETURNS clause declares, which the binder reads (exec
//! table_function.rs).
//!
//! Invariant: only a `TABLE (` whose parenthesis holds `RETURNS (` at its own depth is
//! rewritten; the call before RETURNS is kept token for token.

use crate::parser::unquoted_upper;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// The name of the call the rewrite wraps a table function in.
pub const RETURNS_CALL: &str = "tdlite returns";

/// Rewrites every `TABLE ( … RETURNS ( … ) )`.
pub(crate) fn rewrite(toks: &mut Vec<TokenWithSpan>) {
    let mut i = 0;
    while i < toks.len() {
        if unquoted_upper(&toks[i].token).as_deref() == Some("TABLE") {
            if let Some(open) = next_solid(toks, i + 1).filter(|&k| toks[k].token == Token::LParen)
            {
                if let Some((returns, defs_open, defs_close)) = returns_at(toks, open) {
                    let span = toks[returns].span;
                    let at = |token| TokenWithSpan { token, span };
                    let mut tail = Vec::new();
                    for def in column_defs(&toks[defs_open + 1..defs_close]) {
                        tail.push(at(Token::Comma));
                        tail.push(at(Token::SingleQuotedString(def)));
                    }
                    tail.push(at(Token::RParen));
                    toks.splice(returns..=defs_close, tail);
                    let head = [
                        at(Token::make_word(RETURNS_CALL, Some('"'))),
                        at(Token::LParen),
                    ];
                    toks.splice(open + 1..open + 1, head);
                }
            }
        }
        i += 1;
    }
}

/// The first token at or after `k` that is not white space.
fn next_solid(toks: &[TokenWithSpan], k: usize) -> Option<usize> {
    (k..toks.len()).find(|&j| !matches!(toks[j].token, Token::Whitespace(_)))
}

/// The `RETURNS` directly inside the parenthesis opened at `open`, with the parentheses
/// around its column list; `None` when there is none or the list does not end the
/// parenthesis.
fn returns_at(toks: &[TokenWithSpan], open: usize) -> Option<(usize, usize, usize)> {
    let mut depth = 0usize;
    let mut returns = None;
    let mut defs = None;
    for (k, t) in toks.iter().enumerate().skip(open) {
        match &t.token {
            Token::LParen => {
                depth += 1;
                if depth == 2 && returns.is_some() && defs.is_none() {
                    defs = Some((k, None));
                }
            }
            Token::RParen => {
                depth -= 1;
                match (depth, &mut defs) {
                    (0, _) => {
                        let (defs_open, defs_close) = defs?;
                        return Some((returns?, defs_open, defs_close?));
                    }
                    (1, Some((_, close @ None))) => *close = Some(k),
                    _ => {}
                }
            }
            Token::Whitespace(_) => {}
            other if depth == 1 && unquoted_upper(other).as_deref() == Some("RETURNS") => {
                returns = Some(k)
            }
            // anything after the column list's parenthesis: not the form this reads
            _ if depth == 1 && matches!(defs, Some((_, Some(_)))) => return None,
            _ => {}
        }
    }
    None
}

/// The column definitions of a RETURNS list, one text each (split at its own commas).
fn column_defs(toks: &[TokenWithSpan]) -> Vec<String> {
    crate::partitioning::split_commas(toks)
        .into_iter()
        .filter(|def| !def.is_empty())
        .map(|def| {
            let words: Vec<String> = def.iter().map(|t| t.token.to_string()).collect();
            words.join(" ")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::parse_request;
    use crate::statement::Statement;

    fn text(sql: &str) -> String {
        match &parse_request(sql).unwrap()[0].statement {
            Statement::Sql(s) => s.to_string(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_returns_clause_becomes_strings_after_the_call() {
        let sql = "SELECT * FROM TABLE (STRTOK_SPLIT_TO_TABLE(t.id, t.s, ',') \
                   RETURNS (outkey INTEGER, tokennum INTEGER, \"tok\" VARCHAR(20) CHARACTER SET UNICODE)) AS d";
        let text = text(sql);
        assert!(
            text.contains(
                "TABLE(\"tdlite returns\"(STRTOK_SPLIT_TO_TABLE(t.id, t.s, ','), \
                 'outkey INTEGER', 'tokennum INTEGER', '\"tok\" VARCHAR ( 20 ) CHARACTER SET UNICODE')) AS d"
            ),
            "{text}"
        );
    }

    #[test]
    fn a_table_call_without_returns_is_left_alone() {
        assert!(text("SELECT * FROM TABLE (f(1)) AS d").contains("TABLE(f(1)) AS d"));
    }
}
