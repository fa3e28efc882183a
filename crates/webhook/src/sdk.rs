//! The server SDK for writing interpreter webhooks in Rust (see
//! `docs/webhook.md`): a typed [`Request`], the [`Handler`] trait,
//! response helpers, and [`handle_http`], which turns one HTTP exchange
//! (method, content type, body bytes) into the answer to write — without
//! depending on any HTTP library. [`super::server`] (feature `webhook`) hosts
//! it over TLS.
//!
//! ```
//! use karmada_interpreter::webhook::sdk::{self, Body, Request, Response};
//!
//! // A webhook that calls every object healthy.
//! let handler = |_: &Request| -> Response {
//!     let mut r = sdk::succeeded("");
//!     r.healthy = Some(true);
//!     r
//! };
//! let body = br#"{"request":{"uid":"u-1","operation":"InterpretHealth","object":{"kind":"Pod"}}}"#;
//! let answer = sdk::handle_http(&handler, "POST", Some("application/json"), Body::Bytes(body));
//! assert_eq!(answer.status, 200);
//! assert_eq!(
//!     String::from_utf8(answer.body).unwrap(),
//!     "{\"response\":{\"uid\":\"u-1\",\"successful\":true,\"status\":{\"code\":200},\"healthy\":true}}\n"
//! );
//! ```

use std::borrow::Cow;
use std::panic::{catch_unwind, AssertUnwindSafe};

use k8s_openapi::ByteString;
use kube::core::GroupVersionKind;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::error::SdkError;
use karmada_interpreter_core::api::{
    AggregatedStatusItem, InterpreterOperation, PatchType, RequestStatus,
    ResourceInterpreterResponse, CONTEXT_API_VERSION, CONTEXT_KIND,
};
use karmada_interpreter_core::interpreter::{
    Chain, Edited, InPlaceRequest, JsonInputs, LayerKind, Outcome, Source, WriteOp, Written,
};
use karmada_interpreter_core::profile::Profile;

/// The largest request body the SDK reads by default (3 MiB, the Kubernetes
/// API server's request limit: a Retain or AggregateStatus context around a
/// ~1.5 MiB object must fit).
pub const MAX_REQUEST_BODY_BYTES: usize = 3 << 20;

/// What a handler returns: the `response` member of the envelope.
pub type Response = ResourceInterpreterResponse;

/// The `request` member, decoded leniently (any operation string, absent
/// members empty) so a handler sees exactly what the client sent.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// Request uid; echoed by the SDK.
    pub uid: String,
    /// Group, version and kind of `object`.
    pub kind: GroupVersionKind,
    /// `metadata.name` of the object.
    pub name: String,
    /// `metadata.namespace` of the object (empty when cluster-scoped).
    pub namespace: String,
    /// Operation name as sent (see [`Request::operation`]).
    pub operation_name: String,
    /// The object, `None` when absent.
    pub object: Option<Value>,
    /// `Retain` only: the live member-cluster object.
    pub observed_object: Option<Value>,
    /// `ReviseReplica`: the replica count to write (`replicas` on the wire).
    pub desired_replicas: Option<i32>,
    /// `AggregateStatus`: per-cluster statuses (absent = empty).
    pub aggregated_status: Vec<AggregatedStatusItem>,
    /// `ReviseComponents` (the `karmada-next` profile): the per-component
    /// assignment (`components` on the wire; `None` when absent, as Go's
    /// nil slice).
    #[cfg(feature = "karmada-next")]
    pub components: Option<Vec<karmada_interpreter_core::api::TargetComponent>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireRequest {
    #[serde(default)]
    uid: String,
    #[serde(default)]
    kind: Option<WireGvk>,
    #[serde(default)]
    name: String,
    #[serde(default)]
    namespace: String,
    #[serde(default)]
    operation: String,
    #[serde(default)]
    object: Option<Box<RawValue>>,
    #[serde(default)]
    observed_object: Option<Box<RawValue>>,
    #[serde(default)]
    replicas: Option<i32>,
    #[serde(default)]
    aggregated_status: Option<Vec<AggregatedStatusItem>>,
    #[cfg(feature = "karmada-next")]
    #[serde(default)]
    components: Option<Vec<karmada_interpreter_core::api::TargetComponent>>,
}

#[derive(Deserialize, Default)]
struct WireGvk {
    #[serde(default)]
    group: String,
    #[serde(default)]
    version: String,
    #[serde(default)]
    kind: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireContext {
    #[serde(default, rename = "apiVersion")]
    api_version: Option<String>,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    request: Option<WireRequest>,
}

impl Request {
    /// The operation, or an error naming the unknown value.
    pub fn operation(&self) -> Result<InterpreterOperation, SdkError> {
        parse_operation(&self.operation_name)
    }

    /// Decodes `object` into `T` (`there is no content to decode` when absent).
    pub fn decode_object<T: DeserializeOwned>(&self) -> Result<T, SdkError> {
        decode_raw(self.object.as_ref())
    }
}

/// The `request` member as the SDK reads it first: every member decoded
/// but the objects, which stay JSON text until the handler decodes them
/// ([`RawRequest::decode`] for a [`Request`], or only as far as it looks,
/// as [`InterpreterHandler`] does through the chain's bytes path).
#[derive(Debug, Clone)]
pub struct RawRequest {
    /// Request uid; echoed by the SDK.
    pub uid: String,
    /// Group, version and kind of `object`.
    pub kind: GroupVersionKind,
    /// `metadata.name` of the object.
    pub name: String,
    /// `metadata.namespace` of the object (empty when cluster-scoped).
    pub namespace: String,
    /// Operation name as sent (see [`RawRequest::operation`]).
    pub operation_name: String,
    /// The object's JSON text, `None` when absent or null.
    pub object: Option<Box<RawValue>>,
    /// `Retain` only: the live member-cluster object's JSON text.
    pub observed_object: Option<Box<RawValue>>,
    /// `ReviseReplica`: the replica count to write (`replicas` on the wire).
    pub desired_replicas: Option<i32>,
    /// `AggregateStatus`: per-cluster statuses (absent = empty).
    pub aggregated_status: Vec<AggregatedStatusItem>,
    /// `ReviseComponents` (the `karmada-next` profile): the per-component
    /// assignment (`None` when absent or empty).
    #[cfg(feature = "karmada-next")]
    pub components: Option<Vec<karmada_interpreter_core::api::TargetComponent>>,
}

impl RawRequest {
    /// The operation, or an error naming the unknown value.
    pub fn operation(&self) -> Result<InterpreterOperation, SdkError> {
        parse_operation(&self.operation_name)
    }

    /// The request with its objects decoded.
    pub fn decode(&self) -> Result<Request, SdkError> {
        let value = |raw: &Option<Box<RawValue>>| {
            raw.as_deref()
                .map(|r| serde_json::from_str::<Value>(r.get()))
                .transpose()
                .map_err(SdkError::Decode)
        };
        Ok(Request {
            uid: self.uid.clone(),
            kind: self.kind.clone(),
            name: self.name.clone(),
            namespace: self.namespace.clone(),
            operation_name: self.operation_name.clone(),
            object: value(&self.object)?,
            observed_object: value(&self.observed_object)?,
            desired_replicas: self.desired_replicas,
            aggregated_status: self.aggregated_status.clone(),
            #[cfg(feature = "karmada-next")]
            components: self.components.clone(),
        })
    }
}

/// The operation named `name` exactly, or an error naming it.
fn parse_operation(name: &str) -> Result<InterpreterOperation, SdkError> {
    name.parse::<InterpreterOperation>()
        .ok()
        .filter(|op| op.as_str() == name)
        .ok_or_else(|| SdkError::UnsupportedOperation(name.to_owned()))
}

/// Decodes embedded raw JSON (an object, an observed object, a status) into
/// `T`; `there is no content to decode` when absent or null.
pub fn decode_raw<T: DeserializeOwned>(raw: Option<&Value>) -> Result<T, SdkError> {
    match raw {
        None | Some(Value::Null) => Err(SdkError::NoContent),
        Some(v) => T::deserialize(v).map_err(SdkError::Decode),
    }
}

/// User code answering interpretation requests.
///
/// Closures `Fn(&Request) -> Response` are handlers too. A handler that
/// panics produces an `Errored(500, ...)` answer, not a dropped connection.
///
/// ```
/// use karmada_interpreter::api::{InterpreterOperation, ResourceInterpreterContext};
/// use karmada_interpreter::webhook::apply_patch;
/// use karmada_interpreter::webhook::sdk::{self, Body, Handler, Request, Response};
/// use serde_json::{json, Value};
///
/// /// Replicas of a `Workload` live in `spec.replicas`.
/// struct WorkloadHook;
///
/// impl Handler for WorkloadHook {
///     fn handle(&self, request: &Request) -> Response {
///         let mut object: Value = match request.decode_object() {
///             Ok(object) => object,
///             Err(e) => return sdk::errored(400, e),
///         };
///         match request.operation() {
///             Ok(InterpreterOperation::InterpretReplica) => {
///                 let mut r = sdk::succeeded("");
///                 r.replicas = object["spec"]["replicas"].as_i64().map(|n| n as i32);
///                 r
///             }
///             Ok(InterpreterOperation::ReviseReplica) => {
///                 let before = object.clone();
///                 object["spec"]["replicas"] = json!(request.desired_replicas);
///                 sdk::patch_response(&before, &object)
///             }
///             Ok(op) => sdk::errored(400, format!("{op} is not served")),
///             Err(e) => sdk::errored(400, e),
///         }
///     }
/// }
///
/// let workload = json!({"apiVersion": "workload.example.io/v1alpha1", "kind": "Workload",
///                       "metadata": {"name": "w"}, "spec": {"replicas": 6}});
/// let body = json!({"apiVersion": "config.karmada.io/v1alpha1",
///                   "kind": "ResourceInterpreterContext",
///                   "request": {"uid": "u-2", "operation": "ReviseReplica",
///                               "object": workload, "replicas": 2}});
/// let body = serde_json::to_vec(&body).unwrap();
/// let answer = sdk::handle_http(&WorkloadHook, "POST", Some("application/json"),
///                               Body::Bytes(&body));
/// assert_eq!(answer.status, 200);
///
/// // The client side: the uid is echoed and the patch revises the object.
/// let ctx: ResourceInterpreterContext = serde_json::from_slice(&answer.body).unwrap();
/// let response = ctx.response.unwrap();
/// assert_eq!(response.uid, "u-2");
/// let revised = apply_patch(&workload, &response.patch.unwrap().0).unwrap();
/// assert_eq!(revised["spec"]["replicas"], 2);
/// ```
pub trait Handler: Send + Sync {
    /// Answers one request. The SDK then sets `uid` and completes `status`.
    fn handle(&self, request: &Request) -> Response;

    /// Answers one request and notes what served it (layer, customization,
    /// a script timeout) for the server's logs and metrics. The default
    /// calls [`Handler::handle`] and notes nothing.
    fn handle_noting(&self, request: &Request, noted: &mut Served) -> Response {
        let _ = noted;
        self.handle(request)
    }

    /// Answers one request whose objects are still JSON text, noting what
    /// served it: what the SDK calls. The default decodes the objects
    /// ([`RawRequest::decode`]; an object that does not decode is a
    /// `400`) and calls [`Handler::handle_noting`]; a handler that can
    /// decode less overrides it.
    fn handle_raw(&self, request: &RawRequest, noted: &mut Served) -> Response {
        match request.decode() {
            Ok(decoded) => self.handle_noting(&decoded, noted),
            Err(e) => errored(400, e),
        }
    }

    /// Whether the hosting server may answer `request` on its I/O thread,
    /// within a short time budget that cuts Lua runs off (see
    /// [`karmada_interpreter_core::budget`]; the request is then answered again on the
    /// blocking pool). Only for handlers that never block on I/O or locks
    /// and whose work outside Lua is short: the default is `false`.
    fn answers_quickly(&self, request: &RawRequest) -> bool {
        let _ = request;
        false
    }
}

/// What served a request, noted by [`Handler::handle_noting`] and
/// [`answer`] for logs and metrics.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Served {
    /// The layer of the chain that answered (or failed).
    pub layer: Option<LayerKind>,
    /// What inside the layer: customization name, webhook, native entry.
    pub name: Option<Cow<'static, str>>,
    /// Whether a script outlived its deadline.
    pub script_timeout: bool,
    /// `status.code` of the answer.
    pub code: i32,
    /// `successful` of the answer.
    pub successful: bool,
    /// The failure, for people (for a script, at its place in the
    /// customization file when the handler knows the file): what the log
    /// line says beside Karmada's `status.message`.
    pub error: Option<String>,
    /// Why an `InterpretHealth` answer is unhealthy, when the layer that
    /// answered can say ([`InterpreterHandler::with_health_reasons`]).
    pub reason: Option<HealthReason>,
}

/// Why a health layer called an object unhealthy: its status word (one of
/// a small fixed set per layer, for metrics labels) and the reason in
/// words (for the log line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HealthReason {
    /// The layer's status word: kstatus' `InProgress`, `Failed`,
    /// `Terminating`, or Argo CD's `Progressing`, `Degraded`, `Missing`.
    pub status: &'static str,
    /// What decided: the condition, the expression, the check's message.
    pub message: String,
}

impl<F> Handler for F
where
    F: Fn(&Request) -> Response + Send + Sync,
{
    fn handle(&self, request: &Request) -> Response {
        self(request)
    }
}

/// `successful: false`, `status: {code, message}`.
pub fn errored(code: i32, message: impl std::fmt::Display) -> Response {
    Response {
        successful: false,
        status: Some(RequestStatus {
            message: message.to_string(),
            code,
        }),
        ..Response::default()
    }
}

/// `successful: ok`, `status.code` 200 when ok, 403 otherwise.
pub fn validation_response(ok: bool, message: impl std::fmt::Display) -> Response {
    Response {
        successful: ok,
        status: Some(RequestStatus {
            message: message.to_string(),
            code: if ok { 200 } else { 403 },
        }),
        ..Response::default()
    }
}

/// `successful: true`, `status: {code: 200, message}`.
pub fn succeeded(message: impl std::fmt::Display) -> Response {
    validation_response(true, message)
}

/// A JSON Patch response from the original object bytes to the changed
/// object bytes (the reference's `PatchResponseFromRaw`): identical bytes or
/// no difference → `succeeded("")` without a patch; unparsable input →
/// `errored(500, "invalid JSON Document")`.
pub fn patch_response_from_raw(original: &[u8], current: &[u8]) -> Response {
    if original == current {
        return succeeded("");
    }
    match (
        serde_json::from_slice::<Value>(original),
        serde_json::from_slice::<Value>(current),
    ) {
        (Ok(a), Ok(b)) => patch_response(&a, &b),
        _ => errored(500, "invalid JSON Document"),
    }
}

/// A JSON Patch response from `original` to `current` (json-patch's diff).
///
/// ```
/// use karmada_interpreter::webhook::{apply_patch, sdk};
/// use serde_json::json;
///
/// let before = json!({"kind": "Workload", "spec": {"replicas": 6}});
/// let after = json!({"kind": "Workload", "spec": {"replicas": 2}});
/// let r = sdk::patch_response(&before, &after);
/// assert_eq!(r.patch_type.as_ref().unwrap().as_str(), "JSONPatch");
/// assert_eq!(apply_patch(&before, &r.patch.unwrap().0).unwrap(), after);
/// ```
pub fn patch_response(original: &Value, current: &Value) -> Response {
    let patch = json_patch::diff(original, current);
    if patch.0.is_empty() {
        return succeeded("");
    }
    match serde_json::to_vec(&patch) {
        Ok(bytes) => Response {
            successful: true,
            patch: Some(ByteString(bytes)),
            patch_type: Some(PatchType::JsonPatch),
            ..Response::default()
        },
        Err(e) => errored(500, e),
    }
}

/// The JSON Patch response of an edit that says what it wrote
/// ([`Written`]): its writes in order, each with the value the edited
/// object holds there; no writes → `succeeded("")` without a patch.
/// `None` when the edit cannot say (a layer that computed a new object) or
/// a written member is not in `edited`: then only a diff tells
/// ([`patch_response`]).
///
/// ```
/// use karmada_interpreter::interpreter::Written;
/// use karmada_interpreter::webhook::{apply_patch, sdk};
/// use serde_json::json;
///
/// let before = json!({"kind": "Workload", "spec": {"replicas": 6}});
/// let mut after = before.clone();
/// let mut written = Written::new();
/// written.set(&mut after, &["spec", "replicas"], json!(2)).unwrap();
/// let r = sdk::written_patch_response(&after, &written).unwrap();
/// let patch = r.patch.unwrap().0;
/// assert_eq!(patch, br#"[{"op":"replace","path":"/spec/replicas","value":2}]"#);
/// assert_eq!(apply_patch(&before, &patch).unwrap(), after);
/// assert!(sdk::written_patch_response(&after, &Written::unknown()).is_none());
/// ```
pub fn written_patch_response(edited: &Value, written: &Written) -> Option<Response> {
    #[derive(serde::Serialize)]
    struct Op<'a> {
        op: &'static str,
        path: Cow<'a, str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        value: Option<&'a Value>,
    }
    let writes = written.writes()?;
    if writes.is_empty() {
        return Some(succeeded(""));
    }
    let ops = writes
        .iter()
        .map(|w| {
            let path = w.pointer();
            let value = match w.op {
                WriteOp::Remove => None,
                WriteOp::Add | WriteOp::Replace => Some(edited.pointer(&path)?),
            };
            Some(Op {
                op: w.op.as_str(),
                path,
                value,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(match serde_json::to_vec(&ops) {
        Ok(bytes) => Response {
            successful: true,
            patch: Some(ByteString(bytes)),
            patch_type: Some(PatchType::JsonPatch),
            ..Response::default()
        },
        Err(e) => errored(500, e),
    })
}

/// The request body as the hosting server read it.
#[derive(Debug, Clone, Copy)]
pub enum Body<'a> {
    /// The complete body.
    Bytes(&'a [u8]),
    /// The body was longer than the limit (in bytes); it was not read.
    TooLarge(usize),
    /// Reading the body failed.
    ReadError(&'a str),
}

/// The answer to write: an HTTP status and a body (`Content-Type: application/json`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpAnswer {
    /// HTTP status (200 for every interpretation answer, 405 for a wrong method).
    pub status: u16,
    /// The body: compact JSON envelope with only `response`, then `\n`.
    pub body: Vec<u8>,
}

fn transport_error(status: u16, code: i32, message: impl std::fmt::Display) -> HttpAnswer {
    HttpAnswer {
        status,
        body: encode_response(&errored(code, message)),
    }
}

/// Processes one HTTP exchange (method and content-type checks, decoding
/// the request, calling the handler, completing and encoding the answer)
/// and returns the answer.
///
/// Bad input gets a clear error answer with `uid: ""` (never a crash, never
/// a silent truncation): a method other than POST (HTTP 405, code 405); an
/// oversized body (code 413); a read error, an empty body, a content type
/// other than exactly `application/json`, a body that is not a JSON
/// envelope, or an envelope without `request` (code 400). The reference
/// accepts some of these (it never checks the method, truncates at 1 MiB,
/// treats an empty body or a missing `request` as an empty request); its
/// client never sends them, so answering with an error is compatible.
pub fn handle_http(
    handler: &dyn Handler,
    method: &str,
    content_type: Option<&str>,
    body: Body<'_>,
) -> HttpAnswer {
    match decode_http(method, content_type, body) {
        Ok(request) => answer(handler, &request, &mut Served::default()),
        Err(refused) => refused,
    }
}

/// The first half of [`handle_http`]: the checks and the decoding, giving
/// the request, or the error answer to write.
pub fn decode_http(
    method: &str,
    content_type: Option<&str>,
    body: Body<'_>,
) -> Result<RawRequest, HttpAnswer> {
    decode_checked(method, content_type, body)
}

fn decode_checked(
    method: &str,
    content_type: Option<&str>,
    body: Body<'_>,
) -> Result<RawRequest, HttpAnswer> {
    if method != "POST" {
        return Err(transport_error(
            405,
            405,
            format!("method {method} is not allowed: interpreter webhooks take POST"),
        ));
    }
    let bytes = match body {
        Body::TooLarge(limit) => {
            return Err(transport_error(
                200,
                413,
                format!("request body is larger than {limit} bytes"),
            ))
        }
        Body::ReadError(e) => return Err(transport_error(200, 400, e)),
        Body::Bytes(b) => b,
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(transport_error(200, 400, "request body is empty"));
    }
    let ct = content_type.unwrap_or("");
    if ct != "application/json" {
        return Err(transport_error(
            200,
            400,
            format!("contentType={ct}, expected application/json"),
        ));
    }
    let ctx: WireContext = match serde_json::from_slice(bytes) {
        Ok(c) => c,
        Err(e) => {
            return Err(transport_error(
                200,
                400,
                format!("couldn't get version/kind; json parse error: {e}"),
            ))
        }
    };
    // An envelope of another version or kind is refused (the reference's
    // SDK reads any as v1alpha1: its fields could mean something else);
    // absent ones are read as the envelope.
    let api_version = ctx.api_version.as_deref().unwrap_or(CONTEXT_API_VERSION);
    let kind = ctx.kind.as_deref().unwrap_or(CONTEXT_KIND);
    if api_version != CONTEXT_API_VERSION || kind != CONTEXT_KIND {
        return Err(transport_error(
            200,
            400,
            format!("no kind {kind:?} is registered for version {api_version:?}: interpreter webhooks take {CONTEXT_KIND} of {CONTEXT_API_VERSION}"),
        ));
    }
    let Some(wire) = ctx.request else {
        return Err(transport_error(
            200,
            400,
            "request is missing: the body must be a ResourceInterpreterContext with a `request` member",
        ));
    };
    let gvk = wire.kind.unwrap_or_default();
    let request = RawRequest {
        uid: wire.uid,
        kind: GroupVersionKind::gvk(&gvk.group, &gvk.version, &gvk.kind),
        name: wire.name,
        namespace: wire.namespace,
        operation_name: wire.operation,
        object: wire.object,
        observed_object: wire.observed_object,
        desired_replicas: wire.replicas,
        aggregated_status: wire.aggregated_status.unwrap_or_default(),
        #[cfg(feature = "karmada-next")]
        components: wire.components.filter(|c| !c.is_empty()),
    };
    Ok(request)
}

/// The second half of [`handle_http`]: calls the handler (a panic becomes
/// an `Errored(500, ...)` answer), completes and encodes the answer, and
/// notes what served it in `noted`.
pub fn answer(handler: &dyn Handler, request: &RawRequest, noted: &mut Served) -> HttpAnswer {
    let mut response = match catch_unwind(AssertUnwindSafe(|| handler.handle_raw(request, noted))) {
        Ok(r) => r,
        Err(panic) => errored(
            500,
            format!("the webhook handler panicked: {}", panic_text(&*panic)),
        ),
    };
    complete(&mut response, &request.uid);
    noted.successful = response.successful;
    noted.code = response.status.as_ref().map_or(0, |s| s.code);
    HttpAnswer {
        status: 200,
        body: encode_response(&response),
    }
}

/// What a caught panic says (its `&str` or `String` payload).
pub(crate) fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned())
}

/// Response completion, as Karmada's SDK does it: uid set to the request's, status created,
/// code 0 → 200.
pub fn complete(response: &mut Response, uid: &str) {
    uid.clone_into(&mut response.uid);
    let status = response.status.get_or_insert_with(RequestStatus::default);
    if status.code == 0 {
        status.code = 200;
    }
}

/// The answer body: `{"response":...}` compact, `<`, `>`, `&` escaped
/// as Go does, then `\n`. Written straight into the body buffer.
pub fn encode_response(response: &Response) -> Vec<u8> {
    #[derive(serde::Serialize)]
    struct Envelope<'a> {
        response: &'a Response,
    }
    let mut out = Vec::with_capacity(256);
    let written = {
        let mut ser = serde_json::Serializer::with_formatter(&mut out, GoEscapes);
        serde::Serialize::serialize(&Envelope { response }, &mut ser)
    };
    if let Err(e) = written {
        out.clear();
        let fallback = errored(500, e);
        let mut ser = serde_json::Serializer::with_formatter(&mut out, GoEscapes);
        if serde::Serialize::serialize(
            &Envelope {
                response: &fallback,
            },
            &mut ser,
        )
        .is_err()
        {
            out.clear();
        }
    }
    out.push(b'\n');
    out
}

/// serde_json's compact output with `<`, `>` and `&` in strings written as
/// `\u003c`, `\u003e` and `\u0026` (Go's `encoding/json` HTML escaping).
struct GoEscapes;

impl serde_json::ser::Formatter for GoEscapes {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let bytes = fragment.as_bytes();
        let mut start = 0;
        for (i, b) in bytes.iter().enumerate() {
            let escaped: &[u8] = match b {
                b'<' => b"\\u003c",
                b'>' => b"\\u003e",
                b'&' => b"\\u0026",
                _ => continue,
            };
            writer.write_all(&bytes[start..i])?;
            writer.write_all(escaped)?;
            start = i + 1;
        }
        writer.write_all(&bytes[start..])
    }
}

/// A handler serving a whole [`Chain`] (for example the default
/// `karmada_interpreter::Interpreter`): every operation the
/// chain serves, for every kind. This is what `karmada-interpreter serve` runs.
///
/// ```
/// use karmada_interpreter::webhook::sdk::{handle_http, Body, InterpreterHandler};
/// use karmada_interpreter::Interpreter;
///
/// let handler = InterpreterHandler::new(Interpreter::default());
/// let body = br#"{"request":{"uid":"u-3","operation":"InterpretReplica",
///   "kind":{"group":"apps","version":"v1","kind":"Deployment"},
///   "object":{"apiVersion":"apps/v1","kind":"Deployment",
///             "metadata":{"name":"web"},"spec":{"replicas":4}}}}"#;
/// let answer = handle_http(&handler, "POST", Some("application/json"), Body::Bytes(body));
/// let text = String::from_utf8(answer.body).unwrap();
/// assert!(text.contains(r#""replicas":4"#), "{text}");
/// ```
#[derive(Clone)]
pub struct InterpreterHandler {
    chain: Chain,
    /// Whether the chain has a webhook layer (whose calls block on the network).
    calls_webhooks: bool,
    /// Words a failure for people ([`Served::error`]); `to_string` without one.
    describe: Option<std::sync::Arc<Describe>>,
    /// The profile served: an operation of another is refused.
    profile: Profile,
    /// Says why an unhealthy verdict is so ([`Served::reason`]).
    reasons: Option<std::sync::Arc<Reasons>>,
}

/// How an [`InterpreterHandler`] words a failure for people.
type Describe = dyn Fn(&karmada_interpreter_core::Error) -> String + Send + Sync;

/// How an [`InterpreterHandler`] learns why the layer `Source` called the
/// object (its JSON text) unhealthy.
type Reasons = dyn Fn(&Source, &[u8]) -> Option<HealthReason> + Send + Sync;

impl std::fmt::Debug for InterpreterHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InterpreterHandler")
            .field("chain", &self.chain)
            .field("calls_webhooks", &self.calls_webhooks)
            .finish_non_exhaustive()
    }
}

impl InterpreterHandler {
    /// Serves `chain`.
    pub fn new(chain: impl Into<Chain>) -> Self {
        let chain: Chain = chain.into();
        let calls_webhooks = chain
            .layers()
            .iter()
            .any(|l| l.kind() == LayerKind::Webhook);
        Self {
            chain,
            calls_webhooks,
            describe: None,
            profile: Profile::default(),
            reasons: None,
        }
    }

    /// The same handler, serving `profile`: with
    /// [`Profile::KarmadaNext`] it answers `ReviseComponents`, which
    /// it otherwise refuses naming the profile (the chain's layers follow
    /// the profile they were built with).
    pub fn with_profile(mut self, profile: Profile) -> Self {
        self.profile = profile;
        self
    }

    /// The same handler, wording failures for people with `describe` (for
    /// example at their place in the customization files, as `serve` does);
    /// the answer on the wire keeps Karmada's text.
    pub fn with_describer(
        mut self,
        describe: impl Fn(&karmada_interpreter_core::Error) -> String + Send + Sync + 'static,
    ) -> Self {
        self.describe = Some(std::sync::Arc::new(describe));
        self
    }

    /// The same handler, asking `reasons` why an object is unhealthy when
    /// an `InterpretHealth` answer is `false` (only then), with the layer
    /// that answered and the object's JSON text (to decode only for the
    /// layers it knows). What it says is [`Served::reason`], which the
    /// server logs and its observer sees; the answer on the wire is
    /// unchanged.
    pub fn with_health_reasons(
        mut self,
        reasons: impl Fn(&Source, &[u8]) -> Option<HealthReason> + Send + Sync + 'static,
    ) -> Self {
        self.reasons = Some(std::sync::Arc::new(reasons));
        self
    }
}

impl InterpreterHandler {
    /// Notes who failed: the layer serving the kind, and the customization
    /// a script error names.
    fn note_failure(
        &self,
        request: &RawRequest,
        op: InterpreterOperation,
        error: &karmada_interpreter_core::Error,
        noted: &mut Served,
    ) {
        if let Some(source) = self.chain.served_by(&request.kind, op) {
            noted.layer = Some(source.layer);
            noted.name = Some(source.name);
        }
        if let karmada_interpreter_core::Error::Layer {
            what: "customization",
            name,
            ..
        } = error
        {
            noted.name = Some(Cow::Owned(name.clone()));
            noted.script_timeout = error.deadline_exceeded();
        }
        noted.error = Some(match &self.describe {
            Some(describe) => describe(error),
            None => error.to_string(),
        });
    }
}

/// `status.code` of a failed interpretation: 404 not served, 422 bad
/// input (an object of the wrong shape included), 500 otherwise.
fn error_code(error: &karmada_interpreter_core::Error) -> i32 {
    match error {
        karmada_interpreter_core::Error::NotServed { .. } => 404,
        karmada_interpreter_core::Error::InvalidField { .. }
        | karmada_interpreter_core::Error::InvalidInput { .. }
        | karmada_interpreter_core::Error::Input(_)
        | karmada_interpreter_core::Error::Json { .. } => 422,
        _ => 500,
    }
}

impl Handler for InterpreterHandler {
    /// Encodes the decoded objects back and answers as [`Handler::handle_raw`]
    /// (the server calls that one directly).
    fn handle(&self, request: &Request) -> Response {
        self.handle_noting(request, &mut Served::default())
    }

    fn handle_noting(&self, request: &Request, noted: &mut Served) -> Response {
        let raw = |v: &Option<Value>| v.as_ref().map(serde_json::value::to_raw_value).transpose();
        let (object, observed_object) = match (raw(&request.object), raw(&request.observed_object))
        {
            (Ok(object), Ok(observed)) => (object, observed),
            (Err(e), _) | (_, Err(e)) => return errored(400, SdkError::Decode(e)),
        };
        let raw = RawRequest {
            uid: request.uid.clone(),
            kind: request.kind.clone(),
            name: request.name.clone(),
            namespace: request.namespace.clone(),
            operation_name: request.operation_name.clone(),
            object,
            observed_object,
            desired_replicas: request.desired_replicas,
            aggregated_status: request.aggregated_status.clone(),
            #[cfg(feature = "karmada-next")]
            components: request.components.clone(),
        };
        self.handle_raw(&raw, noted)
    }

    /// Native built-ins and Lua scripts (cut off by the budget) answer
    /// quickly; a call to another webhook does not.
    fn answers_quickly(&self, request: &RawRequest) -> bool {
        if !self.calls_webhooks {
            return true;
        }
        request.operation().is_ok_and(|op| {
            self.chain
                .served_by(&request.kind, op)
                .is_none_or(|s| s.layer != LayerKind::Webhook)
        })
    }

    /// The objects go to the chain as JSON text: an object the operation
    /// only reads is decoded only as far as the serving handler looks
    /// ([`Chain::interpret_json`]), an edited one is decoded once and edited
    /// in place ([`Chain::edit_json`]), and the patch sent is the one the
    /// edit wrote ([`written_patch_response`]; a diff only when the layer
    /// cannot say).
    fn handle_raw(&self, request: &RawRequest, noted: &mut Served) -> Response {
        use InterpreterOperation as Op;
        let op = match request.operation() {
            Ok(op) => op,
            Err(e) => return errored(400, e),
        };
        if let Err(e) = self.profile.admit(op) {
            return errored(400, e);
        }
        let Some(object) = request.object.as_deref() else {
            return errored(400, SdkError::NoContent);
        };
        // The wire carries the object in `object` (the desired one for
        // Retain, with the live one in `observedObject`), and omits an empty
        // `aggregatedStatus`: an empty list arrives as no list.
        let observed = request
            .observed_object
            .as_deref()
            .filter(|_| op == Op::Retain);
        if op == Op::Retain && observed.is_none() {
            return errored(
                400,
                "nil observedObject in exploreReview with operation type: Retain",
            );
        }
        #[allow(clippy::needless_update)]
        let inputs = JsonInputs {
            desired: Some(object.get().as_bytes()),
            observed: observed.map(|o| o.get().as_bytes()),
            replicas: i64::from(request.desired_replicas.unwrap_or(0)),
            status_items: None,
            // The floor's members of features this crate is built without.
            ..JsonInputs::default()
        };
        let edited = match op {
            Op::ReviseReplica | Op::Retain => self.chain.edit_json(op, inputs),
            // The status items came decoded with the envelope.
            Op::AggregateStatus => match serde_json::from_str::<Value>(object.get()) {
                Ok(mut template) => {
                    let items = (!request.aggregated_status.is_empty())
                        .then_some(request.aggregated_status.as_slice());
                    self.chain
                        .edit_in_place(InPlaceRequest::AggregateStatus {
                            object: &mut template,
                            items,
                        })
                        .map(|a| {
                            a.map(|written| Edited {
                                object: template,
                                written,
                            })
                        })
                }
                Err(e) => return errored(400, SdkError::Decode(e)),
            },
            // The assignment came decoded with the envelope.
            #[cfg(feature = "karmada-next")]
            Op::ReviseComponents => match serde_json::from_str::<Value>(object.get()) {
                Ok(mut template) => self
                    .chain
                    .edit_in_place(InPlaceRequest::ReviseComponents {
                        object: &mut template,
                        components: request.components.as_deref(),
                    })
                    .map(|a| {
                        a.map(|written| Edited {
                            object: template,
                            written,
                        })
                    }),
                Err(e) => return errored(400, SdkError::Decode(e)),
            },
            _ => return self.read(request, op, inputs, noted),
        };
        match edited {
            Ok(a) => {
                noted.layer = Some(a.served_by.layer);
                noted.name = Some(a.served_by.name);
                let Edited {
                    object: edited,
                    written,
                } = a.value;
                written_patch_response(&edited, &written).unwrap_or_else(|| {
                    match serde_json::from_str::<Value>(object.get()) {
                        Ok(original) => patch_response(&original, &edited),
                        Err(e) => errored(400, SdkError::Decode(e)),
                    }
                })
            }
            Err(e) => {
                self.note_failure(request, op, &e, noted);
                errored(error_code(&e), e)
            }
        }
    }
}

impl InterpreterHandler {
    /// A reading operation's answer.
    fn read(
        &self,
        request: &RawRequest,
        op: InterpreterOperation,
        inputs: JsonInputs<'_>,
        noted: &mut Served,
    ) -> Response {
        let desired = inputs.desired;
        let answer = match self.chain.interpret_json(op, inputs) {
            Ok(a) => {
                if let (Outcome::Healthy(false), Some(reasons), Some(bytes)) =
                    (&a.value, &self.reasons, desired)
                {
                    noted.reason = reasons(&a.served_by, bytes);
                }
                noted.layer = Some(a.served_by.layer);
                noted.name = Some(a.served_by.name);
                a.value
            }
            Err(e) => {
                self.note_failure(request, op, &e, noted);
                return errored(error_code(&e), e);
            }
        };
        let mut r = succeeded("");
        match answer {
            Outcome::Replicas(rr) => {
                r.replicas = Some(rr.replicas);
                r.replica_requirements = rr.requirements;
            }
            Outcome::Components(c) => r.components = Some(c),
            // The protocol has no "nothing reflected": `{}` stands for it.
            Outcome::Status(s) => {
                r.raw_status = Some(s.unwrap_or_else(|| Value::Object(Default::default())))
            }
            Outcome::Healthy(h) => r.healthy = Some(h),
            Outcome::Dependencies(d) => r.dependencies = Some(d),
            // The edits are answered above.
            other => r = errored(500, format!("{op} answered {}", other.operation())),
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn healthy(_: &Request) -> Response {
        let mut r = succeeded("");
        r.healthy = Some(true);
        r
    }

    fn message(answer: &HttpAnswer) -> (i64, String) {
        let v: Value = serde_json::from_slice(&answer.body).unwrap();
        assert_eq!(v["response"]["uid"], "");
        assert_eq!(v["response"]["successful"], false);
        (
            v["response"]["status"]["code"].as_i64().unwrap(),
            v["response"]["status"]["message"]
                .as_str()
                .unwrap()
                .to_owned(),
        )
    }

    const JSON: Option<&str> = Some("application/json");

    #[test]
    fn bad_input_answers() {
        let ok = br#"{"request":{"uid":"u","operation":"InterpretHealth","object":{}}}"#;
        let a = handle_http(&healthy, "GET", JSON, Body::Bytes(ok));
        assert_eq!(a.status, 405);
        assert!(message(&a).1.contains("method GET"));
        let cases: Vec<(Option<&str>, Body<'_>, i64, &str)> = vec![
            (JSON, Body::Bytes(b""), 400, "request body is empty"),
            (
                None,
                Body::Bytes(ok),
                400,
                "contentType=, expected application/json",
            ),
            (
                Some("application/json; charset=utf-8"),
                Body::Bytes(ok),
                400,
                "contentType=application/json; charset=utf-8, expected application/json",
            ),
            (
                JSON,
                Body::Bytes(b"invalid-json"),
                400,
                "couldn't get version/kind; json parse error",
            ),
            (
                JSON,
                Body::Bytes(b"{\"request\": 3}"),
                400,
                "couldn't get version/kind; json parse error",
            ),
            (JSON, Body::Bytes(b"{}"), 400, "request is missing"),
            (
                JSON,
                Body::TooLarge(1 << 20),
                413,
                "request body is larger than 1048576 bytes",
            ),
            (
                JSON,
                Body::ReadError("connection reset"),
                400,
                "connection reset",
            ),
        ];
        for (ct, body, code, text) in cases {
            let a = handle_http(&healthy, "POST", ct, body);
            assert_eq!(a.status, 200);
            let (c, m) = message(&a);
            assert_eq!(c, code, "{m}");
            assert!(m.starts_with(text), "{m} vs {text}");
        }
    }

    #[test]
    fn completion_and_escaping() {
        let h = |_: &Request| {
            let mut r = errored(0, "a <b> & c");
            r.uid = "wrong".into();
            r
        };
        let body = br#"{"request":{"uid":"u-9","operation":"Retain"}}"#;
        let a = handle_http(&h, "POST", JSON, Body::Bytes(body));
        assert_eq!(
            String::from_utf8(a.body).unwrap(),
            "{\"response\":{\"uid\":\"u-9\",\"successful\":false,\"status\":{\"message\":\"a \\u003cb\\u003e \\u0026 c\",\"code\":200}}}\n"
        );
    }

    #[test]
    fn panicking_handlers_answer_errors() {
        let h = |_: &Request| -> Response { panic!("boom") };
        let body = br#"{"request":{"uid":"u-1","operation":"Retain"}}"#;
        let a = handle_http(&h, "POST", JSON, Body::Bytes(body));
        let v: Value = serde_json::from_slice(&a.body).unwrap();
        assert_eq!(v["response"]["status"]["code"], 500);
        assert!(v["response"]["status"]["message"]
            .as_str()
            .unwrap()
            .contains("boom"));
        assert_eq!(v["response"]["uid"], "u-1");
    }

    #[test]
    fn patch_helpers() {
        assert!(patch_response_from_raw(b"{}", b"{}").patch.is_none());
        assert_eq!(
            patch_response_from_raw(b"{", b"{}").status.unwrap().message,
            "invalid JSON Document"
        );
        let r = patch_response_from_raw(br#"{"a":1}"#, br#"{"a":1,"b":[1]}"#);
        let ops: Value = serde_json::from_slice(&r.patch.unwrap().0).unwrap();
        assert_eq!(ops, json!([{"op": "add", "path": "/b", "value": [1]}]));
    }

    #[test]
    fn request_decoding_is_lenient() {
        // The handler only records what it was given: assertions inside it
        // would run under the SDK's catch_unwind and turn into an answer.
        let seen = std::sync::Mutex::new(None::<Request>);
        let h = |r: &Request| {
            *seen.lock().unwrap() = Some(r.clone());
            errored(400, "no")
        };
        let body = br#"{"request":{"uid":"u","operation":"Prune","replicas":0,"object":null}}"#;
        let a = handle_http(&h, "POST", JSON, Body::Bytes(body));
        assert_eq!(a.status, 200);
        assert_eq!(
            String::from_utf8(a.body).unwrap(),
            "{\"response\":{\"uid\":\"u\",\"successful\":false,\"status\":{\"message\":\"no\",\"code\":400}}}\n"
        );
        let r = seen
            .into_inner()
            .unwrap()
            .expect("the handler was not called");
        assert_eq!(r.operation_name, "Prune");
        assert!(matches!(
            r.operation(),
            Err(SdkError::UnsupportedOperation(op)) if op == "Prune"
        ));
        assert_eq!(
            r.operation().unwrap_err().to_string(),
            "unsupported operation \"Prune\""
        );
        assert_eq!(r.object, None);
        assert!(matches!(
            r.decode_object::<Value>(),
            Err(SdkError::NoContent)
        ));
        assert_eq!(
            r.decode_object::<Value>().unwrap_err().to_string(),
            "there is no content to decode"
        );
        assert_eq!(r.desired_replicas, Some(0));
    }
}
