//! Running golden cases against interpreter webhooks (feature `webhook`).
//!
//! Each case whose (kind, operation) a configured webhook matches is sent to
//! that webhook instead of the built-in chain; its result is compared with
//! the golden output, and the raw answer must also pass the protocol checks
//! ([`crate::webhook::protocol_violations`]): uid echoed, `successful` set,
//! `patchType: JSONPatch` with a patch, a message in a failing answer; the
//! client itself rejects patches that do not apply. Cases no webhook
//! matches are skipped.

use std::path::PathBuf;

use super::case::{load_cases, GoldenCase};
use super::deviations::Deviations;
use super::discover::discover;
use super::runner::{judge_result, outputs, CaseReport, Report, Verdict};
use crate::api::ResourceInterpreterWebhookConfiguration;
use crate::error::{Error, Result};
use crate::interpreter::{describe, LayerKind, Source};
use crate::webhook::client::WebhookClient;
use crate::webhook::WebhookLayer;

/// Runs golden cases against the webhooks of some configurations.
#[derive(Debug)]
pub struct WebhookRunner {
    layer: WebhookLayer,
    /// Cases the project answers differently on purpose (a listed case that
    /// fails is a known deviation; one that passes is simply a pass).
    pub deviations: Deviations,
}

impl WebhookRunner {
    /// Validates and loads the configurations.
    pub fn new(configs: Vec<ResourceInterpreterWebhookConfiguration>) -> Result<Self> {
        Ok(Self {
            layer: WebhookLayer::new(configs)?,
            deviations: Deviations::project(),
        })
    }

    /// Uses `client` for the calls (limits, timeouts, address overrides).
    pub fn with_client(mut self, client: WebhookClient) -> Self {
        self.layer = self.layer.with_client(client);
        self
    }

    /// The identity of the webhook that would answer `operation` for objects
    /// of `gvk` (`None`: the case would be skipped).
    pub fn identity(
        &self,
        gvk: &kube::core::GroupVersionKind,
        operation: crate::api::InterpreterOperation,
    ) -> Option<&str> {
        self.layer.identity(gvk, operation)
    }

    /// Runs every case found under `paths`.
    pub fn run(&self, paths: &[PathBuf]) -> Result<Report> {
        let mut report = Report::default();
        for file in discover(paths)? {
            for (i, case) in load_cases(&file.path).into_iter().enumerate() {
                report.cases.push(match case {
                    Ok(case) => self.run_case(&case),
                    Err(e) => CaseReport {
                        file: file.path.clone(),
                        name: format!("case #{}", i + 1),
                        operation: None,
                        served_by: None,
                        verdict: Verdict::Failed(vec![e.to_string()]),
                    },
                });
            }
        }
        Ok(report)
    }

    /// Sends one case to the matching webhook and judges the answer.
    pub fn run_case(&self, case: &GoldenCase) -> CaseReport {
        let report = |served_by, verdict| CaseReport {
            file: case.file.clone(),
            name: case.name.clone(),
            operation: Some(case.operation),
            served_by,
            verdict,
        };
        if let Some(reason) = &case.status_items_error {
            // Refused while decoding the items, before any call.
            let refused = Err(crate::Error::InvalidInput {
                operation: case.operation,
                reason: reason.clone(),
            });
            let (served_by, verdict) = judge_result(case, refused);
            return report(served_by, verdict);
        }
        let request = match case.request() {
            Ok(r) => r,
            Err(e) => return report(None, Verdict::Failed(vec![e])),
        };
        if case.status_items.as_ref().is_some_and(Vec::is_empty) {
            return report(
                None,
                Verdict::Skipped(
                    "`statusItems: []` cannot be told apart from an absent list on the wire".into(),
                ),
            );
        }
        let Some((identity, exchange)) = self.layer.call(&request) else {
            return report(
                None,
                Verdict::Skipped(format!(
                    "no webhook rule matches {} for {}",
                    case.operation,
                    describe(request.object())
                )),
            );
        };
        let source = Source {
            layer: LayerKind::Webhook,
            name: identity.clone().into(),
        };
        let mut violations = Vec::new();
        match (&exchange.response_body, &exchange.request.request) {
            (Some(body), Some(sent)) => {
                violations = crate::webhook::protocol_violations(sent, body)
                    .into_iter()
                    .map(|v| format!("protocol: {v}"))
                    .collect();
            }
            // A failure case must be an answer, not a broken call.
            _ if case.expect_error => violations.push(format!(
                "protocol: expected the webhook to answer with an error, but the call failed: {}",
                exchange.result.as_ref().err().map_or("", String::as_str)
            )),
            _ => {}
        }
        let produced = exchange
            .result
            .map(|o| (outputs(o), source.clone()))
            .map_err(|message| Error::Webhook {
                webhook: identity,
                operation: case.operation,
                object: describe(request.object()),
                message,
            });
        let (served_by, mut verdict) = judge_result(case, produced);
        if !violations.is_empty() {
            verdict = match verdict {
                Verdict::Failed(mut lines) => {
                    lines.extend(violations);
                    Verdict::Failed(lines)
                }
                _ => Verdict::Failed(violations),
            };
        }
        if let (Verdict::Failed(_), Some(dev)) =
            (&verdict, self.deviations.find(&case.file, &case.name))
        {
            verdict = Verdict::KnownDeviation(dev.reason.clone());
        }
        report(served_by.or(Some(source)), verdict)
    }
}
