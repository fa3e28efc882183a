//! Why a health layer this project authors answered as it did: what
//! `explain` shows and `run -o json` carries beside the verdict.

use karmada_interpreter::health::{fallback, ArgoCdHealth, CelHealth};
use karmada_interpreter::interpreter::Source;
use serde_json::{json, Value};

/// Why a health layer this project authors answered as it did, when
/// `source` is one: (`fallback`, its verdict and reason), (`cel`, its verdict
/// and the expression that decided) or (`argocd`, the check's status and
/// message); `None` for any other layer (Karmada's scripts answer a bare
/// boolean). `explain` shows it, `run -o json` carries it.
pub(crate) fn health_verdict(
    source: &Source,
    object: &Value,
    health_exprs: Option<&std::path::Path>,
    health_checks: Option<&std::path::Path>,
) -> crate::error::Result<Option<(&'static str, Value)>> {
    use karmada_interpreter::health::{ARGOCD, CEL, FALLBACK};
    Ok(match (source.layer, health_exprs, health_checks) {
        (FALLBACK, _, _) => Some(("fallback", json!(fallback::evaluate(object)?))),
        (CEL, Some(file), _) => Some(("cel", json!(CelHealth::from_file(file)?.verdict(object)?))),
        (ARGOCD, _, Some(dir)) => Some((
            "argocd",
            json!(ArgoCdHealth::from_dir(dir)?.status(object)?),
        )),
        _ => None,
    })
}
