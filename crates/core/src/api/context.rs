use k8s_openapi::ByteString;
use kube::core::GroupVersionKind;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::{is_zero_i32, AggregatedStatusItem, Component, DependentObjectReference};
use super::{InterpreterOperation, ReplicaRequirements};

/// `apiVersion` of the webhook envelope.
pub const CONTEXT_API_VERSION: &str = "config.karmada.io/v1alpha1";
/// `kind` of the webhook envelope.
pub const CONTEXT_KIND: &str = "ResourceInterpreterContext";

/// The envelope exchanged with an interpreter webhook
/// (`config.karmada.io/v1alpha1` `ResourceInterpreterContext`).
///
/// ```
/// use karmada_interpreter::api::ResourceInterpreterContext;
///
/// let answer: ResourceInterpreterContext = serde_json::from_str(
///     r#"{"response":{"uid":"u-1","successful":true,"healthy":false}}"#,
/// ).unwrap();
/// let response = answer.response.unwrap();
/// assert_eq!(response.healthy, Some(false));
/// assert!(answer.request.is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceInterpreterContext {
    /// Always `config.karmada.io/v1alpha1` in requests; optional in responses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// Always `ResourceInterpreterContext` in requests; optional in responses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Set in requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<ResourceInterpreterRequest>,
    /// Set in responses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<ResourceInterpreterResponse>,
}

impl ResourceInterpreterContext {
    /// A request envelope with `apiVersion` and `kind` filled in.
    pub fn for_request(request: ResourceInterpreterRequest) -> Self {
        Self {
            api_version: Some(CONTEXT_API_VERSION.to_owned()),
            kind: Some(CONTEXT_KIND.to_owned()),
            request: Some(request),
            response: None,
        }
    }

    /// A response envelope as Karmada's SDK writes it (no `apiVersion`/`kind`).
    pub fn for_response(response: ResourceInterpreterResponse) -> Self {
        Self {
            response: Some(response),
            ..Self::default()
        }
    }
}

/// `request` member of the envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceInterpreterRequest {
    /// Fresh random UUID per call; the response must echo it.
    pub uid: String,
    /// Group, version and kind of `object` (group `""` for the core group).
    pub kind: GroupVersionKind,
    /// `metadata.name` of the object (may be empty).
    #[serde(default)]
    pub name: String,
    /// `metadata.namespace`; omitted for cluster-scoped objects.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// The operation asked for.
    pub operation: InterpreterOperation,
    /// The complete object, embedded verbatim.
    #[serde(default)]
    pub object: Value,
    /// Only for `Retain`: the live object from the member cluster.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_object: Option<Value>,
    /// Desired replicas for `ReviseReplica`; always written (0 otherwise).
    #[serde(default)]
    pub replicas: i32,
    /// Only for `AggregateStatus`, and only when non-empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aggregated_status: Vec<AggregatedStatusItem>,
    /// Only for `ReviseComponents` (the `karmada-next` profile, Karmada's
    /// pull request #7830), and only when non-empty: the per-component
    /// assignment to write.
    #[cfg(feature = "karmada-next")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub components: Vec<super::TargetComponent>,
}

impl ResourceInterpreterRequest {
    /// A request of `operation` for `object`, every optional member empty
    /// (`replicas` 0): the one way to build one whatever features are on.
    pub fn new(
        uid: String,
        kind: GroupVersionKind,
        name: String,
        namespace: String,
        operation: InterpreterOperation,
        object: Value,
    ) -> Self {
        Self {
            uid,
            kind,
            name,
            namespace,
            operation,
            object,
            observed_object: None,
            replicas: 0,
            aggregated_status: Vec::new(),
            #[cfg(feature = "karmada-next")]
            components: Vec::new(),
        }
    }
}

/// `response` member of the envelope.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceInterpreterResponse {
    /// Must equal `request.uid`.
    #[serde(default)]
    pub uid: String,
    /// Whether the webhook answered the request (absent reads as false).
    #[serde(default)]
    pub successful: bool,
    /// Required when `successful` is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<RequestStatus>,
    /// RFC 6902 JSON Patch document bytes (base64 on the wire).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<ByteString>,
    /// `JSONPatch` exactly when `patch` is non-empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch_type: Option<PatchType>,
    /// Result of `InterpretReplica` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replica_requirements: Option<ReplicaRequirements>,
    /// Result of `InterpretReplica` (required there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    /// Result of `InterpretComponent` (an empty list is omitted, as Go's
    /// `omitempty` omits it).
    #[serde(default, skip_serializing_if = "super::is_none_or_empty")]
    pub components: Option<Vec<Component>>,
    /// Result of `InterpretDependency` (an empty list is omitted).
    #[serde(default, skip_serializing_if = "super::is_none_or_empty")]
    pub dependencies: Option<Vec<DependentObjectReference>>,
    /// Result of `InterpretStatus`, embedded verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_status: Option<Value>,
    /// Result of `InterpretHealth`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub healthy: Option<bool>,
}

/// `response.status`: a message and an HTTP-style code, each omitted when empty.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestStatus {
    /// Human-readable reason.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// HTTP-style status code.
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub code: i32,
}

/// `response.patchType`. Only `JSONPatch` is valid; any other string is kept
/// so the client can report it (`invalid response.patchType of "<value>"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatchType {
    /// RFC 6902 JSON Patch.
    JsonPatch,
    /// Anything else a webhook sent.
    Other(String),
}

impl PatchType {
    /// The wire spelling.
    pub fn as_str(&self) -> &str {
        match self {
            Self::JsonPatch => "JSONPatch",
            Self::Other(s) => s,
        }
    }
}

impl Serialize for PatchType {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for PatchType {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(if s == "JSONPatch" {
            Self::JsonPatch
        } else {
            Self::Other(s)
        })
    }
}
