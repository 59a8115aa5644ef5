//! The DBC dictionary views that scripts query (`DBC.TablesV`, `ColumnsV`, `DatabasesV`,
//! `IndicesV`, `UsersV`, `AllRightsV`, `DBCInfoV`, the space views `TableSizeV`, `DiskSpaceV`
//! and `AllSpaceV`, tdlite's own `QueueStatsV` (docs/queues.md, Metrics), and their `…V`-less
//! and `…X` names), filled from the
//! catalog when a query names one. They read like tables: `SEL TableName FROM DBC.TablesV
//! WHERE DatabaseName = 'sales'` works as on Teradata, with Teradata's column names and codes
//! (TableKind `T`/`V`/`Q`, ColumnType `I `/`CV`/`DA`/…).
//!
//! Comments (`COMMENT ON`), databases made with `CREATE DATABASE|USER` and rights given with
//! `GRANT` come from the process's registry (dictionary.rs).
//!
//! Invariants: a view has the same columns whatever the catalog holds (an empty catalog gives
//! no rows, never another shape); values Teradata keeps and tdlite does not (timestamps, space,
//! accounts) are NULL rather than made up.

use crate::dictionary::Registry;
use crate::error::Result;
use crate::result::Rows;
use arrow::array::{ArrayRef, Int32Array, Int64Array, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use arrow::record_batch::RecordBatch;
use std::sync::Arc;
use tdlite_storage::catalog::{Catalog, Column, DefaultValue, IndexSpec};
use tdlite_storage::period::PeriodElem;
use tdlite_storage::types::{SqlType, Value};

/// A column of a view being built: text, INTEGER or BIGINT cells.
enum Cells {
    Text(Vec<Option<String>>),
    Int(Vec<Option<i32>>),
    Big(Vec<Option<i64>>),
}

/// Builds a view's rows column by column.
pub(crate) struct Builder {
    names: Vec<&'static str>,
    cells: Vec<Cells>,
}

impl Builder {
    pub(crate) fn new(columns: &[(&'static str, bool)]) -> Self {
        Builder {
            names: columns.iter().map(|(n, _)| *n).collect(),
            cells: columns
                .iter()
                .map(|(_, int)| {
                    if *int {
                        Cells::Int(Vec::new())
                    } else {
                        Cells::Text(Vec::new())
                    }
                })
                .collect(),
        }
    }

    /// Makes column `name` a BIGINT column.
    fn big(mut self, name: &str) -> Self {
        if let Some(i) = self.names.iter().position(|n| *n == name) {
            self.cells[i] = Cells::Big(Vec::new());
        }
        self
    }

    /// Adds a row: one `Cell` per column, in order.
    pub(crate) fn row(&mut self, values: Vec<Cell>) {
        for (col, v) in self.cells.iter_mut().zip(values) {
            match (col, v) {
                (Cells::Big(c), Cell::Big(i)) => c.push(Some(i)),
                (Cells::Big(c), Cell::Int(i)) => c.push(Some(i.into())),
                (Cells::Big(c), _) => c.push(None),
                (Cells::Int(c), Cell::Big(i)) => c.push(i32::try_from(i).ok()),
                (Cells::Text(c), Cell::Big(i)) => c.push(Some(i.to_string())),
                (Cells::Text(c), Cell::Text(t)) => c.push(Some(t)),
                (Cells::Int(c), Cell::Int(i)) => c.push(Some(i)),
                (Cells::Text(c), Cell::Null) => c.push(None),
                (Cells::Int(c), Cell::Null) => c.push(None),
                (Cells::Text(c), Cell::Int(i)) => c.push(Some(i.to_string())),
                (Cells::Int(c), Cell::Text(_)) => c.push(None),
            }
        }
    }

    pub(crate) fn finish(self) -> Result<Rows> {
        let fields: Vec<Field> = self
            .names
            .iter()
            .zip(&self.cells)
            .map(|(n, c)| match c {
                Cells::Text(_) => Field::new(*n, DataType::Utf8, true),
                Cells::Int(_) => Field::new(*n, DataType::Int32, true),
                Cells::Big(_) => Field::new(*n, DataType::Int64, true),
            })
            .collect();
        let schema = Arc::new(Schema::new(fields));
        let arrays: Vec<ArrayRef> = self
            .cells
            .into_iter()
            .map(|c| match c {
                Cells::Text(v) => Arc::new(StringArray::from(v)) as ArrayRef,
                Cells::Int(v) => Arc::new(Int32Array::from(v)) as ArrayRef,
                Cells::Big(v) => Arc::new(Int64Array::from(v)) as ArrayRef,
            })
            .collect();
        Ok(Rows {
            schema: schema.clone(),
            batches: vec![RecordBatch::try_new(schema, arrays)?],
        })
    }
}

/// One cell of a row being added.
pub(crate) enum Cell {
    Text(String),
    Int(i32),
    Big(i64),
    Null,
}

/// What `DBC.QueueStatsV` reads beyond the catalog: the open transactions (for rows in
/// flight), the consumers waiting on each queue (by table id), and the clock.
pub(crate) struct QueueSource<'a> {
    pub txns: &'a tdlite_storage::mvcc::TxnManager,
    pub waiting: &'a dyn Fn(u64) -> usize,
    /// The request's CURRENT_TIMESTAMP (read only when the view is asked for).
    pub now_us: &'a dyn Fn() -> i64,
}

/// `n` NULL cells.
pub(crate) fn nulls(n: usize) -> impl Iterator<Item = Cell> {
    (0..n).map(|_| Cell::Null)
}

pub(crate) fn text(s: impl Into<String>) -> Cell {
    Cell::Text(s.into())
}

/// Which view a name means, if any: `DBC.TablesV` (any case), or `TablesV` alone while the
/// default database is DBC.
pub(crate) fn which(parts: &[String], default_db: Option<&str>) -> Option<&'static str> {
    let view = match parts {
        [db, v] if db.eq_ignore_ascii_case("DBC") => v,
        [v] if default_db.is_some_and(|d| d.eq_ignore_ascii_case("DBC")) => v,
        _ => return None,
    };
    let upper = view.to_ascii_uppercase();
    let base = upper
        .strip_suffix("VX")
        .or_else(|| upper.strip_suffix('V'))
        .or_else(|| upper.strip_suffix('X'))
        .unwrap_or(&upper);
    Some(match base {
        "TABLES" => "TABLES",
        "COLUMNS" => "COLUMNS",
        "DATABASES" => "DATABASES",
        "INDICES" => "INDICES",
        "USERS" => "USERS",
        "ALLRIGHTS" => "ALLRIGHTS",
        "DBCINFO" => "DBCINFO",
        "TABLESIZE" => "TABLESIZE",
        "DISKSPACE" => "DISKSPACE",
        "ALLSPACE" => "ALLSPACE",
        "QUEUESTATS" => "QUEUESTATS",
        _ => return None,
    })
}

/// The rows of the dictionary view `parts` names (`["DBC", "TablesV"]`), or `None` if it names
/// none. `user` is the session's user, whose database holds the unqualified tables.
///
/// # Errors
/// Only Arrow errors building the batch (none expected).
pub(crate) fn view_rows(
    catalog: &Catalog,
    registry: &Registry,
    user: &str,
    default_db: Option<&str>,
    parts: &[String],
    queues: &QueueSource,
) -> Result<Option<Rows>> {
    let Some(view) = which(parts, default_db) else {
        return Ok(None);
    };
    let rows = match view {
        "QUEUESTATS" => queue_stats(
            with_subscribers(
                catalog,
                catalog.tables().into_iter().filter(|t| t.schema.queue),
            )
            .into_iter(),
            user,
            queues,
        ),
        "TABLES" => tables(catalog, registry, user),
        "COLUMNS" => columns(catalog, registry, user),
        "DATABASES" => databases(catalog, registry, user),
        "INDICES" => indices(catalog, user),
        "USERS" => users(registry, user),
        "DBCINFO" => dbc_info(),
        "TABLESIZE" => space(catalog, registry, user, Space::Tables),
        "DISKSPACE" => space(catalog, registry, user, Space::Databases),
        "ALLSPACE" => space(catalog, registry, user, Space::Both),
        _ => all_rights(registry),
    }?;
    Ok(Some(rows))
}

/// Database and object name of a catalog entry, as the views show them.
fn split_name(name: &str, user: &str) -> (String, String) {
    match name.rsplit_once('.') {
        Some((db, t)) => (db.to_string(), t.to_string()),
        None => (user.to_string(), name.to_string()),
    }
}

/// A registry comment as a cell (NULL when there is none).
pub(crate) fn comment(registry: &Registry, class: char, name: &str) -> Cell {
    registry.comment(class, name).map_or(Cell::Null, text)
}

fn tables(catalog: &Catalog, registry: &Registry, user: &str) -> Result<Rows> {
    // Teradata 17.20's DBC.TablesV columns, in order (`true`: an integer column)
    let mut b = Builder::new(&[
        ("DataBaseName", false),
        ("TableName", false),
        ("Version", true),
        ("TableKind", false),
        ("ProtectionType", false),
        ("JournalFlag", false),
        ("CreatorName", false),
        ("RequestText", false),
        ("CommentString", false),
        ("ParentCount", true),
        ("ChildCount", true),
        ("NamedTblCheckCount", true),
        ("UnnamedTblCheckExist", false),
        ("PrimaryKeyIndexId", true),
        ("RepStatus", false),
        ("CreateTimeStamp", false),
        ("LastAlterName", false),
        ("LastAlterTimeStamp", false),
        ("RequestTxtOverFlow", false),
        ("AccessCount", true),
        ("LastAccessTimeStamp", false),
        ("UtilVersion", true),
        ("QueueFlag", false),
        ("CommitOpt", false),
        ("TransLog", false),
        ("CheckOpt", false),
        ("TemporalProperty", false),
        ("ResolvedCurrent_Date", false),
        ("ResolvedCurrent_TimeStamp", false),
        ("SystemDefinedJI", false),
        ("VTQualifier", false),
        ("TTQualifier", false),
        ("PIColumnCount", true),
        ("PartitioningLevels", true),
        ("LoadProperty", false),
        ("CurrentLoadId", true),
        ("LoadIdLayout", false),
        ("DelayedJI", false),
        ("BlockSize", true),
        ("FreeSpacePercent", true),
        ("MergeBlockRatio", true),
        ("CheckSum", false),
        ("BlockCompression", false),
        ("BlockCompressionAlgorithm", false),
        ("BlockCompressionLevel", false),
        ("TableHeaderFormat", false),
        ("RowSizeFormat", false),
        ("MapName", false),
        ("ColocationName", false),
        ("TVMFlavor", false),
    ]);
    for t in catalog.tables() {
        let s = &t.schema;
        let (db, name) = split_name(&s.name, user);
        let is_table = s.view.is_none() && s.macro_def.is_none();
        let kind = match (&s.view, &s.macro_def, s.queue, &s.primary_index) {
            (Some(_), ..) => "V",
            (_, Some(m), ..) if m.procedure => "P",
            (_, Some(_), ..) => "M",
            (_, _, true, _) => "Q",
            (_, _, _, None) => "O",
            _ => "T",
        };
        let unnamed_checks = !s.checks.is_empty();
        let n = |v: i32| if is_table { Cell::Int(v) } else { Cell::Null };
        let mut row = vec![
            text(db),
            text(name),
            Cell::Int(1),
            text(kind),
            text("N"),
            text("NN"),
            text(user),
            // the DDL as written (a view's CREATE VIEW, as Teradata keeps it)
            text(s.ddl.clone()),
            comment(registry, 'T', &s.name),
            n(0),
            n(0),
            n(0),
            text(if unnamed_checks { "Y" } else { "N" }),
            Cell::Null,
            Cell::Null,
            Cell::Null,
            text(user),
            Cell::Null,
            text("N"),
            Cell::Null,
            Cell::Null,
            Cell::Null,
            text(if s.queue { "Y" } else { "N" }),
            // CommitOpt: a global temporary table's ON COMMIT (D delete, P preserve)
            text(match s.global_temporary {
                Some(tdlite_storage::catalog::VolatileCommit::DeleteRows) => "D",
                Some(tdlite_storage::catalog::VolatileCommit::PreserveRows) => "P",
                None => "N",
            }),
            text("Y"),
            // tables: Y for SET (duplicate rows checked), N for MULTISET
            text(
                if is_table && s.kind == tdlite_storage::catalog::TableKind::Set {
                    "Y"
                } else {
                    "N"
                },
            ),
            text("N"),
            Cell::Null,
            Cell::Null,
            text("N"),
            Cell::Null,
            Cell::Null,
            n(s.primary_index
                .as_ref()
                .map_or(0, |p| p.columns.len() as i32)),
            n(0),
            Cell::Null,
            Cell::Null,
            Cell::Null,
            text("N"),
        ];
        // BlockSize … RowSizeFormat: nothing tdlite keeps
        row.extend(nulls(9));
        row.extend([
            if is_table {
                text("TD_MAP1")
            } else {
                Cell::Null
            },
            Cell::Null,
            text("N"),
        ]);
        b.row(row);
    }
    b.finish()
}

/// Teradata's two-character type code (`DBC.ColumnsV.ColumnType`).
pub(crate) fn type_code(ty: &SqlType) -> &'static str {
    match ty {
        SqlType::ByteInt => "I1",
        SqlType::SmallInt => "I2",
        SqlType::Integer => "I ",
        SqlType::BigInt => "I8",
        SqlType::Decimal(..) => "D ",
        SqlType::Float => "F ",
        SqlType::Char(_) => "CF",
        SqlType::VarChar(_) => "CV",
        SqlType::Date => "DA",
        SqlType::Time(_) => "AT",
        SqlType::Timestamp(_) => "TS",
        SqlType::Byte(_) => "BF",
        SqlType::VarByte(_) => "BV",
        SqlType::Period(PeriodElem::Date) => "PD",
        SqlType::Period(PeriodElem::Time(_)) => "PT",
        SqlType::Period(PeriodElem::Timestamp(_)) => "PS",
    }
}

/// The bytes Teradata stores a value of `ty` in (`ColumnLength`); character columns count
/// two bytes a character (tdlite's character set is Unicode).
pub(crate) fn length(ty: &SqlType) -> i32 {
    match ty {
        SqlType::ByteInt => 1,
        SqlType::SmallInt => 2,
        SqlType::Integer | SqlType::Date => 4,
        SqlType::BigInt | SqlType::Float => 8,
        SqlType::Decimal(p, _) => match p {
            0..=2 => 1,
            3..=4 => 2,
            5..=9 => 4,
            10..=18 => 8,
            _ => 16,
        },
        SqlType::Char(n) | SqlType::VarChar(n) => (*n as i32).saturating_mul(2),
        SqlType::Byte(n) | SqlType::VarByte(n) => *n as i32,
        SqlType::Time(_) => 6,
        SqlType::Timestamp(_) => 10,
        SqlType::Period(PeriodElem::Date) => 8,
        SqlType::Period(PeriodElem::Time(_)) => 12,
        SqlType::Period(PeriodElem::Timestamp(_)) => 20,
    }
}

/// `DecimalTotalDigits` and `DecimalFractionalDigits`: a DECIMAL's precision and scale, a
/// TIME's or TIMESTAMP's fractional digits.
pub(crate) fn digits_of(ty: &SqlType) -> (Cell, Cell) {
    match *ty {
        SqlType::Decimal(p, s) => (Cell::Int(p.into()), Cell::Int(s.into())),
        SqlType::Time(p)
        | SqlType::Timestamp(p)
        | SqlType::Period(PeriodElem::Time(p) | PeriodElem::Timestamp(p)) => {
            (Cell::Null, Cell::Int(p.into()))
        }
        _ => (Cell::Null, Cell::Null),
    }
}

pub(crate) fn default_text(c: &Column) -> Cell {
    match &c.default {
        None => Cell::Null,
        Some(DefaultValue::CurrentTimestamp) => text("CURRENT_TIMESTAMP"),
        Some(DefaultValue::CurrentDate) => text("DATE"),
        Some(DefaultValue::CurrentTime) => text("TIME"),
        Some(DefaultValue::User) => text("USER"),
        Some(DefaultValue::Const(v)) => match v {
            Value::Null => text("NULL"),
            Value::Int(i) => text(i.to_string()),
            Value::Str(s) => text(format!("'{}'", s.replace('\'', "''"))),
            Value::Float(f) => text(f.to_string()),
            Value::Decimal(v, s) => text(crate::decimal::decimal_text(*v, *s)),
            Value::Date(d) => text(
                chrono::DateTime::from_timestamp(i64::from(*d) * 86_400, 0)
                    .map_or_else(String::new, |t| format!("DATE '{}'", t.format("%Y-%m-%d"))),
            ),
            Value::Time(_) | Value::Timestamp(_) | Value::Bytes(_) | Value::Period(_) => Cell::Null,
        },
    }
}

fn columns(catalog: &Catalog, registry: &Registry, user: &str) -> Result<Rows> {
    // Teradata 17.20's DBC.ColumnsV columns, in order (`true`: an integer column)
    let mut b = Builder::new(&[
        ("DatabaseName", false),
        ("TableName", false),
        ("ColumnName", false),
        ("ColumnFormat", false),
        ("ColumnTitle", false),
        ("SPParameterType", false),
        ("ColumnType", false),
        ("ColumnUDTName", false),
        ("ColumnLength", true),
        ("DefaultValue", false),
        ("Nullable", false),
        ("CommentString", false),
        ("DecimalTotalDigits", true),
        ("DecimalFractionalDigits", true),
        ("ColumnId", true),
        ("UpperCaseFlag", false),
        ("Compressible", false),
        ("CompressValue", false),
        ("ColumnConstraint", false),
        ("ConstraintCount", true),
        ("CreatorName", false),
        ("CreateTimeStamp", false),
        ("LastAlterName", false),
        ("LastAlterTimeStamp", false),
        ("CharType", true),
        ("IdColType", false),
        ("AccessCount", true),
        ("LastAccessTimeStamp", false),
        ("CompressValueList", false),
        ("TimeDimension", false),
        ("VTCheckType", false),
        ("TTCheckType", false),
        ("ConstraintID", false),
        ("ArrayColNumberOfDimensions", true),
        ("ArrayColScope", false),
        ("ArrayColElementType", false),
        ("ArrayColElementUdtName", false),
        ("PartitioningColumn", false),
        ("ColumnPartitionNumber", true),
        ("ColumnPartitionFormat", false),
        ("ColumnPartitionACOff", false),
        ("PseudoUDTFieldCount", true),
        ("PseudoUDTFieldType", false),
        ("StorageFormat", false),
        ("InlineLength", true),
        ("TSColumnType", false),
    ]);
    for t in catalog.tables() {
        let (db, name) = split_name(&t.schema.name, user);
        for (i, c) in t.schema.columns.iter().enumerate() {
            let (digits, fraction) = digits_of(&c.ty);
            let case_flag = if c.ty.is_character() {
                text(case_code(c))
            } else {
                Cell::Null
            };
            let checks = t
                .schema
                .checks
                .iter()
                .filter(|(col, _)| {
                    col.as_deref()
                        .is_some_and(|n| n.eq_ignore_ascii_case(&c.name))
                })
                .count();
            let mut row = vec![
                text(db.clone()),
                text(name.clone()),
                text(c.name.clone()),
                shown_format(c).map_or(Cell::Null, text),
                c.title.clone().map_or(Cell::Null, text),
                Cell::Null,
                text(type_code(&c.ty)),
                Cell::Null,
                Cell::Int(length(&c.ty)),
                default_text(c),
                text(if c.nullable { "Y" } else { "N" }),
                comment(registry, 'C', &format!("{}.{}", t.schema.name, c.name)),
                digits,
                fraction,
                Cell::Int(1025 + i as i32),
                case_flag,
                text("N"),
                Cell::Null,
                Cell::Null,
                Cell::Int(checks as i32),
                text(user),
                Cell::Null,
                text(user),
                Cell::Null,
                // 2: UNICODE, tdlite's character set
                if c.ty.is_character() {
                    Cell::Int(2)
                } else {
                    Cell::Null
                },
            ];
            // IdColType: GA (GENERATED ALWAYS) or GD (BY DEFAULT) for an identity column
            row.push(match c.identity {
                Some(id) => text(if id.always { "GA" } else { "GD" }),
                None => Cell::Null,
            });
            // AccessCount … ArrayColElementUdtName: no access counts or arrays
            row.extend(nulls(11));
            row.extend([text("N"), Cell::Int(0)]);
            // ColumnPartitionFormat … TSColumnType
            row.extend(nulls(7));
            b.row(row);
        }
    }
    b.finish()
}

fn databases(catalog: &Catalog, registry: &Registry, user: &str) -> Result<Rows> {
    let mut b = Builder::new(&[
        ("DatabaseName", false),
        ("CreatorName", false),
        ("OwnerName", false),
        ("AccountName", false),
        ("ProtectionType", false),
        ("JournalFlag", false),
        ("PermSpace", true),
        ("SpoolSpace", true),
        ("TempSpace", true),
        ("CommentString", false),
        ("CreateTimeStamp", false),
        ("LastAlterName", false),
        ("LastAlterTimeStamp", false),
        ("DBKind", false),
        ("AccessCount", true),
        ("LastAccessTimeStamp", false),
    ]);
    for (name, kind) in database_names(catalog, registry, user) {
        let owner = if name == "DBC" { "DBC" } else { user };
        let note = comment(registry, 'D', &name);
        b.row(vec![
            text(name),
            text(owner),
            text(owner),
            Cell::Null,
            text("N"),
            text("NN"),
            Cell::Null,
            Cell::Null,
            Cell::Null,
            note,
            Cell::Null,
            Cell::Null,
            Cell::Null,
            text(kind),
            Cell::Null,
            Cell::Null,
        ]);
    }
    b.finish()
}

/// The databases the views list, with their kind (`U` user, `D` database): DBC, the session's
/// user, those made with CREATE DATABASE|USER, and every database a table is in.
fn database_names(
    catalog: &Catalog,
    registry: &Registry,
    user: &str,
) -> Vec<(String, &'static str)> {
    let mut names: Vec<(String, &str)> = vec![("DBC".into(), "U"), (user.to_string(), "U")];
    for (db, is_user) in registry.databases.lock().iter() {
        if !names.iter().any(|(n, _)| n.eq_ignore_ascii_case(db)) {
            names.push((db.clone(), if *is_user { "U" } else { "D" }));
        }
    }
    for t in catalog.tables() {
        if let Some((db, _)) = t.schema.name.rsplit_once('.') {
            if !names.iter().any(|(n, _)| n.eq_ignore_ascii_case(db)) {
                names.push((db.to_string(), "D"));
            }
        }
    }
    names
}

/// Which rows a space view has.
#[derive(PartialEq)]
enum Space {
    /// `TableSizeV`: a row per table.
    Tables,
    /// `DiskSpaceV`: a row per database.
    Databases,
    /// `AllSpaceV`: both, a database's row with TableName `All`.
    Both,
}

/// `DBC.TableSizeV`, `DiskSpaceV` and `AllSpaceV`: one row per table or database (Vproc 0, as
/// one AMP would show), with the names Teradata has; the space figures are NULL, since tdlite
/// allots no space (so a script that sums them runs, and shows no made-up number).
fn space(catalog: &Catalog, registry: &Registry, user: &str, kind: Space) -> Result<Rows> {
    const FIGURES: [&str; 9] = [
        "MaxPerm",
        "MaxSpool",
        "MaxTemp",
        "CurrentPerm",
        "CurrentSpool",
        "CurrentTemp",
        "PeakPerm",
        "PeakSpool",
        "PeakTemp",
    ];
    let mut columns: Vec<(&'static str, bool)> = vec![
        ("Vproc", true),
        ("DatabaseName", false),
        ("AccountName", false),
    ];
    if kind != Space::Databases {
        columns.push(("TableName", false));
    }
    if kind == Space::Tables {
        columns.extend([("CurrentPerm", true), ("PeakPerm", true)]);
    } else {
        columns.extend(FIGURES.iter().map(|f| (*f, true)));
    }
    let figures = columns.len() - if kind == Space::Databases { 3 } else { 4 };
    let mut b = Builder::new(&columns);
    let mut row = |db: String, table: Option<String>| {
        let mut cells = vec![Cell::Int(0), text(db), Cell::Null];
        cells.extend(table.map(text));
        cells.extend(nulls(figures));
        b.row(cells);
    };
    if kind != Space::Tables {
        for (db, _) in database_names(catalog, registry, user) {
            row(db, (kind == Space::Both).then(|| "All".to_string()));
        }
    }
    if kind != Space::Databases {
        for t in catalog.tables() {
            if t.schema.view.is_none() && t.schema.macro_def.is_none() {
                let (db, name) = split_name(&t.schema.name, user);
                row(db, Some(name));
            }
        }
    }
    b.finish()
}

fn indices(catalog: &Catalog, user: &str) -> Result<Rows> {
    let mut b = Builder::new(&[
        ("DatabaseName", false),
        ("TableName", false),
        ("IndexNumber", true),
        ("IndexType", false),
        ("UniqueFlag", false),
        ("IndexName", false),
        ("ColumnName", false),
        ("ColumnPosition", true),
        ("CreatorName", false),
        ("CreateTimeStamp", false),
        ("LastAlterName", false),
        ("LastAlterTimeStamp", false),
        ("IndexMode", false),
        ("AccessCount", true),
        ("LastAccessTimeStamp", false),
        ("UniqueOrPK", false),
    ]);
    for t in catalog.tables() {
        let s = &t.schema;
        if s.view.is_some() {
            continue;
        }
        let (db, name) = split_name(&s.name, user);
        // Teradata numbers the primary index 1 and secondary indexes 4, 8, 12, …
        let numbered = s.primary_index.iter().map(|i| (1, "P", i)).chain(
            s.secondary
                .iter()
                .enumerate()
                .map(|(n, i)| (4 * (n as i32 + 1), "S", i)),
        );
        for (number, kind, index) in numbered {
            let IndexSpec {
                name: index_name,
                columns,
                unique,
            } = index;
            // the PRIMARY KEY's index is K, whether it became the UPI or a USI
            let is_key = s.primary_key.as_ref() == Some(columns);
            let kind = if is_key { "K" } else { kind };
            for (pos, &col) in columns.iter().enumerate() {
                let Some(c) = s.columns.get(col) else {
                    continue;
                };
                b.row(vec![
                    text(db.clone()),
                    text(name.clone()),
                    Cell::Int(number),
                    text(kind),
                    text(if *unique { "Y" } else { "N" }),
                    index_name.clone().map_or(Cell::Null, text),
                    text(c.name.clone()),
                    Cell::Int(pos as i32 + 1),
                    text(user),
                    Cell::Null,
                    text(user),
                    Cell::Null,
                    Cell::Null,
                    Cell::Null,
                    Cell::Null,
                    if is_key {
                        text("P")
                    } else if *unique {
                        text("U")
                    } else {
                        Cell::Null
                    },
                ]);
            }
        }
    }
    b.finish()
}

fn users(registry: &Registry, user: &str) -> Result<Rows> {
    let mut b = Builder::new(&[
        ("UserName", false),
        ("CreatorName", false),
        ("PermSpace", true),
        ("SpoolSpace", true),
        ("DefaultAccount", false),
        ("DefaultDataBase", false),
        ("CommentString", false),
        ("CreateTimeStamp", false),
    ]);
    let created: Vec<String> = registry
        .databases
        .lock()
        .iter()
        .filter(|(_, is_user)| *is_user)
        .map(|(n, _)| n.clone())
        .collect();
    for name in std::iter::once(user.to_string()).chain(created) {
        let note = comment(registry, 'D', &name);
        b.row(vec![
            text(name.clone()),
            text(if name == user { "DBC" } else { user }),
            Cell::Null,
            Cell::Null,
            Cell::Null,
            text(name),
            note,
            Cell::Null,
        ]);
    }
    b.finish()
}

/// `DBC.QueueStatsV` (tdlite's own, docs/queues.md): a row per queue table of `queues`, with
/// its figures now (`Table::queue_stats`), the consumers waiting on it, and the age of its
/// oldest row. `HELP QUEUE q` gives the same row for one queue.
///
/// # Errors
/// Only Arrow errors building the batch (none expected).
/// The committed ones of `tables`.
fn committed(
    tables: Vec<Arc<tdlite_storage::table::Table>>,
) -> Vec<Arc<tdlite_storage::table::Table>> {
    tables.into_iter().filter(|t| t.usable_by(0)).collect()
}

/// `queues` and, after each queue with subscribers, its committed subscribers' tables (their
/// rows in the view: docs/queues.md, Subscribers).
pub(crate) fn with_subscribers(
    catalog: &Catalog,
    queues: impl Iterator<Item = Arc<tdlite_storage::table::Table>>,
) -> Vec<Arc<tdlite_storage::table::Table>> {
    let mut out = Vec::new();
    for q in queues {
        let subs = match q.schema.multi_consumer {
            true => committed(catalog.subscribers_of(&q)),
            false => Vec::new(),
        };
        out.push(q);
        out.extend(subs);
    }
    out
}

pub(crate) fn queue_stats(
    queues: impl Iterator<Item = Arc<tdlite_storage::table::Table>>,
    user: &str,
    source: &QueueSource,
) -> Result<Rows> {
    let mut b = Builder::new(&[
        ("DatabaseName", false),
        ("TableName", false),
        ("Depth", true),
        ("OldestQITS", false),
        ("OldestAgeSeconds", true),
        ("InFlight", true),
        ("Waiting", true),
        ("Enqueued", true),
        ("Consumed", true),
        ("DeadLettered", true),
        ("Subscriber", false),
    ])
    .big("Depth")
    .big("OldestAgeSeconds")
    .big("InFlight")
    .big("Enqueued")
    .big("Consumed")
    .big("DeadLettered");
    let snapshot = source.txns.snapshot(0);
    let now_us = (source.now_us)();
    let mut rows: Vec<(String, String, Option<String>, Vec<Cell>)> = Vec::new();
    for t in queues {
        // a subscriber's table: its queue's name, and the subscriber's
        let (queue, subscriber) = match &t.schema.subscription {
            Some(s) => (s.queue.as_str(), Some(s.name.clone())),
            None => (t.schema.name.as_str(), None),
        };
        let (db, name) = split_name(queue, user);
        let q = t.queue_stats(&snapshot);
        let big = |n: u64| Cell::Big(i64::try_from(n).unwrap_or(i64::MAX));
        let oldest = q
            .oldest_qits
            .and_then(chrono::DateTime::from_timestamp_micros);
        let age = q
            .oldest_qits
            .map(|us| Cell::Big(now_us.saturating_sub(us).max(0) / 1_000_000));
        let waiting = i32::try_from((source.waiting)(t.id)).unwrap_or(i32::MAX);
        rows.push((
            db.clone(),
            name.clone(),
            subscriber.clone(),
            vec![
                text(db),
                text(name),
                big(q.depth),
                oldest.map_or(Cell::Null, |t| {
                    text(t.naive_utc().format("%Y-%m-%d %H:%M:%S%.6f").to_string())
                }),
                age.unwrap_or(Cell::Null),
                big(q.in_flight),
                Cell::Int(waiting),
                big(q.enqueued),
                big(q.consumed),
                big(q.dead_lettered),
                subscriber.map_or(Cell::Null, text),
            ],
        ));
    }
    // a queue's own row first, then its subscribers'
    rows.sort_by(|a, b| (&a.0, &a.1, &a.2).cmp(&(&b.0, &b.1, &b.2)));
    for (_, _, _, cells) in rows {
        b.row(cells);
    }
    b.finish()
}

/// The Teradata release whose SQL tdlite follows, as `DBC.DBCInfoV` reports it.
const TERADATA_RELEASE: &str = "17.20.00.00";

/// `DBC.DBCInfoV`: the system's release and language mode, as scripts check them; one more key,
/// `TDLITE VERSION`, says what really answers.
fn dbc_info() -> Result<Rows> {
    let mut b = Builder::new(&[("InfoKey", false), ("InfoData", false)]);
    for (key, data) in [
        ("LANGUAGE SUPPORT MODE", "Standard"),
        ("RELEASE", TERADATA_RELEASE),
        ("VERSION", TERADATA_RELEASE),
        ("TDLITE VERSION", env!("CARGO_PKG_VERSION")),
    ] {
        b.row(vec![text(key), text(data)]);
    }
    b.finish()
}

/// Teradata's two-character code for a right (`AccessRight`); a right without one keeps its
/// first two letters.
fn right_code(privilege: &str) -> String {
    let code = match privilege {
        "SELECT" | "SEL" => "R ",
        "INSERT" | "INS" => "I ",
        "UPDATE" | "UPD" => "U ",
        "DELETE" | "DEL" => "D ",
        "EXECUTE" | "EXEC" => "E ",
        "ALL" | "ALL PRIVILEGES" => "AL",
        "CREATE TABLE" => "CT",
        "DROP TABLE" => "DT",
        "CREATE VIEW" => "CV",
        "DROP VIEW" => "DV",
        "CREATE MACRO" => "CM",
        "DROP MACRO" => "DM",
        "CREATE DATABASE" => "CD",
        "DROP DATABASE" => "DD",
        "CREATE USER" => "CU",
        "DROP USER" => "DU",
        "INDEX" => "IX",
        "REFERENCES" => "RF",
        other => return other.chars().take(2).collect(),
    };
    code.to_string()
}

fn all_rights(registry: &Registry) -> Result<Rows> {
    let mut b = Builder::new(&[
        ("UserName", false),
        ("DatabaseName", false),
        ("TableName", false),
        ("ColumnName", false),
        ("AccessRight", false),
        ("GrantAuthority", false),
        ("GrantorName", false),
        ("AllnessFlag", false),
        ("CreatorName", false),
        ("CreateTimeStamp", false),
    ]);
    for r in registry.rights.lock().iter() {
        let (db, table) = match r.object.split_once('.') {
            Some((d, t)) => (d.to_string(), t.to_string()),
            None => (r.object.clone(), "All".to_string()),
        };
        b.row(vec![
            text(r.grantee.clone()),
            text(db),
            text(table),
            text("All"),
            text(right_code(&r.privilege)),
            text(if r.grant_option { "Y" } else { "N" }),
            text("TDLITE"),
            text("N"),
            text("TDLITE"),
            Cell::Null,
        ]);
    }
    b.finish()
}

/// A character column's case attributes as Teradata's code (`UpperCaseFlag`): `U`
/// UPPERCASE, `C` CASESPECIFIC, `B` both, `N` neither.
pub(crate) fn case_code(c: &Column) -> &'static str {
    match (c.uppercase, c.case_specific) {
        (true, true) => "B",
        (true, false) => "U",
        (false, true) => "C",
        (false, false) => "N",
    }
}

/// A column's display format: its own FORMAT, else its type's default (Teradata's "Data Type
/// Default Formats").
pub(crate) fn shown_format(c: &Column) -> Option<String> {
    c.format
        .clone()
        .or_else(|| crate::format::type_format(&c.ty))
}

#[cfg(test)]
mod tests {
    use super::which;
    use crate::decimal::decimal_text;

    #[test]
    fn decimals_show_their_scale() {
        assert_eq!(decimal_text(0, 2), "0.00");
        assert_eq!(decimal_text(1050, 2), "10.50");
        assert_eq!(decimal_text(-5, 3), "-0.005");
        assert_eq!(decimal_text(7, 0), "7");
    }

    #[test]
    fn names_with_and_without_v_and_x_find_the_view() {
        let w = |p: &[&str], d| which(&p.iter().map(|s| s.to_string()).collect::<Vec<_>>(), d);
        assert_eq!(w(&["DBC", "TablesV"], None), Some("TABLES"));
        assert_eq!(w(&["dbc", "tables"], None), Some("TABLES"));
        assert_eq!(w(&["DBC", "ColumnsVX"], None), Some("COLUMNS"));
        assert_eq!(w(&["DBC", "IndicesX"], None), Some("INDICES"));
        assert_eq!(w(&["DatabasesV"], Some("dbc")), Some("DATABASES"));
        assert_eq!(w(&["DatabasesV"], None), None);
        assert_eq!(w(&["sales", "TablesV"], None), None);
        assert_eq!(w(&["DBC", "Nothing"], None), None);
    }
}
