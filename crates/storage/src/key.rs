//! Index keys as bytes: a key's parts written one after another so that comparing two keys
//! byte by byte (`memcmp`) orders them as comparing their parts value by value would
//! ([`compare_values`](crate::types::compare_values), NULL before every value).
//!
//! ```text
//!   part        bytes
//!   Low         00                              below everything (pads a search bound)
//!   NULL        01
//!   INTEGER     10 + 8 bytes    big-endian, sign bit flipped (every integer type)
//!   DECIMAL     11 + 16 bytes   the unscaled i128 likewise, then 1 byte of scale
//!   FLOAT       12 + 8 bytes    IEEE bits: negatives inverted, positives sign-flipped
//!   CHAR        13 + UTF-8 with 00 written 00 FF, ended by 00 00
//!   BYTE        14 + bytes, escaped and ended the same way
//!   DATE        15 + 4 bytes    days, sign bit flipped
//!   TIME        16 + 8 bytes    microseconds, sign bit flipped
//!   TIMESTAMP   17 + 8 bytes    microseconds, sign bit flipped
//!   PERIOD      18 + 1 byte of kind, then begin and end as TIMESTAMP's 8 bytes each
//!   High        FF              above everything (pads a search bound)
//! ```
//!
//! Invariants:
//! - every part is self-delimiting (no encoded part is a prefix of another), so byte order
//!   over a whole key is the order of its parts, first part first;
//! - within one type, byte order is value order: the fixed-width integers compare as
//!   unsigned after the sign flip, a string's escape (00 FF) sorts above its end (00 00) so
//!   `"a"` < `"a\0"` < `"ab"`, and floats follow `f64::total_cmp`;
//! - an index column holds values of one type, so the tags only separate NULL and the
//!   padding from values (values of two types, which `compare_values` leaves unordered,
//!   order here by their tags).
//!
//! Keys live only in memory (indexes are rebuilt from the rows when a database opens), so
//! the encoding may change between versions.

use crate::period::{Period, PeriodKind};
use crate::types::Value;
use std::fmt;

const LOW: u8 = 0x00;
const NULL: u8 = 0x01;
const INT: u8 = 0x10;
const DECIMAL: u8 = 0x11;
const FLOAT: u8 = 0x12;
const STR: u8 = 0x13;
const BYTES: u8 = 0x14;
const DATE: u8 = 0x15;
const TIME: u8 = 0x16;
const TIMESTAMP: u8 = 0x17;
const PERIOD: u8 = 0x18;
const HIGH: u8 = 0xFF;

/// One column of an index key or of a search bound, as a value.
#[derive(Debug, Clone, PartialEq)]
pub enum KeyPart {
    /// Below every value (NULL included): pads a bound that takes everything after a prefix.
    Low,
    /// A stored (normalised) value; NULL sorts before every other value.
    Val(Value),
    /// Above every value: pads a bound that ends after a prefix.
    High,
}

/// An index key: its parts encoded as in the module docs; `Ord` is byte order.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct IndexKey(Box<[u8]>);

impl fmt::Debug for IndexKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.parts()).finish()
    }
}

impl IndexKey {
    /// The key of these parts.
    pub fn from_parts<'a>(parts: impl IntoIterator<Item = &'a KeyPart>) -> Self {
        let mut w = KeyWriter::default();
        for p in parts {
            w.part(p);
        }
        w.finish()
    }

    /// The encoded bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The bytes of part `i` (its tag included), `None` past the last part.
    pub fn part_bytes(&self, i: usize) -> Option<&[u8]> {
        let mut at = 0;
        for _ in 0..i {
            at += part_len(self.0.get(at..)?)?;
        }
        let rest = self.0.get(at..)?;
        Some(&rest[..part_len(rest)?])
    }

    /// Whether part `i` is NULL.
    pub fn is_null_at(&self, i: usize) -> bool {
        self.part_bytes(i) == Some(&[NULL])
    }

    /// Part `i` as a value, `None` past the last part.
    pub fn part(&self, i: usize) -> Option<KeyPart> {
        self.part_bytes(i).and_then(decode)
    }

    /// Every part as a value.
    pub fn parts(&self) -> Vec<KeyPart> {
        let mut out = Vec::new();
        let mut rest: &[u8] = &self.0;
        while let Some(n) = part_len(rest) {
            match decode(&rest[..n]) {
                Some(p) => out.push(p),
                None => break,
            }
            rest = &rest[n..];
        }
        out
    }

    /// How many parts the key has.
    pub fn width(&self) -> usize {
        let (mut at, mut n) = (0, 0);
        while let Some(len) = self.0.get(at..).and_then(part_len) {
            at += len;
            n += 1;
        }
        n
    }

    /// The first `len` parts, then `pad` (Low or High) in place of each of the other
    /// `width - len` parts.
    pub fn prefix_padded(&self, len: usize, pad: &KeyPart, width: usize) -> IndexKey {
        let mut at = 0;
        for _ in 0..len {
            match self.0.get(at..).and_then(part_len) {
                Some(n) => at += n,
                None => break,
            }
        }
        let mut w = KeyWriter(Vec::with_capacity(at + width.saturating_sub(len)));
        w.0.extend_from_slice(&self.0[..at]);
        for _ in len..width {
            w.part(pad);
        }
        w.finish()
    }
}

/// Builds one key part by part.
#[derive(Default)]
pub struct KeyWriter(Vec<u8>);

impl KeyWriter {
    /// A writer with room for `bytes` bytes.
    pub fn with_capacity(bytes: usize) -> Self {
        KeyWriter(Vec::with_capacity(bytes))
    }

    /// Appends a part.
    pub fn part(&mut self, p: &KeyPart) {
        match p {
            KeyPart::Low => self.0.push(LOW),
            KeyPart::High => self.0.push(HIGH),
            KeyPart::Val(v) => self.value(v),
        }
    }

    /// Appends a value as it is (already normalised).
    pub fn value(&mut self, v: &Value) {
        let b = &mut self.0;
        match v {
            Value::Null => b.push(NULL),
            Value::Int(i) => {
                b.push(INT);
                b.extend_from_slice(&flip64(*i));
            }
            Value::Decimal(u, s) => {
                b.push(DECIMAL);
                b.extend_from_slice(&((*u as u128) ^ (1 << 127)).to_be_bytes());
                b.push(*s as u8);
            }
            Value::Float(f) => {
                b.push(FLOAT);
                let bits = f.to_bits();
                let ordered = if bits >> 63 == 1 {
                    !bits
                } else {
                    bits ^ (1 << 63)
                };
                b.extend_from_slice(&ordered.to_be_bytes());
            }
            Value::Str(s) => {
                b.push(STR);
                escaped(b, s.as_bytes());
            }
            Value::Bytes(x) => {
                b.push(BYTES);
                escaped(b, x);
            }
            Value::Date(d) => {
                b.push(DATE);
                b.extend_from_slice(&((*d as u32) ^ (1 << 31)).to_be_bytes());
            }
            Value::Time(t) => {
                b.push(TIME);
                b.extend_from_slice(&flip64(*t));
            }
            Value::Timestamp(t) => {
                b.push(TIMESTAMP);
                b.extend_from_slice(&flip64(*t));
            }
            Value::Period(p) => {
                b.push(PERIOD);
                b.push(period_kind_byte(p.kind));
                b.extend_from_slice(&flip64(p.begin));
                b.extend_from_slice(&flip64(p.end));
            }
        }
    }

    /// Appends a stored value normalised as for comparisons (trailing blanks dropped,
    /// upper-cased unless `case_specific`, -0.0 as 0.0), without an intermediate copy:
    /// the key [`crate::types::normalize_for_key`] would give.
    pub fn normalized(&mut self, v: &Value, case_specific: bool) {
        match v {
            Value::Str(s) => {
                let t = s.trim_end_matches(' ');
                self.0.push(STR);
                if case_specific {
                    escaped(&mut self.0, t.as_bytes());
                } else {
                    upper_escaped(&mut self.0, t);
                }
            }
            Value::Float(f) if *f == 0.0 => self.value(&Value::Float(0.0)),
            other => self.value(other),
        }
    }

    /// The key written.
    pub fn finish(self) -> IndexKey {
        IndexKey(self.0.into_boxed_slice())
    }
}

/// Bytes a value's part takes when written normalised: a starting capacity (exact unless
/// a string holds NUL bytes, which are escaped, or characters whose upper case is longer).
pub fn encoded_len(v: &Value) -> usize {
    match v {
        Value::Null => 1,
        Value::Int(_) | Value::Float(_) | Value::Time(_) | Value::Timestamp(_) => 9,
        Value::Decimal(..) => 18,
        Value::Date(_) => 5,
        Value::Str(s) => s.trim_end_matches(' ').len() + 3,
        Value::Bytes(x) => x.len() + 3,
        Value::Period(_) => 18,
    }
}

/// The byte a period's kind is written as.
fn period_kind_byte(k: PeriodKind) -> u8 {
    match k {
        PeriodKind::Date => 0,
        PeriodKind::Time => 1,
        PeriodKind::Timestamp => 2,
    }
}

fn flip64(i: i64) -> [u8; 8] {
    ((i as u64) ^ (1 << 63)).to_be_bytes()
}

/// `x` with each 00 written 00 FF, then the end mark 00 00.
fn escaped(b: &mut Vec<u8>, x: &[u8]) {
    for &c in x {
        b.push(c);
        if c == 0 {
            b.push(0xFF);
        }
    }
    b.extend_from_slice(&[0, 0]);
}

/// `s` upper-cased (as `str::to_uppercase`, character by character), escaped and ended.
fn upper_escaped(b: &mut Vec<u8>, s: &str) {
    let mut buf = [0u8; 4];
    for c in s.chars() {
        if c.is_ascii() {
            let u = c.to_ascii_uppercase() as u8;
            b.push(u);
            if u == 0 {
                b.push(0xFF);
            }
        } else {
            for u in c.to_uppercase() {
                b.extend_from_slice(u.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    b.extend_from_slice(&[0, 0]);
}

/// The length of the part that `b` starts with, `None` if `b` is empty or not a key.
fn part_len(b: &[u8]) -> Option<usize> {
    let n = match *b.first()? {
        LOW | NULL | HIGH => 1,
        INT | FLOAT | TIME | TIMESTAMP => 9,
        DECIMAL | PERIOD => 18,
        DATE => 5,
        STR | BYTES => {
            let mut i = 1;
            loop {
                match (b.get(i)?, b.get(i + 1)) {
                    (0, Some(0)) => break i + 2,
                    (0, _) => i += 2,
                    _ => i += 1,
                }
            }
        }
        _ => return None,
    };
    (n <= b.len()).then_some(n)
}

/// One part's bytes (exactly one part) back as a value.
fn decode(b: &[u8]) -> Option<KeyPart> {
    let (&tag, rest) = b.split_first()?;
    let u64_of = |r: &[u8]| -> Option<i64> {
        Some((u64::from_be_bytes(r.get(..8)?.try_into().ok()?) ^ (1 << 63)) as i64)
    };
    let unescape = |r: &[u8]| -> Vec<u8> {
        let body = &r[..r.len().saturating_sub(2)];
        let mut out = Vec::with_capacity(body.len());
        let mut i = 0;
        while i < body.len() {
            out.push(body[i]);
            i += if body[i] == 0 { 2 } else { 1 };
        }
        out
    };
    Some(match tag {
        LOW => KeyPart::Low,
        HIGH => KeyPart::High,
        NULL => KeyPart::Val(Value::Null),
        INT => KeyPart::Val(Value::Int(u64_of(rest)?)),
        TIME => KeyPart::Val(Value::Time(u64_of(rest)?)),
        TIMESTAMP => KeyPart::Val(Value::Timestamp(u64_of(rest)?)),
        PERIOD => {
            let byte = *rest.first()?;
            let kind = [PeriodKind::Date, PeriodKind::Time, PeriodKind::Timestamp]
                .into_iter()
                .find(|k| period_kind_byte(*k) == byte)?;
            KeyPart::Val(Value::Period(Period {
                kind,
                begin: u64_of(rest.get(1..)?)?,
                end: u64_of(rest.get(9..)?)?,
            }))
        }
        FLOAT => {
            let o = u64::from_be_bytes(rest.get(..8)?.try_into().ok()?);
            let bits = if o >> 63 == 1 { o ^ (1 << 63) } else { !o };
            KeyPart::Val(Value::Float(f64::from_bits(bits)))
        }
        DECIMAL => {
            let u = u128::from_be_bytes(rest.get(..16)?.try_into().ok()?) ^ (1 << 127);
            KeyPart::Val(Value::Decimal(u as i128, *rest.get(16)? as i8))
        }
        DATE => {
            let d = u32::from_be_bytes(rest.get(..4)?.try_into().ok()?) ^ (1 << 31);
            KeyPart::Val(Value::Date(d as i32))
        }
        STR => {
            let s = String::from_utf8(unescape(rest))
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
            KeyPart::Val(Value::Str(s))
        }
        BYTES => KeyPart::Val(Value::Bytes(unescape(rest))),
        _ => return None,
    })
}

/// A condition on one key part, tested on its bytes: equal to one of some points (NULL
/// among them matches only NULL), or within bounds (NULL never is).
#[derive(Debug, Clone)]
pub struct PartTest {
    points: Option<Vec<IndexKey>>,
    lo: Option<(IndexKey, bool)>,
    hi: Option<(IndexKey, bool)>,
}

impl PartTest {
    /// The test for these normalised values (as the index stores them): `points` if given,
    /// else `lo` and `hi`, each `(value, inclusive)`.
    pub fn new(
        points: Option<&[Value]>,
        lo: Option<&(Value, bool)>,
        hi: Option<&(Value, bool)>,
    ) -> Self {
        let one = |v: &Value| {
            let mut w = KeyWriter::with_capacity(encoded_len(v));
            w.value(v);
            w.finish()
        };
        match points {
            Some(p) => PartTest {
                points: Some(p.iter().map(one).collect()),
                lo: None,
                hi: None,
            },
            None => PartTest {
                points: None,
                lo: lo.map(|(v, inc)| (one(v), *inc)),
                hi: hi.map(|(v, inc)| (one(v), *inc)),
            },
        }
    }

    /// Whether a part with these bytes passes.
    pub fn passes(&self, part: &[u8]) -> bool {
        use std::cmp::Ordering::*;
        if let Some(points) = &self.points {
            return points.iter().any(|p| p.as_bytes() == part);
        }
        part != [NULL]
            && self.lo.as_ref().is_none_or(|(b, inc)| {
                matches!((part.cmp(b.as_bytes()), inc), (Greater, _) | (Equal, true))
            })
            && self.hi.as_ref().is_none_or(|(b, inc)| {
                matches!((part.cmp(b.as_bytes()), inc), (Less, _) | (Equal, true))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{compare_values, normalize_for_key};
    use std::cmp::Ordering;

    fn key(vs: &[Value]) -> IndexKey {
        IndexKey::from_parts(&vs.iter().cloned().map(KeyPart::Val).collect::<Vec<_>>())
    }

    /// Values of each type, in a scrambled order, with their edge cases.
    fn samples() -> Vec<Vec<Value>> {
        let ints = [0, -1, 1, i64::MIN, i64::MAX, 255, 256, -256, 1 << 40];
        let floats = [
            0.0,
            -1.5,
            1.5,
            f64::MIN,
            f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e-300,
            -1e-300,
        ];
        let strs = [
            "", "a", "a\0", "a\0b", "ab", "b", "\0", "é", "Z", "a\u{1}", "zz",
        ];
        vec![
            ints.iter().map(|&i| Value::Int(i)).collect(),
            ints.iter().map(|&i| Value::Time(i)).collect(),
            ints.iter().map(|&i| Value::Timestamp(i)).collect(),
            floats.iter().map(|&f| Value::Float(f)).collect(),
            [0i128, -1, 1, i128::MIN, i128::MAX, 10, -10, 1 << 70]
                .iter()
                .map(|&d| Value::Decimal(d, 2))
                .collect(),
            [0, -1, 1, i32::MIN, i32::MAX, 19_000]
                .iter()
                .map(|&d| Value::Date(d))
                .collect(),
            strs.iter().map(|s| Value::Str((*s).into())).collect(),
            strs.iter()
                .map(|s| Value::Bytes(s.as_bytes().to_vec()))
                .collect(),
        ]
    }

    fn value_order(a: &[Value], b: &[Value]) -> Ordering {
        a.iter()
            .zip(b)
            .map(|(x, y)| compare_values(x, y))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    }

    #[test]
    fn byte_order_is_value_order_for_every_type_and_pairs() {
        for vals in samples() {
            let mut with_null = vals.clone();
            with_null.push(Value::Null);
            for a in &with_null {
                for b in &with_null {
                    assert_eq!(
                        key(std::slice::from_ref(a)).cmp(&key(std::slice::from_ref(b))),
                        compare_values(a, b),
                        "{a:?} vs {b:?}"
                    );
                    // two-part keys: the second part decides only on a tie of the first
                    for c in [&vals[0], &vals[1]] {
                        let (x, y) = ([a.clone(), c.clone()], [b.clone(), vals[0].clone()]);
                        assert_eq!(key(&x).cmp(&key(&y)), value_order(&x, &y), "{x:?} {y:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn parts_decode_back_and_padding_bounds_prefixes() {
        for vals in samples() {
            for v in &vals {
                let k = key(&[v.clone(), Value::Null, Value::Int(7)]);
                assert_eq!(k.part(0), Some(KeyPart::Val(v.clone())));
                assert!(k.is_null_at(1) && !k.is_null_at(0));
                assert_eq!(k.part(2), Some(KeyPart::Val(Value::Int(7))));
                assert_eq!(k.part(3), None);
                assert_eq!(k.parts().len(), 3);
                let lo = k.prefix_padded(1, &KeyPart::Low, 3);
                let hi = k.prefix_padded(1, &KeyPart::High, 3);
                assert!(lo < k && k < hi, "{v:?}");
                assert_eq!(lo.parts()[1..], [KeyPart::Low, KeyPart::Low]);
                assert_eq!(hi.part(2), Some(KeyPart::High));
            }
        }
    }

    #[test]
    fn normalised_writing_matches_normalize_for_key() {
        let vals = [
            Value::Str("abc  ".into()),
            Value::Str("ÄßÉ x".into()),
            Value::Str("a\0b ".into()),
            Value::Str("   ".into()),
            Value::Float(-0.0),
            Value::Int(3),
        ];
        for v in &vals {
            for cs in [false, true] {
                let mut w = KeyWriter::default();
                w.normalized(v, cs);
                assert_eq!(w.finish(), key(&[normalize_for_key(v, cs)]), "{v:?} {cs}");
            }
        }
    }

    #[test]
    fn part_tests_follow_points_and_bounds() {
        let b = |v: Value| key(&[v]);
        let p = PartTest::new(Some(&[Value::Null, Value::Int(3)]), None, None);
        assert!(p.passes(b(Value::Null).as_bytes()) && p.passes(b(Value::Int(3)).as_bytes()));
        assert!(!p.passes(b(Value::Int(4)).as_bytes()));
        let r = PartTest::new(
            None,
            Some(&(Value::Int(1), false)),
            Some(&(Value::Int(5), true)),
        );
        let passing: Vec<i64> = (-1..8)
            .filter(|&i| r.passes(b(Value::Int(i)).as_bytes()))
            .collect();
        assert_eq!(passing, vec![2, 3, 4, 5]);
        assert!(!r.passes(b(Value::Null).as_bytes()));
        let open = PartTest::new(None, None, Some(&(Value::Str("M".into()), false)));
        assert!(open.passes(b(Value::Str("A".into())).as_bytes()));
        assert!(!open.passes(b(Value::Str("M".into())).as_bytes()));
        assert!(!open.passes(b(Value::Null).as_bytes()));
    }
}
