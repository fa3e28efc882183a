//! The customization builder the tests share: a ResourceInterpreterCustomization
//! with a name, a target and one Lua script per rule, as the typed value, as
//! JSON or as YAML text.
//!
//! ```ignore
//! let c = Customization::new("probe", "example.io/v1", "Widget")
//!     .script(InterpreterOperation::InterpretHealth, "function InterpretHealth(o) return true end");
//! let typed = c.typed();
//! ```

use karmada_interpreter::api::{InterpreterOperation, ResourceInterpreterCustomization};
use serde_json::{json, Map, Value};

/// A ResourceInterpreterCustomization under construction.
#[derive(Debug, Clone)]
pub struct Customization {
    name: String,
    api_version: String,
    kind: String,
    /// (member of `spec.customizations`, script), in order.
    rules: Vec<(String, String)>,
}

impl Customization {
    /// A customization named `name` for `api_version, Kind=kind`, with no rule yet.
    pub fn new(name: &str, api_version: &str, kind: &str) -> Self {
        Self {
            name: name.to_owned(),
            api_version: api_version.to_owned(),
            kind: kind.to_owned(),
            rules: Vec::new(),
        }
    }

    /// Adds the script of `operation`'s rule.
    pub fn script(self, operation: InterpreterOperation, script: &str) -> Self {
        self.rule(operation.customization_member(), script)
    }

    /// Adds `script` under the member `member` of `spec.customizations`, as
    /// spelled (a misspelled member too, for the checks that find one).
    pub fn rule(mut self, member: &str, script: &str) -> Self {
        self.rules.push((member.to_owned(), script.to_owned()));
        self
    }

    /// The customization as JSON.
    pub fn json(&self) -> Value {
        let rules: Map<String, Value> = self
            .rules
            .iter()
            .map(|(member, script)| (member.clone(), json!({"luaScript": script})))
            .collect();
        json!({
            "apiVersion": "config.karmada.io/v1alpha1",
            "kind": "ResourceInterpreterCustomization",
            "metadata": {"name": self.name},
            "spec": {
                "target": {"apiVersion": self.api_version, "kind": self.kind},
                "customizations": rules,
            },
        })
    }

    /// The customization as the typed API value.
    pub fn typed(&self) -> ResourceInterpreterCustomization {
        serde_json::from_value(self.json()).expect("a customization decodes")
    }

    /// The customization as a YAML document in block style, each script a
    /// literal block indented 8 spaces: the first rule's script starts on
    /// line 12.
    pub fn yaml(&self) -> String {
        let mut out = format!(
            "apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\nmetadata:\n  name: {}\nspec:\n  target:\n    apiVersion: {}\n    kind: {}\n  customizations:\n",
            self.name, self.api_version, self.kind
        );
        for (member, script) in &self.rules {
            out.push_str(&format!("    {member}:\n      luaScript: |\n"));
            for line in script.lines() {
                out.push_str(&format!("        {line}\n"));
            }
        }
        out
    }
}
