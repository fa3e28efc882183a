//! What the commands share in how they talk to people and to CI: the
//! `-o/--output` vocabulary, `-q`, colour (on a terminal, unless NO_COLOR),
//! progress bars (on a terminal only), durations and `--timeout`.

use std::io::IsTerminal;
use std::time::Duration;

use crate::error::Error;
use anstyle::{AnsiColor, Style};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

/// `-o/--output` of the commands that print results but no test report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Output {
    /// For people: a table or one line per result.
    Text,
    /// One JSON document.
    Json,
    /// One YAML document.
    Yaml,
}

/// `-o/--output` of the commands that print a test report (`test`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportOutput {
    /// One block per failing case and a summary line (`human` is an old
    /// spelling).
    #[value(alias = "human")]
    Text,
    /// A JSON document.
    Json,
    /// The JSON document's content as YAML.
    Yaml,
    /// JUnit XML for CI services, one testcase per golden case.
    Junit,
}

/// What `--help` says about exit codes (every command).
pub const EXIT_CODES: &str = "Exit codes: 0 when everything checked passed; 1 when something \
checked failed (a case, a finding, a document, a benchmark's result, a difference); 2 when the command could \
not run (bad flags, unreadable or invalid input, or nothing to check in what it searched).";

/// Prints `value` on stdout as JSON (`Output::Json`) or YAML.
pub fn print_structured<T: Serialize>(value: &T, yaml: bool, what: &str) -> Result<(), Error> {
    let text = if yaml {
        serde_saphyr::to_string(value).map_err(|e| e.to_string())
    } else {
        serde_json::to_string_pretty(value).map_err(|e| e.to_string())
    }
    .map_err(|message| Error::Encode {
        what: format!("{what} output"),
        message,
    })?;
    if text.ends_with('\n') {
        print!("{text}");
    } else {
        println!("{text}");
    }
    Ok(())
}

/// The styles of verdicts; anstream drops them when stdout is no terminal,
/// under NO_COLOR, and keeps them under CLICOLOR_FORCE.
pub fn verdict_style(verdict: &str) -> Style {
    let color = match verdict {
        "PASS" | "ok" => AnsiColor::Green,
        "FAIL" | "error" => AnsiColor::Red,
        "warning" | "DEVIATION" => AnsiColor::Yellow,
        _ => AnsiColor::Cyan,
    };
    Style::new().fg_color(Some(color.into())).bold()
}

/// `text` with its first word styled as a verdict (`FAIL file: ...`).
pub fn colour_first_word(text: &str) -> String {
    match text.split_once(' ') {
        Some((word, rest)) => {
            let style = verdict_style(word);
            format!("{style}{word}{style:#} {rest}")
        }
        None => text.to_owned(),
    }
}

/// `text` styled green when `ok`, else red.
pub fn colour_summary(text: &str, ok: bool) -> String {
    let style = verdict_style(if ok { "PASS" } else { "FAIL" });
    format!("{style}{text}{style:#}")
}

/// A progress bar on stderr for `len` steps (a spinner when unknown), only
/// when stderr is a terminal and not `quiet`: hidden otherwise, so logs and
/// pipes get no control characters.
pub fn progress(len: Option<u64>, quiet: bool, what: &str) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = match len {
        Some(n) => ProgressBar::new(n).with_style(
            ProgressStyle::with_template(&format!(
                "{{spinner}} {what} {{pos}}/{{len}} [{{bar:30}}] {{elapsed}} (eta {{eta}}) {{wide_msg}}"
            ))
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        ),
        None => ProgressBar::new_spinner().with_style(
            ProgressStyle::with_template(&format!("{{spinner}} {what} {{pos}} {{elapsed}} {{wide_msg}}"))
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        ),
    };
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

/// `0.42s`, `12.3s`, `2m05s`: a run's duration for a summary line.
pub fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 10.0 {
        format!("{s:.2}s")
    } else if s < 60.0 {
        format!("{s:.1}s")
    } else {
        format!("{}m{:02}s", d.as_secs() / 60, d.as_secs() % 60)
    }
}

/// A duration as `--timeout` takes it: `500ms`, `2s`, `1m`, or a number of
/// milliseconds.
pub fn parse_timeout(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => text.split_at(i),
        None => (text, "ms"),
    };
    let n: u64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a duration: write e.g. 500ms, 2s or 1m"))?;
    let d = match unit.trim() {
        "ms" => Duration::from_millis(n),
        "s" => Duration::from_secs(n),
        "m" => Duration::from_secs(n.saturating_mul(60)),
        other => {
            return Err(format!(
                "unknown unit {other:?} in {text:?}: write ms, s or m (e.g. 500ms, 2s)"
            ))
        }
    };
    if d.is_zero() {
        return Err("the timeout must be longer than zero".to_owned());
    }
    Ok(d)
}

/// `--timeout`: the Lua deadline of one call of any script the chain runs.
#[derive(Debug, Clone, clap::Args)]
pub struct TimeoutArg {
    /// Deadline of one call of a Lua script (user and bundled
    /// customizations, Argo CD health checks): `500ms`, `2s`, `1m` or
    /// milliseconds. Default: Karmada's 1s.
    #[arg(long, value_name = "DURATION", value_parser = parse_timeout)]
    pub timeout: Option<Duration>,
}

impl TimeoutArg {
    /// The Lua limits with this deadline.
    pub fn limits(&self) -> karmada_interpreter::declarative::Limits {
        let mut limits = karmada_interpreter::declarative::Limits::default();
        if let Some(t) = self.timeout {
            limits.timeout = t;
        }
        limits
    }
}

/// Why a search for customization documents found none: how many
/// .json/.yaml/.yml files it read, and `-R` when it did not recurse.
pub fn none_holding(files: usize, recursive: bool) -> String {
    let mut hint = format!(
        "{files} .json/.yaml/.yml file(s) read, none holding a document of kind ResourceInterpreterCustomization"
    );
    if !recursive {
        hint.push_str(" (add -R to search subdirectories)");
    }
    hint
}

/// The error of a command that found nothing to check.
pub fn nothing_found(what: &str, searched: &[String], hint: &str) -> Error {
    Error::NothingFound {
        what: what.to_owned(),
        searched: if searched.is_empty() {
            "(nothing given)".to_owned()
        } else {
            searched.join(", ")
        },
        hint: if hint.is_empty() {
            String::new()
        } else {
            format!(": {hint}")
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_parse_with_units() {
        assert_eq!(parse_timeout("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_timeout("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_timeout("1m"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_timeout("700"), Ok(Duration::from_millis(700)));
        assert!(parse_timeout("0s").is_err());
        assert!(parse_timeout("2h").unwrap_err().contains("unknown unit"));
        assert!(parse_timeout("soon").is_err());
    }

    #[test]
    fn durations_read_well() {
        assert_eq!(seconds(Duration::from_millis(420)), "0.42s");
        assert_eq!(seconds(Duration::from_millis(12_340)), "12.3s");
        assert_eq!(seconds(Duration::from_secs(125)), "2m05s");
    }
}
