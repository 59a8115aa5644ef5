//! HELP TABLE and HELP COLUMN: the attributes Teradata reports for each column, in its order
//! (SQL Data Definition Language Detailed Topics, "Table, Hash Index, and Join Index
//! Attributes" and "HELP COLUMN Attributes"). The type is DBC.ColumnsV's two-character code
//! (`I `, `CV`, `DA`, …), lengths are in bytes.
//!
//! The two differ where Teradata's do: HELP TABLE has the column's comment, title, UpperCase
//! code and default value, and reports a FORMAT only where it is not the type's default
//! (a DATE's always); HELP COLUMN reports the display format (the column's own, else its type's
//! default). Tools built on teradatasql read HELP COLUMN's `Column Dictionary Name`, `Type`,
//! `Max Length`, `Char Type`.
//!
//! Invariant: one row per column asked for, in the order the table defines them.

use crate::dbc::{
    case_code, comment, default_text, digits_of, length, nulls, shown_format, text, type_code,
    Builder, Cell,
};
use crate::dictionary::Registry;
use crate::error::Result;
use crate::result::Rows;
use tdlite_storage::catalog::{Column, TableSchema};
use tdlite_storage::types::SqlType;

/// The attributes both statements have after the first ones: from `Table/View?` (HELP
/// COLUMN) or `Char Type` (HELP TABLE, which has `Default value` between) to the end.
const TEMPORAL_AND_NAMES: [(&str, bool); 13] = [
    ("Temporal Column", false),
    ("Current ValidTime Unique?", false),
    ("Sequenced ValidTime Unique?", false),
    ("NonSequenced ValidTime Unique?", false),
    ("Current TransactionTime Unique?", false),
    ("Partitioning Column", false),
    ("Column Partition Number", true),
    ("Column Partition Format", false),
    ("Column Partition AC", false),
    ("Column Dictionary Name", false),
    ("Column SQL Name", false),
    ("Column Name UEscape", false),
    ("UDT Dictionary Name", false),
];

/// The cells of [`TEMPORAL_AND_NAMES`] and the two UDT names after it, for column `c`.
fn temporal_and_names(c: &Column) -> Vec<Cell> {
    let mut row = vec![
        text("N"),
        Cell::Null,
        Cell::Null,
        Cell::Null,
        Cell::Null,
        text("N"),
        Cell::Int(0),
        Cell::Null,
        Cell::Null,
        text(c.name.clone()),
        text(c.name.clone()),
    ];
    row.extend(nulls(4));
    row
}

/// `Char Type` (2: UNICODE, tdlite's character set), `IdCol Type` (GA or GD for an identity
/// column) and `UDT Name`.
fn char_id_udt(c: &Column) -> [Cell; 3] {
    [
        if c.ty.is_character() {
            Cell::Int(2)
        } else {
            Cell::Null
        },
        match c.identity {
            Some(id) => text(if id.always { "GA" } else { "GD" }),
            None => Cell::Null,
        },
        Cell::Null,
    ]
}

fn view_flag(table: &TableSchema) -> Cell {
    text(if table.view.is_some() { "V" } else { "T" })
}

/// The columns after the listed ones: the two UDT names Teradata ends with.
fn with_udt_names(list: &[(&'static str, bool)]) -> Vec<(&'static str, bool)> {
    let mut all = list.to_vec();
    all.extend(TEMPORAL_AND_NAMES);
    all.extend([("UDT SQL Name", false), ("UDT Name UEscape", false)]);
    all
}

/// HELP COLUMN's rows for `cols` of `table`.
pub(crate) fn help_column(table: &TableSchema, cols: &[&Column]) -> Result<Rows> {
    let mut b = Builder::new(&with_udt_names(&[
        ("Column Name", false),
        ("Type", false),
        ("Nullable", false),
        ("Format", false),
        ("Max Length", true),
        ("Decimal Total Digits", true),
        ("Decimal Fractional Digits", true),
        ("Table/View?", false),
        ("Char Type", true),
        ("IdCol Type", false),
        ("UDT Name", false),
    ]));
    for c in cols {
        let (digits, fraction) = digits_of(&c.ty);
        let mut row = vec![
            text(c.name.clone()),
            text(type_code(&c.ty)),
            text(if c.nullable { "Y" } else { "N" }),
            shown_format(c).map_or(Cell::Null, text),
            Cell::Int(length(&c.ty)),
            digits,
            fraction,
            view_flag(table),
        ];
        row.extend(char_id_udt(c));
        row.extend(temporal_and_names(c));
        b.row(row);
    }
    b.finish()
}

/// HELP TABLE's rows for `cols` of `table`; column comments from `registry`.
pub(crate) fn help_table(
    table: &TableSchema,
    cols: &[&Column],
    registry: &Registry,
) -> Result<Rows> {
    let mut b = Builder::new(&with_udt_names(&[
        ("Column Name", false),
        ("Type", false),
        ("Comment", false),
        ("Nullable", false),
        ("Format", false),
        ("Title", false),
        ("Max Length", true),
        ("Decimal Total Digits", true),
        ("Decimal Fractional Digits", true),
        ("Range Low", false),
        ("Range High", false),
        ("UpperCase", false),
        ("Table/View?", false),
        ("Default value", false),
        ("Char Type", true),
        ("IdCol Type", false),
        ("UDT Name", false),
    ]));
    for c in cols {
        let (digits, fraction) = digits_of(&c.ty);
        // reported only where it is not the type's default, a DATE's always
        let format = match (&c.format, &c.ty) {
            (Some(f), _) => text(f.clone()),
            (None, SqlType::Date) => shown_format(c).map_or(Cell::Null, text),
            (None, _) => Cell::Null,
        };
        let mut row = vec![
            text(c.name.clone()),
            text(type_code(&c.ty)),
            comment(registry, 'C', &format!("{}.{}", table.name, c.name)),
            text(if c.nullable { "Y" } else { "N" }),
            format,
            c.title.clone().map_or(Cell::Null, text),
            Cell::Int(length(&c.ty)),
            digits,
            fraction,
            Cell::Null,
            Cell::Null,
            text(if c.ty.is_character() {
                case_code(c)
            } else {
                "N"
            }),
            view_flag(table),
            default_text(c),
        ];
        row.extend(char_id_udt(c));
        row.extend(temporal_and_names(c));
        b.row(row);
    }
    b.finish()
}
