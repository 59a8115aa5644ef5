//! A small binary codec for log records: little-endian integers, length-prefixed bytes, and
//! [`Value`]s as a tag byte plus payload.
//!
//! Invariant: `Reader` never panics and never reads past its input; every malformed input is a
//! [`Truncated`] error (the frame checksum catches damage first, this is the second line).

use crate::period::{Period, PeriodKind};
use crate::types::Value;

/// The input ended early or held an unknown tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Truncated;

/// Appends encoded items to a byte vector.
#[derive(Default)]
pub struct Writer {
    /// The bytes written so far.
    pub buf: Vec<u8>,
}

impl Writer {
    /// Writes one byte.
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    /// Writes a u32.
    pub fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    /// Writes a u64.
    pub fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    /// Writes an i64.
    pub fn i64(&mut self, v: i64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    /// Writes length-prefixed bytes.
    pub fn bytes(&mut self, v: &[u8]) {
        self.u32(v.len() as u32);
        self.buf.extend_from_slice(v);
    }
    /// Writes one value.
    pub fn value(&mut self, v: &Value) {
        match v {
            Value::Null => self.u8(0),
            Value::Int(i) => {
                self.u8(1);
                self.i64(*i);
            }
            Value::Decimal(d, s) => {
                self.u8(2);
                self.buf.extend_from_slice(&d.to_le_bytes());
                self.u8(*s as u8);
            }
            Value::Float(f) => {
                self.u8(3);
                self.u64(f.to_bits());
            }
            Value::Str(s) => {
                self.u8(4);
                self.bytes(s.as_bytes());
            }
            Value::Bytes(b) => {
                self.u8(5);
                self.bytes(b);
            }
            Value::Date(d) => {
                self.u8(6);
                self.i64(*d as i64);
            }
            Value::Time(t) => {
                self.u8(7);
                self.i64(*t);
            }
            Value::Timestamp(t) => {
                self.u8(8);
                self.i64(*t);
            }
            Value::Period(p) => {
                self.u8(9);
                self.u8(match p.kind {
                    PeriodKind::Date => 0,
                    PeriodKind::Time => 1,
                    PeriodKind::Timestamp => 2,
                });
                self.i64(p.begin);
                self.i64(p.end);
            }
        }
    }
}

/// Reads items written by [`Writer`].
pub struct Reader<'a> {
    input: &'a [u8],
}

impl<'a> Reader<'a> {
    /// Reads from `input`.
    pub fn new(input: &'a [u8]) -> Self {
        Reader { input }
    }
    /// True when everything has been read.
    pub fn is_empty(&self) -> bool {
        self.input.is_empty()
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8], Truncated> {
        if self.input.len() < n {
            return Err(Truncated);
        }
        let (head, rest) = self.input.split_at(n);
        self.input = rest;
        Ok(head)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], Truncated> {
        self.take(N)?.try_into().map_err(|_| Truncated)
    }
    /// Reads one byte.
    pub fn u8(&mut self) -> Result<u8, Truncated> {
        Ok(self.take(1)?[0])
    }
    /// Reads a u32.
    pub fn u32(&mut self) -> Result<u32, Truncated> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    /// Reads a u64.
    pub fn u64(&mut self) -> Result<u64, Truncated> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    /// Reads an i64.
    pub fn i64(&mut self) -> Result<i64, Truncated> {
        Ok(i64::from_le_bytes(self.array()?))
    }
    /// Reads length-prefixed bytes.
    pub fn bytes(&mut self) -> Result<&'a [u8], Truncated> {
        let n = self.u32()? as usize;
        self.take(n)
    }
    /// Reads one value.
    pub fn value(&mut self) -> Result<Value, Truncated> {
        Ok(match self.u8()? {
            0 => Value::Null,
            1 => Value::Int(self.i64()?),
            2 => {
                let d = i128::from_le_bytes(self.array()?);
                Value::Decimal(d, self.u8()? as i8)
            }
            3 => Value::Float(f64::from_bits(self.u64()?)),
            4 => Value::Str(
                std::str::from_utf8(self.bytes()?)
                    .map_err(|_| Truncated)?
                    .to_string(),
            ),
            5 => Value::Bytes(self.bytes()?.to_vec()),
            6 => Value::Date(i32::try_from(self.i64()?).map_err(|_| Truncated)?),
            7 => Value::Time(self.i64()?),
            8 => Value::Timestamp(self.i64()?),
            9 => {
                let kind = match self.u8()? {
                    0 => PeriodKind::Date,
                    1 => PeriodKind::Time,
                    2 => PeriodKind::Timestamp,
                    _ => return Err(Truncated),
                };
                Value::Period(Period {
                    kind,
                    begin: self.i64()?,
                    end: self.i64()?,
                })
            }
            _ => return Err(Truncated),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_and_short_input_is_an_error() {
        let values = [
            Value::Null,
            Value::Int(-7),
            Value::Decimal(-12345, 2),
            Value::Float(2.5),
            Value::Str("héllo".into()),
            Value::Bytes(vec![0, 255]),
            Value::Period(Period {
                kind: PeriodKind::Time,
                begin: 1,
                end: 86_399_999_999,
            }),
            Value::Date(-3),
            Value::Time(5),
            Value::Timestamp(1 << 50),
        ];
        let mut w = Writer::default();
        for v in &values {
            w.value(v);
        }
        let mut r = Reader::new(&w.buf);
        for v in &values {
            assert_eq!(&r.value().unwrap(), v);
        }
        assert!(r.is_empty());
        for cut in 0..w.buf.len() {
            let mut r = Reader::new(&w.buf[..cut]);
            let all_ok = (0..values.len()).all(|_| r.value().is_ok());
            assert!(
                !all_ok,
                "a prefix of {cut} bytes decoded as the whole input"
            );
        }
    }
}
