//! The webhook layer: `ResourceInterpreterWebhookConfiguration` rules and
//! hook selection (`webhook-and-cli.md` §2.3–§2.4). The HTTPS client arrives
//! with the webhook issue; until then a matched hook answers with an error.

use kube::core::GroupVersionKind;

use crate::api::{
    InterpreterOperation, ResourceInterpreterWebhook, ResourceInterpreterWebhookConfiguration,
};
use crate::error::{Error, Result};
use crate::interpreter::{describe, CatalogEntry, Layer, LayerKind, Outcome, Request, Source};

/// A webhook entry with its identity `"<configuration>/<webhook>"`.
#[derive(Debug, Clone)]
pub(crate) struct Hook {
    pub identity: String,
    pub webhook: ResourceInterpreterWebhook,
}

/// The webhook layer of the chain.
#[derive(Debug)]
pub struct WebhookLayer {
    /// Sorted by identity: the first match is the one called.
    hooks: Vec<Hook>,
}

impl WebhookLayer {
    /// Loads configurations (configurations ordered by name, hooks in listed order).
    pub fn new(configs: Vec<ResourceInterpreterWebhookConfiguration>) -> Result<Self> {
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
        Ok(Self { hooks })
    }

    pub(crate) fn select(&self, gvk: &GroupVersionKind, op: InterpreterOperation) -> Option<&Hook> {
        self.hooks.iter().find(|h| {
            h.webhook
                .rules
                .iter()
                .any(|r| r.matches(&gvk.group, &gvk.version, &gvk.kind, op))
        })
    }
}

impl Layer for WebhookLayer {
    fn kind(&self) -> LayerKind {
        LayerKind::Webhook
    }

    fn source(&self, gvk: &GroupVersionKind, operation: InterpreterOperation) -> Option<Source> {
        self.select(gvk, operation).map(|h| Source {
            layer: LayerKind::Webhook,
            name: h.identity.clone(),
        })
    }

    fn interpret(&self, request: &Request<'_>) -> Result<Outcome> {
        let gvk = crate::interpreter::gvk_of(request.object());
        let webhook = self
            .select(&gvk, request.operation())
            .map(|h| h.identity.clone())
            .unwrap_or_default();
        Err(Error::Webhook {
            webhook,
            operation: request.operation(),
            object: describe(request.object()),
            message: "the webhook client is not available in this build yet".to_owned(),
        })
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
                                        name: hook.identity.clone(),
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
