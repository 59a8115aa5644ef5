//! BTEQ's FORMAT mode (`.SET FORMAT ON`): a report laid out in pages for a printer. Each page
//! starts with the HEADING (or RTITLE) lines and a blank line, then the column titles, then as
//! many rows as fit in PAGELENGTH lines, then (with a FOOTING) blank lines down to the footing
//! at the foot of the page. SKIPLINE / SKIPDOUBLE put one / two blank lines before a row whose
//! value in a named column changed, PAGEBREAK starts a new page there, SUPPRESS blanks a value
//! that repeats the one above it, FORMCHAR starts each page after the first with a form feed.
//!
//! Heading and footing text: `//` starts a new line (ten lines at most), `||` splits a line
//! into sections (one: centred; two: left and right; three: left, centre and right, on the
//! report's width), `&DATE`, `&TIME` and `&PAGE` are the date (`YYYY-MM-DD`), the time
//! (`HH:MM:SS`) and the page number. RTITLE is a heading with the date at the left and
//! `Page n` at the right of its first line.
//!
//! Invariant: every page holds at least one row, so a page length smaller than the page's
//! heading, titles and footing still makes progress (the page is then longer than asked).

use std::collections::BTreeSet;

/// Columns named by a SKIPLINE, SKIPDOUBLE, SUPPRESS or PAGEBREAK control.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Columns {
    /// Every column (`ON ALL`, or `ON` alone).
    pub all: bool,
    /// Columns by number, from 1.
    pub listed: BTreeSet<usize>,
    /// Columns taken out of ALL by `OFF n`.
    pub excluded: BTreeSet<usize>,
}

impl Columns {
    /// `ON|OFF [ALL | n, …]`: `cols` is `None` for ALL (or no list).
    pub fn set(&mut self, on: bool, cols: Option<&[usize]>) {
        match (on, cols) {
            (true, None) => {
                *self = Columns {
                    all: true,
                    ..Columns::default()
                }
            }
            (false, None) => *self = Columns::default(),
            (true, Some(cols)) => {
                for c in cols {
                    self.listed.insert(*c);
                    self.excluded.remove(c);
                }
            }
            (false, Some(cols)) => {
                for c in cols {
                    self.listed.remove(c);
                    if self.all {
                        self.excluded.insert(*c);
                    }
                }
            }
        }
    }

    /// True if the control names column `c` (from 0).
    pub fn has(&self, c: usize) -> bool {
        let n = c + 1;
        self.all && !self.excluded.contains(&n) || self.listed.contains(&n)
    }

    /// True if the control names any column.
    pub fn any(&self) -> bool {
        self.all || !self.listed.is_empty()
    }
}

/// The top lines of each page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Title {
    /// `.SET HEADING 'text'`.
    Heading(String),
    /// `.SET RTITLE 'text'`: with the date and the page number.
    RTitle(String),
}

/// The FORMAT-mode settings.
#[derive(Debug, Clone)]
pub struct Paging {
    /// `.SET FORMAT ON`: every other setting here takes effect only then.
    pub on: bool,
    /// HEADING or RTITLE (the later one wins, as in BTEQ).
    pub title: Option<Title>,
    /// FOOTING.
    pub footing: Option<String>,
    /// PAGELENGTH: lines per page (55).
    pub length: usize,
    /// FORMCHAR: what starts each page after the first (`None`: nothing).
    pub formchar: Option<String>,
    /// SKIPLINE.
    pub skipline: Columns,
    /// SKIPDOUBLE.
    pub skipdouble: Columns,
    /// SUPPRESS.
    pub suppress: Columns,
    /// PAGEBREAK.
    pub pagebreak: Columns,
}

impl Default for Paging {
    fn default() -> Self {
        Paging {
            on: false,
            title: None,
            footing: None,
            length: 55,
            formchar: None,
            skipline: Columns::default(),
            skipdouble: Columns::default(),
            suppress: Columns::default(),
            pagebreak: Columns::default(),
        }
    }
}

/// When the report is made: what `&DATE` and `&TIME` are.
#[derive(Debug, Clone)]
pub struct Clock {
    /// `YYYY-MM-DD`.
    pub date: String,
    /// `HH:MM:SS`.
    pub time: String,
}

impl Clock {
    /// The local date and time now.
    pub fn now() -> Clock {
        let now = chrono::Local::now();
        Clock {
            date: now.format("%Y-%m-%d").to_string(),
            time: now.format("%H:%M:%S").to_string(),
        }
    }
}

/// One row of the report: its lines (more than one when folded) and what comes before it.
pub struct Row {
    /// The row's lines.
    pub lines: Vec<String>,
    /// Its lines without SUPPRESS, for a row that starts a page.
    pub first: Vec<String>,
    /// Blank lines before it (SKIPLINE / SKIPDOUBLE), unless it starts a page.
    pub gap: usize,
    /// PAGEBREAK: it starts a new page (unless it already does).
    pub new_page: bool,
}

impl Paging {
    /// What goes before row `i` of `cells`: blank lines and a page break, by the values that
    /// changed since the row above.
    pub fn before(&self, cells: &[Vec<String>], i: usize) -> (usize, bool) {
        if i == 0 {
            return (0, false);
        }
        let changed = |cols: &Columns| {
            cols.any() && (0..cells[i].len()).any(|c| cols.has(c) && cells[i][c] != cells[i - 1][c])
        };
        let gap = if changed(&self.skipdouble) {
            2
        } else {
            usize::from(changed(&self.skipline))
        };
        (gap, changed(&self.pagebreak))
    }

    /// SUPPRESS: a value equal to the one above it becomes blank (compared before blanking).
    pub fn suppress(&self, cells: &mut [Vec<String>]) {
        if !self.suppress.any() {
            return;
        }
        for i in (1..cells.len()).rev() {
            for c in 0..cells[i].len() {
                if self.suppress.has(c) && cells[i][c] == cells[i - 1][c] {
                    cells[i][c].clear();
                }
            }
        }
    }

    /// Lays out the report in pages: `titles` (column titles and their dashes) and `rows`, on
    /// a page `width` characters wide; heading and footing lines are cut at `limit` (WIDTH).
    pub fn pages(&self, titles: &[String], rows: &[Row], page: &PageText<'_>) -> String {
        let mut out = String::new();
        // a blank line and the footing's lines
        let footer_len = self
            .footing
            .as_ref()
            .map_or(0, |f| 1 + f.split("//").take(10).count());
        let mut number = 0;
        let mut used = 0;
        let mut rows_on_page = 0;
        for row in rows {
            let gap = if rows_on_page == 0 { 0 } else { row.gap };
            let fits = used + gap + row.lines.len() + footer_len <= self.length;
            if rows_on_page > 0 && (!fits || row.new_page) {
                self.finish(&mut out, used, page, number);
                rows_on_page = 0;
            }
            let lines = if rows_on_page == 0 {
                number += 1;
                used = self.top(&mut out, number, titles, page);
                &row.first
            } else {
                blank_lines(&mut out, gap);
                used += gap;
                &row.lines
            };
            for l in lines {
                out.push_str(l);
                out.push('\n');
            }
            used += lines.len();
            rows_on_page += 1;
        }
        if rows_on_page > 0 {
            self.finish(&mut out, used, page, number);
        }
        out
    }

    /// Writes a page's first lines (the form feed after the first page, heading, blank,
    /// titles); returns how many lines that is.
    fn top(
        &self,
        out: &mut String,
        number: usize,
        titles: &[String],
        page: &PageText<'_>,
    ) -> usize {
        let mut lines: Vec<String> = match &self.title {
            Some(Title::Heading(h)) => page.lines(h, number),
            Some(Title::RTitle(t)) => {
                let mut t = t.splitn(2, "//");
                let first = format!("&DATE||{}||Page &PAGE", t.next().unwrap_or(""));
                let mut lines = page.lines(&first, number);
                if let Some(rest) = t.next() {
                    lines.extend(page.lines(rest, number));
                }
                lines
            }
            None => Vec::new(),
        };
        if !lines.is_empty() {
            lines.push(String::new());
        }
        lines.extend(titles.iter().cloned());
        if number > 1 {
            if let Some(ff) = &self.formchar {
                out.push_str(ff);
            }
        }
        for l in &lines {
            out.push_str(l);
            out.push('\n');
        }
        lines.len()
    }

    /// Ends page `number`, `used` lines long: with a footing, blank lines down to it and the
    /// footing itself.
    fn finish(&self, out: &mut String, used: usize, page: &PageText<'_>, number: usize) {
        if let Some(f) = &self.footing {
            let footer = page.lines(f, number);
            blank_lines(out, self.length.saturating_sub(used + 1 + footer.len()) + 1);
            for l in footer {
                out.push_str(&l);
                out.push('\n');
            }
        }
    }
}

fn blank_lines(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n('\n', n));
}

/// What heading and footing text is laid out with.
pub struct PageText<'a> {
    /// The width sections are placed on.
    pub width: usize,
    /// WIDTH: lines are cut there.
    pub limit: Option<usize>,
    /// `&DATE` and `&TIME`.
    pub clock: &'a Clock,
}

impl PageText<'_> {
    /// The lines of heading or footing `text` on page `number`.
    fn lines(&self, text: &str, number: usize) -> Vec<String> {
        text_lines(text, self.width, self.clock, number)
            .into_iter()
            .map(|l| match self.limit {
                Some(w) => l.chars().take(w).collect::<String>().trim_end().to_string(),
                None => l,
            })
            .collect()
    }
}

/// HEADING / FOOTING text as lines: `//` breaks, `||` sections, `&DATE`, `&TIME`, `&PAGE`.
fn text_lines(text: &str, width: usize, clock: &Clock, page: usize) -> Vec<String> {
    text.split("//")
        .take(10)
        .map(|line| {
            let line = line
                .replace("&DATE", &clock.date)
                .replace("&TIME", &clock.time)
                .replace("&PAGE", &page.to_string());
            let sections: Vec<&str> = line.splitn(3, "||").collect();
            place(&sections, width)
        })
        .collect()
}

/// Sections on a line `width` wide: one centred; two left and right; three left, centre, right.
fn place(sections: &[&str], width: usize) -> String {
    let len = |s: &str| s.chars().count();
    let centred = |s: &str| format!("{}{s}", " ".repeat(width.saturating_sub(len(s)) / 2));
    let line = match sections {
        [one] => centred(one),
        [left, right] => {
            let gap = width.saturating_sub(len(left) + len(right)).max(1);
            format!("{left}{}{right}", " ".repeat(gap))
        }
        [left, centre, right, ..] => {
            let mut line: Vec<char> = centred(centre).chars().collect();
            line.resize(width.max(line.len()), ' ');
            // the left and right sections go over the blanks around the centre
            for (i, c) in left.chars().enumerate() {
                if let Some(slot) = line.get_mut(i) {
                    *slot = c;
                }
            }
            let start = line.len().saturating_sub(len(right));
            line.truncate(start);
            line.extend(right.chars());
            line.into_iter().collect()
        }
        [] => String::new(),
    };
    line.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock() -> Clock {
        Clock {
            date: "2026-11-30".into(),
            time: "17:05:00".into(),
        }
    }

    fn rows(values: &[&str]) -> Vec<Row> {
        values
            .iter()
            .map(|v| Row {
                lines: vec![v.to_string()],
                first: vec![v.to_string()],
                gap: 0,
                new_page: false,
            })
            .collect()
    }

    #[test]
    fn sections_are_placed_on_the_width() {
        assert_eq!(place(&["Sales"], 11), "   Sales");
        assert_eq!(place(&["L", "R"], 6), "L    R");
        assert_eq!(place(&["L", "mid", "R"], 9), "L  mid  R");
        assert_eq!(
            text_lines("Report//&DATE||Page &PAGE", 24, &clock(), 3),
            vec![
                "         Report".to_string(),
                "2026-11-30        Page 3".into()
            ]
        );
    }

    #[test]
    fn pages_repeat_heading_and_titles_and_end_with_the_footing() {
        let paging = Paging {
            on: true,
            title: Some(Title::Heading("Top".into())),
            footing: Some("end of page &PAGE".into()),
            length: 8,
            ..Paging::default()
        };
        let titles = ["n".to_string(), "-".to_string()];
        let page = PageText {
            width: 20,
            limit: None,
            clock: &clock(),
        };
        let text = paging.pages(&titles, &rows(&["1", "2", "3"]), &page);
        // heading, blank, 2 titles, rows, padding, blank + footing = 8 lines a page
        let expected = "        Top\n\nn\n-\n1\n2\n\n   end of page 1\n        Top\n\nn\n-\n3\n\n\n   end of page 2\n";
        assert_eq!(text, expected);
    }

    #[test]
    fn rtitle_formchar_and_a_page_too_short_for_a_row() {
        let paging = Paging {
            on: true,
            title: Some(Title::RTitle("Daily".into())),
            length: 1,
            formchar: Some("\x0c".into()),
            ..Paging::default()
        };
        let page = PageText {
            width: 30,
            limit: Some(24),
            clock: &clock(),
        };
        let text = paging.pages(&["n".to_string()], &rows(&["1", "2"]), &page);
        // cut at WIDTH 24, as the rows are
        let top = |_| "2026-11-30  Daily".to_string();
        assert_eq!(
            text,
            format!("{}\n\nn\n1\n\x0c{}\n\nn\n2\n", top(1), top(2))
        );
    }

    #[test]
    fn skipline_pagebreak_and_suppress_follow_changed_values() {
        let mut paging = Paging::default();
        paging.skipline.set(true, Some(&[1]));
        paging.pagebreak.set(true, Some(&[2]));
        let mut cells = vec![
            vec!["a".to_string(), "x".to_string()],
            vec!["a".into(), "y".into()],
            vec!["b".into(), "y".into()],
        ];
        assert_eq!(paging.before(&cells, 0), (0, false));
        assert_eq!(paging.before(&cells, 1), (0, true));
        assert_eq!(paging.before(&cells, 2), (1, false));
        paging.skipdouble.set(true, None);
        assert_eq!(paging.before(&cells, 1), (2, true), "SKIPDOUBLE wins");
        paging.suppress.set(true, None);
        paging.suppress.set(false, Some(&[2]));
        assert!(
            paging.suppress.has(0) && !paging.suppress.has(1),
            "OFF 2 after ON ALL"
        );
        paging.suppress(&mut cells);
        assert_eq!(cells[1], vec!["".to_string(), "y".into()]);
        assert_eq!(cells[2], vec!["b".to_string(), "y".into()]);
    }
}
