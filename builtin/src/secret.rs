//! v1 Secret: Retain.

use super::workload::retain_args;
use karmada_interpreter_core::error::Result;
use karmada_interpreter_core::interpreter::InPlaceRequest;
use karmada_interpreter_core::k8s::field;
use karmada_interpreter_core::k8s::keep::Keep;
use karmada_interpreter_core::k8s::written::Written;
use serde_json::Value;

/// What Retain reads of the member's object.
pub(crate) const RETAIN_KEEPS: Keep = Keep::Members(&[("data", Keep::All)]);

/// Secrets whose `data` the member cluster fills in.
const SERVICE_ACCOUNT_TOKEN: &str = "kubernetes.io/service-account-token";

/// For service-account-token secrets, the member's `data` replaces the
/// desired one; other secrets are returned unchanged.
pub(crate) fn retain(edit: InPlaceRequest<'_>) -> Result<Written> {
    let (desired, observed) = retain_args(edit)?;
    let mut written = Written::new();
    // A `type` that cannot be read means "no type".
    let is_token = field::get_str(desired, &["type"]).ok().flatten() == Some(SERVICE_ACCOUNT_TOKEN);
    if is_token {
        if let Some(data) = field::get_string_map(observed, &["data"])? {
            written.set(desired, &["data"], Value::Object(data.clone()))?;
        }
    }
    Ok(written)
}
