//! Why a health layer this project authors answered as it did: what
//! `explain` shows, `run -o json` carries beside the verdict, and `serve`
//! logs and counts for an unhealthy one.

use std::path::Path;

use karmada_interpreter::health::{fallback, ArgoCdHealth, CelHealth, HealthStatus};
use karmada_interpreter::interpreter::Source;
use karmada_interpreter::webhook::sdk::HealthReason;
use serde_json::{json, Value};

/// The health layers a command was given (`--health-exprs`,
/// `--health-checks`; the fallback needs nothing), loaded once, to ask them
/// why they answered as they did.
#[derive(Default)]
pub(crate) struct HealthReasons {
    cel: Option<CelHealth>,
    argocd: Option<ArgoCdHealth>,
}

impl HealthReasons {
    /// The layers of these files (each optional).
    pub(crate) fn load(
        health_exprs: Option<&Path>,
        health_checks: Option<&Path>,
    ) -> crate::error::Result<Self> {
        Ok(Self {
            cel: health_exprs.map(CelHealth::from_file).transpose()?,
            argocd: health_checks.map(ArgoCdHealth::from_dir).transpose()?,
        })
    }

    /// Why the layer of `source` answered so for `object`, when it is one
    /// of ours: (`fallback`, its verdict and reason), (`cel`, its verdict
    /// and the expression that decided) or (`argocd`, the check's status
    /// and message); `None` for any other layer (Karmada's scripts answer a
    /// bare boolean). `explain` shows it, `run -o json` carries it.
    pub(crate) fn verdict(
        &self,
        source: &Source,
        object: &Value,
    ) -> crate::error::Result<Option<(&'static str, Value)>> {
        use karmada_interpreter::health::{ARGOCD, CEL, FALLBACK};
        Ok(match (source.layer, &self.cel, &self.argocd) {
            (FALLBACK, _, _) => Some(("fallback", json!(fallback::evaluate(object)?))),
            (CEL, Some(cel), _) => Some(("cel", json!(cel.verdict(object)?))),
            (ARGOCD, _, Some(checks)) => Some(("argocd", json!(checks.status(object)?))),
            _ => None,
        })
    }

    /// Why the layer of `source` calls `object` (JSON text) unhealthy, when
    /// it is one of ours and does: its status word and the reason in words
    /// (`serve`'s log line and metrics label). The object is decoded only
    /// for our layers.
    pub(crate) fn unhealthy(&self, source: &Source, object: &[u8]) -> Option<HealthReason> {
        use karmada_interpreter::health::{ARGOCD, CEL, FALLBACK};
        if !matches!(source.layer, FALLBACK | CEL | ARGOCD) {
            return None;
        }
        let object: Value = serde_json::from_slice(object).ok()?;
        let object = &object;
        match (source.layer, &self.cel, &self.argocd) {
            (FALLBACK, _, _) => fallback::evaluate(object)
                .ok()
                .filter(|v| !v.healthy)
                .map(|v| HealthReason {
                    status: v.status.as_str(),
                    message: v.reason,
                }),
            (CEL, Some(cel), _) => cel
                .verdict(object)
                .ok()
                .flatten()
                .filter(|v| !v.healthy)
                .map(|v| HealthReason {
                    status: v.status,
                    message: format!("{}: {}", v.rule, v.decided_by),
                }),
            (ARGOCD, _, Some(checks)) => checks.status(object).ok().flatten().and_then(|s| {
                // Unhealthy is Progressing, Degraded or Missing: a fixed
                // word of Argo CD's, never the check's own text.
                let status = HealthStatus::CODES
                    .into_iter()
                    .find(|c| *c == s.status && !matches!(*c, "Healthy" | "Suspended"))?;
                Some(HealthReason {
                    status,
                    message: s.message,
                })
            }),
            _ => None,
        }
    }
}
