//! networking.k8s.io/v1 Ingress: AggregateStatus (§7.3). InterpretStatus is
//! the whole-status reflection (§8.6).

use super::aggregate_load_balancer;
use crate::k8s::normalize::schema;
use crate::error::Result;
use crate::interpreter::{Outcome, Request};

/// The members' load-balancer ingress entries, merged and sorted.
pub(crate) fn aggregate(request: &Request<'_>) -> Result<Outcome> {
    aggregate_load_balancer(request, &schema::INGRESS, &schema::INGRESS_STATUS, false)
}
