//! DECIMAL arithmetic with Teradata's result types and rounding.
//!
//! Result types (Teradata SQL Functions, Expressions and Predicates, "DECIMAL Result Data
//! Type", with DBS Control MaxDecimal at its default 0):
//!
//! ```text
//!   DECIMAL(m,n) + - DECIMAL(k,j)   DECIMAL(min(p, 1 + max(n,j) + max(m-n, k-j)), max(n,j))
//!   DECIMAL(m,n)  *  DECIMAL(k,j)   DECIMAL(min(p, m+k), n+j)
//!   DECIMAL(m,n) / MOD DECIMAL(k,j) DECIMAL(p, max(n,j))
//!   integer op DECIMAL(k,j)         DECIMAL(p, j)        (and DECIMAL(m,n) op integer: (p, n))
//!   p = 15 if every DECIMAL operand has ≤ 15 digits, 18 if they have ≤ 18, else 38
//! ```
//!
//! Values are exact (i128); a result that is not exact (division) is rounded half to even
//! (Teradata's default, RoundHalfwayMagUp = FALSE). A result that does not fit its precision is
//! 2616; division by zero is 2618.
//!
//! Invariant: every value of the result array fits the result type's precision.

use crate::error::{Error, OrOverflow, Result};
use crate::expr::BinOp;
use arrow::array::{Array, ArrayRef, AsArray, Decimal128Array};
use arrow::datatypes::{DataType, Decimal128Type};
use std::sync::Arc;

/// Digits of an integer type seen as a DECIMAL(k,0) operand.
pub(crate) fn integer_digits(t: &DataType) -> Option<u8> {
    Some(match t {
        DataType::Int8 => 3,
        DataType::Int16 => 5,
        DataType::Int32 => 10,
        DataType::Int64 => 19,
        _ => return None,
    })
}

/// Teradata's `p` for DECIMAL operands of these precisions.
fn max_digits(precisions: &[u8]) -> u8 {
    match precisions.iter().copied().max().unwrap_or(0) {
        0..=15 => 15,
        16..=18 => 18,
        _ => 38,
    }
}

/// The result type of `l op r` when at least one side is DECIMAL and the other is DECIMAL or
/// an integer; `None` for other operand types.
pub fn result_type(op: BinOp, l: &DataType, r: &DataType) -> Option<(u8, i8)> {
    use BinOp::*;
    match (l, r) {
        (DataType::Decimal128(m, n), DataType::Decimal128(k, j)) => {
            let p = max_digits(&[*m, *k]);
            let (m, n, k, j) = (i32::from(*m), i32::from(*n), i32::from(*k), i32::from(*j));
            let (prec, scale) = match op {
                Add | Sub => (
                    (1 + n.max(j) + (m - n).max(k - j)).min(i32::from(p)),
                    n.max(j),
                ),
                Mul => ((m + k).min(i32::from(p)), n + j),
                Div | Mod => (i32::from(p), n.max(j)),
                _ => return None,
            };
            // a scale beyond the precision (Teradata's table gives DECIMAL(15,16) for
            // DECIMAL(9,8) * DECIMAL(9,8)) cannot be represented: tdlite keeps the scale and
            // the operands' integer digits too, so 1.5 * 2 fits; capped at 38
            let scale = scale.min(38);
            let prec = match op {
                Mul if scale > prec => scale + (m - n).max(0) + (k - j).max(0),
                _ => prec.max(scale),
            };
            Some((prec.clamp(1, 38) as u8, scale as i8))
        }
        (DataType::Decimal128(k, j), i) | (i, DataType::Decimal128(k, j)) => {
            integer_digits(i)?;
            matches!(op, Add | Sub | Mul | Div | Mod).then(|| (max_digits(&[*k]).max(*j as u8), *j))
        }
        _ => None,
    }
}

/// An operand as unscaled i128 values and its scale.
fn unscaled(a: &ArrayRef) -> Result<(Vec<Option<i128>>, i32)> {
    match a.data_type() {
        DataType::Decimal128(_, s) => Ok((
            a.as_primitive::<Decimal128Type>().iter().collect(),
            i32::from(*s),
        )),
        t if integer_digits(t).is_some() => {
            let c = crate::expr::cast_to_arrow(a, &DataType::Int64)?;
            Ok((
                c.as_primitive::<arrow::datatypes::Int64Type>()
                    .iter()
                    .map(|v| v.map(i128::from))
                    .collect(),
                0,
            ))
        }
        other => Err(Error::Internal(format!("{other} is not a DECIMAL operand"))),
    }
}

fn pow10(e: i32) -> Result<i128> {
    u32::try_from(e)
        .ok()
        .and_then(|e| 10i128.checked_pow(e))
        .or_overflow()
}

/// `v` (at scale `from`) at scale `to` ≥ `from`.
fn rescale(v: i128, from: i32, to: i32) -> Result<i128> {
    v.checked_mul(pow10(to - from)?).or_overflow()
}

/// `num / den` rounded half to even.
pub(crate) fn div_half_even(num: i128, den: i128) -> i128 {
    let q = num / den;
    let r = num % den;
    if r == 0 {
        return q;
    }
    // compare 2|r| with |den| without overflow
    let twice = r.unsigned_abs().saturating_mul(2);
    let away = match twice.cmp(&den.unsigned_abs()) {
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Less => false,
        std::cmp::Ordering::Equal => q % 2 != 0,
    };
    if !away {
        q
    } else if (num < 0) != (den < 0) {
        q - 1
    } else {
        q + 1
    }
}

/// `a·10^e / b` rounded half to even; by long division when `a·10^e` itself would not fit.
fn scaled_div(a: i128, e: i32, b: i128) -> Result<i128> {
    if let Some(num) = pow10(e).ok().and_then(|p| a.checked_mul(p)) {
        return Ok(div_half_even(num, b));
    }
    let negative = (a < 0) != (b < 0);
    let (ua, ub) = (a.unsigned_abs(), b.unsigned_abs());
    let (mut q, mut r) = (ua / ub, ua % ub);
    for _ in 0..e {
        r = r.checked_mul(10).or_overflow()?;
        q = q
            .checked_mul(10)
            .and_then(|q| q.checked_add(r / ub))
            .or_overflow()?;
        r %= ub;
    }
    // r < ub ≤ 2^127, so 2r fits
    let twice = r * 2;
    if twice > ub || (twice == ub && q % 2 == 1) {
        q = q.checked_add(1).or_overflow()?;
    }
    let q = i128::try_from(q).map_err(|_| Error::Overflow)?;
    Ok(if negative { -q } else { q })
}

/// `a·b / 10^drop` rounded half to even, the product taken in 256 bits (it may need up to 76
/// digits before the division brings it back).
///
/// # Errors
/// 2616 when the result does not fit 128 bits.
fn wide_product(a: i128, b: i128, drop: i32) -> Result<i128> {
    use arrow::datatypes::i256;
    let product = i256::from_i128(a)
        .checked_mul(i256::from_i128(b))
        .or_overflow()?;
    let den = u32::try_from(drop)
        .ok()
        .and_then(|d| i256::from_i128(10).checked_pow(d))
        .or_overflow()?;
    let (q, r) = product.checked_div_rem(den).or_overflow()?;
    // half to even: compare 2|r| with the divisor (|r| < den < 2^255, so 2|r| fits)
    let twice = r.wrapping_abs().wrapping_mul(i256::from_i128(2));
    let away = match twice.cmp(&den) {
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Less => false,
        std::cmp::Ordering::Equal => q.wrapping_rem(i256::from_i128(2)) != i256::from_i128(0),
    };
    let q = match (away, product.is_negative()) {
        (false, _) => q,
        (true, true) => q.wrapping_sub(i256::from_i128(1)),
        (true, false) => q.wrapping_add(i256::from_i128(1)),
    };
    q.to_i128().or_overflow()
}

/// `l op r` for DECIMAL operands (an integer operand is DECIMAL(k,0)), with Teradata's result
/// type.
///
/// # Errors
/// 2616 when a result does not fit its type, 2618 for division by zero.
pub fn arithmetic(op: BinOp, l: &ArrayRef, r: &ArrayRef) -> Result<ArrayRef> {
    let (prec, scale) = result_type(op, l.data_type(), r.data_type())
        .ok_or_else(|| Error::Internal("not a DECIMAL operation".into()))?;
    let (lv, ls) = unscaled(l)?;
    let (rv, rs) = unscaled(r)?;
    // equal lengths, or a one-row side broadcast to the other's length
    let n = match (lv.len(), rv.len()) {
        (a, b) if a == b => a,
        (1, b) => b,
        (a, 1) => a,
        _ => return Err(Error::Internal("operands of different lengths".into())),
    };
    let at = |v: &[Option<i128>], i: usize| if v.len() == 1 { v[0] } else { v[i] };
    let s = i32::from(scale);
    let limit = pow10(i32::from(prec))?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let (Some(a), Some(b)) = (at(&lv, i), at(&rv, i)) else {
            out.push(None);
            continue;
        };
        let v = match op {
            BinOp::Add | BinOp::Sub => {
                let common = ls.max(rs);
                let (a, b) = (rescale(a, ls, common)?, rescale(b, rs, common)?);
                let v = if op == BinOp::Add {
                    a.checked_add(b)
                } else {
                    a.checked_sub(b)
                }
                .or_overflow()?;
                rescale(v, common, s)?
            }
            BinOp::Mul => {
                // the product's scale is ls + rs; the result keeps it (or the DECIMAL's own)
                let exact = ls + rs;
                match a.checked_mul(b) {
                    Some(v) if exact <= s => rescale(v, exact, s)?,
                    Some(v) => div_half_even(v, pow10(exact - s)?),
                    // 0.1 × 0.1 at scale 38 each: 76 digits of scale before the rounding
                    None if exact > s => wide_product(a, b, exact - s)?,
                    None => return Err(Error::Overflow),
                }
            }
            BinOp::Div => {
                if b == 0 {
                    return Err(Error::DivisionByZero);
                }
                // a/10^ls ÷ b/10^rs at scale s: a·10^(s − ls + rs) / b
                let e = s - ls + rs;
                if e >= 0 {
                    scaled_div(a, e, b)?
                } else {
                    div_half_even(a, b.checked_mul(pow10(-e)?).or_overflow()?)
                }
            }
            BinOp::Mod => {
                if b == 0 {
                    return Err(Error::DivisionByZero);
                }
                let common = ls.max(rs);
                let (a, b) = (rescale(a, ls, common)?, rescale(b, rs, common)?);
                rescale(a % b, common, s)?
            }
            _ => return Err(Error::Internal("not an arithmetic operator".into())),
        };
        if v.unsigned_abs() >= limit.unsigned_abs() {
            return Err(Error::Overflow);
        }
        out.push(Some(v));
    }
    Ok(Arc::new(
        Decimal128Array::from(out).with_precision_and_scale(prec, scale)?,
    ))
}

/// An unscaled decimal and its scale as text: `(1050, 2)` is `10.50`.
pub(crate) fn decimal_text(v: i128, scale: i8) -> String {
    if scale <= 0 {
        return 10i128
            .checked_pow(u32::from(scale.unsigned_abs()))
            .and_then(|p| v.checked_mul(p))
            .map_or_else(|| format!("{v}E{}", -i32::from(scale)), |x| x.to_string());
    }
    let digits = format!("{:0>width$}", v.unsigned_abs(), width = scale as usize + 1);
    let (int, frac) = digits.split_at(digits.len() - scale as usize);
    format!("{}{int}.{frac}", if v < 0 { "-" } else { "" })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(v: i128, p: u8, s: i8) -> ArrayRef {
        Arc::new(
            Decimal128Array::from(vec![v])
                .with_precision_and_scale(p, s)
                .unwrap(),
        )
    }

    fn run(op: BinOp, l: ArrayRef, r: ArrayRef) -> (i128, u8, i8) {
        let a = arithmetic(op, &l, &r).unwrap();
        let DataType::Decimal128(p, s) = a.data_type() else {
            panic!("not a decimal")
        };
        (a.as_primitive::<Decimal128Type>().value(0), *p, *s)
    }

    #[test]
    fn teradata_result_types() {
        // 1.00 / 3 = 0.33 (scale max(2,0)); 7.0 / 2 = 3.5
        let three: ArrayRef = Arc::new(arrow::array::Int32Array::from(vec![3]));
        assert_eq!(run(BinOp::Div, dec(100, 3, 2), three), (33, 15, 2));
        // DECIMAL(5,2) * DECIMAL(7,3) = DECIMAL(12,5)
        assert_eq!(
            run(BinOp::Mul, dec(125, 5, 2), dec(2125, 7, 3)),
            (265625, 12, 5)
        );
        // DECIMAL(5,2) + DECIMAL(7,3) = DECIMAL(min(15, 1+3+4), 3)
        assert_eq!(
            run(BinOp::Add, dec(125, 5, 2), dec(2125, 7, 3)),
            (3375, 8, 3)
        );
        // 1.25 / 2.125 at scale 3: 0.588 (0.58823…)
        assert_eq!(
            run(BinOp::Div, dec(125, 5, 2), dec(2125, 7, 3)),
            (588, 15, 3)
        );
        // halfway values round to even: 0.25 / 2 → 0.12, 0.35 / 2 → 0.18 (0.175)
        let two: ArrayRef = Arc::new(arrow::array::Int32Array::from(vec![2]));
        assert_eq!(run(BinOp::Div, dec(25, 3, 2), two.clone()).0, 12);
        assert_eq!(run(BinOp::Div, dec(35, 3, 2), two.clone()).0, 18);
        assert_eq!(run(BinOp::Div, dec(-35, 3, 2), two).0, -18);
        // MOD keeps the larger scale: 7.5 MOD 2 = 1.5
        let two: ArrayRef = Arc::new(arrow::array::Int32Array::from(vec![2]));
        assert_eq!(run(BinOp::Mod, dec(75, 2, 1), two), (15, 15, 1));
    }

    #[test]
    fn quotients_with_a_large_scale_do_not_overflow_on_the_way() {
        // 5 / 0.5 at scale 20: 5·10^40 does not fit i128, the quotient 10 does
        let five: ArrayRef = Arc::new(arrow::array::Int32Array::from(vec![5]));
        let half = dec(5 * 10i128.pow(19), 20, 20);
        let (v, p, s) = run(BinOp::Div, five, half);
        assert_eq!((v, p, s), (10 * 10i128.pow(20), 38, 20));
        // 1 / 3 at scale 20 by long division: 0.33333333333333333333
        let one = dec(10i128.pow(20), 38, 20);
        let three = dec(3 * 10i128.pow(20), 38, 20);
        assert_eq!(run(BinOp::Div, one, three).0, 33_333_333_333_333_333_333);
    }

    #[test]
    fn overflow_and_division_by_zero() {
        let big = dec(10i128.pow(14), 15, 0);
        assert!(matches!(
            arithmetic(BinOp::Mul, &big, &big),
            Err(Error::Overflow)
        ));
        let zero = dec(0, 3, 1);
        assert!(matches!(
            arithmetic(BinOp::Div, &dec(1, 3, 1), &zero),
            Err(Error::DivisionByZero)
        ));
    }
}
