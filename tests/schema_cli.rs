//! The JSON Schemas (`karmada_interpreter_golden::schema`,
//! `karmada-interpreter schema`) and the `yaml-language-server` headers
//! `init` writes. The schemas and the readers agree: every case and
//! configuration document of the repository validates, what the schema
//! refuses the reader refuses naming the same key, and for every operation
//! the two accept the same inputs. The schemas printed are the golden
//! crate's; the files `init` writes name schemas that exist and validate
//! against them; `check` and `test` refuse what the schema refuses, naming
//! the field.

use std::path::{Path, PathBuf};

use karmada_interpreter::api::InterpreterOperation;
use karmada_interpreter::interpreter::result_names;
use karmada_interpreter_golden::parse_cases;
use karmada_interpreter_golden::schema::{self, Document};
use serde_json::{json, Value};

use crate::support::{cli, cli_ok, run_ok, scratch, text};

pub(crate) fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::validator_for(schema).expect("a valid draft-07 schema")
}

pub(crate) fn complaints(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

pub(crate) fn documents(text: &str) -> Vec<Value> {
    karmada_interpreter::yaml::documents(text)
        .into_iter()
        .filter_map(|doc| doc.expect("valid YAML").value)
        .collect()
}

#[test]
fn schema_prints_each_documents_schema_as_json() {
    for document in Document::ALL {
        let out = cli_ok(&["schema", document.name()]);
        let printed: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
        assert_eq!(printed, document.schema(), "{}", document.name());
        assert_eq!(
            printed["$schema"], "http://json-schema.org/draft-07/schema#",
            "draft-07: the draft yaml-language-server reads"
        );
        validator(&printed);
    }
}

#[test]
fn an_unknown_document_kind_is_a_usage_error_listing_the_kinds() {
    let out = cli(&["schema", "cases"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("case") && err.contains("customization") && err.contains("webhook-config"),
        "{err}"
    );
}

/// The schema a `# yaml-language-server: $schema=PATH` first line names,
/// resolved against the file's folder as the language server does.
fn schema_of(file: &Path) -> (PathBuf, Value) {
    let text = std::fs::read_to_string(file).unwrap();
    let first = text.lines().next().unwrap_or("");
    let path = first
        .strip_prefix("# yaml-language-server: $schema=")
        .unwrap_or_else(|| panic!("{}: no schema header: {first:?}", file.display()));
    let schema_file = file.parent().unwrap().join(path);
    let schema = std::fs::read_to_string(&schema_file)
        .unwrap_or_else(|e| panic!("{}: {e}", schema_file.display()));
    (schema_file, serde_json::from_str(&schema).unwrap())
}

#[test]
fn init_writes_files_whose_schema_header_names_a_schema_they_validate_against() {
    let dir = scratch("schema-init").join("example.io/v1/Widget");
    run_ok(
        crate::support::bin()
            .args(["init", "example.io/v1", "Widget"])
            .arg(&dir),
    );
    let mut files = vec![dir.join("customizations.yaml")];
    files.extend(
        std::fs::read_dir(dir.join("testdata"))
            .unwrap()
            .map(|e| e.unwrap().path()),
    );
    assert_eq!(files.len(), 9);
    for file in &files {
        let (schema_file, schema) = schema_of(file);
        let document = if file.ends_with("customizations.yaml") {
            Document::Customization
        } else {
            Document::Case
        };
        assert_eq!(
            schema_file.file_name().unwrap().to_str(),
            Some(document.file_name())
        );
        // The schema init wrote is the one `schema` prints.
        assert_eq!(schema, document.schema(), "{}", schema_file.display());
        let validator = validator(&schema);
        let text = std::fs::read_to_string(file).unwrap();
        for doc in documents(&text) {
            let complaints = complaints(&validator, &doc);
            assert!(complaints.is_empty(), "{}: {complaints:?}", file.display());
        }
    }
}

/// A document with a mistake the schema reports, and what `check` or
/// `test` must say about it: the same field.
#[test]
fn check_and_test_refuse_what_the_schema_refuses_naming_the_field() {
    let dir = scratch("schema-refusals");
    let customization = dir.join("customization.yaml");
    std::fs::write(
        &customization,
        "apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\nmetadata: {name: c}\nspec:\n  target: {apiVersion: example.io/v1, kind: 3}\n",
    )
    .unwrap();
    let doc = &documents(&std::fs::read_to_string(&customization).unwrap())[0];
    let by_schema = complaints(&validator(&Document::Customization.schema()), doc);
    assert!(
        by_schema.iter().any(|c| c.starts_with("/spec/target/kind")),
        "{by_schema:?}"
    );
    let out = cli(&["check", "-f", customization.to_str().unwrap()]);
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(!out.status.success(), "{said}");
    assert!(said.contains("spec.target.kind"), "{said}");

    let case = dir.join("case.yaml");
    std::fs::write(
        &case,
        "name: typo\noperation: InterpretHealth\nobservedObj: {apiVersion: v1, kind: Pod}\nouptut: {healthy: true}\n",
    )
    .unwrap();
    let doc = &documents(&std::fs::read_to_string(&case).unwrap())[0];
    let by_schema = complaints(&validator(&Document::Case.schema()), doc);
    assert!(
        by_schema.iter().any(|c| c.contains("ouptut")),
        "{by_schema:?}"
    );
    let out = cli(&["test", case.to_str().unwrap()]);
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(!out.status.success(), "{said}");
    assert!(said.contains("`ouptut`"), "{said}");
}

// ------------------------------------------------- schema and reader agree

fn root() -> PathBuf {
    PathBuf::from(crate::support::ROOT)
}

#[test]
fn every_case_file_of_the_repository_validates() {
    let validator = validator(&schema::case());
    let files = karmada_interpreter_golden::discover(&[
        root().join("conformance"),
        root().join("thirdparty"),
    ])
    .unwrap();
    let mut checked = 0;
    let mut failures = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(&file.path).unwrap();
        for (i, doc) in documents(&text).iter().enumerate() {
            checked += 1;
            for complaint in complaints(&validator, doc) {
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
            let complaints = complaints(&validator, &doc);
            assert!(complaints.is_empty(), "{}: {complaints:?}", file.display());
        }
    }
}

const POD: &str = "{apiVersion: v1, kind: Pod, metadata: {name: p}}";

/// Documents the schema refuses, and the key both the schema's complaint
/// and the reader's error name.
fn refused_cases() -> Vec<(String, &'static str)> {
    let ok =
        |extra: &str| format!("name: n\noperation: InterpretHealth\nobservedObj: {POD}\n{extra}");
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
        (ok("assert: 3\n"), "assert"),
        (ok("assert: [1]\n"), "assert"),
        (ok("expectError: true\nassert: [output.healthy]\n"), "expectError"),
        (ok("captured: yes\noutput: {healthy: true}\n"), "captured"),
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
    let schema = schema::case();
    for (text, key) in refused_cases() {
        let doc = &documents(&text)[0];
        let complaints = complaints(&validator(&schema), doc);
        assert!(!complaints.is_empty(), "the schema accepts:\n{text}");
        let error = parse_cases(&text, Path::new("t.yaml"))
            .remove(0)
            .expect_err(&format!("the reader accepts:\n{text}"))
            .to_string();
        assert!(error.contains(key), "{error}\n(the case:\n{text})");
    }
}

/// For every operation, which object inputs it is given and whether it
/// expects an output or an error: the schema accepts exactly the
/// documents the reader accepts.
#[test]
fn schema_and_reader_agree_on_every_operation_and_input_combination() {
    let validator = validator(&schema::case());
    let mut combinations = 0;
    for op in InterpreterOperation::ALL {
        for (desired, observed) in [(false, false), (true, false), (false, true), (true, true)] {
            for assertion in [
                format!("output: {{{}: null}}", result_names(op)[0]),
                "expectError: true".into(),
                "expectError: {pattern: \"%d+\"}".into(),
                "expectError: false".into(),
                "output: {}\nexpectError: false".into(),
                "assert: [\"true\"]".into(),
                "assert: [\"true\"]\nexpectError: true".into(),
            ] {
                let mut text = format!("name: n\noperation: {op}\n{assertion}\n");
                if desired {
                    text += &format!("desiredObj: {POD}\n");
                }
                if observed {
                    text += &format!("observedObj: {POD}\n");
                }
                let by_schema = complaints(&validator, &documents(&text)[0]);
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
    assert_eq!(combinations, InterpreterOperation::ALL.len() * 4 * 7);
}

/// Karmada reads a rule with no `luaScript` as an unset rule: the schema
/// and the loader both accept it.
#[test]
fn a_rule_without_a_script_is_unset_for_both() {
    let text = "apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\nmetadata: {name: c}\nspec:\n  target: {apiVersion: v1, kind: Pod}\n  customizations: {retention: {}}\n";
    let doc = &documents(text)[0];
    assert!(complaints(&validator(&Document::Customization.schema()), doc).is_empty());
    karmada_interpreter::load::customizations_from_str(text, "t.yaml")
        .expect("an unset rule loads");
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
        // A rule without `luaScript` is an unset rule (as Karmada reads it),
        // accepted by both: see `a_rule_without_a_script_is_unset_for_both`.
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
            !complaints(&validator(&schema), doc).is_empty(),
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
        let complaints = complaints(&validator(&schema), &json!({"kind": "Other"}));
        assert!(
            complaints.iter().any(|c| c.contains("/kind")),
            "{complaints:?}"
        );
    }
}

/// The keys the case reader knows (its `CASE_KEYS` table, read from its
/// source) are exactly the keys the case schema lists: a key added to the
/// reader without the schema would be marked unknown in every editor.
#[test]
fn the_case_schema_lists_exactly_the_readers_keys() {
    let source = std::fs::read_to_string(root().join("crates/golden/src/case.rs")).unwrap();
    let table = source
        .split_once("const CASE_KEYS")
        .and_then(|(_, rest)| rest.split_once("= &["))
        .and_then(|(_, rest)| rest.split_once("];"))
        .map(|(table, _)| table)
        .expect("case.rs defines `const CASE_KEYS: &[&str] = &[...];`");
    // One key per line; a key behind `#[cfg(feature = "karmada-next")]`
    // only when this build has that feature.
    let mut reader = Vec::new();
    let mut gated = false;
    for line in table.lines().map(str::trim) {
        if line.starts_with("#[cfg(feature = \"karmada-next\")]") {
            gated = true;
        } else if let Some(key) = line.strip_prefix('"').and_then(|l| l.split('"').next()) {
            if !gated || cfg!(feature = "karmada-next") {
                reader.push(key);
            }
            gated = false;
        }
    }
    reader.sort_unstable();
    let schema = schema::case();
    let mut listed: Vec<&str> = schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    listed.sort_unstable();
    assert_eq!(
        listed, reader,
        "the case schema's keys (left) and the reader's"
    );
}
