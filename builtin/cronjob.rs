//! batch/v1 CronJob: InterpretDependency (§10.1, the job template's pod spec).

use k8s_openapi::api::batch::v1::{CronJobSpec, CronJobStatus};

use super::decode::{decode, namespace_of, Object};
use super::podtemplate::check_quantities;
use super::workload::dependencies_of;
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

const POD_SPEC: &str = "spec.jobTemplate.spec.template.spec";

/// ConfigMaps, Secrets, ServiceAccount and PVCs of the job template's pods,
/// in the CronJob's namespace.
pub(crate) fn interpret_dependency(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    let cj: Object<CronJobSpec, CronJobStatus> = decode(object)?;
    let pod = cj
        .spec
        .as_ref()
        .and_then(|s| s.job_template.spec.as_ref())
        .and_then(|j| j.template.spec.as_ref());
    if let Some(pod) = pod {
        check_quantities(object, POD_SPEC, pod)?;
    }
    let deps = dependencies_of(object, namespace_of(&cj.metadata), pod)?;
    Ok(Outcome::Dependencies(deps))
}
