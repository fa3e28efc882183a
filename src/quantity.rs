//! Kubernetes resource quantities (interim implementation; the full module
//! replaces this file with the same API).
//!
//! Values are held exactly in nano-units (`i128`), which covers every
//! quantity Kubernetes can represent (|v| < 2^63 with 9 fractional digits).

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use serde_json::Value;

/// How a quantity is rendered (the suffix family it was written in).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// `m`, `k`, `M`, … (powers of 1000).
    DecimalSI,
    /// `Ki`, `Mi`, … (powers of 1024).
    BinarySI,
    /// `e3`, `E6`, …
    DecimalExponent,
}

/// A string that is not a quantity.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid quantity {0:?}")]
pub struct QuantityError(String);

/// A resource quantity.
#[derive(Debug, Clone, Copy)]
pub struct Quantity {
    nanos: i128,
    format: Format,
}

const NANO: i128 = 1_000_000_000;
/// Largest magnitude kept (2^63 - 1 units); larger values are capped.
const CAP: i128 = (i64::MAX as i128) * NANO;

impl PartialEq for Quantity {
    fn eq(&self, other: &Self) -> bool {
        self.nanos == other.nanos
    }
}
impl Eq for Quantity {}
impl PartialOrd for Quantity {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Quantity {
    fn cmp(&self, other: &Self) -> Ordering {
        self.nanos.cmp(&other.nanos)
    }
}

fn div_ceil(a: i128, b: i128) -> i128 {
    let q = a / b;
    if a % b != 0 && (a > 0) == (b > 0) {
        q + 1
    } else {
        q
    }
}

fn saturate(v: i128) -> i64 {
    v.clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

impl Quantity {
    /// Zero (decimal SI).
    pub fn zero() -> Self {
        Self {
            nanos: 0,
            format: Format::DecimalSI,
        }
    }

    /// `milli / 1000` units.
    pub fn from_milli(milli: i64, format: Format) -> Self {
        Self {
            nanos: milli as i128 * 1_000_000,
            format,
        }
    }

    /// `value` units.
    pub fn from_int(value: i64, format: Format) -> Self {
        Self {
            nanos: value as i128 * NANO,
            format,
        }
    }

    /// The format the quantity renders in.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Parses a quantity (`native-builtins.md` Appendix B).
    pub fn parse(s: &str) -> Result<Self, QuantityError> {
        let err = || QuantityError(s.to_owned());
        let bytes = s.as_bytes();
        let mut i = 0;
        let mut negative = false;
        if let Some(&c) = bytes.first() {
            if c == b'+' || c == b'-' {
                negative = c == b'-';
                i = 1;
            }
        }
        let start = i;
        let mut digits: Vec<u8> = Vec::new();
        let mut frac_len: i32 = 0;
        let mut seen_dot = false;
        while i < bytes.len() {
            match bytes[i] {
                b'0'..=b'9' => {
                    digits.push(bytes[i] - b'0');
                    if seen_dot {
                        frac_len += 1;
                    }
                }
                b'.' if !seen_dot => seen_dot = true,
                _ => break,
            }
            i += 1;
        }
        if digits.is_empty() || i == start {
            return Err(err());
        }
        let suffix = &s[i..];
        let (format, base10_exp, binary_pow): (Format, i32, u32) = match suffix {
            "" => (Format::DecimalSI, 0, 0),
            "n" => (Format::DecimalSI, -9, 0),
            "u" => (Format::DecimalSI, -6, 0),
            "m" => (Format::DecimalSI, -3, 0),
            "k" => (Format::DecimalSI, 3, 0),
            "M" => (Format::DecimalSI, 6, 0),
            "G" => (Format::DecimalSI, 9, 0),
            "T" => (Format::DecimalSI, 12, 0),
            "P" => (Format::DecimalSI, 15, 0),
            "E" => (Format::DecimalSI, 18, 0),
            "Ki" => (Format::BinarySI, 0, 1),
            "Mi" => (Format::BinarySI, 0, 2),
            "Gi" => (Format::BinarySI, 0, 3),
            "Ti" => (Format::BinarySI, 0, 4),
            "Pi" => (Format::BinarySI, 0, 5),
            "Ei" => (Format::BinarySI, 0, 6),
            _ => {
                let rest = suffix
                    .strip_prefix('e')
                    .or_else(|| suffix.strip_prefix('E'))
                    .ok_or_else(err)?;
                let body = rest.strip_prefix(['+', '-']).unwrap_or(rest);
                if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(err());
                }
                let e: i32 = rest.parse().map_err(|_| err())?;
                (Format::DecimalExponent, e, 0)
            }
        };
        // value = digits × 10^(base10_exp - frac_len) × 1024^binary_pow, in nanos.
        let mut mantissa: i128 = 0;
        let mut overflow = false;
        for d in &digits {
            match mantissa
                .checked_mul(10)
                .and_then(|m| m.checked_add(*d as i128))
            {
                Some(m) if m <= CAP * 10 => mantissa = m,
                _ => {
                    overflow = true;
                    break;
                }
            }
        }
        for _ in 0..binary_pow {
            mantissa = mantissa.saturating_mul(1024);
        }
        let exp = base10_exp as i64 - frac_len as i64 + 9;
        let nanos = if overflow || mantissa > CAP * 10 {
            CAP
        } else if exp >= 0 {
            let mut v = mantissa;
            for _ in 0..exp.min(40) {
                v = v.saturating_mul(10);
                if v > CAP {
                    break;
                }
            }
            if mantissa == 0 {
                0
            } else {
                v.min(CAP)
            }
        } else if exp < -40 {
            i128::from(mantissa != 0)
        } else {
            div_ceil(mantissa, 10i128.pow((-exp) as u32))
        };
        Ok(Self {
            nanos: if negative { -nanos } else { nanos },
            format,
        })
    }

    /// Parses a JSON string or number.
    pub fn from_json(value: &Value) -> Result<Self, QuantityError> {
        match value {
            Value::String(s) => Self::parse(s),
            Value::Number(n) => Self::parse(&n.to_string()),
            other => Err(QuantityError(other.to_string())),
        }
    }

    /// Sum (saturating at the representable range).
    pub fn add(&self, other: &Self) -> Self {
        Self {
            nanos: (self.nanos + other.nanos).clamp(-CAP, CAP),
            format: self.format,
        }
    }

    /// Sum, or `None` beyond the representable range.
    pub fn checked_add(&self, other: &Self) -> Option<Self> {
        let nanos = self.nanos.checked_add(other.nanos)?;
        (nanos.abs() <= CAP).then_some(Self {
            nanos,
            format: self.format,
        })
    }

    /// `ceil(v × 1000)`.
    pub fn milli_value_ceil(&self) -> i64 {
        saturate(div_ceil(self.nanos, 1_000_000))
    }

    /// `ceil(v)`.
    pub fn value_ceil(&self) -> i64 {
        saturate(div_ceil(self.nanos, NANO))
    }

    /// Canonical rendering (Appendix B).
    pub fn to_canonical_string(&self) -> String {
        self.to_string()
    }
}

impl FromStr for Quantity {
    type Err = QuantityError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.nanos;
        if v == 0 {
            return f.write_str("0");
        }
        let sign = if v < 0 { "-" } else { "" };
        let a = v.abs();
        if self.format == Format::BinarySI && a % NANO == 0 && a / NANO >= 1024 {
            let mut units = a / NANO;
            let mut k = 0;
            while k < 6 && units % 1024 == 0 {
                units /= 1024;
                k += 1;
            }
            let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][k];
            return write!(f, "{sign}{units}{suffix}");
        }
        // m × 10^e, largest e (from -9), then lower e to a multiple of 3.
        let mut m = a;
        let mut e: i32 = -9;
        while m % 10 == 0 {
            m /= 10;
            e += 1;
        }
        while e.rem_euclid(3) != 0 {
            m *= 10;
            e -= 1;
        }
        if self.format == Format::DecimalExponent {
            return if e == 0 {
                write!(f, "{sign}{m}")
            } else {
                write!(f, "{sign}{m}e{e}")
            };
        }
        while e > 18 {
            m *= 1000;
            e -= 3;
        }
        let suffix = match e {
            -9 => "n",
            -6 => "u",
            -3 => "m",
            0 => "",
            3 => "k",
            6 => "M",
            9 => "G",
            12 => "T",
            15 => "P",
            _ => "E",
        };
        write!(f, "{sign}{m}{suffix}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_examples() {
        for (input, want) in [
            ("1.5", "1500m"),
            ("2000m", "2"),
            ("0.1", "100m"),
            ("110", "110"),
            ("1000", "1k"),
            ("1500", "1500"),
            ("1e3", "1e3"),
            ("1.5Gi", "1536Mi"),
            ("2048Ki", "2Mi"),
            ("512Ki", "512Ki"),
        ] {
            assert_eq!(Quantity::parse(input).unwrap().to_string(), want, "{input}");
        }
        assert_eq!(Quantity::from_int(1000, Format::BinarySI).to_string(), "1k");
        assert_eq!(
            Quantity::from_int(1_000_000_000, Format::BinarySI).to_string(),
            "1000000000"
        );
        assert_eq!(Quantity::parse("0.1m").unwrap().milli_value_ceil(), 1);
        assert!(Quantity::parse("1.2.3").is_err());
        assert!(Quantity::parse("abc").is_err());
        assert!(Quantity::parse("").is_err());
    }
}
