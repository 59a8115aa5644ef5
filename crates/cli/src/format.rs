//! Turns results and errors into BTEQ-style text: status lines (`*** Query completed. 2 rows
//! found. 3 columns returned.`), a column-aligned table, and failures with a caret under the
//! error position (FORMAT mode's pages are laid out by page.rs). With page.rs, the only
//! place in tdlite that formats results as text.

use crate::page::{Clock, PageText, Paging, Row};
use arrow::array::Array;
use arrow::datatypes::DataType;
use arrow::util::display::{ArrayFormatter, FormatOptions};
use tdlite::{PositionedError, Rows, StatementKind, StatementResult};

fn rows_word(n: u64) -> String {
    match n {
        0 => "No rows".to_string(),
        1 => "One row".to_string(),
        n => format!("{n} rows"),
    }
}

fn cols_word(n: usize) -> String {
    if n == 1 {
        "One column".to_string()
    } else {
        format!("{n} columns")
    }
}

/// The BTEQ status line of a successful statement (and its warning's line, if it has one).
pub fn status_line(r: &StatementResult) -> String {
    let n = r.activity_count;
    let s = match r.kind {
        StatementKind::Select | StatementKind::Consume | StatementKind::Help => {
            let cols = r.rows.as_ref().map_or(0, |x| x.schema.fields().len());
            if n == 0 {
                "Query completed. No rows found.".to_string()
            } else {
                format!(
                    "Query completed. {} found. {} returned.",
                    rows_word(n),
                    cols_word(cols)
                )
            }
        }
        StatementKind::Show => "Text of DDL statement returned.".to_string(),
        StatementKind::Explain => "Explanation completed.".to_string(),
        StatementKind::Insert => format!("Insert completed. {} added.", rows_word(n)),
        StatementKind::Update => format!("Update completed. {} changed.", rows_word(n)),
        StatementKind::Delete => format!("Delete completed. {} removed.", rows_word(n)),
        StatementKind::CreateTable => "Table has been created.".to_string(),
        StatementKind::DropTable => "Table has been dropped.".to_string(),
        StatementKind::BeginTransaction => "BEGIN TRANSACTION completed.".to_string(),
        StatementKind::EndTransaction => "END TRANSACTION completed.".to_string(),
        StatementKind::Commit => "COMMIT done.".to_string(),
        StatementKind::Lock => "Locking completed.".to_string(),
        StatementKind::Rollback => "ROLLBACK done.".to_string(),
        StatementKind::AbortNotTaken => "ABORT not taken: its condition is not true.".to_string(),
        StatementKind::SetSession => "Session mode set.".to_string(),
        StatementKind::SetSessionOption => "Set SESSION accepted.".to_string(),
        StatementKind::SetTimeZone => "Set TIME ZONE accepted.".to_string(),
        StatementKind::QueryBand => "SET QUERY_BAND accepted.".to_string(),
        StatementKind::Diagnostic => "Null statement accepted.".to_string(),
        StatementKind::Merge => format!("Merge completed. {} affected.", rows_word(n)),
        StatementKind::AlterTable => "Table has been modified.".to_string(),
        StatementKind::Database => "New default database accepted.".to_string(),
        StatementKind::CreateIndex => "Index has been created.".to_string(),
        StatementKind::DropIndex => "Index has been dropped.".to_string(),
        StatementKind::CreateView => "View has been created.".to_string(),
        StatementKind::ReplaceView => "View has been replaced.".to_string(),
        StatementKind::DropView => "View has been dropped.".to_string(),
        StatementKind::CollectStatistics => "COLLECT STATISTICS accepted.".to_string(),
        StatementKind::DropStatistics => "DROP STATISTICS accepted.".to_string(),
        StatementKind::CreateDatabase => "Database has been created.".to_string(),
        StatementKind::CreateUser => "User has been created.".to_string(),
        StatementKind::DropDatabase => "Database has been dropped.".to_string(),
        StatementKind::DropUser => "User has been dropped.".to_string(),
        StatementKind::ModifyDatabase => "Database has been modified.".to_string(),
        StatementKind::DeleteDatabase => "Delete Database/User completed.".to_string(),
        StatementKind::Grant => "Grant accepted.".to_string(),
        StatementKind::Revoke => "Revoke accepted.".to_string(),
        StatementKind::Comment => "Comment has been set.".to_string(),
        StatementKind::Rename => "Table has been renamed.".to_string(),
        StatementKind::CreateMacro => "Macro has been created.".to_string(),
        StatementKind::ReplaceMacro => "Macro has been replaced.".to_string(),
        StatementKind::DropMacro => "Macro has been dropped.".to_string(),
        StatementKind::CreateProcedure => "Procedure has been created.".to_string(),
        StatementKind::ReplaceProcedure => "Procedure has been replaced.".to_string(),
        StatementKind::DropProcedure => "Procedure has been dropped.".to_string(),
        StatementKind::Call => "Procedure has been executed.".to_string(),
        StatementKind::Acknowledge => format!("Acknowledge completed. {} removed.", rows_word(n)),
        StatementKind::Release => format!("Release completed. {} returned.", rows_word(n)),
        StatementKind::CreateSubscriber => "Subscriber has been created.".to_string(),
        StatementKind::DropSubscriber => "Subscriber has been dropped.".to_string(),
    };
    match &r.warning {
        // a statement that succeeded with a warning (7473: a SAMPLE larger than the rows)
        Some(w) => format!(" *** {s}\n *** Warning: {} {}", w.code, w.message),
        None => format!(" *** {s}"),
    }
}

fn is_numeric(t: &DataType) -> bool {
    t.is_numeric()
}

/// BTEQ's report settings (`.SET NULL`, `SEPARATOR`, `TITLEDASHES`, `RETLIMIT`, `WIDTH`).
#[derive(Debug, Clone)]
pub struct Report {
    /// What a NULL shows as (`?`).
    pub null: String,
    /// What stands between columns (two blanks).
    pub separator: String,
    /// Whether a rule of dashes goes under the headings.
    pub titledashes: bool,
    /// At most this many rows are shown; 0 shows all.
    pub retlimit: u64,
    /// Report lines are cut at this many characters; `None` (tdlite's default) never cuts.
    pub width: Option<usize>,
    /// SIDETITLES: each row as lines of `title value`, rows apart by a blank line.
    pub sidetitles: bool,
    /// FOLDLINE: the columns after which a row goes on on the next line.
    pub foldline: Fold,
    /// The heading line (and its dashes) above the rows: off for BTEQ's field-mode data
    /// export (`.EXPORT DATA` with `RECORDMODE OFF`).
    pub headings: bool,
    /// FORMAT mode: pages, headings and footings, skipped lines, suppressed values.
    pub page: Paging,
}

/// `.SET FOLDLINE` (BTEQ Reference, FOLDLINE): after printing the value of a column whose
/// FOLDLINE is ON, BTEQ starts a new line for the row's remaining columns, two positions in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fold {
    /// No folding.
    Off,
    /// After every column.
    All,
    /// After these columns (numbered from 1).
    After(Vec<usize>),
}

impl Fold {
    /// Whether a row folds after column `c` (numbered from 1).
    fn after(&self, c: usize) -> bool {
        match self {
            Fold::Off => false,
            Fold::All => true,
            Fold::After(cols) => cols.contains(&c),
        }
    }
}

impl Default for Report {
    fn default() -> Self {
        Report {
            null: "?".into(),
            separator: "  ".into(),
            titledashes: true,
            retlimit: 0,
            width: None,
            sidetitles: false,
            foldline: Fold::Off,
            headings: true,
            page: Paging::default(),
        }
    }
}

/// Formats rows as an aligned table: headings (TITLE or name), a dashed rule, then the rows;
/// NULL is shown as `?` as in BTEQ (the settings in `report` change each of these). With
/// FORMAT ON (and SIDETITLES OFF) the table is laid out in pages (page.rs).
pub fn table(rows: &Rows, report: &Report) -> String {
    let opts = FormatOptions::new()
        .with_null(&report.null)
        .with_timestamp_format(Some("%Y-%m-%d %H:%M:%S%.6f"))
        .with_time_format(Some("%H:%M:%S%.6f"))
        .with_date_format(Some("%Y-%m-%d"));
    let fields = rows.schema.fields();
    let heads: Vec<String> = fields
        .iter()
        .map(|f| {
            f.metadata()
                .get("title")
                .cloned()
                .unwrap_or_else(|| f.name().clone())
        })
        .collect();
    // a column's FORMAT says how its values are shown (the text it writes)
    let masks: Vec<Option<&String>> = fields.iter().map(|f| f.metadata().get("format")).collect();
    let time_digits: Vec<Option<usize>> = fields
        .iter()
        .map(|f| tdlite::period_text::fraction_digits(f))
        .collect();
    let mut cells: Vec<Vec<String>> = Vec::new();
    for b in &rows.batches {
        // (a column whose FORMAT applied is written by it; the others as usual)
        let mut digits = time_digits.clone();
        let shown: Vec<arrow::array::ArrayRef> = b
            .columns()
            .iter()
            .zip(&masks)
            .zip(&mut digits)
            .map(|((c, m), d)| {
                match m
                    .and_then(|m| tdlite::display_with_format(c, m))
                    .or_else(|| tdlite::period_text::display(c, *d))
                    // a DECIMAL or FLOAT as Teradata's default FORMAT writes it: `.50`, `123.`,
                    // `1.50000000000000E 000`
                    .or_else(|| tdlite::numeric_text(c))
                {
                    Some(text) => {
                        *d = None;
                        text
                    }
                    None => c.clone(),
                }
            })
            .collect();
        let fmts: Vec<ArrayFormatter<'_>> = shown
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &opts).expect("every tdlite type formats"))
            .collect();
        for i in 0..b.num_rows() {
            if report.retlimit > 0 && cells.len() as u64 >= report.retlimit {
                break;
            }
            cells.push(
                fmts.iter()
                    .zip(&digits)
                    .zip(b.columns())
                    .map(|((f, d), c)| {
                        // the NULL text stays as it is
                        let d = d.filter(|_| !c.is_null(i));
                        with_digits(f.value(i).to_string(), d)
                    })
                    .collect(),
            );
        }
    }
    // a TITLE's `//` breaks the heading into lines, stacked so that every heading's last
    // line sits on the dashes (BTEQ's multi-line titles)
    let titled: Vec<bool> = fields
        .iter()
        .map(|f| f.metadata().contains_key("title"))
        .collect();
    let head_lines = heading_lines(&heads, &titled);
    let widths: Vec<usize> = (0..heads.len())
        .map(|c| {
            cells
                .iter()
                .map(|r| r[c].chars().count())
                .chain(head_lines.iter().map(|l| l[c].chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let right: Vec<bool> = fields.iter().map(|f| is_numeric(f.data_type())).collect();
    // one row (or heading, or dashes) as its report lines: folded after the FOLDLINE columns,
    // the lines after the first two positions in, each cut at WIDTH
    let line = |vals: &[String]| -> Vec<String> {
        let mut groups: Vec<Vec<String>> = vec![Vec::new()];
        for (c, v) in vals.iter().enumerate() {
            let cell = match right[c] {
                true => pad(v, widths[c], Side::Start),
                false => pad(v, widths[c], Side::End),
            };
            if let Some(g) = groups.last_mut() {
                g.push(cell);
            }
            if report.foldline.after(c + 1) && c + 1 < vals.len() {
                groups.push(Vec::new());
            }
        }
        groups
            .iter()
            .enumerate()
            .flat_map(|(k, g)| {
                let indent = if k == 0 { "" } else { "  " };
                let l = format!("{indent}{}", g.join(&report.separator));
                fit(l.trim_end(), report)
            })
            .collect()
    };
    let mut out = String::new();
    let paging = &report.page;
    if paging.on && report.headings && !report.sidetitles && !cells.is_empty() {
        let mut titles: Vec<String> = head_lines.iter().flat_map(|l| line(l)).collect();
        if report.titledashes {
            let dashes: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
            titles.extend(line(&dashes));
        }
        let breaks: Vec<(usize, bool)> =
            (0..cells.len()).map(|i| paging.before(&cells, i)).collect();
        // a row that starts a page shows every value: it is kept as it is for that
        let first: Vec<Vec<String>> = cells.iter().map(|r| line(r)).collect();
        paging.suppress(&mut cells);
        let page_rows: Vec<Row> = cells
            .iter()
            .zip(first)
            .zip(breaks)
            .map(|((r, first), (gap, new_page))| Row {
                lines: line(r),
                first,
                gap,
                new_page,
            })
            .collect();
        // headings are placed on WIDTH, or on the report's own width without one
        let width = report.width.unwrap_or_else(|| {
            titles
                .iter()
                .chain(page_rows.iter().flat_map(|r| &r.first))
                .map(|l| l.chars().count())
                .max()
                .unwrap_or(0)
        });
        let clock = Clock::now();
        let text = PageText {
            width,
            limit: report.width,
            clock: &clock,
        };
        out.push_str(&paging.pages(&titles, &page_rows, &text));
    } else {
        let mut lines = Vec::new();
        if report.sidetitles {
            let heads: Vec<String> = heads
                .iter()
                .zip(fields.iter())
                .map(|(h, f)| match f.metadata().contains_key("title") {
                    true => h.replace("//", " "),
                    false => h.clone(),
                })
                .collect();
            let title_width = heads.iter().map(|h| h.chars().count()).max().unwrap_or(0);
            for (i, r) in cells.iter().enumerate() {
                if i > 0 {
                    lines.push(String::new());
                }
                for (h, v) in heads.iter().zip(r) {
                    let l = format!("{}{}{v}", pad(h, title_width, Side::End), report.separator);
                    lines.extend(fit(l.trim_end(), report));
                }
            }
        } else if !report.headings {
            lines.extend(cells.iter().flat_map(|r| line(r)));
        } else {
            lines.extend(head_lines.iter().flat_map(|l| line(l)));
            if report.titledashes {
                let dashes: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
                lines.extend(line(&dashes));
            }
            lines.extend(cells.iter().flat_map(|r| line(r)));
        }
        for l in lines {
            out.push_str(&l);
            out.push('\n');
        }
    }
    if report.retlimit > 0 && rows.num_rows() as u64 > report.retlimit {
        out.push_str(" *** Warning: RetLimit exceeded. Ignoring the rest of the output.\n");
    }
    out
}

/// The headings as lines: each TITLE (`titled`) split at `//`, the shorter ones padded with
/// empty lines at the top, so that `lines[k][c]` is column c's text on heading line k.
fn heading_lines(heads: &[String], titled: &[bool]) -> Vec<Vec<String>> {
    let split: Vec<Vec<&str>> = heads
        .iter()
        .zip(titled)
        .map(|(h, &t)| match t {
            true => h.split("//").collect(),
            false => vec![h.as_str()],
        })
        .collect();
    let depth = split.iter().map(Vec::len).max().unwrap_or(1).max(1);
    (0..depth)
        .map(|k| {
            split
                .iter()
                .map(|parts| {
                    let skip = depth - parts.len();
                    match k.checked_sub(skip) {
                        Some(j) => parts[j].to_string(),
                        None => String::new(),
                    }
                })
                .collect()
        })
        .collect()
}

/// `text` (a time written with six fractional digits) with only `digits` of them.
pub fn with_digits(text: String, digits: Option<usize>) -> String {
    match (digits, text.rfind('.')) {
        (Some(d), Some(dot)) if text.len() - dot == 7 => {
            let keep = if d == 0 { dot } else { dot + 1 + d };
            text[..keep].to_string()
        }
        _ => text,
    }
}

/// A report line on WIDTH: cut there (FOLDLINE folds at columns first); as it is without a
/// width.
fn fit(l: &str, report: &Report) -> Vec<String> {
    match report.width {
        Some(w) => vec![l.chars().take(w).collect::<String>().trim_end().to_string()],
        None => vec![l.to_string()],
    }
}

/// Formats a statement's result: status line, then the rows (if any).
pub fn result(r: &StatementResult, report: &Report) -> String {
    let mut out = status_line(r);
    out.push('\n');
    if let Some(rows) = &r.rows {
        if matches!(r.kind, StatementKind::Show | StatementKind::Explain) {
            // SHOW: one block of DDL text; EXPLAIN: the plan's lines as one block
            let explain = r.kind == StatementKind::Explain;
            if explain {
                out.push('\n');
            }
            for b in &rows.batches {
                if let Some(s) = b
                    .column(0)
                    .as_any()
                    .downcast_ref::<arrow::array::StringArray>()
                {
                    for v in s.iter().flatten() {
                        if !explain {
                            out.push('\n');
                        }
                        out.push_str(v);
                        out.push('\n');
                    }
                }
            }
        } else if r.activity_count > 0 {
            out.push('\n');
            out.push_str(&table(rows, report));
        }
    }
    out
}

/// Formats a failure as BTEQ does, with the request line and a caret under the position of a
/// syntax error.
///
/// `request_only` says the error undid only its request (ANSI mode): BTEQ prints that as an
/// *Error*; an error that rolled back the transaction (every error in Teradata mode) is a
/// *Failure*.
pub fn failure(e: &PositionedError, request: &str, request_only: bool) -> String {
    let code = e.code().number;
    let kind = if request_only { "Error" } else { "Failure" };
    let mut out = format!(" *** {kind} {code} {}\n", e.error);
    if let (Some(loc), tdlite::Error::Parse(_)) = (e.location, &e.error) {
        if let Some(line) = request.lines().nth(loc.line.saturating_sub(1) as usize) {
            let col = loc.column.saturating_sub(1) as usize;
            let prefix: String = line
                .chars()
                .take(col)
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            out.push_str(&format!("     {line}\n     {prefix}^\n"));
        }
        out.push_str(&format!(
            "                Statement# {}, Line {}, Column {}\n",
            e.statement, loc.line, loc.column
        ));
    } else {
        out.push_str(&format!(
            "                Statement# {}, Info =0\n",
            e.statement
        ));
    }
    out
}

/// BTEQ's default severity of an error (its return code unless `.SET ERRORLEVEL` says
/// otherwise): 0 for 2631 (a deadlock BTEQ retries), 4 for the warnings BTEQ lists (3803 table
/// exists, 3737 name truncated, …), 12 for tdlite's internal errors and database I/O or damage
/// (9914, 9916), 8 for everything else.
pub fn return_code(e: &PositionedError) -> i32 {
    default_severity(e.code().number)
}

/// The codes whose default severity is not 8 (see [`default_severity`]).
pub const SPECIAL_SEVERITIES: [u32; 13] = [
    2631, 2580, 2667, 3534, 3666, 3737, 3747, 3803, 3804, 3805, 9914, 9916, 9999,
];

/// BTEQ's default severity of an error code: 0 for a deadlock (retried), 4 for the warnings,
/// 12 for tdlite's internal errors and database damage, 8 for every other code.
pub fn default_severity(code: u32) -> i32 {
    match code {
        2631 => 0,
        2580 | 2667 | 3534 | 3666 | 3737 | 3747 | 3803 | 3804 | 3805 => 4,
        9999 | 9914 | 9916 => 12,
        _ => 8,
    }
}

/// Which end of a cell [`pad`] fills.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    /// Blanks before the value (numbers, right-aligned).
    Start,
    /// Blanks after it.
    End,
}

/// `v` padded with blanks to `width` characters. `format!`'s width panics above 65,535, and a
/// column (a value or a heading) can be wider.
pub(crate) fn pad(v: &str, width: usize, side: Side) -> String {
    let fill = width.saturating_sub(v.chars().count());
    let mut out = String::with_capacity(v.len() + fill);
    if side == Side::End {
        out.push_str(v);
    }
    out.extend(std::iter::repeat_n(' ', fill));
    if side == Side::Start {
        out.push_str(v);
    }
    out
}
