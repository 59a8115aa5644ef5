//! Rows as data for other programs: CSV, TSV, JSON lines, or an Arrow IPC stream (tdlite's
//! `--format` and `.EXPORT CSV|TSV|JSON|ARROW FILE=`, beyond BTEQ), and BTEQ's `.EXPORT REPORT`
//! (the report the screen would show, written to a file).
//!
//! Invariants: CSV quotes a field only when it must (RFC 4180: a separator, quote, CR or LF in
//! it) and writes NULL as an empty field; TSV writes NULL as `\N` and escapes tab, newline and
//! backslash; JSON writes one object per row with numbers and booleans unquoted; every Arrow
//! query result is a complete IPC stream of its own (schema, batches, end marker).

use arrow::array::Array;
use arrow::datatypes::DataType;
use arrow::util::display::{ArrayFormatter, FormatOptions};
use std::io::Write;
use tdlite::Rows;

/// A data format for rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataFormat {
    /// Comma-separated values with a header line.
    Csv,
    /// Tab-separated values with a header line.
    Tsv,
    /// One JSON object per row and line.
    Json,
    /// An Arrow IPC stream per query.
    Arrow,
}

impl std::str::FromStr for DataFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "csv" => Ok(DataFormat::Csv),
            "tsv" => Ok(DataFormat::Tsv),
            "json" | "jsonl" => Ok(DataFormat::Json),
            "arrow" => Ok(DataFormat::Arrow),
            _ => Err(format!("unknown format '{s}' (csv, tsv, json or arrow)")),
        }
    }
}

/// Writes `rows` to `w` in `format`.
///
/// # Errors
/// I/O errors from `w`, or Arrow's when a value cannot be written.
pub fn write_rows(format: DataFormat, rows: &Rows, w: &mut dyn Write) -> Result<(), String> {
    match format {
        DataFormat::Arrow => write_arrow(rows, w),
        _ => write_text(format, rows, w).map_err(|e| e.to_string()),
    }
}

fn write_arrow(rows: &Rows, w: &mut dyn Write) -> Result<(), String> {
    let mut writer =
        arrow::ipc::writer::StreamWriter::try_new(w, &rows.schema).map_err(|e| e.to_string())?;
    for b in &rows.batches {
        writer.write(b).map_err(|e| e.to_string())?;
    }
    writer.finish().map_err(|e| e.to_string())
}

fn write_text(format: DataFormat, rows: &Rows, w: &mut dyn Write) -> std::io::Result<()> {
    let opts = FormatOptions::new()
        .with_timestamp_format(Some("%Y-%m-%d %H:%M:%S%.6f"))
        .with_time_format(Some("%H:%M:%S%.6f"))
        .with_date_format(Some("%Y-%m-%d"));
    let names: Vec<&str> = rows
        .schema
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    match format {
        DataFormat::Csv => writeln!(
            w,
            "{}",
            names.iter().map(|n| csv(n)).collect::<Vec<_>>().join(",")
        )?,
        DataFormat::Tsv => writeln!(
            w,
            "{}",
            names.iter().map(|n| tsv(n)).collect::<Vec<_>>().join("\t")
        )?,
        DataFormat::Json | DataFormat::Arrow => {}
    }
    let digits = tdlite::period_text::schema_digits(&rows.schema);
    for b in &rows.batches {
        // a PERIOD column as its text, with its fractional digits (the others as they are)
        let shown = tdlite::period_text::periods_as_text(b, &digits);
        let cols: Vec<(ArrayFormatter, &dyn Array)> = shown
            .iter()
            .map(|c| {
                let f = ArrayFormatter::try_new(c.as_ref(), &opts)
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
                Ok((f, c.as_ref()))
            })
            .collect::<std::io::Result<_>>()?;
        for i in 0..b.num_rows() {
            let cells = cols.iter().zip(&digits).map(|((f, a), d)| {
                (!a.is_null(i)).then(|| {
                    let text = crate::format::with_digits(f.value(i).to_string(), *d);
                    (text, a.data_type())
                })
            });
            let line = match format {
                DataFormat::Csv => cells
                    .map(|c| c.map_or(String::new(), |(v, _)| csv(&v)))
                    .collect::<Vec<_>>()
                    .join(","),
                DataFormat::Tsv => cells
                    .map(|c| c.map_or("\\N".to_string(), |(v, _)| tsv(&v)))
                    .collect::<Vec<_>>()
                    .join("\t"),
                _ => {
                    let fields: Vec<String> = names
                        .iter()
                        .zip(cells)
                        .map(|(n, c)| format!("{}:{}", json_string(n), json_value(c)))
                        .collect();
                    format!("{{{}}}", fields.join(","))
                }
            };
            writeln!(w, "{line}")?;
        }
    }
    w.flush()
}

fn csv(v: &str) -> String {
    if v.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", v.replace('"', "\"\""))
    } else {
        v.to_string()
    }
}

fn tsv(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('\t', "\\t")
        .replace('\n', "\\n")
        .replace('\r', "\\r")
}

fn json_string(v: &str) -> String {
    let mut out = String::with_capacity(v.len() + 2);
    out.push('"');
    for c in v.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn json_value(cell: Option<(String, &DataType)>) -> String {
    let Some((v, ty)) = cell else {
        return "null".to_string();
    };
    let number = ty.is_numeric() && v.parse::<f64>().is_ok_and(f64::is_finite);
    if number || (*ty == DataType::Boolean) {
        v
    } else {
        json_string(&v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{ArrayRef, BooleanArray, Int32Array, StringArray};
    use arrow::datatypes::{Field, Schema};
    use arrow::record_batch::RecordBatch;
    use std::sync::Arc;

    fn rows() -> Rows {
        let schema = Arc::new(Schema::new(vec![
            Field::new("n", DataType::Int32, true),
            Field::new("s", DataType::Utf8, true),
            Field::new("b", DataType::Boolean, true),
        ]));
        let cols: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from(vec![Some(1), None])),
            Arc::new(StringArray::from(vec![Some("a,\"b\"\tc\nd"), None])),
            Arc::new(BooleanArray::from(vec![Some(true), None])),
        ];
        Rows {
            schema: schema.clone(),
            batches: vec![RecordBatch::try_new(schema, cols).unwrap()],
        }
    }

    fn text(f: DataFormat) -> String {
        let mut out = Vec::new();
        write_rows(f, &rows(), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn csv_quotes_only_what_it_must() {
        assert_eq!(
            text(DataFormat::Csv),
            "n,s,b\n1,\"a,\"\"b\"\"\tc\nd\",true\n,,\n"
        );
    }

    #[test]
    fn tsv_escapes_and_writes_null_as_backslash_n() {
        assert_eq!(
            text(DataFormat::Tsv),
            "n\ts\tb\n1\ta,\"b\"\\tc\\nd\ttrue\n\\N\t\\N\t\\N\n"
        );
    }

    #[test]
    fn json_lines_keep_numbers_and_booleans_unquoted() {
        assert_eq!(
            text(DataFormat::Json),
            "{\"n\":1,\"s\":\"a,\\\"b\\\"\\tc\\nd\",\"b\":true}\n{\"n\":null,\"s\":null,\"b\":null}\n"
        );
    }

    #[test]
    fn an_arrow_stream_reads_back() {
        let mut out = Vec::new();
        write_rows(DataFormat::Arrow, &rows(), &mut out).unwrap();
        let reader = arrow::ipc::reader::StreamReader::try_new(&out[..], None).unwrap();
        let batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
        assert_eq!(batches, rows().batches);
    }
}
