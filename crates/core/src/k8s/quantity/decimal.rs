//! Exact signed decimals, normalized: value = ±mag × 10^exp, mag has no trailing decimal zero.

#[allow(unused_imports)]
use super::*;

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(super) struct Decimal {
    pub(super) neg: bool,
    pub(super) mag: Nat,
    pub(super) exp: i64,
}

impl Decimal {
    pub(super) fn new(neg: bool, mut mag: Nat, mut exp: i64) -> Decimal {
        if mag.is_zero() {
            return Decimal::default();
        }
        let tz = mag.trailing_decimal_zeros();
        if tz > 0 {
            mag.div_pow10(tz);
            exp = exp.saturating_add(tz as i64);
        }
        Decimal { neg, mag, exp }
    }

    pub(super) fn from_i64_scaled(v: i64, scale: i64) -> Decimal {
        Decimal::new(v < 0, Nat::from_u128(u128::from(v.unsigned_abs())), scale)
    }

    pub(super) fn is_zero(&self) -> bool {
        self.mag.is_zero()
    }

    pub(super) fn signum(&self) -> i32 {
        if self.is_zero() {
            0
        } else if self.neg {
            -1
        } else {
            1
        }
    }

    /// Number of digits before the decimal point of |v| (|v| < 10^result).
    pub(super) fn integer_digits(&self) -> i64 {
        self.mag.num_digits() as i64 + self.exp
    }

    pub(super) fn in_range(&self) -> bool {
        self.is_zero() || self.integer_digits() <= MAX_INTEGER_DIGITS
    }

    /// Both magnitudes scaled to the smaller exponent.
    pub(super) fn aligned(&self, other: &Decimal) -> (Nat, Nat, i64) {
        let e = self.exp.min(other.exp);
        let mut a = self.mag.clone();
        a.mul_pow10(usize::try_from(self.exp - e).unwrap_or(0));
        let mut b = other.mag.clone();
        b.mul_pow10(usize::try_from(other.exp - e).unwrap_or(0));
        (a, b, e)
    }

    pub(super) fn cmp_abs(&self, other: &Decimal) -> Ordering {
        match (self.is_zero(), other.is_zero()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            (false, false) => {}
        }
        let by_size = self.integer_digits().cmp(&other.integer_digits());
        if by_size != Ordering::Equal {
            return by_size;
        }
        // Same number of integer digits: the exponents differ by at most the digit count.
        let (a, b, _) = self.aligned(other);
        a.cmp_nat(&b)
    }

    pub(super) fn cmp_value(&self, other: &Decimal) -> Ordering {
        match self.signum().cmp(&other.signum()) {
            Ordering::Equal if self.neg => other.cmp_abs(self),
            Ordering::Equal => self.cmp_abs(other),
            unequal => unequal,
        }
    }

    pub(super) fn add(&self, other: &Decimal) -> Decimal {
        if self.is_zero() {
            return other.clone();
        }
        if other.is_zero() {
            return self.clone();
        }
        let (a, b, e) = self.aligned(other);
        if self.neg == other.neg {
            return Decimal::new(self.neg, a.add(&b), e);
        }
        match a.cmp_nat(&b) {
            Ordering::Greater => Decimal::new(self.neg, a.sub(&b), e),
            Ordering::Less => Decimal::new(other.neg, b.sub(&a), e),
            Ordering::Equal => Decimal::default(),
        }
    }

    pub(super) fn mul_i64(&self, k: i64) -> Decimal {
        let mut mag = self.mag.clone();
        mag.mul_small(k.unsigned_abs());
        Decimal::new(self.neg != (k < 0), mag, self.exp)
    }

    pub(super) fn is_integer(&self) -> bool {
        self.is_zero() || self.exp >= 0
    }

    /// |v| as an integer; only meaningful when `is_integer()`.
    pub(super) fn integer_magnitude(&self) -> Nat {
        let mut m = self.mag.clone();
        m.mul_pow10(usize::try_from(self.exp).unwrap_or(0));
        m
    }

    /// `trunc(|v| × 10^k)` modulo 2^64, and whether the truncation dropped anything.
    pub(super) fn scaled_magnitude_low64(&self, k: i64) -> (u64, bool) {
        let e = self.exp.saturating_add(k);
        if e >= 0 {
            let factor = pow10_mod_2_64(e.unsigned_abs());
            (self.mag.low_u64().wrapping_mul(factor), false)
        } else {
            let mut m = self.mag.clone();
            let inexact = m.div_pow10(usize::try_from(e.unsigned_abs()).unwrap_or(usize::MAX));
            (m.low_u64(), inexact)
        }
    }

    /// `ceil(v × 10^k)` saturated to the `i64` range.
    pub(super) fn ceil_scaled_saturating(&self, k: i64) -> i64 {
        if self.is_zero() {
            return 0;
        }
        let saturated = if self.neg { i64::MIN } else { i64::MAX };
        if self.integer_digits().saturating_add(k) > 19 {
            return saturated; // |v × 10^k| >= 10^19 > 2^63
        }
        let e = self.exp.saturating_add(k);
        let (magnitude, inexact) = if e >= 0 {
            let m = self.mag.to_u128().and_then(|m| {
                u32::try_from(e)
                    .ok()
                    .and_then(|e| 10u128.checked_pow(e))
                    .and_then(|p| m.checked_mul(p))
            });
            (m, false)
        } else {
            let mut m = self.mag.clone();
            let inexact = m.div_pow10(usize::try_from(e.unsigned_abs()).unwrap_or(usize::MAX));
            (m.to_u128(), inexact)
        };
        let Some(magnitude) = magnitude.and_then(|m| i128::try_from(m).ok()) else {
            return saturated;
        };
        let ceil = if self.neg {
            -magnitude // ceil of a negative value drops the fraction
        } else {
            magnitude + i128::from(inexact)
        };
        i64::try_from(ceil).unwrap_or(saturated)
    }
}
