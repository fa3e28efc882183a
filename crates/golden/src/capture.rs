//! Golden cases captured from a cluster (`karmada-interpreter capture`):
//! objects as a cluster holds them (and, from a Karmada control plane, a
//! ResourceBinding's per-cluster status items), redacted, written as cases
//! whose expected output is what an interpreter answers now, each marked
//! `captured` until a person has reviewed it.
//!
//! Reading the cluster is the cluster crate's (`karmada_interpreter_cluster::capture`);
//! this module redacts ([`redact`], [`RedactPath`]) and writes
//! ([`capture_cases`]). The interpreter runs on the *redacted* inputs, so a
//! captured case is consistent with what it holds and no redacted value
//! reaches an expected output.
//!
//! ```
//! use karmada_interpreter::api::InterpreterOperation;
//! use karmada_interpreter::Interpreter;
//! use karmada_interpreter_golden::capture::{capture_cases, Captured, RedactPath};
//! use serde_json::json;
//!
//! let mut object = json!({"apiVersion": "apps/v1", "kind": "Deployment",
//!     "metadata": {"name": "web", "namespace": "shop", "annotations": {"token": "s3cret"}},
//!     "spec": {"replicas": 3}});
//! let paths = [RedactPath::parse("metadata.annotations.token").unwrap()];
//! let redacted = karmada_interpreter_golden::capture::redact(&mut object, &paths);
//! assert_eq!(redacted, ["metadata.annotations.token"]);
//! let captured = Captured { from: "cluster prod".into(), interpreter: "builtin".into(),
//!                           redacted, ..Captured::default() };
//! let cases = capture_cases(&Interpreter::default(), &object, None,
//!                           &[InterpreterOperation::InterpretReplica], &captured);
//! let (op, text) = &cases[0];
//! assert_eq!(*op, InterpreterOperation::InterpretReplica);
//! assert!(text.contains("replica: 3") && text.contains("captured:") && !text.contains("s3cret"));
//! ```

use serde_json::{json, Map, Value};

use karmada_interpreter::api::{AggregatedStatusItem, InterpreterOperation};
use karmada_interpreter::interpreter::{results_map, Inputs};
use karmada_interpreter::Interpreter;

/// What replaces a redacted value (a Secret's `data` gets its base64,
/// so the value stays valid base64).
pub const REDACTED: &str = "REDACTED";

/// One step of a [`RedactPath`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    /// A member by name.
    Member(String),
    /// A list item by index.
    Index(usize),
    /// Every member or item.
    All,
}

/// A path to redact: a JSONPath subset, `$.spec.template.spec.containers[*].env`,
/// with or without the leading `$.`; members by name (`.name`, `['a.b']`),
/// list items by index (`[0]`) and every member or item (`[*]`, `.*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedactPath {
    text: String,
    steps: Vec<Step>,
}

/// Why a `--redact` path does not parse.
#[derive(Debug, thiserror::Error)]
#[error("--redact {path:?}: {message} (expected a path such as `spec.template.spec.containers[*].env` or `$.data['tls.key']`)")]
pub struct RedactPathError {
    /// The path given.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl RedactPath {
    /// Parses `text`.
    pub fn parse(text: &str) -> Result<Self, RedactPathError> {
        let fail = |message: &str| RedactPathError {
            path: text.to_owned(),
            message: message.to_owned(),
        };
        let rest = text.trim();
        let rest = rest
            .strip_prefix("$.")
            .or_else(|| rest.strip_prefix('$'))
            .unwrap_or(rest);
        let mut steps = Vec::new();
        let mut chars = rest.chars().peekable();
        let mut name = String::new();
        let flush = |name: &mut String, steps: &mut Vec<Step>| {
            if !name.is_empty() {
                let taken = std::mem::take(name);
                steps.push(if taken == "*" {
                    Step::All
                } else {
                    Step::Member(taken)
                });
            }
        };
        while let Some(c) = chars.next() {
            match c {
                '.' => flush(&mut name, &mut steps),
                '[' => {
                    flush(&mut name, &mut steps);
                    let mut inner = String::new();
                    let mut closed = false;
                    for c in chars.by_ref() {
                        if c == ']' {
                            closed = true;
                            break;
                        }
                        inner.push(c);
                    }
                    if !closed {
                        return Err(fail("an unclosed `[`"));
                    }
                    let inner = inner.trim();
                    let quoted = inner
                        .strip_prefix('\'')
                        .and_then(|s| s.strip_suffix('\''))
                        .or_else(|| inner.strip_prefix('"').and_then(|s| s.strip_suffix('"')));
                    steps.push(match (inner, quoted) {
                        (_, Some(member)) => Step::Member(member.to_owned()),
                        ("*", None) => Step::All,
                        (index, None) => {
                            Step::Index(index.parse().map_err(|_| {
                                fail("`[...]` holds an index, `*` or a quoted name")
                            })?)
                        }
                    });
                }
                c => name.push(c),
            }
        }
        flush(&mut name, &mut steps);
        if steps.is_empty() {
            return Err(fail("an empty path"));
        }
        Ok(Self {
            text: text.to_owned(),
            steps,
        })
    }

    /// The path as given.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

/// Redacts what `paths` name in `object` (every string under it becomes
/// [`REDACTED`], every number 0, the shape stays) and, for a `v1 Secret`,
/// every value of `data` and `stringData`, always; the places redacted, as
/// paths (`data.password`), in order.
pub fn redact(object: &mut Value, paths: &[RedactPath]) -> Vec<String> {
    let mut done = Vec::new();
    let is_secret = object.get("apiVersion").and_then(Value::as_str) == Some("v1")
        && object.get("kind").and_then(Value::as_str) == Some("Secret");
    if is_secret {
        for (field, placeholder) in [
            ("data", base64_of(REDACTED)),
            ("stringData", REDACTED.into()),
        ] {
            if let Some(Value::Object(map)) = object.get_mut(field) {
                for (key, value) in map.iter_mut() {
                    *value = Value::String(placeholder.clone());
                    done.push(child(field, key));
                }
            }
        }
    }
    for path in paths {
        walk(object, &path.steps, String::new(), &mut done);
    }
    done
}

fn walk(value: &mut Value, steps: &[Step], at: String, done: &mut Vec<String>) {
    let Some((step, rest)) = steps.split_first() else {
        scrub(value);
        done.push(at);
        return;
    };
    match (step, value) {
        (Step::Member(name), Value::Object(map)) => {
            if let Some(v) = map.get_mut(name) {
                walk(v, rest, child(&at, name), done);
            }
        }
        (Step::Index(i), Value::Array(items)) => {
            if let Some(v) = items.get_mut(*i) {
                walk(v, rest, format!("{at}[{i}]"), done);
            }
        }
        (Step::All, Value::Object(map)) => {
            for (k, v) in map.iter_mut() {
                walk(v, rest, child(&at, k), done);
            }
        }
        (Step::All, Value::Array(items)) => {
            for (i, v) in items.iter_mut().enumerate() {
                walk(v, rest, format!("{at}[{i}]"), done);
            }
        }
        _ => {}
    }
}

/// Replaces every string under `value` with [`REDACTED`] and every number
/// with 0, keeping the shape (members, list lengths, booleans, nulls): the
/// redacted object still decodes as its kind (a redacted `env` is still a
/// list of `{name, value}`).
fn scrub(value: &mut Value) {
    match value {
        Value::String(s) => REDACTED.clone_into(s),
        Value::Number(n) => *n = 0.into(),
        Value::Array(items) => items.iter_mut().for_each(scrub),
        Value::Object(map) => map.values_mut().for_each(scrub),
        Value::Bool(_) | Value::Null => {}
    }
}

/// The path of member `name` under `at`: `at.name`, or `at['name']`
/// when the name holds a dot or a bracket.
fn child(at: &str, name: &str) -> String {
    match (at.is_empty(), name.contains(['.', '[', ']'])) {
        (_, true) => format!("{at}['{name}']"),
        (true, false) => name.to_owned(),
        (false, false) => format!("{at}.{name}"),
    }
}

fn base64_of(text: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(text)
}

/// Where a captured case came from: written as its `captured` key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Captured {
    /// The cluster (kubeconfig context and server).
    pub from: String,
    /// The object: `apiVersion Kind namespace/name` (set per object by
    /// [`capture_cases`]).
    pub object: String,
    /// The ResourceBinding whose status items the case holds, if any.
    pub binding: Option<String>,
    /// The interpreter that answered: `builtin`, or the customization files.
    pub interpreter: String,
    /// The places redacted.
    pub redacted: Vec<String>,
}

/// What [`capture_cases`] writes under `captured.review`.
pub const REVIEW: &str = "the expected output is what the interpreter answered when this case was captured, not a verified truth: check it, then delete `captured`";

/// The operations whose inputs an object (and its binding's status items)
/// give, in [`InterpreterOperation::ALL`]'s order: every operation on one
/// object but Retain (it needs the member cluster's copy as well) and
/// ReviseReplica (it needs a replica count to set); AggregateStatus only
/// with status items.
pub fn capturable(with_status_items: bool) -> Vec<InterpreterOperation> {
    InterpreterOperation::ALL
        .into_iter()
        .filter(|op| match op {
            InterpreterOperation::Retain | InterpreterOperation::ReviseReplica => false,
            InterpreterOperation::AggregateStatus => with_status_items,
            _ => true,
        })
        .collect()
}

/// The cases of `object` (already redacted) for each of `operations` the
/// chain serves for its kind, one YAML document each: `(operation, text)`.
/// An operation the chain does not serve gives no case; one that fails
/// gives a case expecting its error. `items` are the binding's status items
/// (AggregateStatus); an operation whose inputs are not there is left out.
pub fn capture_cases(
    chain: &Interpreter,
    object: &Value,
    items: Option<&[AggregatedStatusItem]>,
    operations: &[InterpreterOperation],
    captured: &Captured,
) -> Vec<(InterpreterOperation, String)> {
    let meta = |f: &str| {
        object
            .pointer(&format!("/metadata/{f}"))
            .and_then(Value::as_str)
            .unwrap_or("")
    };
    let (namespace, name) = (meta("namespace"), meta("name"));
    let shown = if namespace.is_empty() {
        name.to_owned()
    } else {
        format!("{namespace}/{name}")
    };
    let api_version = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or("");
    let mut captured = captured.clone();
    captured.object = format!("{api_version} {kind} {shown}");
    let mut out = Vec::new();
    for &op in operations {
        let desired = !matches!(
            op,
            InterpreterOperation::InterpretStatus | InterpreterOperation::InterpretHealth
        );
        let status_items = (op == InterpreterOperation::AggregateStatus)
            .then_some(items)
            .flatten();
        if op == InterpreterOperation::AggregateStatus && status_items.is_none() {
            continue;
        }
        #[allow(clippy::needless_update)]
        let inputs = Inputs {
            desired: desired.then_some(object),
            observed: (!desired).then_some(object),
            replicas: 0,
            status_items,
            ..Inputs::default()
        };
        let Ok(request) = inputs.request(op) else {
            continue;
        };
        let answer = match chain.interpret(&request) {
            Err(karmada_interpreter::Error::NotServed { .. }) => continue,
            Ok(answer) => Ok(results_map(answer.value)),
            Err(e) => Err(e.to_string()),
        };
        let mut doc: Vec<(&str, Value)> = vec![
            ("name", json!(format!("captured {shown}"))),
            (
                "description",
                json!(format!(
                    "{op} of {kind} {shown}, captured from {}",
                    captured.from
                )),
            ),
            ("operation", json!(op.as_str())),
            ("captured", captured_value(&captured, op)),
            (
                if desired { "desiredObj" } else { "observedObj" },
                object.clone(),
            ),
        ];
        if let Some(items) = status_items {
            doc.push((
                "statusItems",
                serde_json::to_value(items).unwrap_or(Value::Null),
            ));
        }
        match answer {
            Ok(output) => doc.push(("output", Value::Object(output))),
            Err(message) => doc.push(("expectError", json!(message))),
        }
        out.push((op, document(&doc)));
    }
    out
}

fn captured_value(captured: &Captured, op: InterpreterOperation) -> Value {
    let mut map = Map::new();
    map.insert("from".into(), json!(captured.from));
    map.insert("object".into(), json!(captured.object));
    if let (Some(binding), InterpreterOperation::AggregateStatus) = (&captured.binding, op) {
        map.insert("binding".into(), json!(binding));
    }
    map.insert("interpreter".into(), json!(captured.interpreter));
    if !captured.redacted.is_empty() {
        map.insert("redacted".into(), json!(captured.redacted));
    }
    map.insert("review".into(), json!(REVIEW));
    Value::Object(map)
}

/// The YAML of a case's keys, in the order given.
fn document(keys: &[(&str, Value)]) -> String {
    let mut text = String::new();
    for (key, value) in keys {
        let mut one = Map::new();
        one.insert((*key).to_owned(), value.clone());
        match serde_saphyr::to_string(&Value::Object(one)) {
            Ok(yaml) => text.push_str(&yaml),
            // Our own JSON values always encode; should one not, the key
            // still appears, as JSON (which YAML reads).
            Err(_) => text.push_str(&format!("{key}: {value}\n")),
        }
    }
    text
}

/// A case file of `documents`, with a header saying what it is.
pub fn case_file(documents: &[String], header: &str) -> String {
    let mut text = String::new();
    for line in header.lines() {
        text.push_str("# ");
        text.push_str(line);
        text.push('\n');
    }
    text.push_str(&documents.join("---\n"));
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::parse_cases;
    use std::path::Path;

    #[test]
    fn paths_parse_as_the_jsonpath_subset() {
        let p = RedactPath::parse("$.spec.template.spec.containers[*].env").unwrap();
        assert_eq!(
            p.steps,
            [
                Step::Member("spec".into()),
                Step::Member("template".into()),
                Step::Member("spec".into()),
                Step::Member("containers".into()),
                Step::All,
                Step::Member("env".into())
            ]
        );
        let p = RedactPath::parse("data['tls.key']").unwrap();
        assert_eq!(
            p.steps,
            [Step::Member("data".into()), Step::Member("tls.key".into())]
        );
        assert_eq!(
            RedactPath::parse("a[0].*").unwrap().steps,
            [Step::Member("a".into()), Step::Index(0), Step::All]
        );
        for bad in ["", "$", "a[", "a[x]"] {
            let err = RedactPath::parse(bad).unwrap_err();
            assert!(
                err.to_string().starts_with(&format!("--redact {bad:?}")),
                "{err}"
            );
        }
    }

    #[test]
    fn redaction_replaces_named_places_and_secret_data_always() {
        let mut secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"},
            "data": {"password": "aHVudGVyMg==", "tls.key": "eA=="}, "stringData": {"token": "t"}});
        let done = redact(&mut secret, &[]);
        assert_eq!(
            done,
            ["data.password", "data['tls.key']", "stringData.token"]
        );
        assert_eq!(secret["data"]["password"], base64_of(REDACTED));
        assert_eq!(secret["stringData"]["token"], REDACTED);
        let mut d = json!({"kind": "Deployment", "spec": {"template": {"spec": {"containers": [
            {"name": "a", "env": [{"name": "K", "value": "v"}]}, {"name": "b"}]}}}});
        let done = redact(
            &mut d,
            &[
                RedactPath::parse("spec.template.spec.containers[*].env").unwrap(),
                RedactPath::parse("spec.absent").unwrap(),
            ],
        );
        assert_eq!(done, ["spec.template.spec.containers[0].env"]);
        assert_eq!(
            d["spec"]["template"]["spec"]["containers"][0]["env"],
            json!([{"name": REDACTED, "value": REDACTED}])
        );
        assert!(d["spec"]["template"]["spec"]["containers"][1]
            .get("env")
            .is_none());
    }

    /// A captured case loads, carries `captured`, and passes against the
    /// chain that answered it.
    #[test]
    fn captured_cases_load_and_pass() {
        let object = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "a", "image": "x"}]}}},
            "status": {"replicas": 2, "readyReplicas": 1, "observedGeneration": 1}});
        let items: Vec<AggregatedStatusItem> = serde_json::from_value(json!([
            {"clusterName": "m1", "applied": true, "status": {"replicas": 2, "readyReplicas": 1}}]))
        .unwrap();
        let captured = Captured {
            from: "test".into(),
            interpreter: "builtin".into(),
            binding: Some("shop/web-deployment".into()),
            ..Captured::default()
        };
        let chain = Interpreter::default();
        let cases = capture_cases(&chain, &object, Some(&items), &capturable(true), &captured);
        let ops: Vec<_> = cases.iter().map(|(op, _)| *op).collect();
        assert!(
            ops.contains(&InterpreterOperation::AggregateStatus)
                && ops.contains(&InterpreterOperation::InterpretHealth),
            "{ops:?}"
        );
        let file = case_file(
            &cases.iter().map(|(_, t)| t.clone()).collect::<Vec<_>>(),
            "captured",
        );
        let parsed = parse_cases(&file, Path::new("captured.yaml"));
        let runner = crate::Runner::default();
        let found = crate::discover::CaseFile {
            path: "captured.yaml".into(),
            customization: None,
        };
        for case in parsed {
            let case = case.unwrap();
            let c = case.captured.as_ref().unwrap();
            assert_eq!(c["object"], "apps/v1 Deployment shop/web");
            assert_eq!(
                c.contains_key("binding"),
                case.operation == InterpreterOperation::AggregateStatus
            );
            let report = runner.run_case(&found, &case);
            assert_eq!(
                report.verdict,
                crate::Verdict::Passed,
                "{}",
                report.render()
            );
        }
    }
}
