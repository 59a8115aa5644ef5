//! `TRANSLATE(x USING source_TO_target [WITH ERROR])` (SQL Functions, Expressions, and
//! Predicates, TRANSLATE): a character set conversion. sqlparser reads no `USING` in a call,
//! so the tokens become `TRANSLATE(x, 'source_TO_target [WITH ERROR]')`, a call of two
//! arguments that the binder reads (Oracle's TRANSLATE has three).
//!
//! Invariant: only a `TRANSLATE (` whose parenthesis holds `USING` at its own depth is
//! rewritten, and the expression before `USING` is kept token for token.

use crate::parser::unquoted_upper;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// Rewrites every `TRANSLATE ( … USING name [WITH ERROR] )`.
pub(crate) fn rewrite(toks: &mut Vec<TokenWithSpan>) {
    let mut i = 0;
    while i + 1 < toks.len() {
        let opens = unquoted_upper(&toks[i].token).as_deref() == Some("TRANSLATE")
            && toks[i + 1].token == Token::LParen;
        if opens {
            if let Some((using, close)) = using_at(toks, i + 1) {
                let words: Vec<String> = toks[using + 1..close]
                    .iter()
                    .filter(|t| !matches!(t.token, Token::Whitespace(_)))
                    .map(|t| t.token.to_string())
                    .collect();
                let text = words.join(" ").to_ascii_uppercase();
                let span = toks[using].span;
                let at = |token| TokenWithSpan { token, span };
                toks.splice(
                    using..close,
                    [at(Token::Comma), at(Token::SingleQuotedString(text))],
                );
            }
        }
        i += 1;
    }
}

/// The `USING` directly inside the parenthesis opened at `open`, and the position of the
/// parenthesis that closes it.
fn using_at(toks: &[TokenWithSpan], open: usize) -> Option<(usize, usize)> {
    let mut depth = 0usize;
    let mut using = None;
    for (k, t) in toks.iter().enumerate().skip(open) {
        match &t.token {
            Token::LParen => depth += 1,
            Token::RParen => {
                depth -= 1;
                if depth == 0 {
                    return using.map(|u| (u, k));
                }
            }
            other if depth == 1 && unquoted_upper(other).as_deref() == Some("USING") => {
                using = Some(k)
            }
            _ => {}
        }
    }
    None
}
