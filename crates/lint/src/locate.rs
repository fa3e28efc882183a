//! Script failures at their place in the customization file, for people.
//!
//! Karmada's messages name script positions (`<string>:9:`, `<string>
//! line:3(column:10)`) and keep them on the wire. A [`Locator`] knows where
//! each script of some customization files sits (the same mapping `lint`
//! reports its findings with) and rewrites a failure as
//! `FILE:LINE:COL: customization "name", rule healthInterpretation
//! (InterpretHealth): message`, with type codes in words and, for a
//! deadline, the limit and the line that was running.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use karmada_interpreter_core::api::InterpreterOperation;
use karmada_interpreter_core::error::Error;
use karmada_interpreter_declarative::{script_error, type_code_name, ScriptPoint};

use super::ScriptSite;

/// A failure's place in a customization file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The customization file (as given).
    pub file: String,
    /// 1-based file line.
    pub line: usize,
    /// 1-based file column.
    pub column: usize,
    /// The customization (`metadata.name`).
    pub customization: String,
    /// The rule's operation (its key is `operation.customization_member()`).
    pub operation: InterpreterOperation,
}

impl fmt::Display for Located {
    /// `FILE:LINE:COL: customization "name", rule member (Operation)`;
    /// for an object (no file): `customization "name", rule member
    /// (Operation), script line LINE, column COL`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.file.is_empty() {
            return write!(
                f,
                "customization {:?}, rule {} ({}), script line {}, column {}",
                self.customization,
                self.operation.customization_member(),
                self.operation,
                self.line,
                self.column
            );
        }
        write!(
            f,
            "{}:{}:{}: customization {:?}, rule {} ({})",
            self.file,
            self.line,
            self.column,
            self.customization,
            self.operation.customization_member(),
            self.operation
        )
    }
}

/// Where the scripts of some customization files sit.
#[derive(Debug, Clone, Default)]
pub struct Locator {
    sites: Vec<(String, ScriptSite)>,
    /// The sites of each customization (by name), as indexes into `sites`
    /// in the order learnt: a failure is located without going through
    /// every script known.
    by_customization: HashMap<String, Vec<usize>>,
}

impl Locator {
    /// A locator that knows no file.
    pub fn new() -> Self {
        Self::default()
    }

    /// A locator for the customization files `paths` (files that cannot
    /// be read are left out: their failures keep Karmada's text).
    pub fn for_files<P: AsRef<Path>>(paths: impl IntoIterator<Item = P>) -> Self {
        let mut locator = Self::new();
        for path in paths {
            locator.add_file(path.as_ref());
        }
        locator
    }

    /// A locator for one customization as the API server holds it (JSON,
    /// no file): places are script lines and columns, named by the
    /// customization and its rule.
    pub fn for_object(object: &serde_json::Value) -> Self {
        let mut locator = Self::new();
        let Ok(text) = serde_json::to_string_pretty(object) else {
            return locator;
        };
        let mut ignored = Vec::new();
        for mut site in super::sites(&text, &mut ignored) {
            site.placement = super::Placement {
                line: 1,
                indent: 0,
                folded: None,
            };
            locator.learn(String::new(), site);
        }
        locator
    }

    fn learn(&mut self, file: String, site: ScriptSite) {
        self.by_customization
            .entry(site.customization.clone())
            .or_default()
            .push(self.sites.len());
        self.sites.push((file, site));
    }

    /// Learns the scripts of the customization file `path`.
    pub fn add_file(&mut self, path: &Path) {
        if let Ok(text) = std::fs::read_to_string(path) {
            self.add_text(&path.display().to_string(), &text);
        }
    }

    /// Learns the scripts of a customization file's `text`, named `file`.
    pub fn add_text(&mut self, file: &str, text: &str) {
        let mut ignored = Vec::new();
        for site in super::sites(text, &mut ignored) {
            self.learn(file.to_owned(), site);
        }
    }

    /// The file position of script point `at` of `customization`'s rule for
    /// `operation`; without a script line, the script's first line.
    pub fn locate(
        &self,
        customization: &str,
        operation: InterpreterOperation,
        at: &ScriptPoint,
    ) -> Option<Located> {
        let (file, site) = self
            .by_customization
            .get(customization)?
            .iter()
            .map(|&i| &self.sites[i])
            .find(|(_, s)| s.operation == operation)?;
        let line = at.line.unwrap_or(1);
        let column = match at.column {
            Some(c) => c,
            // Runtime errors name a line: point at its first character.
            None => site
                .text
                .lines()
                .nth(line.saturating_sub(1))
                .map_or(1, |l| l.len() - l.trim_start().len() + 1),
        };
        let (line, column) = site.placement.locate(line, column);
        Some(Located {
            file: file.clone(),
            line,
            column,
            customization: customization.to_owned(),
            operation,
        })
    }

    /// The place of a script failure (a
    /// [`karmada_interpreter_declarative::ScriptFailure`] of a customization
    /// this locator knows).
    pub fn locate_error(&self, error: &Error) -> Option<Located> {
        let failure = script_error(error)?;
        self.locate(&failure.customization, failure.operation, &failure.at)
    }

    /// `error` for people: a script failure at its file position with its
    /// message (see [`Locator::describe_message`]); any other error as it
    /// is.
    pub fn describe(&self, error: &Error) -> String {
        match script_error(error) {
            Some(f) => {
                self.describe_message(&f.customization, f.operation, f.error.message(), &f.at)
            }
            None => error.to_string(),
        }
    }

    /// A script failure's `message` (Karmada's text) for people: the file
    /// position, customization and rule in front, the script position
    /// (`<string>:9:`) taken out, type codes in words, and for a deadline
    /// the limit and the running line. Without a known place: Karmada's
    /// text behind the customization and operation.
    pub fn describe_message(
        &self,
        customization: &str,
        operation: InterpreterOperation,
        message: &str,
        at: &ScriptPoint,
    ) -> String {
        let place = self.locate(customization, operation, at);
        let running = match (&place, at.line) {
            (Some(p), Some(_)) if p.file.is_empty() => {
                Some(format!("script line {} was running", p.line))
            }
            (Some(p), Some(_)) => Some(format!("line {} of {} was running", p.line, p.file)),
            (None, Some(line)) => Some(format!("script line {line} was running")),
            _ => None,
        };
        let mut text = explain(message, at, running.as_deref());
        match place {
            Some(place) => {
                if let Some((before, after)) = ScriptPoint::split_prefix(&text) {
                    text = format!("{before}{after}");
                }
                format!("{place}: {text}")
            }
            None => format!("customization {customization:?}: {operation}: {text}"),
        }
    }
}

/// Karmada's `message` with what people need beside it: a type code in
/// words (`result type 3 is not bool (the function returned a string)`), for a
/// deadline, the limit and the script line that was running.
/// `running` says which line was running at a deadline.
pub fn explain(message: &str, at: &ScriptPoint, running: Option<&str>) -> String {
    let mut text = message.to_owned();
    if let Some(rest) = message
        .find("result type ")
        .map(|i| &message[i + "result type ".len()..])
    {
        let end = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if let Ok(code) = rest[..end].parse::<u8>() {
            text.push_str(&format!(
                " (the function returned {})",
                type_code_name(code)
            ));
        }
    }
    if let Some(limit) = at.deadline {
        text.push_str(&format!(
            " (the run took longer than its time limit of {limit:?}"
        ));
        if let Some(running) = running {
            text.push_str(&format!("; {running}"));
        }
        text.push(')');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: demo
spec:
  target: {apiVersion: example.io/v1, kind: Demo}
  customizations:
    healthInterpretation:
      luaScript: |
        function InterpretHealth(obj)
          local x = 1
            return obj.status.conditions
        end
"#;

    #[test]
    fn script_lines_become_file_lines() {
        let mut locator = Locator::new();
        locator.add_text("c.yaml", FILE);
        let op = InterpreterOperation::InterpretHealth;
        let at = ScriptPoint::from_message("<string>:3: attempt to index");
        let place = locator.locate("demo", op, &at).unwrap();
        assert_eq!((place.line, place.column), (12, 13));
        assert_eq!(
            locator.describe_message("demo", op, "<string>:3: attempt to index", &at),
            "c.yaml:12:13: customization \"demo\", rule healthInterpretation (InterpretHealth): attempt to index"
        );
        // No line (a result of the wrong type): the script's first line.
        let none = ScriptPoint::default();
        assert_eq!(
            locator.describe_message("demo", op, "result type 3 is not bool", &none),
            "c.yaml:10:9: customization \"demo\", rule healthInterpretation (InterpretHealth): result type 3 is not bool (the function returned a string)"
        );
        // Unknown customization: Karmada's text, named.
        assert_eq!(
            locator.describe_message("other", op, "<string>:3: x", &at),
            "customization \"other\": InterpretHealth: <string>:3: x"
        );
    }

    #[test]
    fn deadlines_name_the_limit_and_the_line() {
        let at = ScriptPoint {
            line: Some(2),
            column: None,
            deadline: Some(std::time::Duration::from_millis(250)),
        };
        assert_eq!(
            explain("context deadline exceeded", &at, Some("line 7 of c.yaml was running")),
            "context deadline exceeded (the run took longer than its time limit of 250ms; line 7 of c.yaml was running)"
        );
        let mut locator = Locator::new();
        locator.add_text("c.yaml", FILE);
        let op = InterpreterOperation::InterpretHealth;
        assert_eq!(
            locator.describe_message("demo", op, "context deadline exceeded", &at),
            "c.yaml:11:11: customization \"demo\", rule healthInterpretation (InterpretHealth): context deadline exceeded (the run took longer than its time limit of 250ms; line 11 of c.yaml was running)"
        );
    }
}
