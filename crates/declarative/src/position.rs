//! Where in its script a Lua failure happened, for people: Karmada's
//! message text stays as it is (it goes on the wire and into `pcall`
//! handlers); the position travels beside it, in [`ScriptPoint`].

use std::time::Duration;

use super::fault::ScriptError;

/// The point of a script a failure comes from, as far as it is known.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScriptPoint {
    /// 1-based script line: the line a runtime error names (`<string>:9:`),
    /// the line a compile error names, or the line that was running when
    /// the deadline passed.
    pub line: Option<usize>,
    /// 1-based column, when the message gives one (compile errors).
    pub column: Option<usize>,
    /// For a timeout: the time limit the run had.
    pub deadline: Option<Duration>,
}

impl ScriptPoint {
    /// The position a Lua message names: `<string>:LINE: ...` (runtime
    /// errors, anywhere in the text) or `<string> line:LINE(column:COL)`
    /// (compile errors).
    ///
    /// ```
    /// use karmada_interpreter::declarative::ScriptPoint;
    /// let p = ScriptPoint::from_message("<string>:9: attempt to index a nil value");
    /// assert_eq!((p.line, p.column), (Some(9), None));
    /// let p = ScriptPoint::from_message("<string> line:3(column:10) near 'return':   syntax error");
    /// assert_eq!((p.line, p.column), (Some(3), Some(10)));
    /// ```
    pub fn from_message(message: &str) -> Self {
        let mut point = Self::default();
        if let Some(rest) = after(message, "<string> line:") {
            let (line, rest) = digits(rest);
            point.line = line;
            point.column = rest.strip_prefix("(column:").and_then(|r| digits(r).0);
        } else if let Some(rest) = after(message, "<string>:") {
            if let (Some(line), rest) = digits(rest) {
                if rest.starts_with(':') {
                    point.line = Some(line);
                }
            }
        }
        point
    }

    /// The position prefix of `message` (`<string>:9:` or
    /// `<string> line:3(column:10)`) and the rest of the message, when the
    /// message has one; the prefix is where a file position can stand
    /// instead.
    pub fn split_prefix(message: &str) -> Option<(&str, &str)> {
        for marker in ["<string> line:", "<string>:"] {
            let Some(start) = message.find(marker) else {
                continue;
            };
            let rest = &message[start + marker.len()..];
            let (Some(_), tail) = digits(rest) else {
                continue;
            };
            let tail = if marker == "<string>:" {
                tail.strip_prefix(':')?
            } else {
                match tail.strip_prefix("(column:").map(digits) {
                    Some((Some(_), t)) => t.strip_prefix(')').unwrap_or(t),
                    _ => tail,
                }
            };
            return Some((&message[..start], tail.trim_start()));
        }
        None
    }
}

fn after<'a>(text: &'a str, marker: &str) -> Option<&'a str> {
    text.find(marker).map(|i| &text[i + marker.len()..])
}

fn digits(text: &str) -> (Option<usize>, &str) {
    let end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    (text[..end].parse().ok(), &text[end..])
}

/// A gopher-lua type code (Karmada's `result type 3 is not bool`) in words.
pub fn type_code_name(code: u8) -> &'static str {
    match code {
        0 => "nil",
        1 => "a boolean",
        2 => "a number",
        3 => "a string",
        4 => "a function",
        6 => "a thread",
        7 => "a table",
        8 => "a channel",
        _ => "userdata",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_split_off_the_message() {
        assert_eq!(
            ScriptPoint::split_prefix("<string>:9: attempt to index"),
            Some(("", "attempt to index"))
        );
        assert_eq!(
            ScriptPoint::split_prefix("failed to run 'GetComponents' script: <string>:4: boom"),
            Some(("failed to run 'GetComponents' script: ", "boom"))
        );
        assert_eq!(
            ScriptPoint::split_prefix("<string> line:2(column:5) near 'y':   parse error"),
            Some(("", "near 'y':   parse error"))
        );
        assert_eq!(ScriptPoint::split_prefix("context deadline exceeded"), None);
        // Lua patterns, as `expectError: {pattern: ...}` uses them.
        assert_eq!(
            crate::pattern_matches("<string>:9: boom", "^<string>:%d+:"),
            Ok(true)
        );
        assert_eq!(crate::pattern_matches("boom", "%d"), Ok(false));
        assert!(crate::pattern_matches("x", "[a").is_err());
        assert_eq!(ScriptPoint::from_message("<string>:x: y").line, None);
    }
}

/// A customization script's failure as the chain reports it: Karmada's
/// error (`error`, whose text goes on the wire and into `pcall` handlers)
/// and where in the script it happened (`at`, for people). It displays as
/// Karmada's text; [`script_error`] finds it behind a chain error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptFailure {
    /// The customization (or bundled kind) whose script failed.
    pub customization: String,
    /// The operation whose rule ran.
    pub operation: karmada_interpreter_core::api::InterpreterOperation,
    /// What failed, with Karmada's message.
    pub error: ScriptError,
    /// Where in the script.
    pub at: ScriptPoint,
}

impl std::fmt::Display for ScriptFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for ScriptFailure {
    /// A run that ran out of time is marked so that any layer-neutral code
    /// tells it ([`karmada_interpreter_core::error::Error::deadline_exceeded`]).
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self.error {
            ScriptError::Timeout(_) => Some(&karmada_interpreter_core::error::DeadlineExceeded),
            _ => None,
        }
    }
}

impl ScriptFailure {
    /// This failure as a chain error: [`karmada_interpreter_core::error::Error::Layer`] naming
    /// the customization and the operation, with this failure as its source.
    pub fn into_error(self) -> karmada_interpreter_core::error::Error {
        karmada_interpreter_core::error::Error::Layer {
            what: "customization",
            name: self.customization.clone(),
            operation: self.operation,
            object: None,
            source: Box::new(self),
        }
    }
}

impl ScriptError {
    /// This failure as the chain reports it: [`karmada_interpreter_core::error::Error::Layer`]
    /// naming the customization (or bundled kind) and the operation.
    pub fn into_error(
        self,
        customization: &str,
        operation: karmada_interpreter_core::api::InterpreterOperation,
    ) -> karmada_interpreter_core::error::Error {
        ScriptFailure {
            customization: customization.to_owned(),
            operation,
            at: ScriptPoint::from_message(self.message()),
            error: self,
        }
        .into_error()
    }
}

/// The script failure behind `error`, if a customization's script failed.
///
/// ```
/// use karmada_interpreter::{load, declarative::{script_error, ScriptError}, Interpreter};
/// use serde_json::json;
///
/// let items = load::customizations_from_str(r#"
/// apiVersion: config.karmada.io/v1alpha1
/// kind: ResourceInterpreterCustomization
/// metadata: {name: broken}
/// spec:
///   target: {apiVersion: example.io/v1, kind: Thing}
///   customizations:
///     healthInterpretation:
///       luaScript: |
///         function InterpretHealth(obj)
///           return obj.status.ready
///         end
/// "#, "broken.yaml").unwrap();
/// let chain = Interpreter::builder().customizations(items).build().unwrap();
/// let err = chain.interpret_health(&json!({"apiVersion": "example.io/v1", "kind": "Thing"})).unwrap_err();
/// let failure = script_error(&err).expect("a script failure");
/// assert!(matches!(failure.error, ScriptError::Runtime(_)));
/// assert_eq!(failure.at.line, Some(2));
/// ```
pub fn script_error(error: &karmada_interpreter_core::error::Error) -> Option<&ScriptFailure> {
    error.source_of::<ScriptFailure>()
}
