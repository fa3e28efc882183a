//! Tests of quantities: parsing, rendering, arithmetic and measurement as Go's.

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
        "", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "e3",
        "E-7", "e+12", "e-30", "e19",
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

/// The machine-integer rendering gives the arbitrary-precision one's text
/// for every magnitude size, exponent, sign and format it takes on, and
/// declines only values beyond its range.
#[test]
fn canonical_small_agrees_with_canonical_general() {
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut magnitudes: Vec<u128> = vec![
        1,
        7,
        10,
        999,
        1000,
        1023,
        1024,
        1536,
        1 << 20,
        3 << 30,
        1 << 60,
        u128::from(u64::MAX),
        u128::from(u64::MAX) + 1,
    ];
    for _ in 0..400 {
        let bits = next() % 64 + 1;
        magnitudes.push(u128::from(next() >> (64 - bits)).max(1));
        // multiples of powers of 1024
        magnitudes.push(u128::from(next() % 5000 + 1) << (10 * (next() % 6)));
    }
    let mut compared = 0;
    for &mag in &magnitudes {
        for exp in -21..=21 {
            for neg in [false, true] {
                for format in [Format::BinarySI, Format::DecimalSI, Format::DecimalExponent] {
                    let value = Decimal::new(neg, natural::Nat::from_u128(mag), exp);
                    let quantity = Quantity {
                        value,
                        format,
                        repr: GoRepr::Dec { scale: 0 },
                        cached: None,
                    };
                    let general = quantity.canonical_general();
                    match quantity.canonical_small() {
                        Some(small) => {
                            assert_eq!(small, general, "{mag}e{exp} neg={neg} {format:?}");
                            compared += 1;
                        }
                        None => assert!(
                            mag > u128::from(u64::MAX) || (format == Format::BinarySI && exp > 0),
                            "declined {mag}e{exp} {format:?}"
                        ),
                    }
                }
            }
        }
    }
    assert!(compared > 80_000, "{compared}");
}
