//! Where golden cases run: the [`Backend`] trait, the built-in chain
//! ([`ChainBackend`]) and, with feature `webhook`, interpreter webhooks
//! ([`WebhookBackend`]). The [`crate::Runner`] judges what a backend produced
//! with the same rules for every backend.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Map, Value};

use crate::case::GoldenCase;
use crate::discover::{is_webhook_only, CaseFile};
use karmada_interpreter::api::{
    ResourceInterpreterCustomization, ResourceInterpreterWebhookConfiguration,
};
use karmada_interpreter::interpreter::{results_map, Interpreter, Source};
use karmada_interpreter::profile::Profile;
use karmada_interpreter::{Error, Result};

/// What a backend made of one case.
#[derive(Debug)]
pub struct Produced {
    /// The operation's named results ([`karmada_interpreter::interpreter::results`]), or its error.
    pub result: Result<Map<String, Value>>,
    /// Which layer (or webhook) answered, when known.
    pub served_by: Option<Source>,
    /// Checks beyond the result that failed (e.g. webhook protocol rules);
    /// any makes the case fail.
    pub violations: Vec<String>,
    /// What went over the wire, when the backend called a webhook: shown
    /// with a failure.
    pub exchange: Option<Exchange>,
    /// Doubts beyond the result that do not fail the case (e.g. where a
    /// cross-check's reference answers differently): reported as the
    /// case's findings.
    pub findings: Vec<String>,
}

/// The request a backend sent for a case and the answer it received (a
/// webhook's envelope and raw answer), shown with a failure.
#[derive(Debug, Clone, PartialEq)]
pub struct Exchange {
    /// The request sent: the operation's inputs (object, desired replicas,
    /// status items) in their wire envelope.
    pub request: Value,
    /// The answer received (its JSON, or its text when it is not JSON),
    /// or `None` when no answer came.
    pub answer: Option<Value>,
}

impl Exchange {
    /// The answer as the JSON it is, or as text.
    pub fn answer_of(body: &[u8]) -> Value {
        serde_json::from_slice(body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(body).into_owned()))
    }
}

/// Something golden cases can run against.
pub trait Backend: Send + Sync {
    /// A short name for messages (`chain`, `webhook`).
    fn name(&self) -> &'static str;

    /// Why this backend does not run `case` of `file`, or `None` when it does.
    fn skip_reason(&self, file: &CaseFile, case: &GoldenCase) -> Option<String>;

    /// The profile the backend answers with (the default profile unless
    /// set): cases of the `karmada-next` profile are skipped by runs of
    /// another.
    fn profile(&self) -> Profile {
        Profile::Karmada
    }

    /// Runs the case's operation (only called when [`Backend::skip_reason`] is `None`).
    fn produce(&self, file: &CaseFile, case: &GoldenCase) -> Produced;

    /// The customization files whose scripts serve `file`'s cases (so that
    /// script failures can be shown at their place): by default the one
    /// next to the case file in Karmada's layout.
    fn customization_files(&self, file: &CaseFile) -> Vec<PathBuf> {
        file.customization.iter().cloned().collect()
    }
}

/// Why a webhook-only case is skipped by the chain.
pub(crate) const WEBHOOK_ONLY_REASON: &str =
    "webhook-only case (its directory holds a WEBHOOK-ONLY marker): run it against a webhook";

/// The interpreter chain: the bundled and native layers plus the given
/// customizations and webhooks, and, in Karmada's layout, the
/// `customizations.yaml` next to a case file's `testdata/`.
#[derive(Debug, Default)]
pub struct ChainBackend {
    customizations: Vec<ResourceInterpreterCustomization>,
    webhooks: Vec<ResourceInterpreterWebhookConfiguration>,
    coverage: Option<karmada_interpreter::declarative::Coverage>,
    /// The opt-in health layers: Argo CD checks folder, fallback.
    health: (Option<PathBuf>, bool),
    /// The CEL health rules file (feature `cel`).
    #[cfg(feature = "cel")]
    health_exprs: Option<PathBuf>,
    limits: Option<karmada_interpreter::declarative::Limits>,
    chains: Mutex<HashMap<Option<PathBuf>, Arc<Result<Interpreter>>>>,
    files: Vec<PathBuf>,
    profile: Profile,
    composition: bool,
}

impl ChainBackend {
    /// The built-in chain extended with `customizations` and `webhooks`.
    pub fn new(
        customizations: Vec<ResourceInterpreterCustomization>,
        webhooks: Vec<ResourceInterpreterWebhookConfiguration>,
    ) -> Self {
        Self {
            customizations,
            webhooks,
            coverage: None,
            health: (None, false),
            #[cfg(feature = "cel")]
            health_exprs: None,
            limits: None,
            chains: Mutex::default(),
            files: Vec::new(),
            profile: Profile::Karmada,
            composition: false,
        }
    }

    /// The same backend, building its chains with composition on or off
    /// (`InterpreterBuilder::composition`; default off, Karmada's answers).
    pub fn with_composition(mut self, on: bool) -> Self {
        self.composition = on;
        self
    }

    /// The same backend, building its chains with `profile` (cases of the
    /// `karmada-next` profile run only with it).
    pub fn with_profile(mut self, profile: Profile) -> Self {
        self.profile = profile;
        self
    }

    /// The same backend with the opt-in health layers: Argo CD health
    /// checks from `checks` and the kstatus-style `fallback`.
    pub fn with_health(mut self, checks: Option<PathBuf>, fallback: bool) -> Self {
        self.health = (checks, fallback);
        self
    }

    /// The same backend with the CEL health layer over the Flux
    /// `healthCheckExprs` rules of `file` (feature `cel`).
    #[cfg(feature = "cel")]
    pub fn with_health_exprs(mut self, file: Option<PathBuf>) -> Self {
        self.health_exprs = file;
        self
    }

    /// The same backend, knowing the files `customizations` came from (so
    /// that script failures are shown at their place in them).
    pub fn with_files(mut self, files: Vec<PathBuf>) -> Self {
        self.files = files;
        self
    }

    /// The same backend, recording which lines of the chain's Lua scripts
    /// run (`test --coverage` reports those of the customization files).
    pub fn with_coverage(mut self, coverage: karmada_interpreter::declarative::Coverage) -> Self {
        self.coverage = Some(coverage);
        self
    }

    /// The same backend, running every Lua script of the chain (user
    /// customizations, bundled customizations, health checks) under
    /// `limits` (`test --timeout`).
    pub fn with_limits(mut self, limits: karmada_interpreter::declarative::Limits) -> Self {
        self.limits = Some(limits);
        self
    }

    /// The chain for cases next to `customization` (Karmada's layout) or none.
    pub fn chain(&self, customization: Option<&std::path::Path>) -> Result<Interpreter> {
        let mut customizations = self.customizations.clone();
        if let Some(path) = customization {
            customizations.append(&mut karmada_interpreter::load::customizations_from_file(
                path,
            )?);
        }
        let mut builder = Interpreter::builder().customizations(customizations);
        if let Some(coverage) = &self.coverage {
            builder = builder.coverage(coverage.clone());
        }
        if let Some(limits) = self.limits {
            builder = builder.lua_limits(limits);
        }
        let builder = match &self.health.0 {
            Some(dir) => builder.health_checks(dir),
            None => builder,
        };
        #[cfg(feature = "cel")]
        let builder = match &self.health_exprs {
            Some(file) => builder.health_exprs(file.clone()),
            None => builder,
        };
        builder
            .webhook_configurations(self.webhooks.clone())
            .health_fallback(self.health.1)
            .profile(self.profile)
            .composition(self.composition)
            .build()
    }

    fn chain_for(&self, file: &CaseFile) -> Arc<Result<Interpreter>> {
        let mut chains = self.chains.lock().unwrap_or_else(PoisonError::into_inner);
        chains
            .entry(file.customization.clone())
            .or_insert_with(|| Arc::new(self.chain(file.customization.as_deref())))
            .clone()
    }
}

impl Backend for ChainBackend {
    fn name(&self) -> &'static str {
        "chain"
    }

    fn skip_reason(&self, file: &CaseFile, _: &GoldenCase) -> Option<String> {
        is_webhook_only(&file.path).then(|| WEBHOOK_ONLY_REASON.to_owned())
    }

    fn profile(&self) -> Profile {
        self.profile
    }

    fn customization_files(&self, file: &CaseFile) -> Vec<PathBuf> {
        let mut files = self.files.clone();
        files.extend(file.customization.iter().cloned());
        files
    }

    fn produce(&self, file: &CaseFile, case: &GoldenCase) -> Produced {
        let chain = self.chain_for(file);
        let answer = match &*chain {
            Err(e) => Err(Error::Config {
                source_name: file
                    .customization
                    .as_ref()
                    .map_or_else(String::new, |p| p.display().to_string()),
                message: format!("the chain for this case cannot be built: {e}"),
            }),
            Ok(chain) => case
                .request()
                .map_err(Error::from)
                .and_then(|request| chain.interpret(&request)),
        };
        match answer {
            Ok(answer) => Produced {
                result: Ok(results_map(answer.value)),
                served_by: Some(answer.served_by),
                violations: Vec::new(),
                exchange: None,
                findings: Vec::new(),
            },
            Err(e) => Produced {
                result: Err(e),
                served_by: None,
                violations: Vec::new(),
                exchange: None,
                findings: Vec::new(),
            },
        }
    }
}

#[cfg(feature = "webhook")]
pub use self::webhook::WebhookBackend;

#[cfg(feature = "webhook")]
mod webhook {
    use super::*;
    use karmada_interpreter::interpreter::{describe, gvk_of, LayerKind};
    use karmada_interpreter::webhook::client::WebhookClient;
    use karmada_interpreter::webhook::WebhookLayer;

    /// Interpreter webhooks: each case whose (kind, operation) a configured
    /// webhook matches is sent to it; the raw answer must also pass the
    /// protocol checks ([`karmada_interpreter::webhook::protocol_violations`]): uid echoed,
    /// `successful` set, `patchType: JSONPatch` with a patch, a message in a
    /// failing answer; the client itself rejects patches that do not apply.
    /// Cases no webhook matches are skipped.
    #[derive(Debug)]
    pub struct WebhookBackend {
        layer: WebhookLayer,
        profile: Profile,
    }

    impl WebhookBackend {
        /// Validates and loads the configurations.
        pub fn new(configs: Vec<ResourceInterpreterWebhookConfiguration>) -> Result<Self> {
            Ok(Self {
                layer: WebhookLayer::new(configs)?,
                profile: Profile::Karmada,
            })
        }

        /// The same backend, sending the cases of `profile` too (those of
        /// the `karmada-next` profile only with it).
        pub fn with_profile(mut self, profile: Profile) -> Self {
            self.profile = profile;
            self
        }

        /// Uses `client` for the calls (limits, timeouts, address overrides).
        pub fn with_client(mut self, client: WebhookClient) -> Self {
            self.layer = self.layer.with_client(client);
            self
        }
    }

    impl Backend for WebhookBackend {
        fn name(&self) -> &'static str {
            "webhook"
        }

        fn profile(&self) -> Profile {
            self.profile
        }

        fn skip_reason(&self, _: &CaseFile, case: &GoldenCase) -> Option<String> {
            // A malformed request is not skipped: `produce` reports it.
            // AggregateStatus without status items runs like any other
            // case: Karmada's status controller calls it whatever the
            // binding holds, and the wire omits an empty `aggregatedStatus`
            // (`omitempty`), so `statusItems: []` and an absent list are the
            // same request to a webhook.
            let request = case.request().ok()?;
            #[cfg(feature = "karmada-next")]
            if case.input_components.as_ref().is_some_and(Vec::is_empty) {
                return Some(
                    "`inputComponents: []` cannot be told apart from an absent list on the wire"
                        .into(),
                );
            }
            let gvk = gvk_of(request.object());
            self.layer
                .identity(&gvk, case.operation)
                .is_none()
                .then(|| {
                    format!(
                        "no webhook rule matches {} for {}",
                        case.operation,
                        describe(request.object())
                    )
                })
        }

        fn produce(&self, _: &CaseFile, case: &GoldenCase) -> Produced {
            let failed = |e: Error| Produced {
                result: Err(e),
                served_by: None,
                violations: Vec::new(),
                exchange: None,
                findings: Vec::new(),
            };
            let request = match case.request() {
                Ok(r) => r,
                Err(e) => return failed(e.into()),
            };
            let Some((identity, exchange)) = self.layer.call(&request) else {
                return failed(Error::not_served(request.object(), case.operation));
            };
            let source = Source {
                layer: LayerKind::Webhook,
                name: identity.clone().into(),
            };
            let mut violations = Vec::new();
            match (&exchange.response_body, &exchange.request.request) {
                (Some(body), Some(sent)) => {
                    violations = karmada_interpreter::webhook::protocol_violations(sent, body)
                        .into_iter()
                        .map(|v| format!("protocol: {v}"))
                        .collect();
                }
                // A failure case must be an answer, not a broken call.
                _ if case.expect_error => violations.push(format!(
                    "protocol: expected the webhook to answer with an error, but the call failed: {}",
                    exchange
                        .result
                        .as_ref()
                        .err()
                        .map_or_else(String::new, ToString::to_string)
                )),
                _ => {}
            }
            let shown = Exchange {
                request: serde_json::to_value(&exchange.request).unwrap_or(Value::Null),
                answer: exchange.response_body.as_deref().map(Exchange::answer_of),
            };
            Produced {
                result: exchange.result.map(results_map).map_err(|source| {
                    source.into_error(&identity, case.operation, request.object())
                }),
                served_by: Some(source),
                violations,
                exchange: Some(shown),
                findings: Vec::new(),
            }
        }
    }
}
