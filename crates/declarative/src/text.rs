//! Number and string formatting with gopher-lua's rules: `tostring` of
//! numbers, `tonumber`, Go-style `string.format`.

use std::fmt::Write as _;

/// `tostring(number)`: whole values in the signed 64-bit range print as
/// integers; everything else with the shortest round-trip digits, plain when
/// the decimal exponent is in −4..=5, `d.ddde±XX` otherwise.
pub fn number_to_string(x: f64) -> String {
    if x.is_nan() {
        return "NaN".to_owned();
    }
    if x.is_infinite() {
        return if x > 0.0 { "+Inf" } else { "-Inf" }.to_owned();
    }
    if x.fract() == 0.0 && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&x) {
        return (x as i64).to_string();
    }
    shortest_g(x)
}

/// Go's `%g` with the shortest precision (exponent form when exp < −4 or ≥ 21
/// is *not* Go's rule; Go uses 6 for shortest, as here).
fn shortest_g(x: f64) -> String {
    let (neg, digits, exp) = decompose(&format!("{:e}", x));
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if !(-4..6).contains(&exp) {
        push_exp_form(&mut out, &digits, exp);
    } else {
        push_plain(&mut out, &digits, exp);
    }
    out
}

/// Splits Rust's `{:e}` output (`-1.2345e6`) into sign, significant digits
/// and decimal exponent of the first digit.
fn decompose(s: &str) -> (bool, String, i32) {
    let (neg, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (mant, exp) = s.split_once('e').unwrap_or((s, "0"));
    let digits: String = mant.chars().filter(|c| *c != '.').collect();
    (neg, digits, exp.parse().unwrap_or(0))
}

fn push_exp_form(out: &mut String, digits: &str, exp: i32) {
    let mut chars = digits.chars();
    if let Some(first) = chars.next() {
        out.push(first);
    }
    let rest: String = chars.collect();
    if !rest.is_empty() {
        out.push('.');
        out.push_str(&rest);
    }
    let _ = write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
}

fn push_plain(out: &mut String, digits: &str, exp: i32) {
    if exp < 0 {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        out.push_str(digits);
    } else {
        let int_len = (exp + 1) as usize;
        if digits.len() <= int_len {
            out.push_str(digits);
            for _ in digits.len()..int_len {
                out.push('0');
            }
        } else {
            out.push_str(&digits[..int_len]);
            out.push('.');
            out.push_str(&digits[int_len..]);
        }
    }
}

/// `tonumber(s, base)` on a string: trims spaces, tabs and newlines;
/// a `.` means a decimal float literal; otherwise an integer in `base`
/// (default 10, `0x` prefix switches to 16 when no base was given).
pub fn tonumber_str(s: &str, base: Option<u32>) -> Option<f64> {
    let t = s.trim_matches(|c| c == ' ' || c == '\t' || c == '\n');
    if t.contains('.') {
        if base.is_some_and(|b| b != 10) {
            return None;
        }
        return parse_go_float(t);
    }
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (radix, digits) = match base {
        Some(b) => (b, body),
        None => match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
            // the reference parses the sign-less prefix only: "-0x10" → nil
            Some(hex) if !neg && t.len() == body.len() => (16, hex),
            Some(_) => return None,
            None => (10, body),
        },
    };
    if !(2..=36).contains(&radix) || digits.is_empty() {
        return None;
    }
    let v = i64::from_str_radix(digits, radix).ok()?;
    Some(if neg { -(v as f64) } else { v as f64 })
}

/// A decimal float literal as Go's ParseFloat reads it (no `inf`/`nan`
/// words here: they contain no `.`).
fn parse_go_float(t: &str) -> Option<f64> {
    if t.is_empty()
        || !t
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-' | b'_'))
    {
        return None;
    }
    t.parse::<f64>().ok()
}

/// One argument of `string.format`, as the host sees it.
#[derive(Debug, Clone)]
pub enum FmtArg {
    /// A Lua number.
    Number(f64),
    /// A Lua string.
    Str(Vec<u8>),
    /// A boolean.
    Bool(bool),
    /// `nil`.
    Nil,
    /// Anything else: type name and `tostring` text.
    Other(&'static str, String),
}

impl FmtArg {
    fn to_text(&self) -> String {
        match self {
            Self::Number(x) => number_to_string(*x),
            Self::Str(b) => String::from_utf8_lossy(b).into_owned(),
            Self::Bool(b) => b.to_string(),
            Self::Nil => "nil".to_owned(),
            Self::Other(_, s) => s.clone(),
        }
    }
    /// The gopher-lua value's Go type, as `%T` and `%!(EXTRA ...)` name it.
    fn lua_go_type(&self) -> &'static str {
        match self {
            Self::Number(_) => "lua.LNumber",
            Self::Str(_) => "lua.LString",
            Self::Bool(_) => "lua.LBool",
            Self::Nil => "*lua.LNilType",
            Self::Other("table", _) => "*lua.LTable",
            Self::Other("function", _) => "*lua.LFunction",
            Self::Other("thread", _) => "*lua.LState",
            Self::Other(_, _) => "*lua.LUserData",
        }
    }
    fn go_type(&self) -> &'static str {
        match self {
            Self::Number(_) => "float64",
            Self::Str(_) => "string",
            Self::Bool(_) => "lua.LBool",
            Self::Nil => "<nil>",
            Self::Other(t, _) => t,
        }
    }
}

#[derive(Default)]
struct Spec {
    minus: bool,
    plus: bool,
    space: bool,
    zero: bool,
    sharp: bool,
    width: Option<usize>,
    prec: Option<usize>,
}

impl Spec {
    fn pad(&self, body: String, numeric: bool) -> String {
        let len = body.chars().count();
        let Some(w) = self.width.filter(|w| *w > len) else {
            return body;
        };
        let fill = w - len;
        if self.minus {
            format!("{body}{}", " ".repeat(fill))
        } else if self.zero && numeric {
            // zeros go after the sign
            let (sign, rest) = match body.chars().next() {
                Some(c @ ('-' | '+' | ' ')) => (c.to_string(), body[1..].to_owned()),
                _ => (String::new(), body),
            };
            format!("{sign}{}{rest}", "0".repeat(fill))
        } else {
            format!("{}{body}", " ".repeat(fill))
        }
    }

    fn sign(&self, neg: bool) -> &'static str {
        if neg {
            "-"
        } else if self.plus {
            "+"
        } else if self.space {
            " "
        } else {
            ""
        }
    }
}

/// The number of arguments gopher-lua hands to Go's `Sprintf`: the `%`
/// signs less the `%%` pairs (so each `%%` counts one, and an argument it
/// takes is Go's `%!(EXTRA ...)`).
pub fn count_verbs(fmt: &[u8]) -> usize {
    let signs = fmt.iter().filter(|&&b| b == b'%').count();
    let mut pairs = 0;
    let mut i = 0;
    while i + 1 < fmt.len() {
        if fmt[i] == b'%' && fmt[i + 1] == b'%' {
            pairs += 1;
            i += 2;
        } else {
            i += 1;
        }
    }
    signs - pairs
}

/// Largest `string.format` result (the output is built outside the Lua
/// state's memory accounting).
pub const MAX_FORMAT_OUTPUT: usize = 16 << 20;

/// `string.format` with Go's formatting semantics. Fails only when
/// the result would exceed [`MAX_FORMAT_OUTPUT`].
pub(crate) fn go_format(fmt: &[u8], args: &[FmtArg]) -> Result<Vec<u8>, String> {
    let mut out: Vec<u8> = Vec::with_capacity(fmt.len() + 16);
    let mut i = 0usize;
    let mut at = ArgCursor {
        next: 0,
        count: args.len(),
        reordered: false,
    };
    while i < fmt.len() {
        if out.len() > MAX_FORMAT_OUTPUT {
            return Err(format!(
                "string.format result exceeds {MAX_FORMAT_OUTPUT} bytes"
            ));
        }
        let c = fmt[i];
        if c != b'%' {
            out.push(c);
            i += 1;
            continue;
        }
        i += 1;
        let mut spec = Spec::default();
        while i < fmt.len() {
            match fmt[i] {
                b'-' => spec.minus = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'0' => spec.zero = true,
                b'#' => spec.sharp = true,
                _ => break,
            }
            i += 1;
        }
        // Go's explicit argument indexes (`%[2]d`) and `*` widths and
        // precisions. A width or precision taken from an argument must be a
        // Go integer, which a Lua value never is here: `%!(BADWIDTH)`.
        let mut good_index = true;
        let mut after_index = arg_index(fmt, &mut i, &mut at, &mut good_index);
        let mut w = None;
        if fmt.get(i) == Some(&b'*') {
            i += 1;
            at.next += 1;
            out.extend_from_slice(b"%!(BADWIDTH)");
            after_index = false;
        } else {
            while i < fmt.len() && fmt[i].is_ascii_digit() {
                w = Some(w.unwrap_or(0usize).saturating_mul(10) + usize::from(fmt[i] - b'0'));
                i += 1;
            }
            if after_index && w.is_some() {
                good_index = false;
            }
        }
        spec.width = w.map(|w| w.min(10_000));
        if i < fmt.len() && fmt[i] == b'.' {
            i += 1;
            if after_index {
                good_index = false;
            }
            after_index = arg_index(fmt, &mut i, &mut at, &mut good_index);
            if fmt.get(i) == Some(&b'*') {
                i += 1;
                at.next += 1;
                out.extend_from_slice(b"%!(BADPREC)");
                after_index = false;
            } else {
                let mut p = 0usize;
                while i < fmt.len() && fmt[i].is_ascii_digit() {
                    p = p.saturating_mul(10) + usize::from(fmt[i] - b'0');
                    i += 1;
                }
                spec.prec = Some(p.min(10_000));
            }
        }
        if !after_index {
            arg_index(fmt, &mut i, &mut at, &mut good_index);
        }
        let Some(&verb) = fmt.get(i) else {
            out.extend_from_slice(b"%!(NOVERB)");
            break;
        };
        i += 1;
        if verb == b'%' {
            out.push(b'%');
            continue;
        }
        if !good_index {
            let _ = write_bytes(&mut out, &format!("%!{}(BADINDEX)", verb as char));
            continue;
        }
        let Some(arg) = args.get(at.next) else {
            let _ = write_bytes(&mut out, &format!("%!{}(MISSING)", verb as char));
            at.next += 1;
            continue;
        };
        at.next += 1;
        let text = match (verb, arg) {
            (b'T', _) => spec.pad(arg.lua_go_type().to_owned(), false).into_bytes(),
            // gopher-lua's nil is a pointer to an empty struct, printed as
            // Go prints one under any verb its `String` method does not serve.
            (b'v' | b's' | b'q', _)
            | (_, FmtArg::Number(_) | FmtArg::Str(_) | FmtArg::Bool(_) | FmtArg::Other(..)) => {
                format_one(verb, &spec, arg)
            }
            (b'x' | b'X', FmtArg::Nil) => format_one(verb, &spec, &FmtArg::Str(b"nil".to_vec())),
            (_, FmtArg::Nil) => b"&{}".to_vec(),
        };
        out.extend_from_slice(&text);
    }
    // Go's check for arguments no verb used (not after an explicit index).
    if !at.reordered && at.next < args.len() {
        out.extend_from_slice(b"%!(EXTRA ");
        for (k, arg) in args[at.next..].iter().enumerate() {
            if k > 0 {
                out.extend_from_slice(b", ");
            }
            out.extend_from_slice(arg.lua_go_type().as_bytes());
            out.push(b'=');
            out.extend_from_slice(&format_one(b'v', &Spec::default(), arg));
        }
        out.push(b')');
    }
    Ok(out)
}

/// Where `go_format` is in its arguments.
struct ArgCursor {
    /// The argument the next verb takes.
    next: usize,
    /// How many there are.
    count: usize,
    /// An explicit argument index was read (Go's `reordered`: no
    /// `%!(EXTRA ...)` check then).
    reordered: bool,
}

/// Go's `argNumber`: an explicit argument index `[n]` at `i` moves the next
/// argument to the `n`th (1-based) of `at.count`; a malformed or out-of-range
/// index marks the verb `BADINDEX`. Whether an index was read.
fn arg_index(fmt: &[u8], i: &mut usize, at: &mut ArgCursor, good: &mut bool) -> bool {
    if fmt.get(*i) != Some(&b'[') {
        return false;
    }
    at.reordered = true;
    let Some(close) = fmt[*i..].iter().position(|&b| b == b']') else {
        *i += 1;
        *good = false;
        return false;
    };
    let digits = &fmt[*i + 1..*i + close];
    *i += close + 1;
    let n = (!digits.is_empty() && digits.iter().all(u8::is_ascii_digit))
        .then(|| std::str::from_utf8(digits).ok()?.parse::<usize>().ok())
        .flatten();
    match n {
        Some(n) if (1..=at.count).contains(&n) => {
            at.next = n - 1;
            true
        }
        Some(_) => {
            *good = false;
            true
        }
        None => {
            *good = false;
            false
        }
    }
}

fn write_bytes(out: &mut Vec<u8>, s: &str) -> std::fmt::Result {
    out.extend_from_slice(s.as_bytes());
    Ok(())
}

/// Go's `int64(float64)` on amd64: NaN and values outside the int64 range
/// give the minimum.
fn go_int64(x: f64) -> i64 {
    // [-2^63, 2^63); NaN is outside
    if (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&x) {
        x as i64
    } else {
        i64::MIN
    }
}

fn bad(verb: u8, arg: &FmtArg) -> Vec<u8> {
    match arg {
        FmtArg::Nil => format!("%!{}(<nil>)", verb as char).into_bytes(),
        // gopher-lua formats a whole number as an int64 under other verbs
        FmtArg::Number(x) if x.fract() == 0.0 && go_int64(*x) != i64::MIN => {
            format!("%!{}(int64={})", verb as char, go_int64(*x)).into_bytes()
        }
        _ => format!("%!{}({}={})", verb as char, arg.go_type(), arg.to_text()).into_bytes(),
    }
}

fn format_one(verb: u8, spec: &Spec, arg: &FmtArg) -> Vec<u8> {
    match verb {
        b'd' | b'i' | b'x' | b'X' | b'o' | b'b' | b'c' | b'U' => {
            let n = match arg {
                FmtArg::Number(x) => go_int64(*x),
                FmtArg::Str(s) if verb == b'd' || verb == b'i' => {
                    let text = String::from_utf8_lossy(s).into_owned();
                    let shown = if tonumber_str(&text, None).is_some()
                        || text.trim().parse::<f64>().is_ok()
                    {
                        text
                    } else {
                        "0".to_owned()
                    };
                    return spec.pad(shown, false).into_bytes();
                }
                FmtArg::Str(s) if verb == b'x' || verb == b'X' => {
                    let mut h = String::new();
                    for b in s {
                        if verb == b'x' {
                            let _ = write!(h, "{b:02x}");
                        } else {
                            let _ = write!(h, "{b:02X}");
                        }
                    }
                    return spec.pad(h, false).into_bytes();
                }
                _ => return bad(verb, arg),
            };
            format_int(verb, spec, n).into_bytes()
        }
        b'e' | b'E' | b'f' | b'F' | b'g' | b'G' => {
            let x = match arg {
                FmtArg::Number(x) => *x,
                // gopher-lua hands a string to Go's fmt as it is: a bad
                // verb, its text cut to the precision (`%!f(string=0)`)
                FmtArg::Str(s) => {
                    let mut text = String::from_utf8_lossy(s).into_owned();
                    if let Some(p) = spec.prec {
                        text = text.chars().take(p).collect();
                    }
                    return format!("%!{}(string={text})", verb as char).into_bytes();
                }
                _ => return bad(verb, arg),
            };
            format_float(verb, spec, x).into_bytes()
        }
        b's' | b'v' => {
            let mut text = arg.to_text();
            if let Some(p) = spec.prec {
                text = text.chars().take(p).collect();
            }
            spec.pad(text, false).into_bytes()
        }
        b'q' => spec.pad(go_quote(&arg.to_text()), false).into_bytes(),
        b't' => match arg {
            FmtArg::Bool(b) => spec.pad(b.to_string(), false).into_bytes(),
            _ => bad(verb, arg),
        },
        _ => bad(verb, arg),
    }
}

fn format_int(verb: u8, spec: &Spec, n: i64) -> String {
    let neg = n < 0;
    let abs = n.unsigned_abs();
    let mut digits = match verb {
        b'x' => format!("{abs:x}"),
        b'X' => format!("{abs:X}"),
        b'o' => format!("{abs:o}"),
        b'b' => format!("{abs:b}"),
        b'c' => {
            let c = u32::try_from(n)
                .ok()
                .and_then(char::from_u32)
                .unwrap_or('\u{FFFD}');
            return spec.pad(c.to_string(), false);
        }
        b'U' => {
            let body = format!("U+{abs:04X}");
            return spec.pad(body, false);
        }
        _ => abs.to_string(),
    };
    if let Some(p) = spec.prec {
        if p == 0 && n == 0 {
            digits.clear();
        }
        while digits.len() < p {
            digits.insert(0, '0');
        }
    }
    if spec.sharp {
        match verb {
            b'x' => digits.insert_str(0, "0x"),
            b'X' => digits.insert_str(0, "0X"),
            b'o' if !digits.starts_with('0') => digits.insert(0, '0'),
            _ => {}
        }
    }
    let body = format!("{}{digits}", spec.sign(neg));
    spec.pad(body, spec.prec.is_none())
}

fn format_float(verb: u8, spec: &Spec, x: f64) -> String {
    if !x.is_finite() {
        let body = if x.is_nan() {
            "NaN".to_owned()
        } else if x > 0.0 {
            // Go keeps the sign of an infinity (a space flag replaces it)
            format!("{}Inf", if spec.space && !spec.plus { " " } else { "+" })
        } else {
            "-Inf".to_owned()
        };
        return spec.pad(body, false);
    }
    let neg = x.is_sign_negative() && x != 0.0 || (x == 0.0 && x.is_sign_negative());
    let a = x.abs();
    let body = match verb {
        b'f' | b'F' => format!("{:.*}", spec.prec.unwrap_or(6), a),
        b'e' | b'E' => {
            let s = exp_form(a, spec.prec.unwrap_or(6));
            if verb == b'E' {
                s.to_uppercase()
            } else {
                s
            }
        }
        _ => {
            let s = match spec.prec {
                None => {
                    let (_, digits, exp) = decompose(&format!("{a:e}"));
                    let mut out = String::new();
                    if !(-4..6).contains(&exp) {
                        push_exp_form(&mut out, &digits, exp);
                    } else {
                        push_plain(&mut out, &digits, exp);
                    }
                    out
                }
                Some(p) => {
                    let p = p.max(1);
                    let (_, digits, exp) = decompose(&format!("{:.*e}", p - 1, a));
                    let digits = if spec.sharp {
                        digits
                    } else {
                        let t = digits.trim_end_matches('0');
                        if t.is_empty() {
                            "0".to_owned()
                        } else {
                            t.to_owned()
                        }
                    };
                    let mut out = String::new();
                    if exp < -4 || exp >= p as i32 {
                        push_exp_form(&mut out, &digits, exp);
                    } else {
                        push_plain(&mut out, &digits, exp);
                    }
                    out
                }
            };
            if verb == b'G' {
                s.to_uppercase()
            } else {
                s
            }
        }
    };
    spec.pad(format!("{}{body}", spec.sign(neg)), true)
}

fn exp_form(a: f64, prec: usize) -> String {
    let s = format!("{:.*e}", prec, a);
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = exp.parse().unwrap_or(0);
    format!("{mant}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

/// Go's `strconv.Quote`.
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x0b' => out.push_str("\\v"),
            '\u{FFFD}' => out.push_str("\\ufffd"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Unicode case mapping (simple mappings; characters whose mapping is not a
/// single character stay unchanged, like Go's `unicode.ToUpper`).
pub fn map_case(s: &[u8], upper: bool) -> String {
    let text = String::from_utf8_lossy(s);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        // Go maps each rune by its simple case mapping; the one rune whose
        // full lower case is longer than its simple one is U+0130 (`İ` → `i`).
        if !upper && c == '\u{130}' {
            out.push('i');
            continue;
        }
        let mut m: Vec<char> = if upper {
            c.to_uppercase().collect()
        } else {
            c.to_lowercase().collect()
        };
        if m.len() == 1 {
            out.push(m.remove(0));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case(5.0, "5")]
    #[case(-3.0, "-3")]
    #[case(-0.0, "0")]
    #[case(1e15, "1000000000000000")]
    #[case(9007199254740992.0, "9007199254740992")]
    #[case(-9223372036854775808.0, "-9223372036854775808")]
    #[case(0.1, "0.1")]
    #[case(0.0001, "0.0001")]
    #[case(0.00001, "1e-05")]
    #[case(100000.5, "100000.5")]
    #[case(1234567.5, "1.2345675e+06")]
    #[case(100000000.5, "1.000000005e+08")]
    #[case(1.0 / 3.0, "0.3333333333333333")]
    #[case(9223372036854775808.0, "9.223372036854776e+18")]
    #[case(1e19, "1e+19")]
    #[case(1e21, "1e+21")]
    #[case(f64::INFINITY, "+Inf")]
    #[case(f64::NEG_INFINITY, "-Inf")]
    #[case(f64::NAN, "NaN")]
    fn tostring_numbers(#[case] x: f64, #[case] want: &str) {
        assert_eq!(number_to_string(x), want);
    }

    #[rstest]
    #[case("10", None, Some(10.0))]
    #[case(" 1.5 ", None, Some(1.5))]
    #[case("5.", None, Some(5.0))]
    #[case(".5", None, Some(0.5))]
    #[case("1.5e3", None, Some(1500.0))]
    #[case("1e3", None, None)]
    #[case("inf", None, None)]
    #[case("99999999999999999999", None, None)]
    #[case("1_000", None, None)]
    #[case("0x10", None, Some(16.0))]
    #[case("-0x10", None, None)]
    #[case("ff", Some(16), Some(255.0))]
    #[case("-12", None, Some(-12.0))]
    #[case("010", None, Some(10.0))]
    #[case("", None, None)]
    fn tonumber_strings(#[case] s: &str, #[case] base: Option<u32>, #[case] want: Option<f64>) {
        assert_eq!(tonumber_str(s, base), want);
    }

    fn fmt(f: &str, args: &[FmtArg]) -> String {
        String::from_utf8(go_format(f.as_bytes(), args).unwrap()).unwrap()
    }

    #[rstest]
    #[case("%d", vec![FmtArg::Number(3.7)], "3")]
    #[case("%d", vec![FmtArg::Str(b"42".to_vec())], "42")]
    #[case("%d", vec![FmtArg::Str(b"abc".to_vec())], "0")]
    #[case("%g", vec![FmtArg::Number(1234567.0)], "1.234567e+06")]
    #[case("%g", vec![FmtArg::Number(0.5)], "0.5")]
    #[case("%.3g", vec![FmtArg::Number(1.23456)], "1.23")]
    #[case("%f", vec![FmtArg::Number(1.5)], "1.500000")]
    #[case("%5.2f", vec![FmtArg::Number(1.23456)], " 1.23")]
    #[case("%e", vec![FmtArg::Number(1234.5)], "1.234500e+03")]
    #[case("%s", vec![FmtArg::Number(10.0)], "10")]
    #[case("%s-%s", vec![FmtArg::Str(b"a".to_vec())], "a-%!s(MISSING)")]
    #[case("%-5s|", vec![FmtArg::Str(b"ab".to_vec())], "ab   |")]
    #[case("%05d", vec![FmtArg::Number(-42.0)], "-0042")]
    #[case("%q", vec![FmtArg::Str(b"a\"b".to_vec())], "\"a\\\"b\"")]
    #[case("%c", vec![FmtArg::Number(200.0)], "È")]
    #[case("%x", vec![FmtArg::Number(255.0)], "ff")]
    #[case("100%%", vec![], "100%")]
    // Karmada: format-d-bool in tests/data/gopher-probes/format.yaml
    #[case("%d", vec![FmtArg::Bool(true)], "%!d(lua.LBool=true)")]
    // Karmada: format-index-arg and format-star-width in tests/data/gopher-probes/format.yaml
    #[case("%[2]d %[1]d", vec![FmtArg::Number(1.0), FmtArg::Number(2.0)], "2 1")]
    #[case("%*d", vec![FmtArg::Number(5.0)], "%!(BADWIDTH)%!d(MISSING)")]
    #[case("%[3]d", vec![FmtArg::Number(1.0)], "%!d(BADINDEX)")]
    fn go_format_cases(#[case] f: &str, #[case] args: Vec<FmtArg>, #[case] want: &str) {
        assert_eq!(fmt(f, &args), want);
    }

    #[test]
    fn format_output_is_bounded() {
        let f = "%9999d".repeat(2000);
        let args = vec![FmtArg::Number(1.0); 2000];
        assert!(go_format(f.as_bytes(), &args).is_err());
    }

    #[test]
    fn unicode_case() {
        assert_eq!(map_case("é".as_bytes(), true), "É");
        assert_eq!(map_case("ÀB".as_bytes(), false), "àb");
        assert_eq!(map_case("ß".as_bytes(), true), "ß");
    }
}
