//! Reading golden case files.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::error::{GoldenError, Result};
use karmada_interpreter::api::{AggregatedStatusItem, InterpreterOperation};
use karmada_interpreter::interpreter::{InputError, Inputs, ObjectInput, Request};

/// One golden case: an operation, its inputs and what it must produce.
#[derive(Debug, Clone, PartialEq)]
pub struct GoldenCase {
    /// The file the case came from.
    pub file: PathBuf,
    /// 1-based position of the case's document in the file.
    pub index: usize,
    /// `name`.
    pub name: String,
    /// `description`.
    pub description: String,
    /// `operation` (matched case-insensitively).
    pub operation: InterpreterOperation,
    /// `desiredObj`.
    pub desired: Option<Value>,
    /// `observedObj`.
    pub observed: Option<Value>,
    /// `statusItems`: `None` when absent or null, `Some(vec![])` for `[]`.
    pub status_items: Option<Vec<AggregatedStatusItem>>,
    /// Why `statusItems` cannot be decoded the way Karmada decodes them (an
    /// item that is not an object, a field of the wrong type): the case
    /// loads, and its operation fails with this text.
    pub status_items_error: Option<String>,
    /// `inputReplicas` (0 when absent).
    pub input_replicas: i64,
    /// `inputComponents` (`ReviseComponents`, the `karmada-next` profile):
    /// the per-component assignment; `None` when absent or null (Lua
    /// `nil`), `Some(vec![])` for `[]`.
    #[cfg(feature = "karmada-next")]
    pub input_components: Option<Vec<karmada_interpreter::api::TargetComponent>>,
    /// `output`: result name → expected value.
    pub output: Map<String, Value>,
    /// `outputContains`: result name → a partial expectation, the members
    /// (at any depth) that must match; members it does not state are
    /// ignored ([`crate::Match::Partial`]).
    pub output_contains: Option<Map<String, Value>>,
    /// `assert`: CEL expressions that must each be true of the answer
    /// (over `output`, `object`, `desiredObj`, ...; feature `cel`).
    pub assertions: Vec<String>,
    /// `captured`: the case was written by `karmada-interpreter capture`
    /// from a cluster, its expected output being what an interpreter
    /// answered then; it stays marked until a person has reviewed it.
    pub captured: Option<Map<String, Value>>,
    /// `expectError: true` (or a message): the operation must fail.
    pub expect_error: bool,
    /// `expectError: "text"`, `{message: "text"}` or `{pattern: "..."}`:
    /// what the error must say.
    pub expect_error_message: Option<ErrorMatch>,
}

/// What a failing case's error must say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorMatch {
    /// `expectError: "text"` or `expectError: {message: "text"}`: the
    /// error contains `text`.
    Substring(String),
    /// `expectError: {pattern: "..."}`: the error matches this Lua pattern
    /// somewhere (as `string.find` does: `%d+`, `.-`, `^...$`).
    Pattern(String),
}

impl ErrorMatch {
    /// Whether `error` says what is expected.
    pub fn matches(&self, error: &str) -> bool {
        match self {
            Self::Substring(text) => error.contains(text.as_str()),
            Self::Pattern(pattern) => {
                karmada_interpreter::declarative::pattern_matches(error, pattern).unwrap_or(false)
            }
        }
    }

    /// Reads `expectError`'s value when it is not a boolean.
    fn parse(value: &Value) -> std::result::Result<Self, String> {
        const KEYS: &str = "`expectError` must be `true`, a message (a string), or `{message: \"text\"}` or `{pattern: \"lua pattern\"}`";
        match value {
            Value::String(text) => Ok(Self::Substring(text.clone())),
            Value::Object(map) => match (map.len(), map.get("message"), map.get("pattern")) {
                (1, Some(Value::String(text)), None) => Ok(Self::Substring(text.clone())),
                (1, None, Some(Value::String(pattern))) => {
                    karmada_interpreter::declarative::pattern_matches("", pattern)
                        .map_err(|e| format!("`expectError.pattern` is not a Lua pattern: {e}"))?;
                    Ok(Self::Pattern(pattern.clone()))
                }
                _ => Err(format!("{KEYS}, got {value}")),
            },
            other => Err(format!("{KEYS}, got {other}")),
        }
    }
}

impl std::fmt::Display for ErrorMatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Substring(text) => write!(f, "an error containing {text:?}"),
            Self::Pattern(pattern) => write!(f, "an error matching the pattern {pattern:?}"),
        }
    }
}

impl GoldenCase {
    /// The inputs the case gives (`desiredObj`, `observedObj`,
    /// `inputReplicas`, `statusItems`).
    #[allow(clippy::needless_update)]
    pub fn inputs(&self) -> Inputs<'_> {
        Inputs {
            desired: self.desired.as_ref(),
            observed: self.observed.as_ref(),
            replicas: self.input_replicas,
            status_items: self.status_items.as_deref(),
            #[cfg(feature = "karmada-next")]
            components: self.input_components.as_deref(),
            // The floor's members of features this crate is built without.
            ..Inputs::default()
        }
    }

    /// The request the case describes (see [`Inputs::request`] for the
    /// slot rules).
    pub fn request(&self) -> Result<Request<'_>, InputError> {
        self.inputs().request(self.operation)
    }

    /// What the case expects, as its file states it: `output`,
    /// `outputContains` and `expectError`, each when given (shown with a
    /// failure).
    pub fn expectation(&self) -> Value {
        let mut map = Map::new();
        if !self.output.is_empty()
            || (self.output_contains.is_none() && self.assertions.is_empty() && !self.expect_error)
        {
            map.insert("output".into(), Value::Object(self.output.clone()));
        }
        if let Some(partial) = &self.output_contains {
            map.insert("outputContains".into(), Value::Object(partial.clone()));
        }
        if !self.assertions.is_empty() {
            map.insert("assert".into(), serde_json::json!(self.assertions));
        }
        if self.expect_error {
            map.insert(
                "expectError".into(),
                match &self.expect_error_message {
                    None => Value::Bool(true),
                    Some(ErrorMatch::Substring(text)) => Value::String(text.clone()),
                    Some(ErrorMatch::Pattern(p)) => serde_json::json!({"pattern": p}),
                },
            );
        }
        Value::Object(map)
    }

    /// What the case's `assert` expressions see with the operation's
    /// results `actual`: `output` (the results), `object` (the object the
    /// operation ran on: `desiredObj`, else `observedObj`), `desiredObj`,
    /// `observedObj`, `statusItems` (those given) and `inputReplicas`.
    pub fn variables(&self, actual: &Map<String, Value>) -> Map<String, Value> {
        let mut vars = Map::new();
        vars.insert("output".into(), Value::Object(actual.clone()));
        if let Some(object) = self.desired.as_ref().or(self.observed.as_ref()) {
            vars.insert("object".into(), object.clone());
        }
        for (name, value) in [
            ("desiredObj", &self.desired),
            ("observedObj", &self.observed),
        ] {
            if let Some(v) = value {
                vars.insert(name.into(), v.clone());
            }
        }
        if let Some(items) = &self.status_items {
            vars.insert(
                "statusItems".into(),
                serde_json::to_value(items).unwrap_or(Value::Null),
            );
        }
        vars.insert("inputReplicas".into(), Value::from(self.input_replicas));
        vars
    }

    /// `file: case "name" (operation)` for messages.
    pub fn label(&self) -> String {
        format!(
            "{}: case {:?} ({})",
            self.file.display(),
            self.name,
            self.operation
        )
    }
}

/// Reads every case of a file. Each element is one document: a malformed
/// document is an error naming the file and the case, and does not hide the
/// others. Empty documents are skipped.
pub fn load_cases(path: &Path) -> Vec<Result<GoldenCase>> {
    match crate::discover::read(path) {
        Ok(text) => parse_cases(&text, path),
        Err(e) => vec![Err(e)],
    }
}

/// Parses the cases of a case file's text (`file` is used in messages).
///
/// ```
/// use karmada_interpreter_golden::parse_cases;
///
/// let cases = parse_cases(r#"
/// name: healthy pod
/// operation: interprethealth
/// observedObj: {apiVersion: v1, kind: Pod, status: {phase: Running}}
/// output: {healthy: true}
/// "#, "inline.yaml".as_ref());
/// let case = cases[0].as_ref().unwrap();
/// assert_eq!(case.operation.as_str(), "InterpretHealth");
/// assert_eq!(case.output["healthy"], true);
/// ```
pub fn parse_cases(text: &str, file: &Path) -> Vec<Result<GoldenCase>> {
    karmada_interpreter::yaml::documents(text)
        .into_iter()
        .filter_map(|doc| match doc {
            Err(e) => Some(Err(GoldenError::CaseFile {
                file: file.to_owned(),
                message: format!(
                    "case #{} (line {}): invalid YAML: {}",
                    e.index, e.line, e.message
                ),
            })),
            Ok(doc) => doc
                .value
                .map(|value| parse_case(value, file, doc.index, doc.line)),
        })
        .collect()
}

fn parse_case(value: Value, file: &Path, index: usize, line: usize) -> Result<GoldenCase> {
    let Value::Object(doc) = value else {
        return Err(case_error(
            file,
            index,
            line,
            "",
            "a case must be a mapping".into(),
        ));
    };
    if let Some((key, _)) = doc
        .iter()
        .find(|(k, _)| !CASE_KEYS.iter().any(|known| k.eq_ignore_ascii_case(known)))
    {
        let name = doc
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("name"))
            .and_then(|(_, v)| v.as_str())
            .unwrap_or("");
        return Err(case_error(
            file,
            index,
            line,
            name,
            format!("unknown key `{key}` (did you mean `{}`?)", nearest_key(key)),
        ));
    }
    let get = |key: &str| {
        doc.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v)
            .filter(|v| !v.is_null())
    };
    let name = match get("name") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    let fail = |message: String| case_error(file, index, line, &name, message);
    let string = |key: &str| match get(key) {
        None => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(fail(format!("`{key}` must be a string, got {other}"))),
    };
    let description = string("description")?;
    let op_text = string("operation")?;
    if op_text.is_empty() {
        return Err(fail("`operation` is missing".into()));
    }
    let operation =
        InterpreterOperation::parse_case_insensitive(&op_text).map_err(|e| fail(e.to_string()))?;
    let object = |key: &str| -> Result<Option<Value>> {
        match get(key) {
            None => Ok(None),
            Some(v @ Value::Object(m)) => {
                if m.get("kind")
                    .and_then(Value::as_str)
                    .is_none_or(str::is_empty)
                {
                    return Err(fail(format!("`{key}` has no `kind`")));
                }
                Ok(Some(v.clone()))
            }
            Some(other) => Err(fail(format!("`{key}` must be an object, got {other}"))),
        }
    };
    let desired = object("desiredObj")?;
    let observed = object("observedObj")?;
    let (status_items, status_items_error) = match get("statusItems") {
        None => (None, None),
        Some(v) => match decode_status_items(v) {
            Ok(items) => (Some(items), None),
            Err(e) => (None, Some(e)),
        },
    };
    let input_replicas = match get("inputReplicas") {
        None => 0,
        Some(v) => v
            .as_i64()
            .ok_or_else(|| fail(format!("`inputReplicas` must be an integer, got {v}")))?,
    };
    #[cfg(feature = "karmada-next")]
    let input_components = match get("inputComponents") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            serde_json::from_value::<Vec<karmada_interpreter::api::TargetComponent>>(v.clone())
                .map_err(|e| {
                    fail(format!(
                        "`inputComponents` must be a list of {{name, replicas}}: {e}"
                    ))
                })?,
        ),
    };
    let output = match get("output") {
        None => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(other) => return Err(fail(format!("`output` must be a mapping, got {other}"))),
    };
    let output_contains = match get("outputContains") {
        None => None,
        Some(Value::Object(m)) => Some(m.clone()),
        Some(other) => {
            return Err(fail(format!(
                "`outputContains` must be a mapping, got {other}"
            )))
        }
    };
    let assertions = match get("assert") {
        None => Vec::new(),
        Some(Value::String(text)) => vec![text.clone()],
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::String(text) => Ok(text.clone()),
                other => Err(fail(format!(
                    "`assert[{i}]` must be a CEL expression (a string), got {other}"
                ))),
            })
            .collect::<Result<_>>()?,
        Some(other) => {
            return Err(fail(format!(
                "`assert` must be a list of CEL expressions, got {other}"
            )))
        }
    };
    let captured = match get("captured") {
        None => None,
        Some(Value::Object(m)) => Some(m.clone()),
        Some(other) => {
            return Err(fail(format!(
                "`captured` must be a mapping (written by `capture`), got {other}"
            )))
        }
    };
    let (expect_error, expect_error_message) = match get("expectError") {
        None => (false, None),
        Some(Value::Bool(b)) => (*b, None),
        Some(other) => (true, Some(ErrorMatch::parse(other).map_err(fail)?)),
    };
    if expect_error && (!output.is_empty() || output_contains.is_some() || !assertions.is_empty()) {
        return Err(fail(
            "a case with `expectError` cannot have an `output`, `outputContains` or `assert`"
                .into(),
        ));
    }
    for (i, text) in assertions.iter().enumerate() {
        crate::assertions::check(text).map_err(|e| fail(format!("`assert[{i}]`: {e}")))?;
    }
    let case = GoldenCase {
        file: file.to_owned(),
        index,
        name: name.clone(),
        description,
        operation,
        desired,
        observed,
        status_items,
        status_items_error,
        input_replicas,
        #[cfg(feature = "karmada-next")]
        input_components,
        output,
        output_contains,
        assertions,
        captured,
        expect_error,
        expect_error_message,
    };
    case.request().map_err(|e| fail(in_case_terms(&e)))?;
    let produced = karmada_interpreter::interpreter::result_names(operation);
    for (name, keys) in [
        ("output", Some(&case.output)),
        ("outputContains", case.output_contains.as_ref()),
    ] {
        if let Some(key) = keys
            .into_iter()
            .flat_map(Map::keys)
            .find(|k| !produced.contains(&k.as_str()))
        {
            return Err(fail(format!(
                "{name} key `{key}` is not a result of {operation} (expected one of: {})",
                produced.join(", ")
            )));
        }
    }
    if !case.expect_error
        && get("output").is_none()
        && case.output_contains.is_none()
        && case.assertions.is_empty()
    {
        return Err(fail(
            "a case needs an `output` (what the operation must produce), an `outputContains` (part of it), an `assert` (expressions true of it) or `expectError: true`"
                .into(),
        ));
    }
    Ok(case)
}

/// The keys a case may have (matched case-insensitively).
const CASE_KEYS: &[&str] = &[
    "name",
    "description",
    "operation",
    "desiredObj",
    "observedObj",
    "statusItems",
    "inputReplicas",
    #[cfg(feature = "karmada-next")]
    "inputComponents",
    "output",
    "outputContains",
    "assert",
    "captured",
    "expectError",
];

/// The valid key closest to `key` (edit distance, ignoring case).
fn nearest_key(key: &str) -> &'static str {
    let key = key.to_ascii_lowercase();
    CASE_KEYS
        .iter()
        .min_by_key(|known| strsim::damerau_levenshtein(&key, &known.to_ascii_lowercase()))
        .copied()
        .unwrap_or("name")
}

/// An input error worded with the case file's keys.
fn in_case_terms(error: &InputError) -> String {
    let key = |input| match input {
        ObjectInput::Desired => "desiredObj",
        ObjectInput::Observed => "observedObj",
    };
    match error {
        InputError::Missing { operation, input } => {
            format!("{operation} needs `{}`, which is missing", key(*input))
        }
        InputError::NoObject { operation } => {
            format!("{operation} needs desiredObj or observedObj; neither is given")
        }
        InputError::BothObjects { operation } => {
            format!("{operation} takes exactly one of desiredObj and observedObj, not both")
        }
        other => other.to_string(),
    }
}

fn case_error(file: &Path, index: usize, line: usize, name: &str, message: String) -> GoldenError {
    let case = if name.is_empty() {
        format!("case #{index} (line {line})")
    } else {
        format!("case #{index} {name:?} (line {line})")
    };
    GoldenError::CaseFile {
        file: file.to_owned(),
        message: format!("{case}: {message}"),
    }
}

/// `statusItems` decoded as Karmada's typed decoding does: a `null` field
/// or item is its zero value, an item that is neither an object nor `null`
/// is refused, naming it.
fn decode_status_items(v: &Value) -> std::result::Result<Vec<AggregatedStatusItem>, String> {
    let Value::Array(items) = v else {
        return Err(format!(
            "`statusItems` must be a list of status items, got {v}"
        ));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            if !item.is_object() && !item.is_null() {
                return Err(format!(
                    "statusItems[{i}]: a status item must be an object or null, got {item}"
                ));
            }
            serde_json::from_value(item.clone()).map_err(|e| format!("statusItems[{i}]: {e}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Result<GoldenCase> {
        parse_cases(text, Path::new("t.yaml")).remove(0)
    }

    const POD: &str = "{apiVersion: v1, kind: Pod, metadata: {name: p}}";

    #[test]
    fn keys_are_case_insensitive_and_status_items_keep_nil_vs_empty() {
        let c = one(&format!(
            "Name: x\nOPERATION: AggregateStatus\nDesiredObj: {POD}\nstatusItems: []\nOutput: {{aggregatedStatus: {{}}}}\n"
        ))
        .unwrap();
        assert_eq!(c.name, "x");
        assert_eq!(c.status_items, Some(vec![]));
        let c = one(&format!(
            "name: n\noperation: AggregateStatus\ndesiredObj: {POD}\noutput: {{aggregatedStatus: {{}}}}\n"
        ))
        .unwrap();
        assert_eq!(c.status_items, None);
    }

    #[test]
    fn status_items_decode_as_go_does() {
        // `null` fields are zero values.
        let c = one(&format!(
            "name: n\noperation: AggregateStatus\ndesiredObj: {POD}\nstatusItems:\n- clusterName: null\n  applied: null\n  appliedMessage: null\n  status: null\noutput: {{aggregatedStatus: {{}}}}\n"
        ))
        .unwrap();
        let items = c.status_items.unwrap();
        assert_eq!(items[0].cluster_name, "");
        assert!(!items[0].applied && items[0].status.is_none());
        // A `null` item is the zero item; member names match
        // case-insensitively, an exact match winning.
        let c = one(&format!(
            "name: n\noperation: AggregateStatus\ndesiredObj: {POD}\nstatusItems:\n- null\n- {{ClusterName: a, STATUS: {{x: 1}}, applied: true, Applied: false}}\noutput: {{aggregatedStatus: {{}}}}\n"
        ))
        .unwrap();
        let items = c.status_items.unwrap();
        assert_eq!(items[0], AggregatedStatusItem::default());
        assert_eq!(items[1].cluster_name, "a");
        assert_eq!(items[1].status, Some(serde_json::json!({"x": 1})));
        assert!(items[1].applied);
        // An item that is not an object: the case loads, the operation fails
        // naming the item.
        for bad in ["[]", "x", "1"] {
            let c = one(&format!(
                "name: n\noperation: AggregateStatus\ndesiredObj: {POD}\nstatusItems:\n- clusterName: a\n- {bad}\nexpectError: true\n"
            ))
            .unwrap();
            assert!(c.status_items.is_none());
            let e = c.status_items_error.unwrap();
            assert!(e.starts_with("statusItems[1]: "), "{e}");
        }
    }

    #[test]
    fn unknown_operation_names_file_and_case() {
        let err = one(&format!(
            "name: bad op\noperation: Prune\ndesiredObj: {POD}\n"
        ))
        .unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("t.yaml") && msg.contains("\"bad op\"") && msg.contains("Prune"),
            "{msg}"
        );
    }

    #[test]
    fn missing_slot_is_an_error() {
        let err = one(&format!("name: r\noperation: Retain\ndesiredObj: {POD}\n")).unwrap_err();
        assert!(err.to_string().contains("observedObj"), "{err}");
        let err = one("name: h\noperation: InterpretHealth\n").unwrap_err();
        assert!(
            err.to_string().contains("desiredObj or observedObj"),
            "{err}"
        );
        let err = one(&format!(
            "name: h\noperation: InterpretHealth\ndesiredObj: {POD}\nobservedObj: {POD}\n"
        ))
        .unwrap_err();
        assert!(err.to_string().contains("not both"), "{err}");
    }

    #[test]
    fn unknown_keys_name_the_nearest_valid_key() {
        let err = one(&format!(
            "name: typo\noperation: InterpretHealth\nobservedObj: {POD}\nouptut: {{healthy: true}}\n"
        ))
        .unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("\"typo\"")
                && msg.contains("unknown key `ouptut` (did you mean `output`?)"),
            "{msg}"
        );
        let err = one(&format!(
            "name: t\noperation: AggregateStatus\ndesiredObj: {POD}\nstatusitem: []\noutput: {{aggregatedStatus: {{}}}}\n"
        ))
        .unwrap_err();
        assert!(
            err.to_string().contains("did you mean `statusItems`"),
            "{err}"
        );
    }

    #[test]
    fn a_case_must_assert_something() {
        let err = one(&format!(
            "name: t\noperation: InterpretHealth\nobservedObj: {POD}\n"
        ))
        .unwrap_err();
        assert!(err.to_string().contains("needs an `output`"), "{err}");
        let err = one(&format!(
            "name: t\noperation: InterpretHealth\nobservedObj: {POD}\nexpectError: false\n"
        ))
        .unwrap_err();
        assert!(err.to_string().contains("needs an `output`"), "{err}");
        assert!(one(&format!(
            "name: t\noperation: InterpretHealth\nobservedObj: {POD}\nexpectError: true\n"
        ))
        .is_ok());
    }

    #[test]
    fn output_contains_is_a_partial_expectation() {
        let c = one(&format!(
            "name: t\noperation: InterpretStatus\nobservedObj: {POD}\noutputContains: {{status: {{phase: Running}}}}\n"
        ))
        .unwrap();
        assert_eq!(
            c.output_contains.unwrap()["status"],
            serde_json::json!({"phase": "Running"})
        );
        assert!(c.output.is_empty());
        let err = one(&format!(
            "name: t\noperation: InterpretStatus\nobservedObj: {POD}\noutputContains: {{healthy: true}}\n"
        ))
        .unwrap_err();
        assert!(
            err.to_string().contains("outputContains key `healthy`"),
            "{err}"
        );
        let err = one(&format!(
            "name: t\noperation: InterpretStatus\nobservedObj: {POD}\noutputContains: [1]\n"
        ))
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("`outputContains` must be a mapping"),
            "{err}"
        );
        let err = one(&format!(
            "name: t\noperation: InterpretStatus\nobservedObj: {POD}\noutputcontain: {{}}\n"
        ))
        .unwrap_err();
        assert!(
            err.to_string().contains("did you mean `outputContains`"),
            "{err}"
        );
    }

    #[test]
    fn assert_holds_expressions_checked_at_load() {
        let text = |asserts: &str| {
            format!("name: t\noperation: InterpretHealth\nobservedObj: {POD}\nassert: {asserts}\n")
        };
        let err = one(&text("[1]")).unwrap_err();
        assert!(
            err.to_string()
                .contains("`assert[0]` must be a CEL expression"),
            "{err}"
        );
        let err = one(&text("{a: b}")).unwrap_err();
        assert!(err.to_string().contains("`assert` must be a list"), "{err}");
        let err = one(&format!(
            "name: t\noperation: InterpretHealth\nobservedObj: {POD}\nassert: [output.healthy]\nexpectError: true\n"
        ))
        .unwrap_err();
        assert!(err.to_string().contains("cannot have"), "{err}");
        #[cfg(feature = "cel")]
        {
            let c = one(&text("output.healthy")).unwrap();
            assert_eq!(c.assertions, ["output.healthy"]);
            let err = one(&text("['output.healthy ==']")).unwrap_err();
            assert!(
                err.to_string()
                    .contains("`assert[0]`: `output.healthy ==` does not parse"),
                "{err}"
            );
        }
        // Without CEL a case with assertions does not load: never a silent pass.
        #[cfg(not(feature = "cel"))]
        {
            let err = one(&text("[output.healthy]")).unwrap_err();
            assert!(err.to_string().contains("this build has no CEL"), "{err}");
        }
    }

    #[test]
    fn objects_need_a_kind() {
        let err = one("name: k\noperation: InterpretHealth\nobservedObj: {apiVersion: v1}\n")
            .unwrap_err();
        assert!(err.to_string().contains("has no `kind`"), "{err}");
    }

    #[test]
    fn output_keys_must_belong_to_the_operation() {
        let err = one(&format!(
            "name: k\noperation: InterpretHealth\nobservedObj: {POD}\noutput: {{replica: 1}}\n"
        ))
        .unwrap_err();
        assert!(err.to_string().contains("`replica`"), "{err}");
    }

    #[test]
    fn bad_yaml_names_the_document_and_others_still_load() {
        let cases = parse_cases(
            &format!("name: a\noperation: InterpretHealth\nobservedObj: {POD}\nexpectError: true\n---\nname: [\n"),
            Path::new("t.yaml"),
        );
        assert!(cases[0].is_ok());
        let msg = cases[1].as_ref().unwrap_err().to_string();
        assert!(
            msg.contains("case #2") && msg.contains("invalid YAML"),
            "{msg}"
        );
    }

    #[test]
    fn empty_documents_are_skipped() {
        let cases = parse_cases(
            &format!("---\n# only a comment\n---\nname: a\noperation: InterpretHealth\nobservedObj: {POD}\nexpectError: true\n---\n"),
            Path::new("t.yaml"),
        );
        assert_eq!(cases.len(), 1);
    }
}
