//! JSON Schemas (draft-07, the draft editors' YAML servers read) of the
//! configuration documents, generated from the serde types the loader
//! ([`crate::load`]) decodes them into: a field the loader requires is
//! required here, a field it reads with a type has that type here, and the
//! doc comments of the types are the descriptions an editor shows.
//!
//! The one rule the loader adds to the types, the document's `kind`, is
//! added to the schema from the same constant.
//!
//! ```
//! let schema = karmada_interpreter_core::api::schema::customization();
//! assert_eq!(schema["properties"]["kind"]["const"], "ResourceInterpreterCustomization");
//! ```

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::{json, Value};

use super::{ResourceInterpreterCustomization, ResourceInterpreterWebhookConfiguration};

/// The schema of a `ResourceInterpreterCustomization` document.
pub fn customization() -> Value {
    document::<ResourceInterpreterCustomization>(
        ResourceInterpreterCustomization::KIND,
        "A Karmada ResourceInterpreterCustomization: Lua scripts that interpret one target kind.",
    )
}

/// The schema of a `ResourceInterpreterWebhookConfiguration` document.
pub fn webhook_configuration() -> Value {
    document::<ResourceInterpreterWebhookConfiguration>(
        ResourceInterpreterWebhookConfiguration::KIND,
        "A Karmada ResourceInterpreterWebhookConfiguration: which interpreter webhooks serve which operations on which kinds.",
    )
}

fn document<T: JsonSchema>(kind: &str, title: &str) -> Value {
    let schema = SchemaSettings::draft07()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut value = schema.to_value();
    value["title"] = json!(kind);
    value["description"] = json!(title);
    // The loader refuses a document without this `kind` (load::typed_documents).
    value["properties"]["kind"] = json!({
        "description": format!("`{kind}`."),
        "const": kind,
    });
    value["properties"]["apiVersion"]["examples"] = json!([super::CONFIG_API_VERSION]);
    match value["required"].as_array_mut() {
        Some(required) => required.insert(0, json!("kind")),
        None => value["required"] = json!(["kind"]),
    }
    value
}
