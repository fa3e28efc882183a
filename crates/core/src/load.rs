//! Loading configuration documents (customizations, webhook configurations)
//! from YAML or JSON text and files.

use std::path::Path;

use serde::de::DeserializeOwned;

use crate::api::{ResourceInterpreterCustomization, ResourceInterpreterWebhookConfiguration};
use crate::error::{Error, Result};

/// Every `ResourceInterpreterCustomization` in a YAML/JSON stream. Documents of
/// other kinds are an error (so a wrong file is noticed, not ignored).
///
/// ```
/// let docs = karmada_interpreter::load::customizations_from_str(r#"
/// apiVersion: config.karmada.io/v1alpha1
/// kind: ResourceInterpreterCustomization
/// metadata: {name: w}
/// spec:
///   target: {apiVersion: example.io/v1, kind: Workload}
///   customizations:
///     healthInterpretation:
///       luaScript: "function InterpretHealth(o) return true end"
/// "#, "inline").unwrap();
/// assert_eq!(docs[0].name(), "w");
/// ```
pub fn customizations_from_str(
    text: &str,
    source: &str,
) -> Result<Vec<ResourceInterpreterCustomization>> {
    typed_documents(text, source, ResourceInterpreterCustomization::KIND)
}

/// Every `ResourceInterpreterWebhookConfiguration` in a YAML/JSON stream.
pub fn webhook_configurations_from_str(
    text: &str,
    source: &str,
) -> Result<Vec<ResourceInterpreterWebhookConfiguration>> {
    typed_documents(text, source, ResourceInterpreterWebhookConfiguration::KIND)
}

/// Reads a customization file.
pub fn customizations_from_file(path: &Path) -> Result<Vec<ResourceInterpreterCustomization>> {
    customizations_from_str(&read(path)?, &path.display().to_string())
}

/// Reads a webhook configuration file.
pub fn webhook_configurations_from_file(
    path: &Path,
) -> Result<Vec<ResourceInterpreterWebhookConfiguration>> {
    webhook_configurations_from_str(&read(path)?, &path.display().to_string())
}

/// The text of the file at `path` ([`Error::Io`] naming it when it cannot be read).
pub fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })
}

/// A document that does not decode into its type, naming the field at
/// fault as the document's schema ([`crate::api`]'s `schema` feature) names
/// it (`spec.target.kind: invalid type: integer 3, expected a string`).
#[derive(Debug, thiserror::Error)]
#[error("{at}{source}")]
pub struct DecodeError {
    /// `path: ` of the field at fault, empty for the document itself.
    at: String,
    /// What serde found there.
    #[source]
    source: serde_json::Error,
}

impl DecodeError {
    /// The path of the field at fault (`spec.target.kind`, `webhooks[0]`),
    /// `.` for the document itself.
    pub fn path(&self) -> &str {
        self.at.strip_suffix(": ").unwrap_or(".")
    }
}

/// Decodes one document's value into `T` (a configuration type of
/// [`crate::api`]), naming the field at fault when it does not decode.
///
/// ```
/// use karmada_interpreter::api::ResourceInterpreterCustomization;
///
/// let err = karmada_interpreter::load::decode::<ResourceInterpreterCustomization>(serde_json::json!({
///     "kind": "ResourceInterpreterCustomization",
///     "spec": {"target": {"apiVersion": "v1", "kind": 3}},
/// })).unwrap_err();
/// assert_eq!(err.path(), "spec.target.kind");
/// assert!(err.to_string().starts_with("spec.target.kind: invalid type: integer `3`"));
/// ```
pub fn decode<T: DeserializeOwned>(
    value: serde_json::Value,
) -> std::result::Result<T, DecodeError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let at = match e.path().to_string() {
            path if path == "." => String::new(),
            path => format!("{path}: "),
        };
        DecodeError {
            at,
            source: e.into_inner(),
        }
    })
}

fn typed_documents<T: DeserializeOwned>(text: &str, source: &str, kind: &str) -> Result<Vec<T>> {
    let mut out = Vec::new();
    for doc in crate::yaml::documents(text) {
        let doc = doc.map_err(|e| Error::Config {
            source_name: source.to_owned(),
            message: e.to_string(),
        })?;
        let Some(value) = doc.value else { continue };
        let found = value.get("kind").and_then(|k| k.as_str()).unwrap_or("");
        if found != kind {
            return Err(Error::Config {
                source_name: source.to_owned(),
                message: format!(
                    "document {} (line {}): expected kind {kind}, found {found:?}",
                    doc.index, doc.line
                ),
            });
        }
        let item = decode(value).map_err(|e| Error::Config {
            source_name: source.to_owned(),
            message: format!("document {} (line {}): {kind}: {e}", doc.index, doc.line),
        })?;
        out.push(item);
    }
    Ok(out)
}
