//! `karmada-interpreter schema` and the `yaml-language-server` headers
//! `init` writes: the schemas printed are the golden crate's, the files
//! `init` writes name schemas that exist and validate against them, and a
//! document the schema refuses is refused by `check` and `test` too.

use std::path::{Path, PathBuf};

use karmada_interpreter_golden::schema::Document;
use serde_json::Value;

use crate::support::{cli, cli_ok, run_ok, scratch, text};

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::validator_for(schema).expect("a valid draft-07 schema")
}

fn complaints(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
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
