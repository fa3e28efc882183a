//! The validating admission webhook for Karmada's interpreter configuration
//! (feature `lint`): [`ConfigurationAdmission`] decides `AdmissionReview`
//! requests for `ResourceInterpreterCustomization` objects (refused for
//! what `check` refuses, keys Karmada ignores and a rule another known
//! customization of the same target defines; `lint`'s other findings are
//! warnings — see [`crate::lint::admission`]) and
//! `ResourceInterpreterWebhookConfiguration` objects (refused for what
//! Karmada's own validation refuses, [`crate::webhook::validate`]).
//! Serve it with [`crate::webhook::server::Server::admission`] (feature
//! `webhook`), or call it through [`crate::webhook::admission::handle_http`].
//!
//! ```
//! use karmada_interpreter::admission::ConfigurationAdmission;
//! use karmada_interpreter::webhook::admission::handle_http;
//! use karmada_interpreter::webhook::sdk::Body;
//! use serde_json::json;
//!
//! let handler = ConfigurationAdmission::new().unwrap();
//! let object = json!({
//!     "apiVersion": "config.karmada.io/v1alpha1", "kind": "ResourceInterpreterCustomization",
//!     "metadata": {"name": "broken"},
//!     "spec": {"target": {"apiVersion": "example.io/v1", "kind": "Demo"},
//!              "customizations": {"healthInterpretation": {"luaScript": "function Health(obj) return true end"}}}});
//! let review = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
//!     "uid": "u-1", "operation": "CREATE", "name": "broken", "userInfo": {},
//!     "kind": {"group": "config.karmada.io", "version": "v1alpha1", "kind": "ResourceInterpreterCustomization"},
//!     "resource": {"group": "config.karmada.io", "version": "v1alpha1", "resource": "resourceinterpretercustomizations"},
//!     "object": object}});
//! let body = serde_json::to_vec(&review).unwrap();
//! let answer = handle_http(&handler, "POST", Some("application/json"), Body::Bytes(&body));
//! let answer: serde_json::Value = serde_json::from_slice(&answer.body).unwrap();
//! assert_eq!(answer["response"]["allowed"], false);
//! assert_eq!(
//!     answer["response"]["status"]["message"],
//!     "customization \"broken\", rule healthInterpretation (InterpretHealth), script line 1, column 1: function InterpretHealth is not defined"
//! );
//! ```

use std::sync::Arc;

use k8s_openapi::api::admissionregistration::v1::{
    RuleWithOperations, ValidatingWebhook, ValidatingWebhookConfiguration, WebhookClientConfig,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::api::{ResourceInterpreterCustomization, ResourceInterpreterWebhookConfiguration};
use crate::lint::admission::review_customization;
use crate::lint::{LintError, Linter};
use crate::webhook::admission::{AdmissionHandler, AdmissionRequest, Operation, Ruling};

/// The customizations a review compares a new one with.
type Known = dyn Fn() -> Vec<ResourceInterpreterCustomization> + Send + Sync;

/// Decides admission of Karmada's interpreter configuration objects.
#[derive(Clone)]
pub struct ConfigurationAdmission {
    linter: Arc<Linter>,
    known: Option<Arc<Known>>,
}

impl std::fmt::Debug for ConfigurationAdmission {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConfigurationAdmission")
            .field("knows_others", &self.known.is_some())
            .finish_non_exhaustive()
    }
}

impl ConfigurationAdmission {
    /// A handler that knows no other customization (no conflicts found).
    pub fn new() -> Result<Self, LintError> {
        Self::composing(false)
    }

    /// A handler for a server with composition on or off ([`new`](Self::new):
    /// off; `docs/composition.md`): with it on, a second customization's
    /// editing rule for a target is allowed (the rules compose) and scripts
    /// are linted knowing `kube.below`.
    pub fn composing(composition: bool) -> Result<Self, LintError> {
        Ok(Self {
            linter: Arc::new(Linter::new()?.with_composition(composition)),
            known: None,
        })
    }

    /// The same handler, comparing each customization with those `known`
    /// returns at the time of the request (for example those a server
    /// serves from its files and from the cluster it follows): a rule
    /// another of them defines for the same target is refused.
    pub fn knowing(
        mut self,
        known: impl Fn() -> Vec<ResourceInterpreterCustomization> + Send + Sync + 'static,
    ) -> Self {
        self.known = Some(Arc::new(known));
        self
    }
}

const CUSTOMIZATION: &str = "ResourceInterpreterCustomization";
const WEBHOOK_CONFIGURATION: &str = "ResourceInterpreterWebhookConfiguration";

impl AdmissionHandler for ConfigurationAdmission {
    fn review(&self, request: &AdmissionRequest) -> Ruling {
        if matches!(request.operation, Operation::Delete | Operation::Connect) {
            return Ruling::allow();
        }
        let Some(object) = request
            .object
            .as_ref()
            .and_then(|o| serde_json::to_value(o).ok())
        else {
            return Ruling {
                code: 400,
                ..Ruling::refuse(format!("{} has no object", request.name))
            };
        };
        match request.kind.kind.as_str() {
            CUSTOMIZATION => {
                let known = self.known.as_ref().map(|k| k()).unwrap_or_default();
                let review = review_customization(&object, &known, &self.linter);
                let verdict = if review.allowed() {
                    Ruling::allow()
                } else {
                    Ruling::refuse(review.refusals.join("\n"))
                };
                Ruling {
                    warnings: review.warnings,
                    ..verdict
                }
            }
            WEBHOOK_CONFIGURATION => {
                match serde_json::from_value::<ResourceInterpreterWebhookConfiguration>(object) {
                    Err(e) => Ruling::refuse(format!(
                        "invalid {WEBHOOK_CONFIGURATION} {:?}: {e}",
                        request.name
                    )),
                    Ok(config) => match crate::webhook::validate(&config) {
                        Ok(()) => Ruling::allow(),
                        Err(e) => Ruling::refuse(format!(
                            "{WEBHOOK_CONFIGURATION} {:?}: {e}",
                            request.name
                        )),
                    },
                }
            }
            other => Ruling {
                code: 400,
                ..Ruling::refuse(format!(
                    "this webhook reviews {CUSTOMIZATION} and {WEBHOOK_CONFIGURATION} objects, not {other}"
                ))
            },
        }
    }
}

/// A `ValidatingWebhookConfiguration` (for the Karmada API server) sending
/// every create and update of both configuration kinds to the webhook at
/// `client_config`: one webhook named `webhook_name`, `failurePolicy:
/// Fail` (a customization nobody could review is not admitted),
/// `sideEffects: None`, `admissionReviewVersions: [v1]`.
///
/// ```
/// use karmada_interpreter::admission::validating_configuration;
/// use k8s_openapi::api::admissionregistration::v1::WebhookClientConfig;
///
/// let cc = WebhookClientConfig { url: Some("https://127.0.0.1:8443/validate".into()), ..Default::default() };
/// let config = validating_configuration("karmada-interpreter", "config.karmada-interpreter.io", cc, Some(10));
/// let hook = &config.webhooks.as_ref().unwrap()[0];
/// assert_eq!(hook.admission_review_versions, ["v1"]);
/// assert_eq!(hook.rules.as_ref().unwrap()[0].resources.as_ref().unwrap().len(), 2);
/// ```
pub fn validating_configuration(
    name: &str,
    webhook_name: &str,
    client_config: WebhookClientConfig,
    timeout_seconds: Option<i32>,
) -> ValidatingWebhookConfiguration {
    ValidatingWebhookConfiguration {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            ..ObjectMeta::default()
        },
        webhooks: Some(vec![ValidatingWebhook {
            name: webhook_name.to_owned(),
            client_config,
            rules: Some(vec![RuleWithOperations {
                api_groups: Some(vec!["config.karmada.io".to_owned()]),
                api_versions: Some(vec!["v1alpha1".to_owned()]),
                operations: Some(vec!["CREATE".to_owned(), "UPDATE".to_owned()]),
                resources: Some(vec![
                    "resourceinterpretercustomizations".to_owned(),
                    "resourceinterpreterwebhookconfigurations".to_owned(),
                ]),
                scope: Some("Cluster".to_owned()),
            }]),
            failure_policy: Some("Fail".to_owned()),
            side_effects: "None".to_owned(),
            admission_review_versions: vec!["v1".to_owned()],
            timeout_seconds,
            ..ValidatingWebhook::default()
        }]),
    }
}
