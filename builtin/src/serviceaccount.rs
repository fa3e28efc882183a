//! v1 ServiceAccount: Retain.

use super::workload::retain_args;
use karmada_interpreter_core::error::Result;
use karmada_interpreter_core::interpreter::InPlaceRequest;
use karmada_interpreter_core::k8s::field;
use karmada_interpreter_core::k8s::keep::Keep;
use karmada_interpreter_core::k8s::written::Written;
use serde_json::Value;

/// What Retain reads of the member's object.
pub(crate) const RETAIN_KEEPS: Keep =
    Keep::Members(&[("secrets", Keep::All), ("imagePullSecrets", Keep::All)]);

/// The `name` of each entry of the list at `field`; entries must be objects
/// with a string `name` (the reference crashes otherwise).
fn entry_name<'a>(object: &Value, field: &str, i: usize, entry: &'a Value) -> Result<&'a str> {
    entry.get("name").and_then(Value::as_str).ok_or_else(|| {
        field::invalid(
            object,
            &format!("{field}[{i}].name"),
            "expected an entry with a string name",
        )
        .into()
    })
}

/// Desired entries, then observed entries whose name is not yet present;
/// an empty result is written as `null`.
fn merge(desired: &Value, observed: &Value, field: &str) -> Result<Value> {
    let mine = field::get_list(desired, &[field])?;
    let theirs = field::get_list(observed, &[field])?;
    let mut merged: Vec<Value> = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    for (i, entry) in mine.into_iter().flatten().enumerate() {
        names.push(entry_name(desired, field, i, entry)?);
        merged.push(entry.clone());
    }
    for (i, entry) in theirs.into_iter().flatten().enumerate() {
        let name = entry_name(observed, field, i, entry)?;
        if !names.contains(&name) {
            names.push(name);
            merged.push(entry.clone());
        }
    }
    Ok(if merged.is_empty() {
        Value::Null
    } else {
        Value::Array(merged)
    })
}

/// Merges `secrets` and `imagePullSecrets` by name.
pub(crate) fn retain(edit: InPlaceRequest<'_>) -> Result<Written> {
    let (desired, observed) = retain_args(edit)?;
    let mut written = Written::new();
    let secrets = merge(desired, observed, "secrets")?;
    let pull = merge(desired, observed, "imagePullSecrets")?;
    // Top-level keys of an object: both writes succeed.
    written.set(desired, &["secrets"], secrets)?;
    written.set(desired, &["imagePullSecrets"], pull)?;
    Ok(written)
}
