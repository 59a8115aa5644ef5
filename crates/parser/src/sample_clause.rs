//! Teradata's SAMPLE clause where Teradata writes it: at the end of a query block, after
//! WHERE, GROUP BY, HAVING and QUALIFY (`SELECT … FROM t WHERE x > 0 SAMPLE 10`). sqlparser
//! reads SAMPLE only as a table sample right after a FROM item, and the engine applies a FROM
//! item's sample to the block's result (after all those clauses, as Teradata does; see
//! exec's sample.rs), so a clause later in a block whose FROM is one item (a table or a
//! derived table, with or without an alias) moves to just after that item. A block with
//! several FROM items or joins keeps it where it is (sqlparser then reports it).
//!
//! Invariant: only tokens are moved, none added or dropped, and only within one query block
//! (the same parenthesis depth).

use crate::parser::unquoted_upper;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// Words that end a FROM item and its alias.
const CLAUSES: [&str; 5] = ["WHERE", "GROUP", "HAVING", "QUALIFY", "SAMPLE"];

/// Moves each SAMPLE clause to just after its block's single FROM item (see the module).
pub(crate) fn move_sample_clauses(toks: &mut Vec<TokenWithSpan>) {
    let mut i = 0;
    while i < toks.len() {
        let at_sample = word(toks.get(i)).as_deref() == Some("SAMPLE")
            && matches!(toks.get(i + 1).map(|t| &t.token), Some(Token::Number(..)));
        if !at_sample {
            i += 1;
            continue;
        }
        let end = clause_end(toks, i);
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

/// One past the clause at `i`: `SAMPLE n [, m]…`.
fn clause_end(toks: &[TokenWithSpan], i: usize) -> usize {
    let mut end = i + 2;
    while toks.get(end).map(|t| &t.token) == Some(&Token::Comma)
        && matches!(toks.get(end + 1).map(|t| &t.token), Some(Token::Number(..)))
    {
        end += 2;
    }
    end
}

/// Where the SAMPLE clause at `i` goes: just after the single FROM item of its block, when a
/// clause (WHERE, GROUP BY, HAVING, QUALIFY) stands between them; None otherwise.
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
    // a clause must follow (a comma or a join means several items: left alone)
    match word(toks.get(j)).as_deref() {
        Some("WHERE" | "GROUP" | "HAVING" | "QUALIFY") if j < i => Some(j),
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
            "SEL k , COUNT ( * ) FROM db . t x SAMPLE 0.5 , 0.25 GROUP BY k HAVING COUNT ( * ) > 1"
        );
        // inside a derived table, its own block
        assert_eq!(
            moved("SELECT * FROM (SELECT * FROM t WHERE b = 1 SAMPLE 3) d"),
            "SELECT * FROM ( SELECT * FROM t SAMPLE 3 WHERE b = 1 ) d"
        );
    }

    #[test]
    fn samples_in_place_or_after_joins_stay() {
        for sql in [
            "SELECT a FROM t SAMPLE 5",
            "SELECT a FROM t x SAMPLE 5 WHERE a > 0",
            "SELECT a FROM t, u WHERE t.a = u.a SAMPLE 5",
            "SELECT a FROM t JOIN u ON t.a = u.a WHERE 1 = 1 SAMPLE 5",
        ] {
            assert_eq!(moved(sql), tokens(sql, false), "{sql}");
        }
    }
}
