//! batch/v1 CronJob: InterpretDependency (§10.1, the job template's pod spec).

use crate::k8s::normalize::schema::CRON_JOB;
use super::workload::{check, dependencies_of};
use crate::k8s::field::get;
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

/// ConfigMaps, Secrets, ServiceAccount and PVCs of the job template's pods,
/// in the CronJob's namespace.
pub(crate) fn interpret_dependency(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    check(object, &CRON_JOB)?;
    let pod = get(object, &["spec", "jobTemplate", "spec", "template", "spec"]);
    let deps = dependencies_of(object, pod)?;
    Ok(Outcome::Dependencies(deps))
}
