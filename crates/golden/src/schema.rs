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
            {"required": ["outputContains"], "properties": {"outputContains": {"type": "object"}}},
            {"required": ["assert"], "properties": {"assert": {"not": {"type": "null"}}}},
            {"required": ["expectError"], "properties": {"expectError": truthy.clone()}},
        ]}),
        // ... not both.
        json!({"not": {
            "required": ["output", "expectError"],
            "properties": {"output": {"type": "object", "minProperties": 1}, "expectError": truthy.clone()},
        }}),
        json!({"not": {
            "required": ["outputContains", "expectError"],
            "properties": {"outputContains": {"type": "object"}, "expectError": truthy.clone()},
        }}),
        json!({"not": {
            "required": ["assert", "expectError"],
            "properties": {"assert": {"not": {"type": "null"}}, "expectError": truthy},
        }}),
    ]);
    #[allow(unused_mut)]
    let mut schema = json!({
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
            "outputContains": {
                "description": "Part of what the operation must produce: result name -> the members that must match (others are ignored).",
                "type": ["object", "null"],
            },
            "assert": {
                "description": "CEL expressions that must each be true of the answer: `output` (the results, as `output` names them), `object` (the object the operation ran on), `desiredObj`, `observedObj`, `statusItems`, `inputReplicas`. Needs a build with CEL (the CLI has it).",
                "examples": [["output.replica == 3", "output.aggregatedStatus.status.readyReplicas >= 2"]],
                "anyOf": [
                    {"type": "string"},
                    {"type": "array", "items": {"type": "string"}},
                    {"type": "null"},
                ],
            },
            "captured": {
                "description": "Written by `karmada-interpreter capture`: where the inputs came from and which interpreter gave the expected output. Review the case, then delete this key.",
                "type": ["object", "null"],
                "properties": {
                    "from": {"type": "string", "description": "The cluster (kubeconfig context or server)."},
                    "object": {"type": "string", "description": "The object read: `apiVersion Kind namespace/name`."},
                    "binding": {"type": "string", "description": "The ResourceBinding whose status items the case holds, when one was read."},
                    "interpreter": {"type": "string", "description": "The interpreter that answered: `builtin`, or the customization file."},
                    "redacted": {"type": "array", "items": {"type": "string"}, "description": "The paths whose values were replaced."},
                    "review": {"type": "string", "description": "What to check before keeping the case."},
                },
            },
            "expectError": expect_error,
        },
        "allOf": per_operation,
    });
    #[cfg(feature = "karmada-next")]
    {
        schema["properties"]["inputComponents"] = json!({
            "description": "ReviseComponents (the karmada-next profile): the component assignment, a list of {name, replicas}.",
            "type": ["array", "null"],
            "items": {"type": "object"},
        });
    }
    schema
}

/// The rules that depend on the operation: its result names under
/// `output`, and the object inputs it takes (probed from
/// [`Inputs::request`], the rule the reader applies).
fn operation_rules(op: InterpreterOperation) -> Value {
    let object = json!({"kind": "Probe"});
    let mut allowed = Vec::new();
    for (desired, observed) in [(true, false), (false, true), (true, true)] {
        #[allow(clippy::needless_update)]
        let inputs = Inputs {
            desired: desired.then_some(&object),
            observed: observed.then_some(&object),
            replicas: 0,
            status_items: None,
            // The floor's members of features this crate is built without.
            ..Inputs::default()
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
            "properties": {
                "output": {"propertyNames": {"enum": result_names(op)}},
                "outputContains": {"propertyNames": {"enum": result_names(op)}},
            },
            "anyOf": allowed,
        },
    })
}
