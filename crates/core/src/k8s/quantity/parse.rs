//! Parsing, as Go's `parseQuantityString` and `ParseQuantity`.

#[allow(unused_imports)]
use super::*;

pub(super) struct Lexed<'a> {
    pub(super) positive: bool,
    /// Sign and numeric text, as handed to `inf.Dec.SetString` on the exact path.
    pub(super) value: &'a [u8],
    /// Integer digits without leading zeros (`"0"` when none remain).
    pub(super) num: &'a [u8],
    pub(super) denom: &'a [u8],
    pub(super) suffix: &'a [u8],
}

pub(super) fn lex(s: &[u8]) -> Result<Lexed<'_>, QuantityErrorReason> {
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
pub(super) fn interpret_suffix(suffix: &[u8]) -> Option<(u32, i32, Format)> {
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

pub(super) fn parse_go(text: &str) -> Result<Quantity, QuantityErrorReason> {
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

pub(super) fn zero_with(format: Format, dec_scale: i32) -> Quantity {
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
pub(super) fn round_up_to_nano(digits: &[u8], last_digit_exp: i64, multiplier: u64) -> Decimal {
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
