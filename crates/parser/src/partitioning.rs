//! `PARTITION BY` in CREATE TABLE (SQL Data Definition Language, "PARTITION BY", "RANGE_N",
//! "CASE_N"): how Teradata lays rows out, which tdlite does not copy, but also a constraint —
//! a row that falls in no partition is refused (5728, "Partitioning violation"). This module
//! reads the RANGE_N and CASE_N levels of a partitioning far enough to say which rows fall
//! in one; exec enforces it.
//!
//! - `RANGE_N(test BETWEEN start [AND end] [EACH size] [, start [AND end] [EACH size]]…
//!   [, NO RANGE [OR UNKNOWN]] [, UNKNOWN])`, where a bound may be `*` (unbounded) and a
//!   range without `AND end` reaches up to the next range's start;
//! - `CASE_N(condition, … [, NO CASE [OR UNKNOWN]] [, UNKNOWN])`.
//!
//! Other levels (an expression, COLUMN) are read past and give no constraint.
//!
//! Invariant: the tokens of a level are consumed whole, its closing parenthesis included,
//! whether or not the level is one this module reads.

use crate::cursor::Cursor;
use crate::error::ParseError;
use crate::parser::unquoted_upper;
use crate::statement::{Partitioning, RangeEnd, RangeSpec};
use sqlparser::ast;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// The levels of `PARTITION BY …` at the cursor (after the keywords), with the ones this
/// module reads parsed; the cursor ends after the partitioning.
///
/// # Errors
/// A syntax error in a RANGE_N or CASE_N level, or a partitioning of no known form.
pub(crate) fn parse(cur: &mut Cursor) -> Result<Vec<Partitioning>, ParseError> {
    let mut levels = Vec::new();
    if cur.eat_word("COLUMN") {
        cur.eat_words(&["ALL", "BUT"]);
        if cur.peek() == Some(&Token::LParen) {
            cur.skip_parens()?;
        }
    } else if cur.peek() == Some(&Token::LParen) {
        // several levels, each a RANGE_N, CASE_N, COLUMN or an expression
        let open = cur.pos;
        cur.skip_parens()?;
        for item in split_commas(&cur.toks[open + 1..cur.pos - 1]) {
            if let Some(level) = level(item, cur)? {
                levels.push(level);
            }
        }
    } else if matches!(cur.peek(), Some(Token::Word(_))) {
        let start = cur.pos;
        cur.pos += 1;
        if cur.peek() == Some(&Token::LParen) {
            cur.skip_parens()?;
        }
        if let Some(level) = level(&cur.toks[start..cur.pos], cur)? {
            levels.push(level);
        }
    } else {
        return Err(cur
            .unexpected("expected RANGE_N(…), CASE_N(…), COLUMN or a parenthesised partitioning"));
    }
    if cur.eat_word("ADD") {
        cur.number("the number of partitions to add")?;
    }
    Ok(levels)
}

/// One level's tokens (`RANGE_N ( … )`) as a constraint; `None` for a level of another form.
fn level(toks: &[TokenWithSpan], at: &Cursor) -> Result<Option<Partitioning>, ParseError> {
    let (Some(first), Some(Token::LParen), Some(Token::RParen)) = (
        toks.first().and_then(|t| unquoted_upper(&t.token)),
        toks.get(1).map(|t| &t.token),
        toks.last().map(|t| &t.token),
    ) else {
        return Ok(None);
    };
    let inner = &toks[2..toks.len() - 1];
    match first.as_str() {
        "RANGE_N" => range_n(inner, at).map(Some),
        "CASE_N" => case_n(inner, at).map(Some),
        _ => Ok(None),
    }
}

/// The inside of `RANGE_N( … )`.
fn range_n(toks: &[TokenWithSpan], at: &Cursor) -> Result<Partitioning, ParseError> {
    let between =
        top_level(toks, "BETWEEN").ok_or_else(|| at.unexpected("expected BETWEEN in RANGE_N"))?;
    let test = expr(&toks[..between], at)?;
    let mut ranges = Vec::new();
    let (mut no_range, mut unknown) = (false, false);
    for item in split_commas(&toks[between + 1..]) {
        match extra_partition(item, "RANGE") {
            Some((no, u)) => {
                no_range |= no;
                unknown |= u;
            }
            None => ranges.push(range(item, at)?),
        }
    }
    if ranges.is_empty() {
        return Err(at.unexpected("expected a range in RANGE_N"));
    }
    Ok(Partitioning::Range {
        test: Box::new(test),
        ranges,
        no_range,
        unknown,
    })
}

/// One range: `start [AND end] [EACH size]` (a bound may be `*`).
fn range(item: &[TokenWithSpan], at: &Cursor) -> Result<RangeSpec, ParseError> {
    let each = top_level(item, "EACH").unwrap_or(item.len());
    let bounds = &item[..each];
    if each < item.len() {
        expr(&item[each + 1..], at)?; // the size (required after EACH): only checked
    }
    let bound = |toks: &[TokenWithSpan]| -> Result<Option<ast::Expr>, ParseError> {
        match toks {
            [t] if t.token == Token::Mul => Ok(None),
            _ => expr(toks, at).map(Some),
        }
    };
    Ok(match top_level(bounds, "AND") {
        Some(and) => RangeSpec {
            start: bound(&bounds[..and])?,
            end: match bound(&bounds[and + 1..])? {
                Some(e) => RangeEnd::Inclusive(Box::new(e)),
                None => RangeEnd::Unbounded,
            },
        },
        None => RangeSpec {
            start: bound(bounds)?,
            end: RangeEnd::UntilNext,
        },
    })
}

/// The inside of `CASE_N( … )`.
fn case_n(toks: &[TokenWithSpan], at: &Cursor) -> Result<Partitioning, ParseError> {
    let mut conditions = Vec::new();
    let (mut no_case, mut unknown) = (false, false);
    for item in split_commas(toks) {
        match extra_partition(item, "CASE") {
            Some((no, u)) => {
                no_case |= no;
                unknown |= u;
            }
            None => conditions.push(expr(item, at)?),
        }
    }
    if conditions.is_empty() {
        return Err(at.unexpected("expected a condition in CASE_N"));
    }
    Ok(Partitioning::Case {
        conditions,
        no_case,
        unknown,
    })
}

/// `NO <kind>` (true, false), `NO <kind> OR UNKNOWN` (true, true) or `UNKNOWN` (false,
/// true): an item naming the extra partitions; `None` for any other item.
fn extra_partition(item: &[TokenWithSpan], kind: &str) -> Option<(bool, bool)> {
    let words: Vec<String> = item
        .iter()
        .map(|t| unquoted_upper(&t.token))
        .collect::<Option<_>>()?;
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["NO", k] if *k == kind => Some((true, false)),
        ["NO", k, "OR", "UNKNOWN"] if *k == kind => Some((true, true)),
        ["UNKNOWN"] => Some((false, true)),
        _ => None,
    }
}

/// An expression made of `toks` (with Teradata's spellings read as everywhere else).
fn expr(toks: &[TokenWithSpan], at: &Cursor) -> Result<ast::Expr, ParseError> {
    if toks.is_empty() {
        return Err(at.unexpected("expected an expression in the partitioning"));
    }
    let mut inner = toks.to_vec();
    crate::parser::rewrite_tokens(&mut inner);
    let mut sub = Cursor::new(inner, at.loc());
    let e = sub.with_sqlparser(|p| p.parse_expr())?;
    sub.expect_end()?;
    Ok(e)
}

/// The position of word `w` outside parentheses.
fn top_level(toks: &[TokenWithSpan], w: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, t) in toks.iter().enumerate() {
        match &t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            other if depth == 0 && unquoted_upper(other).as_deref() == Some(w) => return Some(i),
            _ => {}
        }
    }
    None
}

/// `toks` split at its commas outside parentheses.
pub(crate) fn split_commas(toks: &[TokenWithSpan]) -> Vec<&[TokenWithSpan]> {
    let mut out = Vec::new();
    let (mut start, mut depth) = (0, 0usize);
    for (i, t) in toks.iter().enumerate() {
        match t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            Token::Comma if depth == 0 => {
                out.push(&toks[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&toks[start..]);
    out
}

#[cfg(test)]
mod tests {
    use crate::statement::{Partitioning, RangeEnd, Statement};

    fn levels(sql: &str) -> Vec<Partitioning> {
        match &crate::parse_request(sql).unwrap()[0].statement {
            Statement::CreateTable(ct) => ct.partitioning.clone(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn range_n_reads_ranges_bounds_and_the_extra_partitions() {
        let l = levels(
            "CREATE TABLE t (d DATE, n INTEGER) PRIMARY INDEX (n) PARTITION BY RANGE_N(d BETWEEN \
             DATE '2024-01-01' AND DATE '2024-12-31' EACH INTERVAL '1' MONTH, NO RANGE OR UNKNOWN)",
        );
        let [Partitioning::Range {
            test,
            ranges,
            no_range: true,
            unknown: true,
        }] = l.as_slice()
        else {
            panic!("{l:?}");
        };
        assert_eq!(test.to_string(), "d");
        assert_eq!(ranges.len(), 1);
        assert!(
            matches!(&ranges[0].end, RangeEnd::Inclusive(e) if e.to_string() == "DATE '2024-12-31'")
        );
        let l = levels(
            "CREATE TABLE t (n INTEGER) PARTITION BY RANGE_N(n BETWEEN *, 10, 20 AND *, UNKNOWN)",
        );
        let [Partitioning::Range {
            ranges,
            no_range: false,
            unknown: true,
            ..
        }] = l.as_slice()
        else {
            panic!("{l:?}");
        };
        assert!(ranges[0].start.is_none());
        assert!(matches!(ranges[1].end, RangeEnd::UntilNext));
        assert!(matches!(ranges[2].end, RangeEnd::Unbounded));
    }

    #[test]
    fn case_n_and_several_levels() {
        let l = levels(
            "CREATE TABLE t (a INTEGER, d DATE) PARTITION BY (CASE_N(a < 10, a < 20 AND a > 0, NO CASE), \
             RANGE_N(d BETWEEN DATE '2024-01-01' AND DATE '2024-01-31' EACH INTERVAL '1' DAY), COLUMN)",
        );
        assert_eq!(l.len(), 2, "{l:?}");
        let Partitioning::Case {
            conditions,
            no_case: true,
            unknown: false,
        } = &l[0]
        else {
            panic!("{l:?}");
        };
        assert_eq!(conditions[1].to_string(), "a < 20 AND a > 0");
        // a level of another form gives no constraint
        assert!(levels("CREATE TABLE t (a INTEGER) PARTITION BY COLUMN").is_empty());
        assert!(
            crate::parse_request("CREATE TABLE t (a INTEGER) PARTITION BY RANGE_N(a 1 AND 2)")
                .is_err()
        );
    }
}
