//! The `USING` request modifier of BTEQ imports: `USING (id VARCHAR(10), name VARCHAR(40))
//! INSERT INTO t VALUES (:id, :name)`. The modifier names the fields of each imported record;
//! the statement refers to them as `:name`.
//!
//! [`parse_using`] turns such a request into the statement with `?` parameter markers, ready
//! for `Session::prepare`, and the field each marker takes its value from.
//!
//! Invariant: the statement text is the request's own text after the modifier, with only each
//! `:name` replaced by `?` (comments, strings and layout are kept).

use crate::dialect::TdliteDialect;
use crate::error::{Location, ParseError};
use crate::parser::Offsets;
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};

/// A request with a `USING` modifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Using {
    /// The fields, in record order: name and type as written.
    pub fields: Vec<(String, String)>,
    /// The statement with `?` where it said `:name`.
    pub statement: String,
    /// For each `?`, in order, the index of the field it reads.
    pub params: Vec<usize>,
}

/// Copies `sql`, putting `pick`'s text in place of the tokens it takes: `pick` looks at the
/// tokens from index `i` and returns how many it replaces (at least one) and with what. The
/// text is copied from the source, not rebuilt from tokens: a token's text is not always what
/// was written (`'it''s'` would come back as `'it's'`).
fn splice(
    sql: &str,
    mut pick: impl FnMut(&[TokenWithSpan], usize) -> Result<Option<(usize, String)>, ParseError>,
) -> Result<String, ParseError> {
    let tokens = Tokenizer::new(&TdliteDialect, sql)
        .tokenize_with_location()
        .map_err(|e| ParseError::syntax(e.message, Location::from_sql(e.location)))?;
    let mut offsets = Offsets::new(sql);
    let mut out = String::with_capacity(sql.len());
    let mut copied = 0;
    let mut i = 0;
    while i < tokens.len() {
        let Some((n, text)) = pick(&tokens, i)? else {
            i += 1;
            continue;
        };
        let start = offsets.byte_offset(Location::from_sql(tokens[i].span.start));
        let end = offsets.byte_offset(Location::from_sql(tokens[i + n - 1].span.end));
        out.push_str(&sql[copied..start]);
        out.push_str(&text);
        copied = end;
        i += n;
    }
    out.push_str(&sql[copied..]);
    Ok(out)
}

/// Replaces the variables of a stored procedure's statement `sql` (outside strings and
/// comments) by what `value` gives for their name parts and whether they were written with a
/// colon: `:v`, `:a.b` and `a.b`, and with `bare` also `v` without the colon, except inside a
/// subquery, where a bare name is a column (a name followed by `(` is a function, one after a
/// `.` part of another name). A name `value` does not know stays as written.
///
/// # Errors
/// 3706 if `sql` does not tokenize.
pub fn replace_variables(
    sql: &str,
    bare: bool,
    mut value: impl FnMut(&[String], bool) -> Option<String>,
) -> Result<String, ParseError> {
    let significant = |tokens: &[TokenWithSpan], from: usize| {
        (from..tokens.len()).find(|&j| !matches!(tokens[j].token, Token::Whitespace(_)))
    };
    // the parentheses open at each token: true for a subquery's
    let mut parens: Vec<bool> = Vec::new();
    splice(sql, |tokens, i| {
        match &tokens[i].token {
            Token::LParen => {
                let next = significant(tokens, i + 1).map(|j| &tokens[j].token);
                let query = matches!(next, Some(Token::Word(w))
                    if w.value.eq_ignore_ascii_case("SELECT") || w.value.eq_ignore_ascii_case("SEL"));
                parens.push(query);
            }
            Token::RParen => {
                parens.pop();
            }
            _ => {}
        }
        let bare = bare && !parens.contains(&true);
        let colon = tokens[i].token == Token::Colon;
        let start = if colon { i + 1 } else { i };
        let Some(Token::Word(w)) = tokens.get(start).map(|t| &t.token) else {
            return Ok(None);
        };
        if !colon {
            if w.quote_style.is_some() {
                return Ok(None);
            }
            // part of a qualified name, or a host variable (seen at its colon)
            let before = (0..i)
                .rev()
                .find(|&j| !matches!(tokens[j].token, Token::Whitespace(_)));
            if before.is_some_and(|j| matches!(tokens[j].token, Token::Period | Token::Colon)) {
                return Ok(None);
            }
        }
        let mut parts = vec![w.value.clone()];
        let mut last = start;
        // `row.col`
        if let (Some(Token::Period), Some(Token::Word(c))) = (
            tokens.get(start + 1).map(|t| &t.token),
            tokens.get(start + 2).map(|t| &t.token),
        ) {
            parts.push(c.value.clone());
            last = start + 2;
        }
        let next = significant(tokens, last + 1).map(|j| &tokens[j].token);
        if !colon && matches!(next, Some(Token::LParen) | Some(Token::Period)) {
            return Ok(None);
        }
        // without `bare`, only a FOR row's `row.col` is read without its colon
        if !colon && !bare && parts.len() < 2 {
            return Ok(None);
        }
        Ok(value(&parts, colon).map(|v| (last + 1 - i, v)))
    })
}

/// Replaces each host variable `:name` of `sql` (outside strings and comments) by what
/// `value(name)` gives; the rest of the text is kept as it is.
///
/// # Errors
/// 3706 if `sql` does not tokenize, or for a `:name` that `value` does not know.
pub fn replace_host_variables(
    sql: &str,
    mut value: impl FnMut(&str) -> Option<String>,
) -> Result<String, ParseError> {
    splice(sql, |tokens, i| {
        let (Token::Colon, Some(Token::Word(w))) =
            (&tokens[i].token, tokens.get(i + 1).map(|t| &t.token))
        else {
            return Ok(None);
        };
        match value(&w.value) {
            Some(v) => Ok(Some((2, v))),
            None => Err(ParseError::syntax(
                format!("':{}' names no field or parameter", w.value),
                Location::from_sql(tokens[i].span.start),
            )),
        }
    })
}

/// Replaces each `?` parameter marker of `sql` (outside strings and comments) by what
/// `value()` gives for it, in order; the rest of the text is kept as it is.
///
/// # Errors
/// 3706 if `sql` does not tokenize, or `value` has nothing for a marker.
pub fn replace_markers(
    sql: &str,
    mut value: impl FnMut() -> Option<String>,
) -> Result<String, ParseError> {
    splice(sql, |tokens, i| {
        if tokens[i].token != Token::Placeholder("?".into()) {
            return Ok(None);
        }
        match value() {
            Some(v) => Ok(Some((1, v))),
            None => Err(ParseError::syntax(
                "a '?' without a value",
                Location::from_sql(tokens[i].span.start),
            )),
        }
    })
}

/// Parses a request that starts with `USING (…)`; `Ok(None)` for any other request.
///
/// # Errors
/// 3706 for a malformed field list, a `:name` that is not a field, or no statement after it.
pub fn parse_using(sql: &str) -> Result<Option<Using>, ParseError> {
    let tokens = Tokenizer::new(&TdliteDialect, sql)
        .tokenize_with_location()
        .map_err(|e| ParseError::syntax(e.message, Location::from_sql(e.location)))?;
    let significant = |t: &Token| !matches!(t, Token::Whitespace(_));
    let mut it = tokens.iter().filter(|t| significant(&t.token)).peekable();
    match it.next() {
        Some(t) if matches!(&t.token, Token::Word(w) if w.value.eq_ignore_ascii_case("USING")) => {}
        _ => return Ok(None),
    }
    let at = |t: Option<&sqlparser::tokenizer::TokenWithSpan>| {
        t.map_or(Location::new(1, 1), |t| Location::from_sql(t.span.start))
    };
    let open = it.next();
    if !matches!(open.map(|t| &t.token), Some(Token::LParen)) {
        return Err(ParseError::syntax("expected '(' after USING", at(open)));
    }
    // the field list: name type [, name type]… up to the matching ')'
    let mut fields: Vec<(String, String)> = Vec::new();
    let mut depth = 1usize;
    let mut current: Option<(String, String)> = None;
    let mut end = None;
    for t in it.by_ref() {
        match &t.token {
            Token::LParen => depth += 1,
            Token::RParen => {
                depth -= 1;
                if depth == 0 {
                    end = Some(t.span.end);
                    break;
                }
            }
            Token::Comma if depth == 1 => {
                fields.extend(current.take());
                continue;
            }
            _ => {}
        }
        match (&mut current, &t.token) {
            (None, Token::Word(w)) => current = Some((w.value.clone(), String::new())),
            (None, other) => {
                return Err(ParseError::syntax(
                    format!("expected a field name in USING, found '{other}'"),
                    Location::from_sql(t.span.start),
                ))
            }
            (Some((_, ty)), tok) => {
                if !ty.is_empty() {
                    ty.push(' ');
                }
                ty.push_str(&tok.to_string());
            }
        }
    }
    fields.extend(current.take());
    // `DECIMAL ( 9 , 2 )` as written: `DECIMAL(9,2)`; `DOUBLE PRECISION` keeps its blank
    for (_, ty) in &mut fields {
        *ty = ty
            .replace(" ( ", "(")
            .replace(" )", ")")
            .replace(" , ", ",");
    }
    let Some(end) = end else {
        return Err(ParseError::syntax(
            "expected ')' to end the USING fields",
            at(None),
        ));
    };
    if fields.iter().any(|(_, ty)| ty.is_empty()) || fields.is_empty() {
        return Err(ParseError::syntax(
            "each USING field needs a name and a type",
            Location::from_sql(end),
        ));
    }
    // the statement: its text after ')', with :name → ?
    let after = Offsets::byte_of(sql, Location::from_sql(end));
    let mut params = Vec::new();
    let statement = replace_host_variables(&sql[after..], |name| {
        let f = fields
            .iter()
            .position(|(n, _)| n.eq_ignore_ascii_case(name))?;
        params.push(f);
        Some("?".to_string())
    })?;
    if statement.trim().trim_end_matches(';').trim().is_empty() {
        return Err(ParseError::syntax(
            "expected a statement after the USING fields",
            Location::from_sql(end),
        ));
    }
    Ok(Some(Using {
        fields,
        statement: statement.trim().to_string(),
        params,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_and_markers() {
        let u = parse_using(
            "USING (id VARCHAR(10), name VARCHAR(40), amt DECIMAL(9,2))\nINSERT INTO t VALUES (:id, :NAME, ':id', :amt + 1);",
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            u.fields,
            vec![
                ("id".to_string(), "VARCHAR(10)".to_string()),
                ("name".to_string(), "VARCHAR(40)".to_string()),
                ("amt".to_string(), "DECIMAL(9,2)".to_string()),
            ]
        );
        assert_eq!(u.statement, "INSERT INTO t VALUES (?, ?, ':id', ? + 1);");
        assert_eq!(u.params, vec![0, 1, 2]);
        // the text is kept as written: a doubled quote stays doubled
        let u = parse_using("USING (x DOUBLE PRECISION) INS t (:x, 'it''s', /* :x */ 1);")
            .unwrap()
            .unwrap();
        assert_eq!(u.fields[0].1, "DOUBLE PRECISION");
        assert_eq!(u.statement, "INS t (?, 'it''s', /* :x */ 1);");
    }

    #[test]
    fn other_requests_and_errors() {
        assert_eq!(parse_using("INSERT INTO t VALUES (1);").unwrap(), None);
        assert!(parse_using("USING id INT INSERT t (:id);").is_err());
        assert!(parse_using("USING (id) INSERT t (:id);").is_err());
        assert!(parse_using("USING (id INT) INSERT t (:nope);").is_err());
        assert!(parse_using("USING (id INT);").is_err());
    }
}
