//! How deep a statement's syntax tree may grow, checked on its tokens before any tree is built.
//!
//! sqlparser builds a chain of binary operators (`1+1+…+1`, `a=1 OR a=2 OR …`, `q1 UNION ALL
//! q2 UNION ALL …`) in a loop, not by recursion, so its recursion limit
//! (64 levels, which bounds parentheses, prefixes and subqueries) does not see
//! them; but the tree it builds is as deep as the chain is long, and every later pass over it
//! (binding, evaluation, printing, cloning, dropping) recurses once per level. A chain of a
//! few thousand terms overflowed the stack and aborted the process.
//!
//! Invariant: a statement whose *operator depth* exceeds [`MAX_OPERATOR_DEPTH`] is refused
//! with 3710 before sqlparser sees it, so no tree deeper than that (plus the bounded nesting)
//! ever exists. The operator depth bounds the depth a chain can reach: the number of binary
//! operators at one parenthesis level, plus the deepest such count of the groups nested in it,
//! and so on down (computed in one pass with a stack).

use crate::error::{ParseError, ParseErrorKind};
use crate::Location;
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// The most binary operators a statement may chain along one path of its tree, AND/OR aside
/// (documented in docs/errors.md under 3710).
pub const MAX_OPERATOR_DEPTH: usize = 1_000;

/// The most AND/OR/XOR a statement may chain along one path. Larger than
/// [`MAX_OPERATOR_DEPTH`]: generated queries OR thousands of conditions, and the binder
/// rebalances such chains, so only sqlparser's own passes (clone, drop, display; a few hundred
/// bytes of stack a level) walk them at full depth.
pub const MAX_LOGICAL_DEPTH: usize = 10_000;

/// How many AND/OR levels cost the stack of one other level ([`operator_bound`]).
const LOGICAL_PER_LEVEL: usize = 8;

/// An upper bound, from the text alone, of how many stack levels any statement in `sql` can
/// need: the operator characters and operator words it holds, quoted or not (capped just past
/// [`MAX_OPERATOR_DEPTH`]), plus its AND/OR/XOR words over `LOGICAL_PER_LEVEL` (capped likewise).
/// One pass over the bytes, no tokens: a caller sizes its stack with it before parsing.
pub fn operator_bound(sql: &str) -> usize {
    const WORDS: [&[u8]; 24] = [
        b"UNION",
        b"INTERSECT",
        b"EXCEPT",
        b"MINUS",
        b"MOD",
        b"LIKE",
        b"EQ",
        b"NE",
        b"LT",
        b"LE",
        b"GT",
        b"GE",
        b"SELECT",
        b"JOIN",
        b"IS",
        b"IN",
        b"BETWEEN",
        b"DIV",
        b"ILIKE",
        b"RLIKE",
        b"SIMILAR",
        b"REGEXP",
        b"OVERLAPS",
        b"CASE",
    ];
    let bytes = sql.as_bytes();
    let (mut n, mut logical) = (0usize, 0usize);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_alphabetic() {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let word = &bytes[start..i];
            n += usize::from(WORDS.iter().any(|w| w.eq_ignore_ascii_case(word)));
            logical += usize::from(
                [&b"AND"[..], b"OR", b"XOR"]
                    .iter()
                    .any(|w| w.eq_ignore_ascii_case(word)),
            );
            continue;
        }
        n += usize::from(b"+-*/|=<>^%&(~:".contains(&b));
        i += 1;
    }
    // past the operators' cap, what the parser's recursion limit allows besides
    n.min(MAX_OPERATOR_DEPTH + 1 + crate::cursor::RECURSION_LIMIT)
        + (logical / LOGICAL_PER_LEVEL).min(MAX_LOGICAL_DEPTH / LOGICAL_PER_LEVEL + 1)
}

fn is_word(token: &Token, keyword: Keyword) -> bool {
    matches!(token, Token::Word(w) if w.keyword == keyword)
}

/// True for AND, OR and XOR.
fn is_logical_operator(token: &Token) -> bool {
    matches!(token, Token::Word(w) if matches!(w.keyword, Keyword::AND | Keyword::OR | Keyword::XOR))
}

/// True for a token that joins two operands into one node of a chain (AND/OR aside).
fn is_binary_operator(token: &Token) -> bool {
    match token {
        Token::Plus
        | Token::Minus
        | Token::Mul
        | Token::Div
        | Token::Mod
        | Token::StringConcat
        | Token::Eq
        | Token::DoubleEq
        | Token::Neq
        | Token::Lt
        | Token::Gt
        | Token::LtEq
        | Token::GtEq
        | Token::Caret
        | Token::Ampersand
        | Token::Pipe
        | Token::DoubleColon
        | Token::Tilde
        | Token::TildeAsterisk
        | Token::ExclamationMarkTilde
        | Token::ExclamationMarkTildeAsterisk
        | Token::Arrow
        | Token::LongArrow => true,
        Token::Word(w) => {
            matches!(
                w.keyword,
                Keyword::MOD
                    | Keyword::LIKE
                    | Keyword::ILIKE
                    | Keyword::RLIKE
                    | Keyword::SIMILAR
                    | Keyword::REGEXP
                    | Keyword::DIV
                    | Keyword::IS
                    | Keyword::IN
                    | Keyword::BETWEEN
                    | Keyword::OVERLAPS
            ) || ["EQ", "NE", "LT", "LE", "GT", "GE"]
                .iter()
                .any(|op| w.value.eq_ignore_ascii_case(op))
        }
        _ => false,
    }
}

/// True for a set operator: it chains whole queries, across their clauses.
fn is_set_operator(token: &Token) -> bool {
    matches!(token, Token::Word(w) if matches!(
        w.keyword,
        Keyword::UNION | Keyword::INTERSECT | Keyword::EXCEPT | Keyword::MINUS
    ))
}

/// True for a word that starts a new expression at the same parenthesis level (a clause, or a
/// part of CASE): the operators before it belong to another expression.
fn starts_expression(token: &Token) -> bool {
    matches!(token, Token::Word(w) if matches!(
        w.keyword,
        Keyword::SELECT | Keyword::FROM | Keyword::WHERE | Keyword::ON | Keyword::HAVING
            | Keyword::QUALIFY | Keyword::GROUP | Keyword::ORDER | Keyword::SET
            | Keyword::VALUES | Keyword::WHEN | Keyword::THEN | Keyword::ELSE
    ))
}

/// One parenthesis level (or CASE … END) while the tokens are read.
#[derive(Default, Clone, Copy)]
struct Level {
    /// Opened by CASE (closed by END), not by `(`.
    case: bool,
    /// Set operators at this level (they chain across clauses).
    set_ops: usize,
    /// Binary operators of the expression being read.
    ops: usize,
    /// The deepest closed group inside the expression being read.
    deepest: usize,
    /// The deepest finished expression of this level.
    done: usize,
}

impl Level {
    fn current(&self) -> usize {
        self.set_ops + self.ops + self.deepest
    }
    fn finish_expression(&mut self) {
        self.done = self.done.max(self.ops + self.deepest);
        (self.ops, self.deepest) = (0, 0);
    }
}

/// Refuses a statement whose operator depth exceeds [`MAX_OPERATOR_DEPTH`], or whose AND/OR
/// depth exceeds [`MAX_LOGICAL_DEPTH`] (3710, at the operator where a path first went over).
pub(crate) fn check_operator_depth(tokens: &[TokenWithSpan]) -> Result<(), ParseError> {
    check_depth(tokens, is_binary_operator, MAX_OPERATOR_DEPTH, "operators")?;
    check_depth(
        tokens,
        is_logical_operator,
        MAX_LOGICAL_DEPTH,
        "AND/OR conditions",
    )
}

fn check_depth(
    tokens: &[TokenWithSpan],
    counts: fn(&Token) -> bool,
    limit: usize,
    what: &str,
) -> Result<(), ParseError> {
    let mut levels: Vec<Level> = vec![Level::default()];
    // operators counted on the enclosing levels (an upper bound of the path above)
    let mut above = 0usize;
    for t in tokens {
        let nested = levels.len() > 1;
        let Some(level) = levels.last_mut() else {
            break;
        };
        let counted = match &t.token {
            // CASE … END sits inside the chain around it, as a group does: its WHEN, THEN
            // and ELSE parts start expressions of their own, not of the enclosing chain
            tok if tok == &Token::LParen || is_word(tok, Keyword::CASE) => {
                above += level.set_ops + level.ops;
                levels.push(Level {
                    case: tok != &Token::LParen,
                    ..Level::default()
                });
                false
            }
            tok if nested
                && (tok == &Token::RParen || (level.case && is_word(tok, Keyword::END))) =>
            {
                let mut inner = levels.pop().unwrap_or_default();
                inner.finish_expression();
                let path = inner.set_ops + inner.done;
                if let Some(parent) = levels.last_mut() {
                    above -= parent.set_ops + parent.ops;
                    parent.deepest = parent.deepest.max(path);
                }
                true
            }
            Token::Comma => {
                level.finish_expression();
                false
            }
            tok if is_set_operator(tok) => {
                level.finish_expression();
                level.set_ops += 1;
                true
            }
            // AND/OR bind loosest: for the other operators, their operands are separate
            // expressions (AND/OR chains are counted in a pass of their own)
            tok if starts_expression(tok) || (!counts(tok) && is_logical_operator(tok)) => {
                level.finish_expression();
                false
            }
            tok if counts(tok) => {
                level.ops += 1;
                true
            }
            _ => false,
        };
        let path = above + levels.last().map_or(0, Level::current);
        if counted && path > limit {
            return Err(too_complex(limit, what, Location::from_sql(t.span.start)));
        }
    }
    Ok(())
}

fn too_complex(limit: usize, what: &str, location: Location) -> ParseError {
    ParseError {
        kind: ParseErrorKind::TooComplex(format!(
            "more than {limit} {what} chained in one expression or query"
        )),
        location,
        statement: 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::dialect::GenericDialect;
    use sqlparser::tokenizer::Tokenizer;

    fn depth_ok(sql: &str) -> bool {
        let toks = Tokenizer::new(&GenericDialect, sql)
            .tokenize_with_location()
            .unwrap();
        check_operator_depth(&toks).is_ok()
    }

    fn depth_within(toks: &[TokenWithSpan], limit: usize) -> bool {
        check_depth(toks, is_binary_operator, limit, "operators").is_ok()
    }

    fn chain(op: &str, n: usize) -> String {
        vec!["1"; n].join(op)
    }

    #[test]
    fn the_text_bound_is_at_least_the_operator_depth() {
        for sql in [
            format!("SELECT {}", chain("+", 50)),
            vec!["SELECT 1"; 50].join(" UNION ALL "),
            format!("SELECT ((({}))) - 1", chain("*", 40)),
        ] {
            let toks = Tokenizer::new(&GenericDialect, &sql)
                .tokenize_with_location()
                .unwrap();
            let mut exact = 0;
            while exact < 200 {
                // the smallest limit the statement passes is its operator depth
                if depth_within(&toks, exact) {
                    break;
                }
                exact += 1;
            }
            assert!(operator_bound(&sql) >= exact, "{sql}: {exact}");
        }
        assert_eq!(operator_bound("SELECT a FROM t"), 1);
        assert_eq!(
            operator_bound(&chain("+", 100_000)),
            MAX_OPERATOR_DEPTH + 1 + crate::cursor::RECURSION_LIMIT
        );
    }

    #[test]
    fn chains_up_to_the_limit_pass_and_longer_ones_fail() {
        let n = MAX_OPERATOR_DEPTH;
        assert!(depth_ok(&format!("SELECT {}", chain("+", n + 1))));
        assert!(!depth_ok(&format!("SELECT {}", chain("+", n + 2))));
        let m = MAX_LOGICAL_DEPTH;
        assert!(depth_ok(&format!(
            "SELECT 1 WHERE {}",
            chain(" OR ", m + 1)
        )));
        assert!(!depth_ok(&format!(
            "SELECT 1 WHERE {}",
            chain(" OR ", m + 2)
        )));
        // the comparisons under an OR chain are not one chain
        let ors = vec!["a = 1"; 3 * n].join(" OR ");
        assert!(depth_ok(&format!("SELECT 1 WHERE {ors}")));
        let union = vec!["SELECT 1"; n + 2].join(" UNION ALL ");
        assert!(!depth_ok(&union));
        assert!(depth_ok(&vec!["SELECT 1"; n + 1].join(" UNION ALL ")));
    }

    #[test]
    fn case_and_postfix_operators_do_not_hide_a_chain() {
        let half = chain("+", MAX_OPERATOR_DEPTH / 2 + 1);
        let case = "CASE WHEN c = 1 THEN 1 ELSE 0 END";
        // the chain goes on after a CASE: its operators still add up
        assert!(!depth_ok(&format!("SELECT {half} + {case} + {half}")));
        assert!(depth_ok(&format!("SELECT {half} + {case}")));
        // CASE's parts are expressions of their own
        let whens = vec!["WHEN x = 1 THEN y + 1"; 3 * MAX_OPERATOR_DEPTH].join(" ");
        assert!(depth_ok(&format!("SELECT CASE {whens} END + 1")));
        let n = MAX_OPERATOR_DEPTH + 2;
        assert!(!depth_ok(&format!("SELECT 1{}", " IS NULL".repeat(n))));
        assert!(!depth_ok(&format!("SELECT 1{}", " IN (1)".repeat(n))));
        assert!(!depth_ok(&format!("SELECT 1{}", "::INT".repeat(n))));
    }

    #[test]
    fn parenthesised_groups_add_up_along_one_path_only() {
        let half = MAX_OPERATOR_DEPTH / 2;
        // two groups side by side: the deepest path is one group plus the operator between
        let side = format!("SELECT ({}) + ({})", chain("+", half), chain("+", half));
        assert!(depth_ok(&side));
        // a group inside a chain: its operators add to the chain's
        let nested = format!(
            "SELECT {} + ({} + ({}))",
            chain("+", half),
            chain("+", half),
            chain("+", 10)
        );
        assert!(!depth_ok(&nested));
        // many short expressions (items, clauses, CASE parts) never add up
        let items = vec!["a+1"; 3 * MAX_OPERATOR_DEPTH].join(", ");
        assert!(depth_ok(&format!(
            "SELECT {items} FROM t WHERE x = 1 AND y = 2"
        )));
        let grouped = vec!["(1+1)"; 3 * MAX_OPERATOR_DEPTH].join(", ");
        assert!(depth_ok(&format!("SELECT {grouped}")));
        let whens = vec!["WHEN x = 1 THEN y + 1"; 3 * MAX_OPERATOR_DEPTH].join(" ");
        assert!(depth_ok(&format!("SELECT CASE {whens} END")));
        // a set operation's queries do add up, clauses and all
        let union = vec!["SELECT a FROM t WHERE b = c + 1"; MAX_OPERATOR_DEPTH].join(" UNION ");
        assert!(!depth_ok(&union));
    }
}
