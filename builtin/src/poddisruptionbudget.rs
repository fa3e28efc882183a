//! policy/v1 PodDisruptionBudget: InterpretHealth.
//!
//! Status: AggregateStatus and
//! InterpretStatus.

use super::status::{
    aggregate_inputs, check_int32_sum, decode_item, int, object, put_int, reflected_status,
    template_status, unchanged, with_status, Aggregated,
};
use super::workload::check;
use karmada_interpreter_core::error::Result;
use karmada_interpreter_core::interpreter::{Outcome, Request};
use karmada_interpreter_core::k8s::field;
use karmada_interpreter_core::k8s::keep::Keep;
use karmada_interpreter_core::k8s::normalize::schema::POD_DISRUPTION_BUDGET;
use karmada_interpreter_core::k8s::normalize::{self, schema};
use serde_json::{Map, Value};

/// What InterpretHealth reads.
const HEALTH_READS: Keep = Keep::Members(&[(
    "status",
    Keep::Members(&[("currentHealthy", Keep::All), ("desiredHealthy", Keep::All)]),
)]);

/// Healthy iff `currentHealthy >= desiredHealthy`.
pub(crate) fn interpret_health(request: &Request<'_>) -> Result<Outcome> {
    let pdb = request.object();
    check(pdb, &POD_DISRUPTION_BUDGET, HEALTH_READS)?;
    let status = |key: &str| field::int(pdb, &["status", key]).unwrap_or(0);
    let healthy = status("currentHealthy") >= status("desiredHealthy");
    Ok(Outcome::Healthy(healthy))
}

const COUNTERS: [&str; 4] = [
    "currentHealthy",
    "desiredHealthy",
    "expectedPods",
    "disruptionsAllowed",
];

/// Sums the counters; disrupted pods keyed `<cluster>/<pod>`.
pub(crate) fn aggregate(request: &Request<'_>) -> Result<Aggregated> {
    let (template, items) = aggregate_inputs(request)?;
    let old = template_status(template, &schema::POD_DISRUPTION_BUDGET_STATUS)?;
    let mut sums = [0i64; 4];
    let mut disrupted = Map::new();
    for (i, item) in items.unwrap_or(&[]).iter().enumerate() {
        let Some(m) = decode_item(template, i, item, &schema::POD_DISRUPTION_BUDGET_STATUS)? else {
            continue;
        };
        for (sum, key) in sums.iter_mut().zip(COUNTERS) {
            *sum += int(&m, key);
        }
        if let Some(pods) = object(&m, "disruptedPods") {
            for (pod, time) in pods {
                disrupted.insert(format!("{}/{pod}", item.cluster_name), time.clone());
            }
        }
    }
    let mut new = Map::new();
    for (sum, key) in sums.iter().zip(COUNTERS) {
        check_int32_sum(template, key, *sum)?;
        put_int(&mut new, &schema::POD_DISRUPTION_BUDGET_STATUS, key, *sum);
    }
    new.insert("disruptedPods".into(), Value::Object(disrupted));
    if new == old {
        return unchanged(template, &schema::POD_DISRUPTION_BUDGET);
    }
    with_status(
        template,
        &schema::POD_DISRUPTION_BUDGET,
        new,
        &schema::POD_DISRUPTION_BUDGET_STATUS,
    )
}

/// Disrupted pods and the four counters (always).
pub(crate) fn reflect(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    let Some(status) = reflected_status(object)? else {
        return Ok(Outcome::Status(None));
    };
    let encoded = normalize::encode_known(
        object,
        "status",
        status,
        &schema::POD_DISRUPTION_BUDGET_STATUS,
    )?;
    let mut out = Map::new();
    if let Value::Object(mut m) = encoded {
        for key in [
            "disruptedPods",
            "disruptionsAllowed",
            "currentHealthy",
            "desiredHealthy",
            "expectedPods",
        ] {
            if let Some(v) = m.remove(key) {
                out.insert(key.to_owned(), v);
            }
        }
    }
    Ok(Outcome::Status(Some(Value::Object(out))))
}
