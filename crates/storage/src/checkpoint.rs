//! Checkpoint files: one Arrow IPC file per table (its committed rows plus their insertion
//! sequence numbers) and the `MANIFEST` that names them.
//!
//! ```text
//!   MANIFEST      = "TDLITE-MANIFEST 2 crc32=<8 hex> len=<n>\n" <n bytes of JSON>  (1: older)
//!   t<id>-<gen>.arrow = Arrow IPC file: the table's columns, then one UInt64 column of sequences
//! ```
//!
//! The manifest records each file's length and CRC-32, so a damaged file is an error naming it
//! before any of its bytes are read as data. Files are immutable once named in a manifest; a
//! new manifest replaces the old one by an atomic rename.

use crate::catalog::TableSchema;
use arrow::array::{Array, ArrayRef, UInt64Array};
use arrow::datatypes::{DataType, Field, Schema};
use arrow::ipc::reader::FileReader;
use arrow::ipc::writer::FileWriter;
use arrow::record_batch::RecordBatch;
use serde::{Deserialize, Serialize};
use std::io::Cursor;
use std::sync::Arc;

/// The manifest: what a reopen loads before replaying the log.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    /// Replay starts with log file `wal-<generation>`.
    pub generation: u64,
    /// The LSN of that log's first frame.
    pub next_lsn: u64,
    /// The highest table id ever handed out.
    pub last_table_id: u64,
    /// The saved tables.
    pub tables: Vec<TableEntry>,
    /// Every LSN up to this one was durable in the logs when the manifest was written (at
    /// open, at a checkpoint and at a clean close): a replay that ends before it found a log
    /// cut short (9916). 0 in manifests written before tdlite kept it.
    #[serde(default)]
    pub durable_lsn: u64,
    /// Log files from this generation on keep the rules of [`crate::wal`]: never shrunk, a
    /// zero tail, a next-log frame ending every log but the newest; replay refuses less (9916).
    /// Absent in manifests written before tdlite kept these rules; the first open by a version
    /// that does sets it to the log it goes on writing.
    #[serde(default)]
    pub sealed_from: Option<u64>,
}

/// One saved table.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TableEntry {
    /// Table id.
    pub id: u64,
    /// Definition.
    pub schema: TableSchema,
    /// File name inside the database folder.
    pub file: String,
    /// Rows in the file.
    pub rows: u64,
    /// File length in bytes.
    pub bytes: u64,
    /// CRC-32 of the whole file.
    pub crc32: u32,
    /// The table's insertion-sequence counter when saved (never handed out again).
    pub next_seq: u64,
    /// The state of the table's identity generator when saved (absent: no identity column).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<SavedIdentity>,
}

/// An identity generator's saved state (see [`crate::identity`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedIdentity {
    /// How many numbers it had handed out.
    pub taken: u64,
}

impl Manifest {
    /// The manifest of a new, empty database.
    pub fn empty() -> Self {
        Manifest {
            generation: 0,
            next_lsn: 1,
            last_table_id: 0,
            tables: Vec::new(),
            durable_lsn: 0,
            sealed_from: Some(0),
        }
    }
}

const MANIFEST_TAG: &str = "TDLITE-MANIFEST";

/// The manifest format written: 2 since logs keep the rules of [`crate::wal`] (a version
/// that reads only 1 would trim their zero tails, so it must refuse the folder instead).
const MANIFEST_VERSION: u32 = 2;

/// Serializes a manifest with its checksum line.
pub fn encode_manifest(m: &Manifest) -> Vec<u8> {
    let json = serde_json::to_vec_pretty(m).expect("a manifest always serializes");
    let crc = crc32fast::hash(&json);
    let head = format!("{MANIFEST_TAG} {MANIFEST_VERSION} crc32={crc:08x}");
    let mut out = format!("{head} len={}\n", json.len()).into_bytes();
    out.extend_from_slice(&json);
    out
}

/// Parses a manifest, checking its checksum.
///
/// # Errors
/// What is wrong with it, in words.
pub fn decode_manifest(bytes: &[u8]) -> Result<Manifest, String> {
    let nl = bytes
        .iter()
        .position(|&b| b == b'\n')
        .ok_or("no header line")?;
    let header = std::str::from_utf8(&bytes[..nl]).map_err(|_| "unreadable header line")?;
    let mut words = header
        .strip_prefix(MANIFEST_TAG)
        .ok_or("not a tdlite manifest")?
        .split_whitespace();
    let version = match words.next() {
        Some("1") => 1,
        Some("2") => 2,
        _ => return Err("not a manifest version this tdlite reads".into()),
    };
    let crc = words
        .next()
        .and_then(|w| w.strip_prefix("crc32="))
        .and_then(|h| u32::from_str_radix(h, 16).ok())
        .ok_or("bad checksum field")?;
    let len: usize = words
        .next()
        .and_then(|w| w.strip_prefix("len="))
        .and_then(|n| n.parse().ok())
        .ok_or("bad length field")?;
    let json = &bytes[nl + 1..];
    if json.len() != len {
        return Err(format!("length is {} bytes, header says {len}", json.len()));
    }
    if crc32fast::hash(json) != crc {
        return Err("checksum mismatch".into());
    }
    let mut m: Manifest = serde_json::from_slice(json).map_err(|e| e.to_string())?;
    if version == 1 {
        // an older version wrote it, and may have trimmed the logs
        m.sealed_from = None;
    }
    if m.next_lsn == 0 {
        return Err("next_lsn is 0".into());
    }
    Ok(Manifest {
        tables: m
            .tables
            .into_iter()
            .map(|t| TableEntry {
                schema: t.schema.with_arrow(),
                ..t
            })
            .collect(),
        ..m
    })
}

fn file_schema(schema: &TableSchema) -> Arc<Schema> {
    let mut fields: Vec<Field> = schema
        .arrow
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    fields.push(Field::new("__tdlite_seq", DataType::UInt64, false));
    Arc::new(Schema::new(fields))
}

/// Encodes a table's rows (batches in the table's schema, with one sequence per row).
///
/// # Errors
/// An Arrow error, in words.
pub fn encode_table(
    schema: &TableSchema,
    batches: &[RecordBatch],
    seqs: &[u64],
) -> Result<Vec<u8>, String> {
    let fs = file_schema(schema);
    let mut w = FileWriter::try_new(Vec::new(), &fs).map_err(|e| e.to_string())?;
    let mut at = 0;
    for b in batches {
        let n = b.num_rows();
        let mut cols: Vec<ArrayRef> = b.columns().to_vec();
        cols.push(Arc::new(UInt64Array::from(seqs[at..at + n].to_vec())));
        at += n;
        let batch = RecordBatch::try_new(fs.clone(), cols).map_err(|e| e.to_string())?;
        w.write(&batch).map_err(|e| e.to_string())?;
    }
    w.finish().map_err(|e| e.to_string())?;
    w.into_inner().map_err(|e| e.to_string())
}

/// Decodes a table file: batches in the table's schema, each with its rows' sequences.
///
/// # Errors
/// The file does not hold this table's columns, in words.
pub fn decode_table(
    schema: &TableSchema,
    bytes: Vec<u8>,
) -> Result<Vec<(RecordBatch, Vec<u64>)>, String> {
    let reader = FileReader::try_new(Cursor::new(bytes), None).map_err(|e| e.to_string())?;
    let ncols = schema.columns.len();
    let mut out = Vec::new();
    for b in reader {
        let b = b.map_err(|e| e.to_string())?;
        if b.num_columns() != ncols + 1 {
            return Err(format!(
                "{} columns, expected {}",
                b.num_columns(),
                ncols + 1
            ));
        }
        let seqs = b
            .column(ncols)
            .as_any()
            .downcast_ref::<UInt64Array>()
            .filter(|a| a.null_count() == 0)
            .ok_or("bad sequence column")?
            .values()
            .to_vec();
        let batch = RecordBatch::try_new(schema.arrow.clone(), b.columns()[..ncols].to_vec())
            .map_err(|e| format!("columns do not match the table: {e}"))?;
        out.push((batch, seqs));
    }
    Ok(out)
}
