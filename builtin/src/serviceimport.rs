//! multicluster.x-k8s.io/v1alpha1 ServiceImport: InterpretDependency.

use super::workload::check;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use karmada_interpreter_core::api::DependentObjectReference;
use karmada_interpreter_core::error::Result;
use karmada_interpreter_core::interpreter::{Outcome, Request};
use karmada_interpreter_core::k8s::dependencies::verify_dependencies;
use karmada_interpreter_core::k8s::field::{get, namespace};
use karmada_interpreter_core::k8s::keep::Keep;
use karmada_interpreter_core::k8s::normalize::schema::{OBJECT_META, SESSION_AFFINITY_CONFIG};
use karmada_interpreter_core::k8s::normalize::{Emit, Field, Kind, Ty};
use std::collections::BTreeMap;

/// `multicluster.x-k8s.io/v1alpha1` ServiceImport (a CRD, not in the
/// generated Kubernetes graph): the fields Karmada's Go type declares.
static SERVICE_IMPORT: Ty = Ty {
    name: "ServiceImport",
    fields: &[
        Field {
            json: "apiVersion",
            kind: Kind::Str,
            emit: Emit::Omit,
        },
        Field {
            json: "kind",
            kind: Kind::Str,
            emit: Emit::Omit,
        },
        Field {
            json: "metadata",
            kind: Kind::Struct(&OBJECT_META),
            emit: Emit::Omit,
        },
        Field {
            json: "spec",
            kind: Kind::Struct(&SERVICE_IMPORT_SPEC),
            emit: Emit::Omit,
        },
        Field {
            json: "status",
            kind: Kind::Struct(&SERVICE_IMPORT_STATUS),
            emit: Emit::Omit,
        },
    ],
};

static SERVICE_IMPORT_SPEC: Ty = Ty {
    name: "ServiceImportSpec",
    fields: &[
        Field {
            json: "ips",
            kind: Kind::List(&Kind::Str),
            emit: Emit::Omit,
        },
        Field {
            json: "ports",
            kind: Kind::List(&Kind::Struct(&SERVICE_PORT)),
            emit: Emit::Omit,
        },
        Field {
            json: "sessionAffinity",
            kind: Kind::Str,
            emit: Emit::Omit,
        },
        Field {
            json: "sessionAffinityConfig",
            kind: Kind::Struct(&SESSION_AFFINITY_CONFIG),
            emit: Emit::Omit,
        },
        Field {
            json: "type",
            kind: Kind::Str,
            emit: Emit::Omit,
        },
    ],
};

static SERVICE_PORT: Ty = Ty {
    name: "ServicePort",
    fields: &[
        Field {
            json: "appProtocol",
            kind: Kind::Str,
            emit: Emit::Omit,
        },
        Field {
            json: "name",
            kind: Kind::Str,
            emit: Emit::Omit,
        },
        Field {
            json: "port",
            kind: Kind::I32,
            emit: Emit::Omit,
        },
        Field {
            json: "protocol",
            kind: Kind::Str,
            emit: Emit::Omit,
        },
    ],
};

static SERVICE_IMPORT_STATUS: Ty = Ty {
    name: "ServiceImportStatus",
    fields: &[Field {
        json: "clusters",
        kind: Kind::List(&Kind::Struct(&CLUSTER_STATUS)),
        emit: Emit::Omit,
    }],
};

static CLUSTER_STATUS: Ty = Ty {
    name: "ClusterStatus",
    fields: &[Field {
        json: "cluster",
        kind: Kind::Str,
        emit: Emit::Omit,
    }],
};

/// What InterpretDependency reads.
const DEPENDENCY_READS: Keep = Keep::Members(&[(
    "metadata",
    Keep::Members(&[("name", Keep::All), ("namespace", Keep::All)]),
)]);

/// The derived Service `derived-<name>` and its EndpointSlices (selected by
/// the `kubernetes.io/service-name` label), in the import's namespace.
pub(crate) fn interpret_dependency(request: &Request<'_>) -> Result<Outcome> {
    let object = request.object();
    check(object, &SERVICE_IMPORT, DEPENDENCY_READS)?;
    let name = get(object, &["metadata", "name"])
        .and_then(serde_json::Value::as_str)
        .unwrap_or("");
    let derived = format!("derived-{name}");
    let namespace = namespace(object);
    let mut slices =
        DependentObjectReference::named("discovery.k8s.io/v1", "EndpointSlice", namespace, "");
    slices.label_selector = Some(LabelSelector {
        match_labels: Some(BTreeMap::from([(
            "kubernetes.io/service-name".to_owned(),
            derived.clone(),
        )])),
        match_expressions: None,
    });
    let deps = vec![
        DependentObjectReference::named("v1", "Service", namespace, &derived),
        slices,
    ];
    verify_dependencies(object, &deps)?;
    Ok(Outcome::Dependencies(deps))
}
