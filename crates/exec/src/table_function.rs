//! Table functions in FROM: `TABLE (f(args) RETURNS (c1 type, c2 type, c3 type)) AS d`, whose
//! rows are computed from each input row's arguments (SQL Functions, Expressions, and
//! Predicates, "STRTOK_SPLIT_TO_TABLE" and "REGEXP_SPLIT_TO_TABLE"):
//!
//! - `STRTOK_SPLIT_TO_TABLE(inkey, instring, delimiters)`: one row per token of `instring`, a
//!   token being a run of characters none of which is in `delimiters` (as STRTOK splits: empty
//!   tokens never appear; NULL delimiters are a blank). Columns: the key, the token's number
//!   (1, 2, …), the token.
//! - `REGEXP_SPLIT_TO_TABLE(inkey, source, pattern [, match])`: one row per piece of `source`
//!   between the pattern's non-empty matches (the whole source when nothing matches).
//!
//! A NULL string gives no row. The RETURNS clause names the three columns and their types;
//! the values are converted to them as CAST converts (text longer than a VARCHAR(n) is cut in
//! Teradata mode). The parser hands the clause over as strings after the call
//! (tdlite_parser::RETURNS_CALL); the FROM clause's reading (join.rs) evaluates the
//! arguments over the rows of the table they name.
//!
//! Invariant: the output rows follow the input rows' order, and each input row's tokens
//! in their order in the string.

use crate::error::{Error, Result};
use crate::expr::cast_to_sql;
use crate::result::Rows;
use arrow::array::{ArrayRef, Int32Array, StringArray, UInt32Array};
use arrow::datatypes::{Field, Schema};
use arrow::record_batch::RecordBatch;
use std::sync::Arc;
use tdlite_storage::types::{value_at, SqlType};

/// Which table function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TableFn {
    /// `STRTOK_SPLIT_TO_TABLE`.
    StrtokSplit,
    /// `REGEXP_SPLIT_TO_TABLE`.
    RegexpSplit,
}

impl TableFn {
    /// The function a name calls (with or without `TD_SYSFNLIB.`).
    pub(crate) fn lookup(name: &str) -> Option<TableFn> {
        let upper = name.to_ascii_uppercase();
        let bare = upper.strip_prefix("TD_SYSFNLIB.").unwrap_or(&upper);
        Some(match bare {
            "STRTOK_SPLIT_TO_TABLE" => TableFn::StrtokSplit,
            "REGEXP_SPLIT_TO_TABLE" => TableFn::RegexpSplit,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            TableFn::StrtokSplit => "STRTOK_SPLIT_TO_TABLE",
            TableFn::RegexpSplit => "REGEXP_SPLIT_TO_TABLE",
        }
    }

    /// The arguments it takes, fewest and most.
    fn arity(self) -> (usize, usize) {
        match self {
            TableFn::StrtokSplit => (3, 3),
            TableFn::RegexpSplit => (3, 4),
        }
    }
}

/// The columns a RETURNS clause declares, each text a column definition as CREATE TABLE
/// reads them (`token VARCHAR(20) CHARACTER SET UNICODE`); the name and the type are used.
///
/// # Errors
/// 3706 for a definition that does not parse; 9910 for a type tdlite does not know; 9913 for
/// a name written twice.
pub(crate) fn returns(defs: &[String]) -> Result<Vec<(String, SqlType)>> {
    let mut out: Vec<(String, SqlType)> = Vec::with_capacity(defs.len());
    for d in defs {
        let col = tdlite_parser::parse_column_definition(d)?;
        if out.iter().any(|(n, _)| n.eq_ignore_ascii_case(&col.name)) {
            return Err(Error::TypeMismatch(format!(
                "column '{}' is defined twice",
                col.name
            )));
        }
        out.push((
            col.name.clone(),
            crate::types::storage_type(&col.data_type)?,
        ));
    }
    Ok(out)
}

/// The rows `f` gives for `rows` input rows of its arguments `args`, as the columns
/// `columns` declare.
///
/// # Errors
/// 9913 for a wrong number of arguments or a RETURNS clause of other than three columns;
/// 9919 for a pattern that does not compile; the conversions' errors (3535, 2616).
pub(crate) fn run(
    f: TableFn,
    args: &[ArrayRef],
    rows: usize,
    columns: &[(String, SqlType)],
) -> Result<Rows> {
    let (least, most) = f.arity();
    if args.len() < least || args.len() > most {
        return Err(Error::TypeMismatch(format!(
            "{} takes {least} to {most} arguments",
            f.name()
        )));
    }
    if columns.len() != 3 {
        return Err(Error::TypeMismatch(format!(
            "{} RETURNS three columns: the key, the token's number, the token",
            f.name()
        )));
    }
    let text = |k: usize, i: usize| crate::functions::text(&value_at(args[k].as_ref(), i));
    let mut from_row: Vec<u32> = Vec::new();
    let mut numbers: Vec<i32> = Vec::new();
    let mut tokens: Vec<String> = Vec::new();
    let mut push = |row: usize, pieces: &mut dyn Iterator<Item = &str>| {
        for (k, piece) in pieces.enumerate() {
            from_row.push(row as u32);
            numbers.push(i32::try_from(k + 1).unwrap_or(i32::MAX));
            tokens.push(piece.to_string());
        }
    };
    for i in 0..rows {
        let Some(s) = text(1, i) else { continue };
        match f {
            TableFn::StrtokSplit => {
                let delims: Vec<char> = text(2, i).unwrap_or_else(|| " ".into()).chars().collect();
                push(
                    i,
                    &mut s.split(|c| delims.contains(&c)).filter(|t| !t.is_empty()),
                );
            }
            TableFn::RegexpSplit => {
                let Some(pattern) = text(2, i) else { continue };
                let flags = args.get(3).and_then(|_| text(3, i)).unwrap_or_default();
                let re = crate::regexp::compile_for(f.name(), &pattern, &flags)?;
                let mut pieces = Vec::new();
                let mut at = 0;
                for m in re.find_iter(&s).filter(|m| !m.is_empty()) {
                    pieces.push(&s[at..m.start()]);
                    at = m.end();
                }
                pieces.push(&s[at..]);
                push(i, &mut pieces.into_iter());
            }
        }
    }
    let keys = arrow::compute::take(args[0].as_ref(), &UInt32Array::from(from_row), None)?;
    let made: [ArrayRef; 3] = [
        keys,
        Arc::new(Int32Array::from(numbers)),
        Arc::new(StringArray::from(tokens)),
    ];
    let mut fields = Vec::with_capacity(3);
    let mut arrays = Vec::with_capacity(3);
    for ((name, ty), a) in columns.iter().zip(made) {
        let a = cast_to_sql(&a, *ty)?;
        fields.push(Field::new(name, a.data_type().clone(), true));
        arrays.push(a);
    }
    let schema = Arc::new(Schema::new(fields));
    let batch = RecordBatch::try_new(schema.clone(), arrays)?;
    Ok(Rows {
        schema,
        batches: vec![batch],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Array, AsArray};

    fn columns() -> Vec<(String, SqlType)> {
        returns(&[
            "outkey INTEGER".into(),
            "tokennum INTEGER".into(),
            "\"Token\" VARCHAR ( 5 )".into(),
        ])
        .unwrap()
    }

    fn tokens(rows: &Rows) -> Vec<String> {
        let b = &rows.batches[0];
        let (k, n, t) = (
            b.column(0).as_primitive::<arrow::datatypes::Int32Type>(),
            b.column(1).as_primitive::<arrow::datatypes::Int32Type>(),
            b.column(2).as_string::<i32>(),
        );
        (0..b.num_rows())
            .map(|i| format!("{}/{}/{}", k.value(i), n.value(i), t.value(i)))
            .collect()
    }

    #[test]
    fn strtok_splits_at_any_delimiter_and_skips_empty_tokens() {
        let args: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from(vec![7, 8, 9])),
            Arc::new(StringArray::from(vec![
                Some(";a;;bc,d"),
                None,
                Some("toolongtoken"),
            ])),
            Arc::new(StringArray::from(vec![";,", ";,", ";,"])),
        ];
        let rows = run(TableFn::StrtokSplit, &args, 3, &columns()).unwrap();
        assert_eq!(rows.schema.field(2).name(), "Token");
        // the NULL string gives no row; a token longer than VARCHAR(5) is cut
        assert_eq!(tokens(&rows), ["7/1/a", "7/2/bc", "7/3/d", "9/1/toolo"]);
    }

    #[test]
    fn regexp_splits_between_non_empty_matches() {
        let args: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from(vec![1, 2])),
            Arc::new(StringArray::from(vec!["The2134quick78fox", "none"])),
            Arc::new(StringArray::from(vec!["[0-9]*", "[0-9]*"])),
        ];
        let rows = run(TableFn::RegexpSplit, &args, 2, &columns()).unwrap();
        assert_eq!(
            tokens(&rows),
            ["1/1/The", "1/2/quick", "1/3/fox", "2/1/none"]
        );
    }

    #[test]
    fn returns_needs_three_typed_columns() {
        assert!(returns(&["x".into()]).is_err());
        let one: ArrayRef = Arc::new(Int32Array::from(vec![1]));
        let args: Vec<ArrayRef> = (0..3).map(|_| one.clone()).collect();
        let two = &columns()[..2];
        assert!(run(TableFn::StrtokSplit, &args, 1, two).is_err());
        assert!(run(TableFn::StrtokSplit, &args[..2], 1, &columns()).is_err());
        assert_eq!(args[0].len(), 1);
    }
}
