use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::{Deserialize, Serialize};

use super::InterpreterOperation;

/// A `config.karmada.io/v1alpha1` `ResourceInterpreterCustomization`: Lua
/// scripts that interpret one target kind (see `docs/lua-environment.md`).
///
/// ```
/// use karmada_interpreter::api::{InterpreterOperation, ResourceInterpreterCustomization};
///
/// let c: ResourceInterpreterCustomization = serde_json::from_value(serde_json::json!({
///     "apiVersion": "config.karmada.io/v1alpha1",
///     "kind": "ResourceInterpreterCustomization",
///     "metadata": {"name": "workload"},
///     "spec": {
///         "target": {"apiVersion": "workload.example.io/v1alpha1", "kind": "Workload"},
///         "customizations": {
///             "healthInterpretation": {"luaScript": "function InterpretHealth(o) return true end"},
///             "retention": {"luaScript": ""},
///             "replicaResource": {}
///         }
///     }
/// })).unwrap();
/// assert!(c.script(InterpreterOperation::InterpretHealth).is_some());
/// assert!(c.script(InterpreterOperation::Retain).is_none()); // empty = not customized
/// assert!(c.script(InterpreterOperation::InterpretReplica).is_none()); // absent too
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ResourceInterpreterCustomization {
    /// `config.karmada.io/v1alpha1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// `ResourceInterpreterCustomization`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// `metadata.name` orders customizations when several target one kind.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// Target and scripts.
    pub spec: ResourceInterpreterCustomizationSpec,
}

impl ResourceInterpreterCustomization {
    /// The document's `kind`: the loader refuses a document of another kind.
    pub const KIND: &'static str = "ResourceInterpreterCustomization";

    /// `metadata.name`, or `""`.
    pub fn name(&self) -> &str {
        self.metadata.name.as_deref().unwrap_or("")
    }

    /// The non-empty script for `operation`, if any.
    pub fn script(&self, operation: InterpreterOperation) -> Option<&str> {
        self.spec.customizations.script(operation)
    }

    /// Marked to run in shadow ([`SHADOW_ANNOTATION`] is `"true"`): it does
    /// not answer, it runs beside the live customizations (`cluster` mode)
    /// and conflicts with none of them (admission).
    pub fn is_shadow(&self) -> bool {
        self.metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(SHADOW_ANNOTATION))
            .is_some_and(|v| v == "true")
    }

    /// The annotation that places a customization in the order of
    /// composition (`docs/composition.md`): an integer, lower first; a
    /// customization without it has order 0, and equal orders go by name.
    /// Read only with composition on; Karmada ignores it.
    pub const ORDER_ANNOTATION: &'static str = "karmada-interpreter.io/order";

    /// This customization's place in the order of composition: the
    /// [`ORDER_ANNOTATION`](Self::ORDER_ANNOTATION) as an integer (0 when
    /// absent), or why its value is not one.
    ///
    /// ```
    /// use karmada_interpreter::api::ResourceInterpreterCustomization;
    ///
    /// let mut c = ResourceInterpreterCustomization::default();
    /// assert_eq!(c.composition_order(), Ok(0));
    /// c.metadata.annotations = Some([(ResourceInterpreterCustomization::ORDER_ANNOTATION.to_owned(),
    ///                                 "-5".to_owned())].into());
    /// assert_eq!(c.composition_order(), Ok(-5));
    /// c.metadata.annotations = Some([(ResourceInterpreterCustomization::ORDER_ANNOTATION.to_owned(),
    ///                                 "first".to_owned())].into());
    /// assert!(c.composition_order().unwrap_err().to_string().contains("\"first\" is not an integer"));
    /// ```
    pub fn composition_order(&self) -> Result<i64, OrderError> {
        let Some(value) = self
            .metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(Self::ORDER_ANNOTATION))
        else {
            return Ok(0);
        };
        value.trim().parse::<i64>().map_err(|_| OrderError {
            value: value.clone(),
        })
    }
}

/// A [`ResourceInterpreterCustomization::ORDER_ANNOTATION`] whose value is
/// not an integer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("annotation karmada-interpreter.io/order: {value:?} is not an integer (the order of composition, lower first)")]
pub struct OrderError {
    /// The annotation's value.
    pub value: String,
}

/// The annotation that marks a customization to run in shadow (value
/// `"true"`); removing it promotes the customization (docs/cluster.md).
pub const SHADOW_ANNOTATION: &str = "karmada-interpreter.io/shadow";

/// `spec` of a customization.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ResourceInterpreterCustomizationSpec {
    /// The kind the scripts interpret.
    pub target: CustomizationTarget,
    /// The scripts, one member per operation.
    #[serde(default)]
    pub customizations: CustomizationRules,
}

/// `spec.target`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CustomizationTarget {
    /// `group/version`, or `version` for the core group.
    pub api_version: String,
    /// The kind.
    pub kind: String,
}

/// `spec.customizations`: all eight members are optional.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CustomizationRules {
    /// `Retain`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retention: Option<LuaScript>,
    /// `InterpretReplica`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replica_resource: Option<LuaScript>,
    /// `InterpretComponent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub component_resource: Option<LuaScript>,
    /// `ReviseReplica`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replica_revision: Option<LuaScript>,
    /// `ReviseComponents` (the `karmada-next` profile, Karmada's pull
    /// request #7830).
    #[cfg(feature = "karmada-next")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub component_revision: Option<LuaScript>,
    /// `InterpretStatus`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_reflection: Option<LuaScript>,
    /// `AggregateStatus`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_aggregation: Option<LuaScript>,
    /// `InterpretHealth`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health_interpretation: Option<LuaScript>,
    /// `InterpretDependency`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dependency_interpretation: Option<LuaScript>,
}

impl CustomizationRules {
    /// The member that holds `operation`'s script.
    pub fn member(&self, operation: InterpreterOperation) -> Option<&LuaScript> {
        use InterpreterOperation::*;
        match operation {
            Retain => self.retention.as_ref(),
            InterpretReplica => self.replica_resource.as_ref(),
            InterpretComponent => self.component_resource.as_ref(),
            ReviseReplica => self.replica_revision.as_ref(),
            #[cfg(feature = "karmada-next")]
            ReviseComponents => self.component_revision.as_ref(),
            InterpretStatus => self.status_reflection.as_ref(),
            AggregateStatus => self.status_aggregation.as_ref(),
            InterpretHealth => self.health_interpretation.as_ref(),
            InterpretDependency => self.dependency_interpretation.as_ref(),
        }
    }

    /// The script for `operation` when present and non-empty.
    pub fn script(&self, operation: InterpreterOperation) -> Option<&str> {
        self.member(operation)
            .map(|m| m.lua_script.as_str())
            .filter(|s| !s.is_empty())
    }
}

/// `{ luaScript: <string> }`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct LuaScript {
    /// The script text; empty or absent (`replicaResource: {}`) means "not
    /// customized", as Karmada's Go type reads a missing `luaScript` as `""`
    /// and its configuration manager takes an empty script as an unset rule.
    #[serde(default)]
    pub lua_script: String,
}
