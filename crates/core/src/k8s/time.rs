//! RFC 3339 times as Kubernetes' `metav1.Time` reads and writes them.
//!
//! Parsing accepts what Go's `time.Parse(time.RFC3339, …)` accepts
//! (`2024-03-01T10:04:30Z`, optional fraction of 1–9 digits after `.` or
//! `,`, `Z` or a
//! `±hh:mm` offset); formatting writes UTC. Hand-written because status
//! handling parses many times per call.

use std::fmt::Write as _;

/// An instant: seconds since the Unix epoch plus nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time {
    secs: i64,
    nanos: u32,
}

impl Time {
    /// The current wall-clock time.
    pub fn now() -> Time {
        match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
            Ok(d) => Time {
                secs: i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
                nanos: d.subsec_nanos(),
            },
            Err(_) => Time { secs: 0, nanos: 0 },
        }
    }

    /// Parses an RFC 3339 time; `None` when it is not one.
    pub(crate) fn parse(s: &str) -> Option<Time> {
        let b = s.as_bytes();
        if b.len() < 20 {
            return None;
        }
        let num = |from: usize, len: usize| -> Option<i64> {
            let digits = b.get(from..from + len)?;
            digits.iter().try_fold(0i64, |acc, &d| {
                d.is_ascii_digit().then(|| acc * 10 + i64::from(d - b'0'))
            })
        };
        let sep = |at: usize, c: u8| b.get(at) == Some(&c);
        if !(sep(4, b'-') && sep(7, b'-') && sep(10, b'T') && sep(13, b':') && sep(16, b':')) {
            return None;
        }
        let (year, month, day) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
        let (hour, minute, second) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
        if !(1..=12).contains(&month)
            || day < 1
            || day > days_in_month(year, month)
            || hour > 23
            || minute > 59
            || second > 59
        {
            return None;
        }
        let mut i = 19;
        let mut nanos = 0u32;
        // Go accepts `,` as the decimal separator as well.
        if sep(i, b'.') || sep(i, b',') {
            i += 1;
            let start = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            let digits = i - start;
            if digits == 0 || digits > 9 {
                return None;
            }
            let frac = num(start, digits)?;
            nanos = u32::try_from(frac * 10i64.pow(9 - digits as u32)).ok()?;
        }
        let offset = match b.get(i) {
            Some(b'Z') if i + 1 == b.len() => 0,
            Some(&c @ (b'+' | b'-')) if i + 6 == b.len() && sep(i + 3, b':') => {
                let (h, m) = (num(i + 1, 2)?, num(i + 4, 2)?);
                if h > 23 || m > 59 {
                    return None;
                }
                let off = h * 3600 + m * 60;
                if c == b'-' {
                    -off
                } else {
                    off
                }
            }
            _ => return None,
        };
        let secs = days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
            - offset;
        Some(Time { secs, nanos })
    }

    /// UTC at whole seconds, as `metav1.Time` encodes: `2024-03-01T10:04:30Z`.
    pub(crate) fn to_seconds_string(self) -> String {
        let mut s = String::with_capacity(20);
        self.write_civil(&mut s);
        s.push('Z');
        s
    }

    /// UTC with microseconds, as `metav1.MicroTime` encodes.
    pub(crate) fn to_micro_string(self) -> String {
        let mut s = String::with_capacity(27);
        self.write_civil(&mut s);
        let _ = write!(s, ".{:06}Z", self.nanos / 1000);
        s
    }

    /// UTC with the fraction needed to keep the instant exact (no trailing
    /// zeros), Go's `RFC3339Nano`: the canonical decoded form.
    pub fn to_exact_string(self) -> String {
        let mut s = String::with_capacity(30);
        self.write_civil(&mut s);
        if self.nanos != 0 {
            let frac = format!("{:09}", self.nanos);
            s.push('.');
            s.push_str(frac.trim_end_matches('0'));
        }
        s.push('Z');
        s
    }

    fn write_civil(self, s: &mut String) {
        let days = self.secs.div_euclid(86_400);
        let rem = self.secs.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        let _ = write!(
            s,
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
            rem / 3600,
            rem % 3600 / 60,
            rem % 60
        );
    }
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// algorithm). Months and days out of range carry over (`os.time` relies on it).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = y + (m - 1).div_euclid(12);
    let m = (m - 1).rem_euclid(12) + 1;
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// (year, month, day) of a day count since 1970-01-01 (proleptic Gregorian).
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_formats_rfc3339() {
        let t = Time::parse("2024-03-01T12:04:30.123456789+02:00").unwrap();
        assert_eq!(t.to_seconds_string(), "2024-03-01T10:04:30Z");
        assert_eq!(t.to_micro_string(), "2024-03-01T10:04:30.123456Z");
        assert_eq!(t.to_exact_string(), "2024-03-01T10:04:30.123456789Z");
        let t = Time::parse("1969-12-31T23:59:59Z").unwrap();
        assert_eq!(t.to_exact_string(), "1969-12-31T23:59:59Z");
        let t = Time::parse("2000-02-29T00:00:00,5-00:30").unwrap();
        assert_eq!(t.to_exact_string(), "2000-02-29T00:30:00.5Z");
    }

    #[test]
    fn rejects_non_rfc3339() {
        for bad in [
            "2024-03-01 10:04:30Z",
            "2024-03-01T10:04:30",
            "2024-02-30T00:00:00Z",
            "2023-02-29T00:00:00Z",
            "2024-03-01T24:00:00Z",
            "2024-03-01T10:04:30.Z",
            "2024-03-01T10:04:30+0200",
            "2024-03-01T10:04:30Zjunk",
            "yesterday",
            "",
        ] {
            assert!(Time::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn orders_by_instant() {
        let a = Time::parse("2024-03-01T10:00:00+01:00").unwrap();
        let b = Time::parse("2024-03-01T09:30:00Z").unwrap();
        assert!(a < b);
    }
}
