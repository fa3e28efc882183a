//! JSON Schemas (draft-07) for editors: golden case files and the two
//! configuration documents, as `karmada-interpreter schema` prints them.
//!
//! One source for each rule:
//!
//! - the customization and webhook-configuration schemas are generated
//!   (schemars) from the serde types the loader decodes those documents
//!   into (`karmada_interpreter::api::schema`), so `check` and `test` accept
//!   a document's shape exactly when the schema does;
//! - the case schema takes the operations, the results each operation
//!   produces and which of `desiredObj`/`observedObj` it needs from the
//!   rules the case reader applies (`InterpreterOperation::ALL`,
//!   `result_names`, `Inputs::request`). Its keys and their types are written
//!   here, next to the reader's; the golden crate's tests hold the two
//!   together (every case file of the repository validates, each document
//!   the schema refuses the reader refuses, naming the same key).
//!
//! The schema spells each key as Karmada does (`desiredObj`, `operation:
//! InterpretHealth`). Like Karmada's Go decoding, the reader also accepts
//! other capitalisations of keys; the schema does not, so an editor teaches
//! the documented spelling.
//!
//! ```
//! use karmada_interpreter_golden::schema::Document;
//!
//! let schema = Document::Case.schema();
//! assert_eq!(schema["properties"]["operation"]["anyOf"][0]["enum"][0], "Retain");
//! assert_eq!(Document::parse("webhook-config"), Some(Document::WebhookConfiguration));
//! ```

use serde_json::{json, Map, Value};

use karmada_interpreter::api::InterpreterOperation;
use karmada_interpreter::interpreter::{result_names, Inputs};

/// A document kind with a schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Document {
    /// A golden case file: one case per YAML document.
    Case,
    /// A `ResourceInterpreterCustomization`.
    Customization,
    /// A `ResourceInterpreterWebhookConfiguration`.
    WebhookConfiguration,
}

impl Document {
    /// Every document kind, in the order `schema --help` lists them.
    pub const ALL: [Document; 3] = [
        Document::Case,
        Document::Customization,
        Document::WebhookConfiguration,
    ];

    /// The name `karmada-interpreter schema NAME` takes.
    pub fn name(self) -> &'static str {
        match self {
            Self::Case => "case",
            Self::Customization => "customization",
            Self::WebhookConfiguration => "webhook-config",
        }
    }

    /// The document kind named `name` ([`Document::name`]).
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|d| d.name() == name)
    }

    /// The file name `init` writes the schema to, and the docs use
    /// (`karmada-interpreter schema case > case.schema.json`).
    pub fn file_name(self) -> &'static str {
        match self {
            Self::Case => "case.schema.json",
            Self::Customization => "customization.schema.json",
            Self::WebhookConfiguration => "webhook-config.schema.json",
        }
    }

    /// The schema.
    pub fn schema(self) -> Value {
        match self {
            Self::Case => case(),
            Self::Customization => karmada_interpreter::api::schema::customization(),
            Self::WebhookConfiguration => karmada_interpreter::api::schema::webhook_configuration(),
        }
    }

    /// The `# yaml-language-server: $schema=PATH` line that points an
    /// editor at the schema stored at `path` (relative to the YAML file, or
    /// a URL).
    pub fn modeline(path: &str) -> String {
        format!("# yaml-language-server: $schema={path}")
    }
}

/// `{"anyOf": [schema, null]}`: the case reader takes `null` as absent.
fn nullable(schema: Value) -> Value {
    json!({"anyOf": [schema, {"type": "null"}]})
}

/// An object input (`desiredObj`, `observedObj`): the reader needs a
/// non-empty `kind`.
fn object_input(description: &str) -> Value {
    let mut schema = nullable(json!({
        "type": "object",
        "required": ["kind"],
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string", "minLength": 1},
        },
    }));
    schema["description"] = json!(description);
    schema
}

/// A regular expression matching `word` in any capitalisation (the
/// reader matches operation names ignoring case), in the syntax both
/// ECMA-262 (editors) and Rust's regex crate read.
fn any_case(word: &str) -> String {
    let mut out = String::from("^");
    for c in word.chars() {
        if c.is_ascii_alphabetic() {
            out.push('[');
            out.push(c.to_ascii_uppercase());
            out.push(c.to_ascii_lowercase());
            out.push(']');
        } else {
            out.push(c);
        }
    }
    out.push('$');
    out
}

/// The schema of one golden case (one YAML document of a case file).
pub fn case() -> Value {
    let ops = InterpreterOperation::ALL;
    let names: Vec<&str> = ops.iter().map(|op| op.as_str()).collect();
    let any_case_names = format!(
        "^(?:{})$",
        names
            .iter()
            .map(|n| any_case(n).trim_matches(['^', '$']).to_owned())
            .collect::<Vec<_>>()
            .join("|")
    );
    // Not constrained beyond the shape: a case file may hold status items
    // Karmada's typed decoding refuses (the case loads; its operation fails,
    // which the case can expect).
    let status_item = json!({
        "description": "One member cluster's status, as Karmada's ResourceBinding lists it.",
        "properties": {
            "clusterName": {"description": "The member cluster (a string)."},
            "status": {"description": "The member's reflected status (the InterpretStatus answer)."},
            "applied": {"description": "Whether the member applied the object (a boolean)."},
            "appliedMessage": {"description": "Why it did not (a string)."},
            "health": {"description": "`Healthy`, `Unhealthy` or `Unknown`.", "examples": ["Healthy", "Unhealthy", "Unknown"]},
        },
    });
    let expect_error = json!({
        "description": "The operation must fail: `true`, a text the error contains, `{message: text}` or `{pattern: lua-pattern}`.",
        "anyOf": [
            {"type": ["boolean", "null"]},
            {"type": "string"},
            {"type": "object", "required": ["message"], "additionalProperties": false,
             "properties": {"message": {"type": "string"}}},
            {"type": "object", "required": ["pattern"], "additionalProperties": false,
             "properties": {"pattern": {"type": "string", "description": "A Lua pattern (as string.find reads it)."}}},
        ],
    });
    let truthy = json!({"not": {"enum": [false, null]}});
    let mut per_operation: Vec<Value> = ops.iter().map(|op| operation_rules(*op)).collect();
    per_operation.extend([
        // A case asserts something: an `output`, or `expectError` set.
        json!({"anyOf": [
            {"required": ["output"], "properties": {"output": {"type": "object"}}},
            {"required": ["expectError"], "properties": {"expectError": truthy.clone()}},
        ]}),
        // ... not both.
        json!({"not": {
            "required": ["output", "expectError"],
            "properties": {"output": {"type": "object", "minProperties": 1}, "expectError": truthy},
        }}),
    ]);
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "karmada-interpreter golden case",
        "description": "One case of a golden case file (a YAML stream, one case per document): an operation, its inputs and what it must produce. See docs/golden-format.md.",
        "type": "object",
        "required": ["operation"],
        "additionalProperties": false,
        "properties": {
            "name": {"description": "The case's name, shown in reports and matched by `test --run`."},
            "description": {"type": ["string", "null"], "description": "What the case checks, for people."},
            "operation": {
                "description": "The operation to run (its name is matched ignoring case).",
                "anyOf": [
                    {"enum": names},
                    {"type": "string", "pattern": any_case_names},
                ],
            },
            "desiredObj": object_input("The object as the control plane holds it (desired state)."),
            "observedObj": object_input("The object as a member cluster reports it (observed state)."),
            "statusItems": {
                "description": "AggregateStatus: each member cluster's status item (a list).",
                "items": status_item,
            },
            "inputReplicas": {
                "description": "ReviseReplica: the replica count to set (0 when absent).",
                "type": ["integer", "null"],
            },
            "output": {
                "description": "What the operation must produce: result name -> expected value.",
                "type": ["object", "null"],
            },
            "expectError": expect_error,
        },
        "allOf": per_operation,
    })
}

/// The rules that depend on the operation: its result names under
/// `output`, and the object inputs it takes (probed from
/// [`Inputs::request`], the rule the reader applies).
fn operation_rules(op: InterpreterOperation) -> Value {
    let object = json!({"kind": "Probe"});
    let mut allowed = Vec::new();
    for (desired, observed) in [(true, false), (false, true), (true, true)] {
        let inputs = Inputs {
            desired: desired.then_some(&object),
            observed: observed.then_some(&object),
            replicas: 0,
            status_items: None,
        };
        if inputs.request(op).is_ok() {
            let mut properties = Map::new();
            let mut required = Vec::new();
            for (key, given) in [("desiredObj", desired), ("observedObj", observed)] {
                if given {
                    required.push(key);
                    properties.insert(key.into(), json!({"type": "object"}));
                } else {
                    properties.insert(key.into(), json!({"type": "null"}));
                }
            }
            allowed.push(json!({"required": required, "properties": properties}));
        }
    }
    json!({
        "if": {"required": ["operation"], "properties": {"operation": {"const": op.as_str()}}},
        "then": {
            "properties": {"output": {"propertyNames": {"enum": result_names(op)}}},
            "anyOf": allowed,
        },
    })
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::case::parse_cases;

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    fn validator(schema: &Value) -> jsonschema::Validator {
        jsonschema::validator_for(schema).expect("a valid draft-07 schema")
    }

    /// The schema's complaints about `instance`, each with the instance
    /// path it is about.
    fn complaints(schema: &Value, instance: &Value) -> Vec<String> {
        complaints_by(&validator(schema), instance)
    }

    fn complaints_by(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
        validator
            .iter_errors(instance)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect()
    }

    fn documents(text: &str) -> Vec<Value> {
        karmada_interpreter::yaml::documents(text)
            .into_iter()
            .filter_map(|doc| doc.expect("valid YAML").value)
            .collect()
    }

    #[test]
    fn every_case_file_of_the_repository_validates() {
        let validator = validator(&case());
        let files =
            crate::discover(&[root().join("conformance"), root().join("thirdparty")]).unwrap();
        let mut checked = 0;
        let mut failures = Vec::new();
        for file in &files {
            let text = std::fs::read_to_string(&file.path).unwrap();
            for (i, doc) in documents(&text).iter().enumerate() {
                checked += 1;
                for complaint in complaints_by(&validator, doc) {
                    failures.push(format!("{} #{}: {complaint}", file.path.display(), i + 1));
                }
            }
        }
        assert!(checked > 1000, "only {checked} cases found");
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    /// Files under `dirs` (recursively) holding documents of `kind`.
    fn documents_of_kind(dirs: &[&str], kind: &str) -> Vec<(PathBuf, Value)> {
        let mut out = Vec::new();
        for dir in dirs {
            let files = karmada_interpreter_layout::files(&root().join(dir), |p, _| {
                p.extension().is_some_and(|e| e == "yaml" || e == "yml")
            })
            .unwrap();
            for file in files {
                let text = std::fs::read_to_string(&file).unwrap();
                let docs = karmada_interpreter::yaml::documents(&text);
                for doc in docs.into_iter().filter_map(|d| d.ok()?.value) {
                    if doc["kind"] == kind {
                        out.push((file.clone(), doc));
                    }
                }
            }
        }
        out
    }

    #[test]
    fn every_configuration_document_of_the_repository_validates() {
        for (document, dirs, at_least) in [
            (
                Document::Customization,
                &["thirdparty", "conformance", "examples", "deploy"][..],
                50,
            ),
            (
                Document::WebhookConfiguration,
                &["deploy", "tests/api", "examples"][..],
                2,
            ),
        ] {
            let schema = document.schema();
            let kind = schema["properties"]["kind"]["const"].as_str().unwrap();
            let validator = validator(&schema);
            let found = documents_of_kind(dirs, kind);
            assert!(found.len() >= at_least, "{kind}: {}", found.len());
            for (file, doc) in found {
                let complaints = complaints_by(&validator, &doc);
                assert!(complaints.is_empty(), "{}: {complaints:?}", file.display());
            }
        }
    }

    const POD: &str = "{apiVersion: v1, kind: Pod, metadata: {name: p}}";

    /// Documents the schema refuses, and the key both the schema's complaint
    /// and the reader's error name.
    fn refused_cases() -> Vec<(String, &'static str)> {
        let ok = |extra: &str| {
            format!("name: n\noperation: InterpretHealth\nobservedObj: {POD}\n{extra}")
        };
        vec![
            (ok("output: {healthy: true}\nouptut: {}\n"), "ouptut"),
            (ok("output: {replica: 1}\n"), "replica"),
            (ok("output: 3\n"), "output"),
            (ok("inputReplicas: two\noutput: {healthy: true}\n"), "inputReplicas"),
            (ok("description: [a]\noutput: {healthy: true}\n"), "description"),
            (ok("expectError: {text: x}\n"), "expectError"),
            (ok("expectError: 3\n"), "expectError"),
            (ok(""), "output"),
            (ok("expectError: true\noutput: {healthy: true}\n"), "expectError"),
            (
                "name: n\noperation: InterpretHealth\nobservedObj: {apiVersion: v1}\noutput: {healthy: true}\n".into(),
                "kind",
            ),
            (
                "name: n\noperation: InterpretHealth\nobservedObj: [1]\noutput: {healthy: true}\n".into(),
                "observedObj",
            ),
            (
                "name: n\noperation: Prune\nobservedObj: {kind: Pod}\noutput: {}\n".into(),
                "Prune",
            ),
            ("name: n\nobservedObj: {kind: Pod}\noutput: {}\n".into(), "operation"),
            (
                format!("name: n\noperation: Retain\ndesiredObj: {POD}\noutput: {{retained: {{}}}}\n"),
                "observedObj",
            ),
            (
                format!("name: n\noperation: InterpretHealth\ndesiredObj: {POD}\nobservedObj: {POD}\noutput: {{healthy: true}}\n"),
                "desiredObj",
            ),
        ]
    }

    #[test]
    fn what_the_schema_refuses_the_reader_refuses_naming_the_key() {
        let schema = case();
        for (text, key) in refused_cases() {
            let doc = &documents(&text)[0];
            let complaints = complaints(&schema, doc);
            assert!(!complaints.is_empty(), "the schema accepts:\n{text}");
            let error = parse_cases(&text, Path::new("t.yaml"))
                .remove(0)
                .expect_err(&format!("the reader accepts:\n{text}"))
                .to_string();
            assert!(error.contains(key), "{error}\n(the case:\n{text})");
            let _ = complaints;
        }
    }

    /// For every operation, which object inputs it is given and whether it
    /// expects an output or an error: the schema accepts exactly the
    /// documents the reader accepts.
    #[test]
    fn schema_and_reader_agree_on_every_operation_and_input_combination() {
        let validator = validator(&case());
        let mut combinations = 0;
        for op in InterpreterOperation::ALL {
            for (desired, observed) in [(false, false), (true, false), (false, true), (true, true)]
            {
                for assertion in [
                    format!("output: {{{}: null}}", result_names(op)[0]),
                    "expectError: true".into(),
                    "expectError: {pattern: \"%d+\"}".into(),
                    "expectError: false".into(),
                    "output: {}\nexpectError: false".into(),
                ] {
                    let mut text = format!("name: n\noperation: {op}\n{assertion}\n");
                    if desired {
                        text += &format!("desiredObj: {POD}\n");
                    }
                    if observed {
                        text += &format!("observedObj: {POD}\n");
                    }
                    let by_schema = complaints_by(&validator, &documents(&text)[0]);
                    let by_reader = parse_cases(&text, Path::new("t.yaml")).remove(0);
                    assert_eq!(
                        by_schema.is_empty(),
                        by_reader.is_ok(),
                        "{text}\nschema: {by_schema:?}\nreader: {by_reader:?}"
                    );
                    combinations += 1;
                }
            }
        }
        assert_eq!(combinations, 8 * 4 * 5);
    }

    #[test]
    fn configuration_documents_the_schema_refuses_the_loader_refuses_naming_the_field() {
        let customization = |target: &str, rules: &str| {
            format!("apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\nmetadata: {{name: c}}\nspec:\n  target: {target}\n  customizations: {rules}\n")
        };
        let webhook = |hook: &str| {
            format!("apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterWebhookConfiguration\nmetadata: {{name: w}}\nwebhooks:\n- {hook}\n")
        };
        let cases = [
            (Document::Customization, customization("{apiVersion: v1}", "{}"), "spec.target", "kind"),
            (Document::Customization, customization("{apiVersion: v1, kind: 3}", "{}"), "spec.target.kind", "string"),
            (
                Document::Customization,
                customization("{apiVersion: v1, kind: Pod}", "{retention: {luaScript: [x]}}"),
                "spec.customizations.retention.luaScript",
                "string",
            ),
            (
                Document::Customization,
                customization("{apiVersion: v1, kind: Pod}", "{retention: {}}"),
                "spec.customizations.retention",
                "luaScript",
            ),
            (
                Document::Customization,
                "apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\nmetadata: {name: c}\n".into(),
                "",
                "spec",
            ),
            (
                Document::WebhookConfiguration,
                webhook("{name: a, clientConfig: {url: \"https://x\"}}"),
                "webhooks[0]",
                "interpreterContextVersions",
            ),
            (
                Document::WebhookConfiguration,
                webhook("{name: a, clientConfig: {url: \"https://x\"}, interpreterContextVersions: [v1alpha1], timeoutSeconds: soon}"),
                "webhooks[0].timeoutSeconds",
                "i32",
            ),
        ];
        for (document, text, path, field) in cases {
            let schema = document.schema();
            let doc = &documents(&text)[0];
            assert!(
                !complaints(&schema, doc).is_empty(),
                "the schema accepts:\n{text}"
            );
            let error = match document {
                Document::Customization => {
                    karmada_interpreter::load::customizations_from_str(&text, "t.yaml").map(|_| ())
                }
                _ => karmada_interpreter::load::webhook_configurations_from_str(&text, "t.yaml")
                    .map(|_| ()),
            }
            .expect_err(&format!("the loader accepts:\n{text}"))
            .to_string();
            let at = if path.is_empty() {
                String::new()
            } else {
                format!(": {path}: ")
            };
            assert!(
                error.contains(&at) && error.contains(field),
                "{error}\n(expected {path:?} and {field:?})"
            );
        }
    }

    #[test]
    fn the_configuration_schemas_require_their_kind() {
        for document in [Document::Customization, Document::WebhookConfiguration] {
            let schema = document.schema();
            assert_eq!(schema["required"][0], "kind");
            let complaints = complaints(&schema, &json!({"kind": "Other"}));
            assert!(
                complaints.iter().any(|c| c.contains("/kind")),
                "{complaints:?}"
            );
        }
    }
}
