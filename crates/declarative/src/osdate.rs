//! `os.date` / `os.time` helpers. The host's
//! local zone is taken to be UTC.

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

use karmada_interpreter_core::k8s::time::civil_from_days;
pub(crate) use karmada_interpreter_core::k8s::time::days_from_civil;

/// A broken-down UTC time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Civil {
    /// Year.
    pub year: i64,
    /// 1–12.
    pub month: i64,
    /// 1–31.
    pub day: i64,
    /// 0–23.
    pub hour: i64,
    /// 0–59.
    pub min: i64,
    /// 0–59.
    pub sec: i64,
    /// 0 = Sunday.
    pub wday: i64,
}

impl Civil {
    /// From Unix seconds.
    pub fn from_unix(secs: i64) -> Self {
        let days = secs.div_euclid(86_400);
        let rem = secs.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        Self {
            year,
            month,
            day,
            hour: rem / 3600,
            min: rem % 3600 / 60,
            sec: rem % 60,
            wday: (days + 4).rem_euclid(7),
        }
    }

    /// Applies `os.date`'s conversion specifiers (C `strftime`'s, as Go's
    /// Lua implements them) to this time.
    pub fn format(&self, fmt: &str) -> String {
        let mut out = String::new();
        let mut chars = fmt.chars();
        let month = MONTHS[((self.month - 1).rem_euclid(12)) as usize];
        let h12 = match self.hour % 12 {
            0 => 12,
            h => h,
        };
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            let Some(spec) = chars.next() else {
                out.push('%');
                break;
            };
            let piece = match spec {
                'Y' => format!("{}", self.year),
                'y' => format!("{:02}", self.year.rem_euclid(100)),
                'm' => format!("{:02}", self.month),
                'd' => format!("{:02}", self.day),
                'H' => format!("{:02}", self.hour),
                'I' => format!("{h12:02}"),
                'M' => format!("{:02}", self.min),
                'S' => format!("{:02}", self.sec),
                'p' => if self.hour < 12 { "AM" } else { "PM" }.to_owned(),
                'P' => if self.hour < 12 { "am" } else { "pm" }.to_owned(),
                'A' => DAYS[self.wday as usize % 7].to_owned(),
                'a' => "mon".to_owned(),
                'B' => month.to_owned(),
                'b' => month[..3].to_owned(),
                'c' => format!(
                    "{:02} {} {:02} {:02}:{:02} UTC",
                    self.day,
                    &month[..3],
                    self.year.rem_euclid(100),
                    self.hour,
                    self.min
                ),
                'x' => format!("{:02}/{:02}/{:02}", self.hour, self.min, self.sec),
                'X' => format!("{:02}:{:02}:{:02}", self.hour, self.min, self.sec),
                'F' => format!("{}-{:02}-{:02}", self.year, self.month, self.day),
                'z' => "+0000".to_owned(),
                'Z' => "UTC".to_owned(),
                'w' => self.wday.to_string(),
                '%' => "%".to_owned(),
                other => format!("%{other}"),
            };
            out.push_str(&piece);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trip() {
        // 2026-11-22T09:21:59Z
        let secs = days_from_civil(2026, 11, 22) * 86_400 + 9 * 3600 + 21 * 60 + 59;
        let c = Civil::from_unix(secs);
        assert_eq!(
            (c.year, c.month, c.day, c.hour, c.min, c.sec),
            (2026, 11, 22, 9, 21, 59)
        );
        assert_eq!(c.wday, 0); // a Sunday
        assert_eq!(c.format("%Y-%m-%dT%H:%M:%SZ"), "2026-11-22T09:21:59Z");
        assert_eq!(c.format("%a %x %j %%"), "mon 09/21/59 %j %");
        assert_eq!(c.format("%c"), "22 Nov 26 09:21 UTC");
    }
}
