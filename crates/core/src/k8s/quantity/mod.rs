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
//! use karmada_interpreter::k8s::quantity::{Format, Quantity};
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
/// The binary suffixes of a canonical text, by power of 1024.
const BINARY_SUFFIXES: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];

/// Appends the suffix of a canonical decimal text whose exponent (a
/// multiple of 3) is `exp`: `e<exp>` for the exponent format, else the SI
/// suffix (none for 0, or for a power Go's suffix table lacks).
fn push_decimal_suffix(out: &mut String, format: Format, exp: i64) {
    match format {
        Format::DecimalExponent if exp == 0 => {}
        Format::DecimalExponent => {
            out.push('e');
            out.push_str(&exp.to_string());
        }
        _ => out.push_str(match exp {
            -9 => "n",
            -6 => "u",
            -3 => "m",
            3 => "k",
            6 => "M",
            9 => "G",
            12 => "T",
            15 => "P",
            18 => "E",
            _ => "",
        }),
    }
}

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

mod decimal;
mod go_int;
mod natural;
mod parse;
#[cfg(test)]
mod tests;

use decimal::*;
use go_int::*;
use natural::*;
#[allow(unused_imports)]
use parse::*;

/// The notation family of a quantity, fixed by the suffix it was parsed with.
///
/// ```
/// use karmada_interpreter::k8s::quantity::{Format, Quantity};
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
/// use karmada_interpreter::k8s::quantity::{Quantity, QuantityErrorReason};
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
/// use karmada_interpreter::k8s::quantity::{Quantity, QuantityErrorReason};
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
    /// use karmada_interpreter::k8s::quantity::Quantity;
    ///
    /// assert_eq!(Quantity::parse(" 1").unwrap_err().text(), " 1");
    /// ```
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Why the input was rejected.
    ///
    /// ```
    /// use karmada_interpreter::k8s::quantity::{Quantity, QuantityErrorReason};
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
/// use karmada_interpreter::k8s::quantity::Quantity;
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
    /// use karmada_interpreter::k8s::quantity::{Format, Quantity};
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
    /// use karmada_interpreter::k8s::quantity::Quantity;
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
    /// use karmada_interpreter::k8s::quantity::Quantity;
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
    /// use karmada_interpreter::k8s::quantity::{Format, Quantity};
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
    /// use karmada_interpreter::k8s::quantity::{Format, Quantity};
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
    /// use karmada_interpreter::k8s::quantity::Quantity;
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
    /// use karmada_interpreter::k8s::quantity::Quantity;
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
    /// use karmada_interpreter::k8s::quantity::Quantity;
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
    /// use karmada_interpreter::k8s::quantity::Quantity;
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
    /// use karmada_interpreter::k8s::quantity::{Format, Quantity};
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
    /// use karmada_interpreter::k8s::quantity::Quantity;
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
    /// use karmada_interpreter::k8s::quantity::Quantity;
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
    /// use karmada_interpreter::k8s::quantity::Quantity;
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
    /// use karmada_interpreter::k8s::quantity::Quantity;
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
    /// use karmada_interpreter::k8s::quantity::Quantity;
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
    /// use karmada_interpreter::k8s::quantity::Quantity;
    ///
    /// let q = |s: &str| Quantity::parse(s).unwrap();
    /// assert_eq!(q("2048Ki").to_canonical_string(), "2Mi");
    /// assert_eq!(q("1000").to_canonical_string(), "1k");
    /// assert_eq!(q("1.5Ki").to_canonical_string(), "1536");
    /// assert_eq!(q("1.500").to_canonical_string(), "1500m");
    /// assert_eq!(q("1.500").to_string(), "1.500");
    /// ```
    pub fn to_canonical_string(&self) -> String {
        if let Some(text) = self.canonical_small() {
            return text;
        }
        self.canonical_general()
    }

    /// [`Quantity::to_canonical_string`] in machine integers, for the usual
    /// quantities (a magnitude below 2^64, at most 10^18 times it for a
    /// binary format); `None` for the others. The same steps as
    /// [`Quantity::canonical_general`], which a test checks it against.
    fn canonical_small(&self) -> Option<String> {
        use std::fmt::Write as _;
        let v = &self.value;
        let mag = u64::try_from(v.mag.to_u128()?).ok()?;
        if mag == 0 {
            return Some("0".to_owned());
        }
        let mut out = String::with_capacity(24);
        if v.neg {
            out.push('-');
        }
        let mut format = self.format;
        if format == Format::BinarySI {
            // The integer value, when it is one (`exp >= 0`) and fits.
            let integer = u32::try_from(v.exp)
                .ok()
                .and_then(|e| 10_u128.checked_pow(e))
                .and_then(|p| u128::from(mag).checked_mul(p));
            match integer {
                Some(n) if n >= 1024 => {
                    let (mut n, mut k) = (n, 0);
                    while k < 6 && n % 1024 == 0 {
                        n /= 1024;
                        k += 1;
                    }
                    let _ = write!(out, "{n}{}", BINARY_SUFFIXES[k]);
                    return Some(out);
                }
                // Below 1024, or not an integer: decimal.
                Some(_) => format = Format::DecimalSI,
                None if v.exp < 0 => format = Format::DecimalSI,
                None => return None,
            }
        }
        let r = v.exp.rem_euclid(3);
        let mantissa = u128::from(mag) * u128::from(POW10_U64[r as usize]);
        let exp = v.exp - r;
        let _ = write!(out, "{mantissa}");
        push_decimal_suffix(&mut out, format, exp);
        Some(out)
    }

    /// [`Quantity::to_canonical_string`] in arbitrary precision.
    fn canonical_general(&self) -> String {
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
            return format!("{sign}{n}{}", BINARY_SUFFIXES[k]);
        }
        let mut mantissa = v.mag.clone();
        let mut exp = v.exp;
        let r = exp.rem_euclid(3);
        if r > 0 {
            mantissa.mul_small(POW10_U64[r as usize]);
            exp -= r;
        }
        let mut out = format!("{sign}{mantissa}");
        push_decimal_suffix(&mut out, format, exp);
        out
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
