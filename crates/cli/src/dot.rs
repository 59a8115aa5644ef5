//! The grammar of BTEQ dot commands (`.LOGON`, `.SET WIDTH 120`, `.IF ERRORCODE <> 0 THEN .QUIT
//! 8`, …), parsed with nom into [`Command`]. A command is one line; keywords are
//! case-insensitive; a trailing `;` is optional.
//!
//! Invariant: parsing never fails on a line it does not know: an unknown command word becomes
//! `Err` with a message naming it, so the runner reports it and carries on.

use nom::branch::alt;
use nom::bytes::complete::{tag, tag_no_case, take_till, take_while1};
use nom::character::complete::{char, digit1, multispace0, multispace1};
use nom::combinator::{all_consuming, map, map_res, opt, recognize, rest, value};
use nom::multi::separated_list1;
use nom::sequence::{delimited, preceded};
use nom::{IResult, Parser};

/// One dot command.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// `.LOGON [tdpid/]user[,password[,'account']]`: the password is never kept.
    Logon {
        /// The user name (the part before the first `,`, after any `tdpid/`).
        user: String,
    },
    /// `.LOGOFF`: ends the session; the script goes on.
    Logoff,
    /// `.LOGMECH name` / `.LOGDATA …`: accepted, nothing to authenticate.
    LogMech,
    /// `.QUIT [code]` / `.EXIT [code]`.
    Quit(Option<ExitCode>),
    /// `.SET option …`.
    Set(SetOption),
    /// `.IF condition THEN action`: `action` is the rest of the line (a command or SQL).
    If {
        /// What is tested.
        condition: Test,
        /// The text after `THEN`.
        then: String,
    },
    /// `.IF condition` without THEN: a block up to `.ELSEIF`, `.ELSE` or `.ENDIF`.
    IfBlock(Test),
    /// `.ELSEIF condition`.
    ElseIf(Test),
    /// `.ELSE`.
    Else,
    /// `.ENDIF`.
    EndIf,
    /// `.LABEL name`.
    Label(String),
    /// `.GOTO name`: skips forward to `.LABEL name`.
    Goto(String),
    /// `.RUN FILE = path`.
    Run(String),
    /// `.REMARK 'text'`: prints the text.
    Remark(String),
    /// `.OS command`.
    Os(String),
    /// `.SHOW CONTROLS`: the settings in force.
    ShowControls,
    /// `.SHOW ERRORMAP`: the error severities in force.
    ShowErrorMap,
    /// `.SHOW VERSION[S]`: tdlite's version, and the BTEQ it stands in for.
    ShowVersion,
    /// `.HANG n`: pause n seconds.
    Hang(f64),
    /// `.HELP`.
    Help,
    /// `.TABLES` (tdlite).
    Tables,
    /// `.SCHEMA table` (tdlite).
    Schema(String),
    /// `.TIMEOUT seconds|off` (tdlite): `None` is off.
    Timeout(Option<f64>),
    /// `.CHECKPOINT` (tdlite).
    Checkpoint,
    /// `.EXPORT kind FILE = path` (`Some`) or `.EXPORT RESET` (`None`).
    Export(Option<(ExportKind, String)>),
    /// `.IMPORT VARTEXT ['c'] FILE = path [SKIP = n]` (`Some`) or `.IMPORT RESET` (`None`).
    Import(Option<Import>),
    /// `.REPEAT n|*`: the next request runs n times (`None`: until the import runs out).
    Repeat(Option<u64>),
    /// A BTEQ command tdlite knows but does not do yet (`.IMPORT`, `.REPEAT`, …).
    NotYet(String),
}

/// An `.IMPORT`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    /// How the file is laid out.
    pub format: ImportFormat,
    /// The file.
    pub path: String,
    /// Records to skip first (a header line, say).
    pub skip: u64,
}

/// What an `.IMPORT` file holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportFormat {
    /// VARTEXT: delimited text with this separator (`|` unless given).
    VarText(String),
    /// DATA (`false`) or INDICDATA (`true`) records.
    Records(bool),
    /// REPORT: what `.EXPORT REPORT` wrote.
    Report,
}

/// What `.EXPORT` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportKind {
    /// BTEQ's REPORT: the report the screen would show.
    Report,
    /// BTEQ's DATA (`false`) or INDICDATA (`true`) records (see record.rs).
    Records(bool),
    /// tdlite's data formats: CSV, TSV, JSON lines, Arrow IPC.
    Data(crate::export::DataFormat),
}

impl Command {
    /// True for the commands of `.IF` blocks: `.IF` without THEN, `.ELSEIF`, `.ELSE`, `.ENDIF`.
    pub fn is_block(&self) -> bool {
        matches!(
            self,
            Command::IfBlock(_) | Command::ElseIf(_) | Command::Else | Command::EndIf
        )
    }
}

/// The code `.QUIT` / `.EXIT` ends with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitCode {
    /// A number.
    Number(i32),
    /// The last request's error code.
    ErrorCode,
    /// The highest error severity so far.
    ErrorLevel,
    /// The last request's activity count.
    ActivityCount,
}

/// A `.SET` option.
#[derive(Debug, Clone, PartialEq)]
pub enum SetOption {
    /// `.SET ERRORLEVEL codes SEVERITY n [, codes SEVERITY n]…`: for each item, the codes
    /// (`None` for `UNKNOWN`: every code without a severity of its own) and their severity.
    Severities(Vec<(Option<Vec<u32>>, i32)>),
    /// `.SET ERRORLEVEL ON|OFF`: whether severities are used at all.
    ErrorLevel(bool),
    /// `.SET MAXERROR n`: stop once an error of severity above n occurs.
    MaxError(i32),
    /// `.SET ECHOREQ ON|OFF|ERRORONLY` and `.ECHOREQ ON|OFF`.
    EchoReq(Echo),
    /// `.SET QUIET ON|OFF`.
    Quiet(bool),
    /// `.SET NULL [AS] 'text'`.
    Null(String),
    /// `.SET SEPARATOR n | 'text'`.
    Separator(String),
    /// `.SET TITLEDASHES ON|OFF`.
    TitleDashes(bool),
    /// `.SET RECORDMODE ON|OFF`: OFF makes `.EXPORT DATA|INDICDATA` write rows as text, without
    /// headings (BTEQ's field-mode "backdoor" export).
    RecordMode(bool),
    /// `.SET SIDETITLES [ON|OFF]`: each row as lines of `title value`.
    SideTitles(bool),
    /// `.SET FOLDLINE [ON|OFF] [ALL | n, …]`: a row goes on on the next line, two positions
    /// in, after each of those columns.
    FoldLine(crate::format::Fold),
    /// `.SET RETLIMIT n`: at most n rows shown (0: all).
    RetLimit(u64),
    /// `.SET WIDTH n`: report lines are cut at n characters.
    Width(usize),
    /// `.SET SESSION TRANSACTION ANSI|BTET`.
    SessionTransaction {
        /// True for ANSI.
        ansi: bool,
    },
    /// `.SET FORMAT [ON|OFF]`: the page-oriented report settings take effect.
    Format(bool),
    /// `.SET HEADING|RTITLE ['text']` (no text: none); RTITLE adds the date and page number.
    Title {
        /// RTITLE.
        rtitle: bool,
        /// The text.
        text: Option<String>,
    },
    /// `.SET FOOTING ['text']` (no text: none).
    Footing(Option<String>),
    /// `.SET PAGELENGTH n`.
    PageLength(usize),
    /// `.SET FORMCHAR ON|OFF|DEFAULT|'0C'XB`: what starts a new page (`None`: nothing).
    FormChar(Option<String>),
    /// `.SET SKIPLINE|SKIPDOUBLE|SUPPRESS|PAGEBREAK ON|OFF [ALL | n, …]` (`None`: ALL).
    Columns(ColumnControl, bool, Option<Vec<usize>>),
    /// An option BTEQ has that changes nothing here (sessions, charsets, …).
    Accepted(String),
}

/// The report controls that name columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnControl {
    /// A blank line when a value changes.
    SkipLine,
    /// Two blank lines when a value changes.
    SkipDouble,
    /// A value that repeats the one above it is left blank.
    Suppress,
    /// A new page when a value changes.
    PageBreak,
}

/// What batch mode echoes (`.SET ECHOREQ`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Echo {
    /// Every request and command (BTEQ's default in batch mode).
    On,
    /// Nothing.
    Off,
    /// Commands, and a request only when it fails (after its error, to standard error).
    ErrorOnly,
}

impl From<bool> for Echo {
    fn from(on: bool) -> Self {
        if on {
            Echo::On
        } else {
            Echo::Off
        }
    }
}

/// An `.IF` test: checks joined with AND, OR and NOT (BTEQ wants each check of a compound
/// test in parentheses: `(ERRORCODE = 0) AND (ACTIVITYCOUNT > 0)`).
#[derive(Debug, Clone, PartialEq)]
pub enum Test {
    /// One check.
    Check(Condition),
    /// NOT test.
    Not(Box<Test>),
    /// test AND test.
    And(Box<Test>, Box<Test>),
    /// test OR test.
    Or(Box<Test>, Box<Test>),
}

/// One `.IF` check: `variable op value`.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    /// The BTEQ variable.
    pub variable: Variable,
    /// The comparison.
    pub op: Op,
    /// The value compared with (a number; a quoted string for SQLSTATE).
    pub value: Operand,
}

/// A variable `.IF` can test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variable {
    /// The error code of the last request (0 after success).
    ErrorCode,
    /// The rows the last request's last statement returned or changed.
    ActivityCount,
    /// The highest error severity so far (success does not lower it).
    ErrorLevel,
    /// The SQLSTATE of the last request (`'00000'` after success).
    SqlState,
    /// Rows the last request's INSERTs added (BTEQ 16.20).
    InsertCount,
    /// Rows the last request's UPDATEs changed.
    UpdateCount,
    /// Rows the last request's DELETEs removed.
    DeleteCount,
    /// The last request's warning code (0: none).
    WarningCode,
    /// The return code BTEQ would exit with now (BTEQRETURNCODE).
    ReturnCode,
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `=`, `EQ`.
    Eq,
    /// `<>`, `^=`, `!=`, `~=`, `NOT=`, `NE`.
    Ne,
    /// `<`, `LT`.
    Lt,
    /// `<=`, `LE`.
    Le,
    /// `>`, `GT`.
    Gt,
    /// `>=`, `GE`.
    Ge,
}

/// What a condition compares with.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    /// A number.
    Number(i64),
    /// A quoted string.
    Text(String),
}

impl Op {
    /// Applies the operator to two ordered values.
    pub fn holds<T: PartialOrd>(self, a: &T, b: &T) -> bool {
        match self {
            Op::Eq => a == b,
            Op::Ne => a != b,
            Op::Lt => a < b,
            Op::Le => a <= b,
            Op::Gt => a > b,
            Op::Ge => a >= b,
        }
    }
}

/// True if `text` is a command line (see `tdlite_parser::is_dot_command`).
pub fn is_command(text: &str) -> bool {
    tdlite_parser::is_dot_command(text)
}

/// BTEQ options `.SET` accepts that change nothing in tdlite.
const ACCEPTED_OPTIONS: &[&str] = &[
    "SESSIONS",
    "SESSION",
    "ERROROUT",
    "TIMEMSG",
    "RETRY",
    "RETRYMSG",
    "DEFAULTS",
    "INDICDATA",
    "PACK",
    "REPEATSTOP",
    "RETCANCEL",
    "MAXERRORCODE",
    "LARGEDATAMODE",
    "AUTOKEYRETRIEVE",
    "EXPORTEJECT",
    "FULLYEAR",
    "OMIT",
    "CONTINUECHAR",
    "ENCRYPTION",
    "EXITONDELAY",
    "TDP",
    "LOGONPROMPT",
    "QUERY_BAND",
    // report underlining (BTEQ's UNDERLINE ON|OFF [n|ALL]): tdlite draws no underlines
    "UNDERLINE",
];

/// Parses one command line: `line` starts with `.` (leading blanks allowed).
///
/// # Errors
/// A message for an unknown command or a known one with bad arguments.
pub fn parse(line: &str) -> Result<Command, String> {
    let body = line.trim().trim_start_matches('.').trim_end();
    let body = body.strip_suffix(';').unwrap_or(body).trim_end();
    let (args, word) = word(body).map_err(|_| format!("'{line}' is not a command"))?;
    let args = args.trim();
    let upper = word.to_ascii_uppercase();
    let bad = |what: &str| format!(".{upper}: {what}");
    match upper.as_str() {
        "LOGON" => Ok(logon(args)),
        "LOGOFF" => Ok(Command::Logoff),
        "LOGMECH" | "LOGDATA" => Ok(Command::LogMech),
        "QUIT" | "EXIT" | "Q" => exit_code(args)
            .map(Command::Quit)
            .ok_or_else(|| bad("expected a number, ERRORCODE or ERRORLEVEL")),
        "SET" => set(args).map(Command::Set),
        // `.ECHOREQ x` is `.SET ECHOREQ x`; alone, ON
        "ECHOREQ" => set(&format!(
            "ECHOREQ {}",
            if args.is_empty() { "ON" } else { args }
        ))
        .map(Command::Set),
        "IF" => if_command(args).ok_or_else(|| {
            bad("expected `.IF ERRORCODE|ACTIVITYCOUNT|ERRORLEVEL|SQLSTATE|INSERTCOUNT|UPDATECOUNT|DELETECOUNT|WARNINGCODE|BTEQRETURNCODE op value [THEN …]`")
        }),
        "ELSEIF" => match if_command(args) {
            Some(Command::IfBlock(c)) => Ok(Command::ElseIf(c)),
            _ => Err(bad("expected `.ELSEIF variable op value` (no THEN)")),
        },
        "ELSE" if args.is_empty() => Ok(Command::Else),
        "ENDIF" if args.is_empty() || args.eq_ignore_ascii_case("ALL") => Ok(Command::EndIf),
        "LABEL" => name(args)
            .map(Command::Label)
            .ok_or_else(|| bad("needs a name")),
        "GOTO" => name(args)
            .map(Command::Goto)
            .ok_or_else(|| bad("needs a label name")),
        "RUN" => run_file(args)
            .map(Command::Run)
            .ok_or_else(|| bad("expected FILE = path")),
        // `//` breaks the remark into lines
        "REMARK" | "REM" => Ok(Command::Remark(unquote(args).replace("//", "\n"))),
        "OS" => Ok(Command::Os(args.to_string())),
        "SHOW" => match args.to_ascii_uppercase().as_str() {
            "" | "CONTROLS" | "CONTROL" => Ok(Command::ShowControls),
            "ERRORMAP" => Ok(Command::ShowErrorMap),
            "VERSION" | "VERSIONS" => Ok(Command::ShowVersion),
            _ => Err(bad("expected CONTROLS, ERRORMAP or VERSION")),
        },
        "HANG" => args
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && *s >= 0.0 && *s <= 86_400.0)
            .map(Command::Hang)
            .ok_or_else(|| bad("takes a number of seconds (at most a day)")),
        // the Teradata system to log on to: nothing to choose
        "TDP" => Ok(Command::LogMech),
        "HELP" | "H" => Ok(Command::Help),
        "TABLES" => Ok(Command::Tables),
        "SCHEMA" => name(args)
            .map(Command::Schema)
            .ok_or_else(|| bad("needs a table name")),
        "TIMEOUT" => {
            if args.eq_ignore_ascii_case("off") {
                return Ok(Command::Timeout(None));
            }
            args.parse::<f64>()
                .ok()
                .filter(|s| s.is_finite() && *s >= 0.0)
                .map(|s| Command::Timeout(Some(s)))
                .ok_or_else(|| bad("takes a number of seconds or 'off'"))
        }
        "CHECKPOINT" => Ok(Command::Checkpoint),
        "EXPORT" => export(args).map(Command::Export),
        "IMPORT" => import(args).map(Command::Import),
        "REPEAT" => repeat(args)
            .map(Command::Repeat)
            .ok_or_else(|| bad("expected a count or *")),
        "COMPILE" | "MESSAGEOUT" | "TSO" | "WAIT" | "ABORT" => Ok(Command::NotYet(upper)),
        // BTEQ's settings are commands of their own too: `.WIDTH 80` is `.SET WIDTH 80`
        _ => match set(body) {
            Ok(option) => Ok(Command::Set(option)),
            Err(e) if e.starts_with(".SET: unknown option") => Err(unrecognized(word)),
            Err(e) => Err(e),
        },
    }
}

/// The message for a command word BTEQ does not know (`word`, or the command word of the line
/// `word`).
pub fn unrecognized(word: &str) -> String {
    let body = word.trim().trim_start_matches('.');
    let word = body
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next();
    format!("Unrecognized command '{}'", word.unwrap_or(body))
}

impl Command {
    /// True for tdlite's own commands, which BTEQ does not have: `.tables`, `.schema`,
    /// `.timeout`, `.checkpoint` (strict mode refuses them).
    pub fn is_tdlite_only(&self) -> bool {
        matches!(
            self,
            Command::Tables | Command::Schema(_) | Command::Timeout(_) | Command::Checkpoint
        )
    }
}

/// The command word: letters, digits and `_`.
fn word(i: &str) -> IResult<&str, &str> {
    take_while1(|c: char| c.is_ascii_alphanumeric() || c == '_').parse(i)
}

/// `[tdpid/]user[,password[,'acct']]`: only the user is kept.
fn logon(args: &str) -> Command {
    let after_host = args.rsplit_once('/').map_or(args, |(_, u)| u);
    let user = after_host.split(',').next().unwrap_or("").trim();
    Command::Logon {
        user: user.to_string(),
    }
}

fn exit_code(args: &str) -> Option<Option<ExitCode>> {
    if args.is_empty() {
        return Some(None);
    }
    let code = alt((
        value(ExitCode::ErrorCode, tag_no_case("ERRORCODE")),
        value(ExitCode::ErrorLevel, tag_no_case("ERRORLEVEL")),
        value(
            ExitCode::ActivityCount,
            alt((tag_no_case("ACTIVITYCOUNT"), tag_no_case("ACTIVITYCO"))),
        ),
        map_res(signed, |n| i32::try_from(n).map(ExitCode::Number)),
    ));
    all_consuming(code).parse(args).ok().map(|(_, c)| Some(c))
}

fn signed(i: &str) -> IResult<&str, i64> {
    map_res(recognize((opt(char('-')), digit1)), str::parse).parse(i)
}

fn on_off(args: &str) -> Option<bool> {
    match args.to_ascii_uppercase().as_str() {
        "ON" => Some(true),
        "OFF" => Some(false),
        _ => None,
    }
}

fn name(args: &str) -> Option<String> {
    let n = args.split_whitespace().next()?;
    Some(n.to_string())
}

/// `'text'` without its quotes (a doubled quote is one), or the text as it is.
fn unquote(s: &str) -> String {
    let t = s.trim();
    for q in ['\'', '"'] {
        if t.len() >= 2 && t.starts_with(q) && t.ends_with(q) {
            return t[1..t.len() - 1].replace(&format!("{q}{q}"), &q.to_string());
        }
    }
    t.to_string()
}

/// `FILE = path`, `FILE=path`, `FILE path`, with the path quoted or not.
fn run_file(args: &str) -> Option<String> {
    let parsed: IResult<&str, &str> = preceded(
        (
            tag_no_case("FILE"),
            alt((delimited(multispace0, tag("="), multispace0), multispace1)),
        ),
        rest,
    )
    .parse(args);
    let path = unquote(parsed.ok()?.1);
    (!path.is_empty()).then_some(path)
}

/// `RESET`, or `[kind] FILE = path [, options]` with kind REPORT, CSV, TSV, JSON or ARROW.
fn export(args: &str) -> Result<Option<(ExportKind, String)>, String> {
    if args.eq_ignore_ascii_case("RESET") {
        return Ok(None);
    }
    let (rest, kind) = word(args).map_err(|_| ".EXPORT: expected a kind and FILE = path")?;
    // without a kind, BTEQ exports in field mode: a report
    let (rest, kind) = if kind.eq_ignore_ascii_case("FILE") {
        (args, "REPORT")
    } else {
        (rest, kind)
    };
    let kind = match kind.to_ascii_uppercase().as_str() {
        "REPORT" => ExportKind::Report,
        "DATA" => ExportKind::Records(false),
        "INDICDATA" => ExportKind::Records(true),
        "DIF" | "DDNAME" => {
            return Err(format!(
                ".EXPORT {}: not supported (REPORT, DATA, INDICDATA, CSV, TSV, JSON, ARROW are)",
                kind.to_ascii_uppercase()
            ))
        }
        k => ExportKind::Data(k.parse().map_err(|e| format!(".EXPORT: {e}"))?),
    };
    // options after the path (`, OPEN`, `, CLOSE`, `LIMIT = n`) change nothing here
    let path = run_file(rest.trim()).ok_or(".EXPORT: expected FILE = path")?;
    let path = match path.split_once(',') {
        Some((p, _)) if !path.starts_with(['\'', '"']) => p.trim().to_string(),
        _ => path,
    };
    Ok(Some((kind, path)))
}

/// `RESET`, or `VARTEXT ['c'] | DATA | INDICDATA`, then `FILE [=] path [,] [SKIP = n]` (other
/// options are ignored).
fn import(args: &str) -> Result<Option<Import>, String> {
    if args.eq_ignore_ascii_case("RESET") {
        return Ok(None);
    }
    let (rest, kind) = word(args).map_err(|_| ".IMPORT: expected a format and FILE = path")?;
    let kind = kind.to_ascii_uppercase();
    if !matches!(kind.as_str(), "VARTEXT" | "DATA" | "INDICDATA" | "REPORT") {
        return Err(format!(
            ".IMPORT {kind}: not supported (VARTEXT, DATA, INDICDATA, REPORT are)"
        ));
    }
    let rest = rest.trim_start();
    let quoted = |q: char| delimited(char(q), take_till(move |c| c == q), char(q));
    let parsed: IResult<&str, Option<&str>> = opt(alt((quoted('\''), quoted('"')))).parse(rest);
    let (rest, delimiter) = parsed.map_err(|_| ".IMPORT: bad delimiter".to_string())?;
    let rest = rest.trim_start();
    let file: IResult<&str, &str> = preceded(
        (
            tag_no_case("FILE"),
            alt((delimited(multispace0, tag("="), multispace0), multispace1)),
        ),
        alt((
            quoted('\''),
            quoted('"'),
            take_till(|c: char| c == ',' || c.is_whitespace()),
        )),
    )
    .parse(rest);
    let (options, path) = file.map_err(|_| format!(".IMPORT {kind}: expected FILE = path"))?;
    if path.is_empty() {
        return Err(format!(".IMPORT {kind}: expected FILE = path"));
    }
    let mut skip = 0;
    for option in options.split(',').map(str::trim).filter(|o| !o.is_empty()) {
        if let Some((name, value)) = option.split_once('=') {
            if name.trim().eq_ignore_ascii_case("SKIP") {
                skip = value
                    .trim()
                    .parse()
                    .map_err(|_| ".IMPORT: SKIP needs a number".to_string())?;
            }
        }
    }
    if delimiter == Some("") {
        return Err(".IMPORT VARTEXT: the delimiter cannot be empty".to_string());
    }
    let format = match kind.as_str() {
        "VARTEXT" => ImportFormat::VarText(delimiter.unwrap_or("|").to_string()),
        "REPORT" => ImportFormat::Report,
        k => ImportFormat::Records(k == "INDICDATA"),
    };
    Ok(Some(Import {
        format,
        path: path.to_string(),
        skip,
    }))
}

/// `n` or `*`, then options (`PACK n`, …) that change nothing here.
fn repeat(args: &str) -> Option<Option<u64>> {
    let count = args.split_whitespace().next()?;
    if count == "*" {
        Some(None)
    } else {
        count.parse().ok().map(Some)
    }
}

fn set(args: &str) -> Result<SetOption, String> {
    let (rest, option) = word(args).map_err(|_| ".SET needs an option".to_string())?;
    let rest = rest.trim();
    let option = option.to_ascii_uppercase();
    let bad = |what: &str| format!(".SET {option}: {what}");
    let switch = || on_off(rest).ok_or_else(|| bad("expected ON or OFF"));
    let number = || rest.parse::<i64>().map_err(|_| bad("expected a number"));
    Ok(match option.as_str() {
        "ERRORLEVEL" | "EL" => match on_off(rest) {
            Some(on) => SetOption::ErrorLevel(on),
            None => severity(rest).ok_or_else(|| {
                bad("expected ON, OFF, or codes SEVERITY n (codes: n, (n, m), UNKNOWN)")
            })?,
        },
        "MAXERROR" => SetOption::MaxError(
            i32::try_from(number()?).map_err(|_| bad("the number is too large"))?,
        ),
        "ECHOREQ" => match rest.to_ascii_uppercase().as_str() {
            "ERRORONLY" => SetOption::EchoReq(Echo::ErrorOnly),
            _ => SetOption::EchoReq(Echo::from(switch()?)),
        },
        "QUIET" => SetOption::Quiet(
            on_off(rest.split_whitespace().next().unwrap_or(""))
                .ok_or_else(|| bad("expected ON or OFF"))?,
        ),
        "NULL" => {
            let text = rest
                .strip_prefix("AS ")
                .or(rest.strip_prefix("as "))
                .unwrap_or(rest);
            SetOption::Null(unquote(text))
        }
        "SEPARATOR" => match rest.parse::<usize>() {
            Ok(n) if n <= 255 => SetOption::Separator(" ".repeat(n)),
            _ if !rest.is_empty() => SetOption::Separator(unquote(rest)),
            _ => return Err(bad("expected a number of blanks or 'text'")),
        },
        "TITLEDASHES" => SetOption::TitleDashes(
            on_off(rest.split_whitespace().next().unwrap_or(""))
                .ok_or_else(|| bad("expected ON or OFF"))?,
        ),
        "RECORDMODE" => SetOption::RecordMode(
            on_off(rest.split_whitespace().next().unwrap_or("ON"))
                .ok_or_else(|| bad("expected ON or OFF"))?,
        ),
        // bare: ON; a column list after ON/OFF (ALL, 1, 3) applies to every column here
        "SIDETITLES" => {
            let first = rest.split_whitespace().next().unwrap_or("ON");
            SetOption::SideTitles(on_off(first).ok_or_else(|| bad("expected ON or OFF"))?)
        }
        // `[ON|OFF] [ALL | n[, n…]]`: ON folds after the columns listed (all without a list)
        "FOLDLINE" => {
            let mut words = rest
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|w| !w.is_empty());
            let on = match words.next() {
                None => true,
                Some(w) => on_off(w).ok_or_else(|| bad("expected ON or OFF"))?,
            };
            let columns: Vec<&str> = words.collect();
            let fold = match (on, columns.as_slice()) {
                (false, _) => crate::format::Fold::Off,
                (true, [] | ["ALL" | "all"]) => crate::format::Fold::All,
                (true, cols) => crate::format::Fold::After(
                    cols.iter()
                        .map(|c| c.parse::<usize>().ok().filter(|n| (1..=2048).contains(n)))
                        .collect::<Option<Vec<_>>>()
                        .ok_or_else(|| bad("expected ALL or column numbers from 1 to 2048"))?,
                ),
            };
            SetOption::FoldLine(fold)
        }
        "RETLIMIT" => {
            let first = rest.split_whitespace().next().unwrap_or("");
            SetOption::RetLimit(first.parse().map_err(|_| bad("expected a number"))?)
        }
        "WIDTH" => match number()? {
            n @ 20..=1_048_575 => SetOption::Width(n as usize),
            _ => return Err(bad("expected a width from 20 to 1048575")),
        },
        "SESSION" => {
            let words: Vec<String> = rest
                .split_whitespace()
                .map(str::to_ascii_uppercase)
                .collect();
            match words.iter().map(String::as_str).collect::<Vec<_>>()[..] {
                ["TRANSACTION", "ANSI"] => SetOption::SessionTransaction { ansi: true },
                ["TRANSACTION", "BTET" | "TERADATA"] => {
                    SetOption::SessionTransaction { ansi: false }
                }
                ["TRANSACTION", ..] => return Err(bad("TRANSACTION takes ANSI or BTET")),
                _ => SetOption::Accepted(format!("SESSION {rest}")),
            }
        }
        "FORMAT" => SetOption::Format(
            on_off(if rest.is_empty() { "ON" } else { rest })
                .ok_or_else(|| bad("expected ON or OFF"))?,
        ),
        "HEADING" | "RTITLE" => SetOption::Title {
            rtitle: option == "RTITLE",
            text: Some(unquote(rest)).filter(|t| !t.is_empty()),
        },
        "FOOTING" => SetOption::Footing(Some(unquote(rest)).filter(|t| !t.is_empty())),
        // pages are built in memory: longer ones are taken as 32767 lines (docs/bteq.md)
        "PAGELENGTH" => match number()? {
            n @ 1..=2_147_483_647 => SetOption::PageLength(n.min(32_767) as usize),
            _ => return Err(bad("expected a page length from 1 to 2147483647")),
        },
        // anything else resets it, as BTEQ documents
        "FORMCHAR" => SetOption::FormChar(form_char(rest)),
        "SKIPLINE" | "SKIPDOUBLE" | "SUPPRESS" | "PAGEBREAK" => {
            let control = match option.as_str() {
                "SKIPLINE" => ColumnControl::SkipLine,
                "SKIPDOUBLE" => ColumnControl::SkipDouble,
                "SUPPRESS" => ColumnControl::Suppress,
                _ => ColumnControl::PageBreak,
            };
            let (on, cols) = column_list(rest).ok_or_else(|| {
                bad("expected ON or OFF, then ALL or column numbers from 1 to 2048")
            })?;
            SetOption::Columns(control, on, cols)
        }
        o if ACCEPTED_OPTIONS.contains(&o) => SetOption::Accepted(option.clone()),
        _ => return Err(format!(".SET: unknown option '{option}'")),
    })
}

/// FORMCHAR's value: ON is a form feed, a hex string (`'0C'XB`, ten hex digits at most) those
/// bytes; OFF, DEFAULT and anything else nothing (a workstation's default).
fn form_char(args: &str) -> Option<String> {
    let up = args.trim().to_ascii_uppercase();
    if up == "ON" {
        return Some("\x0c".to_string());
    }
    let hex = up.strip_suffix("XB")?;
    let hex = unquote(hex);
    let hex_digits = hex.bytes().all(|b| b.is_ascii_hexdigit());
    if !hex_digits || hex.is_empty() || hex.len() > 10 || !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).ok().map(char::from))
        .collect()
}

/// `ON|OFF [ALL | n, …]` (no list: ALL): on, and the columns (`None` for ALL).
fn column_list(args: &str) -> Option<(bool, Option<Vec<usize>>)> {
    let mut words = args
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty());
    let on = on_off(words.next().unwrap_or("ON"))?;
    let rest: Vec<&str> = words.collect();
    if rest.is_empty() || rest.len() == 1 && rest[0].eq_ignore_ascii_case("ALL") {
        return Some((on, None));
    }
    let cols: Option<Vec<usize>> = rest
        .iter()
        .map(|w| w.parse::<usize>().ok().filter(|n| (1..=2048).contains(n)))
        .collect();
    Some((on, Some(cols?)))
}

/// One `codes SEVERITY n` item as parsed (`None`: UNKNOWN).
type SeverityItem = (Option<Vec<u32>>, i64);

/// `codes SEVERITY n [, codes SEVERITY n]…`, codes being `3807`, `(3807, 3803)`, `3807, 3803`
/// or `UNKNOWN` (the documented `.SET ERRORLEVEL 2168 SEVERITY 4, (2173, 3342) SEVERITY 8`).
fn severity(args: &str) -> Option<SetOption> {
    let code = || map_res(digit1, str::parse::<u32>);
    let codes = alt((
        value(None, tag_no_case("UNKNOWN")),
        map(
            delimited(
                (char('('), multispace0),
                separated_list1((multispace0, char(','), multispace0), code()),
                (multispace0, char(')')),
            ),
            Some,
        ),
        map(
            separated_list1(
                alt((
                    recognize((multispace0, char(','), multispace0)),
                    multispace1,
                )),
                code(),
            ),
            Some,
        ),
    ));
    let item = (
        codes,
        preceded((multispace1, tag_no_case("SEVERITY"), multispace1), signed),
    );
    let parsed: IResult<&str, Vec<SeverityItem>> =
        all_consuming(separated_list1((multispace0, char(','), multispace0), item)).parse(args);
    let (_, items) = parsed.ok()?;
    let items: Option<Vec<_>> = items
        .into_iter()
        .map(|(c, s)| i32::try_from(s).ok().map(|s| (c, s)))
        .collect();
    Some(SetOption::Severities(items?))
}

/// One check: `variable op value`.
fn check(i: &str) -> IResult<&str, Test> {
    let variable = alt((
        value(Variable::ErrorCode, tag_no_case("ERRORCODE")),
        value(Variable::ActivityCount, tag_no_case("ACTIVITYCOUNT")),
        value(Variable::ErrorLevel, tag_no_case("ERRORLEVEL")),
        value(Variable::SqlState, tag_no_case("SQLSTATE")),
        value(Variable::InsertCount, tag_no_case("INSERTCOUNT")),
        value(Variable::UpdateCount, tag_no_case("UPDATECOUNT")),
        value(Variable::DeleteCount, tag_no_case("DELETECOUNT")),
        value(Variable::WarningCode, tag_no_case("WARNINGCODE")),
        value(Variable::ReturnCode, tag_no_case("BTEQRETURNCODE")),
    ));
    let op = alt((
        value(
            Op::Ne,
            alt((
                tag("<>"),
                tag("^="),
                tag("!="),
                tag("~="),
                tag_no_case("NOT="),
            )),
        ),
        value(Op::Le, tag("<=")),
        value(Op::Ge, tag(">=")),
        value(Op::Eq, tag("=")),
        value(Op::Lt, tag("<")),
        value(Op::Gt, tag(">")),
        value(Op::Eq, tag_no_case("EQ")),
        value(Op::Ne, tag_no_case("NE")),
        value(Op::Le, tag_no_case("LE")),
        value(Op::Ge, tag_no_case("GE")),
        value(Op::Lt, tag_no_case("LT")),
        value(Op::Gt, tag_no_case("GT")),
    ));
    let operand = alt((
        map(signed, Operand::Number),
        map(
            delimited(char('\''), take_till(|c| c == '\''), char('\'')),
            |s: &str| Operand::Text(s.to_string()),
        ),
    ));
    map(
        (
            variable,
            preceded(multispace0, op),
            preceded(multispace0, operand),
        ),
        |(variable, op, value)| {
            Test::Check(Condition {
                variable,
                op,
                value,
            })
        },
    )
    .parse(i)
}

/// `NOT primary`, `( test )`, or a check.
fn primary(i: &str) -> IResult<&str, Test> {
    let not = preceded(
        (
            tag_no_case("NOT"),
            alt((multispace1, recognize(nom::combinator::peek(char('('))))),
        ),
        primary,
    );
    preceded(
        multispace0,
        alt((
            map(not, |t| Test::Not(Box::new(t))),
            delimited((char('('), multispace0), test, (multispace0, char(')'))),
            check,
        )),
    )
    .parse(i)
}

/// `primary [AND primary]…`.
fn conjunction(i: &str) -> IResult<&str, Test> {
    let (mut i, mut t) = primary(i)?;
    while let Ok((rest, next)) =
        preceded((multispace1, tag_no_case("AND"), multispace1), primary).parse(i)
    {
        t = Test::And(Box::new(t), Box::new(next));
        i = rest;
    }
    Ok((i, t))
}

/// `conjunction [OR conjunction]…`.
fn test(i: &str) -> IResult<&str, Test> {
    let (mut i, mut t) = conjunction(i)?;
    while let Ok((rest, next)) =
        preceded((multispace1, tag_no_case("OR"), multispace1), conjunction).parse(i)
    {
        t = Test::Or(Box::new(t), Box::new(next));
        i = rest;
    }
    Ok((i, t))
}

fn if_command(args: &str) -> Option<Command> {
    let (rest, condition) = test(args).ok()?;
    if rest.trim().is_empty() {
        return Some(Command::IfBlock(condition));
    }
    let (then, _) = (
        multispace1::<&str, nom::error::Error<&str>>,
        tag_no_case("THEN"),
    )
        .parse(rest)
        .ok()?;
    let then = then.trim();
    if then.is_empty() {
        return None;
    }
    Some(Command::If {
        condition,
        then: then.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logon_keeps_only_the_user() {
        assert_eq!(
            parse(".LOGON 127.0.0.1/dbc,dbc;"),
            Ok(Command::Logon { user: "dbc".into() })
        );
        assert_eq!(
            parse(".logon tdprod/etl_user,secret,'acct'"),
            Ok(Command::Logon {
                user: "etl_user".into()
            })
        );
        assert_eq!(parse(".LOGON me"), Ok(Command::Logon { user: "me".into() }));
    }

    #[test]
    fn quit_and_exit_take_a_code() {
        assert_eq!(parse(".QUIT"), Ok(Command::Quit(None)));
        assert_eq!(
            parse(".quit 3;"),
            Ok(Command::Quit(Some(ExitCode::Number(3))))
        );
        assert_eq!(
            parse(".EXIT ERRORCODE"),
            Ok(Command::Quit(Some(ExitCode::ErrorCode)))
        );
        assert_eq!(
            parse(".exit errorlevel;"),
            Ok(Command::Quit(Some(ExitCode::ErrorLevel)))
        );
        assert_eq!(
            parse(".QUIT ACTIVITYCOUNT"),
            Ok(Command::Quit(Some(ExitCode::ActivityCount)))
        );
        assert!(parse(".QUIT soon").is_err());
    }

    #[test]
    fn set_errorlevel_forms() {
        let sev = |codes: Option<Vec<u32>>, severity| {
            Ok(Command::Set(SetOption::Severities(vec![(codes, severity)])))
        };
        assert_eq!(
            parse(".SET ERRORLEVEL 3807 SEVERITY 0"),
            sev(Some(vec![3807]), 0)
        );
        assert_eq!(
            parse(".SET ERRORLEVEL (3807, 3803) SEVERITY 4;"),
            sev(Some(vec![3807, 3803]), 4)
        );
        assert_eq!(
            parse(".set errorlevel 3807,3803 severity 0"),
            sev(Some(vec![3807, 3803]), 0)
        );
        assert_eq!(parse(".SET ERRORLEVEL UNKNOWN SEVERITY 8"), sev(None, 8));
        assert_eq!(
            parse(".SET ERRORLEVEL OFF"),
            Ok(Command::Set(SetOption::ErrorLevel(false)))
        );
        assert!(parse(".SET ERRORLEVEL 3807").is_err());
        assert_eq!(
            parse(".SET ERRORLEVEL 2168 SEVERITY 4, (2173, 3342, 5262) SEVERITY 8"),
            Ok(Command::Set(SetOption::Severities(vec![
                (Some(vec![2168]), 4),
                (Some(vec![2173, 3342, 5262]), 8)
            ])))
        );
    }

    #[test]
    fn set_report_options() {
        let set = |o| Ok(Command::Set(o));
        assert_eq!(parse(".SET WIDTH 132"), set(SetOption::Width(132)));
        assert_eq!(
            parse(".SET NULL AS 'n/a'"),
            set(SetOption::Null("n/a".into()))
        );
        assert_eq!(parse(".SET NULL ''"), set(SetOption::Null(String::new())));
        assert_eq!(
            parse(".SET SEPARATOR '|'"),
            set(SetOption::Separator("|".into()))
        );
        assert_eq!(
            parse(".SET SEPARATOR 1"),
            set(SetOption::Separator(" ".into()))
        );
        assert_eq!(
            parse(".SET TITLEDASHES OFF"),
            set(SetOption::TitleDashes(false))
        );
        assert_eq!(parse(".SET RETLIMIT 5"), set(SetOption::RetLimit(5)));
        assert_eq!(parse(".SET SIDETITLES"), set(SetOption::SideTitles(true)));
        assert_eq!(
            parse(".SET FOLDLINE OFF ALL"),
            set(SetOption::FoldLine(crate::format::Fold::Off))
        );
        assert_eq!(parse(".SET QUIET ON"), set(SetOption::Quiet(true)));
        assert_eq!(
            parse(".SET ECHOREQ OFF"),
            set(SetOption::EchoReq(Echo::Off))
        );
        assert_eq!(parse(".ECHOREQ ON"), set(SetOption::EchoReq(Echo::On)));
        assert_eq!(parse(".ECHOREQ"), set(SetOption::EchoReq(Echo::On)));
        assert_eq!(
            parse(".echoreq erroronly"),
            set(SetOption::EchoReq(Echo::ErrorOnly))
        );
        assert_eq!(
            parse(".set echoreq erroronly"),
            set(SetOption::EchoReq(Echo::ErrorOnly))
        );
        assert_eq!(parse(".SET MAXERROR 1"), set(SetOption::MaxError(1)));
        assert_eq!(
            parse(".SET SESSION TRANSACTION ANSI"),
            set(SetOption::SessionTransaction { ansi: true })
        );
        assert_eq!(
            parse(".SET SESSIONS 4"),
            set(SetOption::Accepted("SESSIONS".into()))
        );
        assert!(parse(".SET WIDTH 5").is_err());
        assert!(parse(".SET COLOUR blue").is_err());
    }

    #[test]
    fn if_then_keeps_the_action_text() {
        let c = parse(".IF ERRORCODE <> 0 THEN .GOTO failed;").unwrap();
        assert_eq!(
            c,
            Command::If {
                condition: Test::Check(Condition {
                    variable: Variable::ErrorCode,
                    op: Op::Ne,
                    value: Operand::Number(0),
                }),
                then: ".GOTO failed".into(),
            }
        );
        let c = parse(".if activitycount=0 then .quit 1").unwrap();
        assert!(matches!(
            c,
            Command::If { condition: Test::Check(Condition { variable: Variable::ActivityCount, op: Op::Eq, .. }), ref then } if then == ".quit 1"
        ));
        let c = parse(".IF SQLSTATE NE '00000' THEN SEL 1;").unwrap();
        assert!(matches!(c, Command::If { ref then, .. } if then == "SEL 1"));
        assert!(parse(".IF ERRORCODE 0 THEN .QUIT").is_err());
        let compound = parse(
            ".IF (ERRORCODE = 0) AND NOT (ACTIVITYCOUNT = 0) OR (ERRORLEVEL > 4) THEN .QUIT 1",
        )
        .unwrap();
        assert!(
            matches!(&compound, Command::If { condition: Test::Or(a, _), .. } if matches!(**a, Test::And(_, ref n) if matches!(**n, Test::Not(_)))),
            "{compound:?}"
        );
        assert!(parse(".IF ERRORCODE = 0 THEN").is_err());
        assert!(matches!(
            parse(".IF ERRORCODE = 0"),
            Ok(Command::IfBlock(_))
        ));
        assert!(matches!(
            parse(".ELSEIF ERRORCODE > 0;"),
            Ok(Command::ElseIf(_))
        ));
        assert!(parse(".ELSEIF ERRORCODE > 0 THEN .QUIT").is_err());
        assert_eq!(parse(".ELSE"), Ok(Command::Else));
        assert_eq!(parse(".ENDIF;"), Ok(Command::EndIf));
    }

    #[test]
    fn run_label_goto_remark_os() {
        assert_eq!(
            parse(".RUN FILE = logon.txt;"),
            Ok(Command::Run("logon.txt".into()))
        );
        assert_eq!(
            parse(".run file=./a b.sql"),
            Ok(Command::Run("./a b.sql".into()))
        );
        assert_eq!(
            parse(".RUN FILE 'x.bteq'"),
            Ok(Command::Run("x.bteq".into()))
        );
        assert!(parse(".RUN x.bteq").is_err());
        assert_eq!(parse(".LABEL done"), Ok(Command::Label("done".into())));
        assert_eq!(parse(".GOTO done;"), Ok(Command::Goto("done".into())));
        assert_eq!(
            parse(".REMARK 'it''s done'"),
            Ok(Command::Remark("it's done".into()))
        );
        assert_eq!(
            parse(".REMARK 'one// two'"),
            Ok(Command::Remark("one\n two".into()))
        );
        assert_eq!(parse(".OS ls -l"), Ok(Command::Os("ls -l".into())));
        assert_eq!(parse(".EXPORT RESET"), Ok(Command::Export(None)));
        assert_eq!(
            parse(".EXPORT REPORT FILE = out.txt, CLOSE"),
            Ok(Command::Export(Some((
                ExportKind::Report,
                "out.txt".into()
            ))))
        );
        assert_eq!(
            parse(".export csv file=rows.csv;"),
            Ok(Command::Export(Some((
                ExportKind::Data(crate::export::DataFormat::Csv),
                "rows.csv".into()
            ))))
        );
        assert_eq!(
            parse(".EXPORT INDICDATA FILE = x.dat"),
            Ok(Command::Export(Some((
                ExportKind::Records(true),
                "x.dat".into()
            ))))
        );
        assert!(parse(".EXPORT DIF FILE = x.dif").is_err());
        assert_eq!(
            parse(".EXPORT FILE = out.txt"),
            Ok(Command::Export(Some((
                ExportKind::Report,
                "out.txt".into()
            ))))
        );
        let import = |delimiter: &str, path: &str, skip| {
            Ok(Command::Import(Some(Import {
                format: ImportFormat::VarText(delimiter.into()),
                path: path.into(),
                skip,
            })))
        };
        assert_eq!(
            parse(".IMPORT VARTEXT ',' FILE = data.csv, SKIP = 1"),
            import(",", "data.csv", 1)
        );
        assert_eq!(
            parse(".import vartext file=rows.txt"),
            import("|", "rows.txt", 0)
        );
        assert_eq!(
            parse(".IMPORT VARTEXT '\t' FILE 'my data.tsv' SKIP=2;"),
            import("\t", "my data.tsv", 2)
        );
        assert_eq!(parse(".IMPORT RESET"), Ok(Command::Import(None)));
        assert_eq!(
            parse(".IMPORT INDICDATA FILE = x.dat"),
            Ok(Command::Import(Some(Import {
                format: ImportFormat::Records(true),
                path: "x.dat".into(),
                skip: 0
            })))
        );
        assert!(matches!(
            parse(".IMPORT REPORT FILE = x.txt"),
            Ok(Command::Import(Some(Import {
                format: ImportFormat::Report,
                ..
            })))
        ));
        assert!(parse(".IMPORT DIF FILE = x.dif").is_err());
        assert_eq!(parse(".REPEAT *"), Ok(Command::Repeat(None)));
        assert_eq!(parse(".REPEAT 3 PACK 100"), Ok(Command::Repeat(Some(3))));
        assert!(parse(".REPEAT").is_err());
        assert!(parse(".EXPORT REPORT").is_err());
        assert!(parse(".FROBNICATE").is_err());
    }
}
