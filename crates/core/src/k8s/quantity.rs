//! Kubernetes `resource.Quantity` (apimachinery v0.36) for the resource interpreter.
//!
//! A [`Quantity`] is an exact decimal number plus a [`Format`] (decimal SI, binary SI or
//! decimal exponent) chosen by the suffix it was written with. This module reproduces the
//! observable behavior of Go's `resource.Quantity`:
//!
//! * parsing ([`Quantity::parse`]) follows `ParseQuantity` byte for byte, including its
//!   fast path (`int64Amount`) and its exact path (`inf.Dec`, rounding magnitudes up to
//!   `1n`, capping binary-SI magnitudes at 2^63−1);
//! * rendering ([`Quantity::to_canonical_string`]) follows `CanonicalizeBytes`, and
//!   [`Display`](fmt::Display) / serialization follow `String()` / `MarshalJSON`, which
//!   re-emit the parsed text unchanged when Go considers it canonical (see
//!   [`Quantity::to_canonical_string`] for the exact rule);
//! * addition ([`Quantity::checked_add`], `+`) is exact and keeps the format of the left
//!   operand unless the left operand is zero (Go `Add`);
//! * measurement: [`Quantity::milli_value_ceil`] / [`Quantity::value_ceil`] are exact
//!   ceilings saturated to `i64`; [`Quantity::milli_value`] / [`Quantity::value`] reproduce
//!   Go's `MilliValue()` / `Value()` bit for bit, overflow quirks included;
//!   [`Quantity::as_approximate_f64`] reproduces `AsApproximateFloat64()`.
//!
//! ```
//! use karmada_interpreter::quantity::{Format, Quantity};
//!
//! let q: Quantity = "1.5Gi".parse().unwrap();
//! assert_eq!(q.format(), Format::BinarySI);
//! assert_eq!(q.to_string(), "1536Mi");
//! assert_eq!(q.value_ceil(), 1_610_612_736);
//! ```

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::iter::Sum;
use std::ops::{Add, AddAssign};
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Largest number of integer digits a parsed value may have (|v| < 10^100000).
///
/// Go accepts arbitrarily large values (and then needs unbounded time and memory to add
/// them); this bound keeps every operation cheap. Nothing realistic comes close.
const MAX_INTEGER_DIGITS: i64 = 100_000;

/// Limb base of [`Nat`]: 10^9, so decimal conversion is linear.
const LIMB_BASE: u64 = 1_000_000_000;
const LIMB_DIGITS: usize = 9;
const POW10_U64: [u64; 20] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
    1_000_000_000,
    10_000_000_000,
    100_000_000_000,
    1_000_000_000_000,
    10_000_000_000_000,
    100_000_000_000_000,
    1_000_000_000_000_000,
    10_000_000_000_000_000,
    100_000_000_000_000_000,
    1_000_000_000_000_000_000,
    10_000_000_000_000_000_000,
];

// ---------------------------------------------------------------------------------------
// Natural numbers (base 10^9 limbs, little endian, no high zero limbs).
// ---------------------------------------------------------------------------------------

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
struct Nat(Vec<u32>);

impl Nat {
    fn from_u128(mut v: u128) -> Nat {
        let mut limbs = Vec::new();
        while v > 0 {
            limbs.push((v % u128::from(LIMB_BASE)) as u32);
            v /= u128::from(LIMB_BASE);
        }
        Nat(limbs)
    }

    /// Builds a number from ASCII decimal digits (callers pass digits only).
    fn from_digits(digits: &[u8]) -> Nat {
        let mut limbs = Vec::with_capacity(digits.len() / LIMB_DIGITS + 1);
        let mut end = digits.len();
        while end > 0 {
            let start = end.saturating_sub(LIMB_DIGITS);
            let mut limb = 0u32;
            for &c in &digits[start..end] {
                limb = limb * 10 + u32::from(c.wrapping_sub(b'0') % 10);
            }
            limbs.push(limb);
            end = start;
        }
        let mut n = Nat(limbs);
        n.trim();
        n
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    fn num_digits(&self) -> usize {
        match self.0.last() {
            None => 0,
            Some(&top) => (self.0.len() - 1) * LIMB_DIGITS + decimal_len(u64::from(top)),
        }
    }

    fn mul_small(&mut self, m: u64) {
        if self.is_zero() {
            return;
        }
        if m == 0 {
            self.0.clear();
            return;
        }
        let base = u128::from(LIMB_BASE);
        let mut carry: u128 = 0;
        for limb in &mut self.0 {
            let t = u128::from(*limb) * u128::from(m) + carry;
            *limb = (t % base) as u32;
            carry = t / base;
        }
        while carry > 0 {
            self.0.push((carry % base) as u32);
            carry /= base;
        }
    }

    fn mul_pow10(&mut self, k: usize) {
        if self.is_zero() || k == 0 {
            return;
        }
        self.mul_small(POW10_U64[k % LIMB_DIGITS]);
        let zeros = k / LIMB_DIGITS;
        if zeros > 0 {
            let mut limbs = vec![0u32; zeros];
            limbs.append(&mut self.0);
            self.0 = limbs;
        }
    }

    fn add_small(&mut self, a: u64) {
        let mut carry = a;
        for limb in &mut self.0 {
            if carry == 0 {
                break;
            }
            let t = u64::from(*limb) + carry;
            *limb = (t % LIMB_BASE) as u32;
            carry = t / LIMB_BASE;
        }
        while carry > 0 {
            self.0.push((carry % LIMB_BASE) as u32);
            carry /= LIMB_BASE;
        }
    }

    fn add(&self, other: &Nat) -> Nat {
        let (long, short) = if self.0.len() >= other.0.len() {
            (self, other)
        } else {
            (other, self)
        };
        let mut out = Vec::with_capacity(long.0.len() + 1);
        let mut carry = 0u64;
        for (i, &l) in long.0.iter().enumerate() {
            let t = u64::from(l) + u64::from(short.0.get(i).copied().unwrap_or(0)) + carry;
            out.push((t % LIMB_BASE) as u32);
            carry = t / LIMB_BASE;
        }
        if carry > 0 {
            out.push(carry as u32);
        }
        Nat(out)
    }

    /// `self - other`; requires `self >= other`.
    fn sub(&self, other: &Nat) -> Nat {
        let mut out = Vec::with_capacity(self.0.len());
        let mut borrow = 0i64;
        for (i, &l) in self.0.iter().enumerate() {
            let mut t = i64::from(l) - i64::from(other.0.get(i).copied().unwrap_or(0)) - borrow;
            if t < 0 {
                t += LIMB_BASE as i64;
                borrow = 1;
            } else {
                borrow = 0;
            }
            out.push(t as u32);
        }
        let mut n = Nat(out);
        n.trim();
        n
    }

    fn cmp_nat(&self, other: &Nat) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }

    /// Divides in place by `d` (1 ≤ d ≤ 10^9), returning the remainder.
    fn div_small(&mut self, d: u64) -> u64 {
        let mut rem = 0u64;
        for limb in self.0.iter_mut().rev() {
            let cur = rem * LIMB_BASE + u64::from(*limb);
            *limb = (cur / d) as u32;
            rem = cur % d;
        }
        self.trim();
        rem
    }

    /// Truncating division by 10^k; returns whether the remainder was non-zero.
    fn div_pow10(&mut self, k: usize) -> bool {
        if k == 0 || self.is_zero() {
            return false;
        }
        let limbs = k / LIMB_DIGITS;
        if limbs >= self.0.len() {
            self.0.clear();
            return true;
        }
        let mut inexact = self.0[..limbs].iter().any(|&l| l != 0);
        self.0.drain(..limbs);
        let r = k % LIMB_DIGITS;
        if r > 0 && self.div_small(POW10_U64[r]) != 0 {
            inexact = true;
        }
        inexact
    }

    fn trailing_decimal_zeros(&self) -> usize {
        let mut n = 0;
        for &l in &self.0 {
            if l == 0 {
                n += LIMB_DIGITS;
            } else {
                let mut l = l;
                while l % 10 == 0 {
                    l /= 10;
                    n += 1;
                }
                return n;
            }
        }
        n
    }

    /// The value modulo 2^64.
    fn low_u64(&self) -> u64 {
        self.0.iter().rev().fold(0u64, |acc, &l| {
            acc.wrapping_mul(LIMB_BASE).wrapping_add(u64::from(l))
        })
    }

    fn to_u128(&self) -> Option<u128> {
        self.0.iter().rev().try_fold(0u128, |acc, &l| {
            acc.checked_mul(u128::from(LIMB_BASE))?
                .checked_add(u128::from(l))
        })
    }
}

impl fmt::Display for Nat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut limbs = self.0.iter().rev();
        match limbs.next() {
            None => f.write_str("0"),
            Some(top) => {
                write!(f, "{top}")?;
                for l in limbs {
                    write!(f, "{l:09}")?;
                }
                Ok(())
            }
        }
    }
}

fn decimal_len(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 10 {
        v /= 10;
        n += 1;
    }
    n
}

/// 10^k modulo 2^64.
fn pow10_mod_2_64(k: u64) -> u64 {
    if k >= 64 {
        0 // 2^64 divides 10^k
    } else {
        10u64.wrapping_pow(k as u32)
    }
}

// ---------------------------------------------------------------------------------------
// Exact signed decimals, normalized: value = ±mag × 10^exp, mag has no trailing decimal
// zero, zero is {neg: false, mag: 0, exp: 0}. Normalization makes the derived Eq/Hash
// numeric.
// ---------------------------------------------------------------------------------------

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
struct Decimal {
    neg: bool,
    mag: Nat,
    exp: i64,
}

impl Decimal {
    fn new(neg: bool, mut mag: Nat, mut exp: i64) -> Decimal {
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

    fn from_i64_scaled(v: i64, scale: i64) -> Decimal {
        Decimal::new(v < 0, Nat::from_u128(u128::from(v.unsigned_abs())), scale)
    }

    fn is_zero(&self) -> bool {
        self.mag.is_zero()
    }

    fn signum(&self) -> i32 {
        if self.is_zero() {
            0
        } else if self.neg {
            -1
        } else {
            1
        }
    }

    /// Number of digits before the decimal point of |v| (|v| < 10^result).
    fn integer_digits(&self) -> i64 {
        self.mag.num_digits() as i64 + self.exp
    }

    fn in_range(&self) -> bool {
        self.is_zero() || self.integer_digits() <= MAX_INTEGER_DIGITS
    }

    /// Both magnitudes scaled to the smaller exponent.
    fn aligned(&self, other: &Decimal) -> (Nat, Nat, i64) {
        let e = self.exp.min(other.exp);
        let mut a = self.mag.clone();
        a.mul_pow10(usize::try_from(self.exp - e).unwrap_or(0));
        let mut b = other.mag.clone();
        b.mul_pow10(usize::try_from(other.exp - e).unwrap_or(0));
        (a, b, e)
    }

    fn cmp_abs(&self, other: &Decimal) -> Ordering {
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

    fn cmp_value(&self, other: &Decimal) -> Ordering {
        match self.signum().cmp(&other.signum()) {
            Ordering::Equal if self.neg => other.cmp_abs(self),
            Ordering::Equal => self.cmp_abs(other),
            unequal => unequal,
        }
    }

    fn add(&self, other: &Decimal) -> Decimal {
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

    fn mul_i64(&self, k: i64) -> Decimal {
        let mut mag = self.mag.clone();
        mag.mul_small(k.unsigned_abs());
        Decimal::new(self.neg != (k < 0), mag, self.exp)
    }

    fn is_integer(&self) -> bool {
        self.is_zero() || self.exp >= 0
    }

    /// |v| as an integer; only meaningful when `is_integer()`.
    fn integer_magnitude(&self) -> Nat {
        let mut m = self.mag.clone();
        m.mul_pow10(usize::try_from(self.exp).unwrap_or(0));
        m
    }

    /// `trunc(|v| × 10^k)` modulo 2^64, and whether the truncation dropped anything.
    fn scaled_magnitude_low64(&self, k: i64) -> (u64, bool) {
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
    fn ceil_scaled_saturating(&self, k: i64) -> i64 {
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

// ---------------------------------------------------------------------------------------
// Public types.
// ---------------------------------------------------------------------------------------

/// The notation family of a quantity, fixed by the suffix it was parsed with.
///
/// ```
/// use karmada_interpreter::quantity::{Format, Quantity};
///
/// assert_eq!(Quantity::parse("100m").unwrap().format(), Format::DecimalSI);
/// assert_eq!(Quantity::parse("64Mi").unwrap().format(), Format::BinarySI);
/// assert_eq!(Quantity::parse("1e3").unwrap().format(), Format::DecimalExponent);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Decimal SI suffixes `n u m "" k M G T P E` (e.g. `500m`, `2`, `1k`).
    DecimalSI,
    /// Binary SI suffixes `Ki Mi Gi Ti Pi Ei` (e.g. `64Mi`).
    BinarySI,
    /// Decimal exponent `e<int>` / `E<int>` (e.g. `1e3`).
    DecimalExponent,
}

/// Why a quantity could not be parsed or decoded.
///
/// The first three variants display exactly like Go's `ErrFormatWrong`, `ErrNumeric` and
/// `ErrSuffix`.
///
/// ```
/// use karmada_interpreter::quantity::{Quantity, QuantityErrorReason};
///
/// let err = Quantity::parse("1e").unwrap_err();
/// assert_eq!(err.reason(), QuantityErrorReason::Suffix);
/// assert_eq!(err.reason().to_string(), "unable to parse quantity's suffix");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum QuantityErrorReason {
    /// The text does not have the shape `<sign?><digits[.digits]><suffix>`.
    #[error("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")]
    FormatWrong,
    /// The numeric part could not be read (e.g. `Pi`: no digits on the exact path).
    #[error("unable to parse numeric part of quantity")]
    Numeric,
    /// The suffix is not a known SI suffix or a valid `e<int>` exponent.
    #[error("unable to parse quantity's suffix")]
    Suffix,
    /// The value has more than 100000 integer digits (a limit of this implementation), or
    /// a JSON number is not finite.
    #[error("quantity is too large")]
    OutOfRange,
    /// A JSON value that is neither a string, a number nor null.
    #[error("a quantity must be a JSON string or number")]
    NotStringOrNumber,
}

/// Error returned when text or JSON does not denote a quantity.
///
/// Displays as `cannot parse '<text>': <reason>`, the message of Go's
/// `resource.MustParse` panic (used by the Lua `kube` helpers).
///
/// ```
/// use karmada_interpreter::quantity::{Quantity, QuantityErrorReason};
///
/// let err = Quantity::parse("1KiB").unwrap_err();
/// assert_eq!(err.text(), "1KiB");
/// assert_eq!(err.reason(), QuantityErrorReason::FormatWrong);
/// assert!(err.to_string().starts_with("cannot parse '1KiB': quantities must match"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot parse '{text}': {reason}")]
pub struct QuantityError {
    text: String,
    reason: QuantityErrorReason,
}

impl QuantityError {
    fn new(text: impl Into<String>, reason: QuantityErrorReason) -> QuantityError {
        QuantityError {
            text: text.into(),
            reason,
        }
    }

    /// The offending input (for JSON input: the string, or the JSON text of the value).
    ///
    /// ```
    /// use karmada_interpreter::quantity::Quantity;
    ///
    /// assert_eq!(Quantity::parse(" 1").unwrap_err().text(), " 1");
    /// ```
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Why the input was rejected.
    ///
    /// ```
    /// use karmada_interpreter::quantity::{Quantity, QuantityErrorReason};
    ///
    /// assert_eq!(Quantity::parse("Pi").unwrap_err().reason(), QuantityErrorReason::Numeric);
    /// ```
    pub fn reason(&self) -> QuantityErrorReason {
        self.reason
    }
}

/// How Go stores the number internally; only observable through
/// [`Quantity::value`], [`Quantity::milli_value`] and [`Quantity::as_approximate_f64`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GoRepr {
    /// `int64Amount{value, scale}`: value × 10^scale.
    Int { value: i64, scale: i32 },
    /// `inf.Dec` with this scale: unscaled = value × 10^scale (always an integer).
    Dec { scale: i32 },
}

impl GoRepr {
    /// The `inf.Dec` scale after Go's `ToDec()`.
    fn dec_scale(self) -> i32 {
        match self {
            GoRepr::Int { scale, .. } => scale.wrapping_neg(),
            GoRepr::Dec { scale } => scale,
        }
    }
}

/// A Kubernetes resource quantity (`resource.Quantity`).
///
/// Equality, ordering and hashing are numeric: `1000m == 1` and `2.048 == 2048m`
/// regardless of format or spelling.
///
/// ```
/// use karmada_interpreter::quantity::Quantity;
///
/// let a: Quantity = "1000m".parse().unwrap();
/// let b: Quantity = "1".parse().unwrap();
/// assert_eq!(a, b);
/// assert!(Quantity::parse("1Ki").unwrap() > Quantity::parse("1k").unwrap());
/// assert_eq!((a + b).to_string(), "2");
/// ```
#[derive(Clone, Debug)]
pub struct Quantity {
    value: Decimal,
    format: Format,
    repr: GoRepr,
    /// The parsed text, kept when Go's parser keeps it (emitted by `String()`).
    cached: Option<Box<str>>,
}

impl Quantity {
    /// The zero quantity (decimal SI, renders as `"0"`).
    ///
    /// Adding anything to a zero quantity yields that thing's format (Go `Add`).
    ///
    /// ```
    /// use karmada_interpreter::quantity::{Format, Quantity};
    ///
    /// let zero = Quantity::zero();
    /// assert!(zero.is_zero());
    /// assert_eq!(zero.to_string(), "0");
    /// let sum = zero + Quantity::parse("4Gi").unwrap();
    /// assert_eq!(sum.format(), Format::BinarySI);
    /// assert_eq!(sum.to_string(), "4Gi");
    /// ```
    pub fn zero() -> Quantity {
        Quantity {
            value: Decimal::default(),
            format: Format::DecimalSI,
            repr: GoRepr::Int { value: 0, scale: 0 },
            cached: None,
        }
    }

    /// Parses a quantity exactly like Go's `resource.ParseQuantity` (no trimming).
    ///
    /// Grammar: optional sign, digits with an optional `.` and fraction, then a suffix:
    /// decimal SI (`n u m "" k M G T P E`), binary SI (`Ki`…`Ei`) or `e`/`E` followed by a
    /// signed integer. Magnitudes finer than `1n` round up; binary-SI magnitudes are capped
    /// at 2^63−1. Go quirks kept on purpose: the digits may be missing on the fast path
    /// (`"."`, `"+"`, `"-"`, `"m"`, `"Ki"`, `"Ti"` parse as zero) while `"Pi"`/`"Ei"` fail
    /// with [`QuantityErrorReason::Numeric`]; an exponent is read as an `i64` and then
    /// truncated to 32 bits (`"1e4294967296"` is `1`). Values with more than 100000
    /// integer digits are rejected ([`QuantityErrorReason::OutOfRange`]).
    ///
    /// # Errors
    ///
    /// A [`QuantityError`] carrying `text` and the Go error kind (format, numeric part or
    /// suffix), or [`QuantityErrorReason::OutOfRange`].
    ///
    /// ```
    /// use karmada_interpreter::quantity::Quantity;
    ///
    /// assert_eq!(Quantity::parse("0.5").unwrap().to_string(), "500m");
    /// assert_eq!(Quantity::parse("0.0000000001").unwrap().to_string(), "1n");
    /// assert!(Quantity::parse("1.2.3").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Quantity, QuantityError> {
        parse_go(text).map_err(|reason| QuantityError::new(text, reason))
    }

    /// Decodes a quantity from JSON the way Kubernetes decodes an unstructured object
    /// into a typed one (`json.Marshal` of the value, then `Quantity.UnmarshalJSON`).
    ///
    /// * string: surrounding whitespace that Go's JSON encoder leaves unescaped (space,
    ///   U+0085, U+00A0 and the other Unicode spaces except U+2028/U+2029) is trimmed,
    ///   then the text is parsed; `"\t1"` therefore still fails;
    /// * number: an integer that fits `i64` is parsed from its decimal text; any other
    ///   number is a `float64` in Go and is parsed from Go's JSON text of that float
    ///   (shortest round-trip digits; exponent form `1e+21` / `1e-7` when
    ///   |x| ≥ 1e21 or |x| < 1e-6). So `1e3` → `1000` (decimal SI, renders `1k`) and `2.0`
    ///   → `2`;
    /// * null: zero;
    /// * anything else: [`QuantityErrorReason::NotStringOrNumber`].
    ///
    /// # Errors
    ///
    /// As [`Quantity::parse`] for strings and numbers (a non-finite number is
    /// [`QuantityErrorReason::OutOfRange`]); other JSON types are
    /// [`QuantityErrorReason::NotStringOrNumber`].
    ///
    /// ```
    /// use karmada_interpreter::quantity::Quantity;
    /// use serde_json::json;
    ///
    /// assert_eq!(Quantity::from_json(&json!("64Mi")).unwrap().to_string(), "64Mi");
    /// assert_eq!(Quantity::from_json(&json!(1.5)).unwrap().to_string(), "1500m");
    /// assert_eq!(Quantity::from_json(&json!(2)).unwrap().to_string(), "2");
    /// assert!(Quantity::from_json(&json!(true)).is_err());
    /// ```
    pub fn from_json(value: &serde_json::Value) -> Result<Quantity, QuantityError> {
        match value {
            serde_json::Value::Null => Ok(Quantity::zero()),
            serde_json::Value::String(s) => {
                let trimmed = s.trim_matches(is_go_json_unescaped_space);
                parse_go(trimmed).map_err(|reason| QuantityError::new(s.as_str(), reason))
            }
            serde_json::Value::Number(n) => {
                let text = match n.as_i64() {
                    Some(i) => i.to_string(),
                    None => match n.as_f64().and_then(go_json_float_text) {
                        Some(t) => t,
                        None => {
                            return Err(QuantityError::new(
                                n.to_string(),
                                QuantityErrorReason::OutOfRange,
                            ))
                        }
                    },
                };
                parse_go(&text).map_err(|reason| QuantityError::new(n.to_string(), reason))
            }
            other => Err(QuantityError::new(
                other.to_string(),
                QuantityErrorReason::NotStringOrNumber,
            )),
        }
    }

    /// `v / 1000` in the given format (Go `NewMilliQuantity`).
    ///
    /// ```
    /// use karmada_interpreter::quantity::{Format, Quantity};
    ///
    /// assert_eq!(Quantity::from_milli(2100, Format::DecimalSI).to_string(), "2100m");
    /// assert_eq!(Quantity::from_milli(2000, Format::DecimalSI).to_string(), "2");
    /// ```
    pub fn from_milli(v: i64, format: Format) -> Quantity {
        Quantity {
            value: Decimal::from_i64_scaled(v, -3),
            format,
            repr: GoRepr::Int {
                value: v,
                scale: -3,
            },
            cached: None,
        }
    }

    /// `v` in the given format (Go `NewQuantity`).
    ///
    /// ```
    /// use karmada_interpreter::quantity::{Format, Quantity};
    ///
    /// assert_eq!(Quantity::from_int(1_073_741_824, Format::BinarySI).to_string(), "1Gi");
    /// assert_eq!(Quantity::from_int(1_000_000_000, Format::BinarySI).to_string(), "1000000000");
    /// assert_eq!(Quantity::from_int(1000, Format::BinarySI).to_string(), "1k");
    /// assert_eq!(Quantity::from_int(1000, Format::DecimalSI).to_string(), "1k");
    /// ```
    pub fn from_int(v: i64, format: Format) -> Quantity {
        Quantity {
            value: Decimal::from_i64_scaled(v, 0),
            format,
            repr: GoRepr::Int { value: v, scale: 0 },
            cached: None,
        }
    }

    /// Exact sum, following Go's `Add`: the result keeps the format of `self`, except that
    /// a zero `self` takes the format of `other` (so summing from [`Quantity::zero`] takes
    /// the first non-zero term's format). The parsed spelling is dropped, so the result
    /// always displays canonically. Returns `None` only if the sum has more than 100000
    /// integer digits. The `+` operator is the same without the range check.
    ///
    /// ```
    /// use karmada_interpreter::quantity::Quantity;
    ///
    /// let q = |s: &str| Quantity::parse(s).unwrap();
    /// assert_eq!(q("1Gi").checked_add(&q("512Mi")).unwrap().to_string(), "1536Mi");
    /// assert_eq!(q("1").checked_add(&q("500m")).unwrap().to_string(), "1500m");
    /// assert_eq!(q("1Gi").checked_add(&q("1G")).unwrap().to_string(), "2073741824");
    /// assert_eq!(q("0").checked_add(&q("4Gi")).unwrap().to_string(), "4Gi");
    /// ```
    pub fn checked_add(&self, other: &Quantity) -> Option<Quantity> {
        let sum = self.add_unchecked(other);
        sum.value.in_range().then_some(sum)
    }

    fn add_unchecked(&self, other: &Quantity) -> Quantity {
        let format = if self.value.is_zero() {
            other.format
        } else {
            self.format
        };
        let repr = match (self.repr, other.repr) {
            (
                GoRepr::Int {
                    value: av,
                    scale: ascale,
                },
                GoRepr::Int {
                    value: bv,
                    scale: bscale,
                },
            ) => match int_amount_add(av, ascale, bv, bscale) {
                Some((value, scale)) => GoRepr::Int { value, scale },
                None => GoRepr::Dec {
                    scale: ascale.wrapping_neg().max(bscale.wrapping_neg()),
                },
            },
            (a, b) => GoRepr::Dec {
                scale: a.dec_scale().max(b.dec_scale()),
            },
        };
        Quantity {
            value: self.value.add(&other.value),
            format,
            repr,
            cached: None,
        }
    }

    /// Exact product with an integer, keeping the format (Go `Mul`). Returns `None` only
    /// if the product has more than 100000 integer digits.
    ///
    /// ```
    /// use karmada_interpreter::quantity::Quantity;
    ///
    /// let q = Quantity::parse("250m").unwrap();
    /// assert_eq!(q.checked_mul_int(6).unwrap().to_string(), "1500m");
    /// assert_eq!(Quantity::parse("512Mi").unwrap().checked_mul_int(2).unwrap().to_string(), "1Gi");
    /// ```
    pub fn checked_mul_int(&self, k: i64) -> Option<Quantity> {
        let value = self.value.mul_i64(k);
        if !value.in_range() {
            return None;
        }
        let repr = match self.repr {
            GoRepr::Int { value: v, scale: s } => match int_amount_mul(v, s, k) {
                Some((value, scale)) => GoRepr::Int { value, scale },
                None => GoRepr::Dec {
                    scale: s.wrapping_neg(),
                },
            },
            dec => dec,
        };
        Some(Quantity {
            value,
            format: self.format,
            repr,
            cached: None,
        })
    }

    /// Whether the value is zero.
    ///
    /// ```
    /// use karmada_interpreter::quantity::Quantity;
    ///
    /// assert!(Quantity::parse("0Mi").unwrap().is_zero());
    /// assert!(!Quantity::parse("1n").unwrap().is_zero());
    /// ```
    pub fn is_zero(&self) -> bool {
        self.value.is_zero()
    }

    /// −1, 0 or 1 according to the sign of the value (Go `Sign`).
    ///
    /// ```
    /// use karmada_interpreter::quantity::Quantity;
    ///
    /// assert_eq!(Quantity::parse("-1.5").unwrap().sign(), -1);
    /// assert_eq!(Quantity::parse("0").unwrap().sign(), 0);
    /// assert_eq!(Quantity::parse("3Ki").unwrap().sign(), 1);
    /// ```
    pub fn sign(&self) -> i32 {
        self.value.signum()
    }

    /// The format used for rendering (and kept by additions to a non-zero left operand).
    ///
    /// Note: a binary-SI text whose value is strictly between −1 and 1 parses as decimal SI
    /// (`".000001Ki"`), as in Go.
    ///
    /// ```
    /// use karmada_interpreter::quantity::{Format, Quantity};
    ///
    /// assert_eq!(Quantity::parse("1.5Gi").unwrap().format(), Format::BinarySI);
    /// assert_eq!(Quantity::parse(".000001Ki").unwrap().format(), Format::DecimalSI);
    /// ```
    pub fn format(&self) -> Format {
        self.format
    }

    /// `ceil(q × 1000)`, saturated to `i64::MIN..=i64::MAX` (used for CPU millicores).
    ///
    /// This is the exact mathematical ceiling. Go's `MilliValue()` differs on overflow
    /// and for some negative fractions; see [`Quantity::milli_value`] for that behavior.
    ///
    /// ```
    /// use karmada_interpreter::quantity::Quantity;
    ///
    /// assert_eq!(Quantity::parse("250m").unwrap().milli_value_ceil(), 250);
    /// assert_eq!(Quantity::parse("1.0001m").unwrap().milli_value_ceil(), 2);
    /// assert_eq!(Quantity::parse("1E").unwrap().milli_value_ceil(), i64::MAX);
    /// ```
    pub fn milli_value_ceil(&self) -> i64 {
        self.value.ceil_scaled_saturating(3)
    }

    /// `ceil(q)`, saturated to `i64::MIN..=i64::MAX` (used for bytes and counts).
    ///
    /// This is the exact mathematical ceiling; see [`Quantity::value`] for Go's `Value()`.
    ///
    /// ```
    /// use karmada_interpreter::quantity::Quantity;
    ///
    /// assert_eq!(Quantity::parse("1.5").unwrap().value_ceil(), 2);
    /// assert_eq!(Quantity::parse("64Mi").unwrap().value_ceil(), 67_108_864);
    /// assert_eq!(Quantity::parse("-1.5").unwrap().value_ceil(), -1);
    /// ```
    pub fn value_ceil(&self) -> i64 {
        self.value.ceil_scaled_saturating(0)
    }

    /// Go's `Value()` reproduced exactly, quirks included: non-integral values round away
    /// from zero when the quantity came from the fast parse path, or to `trunc + 1` when it
    /// is held as `inf.Dec`; results that do not fit `i64` come out as `0` or wrapped
    /// modulo 2^64 depending on the internal representation (e.g. `"10E"` → 0).
    /// Identical to [`Quantity::value_ceil`] for every non-negative value below 2^63.
    ///
    /// ```
    /// use karmada_interpreter::quantity::Quantity;
    ///
    /// assert_eq!(Quantity::parse("1.5").unwrap().value(), 2);
    /// assert_eq!(Quantity::parse("-1.5").unwrap().value(), -2);
    /// assert_eq!(Quantity::parse("10E").unwrap().value(), 0);
    /// ```
    pub fn value(&self) -> i64 {
        self.go_scaled_value(0)
    }

    /// Go's `MilliValue()` reproduced exactly (same rules as [`Quantity::value`]), which is
    /// what Kubernetes and Karmada use to measure CPU requests.
    ///
    /// ```
    /// use karmada_interpreter::quantity::Quantity;
    ///
    /// assert_eq!(Quantity::parse("0.1").unwrap().milli_value(), 100);
    /// assert_eq!(Quantity::parse("1.5m").unwrap().milli_value(), 2);
    /// assert_eq!(Quantity::parse("1E").unwrap().milli_value(), 0);
    /// ```
    pub fn milli_value(&self) -> i64 {
        self.go_scaled_value(-3)
    }

    /// Go's `AsApproximateFloat64()`: the internal unscaled integer (as `f64`) times
    /// `math.Pow10(exponent)`, including its table-based powers of ten (negative powers are
    /// `1/10^|e|`), so e.g. `"2048m"` gives `2048.0 * (1.0 / 1000.0)`.
    ///
    /// ```
    /// use karmada_interpreter::quantity::Quantity;
    ///
    /// assert_eq!(Quantity::parse("1Gi").unwrap().as_approximate_f64(), 1073741824.0);
    /// assert_eq!(Quantity::parse("2G").unwrap().as_approximate_f64(), 2e9);
    /// assert_eq!(Quantity::parse("2048m").unwrap().as_approximate_f64(), 2048.0 * (1.0 / 1000.0));
    /// ```
    pub fn as_approximate_f64(&self) -> f64 {
        let (base, exponent) = match self.repr {
            GoRepr::Int { value, scale } => (value as f64, i64::from(scale)),
            GoRepr::Dec { scale } => {
                let base = if self.value.is_zero() {
                    0.0
                } else {
                    let q = self.value.exp.saturating_add(i64::from(scale));
                    let sign = if self.value.neg { "-" } else { "" };
                    // Rust's float parsing rounds correctly, like big.Float → float64.
                    format!("{sign}{}e{q}", self.value.mag)
                        .parse::<f64>()
                        .unwrap_or(f64::NAN)
                };
                (base, i64::from(scale.wrapping_neg()))
            }
        };
        if exponent == 0 {
            base
        } else {
            base * go_pow10(exponent)
        }
    }

    /// The canonical text of the value in its format (Go `CanonicalizeBytes`).
    ///
    /// * zero → `"0"`;
    /// * binary SI with −1024 < v < 1024, or not a whole number → rendered as decimal SI;
    ///   otherwise v is divided by 1024 while it stays whole (at most 6 times) and suffixed
    ///   `Ki`…`Ei`;
    /// * decimal SI / exponent: v = m × 10^e with the largest e, e lowered to a multiple of
    ///   3, then the SI suffix for e (or `e<e>`, nothing for 0). Go quirk kept: a decimal-SI
    ///   exponent above 18 has no suffix in Go's table and is printed without one (so
    ///   `"2000E"` renders `"2"`).
    ///
    /// [`Display`](fmt::Display) differs only in that, like Go's `String()`, it re-emits
    /// the parsed text when Go's parser judged it canonical: on the fast path, decimal text
    /// whose scale is a multiple of 3, whose digits do not end in `000` and do not start
    /// with `0`, and binary text whose number is not a multiple of 8. That keeps spellings
    /// such as `"+1"`, `"01"`, `"1."`, `"1.500"` or `"1E3"` verbatim.
    ///
    /// ```
    /// use karmada_interpreter::quantity::Quantity;
    ///
    /// let q = |s: &str| Quantity::parse(s).unwrap();
    /// assert_eq!(q("2048Ki").to_canonical_string(), "2Mi");
    /// assert_eq!(q("1000").to_canonical_string(), "1k");
    /// assert_eq!(q("1.5Ki").to_canonical_string(), "1536");
    /// assert_eq!(q("1.500").to_canonical_string(), "1500m");
    /// assert_eq!(q("1.500").to_string(), "1.500");
    /// ```
    pub fn to_canonical_string(&self) -> String {
        let v = &self.value;
        if v.is_zero() {
            return "0".to_string();
        }
        let sign = if v.neg { "-" } else { "" };
        let mut format = self.format;
        if format == Format::BinarySI
            && (v.cmp_abs(&Decimal::from_i64_scaled(1024, 0)) == Ordering::Less || !v.is_integer())
        {
            format = Format::DecimalSI;
        }
        if format == Format::BinarySI {
            let mut n = v.integer_magnitude();
            let mut k = 0;
            while k < 6 {
                let mut divided = n.clone();
                if divided.div_small(1024) != 0 {
                    break;
                }
                n = divided;
                k += 1;
            }
            const BINARY: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
            return format!("{sign}{n}{}", BINARY[k]);
        }
        let mut mantissa = v.mag.clone();
        let mut exp = v.exp;
        let r = exp.rem_euclid(3);
        if r > 0 {
            mantissa.mul_small(POW10_U64[r as usize]);
            exp -= r;
        }
        let suffix = match format {
            Format::DecimalExponent if exp == 0 => String::new(),
            Format::DecimalExponent => format!("e{exp}"),
            _ => match exp {
                -9 => "n",
                -6 => "u",
                -3 => "m",
                3 => "k",
                6 => "M",
                9 => "G",
                12 => "T",
                15 => "P",
                18 => "E",
                _ => "", // 0, or a pair missing from Go's suffix table
            }
            .to_string(),
        };
        format!("{sign}{mantissa}{suffix}")
    }

    fn go_scaled_value(&self, scale: i32) -> i64 {
        match self.repr {
            GoRepr::Int { value, scale: s } => {
                if s < scale {
                    negative_scale_i64(value, scale.wrapping_sub(s)).0
                } else {
                    positive_scale_i64(value, s.wrapping_sub(scale)).0
                }
            }
            GoRepr::Dec { scale: dec_scale } => self.dec_scaled_value(dec_scale, -scale),
        }
    }

    /// Go's `scaledValue(unscaled, scale, newScale)` for an `inf.Dec`.
    fn dec_scaled_value(&self, scale: i32, new_scale: i32) -> i64 {
        let v = &self.value;
        if v.is_zero() {
            return 0;
        }
        let signed = |magnitude: u64| {
            let x = magnitude as i64;
            if v.neg {
                x.wrapping_neg()
            } else {
                x
            }
        };
        let dif = i64::from(scale) - i64::from(new_scale);
        // unscaled = v × 10^scale; the wanted quantity is unscaled / 10^dif = v × 10^new_scale.
        if dif <= 0 {
            // big.Int.Int64() of (unscaled × 10^-dif): the low 64 bits.
            return signed(v.scaled_magnitude_low64(i64::from(new_scale)).0);
        }
        let unscaled_below_max = v.neg || {
            let (low, _) = v.scaled_magnitude_low64(i64::from(scale));
            v.integer_digits().saturating_add(i64::from(scale)) <= 19 && low < i64::MAX as u64
        };
        if unscaled_below_max && dif < 19 {
            // Go: int64 arithmetic on unscaled.Int64() (wrapping for huge negatives).
            let u = signed(v.scaled_magnitude_low64(i64::from(scale)).0);
            let divisor = POW10_U64[dif as usize] as i64;
            let (q, r) = (u / divisor, u % divisor);
            return if r != 0 { q + 1 } else { q };
        }
        let (low, inexact) = v.scaled_magnitude_low64(i64::from(new_scale));
        let q = signed(low);
        if inexact {
            q.wrapping_add(1)
        } else {
            q
        }
    }
}

impl Default for Quantity {
    /// Same as [`Quantity::zero`].
    fn default() -> Quantity {
        Quantity::zero()
    }
}

impl PartialEq for Quantity {
    fn eq(&self, other: &Quantity) -> bool {
        self.value == other.value
    }
}

impl Eq for Quantity {}

impl Hash for Quantity {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.value.hash(state);
    }
}

impl PartialOrd for Quantity {
    fn partial_cmp(&self, other: &Quantity) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Quantity {
    fn cmp(&self, other: &Quantity) -> Ordering {
        self.value.cmp_value(&other.value)
    }
}

impl Add for Quantity {
    type Output = Quantity;

    /// Exact sum with Go `Add` format rules (see [`Quantity::checked_add`]).
    fn add(self, other: Quantity) -> Quantity {
        self.add_unchecked(&other)
    }
}

impl Add<&Quantity> for &Quantity {
    type Output = Quantity;

    /// Exact sum with Go `Add` format rules (see [`Quantity::checked_add`]).
    fn add(self, other: &Quantity) -> Quantity {
        self.add_unchecked(other)
    }
}

impl AddAssign<&Quantity> for Quantity {
    fn add_assign(&mut self, other: &Quantity) {
        *self = self.add_unchecked(other);
    }
}

impl Sum for Quantity {
    /// Sums from [`Quantity::zero`], like Karmada's `kube.resourceAdd`.
    fn sum<I: Iterator<Item = Quantity>>(iter: I) -> Quantity {
        iter.fold(Quantity::zero(), |acc, q| acc.add_unchecked(&q))
    }
}

impl<'a> Sum<&'a Quantity> for Quantity {
    /// Sums from [`Quantity::zero`], like Karmada's `kube.resourceAdd`.
    fn sum<I: Iterator<Item = &'a Quantity>>(iter: I) -> Quantity {
        iter.fold(Quantity::zero(), |acc, q| acc.add_unchecked(q))
    }
}

impl FromStr for Quantity {
    type Err = QuantityError;

    fn from_str(s: &str) -> Result<Quantity, QuantityError> {
        Quantity::parse(s)
    }
}

impl fmt::Display for Quantity {
    /// Go's `String()`: the parsed text when Go kept it, otherwise
    /// [`Quantity::to_canonical_string`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.cached {
            Some(text) => f.write_str(text),
            None => f.write_str(&self.to_canonical_string()),
        }
    }
}

impl Serialize for Quantity {
    /// A JSON string holding the [`Display`](fmt::Display) text (Go `MarshalJSON`).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Quantity {
    /// A string, a number or null, decoded as by [`Quantity::from_json`].
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Quantity, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        Quantity::from_json(&value).map_err(serde::de::Error::custom)
    }
}

// ---------------------------------------------------------------------------------------
// Parsing (Go parseQuantityString + ParseQuantity).
// ---------------------------------------------------------------------------------------

struct Lexed<'a> {
    positive: bool,
    /// Sign and numeric text, as handed to `inf.Dec.SetString` on the exact path.
    value: &'a [u8],
    /// Integer digits without leading zeros (`"0"` when none remain).
    num: &'a [u8],
    denom: &'a [u8],
    suffix: &'a [u8],
}

fn lex(s: &[u8]) -> Result<Lexed<'_>, QuantityErrorReason> {
    let end = s.len();
    let mut positive = true;
    let mut pos = 0;
    match s.first() {
        Some(b'-') => {
            positive = false;
            pos = 1;
        }
        Some(b'+') => pos = 1,
        _ => {}
    }
    // Leading zeros; a text made only of them (or empty after the sign) is zero.
    while pos < end && s[pos] == b'0' {
        pos += 1;
    }
    if pos >= end {
        return Ok(Lexed {
            positive,
            value: b"0",
            num: b"0",
            denom: b"",
            suffix: b"",
        });
    }
    let num_start = pos;
    let mut i = pos;
    while i < end && s[i].is_ascii_digit() {
        i += 1;
    }
    if i >= end {
        return Ok(Lexed {
            positive,
            value: s,
            num: &s[num_start..],
            denom: b"",
            suffix: b"",
        });
    }
    let mut num = &s[num_start..i];
    pos = i;
    if num.is_empty() {
        num = b"0";
    }
    let mut denom: &[u8] = b"";
    if s[pos] == b'.' {
        pos += 1;
        let denom_start = pos;
        let mut i = pos;
        while i < end && s[i].is_ascii_digit() {
            i += 1;
        }
        if i >= end {
            return Ok(Lexed {
                positive,
                value: s,
                num,
                denom: &s[denom_start..],
                suffix: b"",
            });
        }
        denom = &s[denom_start..i];
        pos = i;
    }
    let value = &s[..pos];
    let suffix_start = pos;
    let done = |suffix| {
        Ok(Lexed {
            positive,
            value,
            num,
            denom,
            suffix,
        })
    };
    let mut i = pos;
    loop {
        if i >= end {
            return done(&s[suffix_start..]);
        }
        if !b"eEinumkKMGTP".contains(&s[i]) {
            pos = i;
            break;
        }
        i += 1;
    }
    if pos < end && (s[pos] == b'-' || s[pos] == b'+') {
        pos += 1;
    }
    let mut i = pos;
    loop {
        if i >= end {
            return done(&s[suffix_start..]);
        }
        if !s[i].is_ascii_digit() {
            break;
        }
        i += 1;
    }
    Err(QuantityErrorReason::FormatWrong)
}

/// Go's suffixer: (base, exponent, format).
fn interpret_suffix(suffix: &[u8]) -> Option<(u32, i32, Format)> {
    let decimal = |e| Some((10, e, Format::DecimalSI));
    let binary = |e| Some((2, e, Format::BinarySI));
    match suffix {
        b"" => decimal(0),
        b"n" => decimal(-9),
        b"u" => decimal(-6),
        b"m" => decimal(-3),
        b"k" => decimal(3),
        b"M" => decimal(6),
        b"G" => decimal(9),
        b"T" => decimal(12),
        b"P" => decimal(15),
        b"E" => decimal(18),
        b"Ki" => binary(10),
        b"Mi" => binary(20),
        b"Gi" => binary(30),
        b"Ti" => binary(40),
        b"Pi" => binary(50),
        b"Ei" => binary(60),
        [b'e' | b'E', rest @ ..] if !rest.is_empty() => {
            // strconv.ParseInt(rest, 10, 64), then int32(...) truncation.
            let parsed: i64 = std::str::from_utf8(rest).ok()?.parse().ok()?;
            Some((10, parsed as i32, Format::DecimalExponent))
        }
        _ => None,
    }
}

fn parse_go(text: &str) -> Result<Quantity, QuantityErrorReason> {
    if text.is_empty() {
        return Err(QuantityErrorReason::FormatWrong);
    }
    if text == "0" {
        return Ok(Quantity {
            cached: Some("0".into()),
            ..Quantity::zero()
        });
    }
    let lexed = lex(text.as_bytes())?;
    let (base, exponent, format) =
        interpret_suffix(lexed.suffix).ok_or(QuantityErrorReason::Suffix)?;

    let (num, denom) = (lexed.num, lexed.denom);
    let mut scale: i32 = 0;
    let mut mantissa: i64 = 1;
    let precision: i64 = match format {
        Format::DecimalSI | Format::DecimalExponent => {
            scale = exponent;
            18 - (num.len() as i64 + denom.len() as i64)
        }
        Format::BinarySI => {
            if exponent >= 0 && denom.is_empty() {
                mantissa = 1i64.checked_shl(exponent as u32).unwrap_or(0);
                15 - num.len() as i64 - i64::from(exponent) * 3 / 10 - 1
            } else {
                -1
            }
        }
    };

    if precision >= 0 {
        scale = scale.wrapping_sub(denom.len() as i32);
        if scale >= -9 {
            let shifted: Vec<u8> = num.iter().chain(denom).copied().collect();
            let value = shifted
                .iter()
                .try_fold(0i64, |acc, &c| {
                    acc.checked_mul(10)?
                        .checked_add(i64::from(c.wrapping_sub(b'0')))
                })
                .ok_or(QuantityErrorReason::Numeric)?;
            if let Some(result) = value.checked_mul(mantissa) {
                let result = if lexed.positive {
                    result
                } else {
                    result.wrapping_neg()
                };
                let keep_text = match format {
                    Format::BinarySI => exponent % 10 == 0 && value & 0x07 != 0,
                    _ => {
                        scale % 3 == 0
                            && !shifted.ends_with(b"000")
                            && shifted.first() != Some(&b'0')
                    }
                };
                let value = Decimal::from_i64_scaled(result, i64::from(scale));
                if !value.in_range() {
                    return Err(QuantityErrorReason::OutOfRange);
                }
                return Ok(Quantity {
                    value,
                    format,
                    repr: GoRepr::Int {
                        value: result,
                        scale,
                    },
                    cached: keep_text.then(|| text.into()),
                });
            }
        }
    }

    // Exact path (inf.Dec).
    if !lexed.value.iter().any(u8::is_ascii_digit) {
        return Err(QuantityErrorReason::Numeric);
    }
    let digits: Vec<u8> = num.iter().chain(denom).copied().collect();
    let significant = match digits.iter().position(|&c| c != b'0') {
        Some(first) => &digits[first..],
        None => &[][..],
    };
    let negative = !lexed.positive;
    if base == 10 {
        let dec_scale = (denom.len() as i32).wrapping_add(exponent.wrapping_neg());
        if significant.is_empty() {
            return Ok(zero_with(format, dec_scale));
        }
        let last_digit_exp = -i64::from(dec_scale);
        if significant.len() as i64 + last_digit_exp > MAX_INTEGER_DIGITS {
            return Err(QuantityErrorReason::OutOfRange);
        }
        let magnitude = round_up_to_nano(significant, last_digit_exp, 1);
        let value = Decimal::new(negative, magnitude.mag, magnitude.exp);
        if !value.in_range() {
            return Err(QuantityErrorReason::OutOfRange);
        }
        return Ok(Quantity {
            value,
            format,
            repr: GoRepr::Dec { scale: 9 },
            cached: None,
        });
    }

    // Binary suffix on the exact path: digits × 2^exponent / 10^len(denom).
    if significant.is_empty() {
        return Ok(zero_with(format, denom.len() as i32));
    }
    let cap = Decimal::from_i64_scaled(i64::MAX, 0);
    let capped = Quantity {
        value: Decimal {
            neg: negative,
            ..cap.clone()
        },
        format,
        repr: GoRepr::Dec { scale: 0 },
        cached: None,
    };
    if significant.len() as i64 - denom.len() as i64 > 20 {
        return Ok(capped); // at least 10^20 > 2^63 - 1
    }
    let multiplier = 1u64.checked_shl(exponent as u32).unwrap_or(0);
    let magnitude = round_up_to_nano(significant, -(denom.len() as i64), multiplier);
    if magnitude.cmp_abs(&cap) == Ordering::Greater {
        return Ok(capped);
    }
    let below_one = magnitude.cmp_abs(&Decimal::from_i64_scaled(1, 0)) == Ordering::Less;
    Ok(Quantity {
        value: Decimal {
            neg: negative,
            ..magnitude
        },
        format: if below_one { Format::DecimalSI } else { format },
        repr: GoRepr::Dec { scale: 9 },
        cached: None,
    })
}

fn zero_with(format: Format, dec_scale: i32) -> Quantity {
    Quantity {
        value: Decimal::default(),
        format,
        repr: GoRepr::Dec { scale: dec_scale },
        cached: None,
    }
}

/// `ceil(digits × multiplier × 10^last_digit_exp)` to a multiple of 10^-9, as a
/// non-negative normalized decimal. `digits` is non-empty, without leading zeros, and
/// `multiplier` ≤ 2^60.
fn round_up_to_nano(digits: &[u8], last_digit_exp: i64, multiplier: u64) -> Decimal {
    if last_digit_exp >= -9 {
        let mut mag = Nat::from_digits(digits);
        mag.mul_small(multiplier);
        return Decimal::new(false, mag, last_digit_exp);
    }
    // Drop `drop` decimal places. Digits far below the last kept one only matter through a
    // sticky "non-zero" bit: with at least 64 extra places kept (64 ≥ log2(multiplier)),
    // ceil((hi × m + sticky) / 10^64) equals the exact ceiling.
    let drop = last_digit_exp.unsigned_abs() - 9;
    const GUARD: u64 = 64;
    let (mut x, places) = if drop > GUARD {
        let cut = drop - GUARD;
        if cut >= digits.len() as u64 {
            (Nat::from_u128(1), GUARD)
        } else {
            let keep = digits.len() - cut as usize;
            let sticky = digits[keep..].iter().any(|&c| c != b'0');
            let mut x = Nat::from_digits(&digits[..keep]);
            x.mul_small(multiplier);
            if sticky {
                x.add_small(1);
            }
            (x, GUARD)
        }
    } else {
        let mut x = Nat::from_digits(digits);
        x.mul_small(multiplier);
        (x, drop)
    };
    if x.div_pow10(places as usize) {
        x.add_small(1);
    }
    Decimal::new(false, x, -9)
}

// ---------------------------------------------------------------------------------------
// Go integer helpers (apimachinery amount.go / math.go).
// ---------------------------------------------------------------------------------------

/// Go `int64MultiplyScale` (and its ×10/×100/×1000 variants): wrapped product + ok flag.
fn go_mul_scale(a: i64, b: i64) -> (i64, bool) {
    if a == 0 || a == 1 {
        return (a * b, true);
    }
    if a == i64::MIN && b != 1 {
        return (0, false);
    }
    let c = a.wrapping_mul(b);
    (c, c.wrapping_div(b) == a)
}

/// Go `positiveScaleInt64`: note the asymmetric overflow results (wrapped product for
/// scales 1, 2, 3, 6, 9; zero otherwise).
fn positive_scale_i64(base: i64, scale: i32) -> (i64, bool) {
    match scale {
        0 => (base, true),
        1 => go_mul_scale(base, 10),
        2 => go_mul_scale(base, 100),
        3 => go_mul_scale(base, 1_000),
        6 => go_mul_scale(base, 1_000_000),
        9 => go_mul_scale(base, 1_000_000_000),
        _ => {
            let mut value = base;
            let mut i = 0;
            while i < scale {
                if value == 0 {
                    break; // stays zero for the remaining iterations
                }
                let (v, ok) = go_mul_scale(value, 10);
                if !ok {
                    return (0, false);
                }
                value = v;
                i += 1;
            }
            (value, true)
        }
    }
}

/// Go `negativeScaleInt64`: divide by 10^scale rounding away from zero.
fn negative_scale_i64(base: i64, scale: i32) -> (i64, bool) {
    if scale == 0 {
        return (base, true);
    }
    let mut value = base;
    let mut fraction = false;
    let mut i = 0;
    while i < scale {
        if !fraction && value % 10 != 0 {
            fraction = true;
        }
        value /= 10;
        if value == 0 {
            if fraction {
                return (if base > 0 { 1 } else { -1 }, false);
            }
            return (0, true);
        }
        i += 1;
    }
    if fraction {
        if base > 0 {
            value += 1;
        } else {
            value -= 1;
        }
    }
    (value, !fraction)
}

/// Go `int64Amount.Add`; `None` when Go falls back to `inf.Dec`.
fn int_amount_add(av: i64, ascale: i32, bv: i64, bscale: i32) -> Option<(i64, i32)> {
    if bv == 0 {
        return Some((av, ascale));
    }
    if av == 0 {
        return Some((bv, bscale));
    }
    if ascale == bscale {
        Some((av.checked_add(bv)?, ascale))
    } else if ascale > bscale {
        let (c, ok) = positive_scale_i64(av, ascale.wrapping_sub(bscale));
        ok.then_some(())?;
        Some((c.checked_add(bv)?, bscale))
    } else {
        let (c, ok) = positive_scale_i64(bv, bscale.wrapping_sub(ascale));
        ok.then_some(())?;
        Some((av.checked_add(c)?, ascale))
    }
}

/// Go `int64Amount.Mul`; `None` when Go falls back to `inf.Dec`.
fn int_amount_mul(v: i64, scale: i32, k: i64) -> Option<(i64, i32)> {
    if v == 0 {
        return Some((v, scale));
    }
    if k == 0 {
        return Some((0, 0));
    }
    let c = v.checked_mul(k)?;
    let ok = match scale.cmp(&0) {
        Ordering::Equal => true,
        Ordering::Greater => positive_scale_i64(c, scale).1,
        Ordering::Less => negative_scale_i64(c, scale.wrapping_neg()).1,
    };
    ok.then_some((c, scale))
}

/// Go `math.Pow10`, table-driven exactly like the Go implementation.
fn go_pow10(n: i64) -> f64 {
    const TAB: [f64; 32] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31,
    ];
    const POS32: [f64; 10] = [
        1e0, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288,
    ];
    const NEG32: [f64; 11] = [
        1e-0, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320,
    ];
    if (0..=308).contains(&n) {
        let n = n as usize;
        POS32[n / 32] * TAB[n % 32]
    } else if (-323..=0).contains(&n) {
        let m = n.unsigned_abs() as usize;
        NEG32[m / 32] / TAB[m % 32]
    } else if n > 0 {
        f64::INFINITY
    } else {
        0.0
    }
}

/// Whitespace that Go's `strings.TrimSpace` removes and `encoding/json` does not escape.
fn is_go_json_unescaped_space(c: char) -> bool {
    c.is_whitespace()
        && !matches!(
            c,
            '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | '\u{2028}' | '\u{2029}'
        )
}

/// Go `encoding/json` text of a float64: shortest round-trip digits, exponent form
/// (`1e+21`, `1e-7`) when |x| < 1e-6 or |x| ≥ 1e21.
fn go_json_float_text(x: f64) -> Option<String> {
    if !x.is_finite() {
        return None;
    }
    let abs = x.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let text = format!("{x:e}");
        let (mantissa, exp) = text.split_once('e')?;
        if exp.starts_with('-') {
            Some(format!("{mantissa}e{exp}"))
        } else {
            Some(format!("{mantissa}e+{exp}"))
        }
    } else {
        Some(format!("{x}"))
    }
}

// ---------------------------------------------------------------------------------------
// Tests.
// ---------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn q(s: &str) -> Quantity {
        match Quantity::parse(s) {
            Ok(q) => q,
            Err(e) => panic!("{s:?} should parse: {e}"),
        }
    }

    fn shown(s: &str) -> String {
        q(s).to_string()
    }

    fn canon(s: &str) -> String {
        q(s).to_canonical_string()
    }

    fn reason(s: &str) -> QuantityErrorReason {
        match Quantity::parse(s) {
            Ok(v) => panic!("{s:?} should fail, got {v}"),
            Err(e) => e.reason(),
        }
    }

    #[test]
    fn canonical_examples_from_the_spec() {
        for (input, expected) in [
            ("1000m", "1"),
            ("0.5", "500m"),
            ("2048Ki", "2Mi"),
            ("1000", "1k"),
            ("1500", "1500"),
            ("1.5", "1500m"),
            ("2000m", "2"),
            ("0.1", "100m"),
            ("110", "110"),
            ("1e3", "1e3"),
            ("1.5Gi", "1536Mi"),
            ("1024", "1024"),
            ("100m", "100m"),
            ("1073741824", "1073741824"),
            ("1Gi", "1Gi"),
            ("1024Mi", "1Gi"),
            ("1000M", "1G"),
            ("1.5Ki", "1536"),
            ("0.5Gi", "512Mi"),
            ("0.5Mi", "512Ki"),
            ("0.0000000001", "1n"),
            ("9223372036854775807", "9223372036854775807"),
            ("1E", "1E"),
            ("8Ei", "9223372036854775807"),
            ("-1.5", "-1500m"),
            ("0", "0"),
            ("-0", "0"),
            ("0Ki", "0"),
            ("12E", "12E"),
            ("1Ki", "1Ki"),
            ("1Ei", "1Ei"),
        ] {
            assert_eq!(shown(input), expected, "display of {input:?}");
        }
    }

    #[test]
    fn canonical_rendering_matches_apimachinery_tests() {
        for (input, expected) in [
            (".001Ki", "1024m"),
            (".000001Ki", "1024u"),
            (".000000001Ki", "1024n"),
            (".000000000001Ki", "2n"),
            ("100.035Ki", "102435840m"),
            ("3.001n", "4n"),
            ("1.1E-9", "2e-9"),
            ("0.9n", "1n"),
            ("0.00000012345", "124n"),
            ("1e4", "10e3"),
            ("1.2e3", "1200"),
            ("1.3E+6", "1300e3"),
            ("1e-3", "1e-3"),
            ("0.5e-1", "50e-3"),
            ("1001Gi", "1001Gi"),
            ("1025Ki", "1025Ki"),
            ("9Ei", "9223372036854775807"),
            ("9223372036854775807Ki", "9223372036854775807"),
            ("-8Ei", "-9223372036854775807"),
            ("-1024", "-1024"),
            ("10800e-4", "1080e-3"),
            ("2.1E", "2100P"),
            ("6.987654321G", "6987654321"),
        ] {
            assert_eq!(canon(input), expected, "canonical of {input:?}");
        }
        assert_eq!(
            Quantity::from_int(-1024, Format::BinarySI).to_string(),
            "-1Ki"
        );
        assert_eq!(
            Quantity::from_int(1025, Format::BinarySI).to_string(),
            "1025"
        );
        assert_eq!(Quantity::from_int(512, Format::BinarySI).to_string(), "512");
        assert_eq!(
            Quantity::from_milli(1_234_567, Format::BinarySI).to_string(),
            "1234567m"
        );
        assert_eq!(
            Quantity::from_milli(2100, Format::DecimalExponent).to_string(),
            "2100e-3"
        );
        // Go has no decimal-SI suffix above E and prints none.
        assert_eq!(shown("2000E"), "2");
        assert_eq!(shown("1500E"), "1500E");
    }

    #[test]
    fn formats() {
        assert_eq!(q("1").format(), Format::DecimalSI);
        assert_eq!(q("1n").format(), Format::DecimalSI);
        assert_eq!(q("1Ti").format(), Format::BinarySI);
        assert_eq!(q("1E").format(), Format::DecimalSI);
        assert_eq!(q("1e0").format(), Format::DecimalExponent);
        assert_eq!(q("1E-3").format(), Format::DecimalExponent);
        assert_eq!(q("0.000000000001Ki").format(), Format::DecimalSI);
        assert_eq!(q(".001Ki").format(), Format::BinarySI);
        assert_eq!(q("8Ei").format(), Format::BinarySI);
    }

    #[test]
    fn display_keeps_text_go_considers_canonical() {
        for (input, display, canonical) in [
            ("+1", "+1", "1"),
            ("01", "01", "1"),
            ("1.", "1.", "1"),
            ("1.500", "1.500", "1500m"),
            ("1E3", "1E3", "1e3"),
            ("1e+3", "1e+3", "1e3"),
            ("+1Ki", "+1Ki", "1Ki"),
            ("1.Ki", "1.Ki", "1Ki"),
            ("1000Ki", "1000Ki", "1000Ki"),
            ("1.0", "1", "1"),
            ("1.000", "1", "1"),
            ("05", "05", "5"),
            ("0.5", "500m", "500m"),
        ] {
            assert_eq!(shown(input), display, "display of {input:?}");
            assert_eq!(canon(input), canonical, "canonical of {input:?}");
        }
        // Arithmetic drops the kept text.
        assert_eq!((q("+1") + Quantity::zero()).to_string(), "1");
        assert_eq!((Quantity::zero() + q("1.500")).to_string(), "1500m");
    }

    #[test]
    fn parse_errors() {
        use QuantityErrorReason::*;
        for (input, expected) in [
            ("", FormatWrong),
            ("1.2.3", FormatWrong),
            ("1KiB", FormatWrong),
            (" 1", FormatWrong),
            ("1 ", FormatWrong),
            ("1.1.M", FormatWrong),
            ("1+1.0M", FormatWrong),
            ("0.1mi", Suffix),
            ("0.1am", FormatWrong),
            ("aoeu", FormatWrong),
            (".5i", Suffix),
            ("1i", Suffix),
            ("-3.01i", Suffix),
            ("-3.01e-", Suffix),
            ("1e", Suffix),
            ("1E+", Suffix),
            ("1g", FormatWrong),
            ("1K", Suffix),
            ("1ki", Suffix),
            ("1e3k", FormatWrong),
            ("1e3.5", FormatWrong),
            ("--1", Suffix),
            ("1e99999999999999999999", Suffix),
            ("Pi", Numeric),
            ("Ei", Numeric),
            ("-.Pi", Numeric),
            ("e-10", Numeric),
            ("1e100001", OutOfRange),
            ("1\u{a0}", FormatWrong),
            ("١", FormatWrong),
        ] {
            assert_eq!(reason(input), expected, "reason for {input:?}");
        }
        let err = Quantity::parse("1e").unwrap_err();
        assert_eq!(err.text(), "1e");
        assert_eq!(
            err.to_string(),
            "cannot parse '1e': unable to parse quantity's suffix"
        );
        assert_eq!(
            Quantity::parse("x").unwrap_err().to_string(),
            "cannot parse 'x': quantities must match the regular expression \
             '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        );
        assert!("1.2.3".parse::<Quantity>().is_err());
    }

    #[test]
    fn go_accepts_digitless_text_on_the_fast_path() {
        for input in [
            "+", "-", ".", "-.", "m", "k", "Ki", "Ti", "e5", "0Pi", "000",
        ] {
            let v = q(input);
            assert!(v.is_zero(), "{input:?}");
            assert_eq!(v.to_string(), "0");
        }
        assert_eq!(q("Ki").format(), Format::BinarySI);
        // The exponent is truncated to 32 bits like Go's int32(...) conversion.
        assert_eq!(q("1e4294967296"), q("1"));
        assert_eq!(q("1e4294967296").format(), Format::DecimalExponent);
    }

    #[test]
    fn numeric_equality_ordering_and_hash() {
        use std::collections::HashSet;
        assert_eq!(q("1000m"), q("1"));
        assert_eq!(q("2.048"), q("2048m"));
        assert_eq!(q("1Ki"), q("1024"));
        assert_eq!(q("1e3"), q("1k"));
        assert_eq!(q("0"), q("-0.0Mi"));
        assert_ne!(q("1Ki"), q("1k"));
        assert!(q("1Ki") > q("1k"));
        assert!(q("-1") < q("0"));
        assert!(q("-2") < q("-1500m"));
        assert!(q("999m") < q("1"));
        assert!(q("1n") > q("0"));
        assert!(q("1E") > q("999P"));
        let mut values = [q("1Gi"), q("-5"), q("100m"), q("1G"), q("0")];
        values.sort();
        let rendered: Vec<String> = values.iter().map(Quantity::to_string).collect();
        assert_eq!(rendered, ["-5", "0", "100m", "1G", "1Gi"]);
        let set: HashSet<Quantity> = ["1", "1000m", "1e0", "0.001k", "2"]
            .iter()
            .map(|s| q(s))
            .collect();
        assert_eq!(set.len(), 2);
    }

    #[test]
    fn addition_follows_go_add() {
        let add = |a: &str, b: &str| (q(a) + q(b)).to_string();
        assert_eq!(add("100m", "200m"), "300m");
        assert_eq!(add("1", "500m"), "1500m");
        assert_eq!(add("1Gi", "512Mi"), "1536Mi");
        assert_eq!(add("0", "4Gi"), "4Gi");
        assert_eq!(add("1Gi", "1G"), "2073741824");
        assert_eq!(add("1G", "1Gi"), "2073741824");
        assert_eq!(add("1k", "1Ki"), "2024");
        assert_eq!(add("1Ki", "1Ki"), "2Ki");
        assert_eq!(add("1e3", "1"), "1001");
        assert_eq!(add("1", "-1"), "0");
        assert_eq!(add("4Ei", "4Ei"), "8Ei");
        assert_eq!(add("1E", "1n"), "1000000000000000000000000001n");
        assert_eq!(add("0.1", "0.2"), "300m");
        assert_eq!(
            q("1k").checked_add(&q("1Ki")).unwrap().format(),
            Format::DecimalSI
        );
        assert_eq!(
            q("1Ki").checked_add(&q("1k")).unwrap().format(),
            Format::BinarySI
        );
        // A zero left operand takes the right operand's format.
        let zero_sum = q("1") + q("-1");
        assert_eq!((zero_sum + q("1Ki")).format(), Format::BinarySI);
        // resourceAdd-style folding.
        let total: Quantity = ["250m", "1", "2"].iter().map(|s| q(s)).sum();
        assert_eq!(total.to_string(), "3250m");
        let parts = [q("64Mi"), q("128Mi"), q("10Mi")];
        let memory: Quantity = parts.iter().sum();
        assert_eq!(memory.to_string(), "202Mi");
        let mut acc = Quantity::zero();
        acc += &q("1.5Gi");
        acc += &q("512Mi");
        assert_eq!(acc.to_string(), "2Gi");
        assert_eq!((&q("1") + &q("1")).to_string(), "2");
        // Range checks.
        let huge = q("9e99999");
        assert!(huge.checked_add(&huge).is_none());
        assert_eq!(huge.checked_add(&q("1")).map(|s| s > huge), Some(true));
        assert!(huge.checked_mul_int(2).is_none());
    }

    #[test]
    fn multiplication() {
        assert_eq!(q("250m").checked_mul_int(4).unwrap().to_string(), "1");
        assert_eq!(q("1m").checked_mul_int(2).unwrap().to_string(), "2m");
        assert_eq!(q("1Gi").checked_mul_int(-3).unwrap().to_string(), "-3Gi");
        assert!(q("5").checked_mul_int(0).unwrap().is_zero());
        assert_eq!(q("1E").checked_mul_int(10).unwrap().to_string(), "10E");
    }

    #[test]
    fn ceil_measurements() {
        assert_eq!(q("250m").milli_value_ceil(), 250);
        assert_eq!(q("1").milli_value_ceil(), 1000);
        assert_eq!(q("0.1").milli_value_ceil(), 100);
        assert_eq!(q("1.5m").milli_value_ceil(), 2);
        assert_eq!(q("0.1m").milli_value_ceil(), 1);
        assert_eq!(q("1n").milli_value_ceil(), 1);
        assert_eq!(q("-1.5m").milli_value_ceil(), -1);
        assert_eq!(q("1.5").value_ceil(), 2);
        assert_eq!(q("1n").value_ceil(), 1);
        assert_eq!(q("0.5Gi").value_ceil(), 536_870_912);
        assert_eq!(q("1E").value_ceil(), 1_000_000_000_000_000_000);
        assert_eq!(q("9223372036854775807").value_ceil(), i64::MAX);
        assert_eq!(q("9223372036854775808").value_ceil(), i64::MAX);
        assert_eq!(q("-9223372036854775808").value_ceil(), i64::MIN);
        assert_eq!(q("-9223372036854775809").value_ceil(), i64::MIN);
        assert_eq!(q("10E").value_ceil(), i64::MAX);
        assert_eq!(q("1E").milli_value_ceil(), i64::MAX);
        assert_eq!(q("-1E").milli_value_ceil(), i64::MIN);
        assert_eq!(q("1e99999").value_ceil(), i64::MAX);
        assert_eq!(q("0").value_ceil(), 0);
        assert_eq!(q("-0.5").value_ceil(), 0);
    }

    #[test]
    fn go_value_and_milli_value() {
        // Agree with the exact ceiling on ordinary values.
        for s in [
            "250m",
            "1",
            "0.1",
            "1.5m",
            "64Mi",
            "1.5Gi",
            "0.0000000001",
            "1E",
        ] {
            let v = q(s);
            assert_eq!(v.value(), v.value_ceil(), "value of {s}");
        }
        for s in [
            "250m",
            "1",
            "0.1",
            "1.5m",
            "64Mi",
            "1.5Gi",
            "0.0000000001",
            "1P",
        ] {
            let v = q(s);
            assert_eq!(v.milli_value(), v.milli_value_ceil(), "milli of {s}");
        }
        // Fast path rounds away from zero.
        assert_eq!(q("-1.5").value(), -2);
        assert_eq!(q("-1.5m").milli_value(), -2);
        // inf.Dec path: trunc + 1 for inexact values, even negative ones.
        assert_eq!(q("-0.0000000001").value(), 1);
        assert_eq!(q("-1.0005Ki").value(), -1023);
        assert_eq!(q("-1.0005Ki").value_ceil(), -1024);
        // Overflow: default scaling loop yields 0, ×1000 wraps, inf.Dec wraps.
        assert_eq!(q("1E").milli_value(), 0);
        assert_eq!(q("10E").value(), 0);
        assert_eq!(
            q("10000000000000000").milli_value(),
            10_000_000_000_000_000i64.wrapping_mul(1000)
        );
        assert_eq!(q("9223372036854775807").value(), i64::MAX);
        assert_eq!(
            q("9223372036854775807").milli_value(),
            i64::MAX.wrapping_mul(1000)
        );
        assert_eq!(q("8Ei").value(), i64::MAX);
        // Sums measured after Go's int64 fast path overflowed into inf.Dec.
        let same_scale = q("9E") + q("9E");
        assert_eq!(same_scale.value(), 0);
        let sum = q("9E") + q("1m");
        assert_eq!(sum.value(), 9_000_000_000_000_000_001);
        assert_eq!(
            sum.milli_value(),
            9_000_000_000_000_000_000_001u128 as u64 as i64
        );
        assert_eq!(Quantity::from_milli(1500, Format::DecimalSI).value(), 2);
        assert_eq!(Quantity::from_int(7, Format::DecimalSI).milli_value(), 7000);
    }

    #[test]
    fn approximate_float() {
        assert_eq!(q("2048m").as_approximate_f64(), 2048.0 * (1.0 / 1000.0));
        assert_eq!(q("1Gi").as_approximate_f64(), 1_073_741_824.0);
        assert_eq!(q("2G").as_approximate_f64(), 2e9);
        assert_eq!(q("1.5").as_approximate_f64(), 15.0 * (1.0 / 10.0));
        assert_eq!(
            q("1.5Gi").as_approximate_f64(),
            1_610_612_736_000_000_000.0 * (1.0 / 1e9)
        );
        assert_eq!(q("0").as_approximate_f64(), 0.0);
        assert_eq!(q("-2").as_approximate_f64(), -2.0);
        assert_eq!(q("8Ei").as_approximate_f64(), 9_223_372_036_854_775_807.0);
        assert!(q("0e400").as_approximate_f64().is_nan());
        assert_eq!(q("1e400").as_approximate_f64(), f64::INFINITY);
        assert_eq!(go_pow10(-324), 0.0);
        assert_eq!(go_pow10(3), 1000.0);
    }

    #[test]
    fn json_decoding() {
        let from = |v: serde_json::Value| Quantity::from_json(&v).map(|q| q.to_string());
        assert_eq!(from(json!("1.5Gi")).unwrap(), "1536Mi");
        assert_eq!(from(json!(" 1 ")).unwrap(), "1");
        assert_eq!(from(json!("\u{a0}2Ki\u{3000}")).unwrap(), "2Ki");
        assert!(from(json!("\t1")).is_err());
        assert!(from(json!("1\n")).is_err());
        assert_eq!(from(json!(1)).unwrap(), "1");
        assert_eq!(from(json!(1000)).unwrap(), "1k");
        assert_eq!(from(json!(1500)).unwrap(), "1500");
        assert_eq!(from(json!(-3)).unwrap(), "-3");
        assert_eq!(from(json!(1.5)).unwrap(), "1500m");
        assert_eq!(from(json!(0.1)).unwrap(), "100m");
        assert_eq!(from(json!(2.0)).unwrap(), "2");
        assert_eq!(from(json!(1e3)).unwrap(), "1k");
        assert_eq!(from(json!(1e21)).unwrap(), "1e+21");
        assert_eq!(from(json!(1.5e-7)).unwrap(), "150e-9");
        assert_eq!(
            from(json!(12_345_678_901_234_567_890u64)).unwrap(),
            "12345678901234567k"
        );
        assert_eq!(from(json!(null)).unwrap(), "0");
        let err = Quantity::from_json(&json!([1])).unwrap_err();
        assert_eq!(err.reason(), QuantityErrorReason::NotStringOrNumber);
        assert_eq!(err.text(), "[1]");
        let err = Quantity::from_json(&json!("1g")).unwrap_err();
        assert_eq!(err.text(), "1g");
        assert_eq!(go_json_float_text(1e-7).as_deref(), Some("1e-7"));
        assert_eq!(go_json_float_text(1.25e300).as_deref(), Some("1.25e+300"));
        assert_eq!(go_json_float_text(-0.000001).as_deref(), Some("-0.000001"));
        assert_eq!(
            go_json_float_text(1e20).as_deref(),
            Some("100000000000000000000")
        );
        assert_eq!(go_json_float_text(f64::NAN), None);
    }

    #[test]
    fn serde_round_trip() {
        for s in [
            "0",
            "1",
            "100m",
            "1.5Gi",
            "2048Ki",
            "-1.5",
            "1e3",
            "1E",
            "8Ei",
            "0.5Gi",
            "+1",
            "1.500",
            "123456789012345678901234567890",
            "1n",
            "-7Ti",
        ] {
            let original = q(s);
            let json = serde_json::to_string(&original).unwrap();
            assert_eq!(json, format!("\"{original}\""));
            let back: Quantity = serde_json::from_str(&json).unwrap();
            assert_eq!(back, original, "round trip of {s}");
            assert_eq!(back.to_string(), original.to_string(), "text of {s}");
        }
        let from_number: Quantity = serde_json::from_str("2.5").unwrap();
        assert_eq!(from_number.to_string(), "2500m");
        let list: Vec<Quantity> = serde_json::from_str(r#"["1", 2, null, "3Ki"]"#).unwrap();
        assert_eq!(list[1].to_string(), "2");
        assert!(list[2].is_zero());
        assert!(serde_json::from_str::<Quantity>("true").is_err());
        assert!(serde_json::from_str::<Quantity>("\"1.2.3\"").is_err());
        let map: std::collections::BTreeMap<String, Quantity> =
            serde_json::from_str(r#"{"cpu":"1000m","memory":"2048Ki"}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&map).unwrap(),
            r#"{"cpu":"1","memory":"2Mi"}"#
        );
    }

    #[test]
    fn rendering_round_trips_through_parse() {
        for s in [
            "1.5Gi",
            "0.5",
            "100.035Ki",
            "1e-9",
            "123456789.123456789",
            "1.1E-9",
            "7e17",
            "-4.2Mi",
            "1Ei",
            "3Pi",
            "0.3e2",
            "99999999999999999999.5",
            "1.0000000001",
        ] {
            let original = q(s);
            let again = q(&original.to_canonical_string());
            assert_eq!(again, original, "{s} -> {}", original.to_canonical_string());
        }
    }

    /// Deterministic pseudo-random odd inputs: nothing may panic, and successful parses must
    /// survive every operation.
    #[test]
    fn odd_inputs_never_panic() {
        let mut fixed: Vec<String> = [
            "",
            "0",
            "-",
            "+",
            ".",
            "..",
            "-.",
            "+-1",
            "e",
            "E",
            "Ki",
            "Pi",
            "Ei",
            "1e-",
            "1e+",
            "1e-2147483648",
            "1e2147483647",
            "1.5e-2147483648",
            "-1e-2147483649",
            "1e9223372036854775807",
            "1e9223372036854775808",
            "9".repeat(400).as_str(),
            &format!("0.{}1", "0".repeat(5000)),
            &format!("1.{}Ei", "9".repeat(300)),
            &format!("{}Ki", "9".repeat(40)),
            &format!("0.{}Ki", "0".repeat(200)),
            "9223372036854775807Ei",
            "-9223372036854775808",
            "999999999999999999",
            "0.000000000000000000e400",
            "1\u{0}",
            "１",
            "🙂",
            "1e\u{301}",
            "1Ki\u{a0}",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let alphabet: Vec<char> = "0123456789.+-eEinumkKMGTP i\u{e9}".chars().collect();
        let suffixes = [
            "", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei",
            "e3", "E-7", "e+12", "e-30", "e19",
        ];
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move |bound: usize| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 33) % bound as u64) as usize
        };
        for round in 0..30_000 {
            let mut s = String::new();
            if round % 3 == 0 {
                // Free-form noise.
                for _ in 0..next(16) {
                    s.push(alphabet[next(alphabet.len())]);
                }
            } else {
                // Well-formed shape, sometimes mutated.
                s.push_str(["", "", "-", "+"][next(4)]);
                for _ in 0..next(25) {
                    s.push(char::from(b'0' + next(10) as u8));
                }
                if next(2) == 0 {
                    s.push('.');
                    for _ in 0..next(15) {
                        s.push(char::from(b'0' + next(10) as u8));
                    }
                }
                s.push_str(suffixes[next(suffixes.len())]);
                if next(8) == 0 {
                    let at = next(s.len() + 1);
                    if s.is_char_boundary(at) {
                        s.insert(at, alphabet[next(alphabet.len())]);
                    }
                }
            }
            fixed.push(s);
        }
        let probes = [q("1"), q("-1.5Gi"), q("1n"), q("1E")];
        let mut parsed = 0;
        for s in &fixed {
            let _ = Quantity::from_json(&json!(s));
            let Ok(v) = Quantity::parse(s) else { continue };
            parsed += 1;
            let text = v.to_string();
            let canonical = v.to_canonical_string();
            let _ = (
                v.value(),
                v.milli_value(),
                v.value_ceil(),
                v.milli_value_ceil(),
            );
            let _ = (v.as_approximate_f64(), v.sign(), v.format(), v.is_zero());
            for p in &probes {
                let _ = v.checked_add(p).map(|s| s.to_string());
                let _ = p.checked_add(&v).map(|s| s.to_canonical_string());
                let _ = v.cmp(p);
            }
            let _ = v.checked_mul_int(-7).map(|m| m.to_string());
            let _ = serde_json::to_string(&v).unwrap();
            // Canonical text re-parses to the same value (below Go's suffix table limit).
            if v.value.integer_digits() <= 21 || v.format != Format::DecimalSI {
                assert_eq!(q(&canonical), v, "canonical {canonical:?} of {s:?}");
            }
            assert!(!text.is_empty());
        }
        assert!(parsed > 15_000, "only {parsed} inputs parsed");
    }
}
