use k8s_openapi::api::admissionregistration::v1::WebhookClientConfig;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::{Deserialize, Serialize};

use super::InterpreterOperation;

/// A `config.karmada.io/v1alpha1` `ResourceInterpreterWebhookConfiguration`
/// (see `docs/webhook.md`). There is no `spec`: webhooks sit at top level.
///
/// ```
/// use karmada_interpreter::api::{InterpreterOperation, ResourceInterpreterWebhookConfiguration};
///
/// let c: ResourceInterpreterWebhookConfiguration = serde_json::from_value(serde_json::json!({
///     "apiVersion": "config.karmada.io/v1alpha1",
///     "kind": "ResourceInterpreterWebhookConfiguration",
///     "metadata": {"name": "shop-interpreters"},
///     "webhooks": [{
///         "name": "queues.example.io",
///         "rules": [{"operations": ["*"], "apiGroups": ["messaging.example.io"],
///                    "apiVersions": ["*"], "kinds": ["Queue"]}],
///         "clientConfig": {"url": "https://queue-interpreter.example.org:9443/hooks/queue"},
///         "interpreterContextVersions": ["v1beta9", "v1alpha1"]
///     }]
/// })).unwrap();
/// let rule = &c.webhooks[0].rules[0];
/// assert!(rule.matches("messaging.example.io", "v2", "Queue", InterpreterOperation::Retain));
/// assert!(!rule.matches("messaging.example.io", "v2", "Topic", InterpreterOperation::Retain));
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ResourceInterpreterWebhookConfiguration {
    /// `config.karmada.io/v1alpha1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// `ResourceInterpreterWebhookConfiguration`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// `metadata.name` is part of each hook's identity.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// The webhooks.
    pub webhooks: Vec<ResourceInterpreterWebhook>,
}

impl ResourceInterpreterWebhookConfiguration {
    /// The document's `kind`: the loader refuses a document of another kind.
    pub const KIND: &'static str = "ResourceInterpreterWebhookConfiguration";
}

/// One webhook entry.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ResourceInterpreterWebhook {
    /// Fully qualified name, unique within the configuration.
    pub name: String,
    /// How to reach the webhook (URL or Service, optional CA bundle).
    pub client_config: WebhookClientConfig,
    /// Which operations on which kinds; no rules match nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<RuleWithOperations>,
    /// 1..=30 when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_seconds: Option<i32>,
    /// Ordered preference of envelope versions; must contain `v1alpha1`.
    pub interpreter_context_versions: Vec<String>,
}

/// Operations and kinds a webhook serves; `*` matches anything.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct RuleWithOperations {
    /// Operation names or `*`.
    pub operations: Vec<String>,
    /// API groups (`""` = core) or `*`.
    pub api_groups: Vec<String>,
    /// API versions or `*`.
    pub api_versions: Vec<String>,
    /// Kinds (not resource plurals) or `*`.
    pub kinds: Vec<String>,
}

impl RuleWithOperations {
    /// Whether this rule covers `operation` on objects of `group/version, kind`
    /// (exact, case-sensitive; `*` anywhere in a list matches; an empty list
    /// matches nothing), as Karmada matches webhook rules.
    pub fn matches(
        &self,
        group: &str,
        version: &str,
        kind: &str,
        operation: InterpreterOperation,
    ) -> bool {
        fn any(list: &[String], value: &str) -> bool {
            list.iter().any(|e| e == "*" || e == value)
        }
        any(&self.operations, operation.as_str())
            && any(&self.api_groups, group)
            && any(&self.api_versions, version)
            && any(&self.kinds, kind)
    }
}
