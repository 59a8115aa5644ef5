//! Teradata's regular-expression functions (SQL Functions, Expressions, and Predicates,
//! "Regular Expression Functions"):
//!
//! - `REGEXP_SUBSTR(source, pattern [, position [, occurrence [, match]]])`: the
//!   occurrence-th match at or after character `position`, NULL if there is none;
//! - `REGEXP_REPLACE(source, pattern [, replacement [, position [, occurrence [, match]]]])`:
//!   the source with the occurrence-th match (0, the default: every match) replaced;
//!   `\1`…`\9` in the replacement are the groups, no replacement removes the matches;
//! - `REGEXP_INSTR(source, pattern [, position [, occurrence [, return [, match]]]])`: the
//!   1-based character position of the occurrence-th match (return 1: the position after
//!   it), 0 if there is none;
//! - `REGEXP_SIMILAR(source, pattern [, match])`: 1 if the whole source matches, else 0.
//!
//! `match` is a string of flags: `i` case blind, `c` case specific (the default), `n` `.`
//! matches a newline, `m` `^`/`$` match at each line, `x` blanks in the pattern are ignored
//! (as in the Rust crate, `#` then starts a comment), `l` (Teradata: NULL instead of an error
//! for a source over its size limit; tdlite has no such limit, so it changes nothing). Any
//! argument NULL gives NULL; REGEXP_SUBSTR from a position past the end gives NULL. Patterns
//! follow the Rust `regex` crate's syntax (POSIX classes, `\d`, groups, alternation; no
//! backreferences in a pattern), compiled once for each run of rows with the same pattern and
//! flags, with a bound on the compiled size so that no pattern can take the memory (a
//! pattern over it is 9919, as is a bad pattern, position or occurrence).

use crate::error::{Error, Result};
use arrow::array::{ArrayRef, StringArray};
use regex::{Regex, RegexBuilder};
use std::sync::Arc;
use tdlite_storage::types::{value_at, values_to_array, SqlType, Value};

/// Which function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Regexp {
    /// `REGEXP_SUBSTR`.
    Substr,
    /// `REGEXP_REPLACE`.
    Replace,
    /// `REGEXP_INSTR`.
    Instr,
    /// `REGEXP_SIMILAR`.
    Similar,
}

impl Regexp {
    /// The function a name calls.
    pub fn lookup(name: &str) -> Option<Regexp> {
        Some(match name {
            "REGEXP_SUBSTR" => Regexp::Substr,
            "REGEXP_REPLACE" => Regexp::Replace,
            "REGEXP_INSTR" => Regexp::Instr,
            "REGEXP_SIMILAR" => Regexp::Similar,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Regexp::Substr => "REGEXP_SUBSTR",
            Regexp::Replace => "REGEXP_REPLACE",
            Regexp::Instr => "REGEXP_INSTR",
            Regexp::Similar => "REGEXP_SIMILAR",
        }
    }

    /// The arguments it takes, fewest and most.
    fn arity(self) -> (usize, usize) {
        match self {
            Regexp::Substr => (2, 5),
            Regexp::Replace | Regexp::Instr => (2, 6),
            Regexp::Similar => (2, 3),
        }
    }

    /// Whether the result is an integer (else text).
    pub fn is_integer(self) -> bool {
        matches!(self, Regexp::Instr | Regexp::Similar)
    }
}

/// The largest compiled pattern (bytes of the regex crate's program).
const SIZE_LIMIT: usize = 1 << 20;

fn bad(f: Regexp, why: &str) -> Error {
    Error::BadArgument(format!("{}: {why}", f.name()))
}

/// Evaluates `f` over `n` rows of `args`.
///
/// # Errors
/// 9919 for a wrong number of arguments, a pattern that does not compile (or is too big), a
/// position or occurrence out of range, an unknown match flag; 3577 for a result too long.
pub(crate) fn eval(f: Regexp, args: &[ArrayRef], n: usize) -> Result<ArrayRef> {
    let (least, most) = f.arity();
    if args.len() < least || args.len() > most {
        return Err(bad(f, &format!("takes {least} to {most} arguments")));
    }
    // the pattern of the last row (a pattern of every row is the common case; a pattern per
    // row compiles per row and keeps one)
    let mut compiled: Option<((String, String), Regex)> = None;
    let mut texts: Vec<Option<String>> = Vec::with_capacity(n);
    let mut ints: Vec<Option<i64>> = Vec::with_capacity(n);
    for row in 0..n {
        if row % 1024 == 1023 {
            crate::interrupt::check()?;
        }
        let vals: Vec<Value> = args.iter().map(|a| value_at(a.as_ref(), row)).collect();
        if vals.iter().any(Value::is_null) {
            texts.push(None);
            ints.push(None);
            continue;
        }
        let text = |i: usize| crate::functions::text(&vals[i]).unwrap_or_default();
        let int = |i: usize, default: i64| -> Result<i64> {
            match vals.get(i) {
                None => Ok(default),
                Some(v) => crate::functions::int(v)?.ok_or_else(|| bad(f, "a NULL number")),
            }
        };
        let source = text(0);
        let flags_at = match f {
            Regexp::Substr => 4,
            Regexp::Replace | Regexp::Instr => 5,
            Regexp::Similar => 2,
        };
        let flags = vals
            .get(flags_at)
            .map(|_| text(flags_at))
            .unwrap_or_default();
        let key = (text(1), flags);
        let re = match compiled.take() {
            Some((k, re)) if k == key => (k, re),
            _ => {
                let re = compile(f, &key.0, &key.1)?;
                (key, re)
            }
        };
        let re = &compiled.insert(re).1;
        match f {
            Regexp::Similar => ints.push(Some(i64::from(re.is_match(&source)))),
            Regexp::Substr => {
                // (a position past the last character finds nothing, not an empty match)
                let at = start_byte(f, &source, int(2, 1)?)?.filter(|&b| b < source.len());
                let k = occurrence(f, int(3, 1)?, false)?;
                texts.push(
                    at.and_then(|at| re.find_iter(&source[at..]).nth(k - 1))
                        .map(|m| m.as_str().to_string()),
                );
            }
            Regexp::Instr => {
                let at = start_byte(f, &source, int(2, 1)?)?;
                let k = occurrence(f, int(3, 1)?, false)?;
                let after = match int(4, 0)? {
                    0 => false,
                    1 => true,
                    _ => return Err(bad(f, "the return option is 0 or 1")),
                };
                let found = at.and_then(|at| {
                    re.find_iter(&source[at..])
                        .nth(k - 1)
                        .map(|m| at + if after { m.end() } else { m.start() })
                });
                ints.push(Some(found.map_or(0, |b| chars_before(&source, b) + 1)));
            }
            Regexp::Replace => {
                let with = vals.get(2).map(|_| text(2)).unwrap_or_default();
                let at = start_byte(f, &source, int(3, 1)?)?;
                let k = occurrence(f, int(4, 0)?, true)?;
                let out = match at {
                    None => source.clone(),
                    Some(at) => {
                        let (head, tail) = source.split_at(at);
                        head.to_string() + &replace(re, tail, &with, k)
                    }
                };
                if out.len() > crate::limits::MAX_CHAR_BYTES {
                    return Err(crate::limits::too_long());
                }
                texts.push(Some(out));
            }
        }
    }
    Ok(match f.is_integer() {
        true => {
            let v: Vec<Value> = ints
                .into_iter()
                .map(|i| i.map_or(Value::Null, Value::Int))
                .collect();
            values_to_array(SqlType::Integer, v.iter())
        }
        false => Arc::new(StringArray::from(texts)),
    })
}

/// `pattern` with the `match` flags; REGEXP_SIMILAR's must match the whole source.
fn compile(f: Regexp, pattern: &str, flags: &str) -> Result<Regex> {
    let body = match f {
        Regexp::Similar => format!(r"\A(?:{pattern})\z"),
        _ => pattern.to_string(),
    };
    compile_for(f.name(), &body, flags)
}

/// `pattern` with the `match` flags (`i`, `c`, `n`, `m`, `x`, `l`), for the function `name`
/// (which errors name).
///
/// # Errors
/// 9919 for an unknown flag or a pattern that does not compile or is too big.
pub(crate) fn compile_for(name: &str, pattern: &str, flags: &str) -> Result<Regex> {
    let bad = |why: &str| Error::BadArgument(format!("{name}: {why}"));
    let mut settings = [false; 4]; // case blind, dot-all, multi-line, blanks ignored
    for c in flags.chars() {
        match c.to_ascii_lowercase() {
            'i' => settings[0] = true,
            'c' => settings[0] = false,
            'n' => settings[1] = true,
            'm' => settings[2] = true,
            'x' => settings[3] = true,
            'l' => {}
            other => return Err(bad(&format!("unknown match option '{other}'"))),
        }
    }
    RegexBuilder::new(pattern)
        .case_insensitive(settings[0])
        .dot_matches_new_line(settings[1])
        .multi_line(settings[2])
        .ignore_whitespace(settings[3])
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(SIZE_LIMIT)
        .build()
        .map_err(|e| bad(&format!("the pattern does not compile: {e}")))
}

/// The byte where the search starts: character `position` (1-based); `None` past the end.
fn start_byte(f: Regexp, s: &str, position: i64) -> Result<Option<usize>> {
    if position < 1 {
        return Err(bad(f, "the position is 1 or more"));
    }
    let skip = usize::try_from(position - 1).unwrap_or(usize::MAX);
    Ok(match s.char_indices().nth(skip) {
        Some((b, _)) => Some(b),
        None if skip == s.chars().count() => Some(s.len()),
        None => None,
    })
}

/// The occurrence asked for: 1 or more (0 too, meaning every one, where `all_allowed`).
fn occurrence(f: Regexp, k: i64, all_allowed: bool) -> Result<usize> {
    match k {
        0 if all_allowed => Ok(0),
        k if k >= 1 => Ok(usize::try_from(k).unwrap_or(usize::MAX)),
        _ => Err(bad(f, "the occurrence is 1 or more")),
    }
}

fn chars_before(s: &str, byte: usize) -> i64 {
    s[..byte].chars().count() as i64
}

/// `s` with the `k`-th match of `re` (0: every match) replaced by `with`, whose `\1`…`\9`
/// are the match's groups (`\\` a backslash).
fn replace(re: &Regex, s: &str, with: &str, k: usize) -> String {
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for (i, caps) in re.captures_iter(s).enumerate() {
        if k != 0 && i + 1 != k {
            continue;
        }
        let Some(m) = caps.get(0) else { continue };
        out.push_str(&s[last..m.start()]);
        let mut chars = with.chars().peekable();
        while let Some(c) = chars.next() {
            match (c, chars.peek().copied()) {
                ('\\', Some(d @ '0'..='9')) => {
                    chars.next();
                    let g = d.to_digit(10).unwrap_or(0) as usize;
                    out.push_str(caps.get(g).map_or("", |m| m.as_str()));
                }
                ('\\', Some('\\')) => {
                    chars.next();
                    out.push('\\');
                }
                _ => out.push(c),
            }
        }
        last = m.end();
        if k != 0 {
            break;
        }
    }
    out.push_str(&s[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(f: Regexp, args: &[&str]) -> Value {
        let arrays: Vec<ArrayRef> = args
            .iter()
            .map(|a| Arc::new(StringArray::from(vec![*a])) as ArrayRef)
            .collect();
        value_at(eval(f, &arrays, 1).unwrap().as_ref(), 0)
    }

    #[test]
    fn the_functions_follow_teradatas_arguments() {
        assert_eq!(
            run(Regexp::Substr, &["abc123def45", "[0-9]+"]),
            Value::Str("123".into())
        );
        assert_eq!(
            run(Regexp::Substr, &["abc123def45", "[0-9]+", "1", "2"]),
            Value::Str("45".into())
        );
        assert_eq!(run(Regexp::Substr, &["abc", "[0-9]+"]), Value::Null);
        assert_eq!(
            run(Regexp::Substr, &["ABC", "b", "1", "1", "i"]),
            Value::Str("B".into())
        );
        assert_eq!(
            run(Regexp::Replace, &["a1b22", "[0-9]+", "#"]),
            Value::Str("a#b#".into())
        );
        assert_eq!(
            run(Regexp::Replace, &["a1b22", "[0-9]+", "#", "1", "2"]),
            Value::Str("a1b#".into())
        );
        assert_eq!(
            run(Regexp::Replace, &["a1b22", "[0-9]"]),
            Value::Str("ab".into())
        );
        assert_eq!(
            run(
                Regexp::Replace,
                &["John Smith", "(\\w+) (\\w+)", "\\2, \\1"]
            ),
            Value::Str("Smith, John".into())
        );
        assert_eq!(run(Regexp::Instr, &["abc123", "[0-9]"]), Value::Int(4));
        assert_eq!(
            run(Regexp::Instr, &["abc123", "[0-9]+", "1", "1", "1"]),
            Value::Int(7)
        );
        assert_eq!(run(Regexp::Instr, &["abc", "[0-9]"]), Value::Int(0));
        assert_eq!(
            run(Regexp::Instr, &["ééa", "a"]),
            Value::Int(3),
            "characters, not bytes"
        );
        assert_eq!(run(Regexp::Similar, &["abc", "a.c"]), Value::Int(1));
        assert_eq!(run(Regexp::Similar, &["abcd", "a.c"]), Value::Int(0));
        assert_eq!(run(Regexp::Similar, &["ab", "a|ab"]), Value::Int(1));
        assert_eq!(run(Regexp::Similar, &["A.C", "...", "l"]), Value::Int(1));
        assert_eq!(
            run(Regexp::Substr, &["abc", "x*", "4"]),
            Value::Null,
            "past the end"
        );
    }

    #[test]
    fn bad_arguments_are_9919() {
        let code = |args: &[&str]| {
            let arrays: Vec<ArrayRef> = args
                .iter()
                .map(|a| Arc::new(StringArray::from(vec![*a])) as ArrayRef)
                .collect();
            eval(Regexp::Substr, &arrays, 1).unwrap_err().code().number
        };
        assert_eq!(code(&["abc", "("]), 9919);
        assert_eq!(code(&["abc", "a", "0"]), 9919);
        assert_eq!(code(&["abc", "a", "1", "0"]), 9919);
        assert_eq!(code(&["abc", "a", "1", "1", "q"]), 9919);
        assert_eq!(code(&["abc", "a{1000}{1000}"]), 9919);
        assert_eq!(code(&["abc"]), 9919);
    }
}
