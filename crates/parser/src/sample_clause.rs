//! Teradata's SAMPLE clause where Teradata writes it: at the end of a query block, after
//! WHERE, GROUP BY, HAVING and QUALIFY (`SELECT … FROM t WHERE x > 0 SAMPLE 10`). sqlparser
//! reads SAMPLE only as a table sample right after a FROM item, and the engine applies the
//! sample of a block's first FROM item to the block's result (after all those clauses, as
//! Teradata does; see exec's sample.rs), so a clause later in a block moves to just after
//! its first FROM item (a table or a derived table, with or without an alias), also when
//! joins or more items follow it.
//!
//! The clause is also put in a form sqlparser reads: `SAMPLE n` stays; `SAMPLE a, b, …`
//! becomes `SAMPLE ((a, b, …))`; `SAMPLE [WITH REPLACEMENT] [RANDOMIZED ALLOCATION] sizes` and
//! the stratified `SAMPLE … WHEN c THEN sizes … [ELSE sizes] END` become
//! `SAMPLE ("tdlite sample"(r, a, body))` ([`SAMPLE_FUNCTION`]), with `r` and `a` 1 or 0 for
//! the two options and `body` the sizes as `(a, b, …)` or `CASE WHEN c THEN (sizes) … END`.
//!
//! Invariant: only within one query block (the same parenthesis depth) are tokens moved.

use crate::parser::unquoted_upper;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// Words that end a FROM item and its alias.
const CLAUSES: [&str; 11] = [
    "WHERE", "GROUP", "HAVING", "QUALIFY", "SAMPLE", "JOIN", "INNER", "LEFT", "RIGHT", "FULL",
    "CROSS",
];

/// The call an extended SAMPLE clause's sizes become (see the module).
pub const SAMPLE_FUNCTION: &str = "tdlite sample";

/// Puts each SAMPLE clause in sqlparser's form, just after its block's first FROM item (see
/// the module).
pub(crate) fn move_sample_clauses(toks: &mut Vec<TokenWithSpan>) {
    let mut i = 0;
    while i < toks.len() {
        let Some(end) = clause_end(toks, i) else {
            i += 1;
            continue;
        };
        let clause = canonical(&toks[i..end]);
        let len = clause.len();
        toks.splice(i..end, clause);
        let end = i + len;
        if let Some(target) = insertion_point(toks, i) {
            let clause: Vec<TokenWithSpan> = toks.drain(i..end).collect();
            toks.splice(target..target, clause);
        }
        // the token that followed the clause is at `end` again either way
        i = end;
    }
}

fn word(t: Option<&TokenWithSpan>) -> Option<String> {
    t.and_then(|t| unquoted_upper(&t.token))
}

/// One past the SAMPLE clause at `i`, if one starts there: `SAMPLE [WITH REPLACEMENT]
/// [RANDOMIZED ALLOCATION]` and sizes (`n [, m]…`) or `WHEN … END`.
fn clause_end(toks: &[TokenWithSpan], i: usize) -> Option<usize> {
    if word(toks.get(i)).as_deref() != Some("SAMPLE")
        || !ends_a_clause(i.checked_sub(1).and_then(|k| toks.get(k)))
    {
        return None;
    }
    let mut j = i + 1;
    if word(toks.get(j)).as_deref() == Some("WITH")
        && word(toks.get(j + 1)).as_deref() == Some("REPLACEMENT")
    {
        j += 2;
    }
    if word(toks.get(j)).as_deref() == Some("RANDOMIZED")
        && word(toks.get(j + 1)).as_deref() == Some("ALLOCATION")
    {
        j += 2;
    }
    match toks.get(j).map(|t| &t.token) {
        Some(Token::Number(..)) => Some(sizes_end(toks, j)),
        _ if word(toks.get(j)).as_deref() == Some("WHEN") => {
            // to the END that closes it, at the same depth
            let mut depth = 0i32;
            let mut cases = 0usize;
            for (k, t) in toks.iter().enumerate().skip(j) {
                match &t.token {
                    Token::LParen => depth += 1,
                    Token::RParen if depth == 0 => return None,
                    Token::RParen => depth -= 1,
                    _ if depth == 0 => match word(Some(t)).as_deref() {
                        Some("CASE") => cases += 1,
                        Some("END") if cases > 0 => cases -= 1,
                        Some("END") => return Some(k + 1),
                        _ => {}
                    },
                    _ => {}
                }
            }
            None
        }
        _ => None,
    }
}

/// Whether `prev`, the token before a SAMPLE, can end what a SAMPLE clause follows (a FROM
/// item, a condition, a GROUP BY list): a name, a literal or a `)`, but not a word that wants
/// an operand after it (`CASE sample WHEN …` names a column).
fn ends_a_clause(prev: Option<&TokenWithSpan>) -> bool {
    match prev.map(|t| &t.token) {
        Some(Token::Number(..) | Token::SingleQuotedString(_) | Token::RParen) => true,
        Some(Token::Word(w)) => {
            w.quote_style.is_some()
                || !matches!(
                    w.value.to_ascii_uppercase().as_str(),
                    "CASE"
                        | "WHEN"
                        | "THEN"
                        | "ELSE"
                        | "AND"
                        | "OR"
                        | "NOT"
                        | "SELECT"
                        | "SEL"
                        | "DISTINCT"
                        | "BY"
                        | "ON"
                        | "IS"
                        | "IN"
                        | "LIKE"
                        | "BETWEEN"
                        | "AS"
                )
        }
        _ => false,
    }
}

/// One past the sizes at `j`: `n [, m]…`.
fn sizes_end(toks: &[TokenWithSpan], j: usize) -> usize {
    let mut end = j + 1;
    while toks.get(end).map(|t| &t.token) == Some(&Token::Comma)
        && matches!(toks.get(end + 1).map(|t| &t.token), Some(Token::Number(..)))
    {
        end += 2;
    }
    end
}

/// The clause `toks` (from SAMPLE to its end) in the form sqlparser reads (see the module).
fn canonical(toks: &[TokenWithSpan]) -> Vec<TokenWithSpan> {
    let at = |token, k: usize| TokenWithSpan {
        token,
        span: toks[k.min(toks.len() - 1)].span,
    };
    let mut j = 1;
    let replacement = word(toks.get(j)).as_deref() == Some("WITH");
    if replacement {
        j += 2;
    }
    let randomized = word(toks.get(j)).as_deref() == Some("RANDOMIZED");
    if randomized {
        j += 2;
    }
    let stratified = word(toks.get(j)).as_deref() == Some("WHEN");
    let several = toks.len() > j + 1;
    if !replacement && !randomized && !stratified {
        if !several {
            return toks.to_vec();
        }
        // `SAMPLE ((a, b, …))`
        let mut out = vec![toks[0].clone(), at(Token::LParen, 1), at(Token::LParen, 1)];
        out.extend(toks[1..].iter().cloned());
        out.extend([at(Token::RParen, toks.len()), at(Token::RParen, toks.len())]);
        return out;
    }
    let flag = |on: bool, k| at(Token::Number(if on { "1" } else { "0" }.into(), false), k);
    let mut out = vec![
        toks[0].clone(),
        at(Token::LParen, 1),
        at(
            Token::Word(sqlparser::tokenizer::Word {
                value: SAMPLE_FUNCTION.to_string(),
                quote_style: Some('"'),
                keyword: sqlparser::keywords::Keyword::NoKeyword,
            }),
            1,
        ),
        at(Token::LParen, 1),
        flag(replacement, 1),
        at(Token::Comma, 1),
        flag(randomized, 1),
        at(Token::Comma, 1),
    ];
    if stratified {
        // `CASE WHEN c THEN (sizes) … ELSE (sizes) END`: each size list in parentheses (the
        // THEN and ELSE of the clause itself, not of a CASE or a parenthesis in a condition)
        out.push(at(Token::make_keyword("CASE"), j));
        let (mut k, mut depth, mut cases) = (j, 0i32, 0usize);
        while k < toks.len() {
            let w = word(toks.get(k));
            match (&toks[k].token, w.as_deref()) {
                (Token::LParen, _) => depth += 1,
                (Token::RParen, _) => depth -= 1,
                (_, Some("CASE")) => cases += 1,
                (_, Some("END")) if cases > 0 => cases -= 1,
                _ => {}
            }
            out.push(toks[k].clone());
            let sizes_follow = matches!(toks.get(k + 1).map(|t| &t.token), Some(Token::Number(..)));
            if depth == 0
                && cases == 0
                && matches!(w.as_deref(), Some("THEN" | "ELSE"))
                && sizes_follow
            {
                let end = sizes_end(toks, k + 1).min(toks.len());
                out.push(at(Token::LParen, k + 1));
                out.extend(toks[k + 1..end].iter().cloned());
                out.push(at(Token::RParen, end));
                k = end;
                continue;
            }
            k += 1;
        }
    } else {
        out.push(at(Token::LParen, j));
        out.extend(toks[j..].iter().cloned());
        out.push(at(Token::RParen, toks.len()));
    }
    out.extend([at(Token::RParen, toks.len()), at(Token::RParen, toks.len())]);
    out
}

/// Where the SAMPLE clause at `i` goes: just after the first FROM item of its block, when a
/// clause (WHERE, GROUP BY, HAVING, QUALIFY), a join or another item stands between them;
/// None otherwise.
fn insertion_point(toks: &[TokenWithSpan], i: usize) -> Option<usize> {
    // back to the block's FROM, at the clause's own depth
    let mut depth = 0i32;
    let mut from = None;
    for k in (0..i).rev() {
        match &toks[k].token {
            Token::RParen => depth += 1,
            Token::LParen if depth == 0 => return None,
            Token::LParen => depth -= 1,
            _ if depth == 0 => match word(toks.get(k)).as_deref() {
                Some("FROM") => {
                    from = Some(k);
                    break;
                }
                Some("SELECT" | "SEL" | "UNION" | "INTERSECT" | "EXCEPT" | "MINUS") => return None,
                _ => {}
            },
            _ => {}
        }
    }
    let mut j = from? + 1;
    // the item: a parenthesized query, or a (qualified) name
    if toks.get(j).map(|t| &t.token) == Some(&Token::LParen) {
        let mut d = 0;
        loop {
            match toks.get(j).map(|t| &t.token) {
                Some(Token::LParen) => d += 1,
                Some(Token::RParen) => {
                    d -= 1;
                    if d == 0 {
                        j += 1;
                        break;
                    }
                }
                Some(_) => {}
                None => return None,
            }
            j += 1;
        }
    } else {
        if !matches!(toks.get(j).map(|t| &t.token), Some(Token::Word(_))) {
            return None;
        }
        j += 1;
        while toks.get(j).map(|t| &t.token) == Some(&Token::Period)
            && matches!(toks.get(j + 1).map(|t| &t.token), Some(Token::Word(_)))
        {
            j += 2;
        }
    }
    // its alias
    if word(toks.get(j)).as_deref() == Some("AS") {
        j += 1;
    }
    if let Some(Token::Word(w)) = toks.get(j).map(|t| &t.token) {
        let upper = w.value.to_ascii_uppercase();
        if w.quote_style.is_some() || !CLAUSES.contains(&upper.as_str()) {
            j += 1;
        }
    }
    // a clause, a join or another item must follow
    let next = toks.get(j).map(|t| &t.token);
    match word(toks.get(j)).as_deref() {
        Some(
            "WHERE" | "GROUP" | "HAVING" | "QUALIFY" | "JOIN" | "INNER" | "LEFT" | "RIGHT" | "FULL"
            | "CROSS",
        ) if j < i => Some(j),
        _ if next == Some(&Token::Comma) && j < i => Some(j),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::move_sample_clauses;
    use sqlparser::dialect::GenericDialect;
    use sqlparser::tokenizer::{Token, Tokenizer};

    fn tokens(sql: &str, mv: bool) -> String {
        let mut toks: Vec<_> = Tokenizer::new(&GenericDialect {}, sql)
            .tokenize_with_location()
            .unwrap()
            .into_iter()
            .filter(|t| !matches!(t.token, Token::Whitespace(_)))
            .collect();
        if mv {
            move_sample_clauses(&mut toks);
        }
        toks.iter()
            .map(|t| t.token.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn moved(sql: &str) -> String {
        tokens(sql, true)
    }

    #[test]
    fn a_late_sample_moves_after_the_single_from_item() {
        assert_eq!(
            moved("SELECT a FROM t WHERE a > 0 SAMPLE 5 ORDER BY a"),
            "SELECT a FROM t SAMPLE 5 WHERE a > 0 ORDER BY a"
        );
        assert_eq!(
            moved("select * from (select 1 as x) as s where x in (select 1) sample 0"),
            "select * from ( select 1 as x ) as s sample 0 where x in ( select 1 )"
        );
        assert_eq!(
            moved("SEL k, COUNT(*) FROM db.t x GROUP BY k HAVING COUNT(*) > 1 SAMPLE 0.5, 0.25"),
            "SEL k , COUNT ( * ) FROM db . t x SAMPLE ( ( 0.5 , 0.25 ) ) GROUP BY k HAVING COUNT ( * ) > 1"
        );
        // inside a derived table, its own block
        assert_eq!(
            moved("SELECT * FROM (SELECT * FROM t WHERE b = 1 SAMPLE 3) d"),
            "SELECT * FROM ( SELECT * FROM t SAMPLE 3 WHERE b = 1 ) d"
        );
    }

    #[test]
    fn samples_in_place_stay() {
        for sql in [
            "SELECT a FROM t SAMPLE 5",
            "SELECT a FROM t x SAMPLE 5 WHERE a > 0",
        ] {
            assert_eq!(moved(sql), tokens(sql, false), "{sql}");
        }
    }

    #[test]
    fn a_sample_after_joins_moves_after_the_first_item() {
        assert_eq!(
            moved("SELECT a FROM t, u WHERE t.a = u.a SAMPLE 5"),
            "SELECT a FROM t SAMPLE 5 , u WHERE t . a = u . a"
        );
        assert_eq!(
            moved("SELECT a FROM t x JOIN u ON x.a = u.a SAMPLE 5"),
            "SELECT a FROM t x SAMPLE 5 JOIN u ON x . a = u . a"
        );
        assert_eq!(
            moved("SELECT a FROM t LEFT JOIN u ON t.a = u.a WHERE u.a > 1 SAMPLE 5"),
            "SELECT a FROM t SAMPLE 5 LEFT JOIN u ON t . a = u . a WHERE u . a > 1"
        );
    }

    #[test]
    fn a_column_named_sample_is_no_clause() {
        for sql in [
            "SELECT CASE sample WHEN 1 THEN 'a' END FROM t",
            "SELECT CASE WHEN x = 1 THEN sample WHEN x = 2 THEN 0 END FROM t",
        ] {
            assert_eq!(moved(sql), tokens(sql, false), "{sql}");
        }
    }

    #[test]
    fn extended_samples_become_one_call() {
        assert_eq!(
            moved("SELECT a FROM t SAMPLE WITH REPLACEMENT 5, 6"),
            "SELECT a FROM t SAMPLE ( \"tdlite sample\" ( 1 , 0 , ( 5 , 6 ) ) )"
        );
        assert_eq!(
            moved("SELECT a FROM t WHERE a > 0 SAMPLE RANDOMIZED ALLOCATION WHEN a < 5 THEN 0.5, 0.2 ELSE 0.1 END ORDER BY 1"),
            "SELECT a FROM t SAMPLE ( \"tdlite sample\" ( 0 , 1 , CASE WHEN a < 5 THEN ( 0.5 , 0.2 ) ELSE ( 0.1 ) END ) ) WHERE a > 0 ORDER BY 1"
        );
        // a CASE in a condition keeps its own THEN and ELSE
        assert_eq!(
            moved("SELECT a FROM t SAMPLE WHEN CASE WHEN a < 3 THEN -1 ELSE t.b END < 0 THEN 2 END"),
            "SELECT a FROM t SAMPLE ( \"tdlite sample\" ( 0 , 0 , CASE WHEN CASE WHEN a < 3 THEN - 1 ELSE t . b END < 0 THEN ( 2 ) END ) )"
        );
    }
}
