//! Teradata `CREATE TABLE` / `CT`, parsed by hand: table kinds, the `, QUEUE` keyword, table
//! options, Teradata column types and attributes, and primary/secondary index clauses. Default
//! and CHECK expressions are handed to sqlparser.
//!
//! This module only parses; the queue-table rules (QITS first, TIMESTAMP(6), …) are checked
//! when the table is created, where every violation gets its own message.

use crate::cursor::Cursor;
use crate::error::{Location, ParseError};
use crate::statement::{
    AsFrom, AsSource, ColumnDef, ColumnDefault, ConsumeOrder, CreateTable, DataType, IdentitySpec,
    IndexDef, LargeType, PeriodOf, QueueLimits, TableKind,
};
use sqlparser::tokenizer::Token;

/// True if the cursor is at `CREATE [SET|MULTISET] [VOLATILE|GLOBAL TEMPORARY] … TABLE`.
pub(crate) fn is_create_table(cur: &Cursor) -> bool {
    let mut i = 1;
    while let Some(w) = cur.word_at(i) {
        match w.as_str() {
            "SET" | "MULTISET" | "VOLATILE" | "GLOBAL" | "TEMPORARY" => i += 1,
            "TABLE" => return true,
            _ => return false,
        }
    }
    false
}

/// Parses the whole statement.
pub(crate) fn parse(cur: &mut Cursor) -> Result<CreateTable, ParseError> {
    let mut kind = None;
    let mut volatile = false;
    let mut global_temporary = false;
    if cur.eat_word("CT") {
    } else {
        cur.expect_word("CREATE")?;
        loop {
            if cur.eat_word("SET") {
                kind = Some(TableKind::Set);
            } else if cur.eat_word("MULTISET") {
                kind = Some(TableKind::Multiset);
            } else if !global_temporary && cur.eat_word("VOLATILE") {
                volatile = true;
            } else if cur.is_word("GLOBAL") {
                if volatile || global_temporary {
                    return Err(cur.unexpected("expected TABLE"));
                }
                cur.pos += 1;
                cur.expect_word("TEMPORARY")?;
                global_temporary = true;
            } else {
                break;
            }
        }
        cur.expect_word("TABLE")?;
    }
    let name = cur.with_sqlparser(|p| p.parse_object_name(false))?;
    let mut table = CreateTable {
        name,
        kind,
        volatile,
        global_temporary,
        queue: false,
        options: Vec::new(),
        columns: Vec::new(),
        primary_index: None,
        no_primary_index: false,
        partitioned: false,
        partitioning: Vec::new(),
        indexes: Vec::new(),
        unique_constraints: Vec::new(),
        primary_key: None,
        on_commit_preserve: None,
        queue_location: None,
        checks: Vec::new(),
        as_source: None,
        consume_order: None,
        deliver_at: None,
        limits: QueueLimits::default(),
        subscribers: None,
    };
    while cur.eat_token(&Token::Comma) {
        parse_option(cur, &mut table)?;
    }
    // `CREATE TABLE t (c [attributes], …) AS …`: names and attributes for the copied columns
    let mut as_columns = Vec::new();
    if cur.peek() == Some(&Token::LParen) {
        let close = crate::parser::matching_paren(&cur.toks, cur.pos);
        let as_follows = close
            .and_then(|c| cur.toks.get(c + 1))
            .and_then(|t| crate::parser::unquoted_upper(&t.token))
            .as_deref()
            == Some("AS");
        if as_follows {
            cur.pos += 1;
            loop {
                as_columns.push(parse_column_descriptor(cur)?);
                if cur.eat_token(&Token::Comma) {
                    continue;
                }
                cur.expect_token(&Token::RParen, "',' or ')' after a column name")?;
                break;
            }
        }
    }
    if cur.eat_word("AS") {
        let mut source = parse_as(cur, table.global_temporary)?;
        source.columns = as_columns;
        table.as_source = Some(source);
        parse_indexes(cur, &mut table)?;
        cur.expect_end()?;
        return Ok(table);
    }
    cur.expect_token(&Token::LParen, "'(' and the column definitions")?;
    loop {
        parse_element(cur, &mut table)?;
        if cur.eat_token(&Token::Comma) {
            continue;
        }
        cur.expect_token(&Token::RParen, "',' or ')' after a column definition")?;
        break;
    }
    parse_indexes(cur, &mut table)?;
    cur.expect_end()?;
    Ok(table)
}

/// `(query) | table` and `WITH [NO] DATA [AND [NO] STATISTICS]`, after `AS`.
/// A global temporary table's definition holds no rows: only WITH NO DATA.
fn parse_as(cur: &mut Cursor, global_temporary: bool) -> Result<AsSource, ParseError> {
    let from = if cur.peek() == Some(&Token::LParen) {
        // the query in parentheses, with Teradata's shorthands (SEL, …) rewritten
        let open = cur.pos;
        cur.skip_parens()?;
        let mut inner = cur.toks[open + 1..cur.pos - 1].to_vec();
        crate::parser::rewrite_tokens(&mut inner);
        let mut sub = Cursor::new(inner, cur.loc());
        let mut q = sub.with_sqlparser(|p| p.parse_query())?;
        crate::phrase::name_select_items(&mut q);
        sub.expect_end()?;
        crate::implicit_from::query(&mut q, &[]);
        AsFrom::Query(q)
    } else {
        AsFrom::Table(cur.with_sqlparser(|p| p.parse_object_name(false))?)
    };
    cur.expect_word("WITH")?;
    let with_data = !cur.eat_word("NO");
    if with_data && global_temporary {
        return Err(cur.unexpected("expected WITH NO DATA for a GLOBAL TEMPORARY table"));
    }
    cur.expect_word("DATA")?;
    if cur.eat_word("AND") {
        cur.eat_word("NO");
        if !(cur.eat_word("STATISTICS") || cur.eat_word("STATS")) {
            return Err(cur.unexpected("expected STATISTICS after AND"));
        }
    }
    Ok(AsSource {
        from,
        with_data,
        columns: Vec::new(),
    })
}

/// One column of `CREATE TABLE t (c [attributes], …) AS …`: a name and attributes, no type
/// ("You cannot specify data types for source table columns, but you can specify column
/// attributes for them").
fn parse_column_descriptor(cur: &mut Cursor) -> Result<ColumnDef, ParseError> {
    let location = cur.loc();
    let name = cur.ident("a column name")?;
    if cur
        .word_at(0)
        .is_some_and(|w| TYPE_WORDS.contains(&w.as_str()))
    {
        return Err(cur.unexpected(&format!(
            "expected a column attribute for '{name}' (CREATE TABLE … AS copies the types)"
        )));
    }
    let mut col = new_column(name, DataType::Integer, location);
    column_attributes(cur, &mut col)?;
    Ok(col)
}

fn parse_option(cur: &mut Cursor, table: &mut CreateTable) -> Result<(), ParseError> {
    if cur.is_word("CONSUME") && cur.word_at(1).as_deref() == Some("ORDER") {
        let location = cur.loc();
        cur.pos += 2;
        cur.expect_token(&Token::LParen, "'(' and a column name after CONSUME ORDER")?;
        let column = cur.ident("a column name")?;
        let descending = cur.eat_word("DESC");
        if !descending {
            cur.eat_word("ASC");
        }
        cur.expect_token(&Token::RParen, "')' after the column of CONSUME ORDER")?;
        if table.consume_order.is_some() {
            return Err(ParseError::syntax(
                "CONSUME ORDER is given twice.",
                location,
            ));
        }
        table.consume_order = Some(ConsumeOrder {
            column,
            descending,
            location,
        });
        return Ok(());
    }
    if cur.is_word("DELIVER") && cur.word_at(1).as_deref() == Some("AT") {
        let location = cur.loc();
        cur.pos += 2;
        cur.expect_token(&Token::LParen, "'(' and a column name after DELIVER AT")?;
        let column = cur.ident("a column name")?;
        cur.expect_token(&Token::RParen, "')' after the column of DELIVER AT")?;
        if table.deliver_at.is_some() {
            return Err(ParseError::syntax("DELIVER AT is given twice.", location));
        }
        table.deliver_at = Some((column, location));
        return Ok(());
    }
    if parse_limits_option(cur, &mut table.limits)? {
        return Ok(());
    }
    if cur.is_word("SUBSCRIBERS") && cur.peek_at(1) == Some(&Token::LParen) {
        let location = cur.loc();
        cur.pos += 1;
        let names = column_list(cur)?;
        if table.subscribers.replace((names, location)).is_some() {
            return Err(ParseError::syntax("SUBSCRIBERS is given twice.", location));
        }
        return Ok(());
    }
    if cur.is_word("QUEUE") {
        table.queue_location = Some(cur.loc());
        cur.pos += 1;
        table.queue = true;
        return Ok(());
    }
    let start = cur.pos;
    while !cur.at_end() && cur.peek() != Some(&Token::Comma) && cur.peek() != Some(&Token::LParen) {
        cur.pos += 1;
    }
    if cur.pos == start {
        return Err(cur.unexpected("expected a table option after ','"));
    }
    let text = cur.toks[start..cur.pos]
        .iter()
        .map(|t| t.token.to_string())
        .collect::<Vec<_>>()
        .join(" ");
    table.options.push(text.to_ascii_uppercase());
    Ok(())
}

/// `ATTEMPTS (column)`, `MAX ATTEMPTS n`, `RETRY DELAY n unit`, `EXPIRE AFTER n unit` or
/// `DEAD LETTER TO table`
/// (docs/queues.md): true if the cursor was at one of them.
fn parse_limits_option(cur: &mut Cursor, a: &mut QueueLimits) -> Result<bool, ParseError> {
    let location = cur.loc();
    let twice = |what: &str| ParseError::syntax(format!("{what} is given twice."), location);
    if cur.is_word("ATTEMPTS") && cur.word_at(1).is_none() && cur.peek_at(1) == Some(&Token::LParen)
    {
        cur.pos += 2;
        let column = cur.ident("a column name after ATTEMPTS (")?;
        cur.expect_token(&Token::RParen, "')' after the column of ATTEMPTS")?;
        if a.column.replace((column, location)).is_some() {
            return Err(twice("ATTEMPTS"));
        }
        return Ok(true);
    }
    if cur.is_word("MAX") && cur.word_at(1).as_deref() == Some("ATTEMPTS") {
        cur.pos += 2;
        let n = cur.number("a number of attempts after MAX ATTEMPTS")?;
        let n = n
            .parse::<u64>()
            .ok()
            .filter(|n| (1..=i64::MAX as u64).contains(n))
            .ok_or_else(|| {
                ParseError::syntax("MAX ATTEMPTS takes a whole number from 1 up.", location)
            })?;
        if a.max.replace((n, location)).is_some() {
            return Err(twice("MAX ATTEMPTS"));
        }
        return Ok(true);
    }
    for (words, slot) in [
        (["EXPIRE", "AFTER"], &mut a.expire_after),
        (["RETRY", "DELAY"], &mut a.retry_delay),
    ] {
        if !(cur.is_word(words[0]) && cur.word_at(1).as_deref() == Some(words[1])) {
            continue;
        }
        let what = words.join(" ");
        cur.pos += 2;
        let n = cur.number(&format!("a number after {what}"))?;
        // more than nothing, at most about a century
        let time = crate::consume::duration_in_units(cur, &n, 3_155_760_000)?.ok_or_else(|| {
            ParseError::syntax(
                format!("{what} takes a time from a microsecond to a century."),
                location,
            )
        })?;
        if slot.replace((time, location)).is_some() {
            return Err(twice(&what));
        }
        return Ok(true);
    }
    if cur.is_word("DEAD") && cur.word_at(1).as_deref() == Some("LETTER") {
        cur.pos += 2;
        cur.expect_word("TO")?;
        let name = cur.with_sqlparser(|p| p.parse_object_name(false))?;
        if a.dead_letter.replace((name, location)).is_some() {
            return Err(twice("DEAD LETTER"));
        }
        return Ok(true);
    }
    Ok(false)
}

/// A column definition or a table-level constraint.
fn parse_element(cur: &mut Cursor, table: &mut CreateTable) -> Result<(), ParseError> {
    let at = cur.loc();
    if cur.eat_word("CONSTRAINT") {
        cur.ident("a constraint name")?;
    }
    let primary_key = cur.eat_words(&["PRIMARY", "KEY"]);
    if primary_key || cur.eat_word("UNIQUE") {
        let columns = column_list(cur)?;
        if primary_key {
            table.primary_key = Some(columns.clone());
        }
        table.unique_constraints.push(IndexDef {
            name: None,
            unique: true,
            columns,
            location: at,
        });
        return Ok(());
    }
    if cur.eat_word("CHECK") {
        cur.expect_token(&Token::LParen, "'(' after CHECK")?;
        let e = check_condition(cur)?;
        cur.expect_token(&Token::RParen, "')' after the CHECK condition")?;
        table.checks.push(e);
        return Ok(());
    }
    if cur.is_word("FOREIGN") {
        return Err(ParseError::unsupported("FOREIGN KEY", at));
    }
    let col = parse_column(cur)?;
    table.columns.push(col);
    Ok(())
}

fn column_list(cur: &mut Cursor) -> Result<Vec<String>, ParseError> {
    column_list_with(cur, false)
}

/// `(a, b, …)`; with `ordered`, each name may be followed by ASC or DESC (CREATE INDEX in
/// SQLite's form), which is read and ignored: tdlite does not scan indexes in order yet.
pub(crate) fn column_list_with(cur: &mut Cursor, ordered: bool) -> Result<Vec<String>, ParseError> {
    cur.expect_token(&Token::LParen, "'(' and a column list")?;
    let mut cols = Vec::new();
    loop {
        cols.push(cur.ident("a column name")?);
        if ordered {
            let _ = cur.eat_word("ASC") || cur.eat_word("DESC");
        }
        if !cur.eat_token(&Token::Comma) {
            break;
        }
    }
    cur.expect_token(&Token::RParen, "')' after the column list")?;
    Ok(cols)
}

fn paren_number(cur: &mut Cursor) -> Result<Option<u32>, ParseError> {
    if !cur.eat_token(&Token::LParen) {
        return Ok(None);
    }
    let at = cur.loc();
    let n = cur.number("a length or precision")?;
    let n: u32 = n.parse().map_err(|_| {
        ParseError::syntax(format!("'{n}' is not a valid length or precision."), at)
    })?;
    cur.expect_token(&Token::RParen, "')'")?;
    Ok(Some(n))
}

/// The most characters of a CHAR or VARCHAR, and bytes of a BYTE or VARBYTE (Teradata's
/// limit; docs/limits.md).
pub const MAX_LENGTH: u32 = 64_000;

/// A CHAR/VARCHAR/BYTE/VARBYTE length: at most [`MAX_LENGTH`], else 3706 at the type.
fn length(n: u32, ty: &str, at: Location) -> Result<u32, ParseError> {
    if n > MAX_LENGTH {
        return Err(ParseError::syntax(
            format!("{ty}({n}) is invalid: the length is at most {MAX_LENGTH}."),
            at,
        ));
    }
    Ok(n)
}

fn small(n: u32, max: u32, what: &str, cur: &Cursor) -> Result<u8, ParseError> {
    if n > max {
        return Err(ParseError::syntax(
            format!("{what} {n} is out of range (at most {max})."),
            cur.loc(),
        ));
    }
    Ok(n as u8)
}

/// The type names [`parse_type`] knows (the first word of each).
pub(crate) const TYPE_WORDS: [&str; 27] = [
    "BYTEINT",
    "SMALLINT",
    "INTEGER",
    "INT",
    "BIGINT",
    "DECIMAL",
    "DEC",
    "NUMERIC",
    "NUMBER",
    "FLOAT",
    "REAL",
    "DOUBLE",
    "CHAR",
    "CHARACTER",
    "VARCHAR",
    "LONG",
    "TEXT",
    "DATE",
    "TIME",
    "TIMESTAMP",
    "BYTE",
    "VARBYTE",
    "BLOB",
    "CLOB",
    "JSON",
    "XML",
    "PERIOD",
];

/// A data type written alone (`DECIMAL(9,2)`, `CHARACTER VARYING(10)`, `LONG VARCHAR`), read
/// by the grammar CREATE TABLE reads column types with: the one type syntax of tdlite (CAST
/// and typed literals use it too). `Ok(None)` when the first word names no type tdlite knows.
///
/// # Errors
/// A syntax error in a type tdlite knows (`DECIMAL(50)`, `VARCHAR` without a length).
pub fn parse_data_type(text: &str) -> Result<Option<DataType>, ParseError> {
    let toks = crate::parser::significant_tokens(text)?;
    let mut cur = Cursor::new(toks, crate::parser::end_location(text));
    let known = cur
        .word_at(0)
        .is_some_and(|w| TYPE_WORDS.contains(&w.as_str()));
    if !known {
        return Ok(None);
    }
    let t = parse_type(&mut cur)?;
    cur.expect_end()?;
    Ok(Some(t))
}

/// One column definition written alone (`token VARCHAR(20) CHARACTER SET UNICODE`), read by
/// the grammar of CREATE TABLE's columns: a table function's RETURNS clause uses it.
///
/// # Errors
/// A syntax error in the definition.
pub fn parse_column_definition(text: &str) -> Result<ColumnDef, ParseError> {
    let toks = crate::parser::significant_tokens(text)?;
    let mut cur = Cursor::new(toks, crate::parser::end_location(text));
    let col = parse_column(&mut cur)?;
    cur.expect_end()?;
    Ok(col)
}

/// The scale tdlite gives Teradata's NUMBER without a precision (or NUMBER(*)): Teradata's is
/// a floating decimal of up to 38 digits; tdlite's decimals have one scale per column, so such
/// a column keeps ten fractional digits (and 28 integer ones).
pub const NUMBER_SCALE: u32 = 10;

fn parse_type(cur: &mut Cursor) -> Result<DataType, ParseError> {
    let at = cur.loc();
    let Some(word) = cur.word_at(0) else {
        return Err(cur.unexpected("expected a data type"));
    };
    cur.pos += 1;
    let t = match word.as_str() {
        "BYTEINT" => DataType::ByteInt,
        "SMALLINT" => DataType::SmallInt,
        "INTEGER" | "INT" => DataType::Integer,
        "BIGINT" => DataType::BigInt,
        "DECIMAL" | "DEC" | "NUMERIC" | "NUMBER" => {
            // NUMBER without a precision, or NUMBER(*), is Teradata's floating decimal (any
            // scale): tdlite holds it as DECIMAL(38,10), exact to ten fractional digits
            let number = word == "NUMBER";
            let (mut p, mut s) = if number {
                (38, NUMBER_SCALE)
            } else {
                (5, 0u32)
            };
            if cur.eat_token(&Token::LParen) {
                let pa = cur.loc();
                if number && cur.eat_token(&Token::Mul) {
                    p = 38;
                } else {
                    p = cur
                        .number("a precision")?
                        .parse()
                        .map_err(|_| ParseError::syntax("bad precision", pa))?;
                    s = 0;
                }
                if cur.eat_token(&Token::Comma) {
                    let sa = cur.loc();
                    s = cur
                        .number("a scale")?
                        .parse()
                        .map_err(|_| ParseError::syntax("bad scale", sa))?;
                }
                cur.expect_token(&Token::RParen, "')'")?;
            }
            if p == 0 || p > 38 || s > p {
                return Err(ParseError::syntax(
                    format!("DECIMAL({p},{s}) is invalid: precision must be 1..38 and scale at most the precision."),
                    at,
                ));
            }
            DataType::Decimal(p as u8, s as i8)
        }
        "FLOAT" | "REAL" => {
            paren_number(cur)?;
            DataType::Float
        }
        "DOUBLE" => {
            cur.expect_word("PRECISION")?;
            DataType::Float
        }
        "CHAR" | "CHARACTER" => {
            if cur.eat_word("VARYING") {
                let n = paren_number(cur)?.ok_or_else(|| cur.unexpected("expected (n)"))?;
                DataType::VarChar(length(n, "VARCHAR", at)?)
            } else {
                DataType::Char(length(paren_number(cur)?.unwrap_or(1), "CHAR", at)?)
            }
        }
        "VARCHAR" => {
            let n =
                paren_number(cur)?.ok_or_else(|| cur.unexpected("expected (n) after VARCHAR"))?;
            DataType::VarChar(length(n, "VARCHAR", at)?)
        }
        "LONG" => {
            cur.expect_word("VARCHAR")?;
            DataType::VarChar(64000)
        }
        // tdlite extension for scripts from SQLite/PostgreSQL: TEXT is LONG VARCHAR
        "TEXT" => DataType::VarChar(64000),
        "DATE" => DataType::Date,
        "TIME" => {
            let p = paren_number(cur)?.unwrap_or(6);
            if cur.is_word("WITH") {
                return Err(ParseError::unsupported("TIME WITH TIME ZONE", cur.loc()));
            }
            DataType::Time(small(p, 6, "TIME precision", cur)?)
        }
        "TIMESTAMP" => {
            let written = paren_number(cur)?;
            let with_time_zone = zone(cur);
            DataType::Timestamp {
                precision: small(written.unwrap_or(6), 6, "TIMESTAMP precision", cur)?,
                explicit: written.is_some(),
                with_time_zone,
            }
        }
        "BYTE" => DataType::Byte(length(paren_number(cur)?.unwrap_or(1), "BYTE", at)?),
        "VARBYTE" => {
            let n =
                paren_number(cur)?.ok_or_else(|| cur.unexpected("expected (n) after VARBYTE"))?;
            DataType::VarByte(length(n, "VARBYTE", at)?)
        }
        "PERIOD" => {
            cur.expect_token(&Token::LParen, "'(' after PERIOD")?;
            // a cast's element type arrives as one string (period_syntax.rs)
            let of = match cur.peek() {
                Some(Token::SingleQuotedString(s)) => {
                    let s = s.clone();
                    cur.pos += 1;
                    parse_data_type(&s)?
                }
                _ => Some(parse_type(cur)?),
            };
            cur.expect_token(&Token::RParen, "')'")?;
            DataType::Period(match of {
                Some(DataType::Date) => PeriodOf::Date,
                Some(DataType::Time(p)) => PeriodOf::Time(p),
                Some(DataType::Timestamp { precision, .. }) => PeriodOf::Timestamp(precision),
                _ => {
                    return Err(ParseError::syntax(
                        "A PERIOD's element type is DATE, TIME or TIMESTAMP.",
                        at,
                    ))
                }
            })
        }
        "BLOB" | "CLOB" | "JSON" | "XML" => {
            if cur.peek() == Some(&Token::LParen) {
                cur.skip_parens()?;
            }
            DataType::Unsupported(match word.as_str() {
                "BLOB" => LargeType::Blob,
                "CLOB" => LargeType::Clob,
                "JSON" => LargeType::Json,
                _ => LargeType::Xml,
            })
        }
        _ => {
            return Err(ParseError::syntax(
                format!("'{word}' is not a data type tdlite knows."),
                at,
            ));
        }
    };
    Ok(t)
}

fn zone(cur: &mut Cursor) -> bool {
    cur.eat_words(&["WITH", "TIME", "ZONE"])
}

pub(crate) fn parse_column(cur: &mut Cursor) -> Result<ColumnDef, ParseError> {
    let location = cur.loc();
    let name = cur.ident("a column name")?;
    let data_type = parse_type(cur)?;
    let mut col = new_column(name, data_type, location);
    column_attributes(cur, &mut col)?;
    Ok(col)
}

/// A column definition with no attribute yet.
fn new_column(name: String, data_type: DataType, location: Location) -> ColumnDef {
    ColumnDef {
        name,
        data_type,
        not_null: false,
        default: None,
        case_specific: None,
        uppercase: false,
        format: None,
        title: None,
        character_set: None,
        compress: false,
        primary_key: false,
        unique: false,
        identity: None,
        checks: Vec::new(),
        location,
        default_location: None,
    }
}

/// The attributes after a column's type (or, in CREATE TABLE … AS, its name), up to the
/// `,` or `)` that ends it.
fn column_attributes(cur: &mut Cursor, col: &mut ColumnDef) -> Result<(), ParseError> {
    loop {
        if matches!(cur.peek(), None | Some(Token::Comma) | Some(Token::RParen)) {
            return Ok(());
        }
        let at = cur.loc();
        if cur.eat_words(&["NOT", "NULL"]) {
            col.not_null = true;
        } else if cur.eat_word("NULL") {
        } else if cur.eat_words(&["NOT", "CASESPECIFIC"]) || cur.eat_words(&["NOT", "CS"]) {
            col.case_specific = Some(false);
        } else if cur.eat_word("CASESPECIFIC") || cur.eat_word("CS") {
            col.case_specific = Some(true);
        } else if cur.eat_word("UPPERCASE") || cur.eat_word("UC") {
            col.uppercase = true;
        } else if cur.eat_word("FORMAT") {
            col.format = Some(cur.string("a FORMAT string")?);
        } else if cur.eat_word("TITLE") {
            col.title = Some(cur.string("a TITLE string")?);
        } else if cur.eat_word("NAMED") {
            cur.ident("a name after NAMED")?;
        } else if cur.eat_words(&["CHARACTER", "SET"]) {
            col.character_set = Some(cur.ident("a character set name")?.to_ascii_uppercase());
        } else if cur.eat_words(&["NO", "COMPRESS"]) {
        } else if cur.eat_word("COMPRESS") {
            col.compress = true;
            if cur.peek() == Some(&Token::LParen) {
                cur.skip_parens()?;
            } else if matches!(
                cur.peek(),
                Some(Token::Number(..)) | Some(Token::SingleQuotedString(_))
            ) {
                cur.pos += 1;
            }
        } else if cur.eat_words(&["WITH", "DEFAULT"]) {
            col.default = Some(ColumnDefault::System);
            col.default_location = Some(at);
        } else if cur.eat_word("DEFAULT") {
            col.default = Some(ColumnDefault::Expr(Box::new(parse_default(cur)?)));
            col.default_location = Some(at);
        } else if cur.eat_words(&["PRIMARY", "KEY"]) {
            col.primary_key = true;
        } else if cur.eat_word("UNIQUE") {
            col.unique = true;
        } else if cur.eat_word("CONSTRAINT") {
            cur.ident("a constraint name")?;
        } else if cur.eat_word("CHECK") {
            if cur.peek() != Some(&Token::LParen) {
                return Err(cur.unexpected("expected '(' after CHECK"));
            }
            cur.pos += 1;
            let e = check_condition(cur)?;
            cur.expect_token(&Token::RParen, "')' after the CHECK condition")?;
            col.checks.push(e);
        } else if cur.eat_word("GENERATED") {
            col.identity = Some(Box::new(identity(cur)?));
        } else if cur.is_word("REFERENCES") {
            return Err(ParseError::unsupported("REFERENCES", at));
        } else {
            return Err(cur.unexpected(&format!("expected a column attribute for '{}'", col.name)));
        }
    }
}

/// What follows `GENERATED`: `ALWAYS|BY DEFAULT AS IDENTITY [(option …)]`.
fn identity(cur: &mut Cursor) -> Result<IdentitySpec, ParseError> {
    let always = if cur.eat_word("ALWAYS") {
        true
    } else if cur.eat_words(&["BY", "DEFAULT"]) {
        false
    } else {
        return Err(cur.unexpected("expected ALWAYS or BY DEFAULT after GENERATED"));
    };
    cur.expect_word("AS")?;
    cur.expect_word("IDENTITY")?;
    let mut spec = IdentitySpec {
        always,
        start: None,
        increment: None,
        min: None,
        max: None,
        cycle: false,
    };
    if !cur.eat_token(&Token::LParen) {
        return Ok(spec);
    }
    while !cur.eat_token(&Token::RParen) {
        if cur.eat_words(&["START", "WITH"]) {
            spec.start = Some(signed_integer(cur)?);
        } else if cur.eat_words(&["INCREMENT", "BY"]) {
            spec.increment = Some(signed_integer(cur)?);
        } else if cur.eat_word("MINVALUE") {
            spec.min = Some(signed_integer(cur)?);
        } else if cur.eat_word("MAXVALUE") {
            spec.max = Some(signed_integer(cur)?);
        } else if cur.eat_words(&["NO", "MINVALUE"]) {
            spec.min = None;
        } else if cur.eat_words(&["NO", "MAXVALUE"]) {
            spec.max = None;
        } else if cur.eat_words(&["NO", "CYCLE"]) {
            spec.cycle = false;
        } else if cur.eat_word("CYCLE") {
            spec.cycle = true;
        } else {
            return Err(cur.unexpected(
                "expected START WITH, INCREMENT BY, MINVALUE, MAXVALUE, CYCLE or ')'",
            ));
        }
        cur.eat_token(&Token::Comma);
    }
    Ok(spec)
}

/// An integer, maybe signed (an identity column's options).
fn signed_integer(cur: &mut Cursor) -> Result<i128, ParseError> {
    let negative = if cur.eat_token(&Token::Minus) {
        true
    } else {
        cur.eat_token(&Token::Plus);
        false
    };
    let at = cur.loc();
    let n = cur.number("an integer")?;
    let v: i128 = n
        .parse()
        .map_err(|_| ParseError::syntax(format!("'{n}' is not an integer."), at))?;
    Ok(if negative { -v } else { v })
}

/// `DEFAULT` values: a literal (optionally signed), NULL, USER, DATE, TIME, CURRENT_DATE,
/// CURRENT_TIME[(p)], CURRENT_TIMESTAMP[(p)], or a typed literal such as `DATE '2020-01-01'`.
fn parse_default(cur: &mut Cursor) -> Result<sqlparser::ast::Expr, ParseError> {
    let start = cur.pos;
    match cur.peek() {
        Some(Token::Minus) | Some(Token::Plus) => {
            cur.pos += 1;
            cur.number("a number after the sign")?;
        }
        Some(Token::Number(..)) | Some(Token::SingleQuotedString(_)) => cur.pos += 1,
        Some(Token::Word(_)) => {
            let w = cur.word_at(0).unwrap_or_default();
            cur.pos += 1;
            match w.as_str() {
                "DATE" | "TIME" | "TIMESTAMP"
                    if matches!(cur.peek(), Some(Token::SingleQuotedString(_))) =>
                {
                    cur.pos += 1
                }
                "CURRENT_TIME" | "CURRENT_TIMESTAMP" if cur.peek() == Some(&Token::LParen) => {
                    cur.skip_parens()?
                }
                "NULL" | "USER" | "DATE" | "TIME" | "CURRENT_DATE" | "CURRENT_TIME"
                | "CURRENT_TIMESTAMP" => {}
                _ => {
                    cur.pos = start;
                    return Err(cur.unexpected("expected a literal, NULL, USER, DATE, TIME or CURRENT_TIMESTAMP after DEFAULT"));
                }
            }
        }
        _ => return Err(cur.unexpected("expected a default value")),
    }
    let mut sub = Cursor::new(cur.toks[start..cur.pos].to_vec(), cur.loc());
    let e = sub.with_sqlparser(|p| p.parse_expr())?;
    sub.expect_end()?;
    Ok(e)
}

/// A CHECK condition: the tokens up to the `)` that closes it, rewritten as a statement's are
/// (attribute phrases, `**`, …), read as one expression. The cursor stops at that `)`.
fn check_condition(cur: &mut Cursor) -> Result<sqlparser::ast::Expr, ParseError> {
    let start = cur.pos;
    let mut depth = 0usize;
    let close = loop {
        match cur.toks.get(cur.pos).map(|t| &t.token) {
            None => return Err(cur.unexpected("expected ')' after the CHECK condition")),
            Some(Token::LParen) => depth += 1,
            Some(Token::RParen) if depth == 0 => break cur.pos,
            Some(Token::RParen) => depth -= 1,
            Some(_) => {}
        }
        cur.pos += 1;
    };
    let mut toks = cur.toks[start..close].to_vec();
    crate::parser::rewrite_tokens(&mut toks);
    let mut sub = Cursor::new(toks, cur.loc());
    let mut e = sub.with_sqlparser(|p| p.parse_expr())?;
    sub.expect_end()?;
    crate::phrase::format_casts_as_phrases(&mut e);
    Ok(e)
}

/// `PARTITION BY` what follows: `COLUMN [ALL BUT] [(…)]`, `(…)`, `NAME(…)` (RANGE_N, CASE_N, a
/// function of columns) or a column, maybe with `ADD n`.
fn parse_indexes(cur: &mut Cursor, table: &mut CreateTable) -> Result<(), ParseError> {
    loop {
        cur.eat_token(&Token::Comma);
        if cur.at_end() {
            return Ok(());
        }
        let at = cur.loc();
        if cur.eat_words(&["NO", "PRIMARY", "INDEX"]) {
            table.no_primary_index = true;
            continue;
        }
        if cur.eat_words(&["ON", "COMMIT"]) {
            let preserve = if cur.eat_word("PRESERVE") {
                true
            } else {
                cur.expect_word("DELETE")?;
                false
            };
            cur.expect_word("ROWS")?;
            table.on_commit_preserve = Some(preserve);
            continue;
        }
        if cur.eat_words(&["PARTITION", "BY"]) {
            // row or column partitioning (RANGE_N, CASE_N, an expression, COLUMN, several in
            // parentheses): how Teradata lays rows out on disk, never which rows a query sees;
            // tdlite reads past it (SHOW TABLE keeps it as written)
            table.partitioning = crate::partitioning::parse(cur)?;
            table.partitioned = true;
            continue;
        }
        let unique = cur.eat_word("UNIQUE");
        let primary = cur.eat_word("PRIMARY");
        if !cur.eat_word("INDEX") {
            return Err(cur.unexpected("expected PRIMARY INDEX, INDEX or the end of the statement"));
        }
        let mut name = None;
        if let (Some(Token::Word(_)), false) = (cur.peek(), cur.is_word("ALL")) {
            if cur.peek_at(1) == Some(&Token::LParen) || cur.word_at(1).as_deref() == Some("ALL") {
                name = Some(cur.ident("an index name")?);
            }
        }
        cur.eat_word("ALL");
        let columns = if cur.peek() == Some(&Token::LParen) {
            column_list(cur)?
        } else {
            vec![cur.ident("an index column list")?]
        };
        let def = IndexDef {
            name,
            unique,
            columns,
            location: at,
        };
        if primary {
            if table.primary_index.is_some() {
                return Err(ParseError::syntax(
                    "A table can have only one PRIMARY INDEX.",
                    at,
                ));
            }
            table.primary_index = Some(def);
        } else {
            if cur.eat_words(&["ORDER", "BY"]) {
                cur.eat_word("VALUES");
                cur.eat_word("HASH");
                column_list(cur)?;
            }
            table.indexes.push(def);
        }
    }
}
