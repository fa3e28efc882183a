//! v1 PersistentVolumeClaim: AggregateStatus (§7.9). InterpretStatus is the
//! whole-status reflection (§8.10).

use serde_json::{Map, Value};

use super::{aggregate_inputs, decode_item, string, template_status, unchanged, with_status};
use crate::k8s::normalize::schema;
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

/// `Bound` unless a member reports otherwise: `Lost` wins at once, else the
/// last non-Bound phase (Karmada's rule, even an empty one).
pub(crate) fn aggregate(request: &Request<'_>) -> Result<Outcome> {
    let (template, items) = aggregate_inputs(request)?;
    let old = template_status(template, &schema::PERSISTENT_VOLUME_CLAIM_STATUS)?;
    let mut phase = "Bound".to_owned();
    for (i, item) in items.unwrap_or(&[]).iter().enumerate() {
        let Some(m) = decode_item(template, i, item, &schema::PERSISTENT_VOLUME_CLAIM_STATUS)?
        else {
            continue;
        };
        let p = string(&m, "phase");
        if p == "Lost" {
            phase = p.to_owned();
            break;
        }
        if p != "Bound" {
            phase = p.to_owned();
        }
    }
    let mut new = Map::new();
    if !phase.is_empty() {
        new.insert("phase".into(), Value::from(phase));
    }
    if new == old {
        return unchanged(template, &schema::PERSISTENT_VOLUME_CLAIM);
    }
    with_status(
        template,
        &schema::PERSISTENT_VOLUME_CLAIM,
        new,
        &schema::PERSISTENT_VOLUME_CLAIM_STATUS,
    )
}
