//! Go's integer helpers (apimachinery `amount.go` / `math.go`).

#[allow(unused_imports)]
use super::*;

/// Go `int64MultiplyScale` (and its ×10/×100/×1000 variants): wrapped product + ok flag.
pub(super) fn go_mul_scale(a: i64, b: i64) -> (i64, bool) {
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
pub(super) fn positive_scale_i64(base: i64, scale: i32) -> (i64, bool) {
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
pub(super) fn negative_scale_i64(base: i64, scale: i32) -> (i64, bool) {
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
pub(super) fn int_amount_add(av: i64, ascale: i32, bv: i64, bscale: i32) -> Option<(i64, i32)> {
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
pub(super) fn int_amount_mul(v: i64, scale: i32, k: i64) -> Option<(i64, i32)> {
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
pub(super) fn go_pow10(n: i64) -> f64 {
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
pub(super) fn is_go_json_unescaped_space(c: char) -> bool {
    c.is_whitespace()
        && !matches!(
            c,
            '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | '\u{2028}' | '\u{2029}'
        )
}

/// Go `encoding/json` text of a float64: shortest round-trip digits, exponent form
/// (`1e+21`, `1e-7`) when |x| < 1e-6 or |x| ≥ 1e21.
pub(super) fn go_json_float_text(x: f64) -> Option<String> {
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
