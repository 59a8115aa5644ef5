//! Bound scalar expressions and their vectorised evaluation over Arrow record batches.
//!
//! Evaluation uses Arrow's compute kernels (`cmp`, `numeric`, `boolean`, `cast`, `zip`, `like`);
//! only what Arrow lacks is written here: Teradata's character comparison (trailing blanks
//! ignored, case-blind unless an operand is CASESPECIFIC), DATE ± integer, and a few string
//! functions.
//!
//! Invariant: `eval` returns an array with exactly `batch.num_rows()` rows, and errors rather
//! than panics on any value (overflow 2616, division by zero 2618, bad dates 2665).

use crate::error::{Error, Result};
use arrow::array::{
    new_null_array, Array, ArrayRef, AsArray, BooleanArray, Date32Array, Int32Array, StringArray,
    UInt32Array,
};
use arrow::compute::kernels::{boolean, cmp, comparison, numeric, zip::zip};
use arrow::compute::{cast_with_options, take, CastOptions};
use arrow::datatypes::DataType;
use arrow::record_batch::RecordBatch;
use std::sync::Arc;
use tdlite_storage::types::SqlType;

/// Binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (integer division truncates)
    Div,
    /// `MOD` (sign of the dividend)
    Mod,
    /// `=` / `EQ`
    Eq,
    /// `<>` / `NE` / `^=`
    NotEq,
    /// `<` / `LT`
    Lt,
    /// `<=` / `LE`
    LtEq,
    /// `>` / `GT`
    Gt,
    /// `>=` / `GE`
    GtEq,
    /// `AND`
    And,
    /// `OR`
    Or,
    /// `||`
    Concat,
}

/// Built-in scalar functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    /// `COALESCE(a, b, …)`
    Coalesce,
    /// The merged key of `JOIN … USING (k)`: the first non-NULL side, typed as the sides
    /// compare (not by the CASE rule of COALESCE: an INTEGER and a DECIMAL key stay exact).
    MergeKeys,
    /// `TO_CHAR(x)` without a model: a number as exactly its significant digits (`1.5`, not
    /// the DECIMAL FORMAT's `1.50`); anything else as CAST writes it.
    PlainText,
    /// Before a CAST to CHAR(n)/VARCHAR(n): the value unchanged, or 3996 where its text would
    /// have more than n characters and one past the n-th is not a blank. A number's text (by
    /// its default FORMAT, trimmed, as the CAST writes it) is checked in both session modes
    /// (Teradata's "How CAST Differs from Teradata Conversion Syntax": truncation of
    /// significant data is an error); other text only when the flag is set (ANSI mode).
    NoTruncation(u32, bool),
    /// `NULLIF(a, b)`
    NullIf,
    /// `GREATEST(a, b, …)` (`true`) or `LEAST(a, b, …)` (greatest.rs)
    Extreme(bool),
    /// `UPPER(s)`
    Upper,
    /// `LOWER(s)`
    Lower,
    /// `TRIM(s)` (both ends, blanks)
    Trim,
    /// `CHARACTERS(s)` / `CHAR_LENGTH(s)` / `CHARACTER_LENGTH(s)`
    CharLength,
    /// `BYTES(b)`: the bytes of a byte string (a BYTE(n) value's n)
    Bytes,
    /// `OCTET_LENGTH(x)`: the bytes of a value as stored: a byte string's length, two a
    /// character of text (tdlite's character set is UNICODE, as Teradata stores it in UTF-16)
    OctetLength,
    /// `ABS(n)`
    Abs,
    /// `ZEROIFNULL(n)`
    ZeroIfNull,
    /// `NULLIFZERO(n)`
    NullIfZero,
    /// A LIKE pattern, with its ESCAPE character if one is given, rewritten for Arrow's LIKE
    /// (whose escape is `\`; Teradata has none by default, so a `\` is literal).
    LikePattern,
    /// `TYPE(e)`: the type of `e` as text, a TIME or TIMESTAMP with the fractional digits its
    /// syntax declares (given here). Character types show no length here: where the syntax
    /// declares one, the binder answers `CHAR(5)` itself (text_type.rs).
    Type(Option<u8>),
    /// One of the row-by-row built-ins of `functions.rs`.
    Builtin(crate::functions::Builtin),
    /// A TIME, TIMESTAMP or PERIOD value as text with this many fractional digits (its type's
    /// precision, where it is below six); any other value as it is.
    TimeText(u8),
    /// A PERIOD function or operator (`period_fns.rs`).
    Period(crate::period_fns::PeriodFn),
}

/// A bound expression: names resolved to input column positions.
// (the crate's own: `expr` is a private module, but the trait impls of `InItems` make rustc
// take its fields for reachable)
#[allow(private_interfaces)]
#[derive(Debug, Clone)]
pub enum Expr {
    /// Input column `index`.
    Column {
        /// Position in the input batch.
        index: usize,
        /// Whether the column is CASESPECIFIC.
        case_specific: bool,
    },
    /// A constant: a one-row array.
    Literal(ArrayRef),
    /// `left op right`.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `NOT e`.
    Not(Box<Expr>),
    /// `-e`.
    Neg(Box<Expr>),
    /// `e IS [NOT] NULL`.
    IsNull(Box<Expr>, bool),
    /// `e [NOT] IN (list)`.
    InList(Box<Expr>, InItems, bool),
    /// `(e1, e2, …) [NOT] IN (SELECT …)`: the row of values against a set of rows, a struct
    /// array whose fields are the subquery's columns (each with its CASESPECIFIC mark) and
    /// whose rows are its rows (in_set.rs [`in_rows`](crate::in_set::in_rows)). Where the
    /// subquery has not run yet it is a deferred subquery's one-row placeholder
    /// (deferred.rs).
    InRows(Vec<Expr>, ArrayRef, bool, crate::in_set::Memo),
    /// `e [NOT] LIKE pattern`.
    Like(Box<Expr>, Box<Expr>, bool),
    /// `CASE WHEN … THEN … ELSE … END` (the simple form is bound into this one).
    Case(Vec<(Expr, Expr)>, Option<Box<Expr>>),
    /// `CAST(e AS type)`.
    Cast(Box<Expr>, SqlType),
    /// A scalar function call.
    Func(Func, Vec<Expr>),
    /// The result of window call `k` (a hidden column added by `window::append`).
    WindowRef(usize),
    /// `SAMPLEID`: the number of the sample a row was drawn in (a hidden column that
    /// `sample::apply`'s caller adds).
    SampleId,
    /// `CAST(e AS type FORMAT 'fmt')`: the FORMAT is the target's (text read by it, a value
    /// written by it).
    CastFormat(Box<Expr>, SqlType, String),
    /// `e` converted to the character type `type` by Teradata's rule for a value that
    /// becomes text implicitly or through the conversion syntax: written by its own FORMAT
    /// (a phrase's, a column's; `None`: its type's default FORMAT) first
    /// ([`crate::format::write_own`]).
    WriteOwnFormat(Box<Expr>, SqlType, Option<String>, crate::format::Pads),
    /// `e`, compared case-specifically: the value of a CASESPECIFIC column of an enclosing
    /// query's row, read by a correlated subquery; `e (CASESPECIFIC)`; an ANSI session's
    /// character literal.
    CaseSpecific(Box<Expr>),
    /// `e (NOT CASESPECIFIC)` of an expression that is CASESPECIFIC otherwise: compared case
    /// blind.
    NotCaseSpecific(Box<Expr>),
}

/// An IN list's items, with the set a long list of constants is hashed into, made at its
/// first evaluation and kept for the next (in_set.rs): a clone shares it (the same items);
/// a list made of other items ([`From`], [`FromIterator`]) starts without one.
#[derive(Debug, Clone, Default)]
pub(crate) struct InItems {
    items: Vec<Expr>,
    memo: crate::in_set::Memo,
}

impl std::ops::Deref for InItems {
    type Target = [Expr];
    fn deref(&self) -> &[Expr] {
        &self.items
    }
}

impl From<Vec<Expr>> for InItems {
    fn from(items: Vec<Expr>) -> Self {
        InItems {
            items,
            memo: crate::in_set::Memo::default(),
        }
    }
}

impl FromIterator<Expr> for InItems {
    fn from_iter<I: IntoIterator<Item = Expr>>(iter: I) -> Self {
        Vec::from_iter(iter).into()
    }
}

impl<'a> IntoIterator for &'a InItems {
    type Item = &'a Expr;
    type IntoIter = std::slice::Iter<'a, Expr>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

impl InItems {
    /// The hashed set's memo (in_set.rs).
    pub(crate) fn memo(&self) -> &crate::in_set::Memo {
        &self.memo
    }
}

impl Expr {
    /// A literal from a one-row array.
    pub fn lit(a: ArrayRef) -> Expr {
        Expr::Literal(a)
    }

    /// True if the expression is CASESPECIFIC (Teradata mode: only CS columns are).
    pub fn case_specific(&self) -> bool {
        match self {
            Expr::Column { case_specific, .. } => *case_specific,
            Expr::CaseSpecific(_) => true,
            Expr::Cast(e, _) | Expr::WriteOwnFormat(e, ..) => e.case_specific(),
            Expr::Func(Func::LikePattern, args) => args.first().is_some_and(Expr::case_specific),
            Expr::Binary(BinOp::Concat, l, r) => l.case_specific() || r.case_specific(),
            _ => false,
        }
    }

    /// Evaluates over `batch`, giving `batch.num_rows()` values.
    ///
    /// # Errors
    /// 2616, 2618, 2665, 3535 and 3640 from the values.
    pub fn eval(&self, batch: &RecordBatch) -> Result<ArrayRef> {
        crate::stack::deep(|| self.eval_level(batch))
    }

    /// Evaluates over no row of `schema`'s columns, for the operands' types only: a type
    /// error (comparing BYTE with INTEGER) is raised as a row would raise it, and nothing
    /// else can be, since nothing is folded before it is evaluated (a literal is one row
    /// repeated to the batch's length: `1 / 0` over no row divides nothing). The check of a
    /// condition before any row is read, as Teradata types a request before running it.
    ///
    /// # Errors
    /// The expression's type errors.
    pub(crate) fn check_types(&self, schema: &arrow::datatypes::SchemaRef) -> Result<()> {
        self.eval(&RecordBatch::new_empty(schema.clone()))
            .map(|_| ())
    }

    /// One level of [`Expr::eval`] (which reaches the next level through `crate::stack::deep`).
    fn eval_level(&self, batch: &RecordBatch) -> Result<ArrayRef> {
        let n = batch.num_rows();
        match self {
            Expr::Column { index, .. } => Ok(batch.column(*index).clone()),
            Expr::Literal(a) => repeat(a, n),
            Expr::Binary(op @ (BinOp::And | BinOp::Or), l, r) => eval_logic(*op, l, r, batch),
            Expr::Binary(op, l, r) => {
                // a literal is brought to its operand's integer type before it is repeated
                // per row: `k MOD 10 = 0` casts two one-row BYTEINTs, not two columns
                let (lv, rv) = match (l.as_ref(), r.as_ref()) {
                    (x, Expr::Literal(a)) => {
                        let xv = x.eval(batch)?;
                        let a = literal_beside(a, xv.data_type())?;
                        (xv, repeat(&a, n)?)
                    }
                    (Expr::Literal(a), x) => {
                        let xv = x.eval(batch)?;
                        (repeat(&literal_beside(a, xv.data_type())?, n)?, xv)
                    }
                    _ => (l.eval(batch)?, r.eval(batch)?),
                };
                binary(*op, lv, rv, l.case_specific() || r.case_specific())
            }
            Expr::Not(e) => Ok(Arc::new(boolean::not(as_bool(&e.eval(batch)?)?)?)),
            Expr::Neg(e) => {
                let v = e.eval(batch)?;
                if v.data_type() == &DataType::Null {
                    return Ok(v); // - NULL is NULL
                }
                if v.data_type() == &DataType::Utf8 {
                    return Ok(numeric::neg(&to_float_or_number(&v)?)?);
                }
                if matches!(v.data_type(), DataType::Int8 | DataType::Int16) {
                    // as INTEGER, as the binary operators compute (-(-128) is 128)
                    return Ok(numeric::neg(&cast_to_arrow(&v, &DataType::Int32)?)?);
                }
                Ok(numeric::neg(&v)?)
            }
            Expr::IsNull(e, negated) => {
                let v = e.eval(batch)?;
                Ok(Arc::new(if *negated {
                    boolean::is_not_null(&v)?
                } else {
                    boolean::is_null(&v)?
                }))
            }
            Expr::InList(e, list, negated) => {
                let v = e.eval(batch)?;
                let cs = e.case_specific() || list.iter().any(Expr::case_specific);
                if let Some(found) = crate::in_set::hashed(&v, list, list.memo(), cs)? {
                    return Ok(Arc::new(match negated {
                        true => boolean::not(&found)?,
                        false => found,
                    }));
                }
                let acc = in_list_each(&v, list, batch, cs)?;
                Ok(Arc::new(if *negated { boolean::not(&acc)? } else { acc }))
            }
            Expr::InRows(row, set, negated, memo) => {
                let found = crate::in_set::in_rows(row, (set, memo), batch)?;
                Ok(Arc::new(if *negated {
                    boolean::not(&found)?
                } else {
                    found
                }))
            }
            Expr::Like(e, p, negated) => {
                let v = to_utf8(&e.eval(batch)?)?;
                let pat = to_utf8(&p.eval(batch)?)?;
                let cs = e.case_specific() || p.case_specific();
                let out = match (cs, negated) {
                    (true, false) => comparison::like(&v, &pat)?,
                    (true, true) => comparison::nlike(&v, &pat)?,
                    (false, false) => comparison::ilike(&v, &pat)?,
                    (false, true) => comparison::nilike(&v, &pat)?,
                };
                Ok(Arc::new(out))
            }
            Expr::Case(whens, otherwise) => eval_case(whens, otherwise.as_deref(), batch),
            Expr::Cast(e, ty) => cast_to_sql(&e.eval(batch)?, *ty),
            Expr::CastFormat(e, ty, f) => crate::format::cast(&e.eval(batch)?, *ty, f),
            Expr::WriteOwnFormat(e, ty, f, pads) => {
                crate::format::write_own(&e.eval(batch)?, *ty, f.as_deref(), *pads)
            }
            Expr::CaseSpecific(e) | Expr::NotCaseSpecific(e) => e.eval(batch),
            Expr::SampleId => batch
                .column_by_name(SAMPLE_ID_COLUMN)
                .cloned()
                .ok_or_else(|| Error::ColumnNotFound("SAMPLEID".into())),
            Expr::WindowRef(k) => batch
                .column_by_name(&window_column(*k))
                .cloned()
                .ok_or_else(|| Error::Internal(format!("window column {k} is missing"))),
            Expr::Func(f, args) => {
                let vals = args
                    .iter()
                    .map(|a| a.eval(batch))
                    .collect::<Result<Vec<_>>>()?;
                func(*f, vals, n)
            }
        }
    }
}

/// `l AND r`, `l OR r`, left to right: `r` is evaluated only on the rows whose result `l`
/// leaves open (AND: where `l` is not FALSE; OR: where it is not TRUE), so a guard such as
/// `x <> 0 AND 10 / x > 1` never divides by zero. Where `l` settles no row, or `r` cannot
/// fail ([`cannot_fail`](crate::expr_tree::cannot_fail)), `r` runs on every row (one kernel
/// call, nothing copied); otherwise on a copy of the open rows' columns that `r` reads.
fn eval_logic(op: BinOp, l: &Expr, r: &Expr, batch: &RecordBatch) -> Result<ArrayRef> {
    let lv = l.eval(batch)?;
    let Some(lb) = lv.as_boolean_opt() else {
        return binary(op, lv, r.eval(batch)?, false); // NULL AND …: no rows to settle
    };
    let n = lb.len();
    let trues = lb.true_count();
    let settled = match op {
        BinOp::And => n - trues - lb.null_count(),
        _ => trues,
    };
    let ty = |i: usize| {
        batch
            .schema()
            .fields()
            .get(i)
            .map(|f| f.data_type().clone())
    };
    if settled == 0 || crate::expr_tree::cannot_fail(r, &ty) {
        let rv = r.eval(batch)?;
        return binary(op, lv, rv, false);
    }
    if settled == n {
        // every row FALSE (AND) or TRUE (OR); the right side must still be a condition
        if !is_condition(r) {
            as_bool(&r.eval(&batch.slice(0, 0))?)?;
        }
        return Ok(lv);
    }
    let settles = op == BinOp::Or;
    let open: Vec<u32> = (0..n)
        .filter(|&i| lb.is_null(i) || lb.value(i) != settles)
        .map(|i| i as u32)
        .collect();
    let rv = r.eval(&open_rows(batch, r, &open)?)?;
    let rb = as_bool(&rv)?;
    // the right side's value on each open row; a settled row takes the value that leaves
    // the left's (AND: TRUE, OR: FALSE)
    let mut full = arrow::array::BooleanBuilder::with_capacity(n);
    let mut next = open.iter().zip(0..).peekable();
    for i in 0..n as u32 {
        match next.next_if(|(&row, _)| row == i) {
            Some((_, k)) if rb.is_null(k) => full.append_null(),
            Some((_, k)) => full.append_value(rb.value(k)),
            None => full.append_value(!settles),
        }
    }
    let rv: ArrayRef = Arc::new(full.finish());
    binary(op, lv, rv, false)
}

/// True for an expression whose value is true/false/unknown by its form (a comparison, AND,
/// OR, NOT, IS NULL, IN, LIKE): no need to evaluate it to know.
fn is_condition(e: &Expr) -> bool {
    use BinOp::*;
    matches!(
        e,
        Expr::Binary(Eq | NotEq | Lt | LtEq | Gt | GtEq | And | Or, ..)
            | Expr::Not(_)
            | Expr::IsNull(..)
            | Expr::InList(..)
            | Expr::InRows(..)
            | Expr::Like(..)
    )
}

/// The rows `idx` of `batch`, with only the columns `e` reads copied (every other nullable
/// column is NULLs of its type, so the batch keeps its schema).
fn open_rows(batch: &RecordBatch, e: &Expr, idx: &[u32]) -> Result<RecordBatch> {
    let mut read = vec![e.reads_by_name(); batch.num_columns()];
    e.mark_columns(&mut read);
    let take_idx = UInt32Array::from(idx.to_vec());
    let schema = batch.schema();
    let cols = (batch.columns().iter().zip(&read).zip(schema.fields()))
        .map(|((c, &used), f)| match used || !f.is_nullable() {
            true => take(c.as_ref(), &take_idx, None),
            false => Ok(new_null_array(c.data_type(), idx.len())),
        })
        .collect::<std::result::Result<Vec<_>, _>>()?;
    Ok(RecordBatch::try_new_with_options(
        schema,
        cols,
        &arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(idx.len())),
    )?)
}

/// `CASE`: each THEN/ELSE is evaluated only on the rows that reach it, so a guard such as
/// `CASE WHEN b = 0 THEN NULL ELSE a / b END` never divides by zero.
fn eval_case(
    whens: &[(Expr, Expr)],
    otherwise: Option<&Expr>,
    batch: &RecordBatch,
) -> Result<ArrayRef> {
    let n = batch.num_rows();
    // the result type: Teradata's rule over every branch's type (evaluated on no rows)
    let empty = batch.slice(0, 0);
    let mut types = Vec::with_capacity(whens.len() + 1);
    for then in whens.iter().map(|w| &w.1).chain(otherwise) {
        types.push(then.eval(&empty)?.data_type().clone());
    }
    let out_type = crate::branch_types::of_all(&types)?;
    let mut parts: Vec<ArrayRef> = Vec::new();
    let mut slot: Vec<(usize, usize)> = vec![(usize::MAX, 0); n];
    let mut undecided: Vec<u32> = (0..n as u32).collect();
    let branch = |rows: &[u32],
                  e: Option<&Expr>,
                  parts: &mut Vec<ArrayRef>,
                  slot: &mut Vec<(usize, usize)>|
     -> Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        let values = match e {
            Some(e) => {
                let sub = take_batch(batch, rows)?;
                crate::branch_types::convert(&e.eval(&sub)?, &out_type)?
            }
            None => new_null_array(&out_type, rows.len()),
        };
        for (k, &r) in rows.iter().enumerate() {
            slot[r as usize] = (parts.len(), k);
        }
        parts.push(values);
        Ok(())
    };
    for (cond, then) in whens {
        if undecided.is_empty() {
            break;
        }
        let sub = take_batch(batch, &undecided)?;
        let c = cond.eval(&sub)?;
        let c = as_bool(&c)?;
        let (mut yes, mut no) = (Vec::new(), Vec::new());
        for (k, &r) in undecided.iter().enumerate() {
            // NULL conditions count as false
            if c.is_valid(k) && c.value(k) {
                yes.push(r);
            } else {
                no.push(r);
            }
        }
        branch(&yes, Some(then), &mut parts, &mut slot)?;
        undecided = no;
    }
    branch(&undecided, otherwise, &mut parts, &mut slot)?;
    if n == 0 {
        return Ok(new_null_array(&out_type, 0));
    }
    let refs: Vec<&dyn Array> = parts.iter().map(|p| p.as_ref()).collect();
    Ok(arrow::compute::interleave(&refs, &slot)?)
}

/// The rows `idx` of a batch.
pub(crate) fn take_batch(batch: &RecordBatch, idx: &[u32]) -> Result<RecordBatch> {
    let idx = UInt32Array::from(idx.to_vec());
    let cols = batch
        .columns()
        .iter()
        .map(|c| take(c.as_ref(), &idx, None))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    Ok(RecordBatch::try_new_with_options(
        batch.schema(),
        cols,
        &arrow::record_batch::RecordBatchOptions::new().with_row_count(Some(idx.len())),
    )?)
}

/// A BYTEINT or SMALLINT literal beside an INTEGER or BIGINT operand, as that operand's type
/// (what the operator would bring it to anyway: the wider integer type), so that the cast is
/// of one value, not of a column; any other literal as it is.
fn literal_beside(a: &ArrayRef, other: &DataType) -> Result<ArrayRef> {
    match (a.data_type(), other) {
        (DataType::Int8 | DataType::Int16, DataType::Int32 | DataType::Int64) => {
            cast_to_arrow(a, other)
        }
        _ => Ok(a.clone()),
    }
}

/// Repeats a one-row array `n` times.
pub fn repeat(a: &ArrayRef, n: usize) -> Result<ArrayRef> {
    if a.len() == n {
        return Ok(a.clone());
    }
    // a 64,000-character literal on each of millions of rows: checked before it is made
    let each = crate::limits::value_bytes(a.as_ref()) / a.len().max(1);
    crate::interrupt::check_spool(each.saturating_mul(n))?;
    let idx = UInt32Array::from(vec![0u32; n]);
    Ok(take(a.as_ref(), &idx, None)?)
}

fn as_bool(a: &ArrayRef) -> Result<&BooleanArray> {
    a.as_boolean_opt().ok_or_else(|| {
        Error::TypeMismatch(format!(
            "expected a condition, found {}",
            crate::types::type_name(a.data_type())
        ))
    })
}

fn to_utf8(a: &ArrayRef) -> Result<ArrayRef> {
    if a.data_type() == &DataType::Utf8 {
        Ok(a.clone())
    } else {
        Ok(cast_to_arrow(a, &DataType::Utf8)?)
    }
}

fn strict() -> CastOptions<'static> {
    CastOptions {
        safe: false,
        ..Default::default()
    }
}

fn is_int(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64
    )
}

fn is_numeric(t: &DataType) -> bool {
    is_int(t) || matches!(t, DataType::Float64 | DataType::Decimal128(..))
}

pub(crate) fn to_float_or_number(a: &ArrayRef) -> Result<ArrayRef> {
    cast_with_options(&blank_as_zero(a), &DataType::Float64, &strict())
        .map_err(|_| Error::BadNumber)
}

/// Text as a number reads it: an empty string or one of blanks only is 0 (Data Types and
/// Literals, "Implicit Character-to-Numeric Conversion": "interpreted as having a numeric
/// value of zero"), and an exponent whose sign is a blank, as FLOAT's default FORMAT
/// writes it (`1.50000000000000E 000`), is read as positive; other arrays and text without
/// such values are returned as they are.
pub(crate) fn blank_as_zero(a: &ArrayRef) -> ArrayRef {
    let blank = |v: &str| v.bytes().all(|b| b == b' ');
    let blank_sign = |v: &str| {
        let b = v.trim_end().as_bytes();
        b.windows(3)
            .any(|w| matches!(w[0], b'E' | b'e') && w[1] == b' ' && w[2].is_ascii_digit())
    };
    match a.as_string_opt::<i32>() {
        Some(s) if s.iter().flatten().any(|v| blank(v) || blank_sign(v)) => {
            Arc::new(StringArray::from_iter(s.iter().map(|v| {
                v.map(|v| match (blank(v), blank_sign(v)) {
                    (true, _) => "0".to_string(),
                    (false, true) => v.trim().replacen("E ", "E+", 1).replacen("e ", "e+", 1),
                    _ => v.to_string(),
                })
            })))
        }
        _ => a.clone(),
    }
}

/// The common type two operands are brought to before a kernel runs.
pub(crate) fn common_type(l: &DataType, r: &DataType) -> Result<DataType> {
    use DataType::*;
    Ok(match (l, r) {
        _ if l == r => l.clone(),
        (Null, t) | (t, Null) => t.clone(),
        (a, b) if is_int(a) && is_int(b) => {
            if matches!(a, Int64) || matches!(b, Int64) {
                Int64
            } else {
                Int32
            }
        }
        (Float64, b) | (b, Float64) if is_numeric(b) || b == &Utf8 => Float64,
        (Decimal128(p1, s1), Decimal128(p2, s2)) => {
            let s = (*s1).max(*s2);
            let ip = (*p1 as i16 - *s1 as i16).max(*p2 as i16 - *s2 as i16);
            Decimal128(((ip + s as i16) as u8).min(38), s)
        }
        (Decimal128(p, s), i) | (i, Decimal128(p, s)) if is_int(i) => {
            let ip = (*p as i16 - *s as i16).max(19);
            Decimal128(((ip + *s as i16) as u8).min(38), *s)
        }
        (Utf8, b) | (b, Utf8) if is_numeric(b) => Float64,
        (Utf8, t) | (t, Utf8) => t.clone(),
        (Date32, Timestamp(u, z)) | (Timestamp(u, z), Date32) => Timestamp(*u, z.clone()),
        // a DATE compared with a number is its number (td_date), at least an INTEGER (its
        // number does not fit a BYTEINT or SMALLINT literal's type)
        (Date32, Int8 | Int16) | (Int8 | Int16, Date32) => Int32,
        (Date32, b) | (b, Date32) if is_numeric(b) => b.clone(),
        _ => {
            return Err(Error::TypeMismatch(format!(
                "cannot compare or combine {} with {}",
                crate::types::type_name(l),
                crate::types::type_name(r)
            )));
        }
    })
}

/// Casts two arrays to their common type.
pub fn coerce_pair(l: ArrayRef, r: ArrayRef) -> Result<(ArrayRef, ArrayRef)> {
    if l.data_type() == r.data_type() {
        return Ok((l, r));
    }
    let t = common_type(l.data_type(), r.data_type())?;
    Ok((cast_to_arrow(&l, &t)?, cast_to_arrow(&r, &t)?))
}

/// An integer array's values as i64 (None for NULL), if it is an integer array (the fast
/// paths of GROUP BY, aggregates and hash joins).
pub(crate) fn int_values(a: &ArrayRef) -> Option<Vec<Option<i64>>> {
    if !is_int(a.data_type()) {
        return None;
    }
    let c = cast_with_options(a, &DataType::Int64, &strict()).ok()?;
    Some(
        c.as_primitive::<arrow::datatypes::Int64Type>()
            .iter()
            .collect(),
    )
}

/// A FLOAT array with every -0.0 made 0.0 (other arrays as they are).
pub(crate) fn positive_zero(a: &ArrayRef) -> ArrayRef {
    match a.as_primitive_opt::<arrow::datatypes::Float64Type>() {
        Some(f) if f.values().iter().any(|v| *v == 0.0 && v.is_sign_negative()) => Arc::new(
            f.unary::<_, arrow::datatypes::Float64Type>(|v| if v == 0.0 { 0.0 } else { v }),
        ),
        _ => a.clone(),
    }
}

/// Teradata character comparison: trailing blanks ignored; case-blind unless CASESPECIFIC.
pub(crate) fn normalize_chars(a: &ArrayRef, case_specific: bool) -> ArrayRef {
    let s = a.as_string::<i32>();
    Arc::new(StringArray::from_iter(s.iter().map(|v| {
        v.map(|v| {
            let t = v.trim_end_matches(' ');
            if case_specific {
                t.to_string()
            } else {
                t.to_uppercase()
            }
        })
    })))
}

/// `l || r` of byte strings (a NULL operand untyped is a NULL byte string).
///
/// # Errors
/// 9913 when one operand is no byte string (Teradata converts no BYTE implicitly).
fn concat_bytes(l: &ArrayRef, r: &ArrayRef) -> Result<ArrayRef> {
    let bytes = |a: &ArrayRef| -> Result<ArrayRef> {
        match a.data_type() {
            DataType::Binary => Ok(a.clone()),
            _ if a.null_count() == a.len() => Ok(new_null_array(&DataType::Binary, a.len())),
            _ => Err(Error::TypeMismatch(
                "|| of a byte string and a value that is none (BYTE converts to nothing implicitly)"
                    .into(),
            )),
        }
    };
    let (l, r) = (bytes(l)?, bytes(r)?);
    let (l, r) = (l.as_binary::<i32>(), r.as_binary::<i32>());
    crate::interrupt::check_spool(l.value_data().len() + r.value_data().len())?;
    let n = l.len().max(r.len());
    fn at(a: &arrow::array::BinaryArray, i: usize) -> Option<&[u8]> {
        let i = if a.len() == 1 { 0 } else { i };
        (!a.is_null(i)).then(|| a.value(i))
    }
    let out: arrow::array::BinaryArray = (0..n)
        .map(|i| match (at(l, i), at(r, i)) {
            (Some(x), Some(y)) => Some([x, y].concat()),
            _ => None,
        })
        .collect();
    Ok(Arc::new(out))
}

/// `v IN (list)` over `batch`, one `=` per item ORed (what in_set.rs's hashing answers for
/// a long list of constants).
pub(crate) fn in_list_each(
    v: &ArrayRef,
    list: &[Expr],
    batch: &RecordBatch,
    case_specific: bool,
) -> Result<BooleanArray> {
    let mut acc: Option<BooleanArray> = None;
    for item in list {
        let eqv = binary(BinOp::Eq, v.clone(), item.eval(batch)?, case_specific)?;
        let eqv = as_bool(&eqv)?.clone();
        acc = Some(match acc {
            None => eqv,
            Some(a) => boolean::or_kleene(&a, &eqv)?,
        });
    }
    Ok(acc.unwrap_or_else(|| BooleanArray::from(vec![false; batch.num_rows()])))
}

fn binary(op: BinOp, l: ArrayRef, r: ArrayRef, case_specific: bool) -> Result<ArrayRef> {
    use BinOp::*;
    if l.data_type() == &DataType::Null && r.data_type() == &DataType::Null {
        // NULL op NULL is NULL, whatever op is (Arrow's kernels take no untyped operands)
        let n = l.len().max(r.len());
        return Ok(match op {
            Add | Sub | Mul | Div | Mod => new_null_array(&DataType::Null, n),
            Concat => new_null_array(&DataType::Utf8, n),
            _ => new_null_array(&DataType::Boolean, n),
        });
    }
    match op {
        And | Or => {
            let (l, r) = (as_bool(&l)?, as_bool(&r)?);
            Ok(Arc::new(if op == And {
                boolean::and_kleene(l, r)?
            } else {
                boolean::or_kleene(l, r)?
            }))
        }
        // two byte strings: a VARBYTE (SQL Functions, Expressions, and Predicates,
        // "Concatenation Operator": byte strings concatenate to a byte string)
        Concat if l.data_type() == &DataType::Binary || r.data_type() == &DataType::Binary => {
            concat_bytes(&l, &r)
        }
        Concat => {
            let (l, r) = (to_utf8(&l)?, to_utf8(&r)?);
            let bytes = crate::limits::value_bytes(&l) + crate::limits::value_bytes(&r);
            crate::interrupt::check_spool(bytes)?;
            let out: ArrayRef = Arc::new(
                arrow::compute::kernels::concat_elements::concat_elements_utf8(
                    l.as_string::<i32>(),
                    r.as_string::<i32>(),
                )?,
            );
            crate::limits::check_chars(&out)?;
            Ok(out)
        }
        Eq | NotEq | Lt | LtEq | Gt | GtEq => {
            let (mut l, mut r) = coerce_pair(l, r)?;
            if l.data_type() == &DataType::Utf8 {
                l = normalize_chars(&l, case_specific);
                r = normalize_chars(&r, case_specific);
            }
            // Arrow orders floats totally (-0.0 < 0.0); SQL, the indexes and the unique keys
            // see one zero
            l = positive_zero(&l);
            r = positive_zero(&r);
            let out = match op {
                Eq => cmp::eq(&l, &r)?,
                NotEq => cmp::neq(&l, &r)?,
                Lt => cmp::lt(&l, &r)?,
                LtEq => cmp::lt_eq(&l, &r)?,
                Gt => cmp::gt(&l, &r)?,
                _ => cmp::gt_eq(&l, &r)?,
            };
            Ok(Arc::new(out))
        }
        Add | Sub | Mul | Div | Mod => arithmetic(op, l, r),
    }
}

fn arithmetic(op: BinOp, l: ArrayRef, r: ArrayRef) -> Result<ArrayRef> {
    use BinOp::*;
    // BYTEINT and SMALLINT operands are computed as INTEGER (Teradata's "Binary Arithmetic
    // Result Data Types"): a BYTEINT 100 + 100 is the INTEGER 200, not an overflow
    let widen = |a: ArrayRef| -> Result<ArrayRef> {
        match a.data_type() {
            DataType::Int8 | DataType::Int16 => cast_to_arrow(&a, &DataType::Int32),
            _ => Ok(a),
        }
    };
    let (l, r) = (widen(l)?, widen(r)?);
    // DATE times, divided by or MOD a number is arithmetic on Teradata's number for the date,
    // an INTEGER ((year - 1900) * 10000 + month * 100 + day; SQL Functions, Expressions, and
    // Predicates, "Binary Arithmetic Result Data Types": DATE * / MOD INTEGER is INTEGER)
    if matches!(op, Mul | Div | Mod) {
        let date = |t: &DataType| t == &DataType::Date32;
        let number = |t: &DataType| t.is_numeric() || date(t) || t == &DataType::Null;
        let (lt, rt) = (l.data_type(), r.data_type());
        if (date(lt) || date(rt)) && number(lt) && number(rt) {
            let as_number = |a: ArrayRef| match date(a.data_type()) {
                true => crate::td_date::to_number(&a),
                false => a,
            };
            return arithmetic(op, as_number(l), as_number(r));
        }
    }
    // a DECIMAL or FLOAT (an ANSI session's COUNT, `d + 1.7`) added to or taken from a DATE
    // counts whole days: the fraction is dropped ("DATE ± DECIMAL" is a DATE)
    let whole = |a: ArrayRef, other: &ArrayRef| -> Result<ArrayRef> {
        match (a.data_type(), other.data_type()) {
            (DataType::Decimal128(..) | DataType::Float64, DataType::Date32)
                if matches!(op, Add | Sub) =>
            {
                cast_to_arrow(&a, &DataType::Int64)
            }
            _ => Ok(a),
        }
    };
    let left = whole(l.clone(), &r)?;
    let r = whole(r, &l)?;
    let l = left;
    let (lt, rt) = (l.data_type().clone(), r.data_type().clone());
    // DATE ± integer adds days; DATE − DATE is a number of days.
    if lt == DataType::Date32 && (is_int(&rt) || rt == DataType::Date32) && matches!(op, Add | Sub)
    {
        let days = crate::td_date::day_numbers(&l)?;
        let rhs = crate::td_date::day_numbers(&r)?;
        let out = if op == Add {
            numeric::add(&days, &rhs)?
        } else {
            numeric::sub(&days, &rhs)?
        };
        if rt == DataType::Date32 {
            return Ok(out);
        }
        let out = out.as_primitive::<arrow::datatypes::Int32Type>();
        let out: ArrayRef = Arc::new(Date32Array::from(out.iter().collect::<Vec<_>>()));
        crate::limits::check(&out)?;
        return Ok(out);
    }
    if is_int(&lt) && rt == DataType::Date32 && op == Add {
        return arithmetic(op, r, l);
    }
    let interval = |t: &DataType| matches!(t, DataType::Interval(_));
    if matches!(lt, DataType::Time64(_)) && interval(&rt) && matches!(op, Add | Sub) {
        return time_plus_interval(&l, &r, op == Sub);
    }
    if interval(&lt) && matches!(rt, DataType::Time64(_)) && op == Add {
        return time_plus_interval(&r, &l, false);
    }
    // an interval times or divided by a number (`INTERVAL '3' DAY * 2`), each field scaled
    let number = |t: &DataType| t.is_numeric() || t == &DataType::Null;
    if interval(&lt) && number(&rt) && matches!(op, Mul | Div) {
        return interval_times(&l, &r, op == Div);
    }
    if number(&lt) && interval(&rt) && op == Mul {
        return interval_times(&r, &l, false);
    }
    let temporal = |t: &DataType| {
        matches!(
            t,
            DataType::Timestamp(..)
                | DataType::Interval(_)
                | DataType::Duration(_)
                | DataType::Date32
                | DataType::Time64(_)
        )
    };
    let (l, r) = if temporal(&lt) || temporal(&rt) {
        // what is left for the kernels: a DATE or TIMESTAMP and an INTERVAL, two INTERVALs
        // (each pair by the rules of "Data Type Compatibility": anything else, such as
        // `TIMESTAMP + 1` or `TIME - TIME` without an interval qualifier, is 5407)
        let point = |t: &DataType| matches!(t, DataType::Date32 | DataType::Timestamp(..));
        let defined = match op {
            Add => {
                (point(&lt) && interval(&rt)) || (interval(&lt) && (point(&rt) || interval(&rt)))
            }
            Sub => (point(&lt) || interval(&lt)) && interval(&rt),
            _ => false,
        };
        if !defined {
            let name = crate::types::type_name;
            let sign = match op {
                Add => "+",
                Sub => "-",
                Mul => "*",
                Div => "/",
                _ => "MOD",
            };
            return Err(Error::DateTimeOperation(format!(
                "{} {sign} {}",
                name(&lt),
                name(&rt)
            )));
        }
        (l, r)
    } else {
        let l = if lt == DataType::Utf8 {
            to_float_or_number(&l)?
        } else {
            l
        };
        let r = if rt == DataType::Utf8 {
            to_float_or_number(&r)?
        } else {
            r
        };
        if crate::decimal::result_type(op, l.data_type(), r.data_type()).is_some() {
            return crate::decimal::arithmetic(op, &l, &r);
        }
        arithmetic_operands(l, r)?
    };
    if matches!(op, Div | Mod) && r.data_type() == &DataType::Float64 {
        // -0.0 is a zero too (Arrow's eq orders it below 0.0)
        let f = r.as_primitive::<arrow::datatypes::Float64Type>();
        if f.iter().flatten().any(|v| v == 0.0) {
            return Err(Error::DivisionByZero);
        }
    }
    let out = match op {
        Add => numeric::add(&l, &r)?,
        Sub => numeric::sub(&l, &r)?,
        Mul => numeric::mul(&l, &r)?,
        Div => numeric::div(&l, &r)?,
        _ => numeric::rem(&l, &r)?,
    };
    if is_temporal(out.data_type()) || out.data_type() == &DataType::Float64 {
        crate::limits::check(&out)?;
    }
    if matches!(op, Add | Sub) && is_temporal(&lt) {
        month_days_exist(&l, &r, &out)?;
    } else if op == Add && is_temporal(&rt) {
        month_days_exist(&r, &l, &out)?; // INTERVAL '1' MONTH + DATE '…'
    }
    Ok(out)
}

/// TIME ± a day-time INTERVAL: a TIME again, on a 24-hour clock (SQL's rule, which Teradata
/// follows: "TIME values ... arithmetic is performed modulo 24 hours"); a year-month interval
/// has no meaning for a time of day (9913).
/// Interval array `iv` times (`divide`: divided by) the numbers `n`: each field scaled and
/// truncated toward zero (`INTERVAL '3' DAY * 2` is 6 days, `/ 2` is 1 day).
///
/// # Errors
/// 2618 for a division by zero; 2616 when a field overflows.
fn interval_times(iv: &ArrayRef, n: &ArrayRef, divide: bool) -> Result<ArrayRef> {
    use arrow::datatypes::{IntervalMonthDayNano, IntervalMonthDayNanoType};
    let n = cast_to_arrow(n, &DataType::Float64)?;
    let (ivs, ns) = (
        iv.as_primitive::<IntervalMonthDayNanoType>(),
        n.as_primitive::<arrow::datatypes::Float64Type>(),
    );
    let len = ivs.len().max(ns.len());
    let at = |l: usize, i: usize| if l == 1 { 0 } else { i };
    let mut out = Vec::with_capacity(len);
    for i in 0..len {
        let (ii, ni) = (at(ivs.len(), i), at(ns.len(), i));
        if ivs.is_null(ii) || ns.is_null(ni) {
            out.push(None);
            continue;
        }
        let (v, k) = (ivs.value(ii), ns.value(ni));
        if divide && k == 0.0 {
            return Err(Error::DivisionByZero);
        }
        let scale = |x: f64| -> Result<f64> {
            let r = if divide { x / k } else { x * k }.trunc();
            if r.is_finite() && r.abs() < 9.2e18 {
                Ok(r)
            } else {
                Err(Error::Overflow)
            }
        };
        let months = scale(f64::from(v.months))?;
        let days = scale(f64::from(v.days))?;
        if months.abs() > f64::from(i32::MAX) || days.abs() > f64::from(i32::MAX) {
            return Err(Error::Overflow);
        }
        let nanos = scale(v.nanoseconds as f64)?;
        out.push(Some(IntervalMonthDayNano::new(
            months as i32,
            days as i32,
            nanos as i64,
        )));
    }
    Ok(Arc::new(arrow::array::IntervalMonthDayNanoArray::from(out)))
}

fn time_plus_interval(t: &ArrayRef, iv: &ArrayRef, minus: bool) -> Result<ArrayRef> {
    use arrow::datatypes::{IntervalMonthDayNanoType, Time64MicrosecondType};
    const DAY_US: i64 = 86_400_000_000;
    let t = cast_to_arrow(
        t,
        &DataType::Time64(arrow::datatypes::TimeUnit::Microsecond),
    )?;
    let iv = cast_to_arrow(
        iv,
        &DataType::Interval(arrow::datatypes::IntervalUnit::MonthDayNano),
    )?;
    let (times, ivs) = (
        t.as_primitive::<Time64MicrosecondType>(),
        iv.as_primitive::<IntervalMonthDayNanoType>(),
    );
    let n = times.len().max(ivs.len());
    let at = |len: usize, i: usize| if len == 1 { 0 } else { i };
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let (ti, ii) = (at(times.len(), i), at(ivs.len(), i));
        if times.is_null(ti) || ivs.is_null(ii) {
            out.push(None);
            continue;
        }
        let v = ivs.value(ii);
        if v.months != 0 {
            return Err(Error::TypeMismatch(
                "a year-month INTERVAL cannot be added to a TIME".into(),
            ));
        }
        let shift = (v.nanoseconds / 1000).rem_euclid(DAY_US);
        let shift = if minus { -shift } else { shift };
        out.push(Some((times.value(ti) + shift).rem_euclid(DAY_US)));
    }
    Ok(Arc::new(arrow::array::Time64MicrosecondArray::from(out)))
}

/// Adding months to a date keeps its day of the month, and a day the new month does not have
/// is an error (ANSI interval arithmetic, which Teradata follows: `DATE '2020-03-31' -
/// INTERVAL '1' MONTH` is 2665; ADD_MONTHS is the function that moves to the month's end).
/// Arrow's kernel moves to the month's end instead; this finds where it did.
fn month_days_exist(l: &ArrayRef, r: &ArrayRef, out: &ArrayRef) -> Result<()> {
    use arrow::datatypes::{IntervalMonthDayNanoType, IntervalUnit};
    use chrono::Datelike;
    if r.data_type() != &DataType::Interval(IntervalUnit::MonthDayNano) {
        return Ok(());
    }
    let months = r.as_primitive::<IntervalMonthDayNanoType>();
    let at = |a: &ArrayRef, i: usize| if a.len() == 1 { 0 } else { i };
    let day = |a: &ArrayRef, i: usize| -> Option<u32> {
        let i = at(a, i);
        if a.is_null(i) {
            return None;
        }
        match a.data_type() {
            DataType::Date32 => {
                let d = a.as_primitive::<arrow::datatypes::Date32Type>().value(i);
                crate::functions::date_from_days(d).map(|d| d.day())
            }
            DataType::Timestamp(..) => {
                let us = a
                    .as_primitive::<arrow::datatypes::TimestampMicrosecondType>()
                    .value(i);
                chrono::DateTime::from_timestamp_micros(us).map(|t| t.day())
            }
            _ => None,
        }
    };
    for i in 0..out.len() {
        let m = at(r, i);
        let iv = months.value(m);
        // only a year-month interval keeps the day (a mixed one moves it on purpose)
        if r.is_null(m) || iv.months == 0 || iv.days != 0 || iv.nanoseconds != 0 {
            continue;
        }
        if let (Some(before), Some(after)) = (day(l, i), day(out, i)) {
            if before != after {
                return Err(Error::InvalidDate(
                    "the day does not exist in the month the interval leads to".into(),
                ));
            }
        }
    }
    Ok(())
}

/// Brings arithmetic operands to types Arrow's kernels combine: an integer next to a DECIMAL
/// becomes DECIMAL(10,0) or DECIMAL(19,0), so the result scale is the DECIMAL's own (as in
/// Teradata); two DECIMALs keep their own precision and scale.
fn arithmetic_operands(l: ArrayRef, r: ArrayRef) -> Result<(ArrayRef, ArrayRef)> {
    let as_decimal = |a: &ArrayRef| -> Result<ArrayRef> {
        let p = if a.data_type() == &DataType::Int64 {
            19
        } else {
            10
        };
        cast_to_arrow(a, &DataType::Decimal128(p, 0))
    };
    match (l.data_type(), r.data_type()) {
        (DataType::Decimal128(..), DataType::Decimal128(..)) => Ok((l, r)),
        (DataType::Decimal128(..), t) if is_int(t) => {
            let r = as_decimal(&r)?;
            Ok((l, r))
        }
        (t, DataType::Decimal128(..)) if is_int(t) => {
            let l = as_decimal(&l)?;
            Ok((l, r))
        }
        _ => coerce_pair(l, r),
    }
}

/// Strict Arrow cast (a value that does not convert is an error, never NULL). A failure is
/// classified by the types involved ([`cast_error`]), never by Arrow's message.
///
/// A cast to a date or time type is checked against the type's range (`limits::check`): a
/// number read as days or microseconds past it is 2665, never a value chrono cannot show; a
/// cast to FLOAT must be finite (`CAST('inf' AS FLOAT)` is 2616).
pub fn cast_to_arrow(a: &ArrayRef, t: &DataType) -> Result<ArrayRef> {
    // a PERIOD to or from text, or to another PERIOD (period.rs)
    if let Some(out) = crate::period::cast(a, t) {
        return out;
    }
    // a TIME or TIMESTAMP as Teradata writes it, `2005-02-03 10:11:12.000000` (Arrow's text
    // would be `2005-02-03T10:11:12`)
    if t == &DataType::Utf8 {
        if let Some(text) = crate::period_text::time_text(a, None) {
            return Ok(text);
        }
        // a DECIMAL or FLOAT by its default FORMAT, trimmed: `.50`, `123.`,
        // `1.50000000000000E 000` (format.rs)
        if let Some(text) = crate::format::numeric_text(a) {
            return Ok(text);
        }
    }
    // a DATE is a number underneath: (year − 1900) · 10000 + month · 100 + day
    if a.data_type() == &DataType::Date32 && t.is_numeric() {
        return cast_to_arrow(&crate::td_date::to_number(a), t);
    }
    let blanked;
    let a = if a.data_type() == &DataType::Utf8 && t.is_numeric() {
        blanked = blank_as_zero(a);
        &blanked
    } else {
        a
    };
    if t == &DataType::Date32 && a.data_type().is_numeric() {
        let whole = cast_to_arrow(a, &DataType::Int64)?;
        return crate::td_date::from_number(&whole);
    }
    // to fewer decimal places: half to even (Teradata's default, RoundHalfwayMagUp FALSE),
    // from a DECIMAL, text or a FLOAT alike
    match (a.data_type(), t) {
        (DataType::Decimal128(_, from), DataType::Decimal128(p, to)) if to < from => {
            return decimal_half_even(a, *from, (*p, *to));
        }
        (DataType::Utf8, DataType::Decimal128(p, to)) => {
            // text with more fractional digits than the target: read exactly first
            let digits = |v: &str| {
                let v = v.trim();
                match v.split_once('.') {
                    Some((int, frac)) if frac.bytes().all(|b| b.is_ascii_digit()) => {
                        Some((int.trim_start_matches(['-', '+']).len(), frac.len()))
                    }
                    _ => None,
                }
            };
            let s = a.as_string::<i32>();
            let to_frac = usize::try_from(*to).unwrap_or(0);
            if s.iter()
                .flatten()
                .filter_map(digits)
                .any(|(_, f)| f > to_frac)
            {
                // each value read exactly at its own scale, then rounded (a column's widest
                // integer part and widest fraction need not fit 38 digits together)
                let parts = (0..a.len())
                    .map(|i| {
                        let one = a.slice(i, 1);
                        match s.is_valid(i).then(|| digits(s.value(i))).flatten() {
                            Some((int, frac)) if frac > to_frac && int + frac <= 38 => {
                                let exact = DataType::Decimal128(38, frac as i8);
                                let read = cast_with_options(&one, &exact, &strict())
                                    .map_err(|e| cast_error(&one, t, e))?;
                                decimal_half_even(&read, frac as i8, (*p, *to))
                            }
                            _ => cast_with_options(&one, t, &strict())
                                .map_err(|e| cast_error(&one, t, e)),
                        }
                    })
                    .collect::<Result<Vec<ArrayRef>>>()?;
                let refs: Vec<&dyn Array> = parts.iter().map(|p| p.as_ref()).collect();
                return Ok(arrow::compute::concat(&refs)?);
            }
        }
        (DataType::Float64, DataType::Decimal128(p, to)) => return float_half_even(a, (*p, *to)),
        _ => {}
    }
    let out = cast_with_options(a, t, &strict()).map_err(|e| cast_error(a, t, e))?;
    if a.data_type() != t && (is_temporal(t) || t == &DataType::Float64) {
        crate::limits::check(&out)?;
    }
    Ok(out)
}

/// Decimal array `a` (scale `from`) at the smaller scale `to`, rounded half to even, as
/// DECIMAL(`p`, `to`).
///
/// # Errors
/// 2616 if a value does not fit `p` digits.
fn decimal_half_even(a: &ArrayRef, from: i8, (p, to): (u8, i8)) -> Result<ArrayRef> {
    let factor = 10i128
        .checked_pow(u32::try_from(i32::from(from) - i32::from(to)).unwrap_or(u32::MAX))
        .ok_or(Error::Overflow)?;
    let limit = 10i128.checked_pow(u32::from(p)).unwrap_or(i128::MAX);
    let d = a.as_primitive::<arrow::datatypes::Decimal128Type>();
    let mut out = Vec::with_capacity(d.len());
    for v in d.iter() {
        out.push(match v {
            None => None,
            Some(v) => {
                let r = crate::decimal::div_half_even(v, factor);
                if r.unsigned_abs() >= limit.unsigned_abs() {
                    return Err(Error::Overflow);
                }
                Some(r)
            }
        });
    }
    let arr = arrow::array::Decimal128Array::from(out).with_precision_and_scale(p, to)?;
    Ok(Arc::new(arr))
}

/// FLOAT array `a` as DECIMAL(`p`, `to`), rounded half to even (a FLOAT's 2.5 is exactly
/// half: it becomes 2).
///
/// # Errors
/// 2616 for a value that does not fit `p` digits, or is not finite.
fn float_half_even(a: &ArrayRef, (p, to): (u8, i8)) -> Result<ArrayRef> {
    let scale = 10f64.powi(i32::from(to));
    let limit = 10f64.powi(i32::from(p));
    let f = a.as_primitive::<arrow::datatypes::Float64Type>();
    let mut out = Vec::with_capacity(f.len());
    for v in f.iter() {
        out.push(match v {
            None => None,
            Some(v) => {
                let r = (v * scale).round_ties_even();
                if !r.is_finite() || r.abs() >= limit {
                    return Err(Error::Overflow);
                }
                Some(r as i128)
            }
        });
    }
    let arr = arrow::array::Decimal128Array::from(out).with_precision_and_scale(p, to)?;
    Ok(Arc::new(arr))
}

/// DATE, TIME and TIMESTAMP's Arrow types.
fn is_temporal(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Date32 | DataType::Time64(_) | DataType::Timestamp(..)
    )
}

/// What a failed strict cast of `a` to `to` is in Teradata's terms, from the types and
/// values involved: text that is no number 3535, a number (or numeric text) that does not fit
/// 2616, a conversion from or to a date or time 2665, anything else 9913.
fn cast_error(a: &ArrayRef, to: &DataType, e: arrow::error::ArrowError) -> Error {
    use arrow::error::ArrowError as A;
    use DataType as D;
    let from = a.data_type();
    let text = |t: &D| matches!(t, D::Utf8 | D::LargeUtf8 | D::Utf8View);
    let temporal = |t: &D| {
        matches!(
            t,
            D::Date32 | D::Date64 | D::Time32(_) | D::Time64(_) | D::Timestamp(..)
        )
    };
    match e {
        A::DivideByZero => Error::DivisionByZero,
        A::ArithmeticOverflow(_) => Error::Overflow,
        _ if text(from) && to.is_numeric() => {
            // every value reads as a number (a lenient cast keeps them all): one did not fit
            let numbers = arrow::compute::cast(a, &D::Float64).ok();
            match numbers.is_some_and(|n| n.null_count() == a.null_count()) {
                true => Error::Overflow,
                false => Error::BadNumber,
            }
        }
        e if temporal(to) || temporal(from) => {
            // the value as Arrow quotes it, for the message
            let m = e.to_string();
            Error::InvalidDate(m.split('\'').nth(1).unwrap_or(&m).to_string())
        }
        _ if from.is_numeric() && to.is_numeric() => Error::Overflow,
        e => Error::TypeMismatch(e.to_string()),
    }
}

/// Text → integer: exact for integers, truncating for decimals, errors for the rest.
fn parse_integer_text(t: &str) -> Result<i64> {
    if t.is_empty() {
        // an empty string (or blanks, trimmed) is 0, as Teradata reads it
        return Ok(0);
    }
    if let Ok(i) = t.parse::<i64>() {
        return Ok(i);
    }
    // digits (with a fraction, truncated): read exactly, so one past the range is 2616 and
    // never the range's end (as a float would make it)
    let whole = t.split_once('.').map_or(t, |(w, _)| w);
    if let Ok(i) = whole.parse::<i128>() {
        if t.len() == whole.len() || t[whole.len() + 1..].bytes().all(|b| b.is_ascii_digit()) {
            return i64::try_from(i).map_err(|_| Error::Overflow);
        }
    }
    let f: f64 = t.parse().map_err(|_| Error::BadNumber)?;
    if !f.is_finite() || t.chars().any(|c| c.is_alphabetic() && c != 'e' && c != 'E') {
        return Err(Error::BadNumber);
    }
    if f.trunc() < i64::MIN as f64 || f.trunc() >= i64::MAX as f64 {
        return Err(Error::Overflow);
    }
    Ok(f.trunc() as i64)
}

/// Casts to a SQL type with Teradata's rules: CHAR/VARCHAR(n) truncate silently (Teradata
/// mode), numbers round-trip through strings strictly (3535 on bad text).
pub fn cast_to_sql(a: &ArrayRef, ty: SqlType) -> Result<ArrayRef> {
    let target = ty.arrow_type();
    let a = a.clone();
    let out = if a.data_type() == &target {
        a
    } else if a.data_type() == &DataType::Utf8 && is_int(&target) {
        // Strings like '12' or ' 12 ' convert exactly; '1.5' to INTEGER truncates as Teradata
        // does; anything else (NaN, inf, out of range) is an error, never a silent value.
        let s = a.as_string::<i32>();
        let mut vals = Vec::with_capacity(s.len());
        for v in s.iter() {
            vals.push(match v {
                None => None,
                Some(t) => Some(parse_integer_text(t.trim())?),
            });
        }
        let arr: ArrayRef = Arc::new(arrow::array::Int64Array::from(vals));
        cast_to_arrow(&arr, &target)?
    } else {
        cast_to_arrow(&a, &target)?
    };
    if let SqlType::Timestamp(p) | SqlType::Time(p) = ty {
        if p < 6 {
            // TIMESTAMP(p) keeps p digits of the second's fraction: the rest is dropped
            let unit = 10i64.pow(6 - u32::from(p));
            let cut = |v: i64| v - v.rem_euclid(unit);
            return Ok(match ty {
                SqlType::Time(_) => Arc::new(
                    out.as_primitive::<arrow::datatypes::Time64MicrosecondType>()
                        .unary::<_, arrow::datatypes::Time64MicrosecondType>(cut),
                ),
                _ => Arc::new(
                    out.as_primitive::<arrow::datatypes::TimestampMicrosecondType>()
                        .unary::<_, arrow::datatypes::TimestampMicrosecondType>(cut),
                ),
            });
        }
    }
    if let SqlType::Period(elem) = ty {
        return crate::period::conform(out, elem);
    }
    // BYTE(n) and VARBYTE(n) hold at most n bytes (a shorter BYTE(n) value is not padded
    // with binary zeros as Teradata pads it: comparisons, joins and groups see the bytes as
    // given, one rule everywhere)
    if let (SqlType::Byte(n) | SqlType::VarByte(n), DataType::Binary) = (ty, out.data_type()) {
        let n = n as usize;
        let b = out.as_binary::<i32>();
        if b.iter().flatten().any(|v| v.len() > n) {
            let out: arrow::array::BinaryArray =
                b.iter().map(|v| v.map(|v| &v[..v.len().min(n)])).collect();
            return Ok(Arc::new(out));
        }
    }
    if let SqlType::Char(n) | SqlType::VarChar(n) = ty {
        let s = out.as_string::<i32>();
        let n = n as usize;
        // a string of at most n bytes has at most n characters: count only longer ones
        let long = |v: &str| v.len() > n && v.chars().count() > n;
        // CHAR(n) is n characters: a shorter value is extended with pad characters
        let short = |v: &str| matches!(ty, SqlType::Char(_)) && v.chars().count() < n;
        if s.iter().flatten().any(|v| long(v) || short(v)) {
            let width = if matches!(ty, SqlType::Char(_)) { n } else { 0 };
            crate::interrupt::check_spool(width.saturating_mul(s.len()))?;
            return Ok(Arc::new(StringArray::from_iter(s.iter().map(|v| {
                v.map(|v| crate::limits::pad_end(&v.chars().take(n).collect::<String>(), width))
            }))));
        }
    }
    Ok(out)
}

/// A Teradata LIKE pattern (with its ESCAPE character) as an Arrow LIKE pattern: escaped
/// characters and every `\\` become `\\`-escaped literals.
///
/// # Errors
/// 9919 if the escape is not one character, or ends the pattern.
fn like_pattern(p: &str, escape: Option<&str>) -> Result<String> {
    let escape = match escape {
        None => None,
        Some(e) => {
            let mut it = e.chars();
            match (it.next(), it.next()) {
                (Some(c), None) => Some(c),
                _ => {
                    return Err(Error::BadArgument(
                        "LIKE: the ESCAPE must be one character".into(),
                    ))
                }
            }
        }
    };
    let mut out = String::with_capacity(p.len() + 4);
    let mut chars = p.chars();
    while let Some(c) = chars.next() {
        if Some(c) == escape {
            // the escape character escapes `_`, `%` or itself only ("ESCAPE Feature of
            // LIKE": otherwise "the scan stops and an error is reported")
            let next = chars
                .next()
                .filter(|n| matches!(n, '_' | '%') || Some(*n) == escape);
            let Some(next) = next else {
                return Err(Error::BadArgument(
                    "LIKE: the ESCAPE character must be followed by _, % or itself".into(),
                ));
            };
            out.push('\\');
            out.push(next);
        } else if c == '\\' {
            out.push_str("\\\\");
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

fn func(f: Func, args: Vec<ArrayRef>, n: usize) -> Result<ArrayRef> {
    let arg = |i: usize| -> Result<ArrayRef> {
        args.get(i)
            .cloned()
            .ok_or_else(|| Error::TypeMismatch(format!("{f:?} needs {} argument(s)", i + 1)))
    };
    let map_str = |a: ArrayRef, g: &dyn Fn(&str) -> String| -> Result<ArrayRef> {
        let a = to_utf8(&a)?;
        let s = a.as_string::<i32>();
        Ok(Arc::new(StringArray::from_iter(s.iter().map(|v| v.map(g)))))
    };
    match f {
        Func::Coalesce | Func::MergeKeys => {
            // COALESCE is a CASE: Teradata's rule for its result type (branch_types.rs)
            let args = if f == Func::Coalesce {
                let t = crate::branch_types::of_all(args.iter().map(|a| a.data_type()))?;
                args.iter()
                    .map(|a| crate::branch_types::convert(a, &t))
                    .collect::<Result<Vec<_>>>()?
            } else {
                args
            };
            let mut it = args.into_iter().rev();
            let mut acc = it
                .next()
                .unwrap_or_else(|| new_null_array(&DataType::Null, n));
            for a in it {
                let (a, b) = coerce_pair(a, acc)?;
                let mask = boolean::is_not_null(&a)?;
                acc = zip(&mask, &a, &b)?;
            }
            Ok(acc)
        }
        Func::Extreme(greatest) => crate::greatest::extreme(args, greatest, n),
        Func::NullIf => {
            let (a, b) = (arg(0)?, arg(1)?);
            let eqm = binary(BinOp::Eq, a.clone(), b, false)?;
            let eqm = as_bool(&eqm)?;
            let eqm = boolean::and_kleene(eqm, &boolean::is_not_null(eqm)?)?;
            Ok(arrow::compute::nullif(&a, &eqm)?)
        }
        Func::Upper => map_str(arg(0)?, &|s| case_mapped(s, true)),
        Func::Lower => map_str(arg(0)?, &|s| case_mapped(s, false)),
        Func::Trim => map_str(arg(0)?, &|s| s.trim_matches(' ').to_string()),
        Func::CharLength => {
            let a = to_utf8(&arg(0)?)?;
            let s = a.as_string::<i32>();
            Ok(Arc::new(Int32Array::from_iter(
                s.iter().map(|v| v.map(|v| v.chars().count() as i32)),
            )))
        }
        Func::OctetLength => {
            let a = arg(0)?;
            if let Some(b) = a.as_binary_opt::<i32>() {
                return Ok(Arc::new(Int32Array::from_iter(
                    b.iter().map(|v| v.map(|v| v.len() as i32)),
                )));
            }
            let s = to_utf8(&a)?;
            Ok(Arc::new(Int32Array::from_iter(
                s.as_string::<i32>()
                    .iter()
                    .map(|v| v.map(|v| (v.chars().count() as i32).saturating_mul(2))),
            )))
        }
        Func::Bytes => {
            let a = arg(0)?;
            match a.data_type() {
                DataType::Binary => Ok(Arc::new(Int32Array::from_iter(
                    a.as_binary::<i32>()
                        .iter()
                        .map(|v| v.map(|v| v.len() as i32)),
                ))),
                _ if a.null_count() == a.len() => Ok(new_null_array(&DataType::Int32, a.len())),
                _ => Err(Error::TypeMismatch(
                    "BYTES takes a byte string (BYTE, VARBYTE)".into(),
                )),
            }
        }
        Func::NoTruncation(n, text) => {
            let a = arg(0)?;
            let n = n as usize;
            let cut = |v: &str| v.len() > n && v.chars().skip(n).any(|c| c != ' ');
            let number = matches!(a.data_type(), DataType::Decimal128(..) | DataType::Float64)
                || is_int(a.data_type());
            let written = match (a.as_string_opt::<i32>(), number) {
                (Some(_), _) if text => Some(a.clone()),
                (None, true) => Some(cast_to_arrow(&a, &DataType::Utf8)?),
                _ => None,
            };
            if let Some(w) = written {
                if w.as_string::<i32>().iter().flatten().any(cut) {
                    return Err(Error::CastTruncation);
                }
            }
            Ok(a)
        }
        Func::PlainText => {
            let a = arg(0)?;
            let Some(d) = a.as_primitive_opt::<arrow::datatypes::Decimal128Type>() else {
                return to_utf8(&a);
            };
            let scale = d.scale();
            Ok(Arc::new(StringArray::from_iter(d.iter().map(|v| {
                v.map(|v| {
                    let t = crate::decimal::decimal_text(v, scale);
                    match t.contains('.') {
                        true => t.trim_end_matches('0').trim_end_matches('.').to_string(),
                        false => t,
                    }
                })
            }))))
        }
        Func::Abs => {
            let a = arg(0)?;
            if a.data_type() == &DataType::Null {
                return Ok(a); // ABS(NULL) is NULL
            }
            // as INTEGER, as the arithmetic computes (ABS(-128) is 128)
            let a = match a.data_type() {
                DataType::Int8 | DataType::Int16 => cast_to_arrow(&a, &DataType::Int32)?,
                _ => a,
            };
            let neg = numeric::neg(&a)?;
            let zero = cast_to_arrow(
                &(Arc::new(Int32Array::from(vec![0])) as ArrayRef),
                a.data_type(),
            )?;
            let is_neg = cmp::lt(&a, &arrow::array::Scalar::new(zero))?;
            Ok(zip(&is_neg, &neg, &a)?)
        }
        Func::LikePattern => {
            let pat = to_utf8(&arg(0)?)?;
            let esc = args.get(1).map(to_utf8).transpose()?;
            let pat = pat.as_string::<i32>();
            let esc = esc.as_ref().map(|e| e.as_string::<i32>());
            let mut out = Vec::with_capacity(pat.len());
            for i in 0..pat.len() {
                let p = pat.is_valid(i).then(|| pat.value(i));
                let e = match esc {
                    None => None,
                    Some(e) if e.is_null(i % e.len().max(1)) => {
                        out.push(None);
                        continue;
                    }
                    Some(e) => Some(e.value(i % e.len().max(1))),
                };
                out.push(match p {
                    None => None,
                    Some(p) => Some(like_pattern(p, e)?),
                });
            }
            Ok(Arc::new(StringArray::from(out)))
        }
        Func::Type(digits) => {
            let a = arg(0)?;
            let name = match (
                a.data_type(),
                crate::types::sql_type_of(a.data_type()),
                digits,
            ) {
                (DataType::Utf8, ..) => "VARCHAR".to_string(),
                (DataType::Binary, ..) => "VARBYTE".to_string(),
                (DataType::Null, ..) => "INTEGER".to_string(),
                // the fractional digits the argument's syntax declares (names::time_precision)
                (_, SqlType::Time(_), Some(p)) => SqlType::Time(p).to_string(),
                (_, SqlType::Timestamp(_), Some(p)) => SqlType::Timestamp(p).to_string(),
                (_, t, _) => t.to_string(),
            };
            Ok(Arc::new(StringArray::from(vec![name; a.len()])))
        }
        Func::ZeroIfNull => {
            // a character argument is a FLOAT (SQL Functions, Expressions, and Predicates,
            // ZEROIFNULL/NULLIFZERO "Result Type and Attributes"), blanks 0
            let a = arg(0)?;
            let a = match a.data_type() {
                DataType::Utf8 => to_float_or_number(&a)?,
                _ => a,
            };
            let t = if a.data_type() == &DataType::Null {
                DataType::Int32
            } else {
                a.data_type().clone()
            };
            let zero = cast_to_arrow(&(Arc::new(Int32Array::from(vec![0])) as ArrayRef), &t)?;
            let a = cast_to_arrow(&a, &t)?;
            let mask = boolean::is_not_null(&a)?;
            Ok(zip(&mask, &a, &arrow::array::Scalar::new(zero))?)
        }
        Func::Builtin(b) => crate::functions::eval(b, &args, n),
        Func::Period(p) => crate::period_fns::eval(p, &args, n),
        Func::TimeText(digits) => {
            let a = arg(0)?;
            let digits = Some(usize::from(digits));
            Ok(crate::period_text::time_text(&a, digits)
                .or_else(|| crate::period_text::display(&a, digits))
                .unwrap_or(a))
        }
        Func::NullIfZero => {
            let a = arg(0)?;
            let a = match a.data_type() {
                DataType::Utf8 => to_float_or_number(&a)?,
                _ => a,
            };
            if a.data_type() == &DataType::Null {
                return Ok(a); // NULLIFZERO(NULL) is NULL
            }
            let zero = cast_to_arrow(
                &(Arc::new(Int32Array::from(vec![0])) as ArrayRef),
                a.data_type(),
            )?;
            let m = cmp::eq(&a, &arrow::array::Scalar::new(zero))?;
            let m = boolean::and_kleene(&m, &boolean::is_not_null(&m)?)?;
            Ok(arrow::compute::nullif(&a, &m)?)
        }
    }
}

/// The name of the hidden column that holds each sampled row's SAMPLEID (see sample.rs).
pub(crate) const SAMPLE_ID_COLUMN: &str = "\u{1}sampleid";

/// The name of the hidden column that holds window call `k`'s values (window.rs appends it;
/// `Expr::Window` reads it). No SQL name can reach it.
pub(crate) fn window_column(k: usize) -> String {
    format!("\u{1}window{k}")
}

/// UPPER and LOWER as Teradata maps case: character for character, so the result has the
/// argument's length (a character whose case mapping is several, as `ß` to `SS`, stays).
fn case_mapped(s: &str, upper: bool) -> String {
    if s.is_ascii() {
        return match upper {
            true => s.to_ascii_uppercase(),
            false => s.to_ascii_lowercase(),
        };
    }
    s.chars()
        .map(|c| {
            let mut m: Vec<char> = match upper {
                true => c.to_uppercase().collect(),
                false => c.to_lowercase().collect(),
            };
            match m.len() {
                1 => m.remove(0),
                _ => c,
            }
        })
        .collect()
}
