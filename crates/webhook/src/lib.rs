//! Interpreter webhooks: client, server SDK and server (see `docs/webhook.md`).
//!
//! - [`WebhookLayer`]: the webhook layer of the chain. Loads
//!   `ResourceInterpreterWebhookConfiguration` documents, validates them
//!   ([`validate`], Karmada's admission rules and messages), selects the hook
//!   for a (kind, operation) (the first webhook, in configuration order,
//!   whose rules match) and calls it.
//! - `wire` items (re-exported here): request construction, version
//!   negotiation, answer verification with the reference's error texts,
//!   RFC 6902 patch application and result extraction. No HTTP.
//! - `error` (re-exported): [`WebhookError`], the webhook concern's typed
//!   errors, and [`SdkError`] for handlers.
//! - `endpoint` (re-exported): [`Endpoint`], where a client config points.
//! - `validation` (re-exported): Karmada's admission rules for
//!   configurations and dependency lists.
//! - [`sdk`]: the server SDK (handler trait, response helpers, request
//!   handling with answers to bad input). No HTTP.
//! - [`admission`]: the SDK for validating admission webhooks
//!   (`AdmissionReview` of `admission.k8s.io/v1`, kube's wire types): a
//!   handler trait and request handling. No HTTP.
//! - With feature `https`: [`client`] (HTTPS client), [`server`] (TLS HTTP
//!   server hosting SDK handlers) and [`tls`] (PEM, rustls with ring,
//!   self-signed certificates).
//!
//! A failed call is [`Error::Layer`] whose `source` is a
//! [`WebhookError`] displaying Karmada's reason text; [`karmada_error_text`]
//! gives the reference's full wording.
//!
//! ## Features
//!
//! None is on by default.
//!
//! - `https`: the HTTPS side: [`client`] and the layer's calls through it
//!   ([`WebhookLayer::call`], [`WebhookLayer::with_client`]), the SDK's TLS
//!   HTTP [`server`], and [`tls`] (rustls with the ring provider, rcgen for
//!   self-signed certificates). Without it the wire format, validation,
//!   answer verification and the SDK's request handling still build, and the
//!   layer answers every call with [`WebhookError::NoClient`].
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod admission;
#[cfg(feature = "https")]
#[cfg_attr(docsrs, doc(cfg(feature = "https")))]
pub mod client;
mod endpoint;
mod error;
pub mod sdk;
#[cfg(feature = "https")]
#[cfg_attr(docsrs, doc(cfg(feature = "https")))]
pub mod server;
#[cfg(feature = "https")]
#[cfg_attr(docsrs, doc(cfg(feature = "https")))]
pub mod tls;
mod validation;
mod wire;

pub use endpoint::{clean_path, Endpoint};
pub use error::{SdkError, WebhookError};
pub use validation::{
    validate, validate_dependencies, FieldError, FieldErrorType, ValidationErrors,
    ACCEPTED_CONTEXT_VERSIONS,
};
pub use wire::{
    apply_patch, build_request, decode_response, encode_request, interpret_response,
    karmada_error_text, negotiate_version, protocol_violations,
};

use k8s_openapi::api::admissionregistration::v1::WebhookClientConfig;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::GroupVersionKind;

use karmada_interpreter_core::api::{
    InterpreterOperation, ResourceInterpreterWebhook, ResourceInterpreterWebhookConfiguration,
    RuleWithOperations,
};
use karmada_interpreter_core::interpreter::{
    CatalogEntry, Layer, LayerKind, Outcome, Request, Route, Source, TypeRef,
};
use karmada_interpreter_core::{Error, Result};

/// A webhook entry with its identity `"<configuration>/<webhook>"`.
#[derive(Debug, Clone)]
pub(crate) struct Hook {
    pub identity: String,
    pub webhook: ResourceInterpreterWebhook,
}

/// The webhook layer of the chain.
///
/// ```
/// use karmada_interpreter::webhook::WebhookLayer;
///
/// let configs = karmada_interpreter::load::webhook_configurations_from_str(r#"
/// apiVersion: config.karmada.io/v1alpha1
/// kind: ResourceInterpreterWebhookConfiguration
/// metadata: {name: shop}
/// webhooks:
///   - name: workloads.example.io
///     rules: [{operations: ["*"], apiGroups: [workload.example.io], apiVersions: ["*"], kinds: [Workload]}]
///     clientConfig: {url: "https://127.0.0.1:8443/interpret"}
///     interpreterContextVersions: [v1alpha1]
/// "#, "inline").unwrap();
/// let layer = WebhookLayer::new(configs).unwrap();
/// let gvk = kube::core::GroupVersionKind::gvk("workload.example.io", "v1alpha1", "Workload");
/// let op = karmada_interpreter::api::InterpreterOperation::Retain;
/// assert_eq!(layer.identity(&gvk, op), Some("shop/workloads.example.io"));
/// ```
#[derive(Debug)]
pub struct WebhookLayer {
    /// Sorted by identity: the first match is the one called.
    hooks: Vec<Hook>,
    #[cfg(feature = "https")]
    client: client::WebhookClient,
}

impl WebhookLayer {
    /// Loads configurations (configurations ordered by name, hooks in listed
    /// order) after validating each as Karmada's admission webhook would.
    pub fn new(configs: Vec<ResourceInterpreterWebhookConfiguration>) -> Result<Self> {
        for c in &configs {
            validate(c).map_err(|e| Error::Config {
                source_name: format!(
                    "ResourceInterpreterWebhookConfiguration {:?}",
                    c.metadata.name.as_deref().unwrap_or("")
                ),
                message: e.to_string(),
            })?;
        }
        Self::new_unvalidated(configs)
    }

    /// Like [`WebhookLayer::new`] without validation (objects that reached a
    /// cluster some other way; a service reference wins over a URL).
    pub fn new_unvalidated(configs: Vec<ResourceInterpreterWebhookConfiguration>) -> Result<Self> {
        let mut hooks: Vec<Hook> = configs
            .into_iter()
            .flat_map(|c| {
                let config_name = c.metadata.name.clone().unwrap_or_default();
                c.webhooks.into_iter().map(move |w| Hook {
                    identity: format!("{config_name}/{}", w.name),
                    webhook: w,
                })
            })
            .collect();
        hooks.sort_by(|a, b| a.identity.as_bytes().cmp(b.identity.as_bytes()));
        Ok(Self {
            hooks,
            #[cfg(feature = "https")]
            client: client::WebhookClient::new(),
        })
    }

    /// A layer with no webhooks (serves nothing).
    pub fn empty() -> Self {
        Self {
            hooks: Vec::new(),
            #[cfg(feature = "https")]
            client: client::WebhookClient::new(),
        }
    }

    /// Replaces the HTTPS client (answer size limit, default timeout,
    /// address overrides).
    #[cfg(feature = "https")]
    #[cfg_attr(docsrs, doc(cfg(feature = "https")))]
    pub fn with_client(mut self, client: client::WebhookClient) -> Self {
        self.client = client;
        self
    }

    /// The identity (`<configuration>/<webhook>`) of the hook that would be
    /// called for `operation` on objects of `gvk`.
    pub fn identity(&self, gvk: &GroupVersionKind, op: InterpreterOperation) -> Option<&str> {
        let hook = self.hooks.get(self.select(TypeRef::from_gvk(gvk), op)?)?;
        Some(hook.identity.as_str())
    }

    /// Calls the matching hook and returns the whole exchange (what was
    /// sent, the raw answer, the verified result), or `None` when no hook
    /// matches. The conformance suite uses this for its protocol checks.
    #[cfg(feature = "https")]
    #[cfg_attr(docsrs, doc(cfg(feature = "https")))]
    pub fn call(&self, request: &Request<'_>) -> Option<(String, client::Exchange)> {
        let hook = self
            .hooks
            .get(self.select(TypeRef::of(request.object()), request.operation())?)?;
        Some((hook.identity.clone(), self.client.call(hook, request)))
    }

    /// The index in `hooks` of the hook called for `op` on objects of type
    /// `ty`: the layer's one lookup per call.
    fn select(&self, ty: TypeRef<'_>, op: InterpreterOperation) -> Option<usize> {
        self.hooks.iter().position(|h| {
            h.webhook
                .rules
                .iter()
                .any(|r| r.matches(ty.group, ty.version, ty.kind, op))
        })
    }

    /// Answers `request` by calling hook `entry` (an index in `hooks`, from
    /// [`Layer::route`]); an entry that is not one fails as no match does.
    #[cfg(feature = "https")]
    fn answer(&self, entry: Option<usize>, request: &Request<'_>) -> Result<Outcome> {
        let fail = |webhook: &str, source: WebhookError| {
            source.into_error(webhook, request.operation(), request.object())
        };
        match entry.and_then(|entry| self.hooks.get(entry)) {
            None => Err(fail(
                "",
                WebhookError::Config("no webhook matches".to_owned()),
            )),
            Some(hook) => self
                .client
                .call(hook, request)
                .result
                .map_err(|e| fail(&hook.identity, e)),
        }
    }

    /// Without an HTTPS client no hook can be called: the error names hook
    /// `entry`.
    #[cfg(not(feature = "https"))]
    fn answer(&self, entry: Option<usize>, request: &Request<'_>) -> Result<Outcome> {
        let identity = entry
            .and_then(|entry| self.hooks.get(entry))
            .map(|hook| hook.identity.as_str())
            .unwrap_or_default();
        Err(WebhookError::NoClient.into_error(identity, request.operation(), request.object()))
    }
}

impl Layer for WebhookLayer {
    fn kind(&self) -> LayerKind {
        LayerKind::Webhook
    }

    /// The first hook whose rules match; the route's entry is its index,
    /// which [`Layer::interpret_routed`] calls without matching again.
    fn route(&self, ty: TypeRef<'_>, operation: InterpreterOperation) -> Option<Route> {
        let entry = self.select(ty, operation)?;
        let hook = self.hooks.get(entry)?;
        Some(Route {
            source: Source {
                layer: LayerKind::Webhook,
                name: hook.identity.clone().into(),
            },
            entry,
        })
    }

    fn interpret_routed(&self, entry: usize, request: &Request<'_>) -> Result<Outcome> {
        self.answer(Some(entry), request)
    }

    fn interpret(&self, request: &Request<'_>) -> Result<Outcome> {
        let entry = self.select(TypeRef::of(request.object()), request.operation());
        self.answer(entry, request)
    }

    fn catalog(&self) -> Vec<CatalogEntry> {
        let mut out = Vec::new();
        for hook in &self.hooks {
            for rule in &hook.webhook.rules {
                for op in InterpreterOperation::ALL {
                    if !rule.operations.iter().any(|o| o == "*" || o == op.as_str()) {
                        continue;
                    }
                    for group in &rule.api_groups {
                        for version in &rule.api_versions {
                            for kind in &rule.kinds {
                                let api_version = match (group.as_str(), version.as_str()) {
                                    ("", v) => v.to_owned(),
                                    (g, v) => format!("{g}/{v}"),
                                };
                                out.push(CatalogEntry {
                                    api_version,
                                    kind: kind.clone(),
                                    operation: op,
                                    source: Source {
                                        layer: LayerKind::Webhook,
                                        name: hook.identity.clone().into(),
                                    },
                                });
                            }
                        }
                    }
                }
            }
        }
        out
    }
}

/// A configuration registering one webhook (`config_name`/`webhook_name`)
/// for everything `chain` serves: one rule per (apiVersion, kind) listing
/// the operations served, wildcards kept (`*` kinds become `*` groups,
/// versions and kinds). What `karmada-interpreter serve --print-config` prints.
///
/// ```
/// use karmada_interpreter::{Interpreter, webhook::configuration_for};
/// use k8s_openapi::api::admissionregistration::v1::WebhookClientConfig;
///
/// let chain = Interpreter::builder().thirdparty(false).build().unwrap();
/// let cc = WebhookClientConfig { url: Some("https://127.0.0.1:8443/interpret".into()), ..Default::default() };
/// let config = configuration_for(&chain, "karmada-interpreter", "interpreter.karmada.io", cc, Some(10));
/// let rule = &config.webhooks[0].rules[0];
/// assert_eq!(rule.kinds, ["*"]);
/// assert!(rule.operations.contains(&"InterpretStatus".to_owned()));
/// assert!(karmada_interpreter::webhook::validate(&config).is_ok());
/// ```
pub fn configuration_for(
    chain: &karmada_interpreter_core::interpreter::Chain,
    config_name: &str,
    webhook_name: &str,
    client_config: WebhookClientConfig,
    timeout_seconds: Option<i32>,
) -> ResourceInterpreterWebhookConfiguration {
    use std::collections::BTreeMap;
    let mut by_kind: BTreeMap<(String, String), Vec<InterpreterOperation>> = BTreeMap::new();
    for entry in chain.catalog() {
        if entry.source.layer == LayerKind::Webhook {
            continue;
        }
        let ops = by_kind
            .entry((entry.api_version.clone(), entry.kind.clone()))
            .or_default();
        if !ops.contains(&entry.operation) {
            ops.push(entry.operation);
        }
    }
    let rules = by_kind
        .into_iter()
        .map(|((api_version, kind), mut ops)| {
            ops.sort_by_key(|op| InterpreterOperation::ALL.iter().position(|o| o == op));
            let (group, version) = if api_version == "*" || kind == "*" {
                ("*".to_owned(), "*".to_owned())
            } else {
                let (g, v) = karmada_interpreter_core::k8s::object::split_api_version(&api_version);
                (g.to_owned(), v.to_owned())
            };
            RuleWithOperations {
                operations: ops.iter().map(|o| o.as_str().to_owned()).collect(),
                api_groups: vec![group],
                api_versions: vec![version],
                kinds: vec![if api_version == "*" {
                    "*".to_owned()
                } else {
                    kind
                }],
            }
        })
        .collect();
    ResourceInterpreterWebhookConfiguration {
        api_version: Some(karmada_interpreter_core::api::CONFIG_API_VERSION.to_owned()),
        kind: Some("ResourceInterpreterWebhookConfiguration".to_owned()),
        metadata: ObjectMeta {
            name: Some(config_name.to_owned()),
            ..ObjectMeta::default()
        },
        webhooks: vec![ResourceInterpreterWebhook {
            name: webhook_name.to_owned(),
            client_config,
            rules,
            timeout_seconds,
            interpreter_context_versions: vec!["v1alpha1".to_owned()],
        }],
    }
}

#[cfg(test)]
mod tests {
    use karmada_interpreter_core::api::InterpreterOperation as Op;
    use karmada_interpreter_core::interpreter::{Layer, Request, TypeRef};
    use karmada_interpreter_core::Error;
    use serde_json::json;

    use super::WebhookLayer;

    /// The layer resolves a call once: `route` finds the hook and
    /// `interpret_routed` calls the hook of the entry it is handed, without
    /// matching the object's kind again (nothing listens at the hooks'
    /// address, so each call fails naming the hook it called).
    #[test]
    fn a_routed_call_goes_to_the_hook_of_its_entry_without_a_second_match() {
        let configs = karmada_interpreter_core::load::webhook_configurations_from_str(
            r#"
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterWebhookConfiguration
metadata: {name: cfg}
webhooks:
  - name: a.example.io
    rules: [{operations: ["*"], apiGroups: [example.io], apiVersions: ["*"], kinds: [A]}]
    clientConfig: {url: "https://127.0.0.1:1/a"}
    interpreterContextVersions: [v1alpha1]
  - name: b.example.io
    rules: [{operations: ["*"], apiGroups: [example.io], apiVersions: ["*"], kinds: [B]}]
    clientConfig: {url: "https://127.0.0.1:1/b"}
    interpreterContextVersions: [v1alpha1]
"#,
            "test",
        )
        .expect("configurations");
        let layer = WebhookLayer::new(configs).expect("layer");
        let a = json!({"apiVersion": "example.io/v1", "kind": "A", "metadata": {"name": "x"}});
        let b = json!({"apiVersion": "example.io/v1", "kind": "B", "metadata": {"name": "x"}});
        let route_a = layer
            .route(TypeRef::of(&a), Op::InterpretHealth)
            .expect("a");
        let route_b = layer
            .route(TypeRef::of(&b), Op::InterpretHealth)
            .expect("b");
        assert_eq!(route_a.source.name, "cfg/a.example.io");
        assert_eq!(route_b.source.name, "cfg/b.example.io");
        let called = |entry| {
            let request = Request::InterpretHealth { object: &a };
            match layer.interpret_routed(entry, &request) {
                Err(Error::Layer { name, .. }) => name,
                other => panic!("expected a failed call, got {other:?}"),
            }
        };
        assert_eq!(called(route_a.entry), "cfg/a.example.io");
        assert_eq!(called(route_b.entry), "cfg/b.example.io");
        assert_eq!(called(usize::MAX), "");
    }
}
