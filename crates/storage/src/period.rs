//! Teradata's PERIOD values: a closed-open span `[begin, end)` of DATEs, TIMEs or TIMESTAMPs,
//! and how storage holds them.
//!
//! A column of `PERIOD(DATE)`, `PERIOD(TIME(n))` or `PERIOD(TIMESTAMP(n))` is an Arrow
//! `FixedSizeBinary` array: the two bounds, each written big-endian in a fixed number of bytes
//! with its sign bit flipped (4 bytes for the days of a DATE, 5 for the microseconds of a TIME,
//! 8 for the microseconds of a TIMESTAMP). So:
//! - the width tells the element type (8 DATE, 10 TIME, 16 TIMESTAMP; no other storage type
//!   uses `FixedSizeBinary`), and
//! - byte order is Teradata's period order — by the beginning bound, then by the ending bound
//!   (SQL Data Types and Literals, "Period Data Types") — so Arrow's own comparison, sort,
//!   hash and row-format kernels order, group and join periods correctly with no code here.
//!
//! Invariant: [`encode`] and [`decode`] are inverse for every period whose bounds fit its
//! element type; the bounds of a stored period satisfy `begin < end` (the executor refuses
//! anything else with 9103 before a period is made).

use serde::{Deserialize, Serialize};

/// The element type of a PERIOD column, with its fractional-second precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PeriodElem {
    /// `PERIOD(DATE)`.
    Date,
    /// `PERIOD(TIME(n))`.
    Time(u8),
    /// `PERIOD(TIMESTAMP(n))`.
    Timestamp(u8),
}

impl PeriodElem {
    /// The kind of value the bounds are.
    pub fn kind(self) -> PeriodKind {
        match self {
            PeriodElem::Date => PeriodKind::Date,
            PeriodElem::Time(_) => PeriodKind::Time,
            PeriodElem::Timestamp(_) => PeriodKind::Timestamp,
        }
    }
}

/// What the bounds of a period value are: days since 1970-01-01 (DATE), microseconds since
/// midnight (TIME) or microseconds since 1970-01-01 00:00:00 (TIMESTAMP).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PeriodKind {
    /// DATE bounds.
    Date,
    /// TIME bounds.
    Time,
    /// TIMESTAMP bounds.
    Timestamp,
}

impl PeriodKind {
    /// Bytes one bound takes in an Arrow array.
    pub fn half_width(self) -> usize {
        match self {
            PeriodKind::Date => 4,
            PeriodKind::Time => 5,
            PeriodKind::Timestamp => 8,
        }
    }

    /// Bytes one period takes: the width of its `FixedSizeBinary` array.
    pub fn width(self) -> i32 {
        2 * self.half_width() as i32
    }

    /// The kind a `FixedSizeBinary` width holds, if any.
    pub fn from_width(width: i32) -> Option<PeriodKind> {
        [PeriodKind::Date, PeriodKind::Time, PeriodKind::Timestamp]
            .into_iter()
            .find(|k| k.width() == width)
    }

    /// The element type of a period of this kind whose precision is not known (a computed
    /// value): TIME and TIMESTAMP take 6 digits, as tdlite's computed times do.
    pub fn elem(self) -> PeriodElem {
        match self {
            PeriodKind::Date => PeriodElem::Date,
            PeriodKind::Time => PeriodElem::Time(6),
            PeriodKind::Timestamp => PeriodElem::Timestamp(6),
        }
    }
}

/// One period value: `[begin, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Period {
    /// What the bounds are.
    pub kind: PeriodKind,
    /// The beginning bound (in the period).
    pub begin: i64,
    /// The ending bound (the first instant after it).
    pub end: i64,
}

/// Writes one bound in `half` bytes, big-endian with the sign bit flipped.
fn put(out: &mut Vec<u8>, v: i64, half: usize) {
    let bits = 8 * half as u32;
    let flipped = (v as u64).wrapping_add(1u64 << (bits - 1));
    out.extend_from_slice(&flipped.to_be_bytes()[8 - half..]);
}

/// Reads one bound written by [`put`].
fn get(b: &[u8]) -> i64 {
    let bits = 8 * b.len() as u32;
    let mut raw = [0u8; 8];
    raw[8 - b.len()..].copy_from_slice(b);
    let u = u64::from_be_bytes(raw);
    let v = u.wrapping_sub(1u64 << (bits - 1));
    // sign-extend from `bits`
    let shift = 64 - bits;
    ((v << shift) as i64) >> shift
}

/// The bytes of one period in its kind's width.
pub fn encode(p: &Period) -> Vec<u8> {
    let half = p.kind.half_width();
    let mut out = Vec::with_capacity(2 * half);
    put(&mut out, p.begin, half);
    put(&mut out, p.end, half);
    out
}

/// The period that `bytes` (one element of a `FixedSizeBinary` array) hold; `None` when the
/// width is not a period's.
pub fn decode(bytes: &[u8]) -> Option<Period> {
    let kind = PeriodKind::from_width(i32::try_from(bytes.len()).ok()?)?;
    let half = kind.half_width();
    Some(Period {
        kind,
        begin: get(&bytes[..half]),
        end: get(&bytes[half..]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_round_trip_and_bytes_order_by_begin_then_end() {
        let mk = |kind, begin, end| Period { kind, begin, end };
        let cases = [
            mk(PeriodKind::Date, -719_162, 2_932_896),
            mk(PeriodKind::Date, 0, 1),
            mk(PeriodKind::Time, 0, 86_399_999_999),
            mk(
                PeriodKind::Timestamp,
                -62_135_596_800_000_000,
                253_402_300_799_999_999,
            ),
        ];
        for p in cases {
            let b = encode(&p);
            assert_eq!(b.len() as i32, p.kind.width());
            assert_eq!(decode(&b), Some(p));
        }
        let d = |b, e| encode(&mk(PeriodKind::Date, b, e));
        assert!(d(-5, 3) < d(-4, 0));
        assert!(d(1, 2) < d(1, 3));
        assert!(d(-1, 10) < d(0, 1));
        assert_eq!(decode(&[0u8; 3]), None);
    }
}
