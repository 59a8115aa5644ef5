//! Teradata's data attributes inside CAST: `CAST(x AS INTEGER NAMED n TITLE 't')`,
//! `CAST(s AS VARCHAR(9) UPPERCASE)`, `… NOT CASESPECIFIC` (SQL Functions, Expressions, and
//! Predicates, CAST: "data_attribute"). sqlparser reads a CAST's FORMAT only; the others are
//! moved out of the call as the attribute phrase they mean, `CAST(x AS INTEGER) (NAMED n,
//! TITLE 't')`, which phrase.rs reads. A FORMAT stays inside (it reads text by the format);
//! a CHARACTER SET is read and dropped (tdlite's text is Unicode).
//!
//! Invariant: tokens change only where every word after the first attribute is an attribute
//! this module knows (or a FORMAT string); anything else is left for the parser to judge.

use crate::parser::unquoted_upper;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// Rewrites every CAST with NAMED, TITLE, UPPERCASE or [NOT] CASESPECIFIC attributes.
pub(crate) fn rewrite(toks: &mut Vec<TokenWithSpan>) {
    let mut i = 0;
    while i + 1 < toks.len() {
        if unquoted_upper(&toks[i].token).as_deref() == Some("CAST")
            && toks[i + 1].token == Token::LParen
        {
            if let Some(new) = moved(toks, i) {
                let (end, tokens) = new;
                toks.splice(i..=end, tokens);
            }
        }
        i += 1;
    }
}

/// The tokens that replace `toks[at..=end]` (the CAST at `at` and its closing parenthesis),
/// with `end`; `None` when the CAST has no attribute to move.
fn moved(toks: &[TokenWithSpan], at: usize) -> Option<(usize, Vec<TokenWithSpan>)> {
    // the closing parenthesis, and the first AS at the call's own depth
    let (mut depth, mut as_at, mut end) = (0usize, None, None);
    for (k, t) in toks.iter().enumerate().skip(at + 1) {
        match &t.token {
            Token::LParen => depth += 1,
            Token::RParen => {
                depth -= 1;
                if depth == 0 {
                    end = Some(k);
                    break;
                }
            }
            _ if depth == 1
                && as_at.is_none()
                && unquoted_upper(&t.token).as_deref() == Some("AS") =>
            {
                as_at = Some(k)
            }
            _ => {}
        }
    }
    let (as_at, end) = (as_at?, end?);
    let word = |k: usize| unquoted_upper(&toks[k].token);
    // the first attribute at the call's depth after the type
    let mut depth = 0usize;
    let mut first = None;
    for k in as_at + 1..end {
        match toks[k].token {
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            _ if depth == 0 && is_attribute(toks, k) => {
                first = Some(k);
                break;
            }
            _ => {}
        }
    }
    let first = first?;
    // the attributes from there on, each a group; FORMAT 'f' stays in the call
    let mut kept = Vec::new();
    let mut groups: Vec<Vec<TokenWithSpan>> = Vec::new();
    let mut k = first;
    while k < end {
        let string_next = matches!(
            toks.get(k + 1).map(|t| &t.token),
            Some(Token::SingleQuotedString(_))
        );
        match word(k).as_deref() {
            Some("FORMAT") if string_next => {
                kept.extend_from_slice(&toks[k..k + 2]);
                k += 2;
            }
            Some("TITLE") if string_next => {
                groups.push(toks[k..k + 2].to_vec());
                k += 2;
            }
            Some("NAMED") if k + 1 < end && matches!(toks[k + 1].token, Token::Word(_)) => {
                groups.push(toks[k..k + 2].to_vec());
                k += 2;
            }
            Some("UPPERCASE" | "UC" | "CASESPECIFIC" | "CS") => {
                groups.push(vec![toks[k].clone()]);
                k += 1;
            }
            Some("NOT") if matches!(word(k + 1).as_deref(), Some("CASESPECIFIC" | "CS")) => {
                groups.push(toks[k..k + 2].to_vec());
                k += 2;
            }
            // CHARACTER SET LATIN|UNICODE: read and dropped (tdlite's text is Unicode, as
            // a CHARACTER SET of a column is)
            Some("CHARACTER") if word(k + 1).as_deref() == Some("SET") && k + 2 < end => {
                k += 3;
            }
            _ => return None,
        }
    }
    let span = toks[end].span;
    let at_span = |token| TokenWithSpan { token, span };
    let mut out: Vec<TokenWithSpan> = toks[at..first].to_vec();
    out.extend(kept);
    out.push(toks[end].clone());
    if groups.is_empty() {
        return Some((end, out));
    }
    out.push(at_span(Token::LParen));
    for (n, g) in groups.into_iter().enumerate() {
        if n > 0 {
            out.push(at_span(Token::Comma));
        }
        out.extend(g);
    }
    out.push(at_span(Token::RParen));
    Some((end, out))
}

/// Whether an attribute to move starts at `k`.
fn is_attribute(toks: &[TokenWithSpan], k: usize) -> bool {
    match unquoted_upper(&toks[k].token).as_deref() {
        Some("NAMED" | "TITLE" | "UPPERCASE" | "UC" | "CASESPECIFIC" | "CS") => true,
        Some("CHARACTER") => {
            toks.get(k + 1)
                .and_then(|t| unquoted_upper(&t.token))
                .as_deref()
                == Some("SET")
        }
        Some("NOT") => matches!(
            toks.get(k + 1)
                .and_then(|t| unquoted_upper(&t.token))
                .as_deref(),
            Some("CASESPECIFIC" | "CS")
        ),
        _ => false,
    }
}
