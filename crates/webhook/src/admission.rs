//! The SDK for validating admission webhooks: an `admission.k8s.io/v1`
//! `AdmissionReview` in, the `AdmissionReview` answer out (the request's
//! `uid` echoed, `allowed`, `status.code` and `status.message` when
//! refused, `warnings`). The wire types are kube's
//! ([`kube::core::admission`]); a [`AdmissionHandler`] decides,
//! [`handle_http`] turns one HTTP exchange into the answer to write, and
//! [`super::server::Server::admission`] (feature `https`) serves a handler
//! over TLS beside the interpreter.
//!
//! Bad input is answered as controller-runtime answers it, so the API
//! server reports it as a refusal with its message rather than as a failed
//! call: HTTP 200 with `allowed: false` and `status.code` 400 (a body that
//! is empty, not `application/json`, not an `AdmissionReview` of
//! `admission.k8s.io/v1`, or without `request`), 413 (larger than the
//! limit) or 500 (the handler panicked); the `uid` is echoed when the body
//! names one. A method other than POST gets HTTP 405.
//!
//! ```
//! use karmada_interpreter::webhook::admission::{self, Ruling};
//! use karmada_interpreter::webhook::sdk::Body;
//!
//! // Refuse every object named `forbidden`.
//! let handler = |request: &admission::AdmissionRequest| {
//!     if request.name == "forbidden" {
//!         Ruling::refuse("that name is taken")
//!     } else {
//!         Ruling::allow().warn("looked at it")
//!     }
//! };
//! let body = br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",
//!   "request":{"uid":"u-1","kind":{"group":"","version":"v1","kind":"ConfigMap"},
//!   "resource":{"group":"","version":"v1","resource":"configmaps"},
//!   "name":"forbidden","operation":"CREATE","userInfo":{},
//!   "object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"forbidden"}}}}"#;
//! let answer = admission::handle_http(&handler, "POST", Some("application/json"), Body::Bytes(body));
//! let review: serde_json::Value = serde_json::from_slice(&answer.body).unwrap();
//! assert_eq!(review["response"]["uid"], "u-1");
//! assert_eq!(review["response"]["allowed"], false);
//! assert_eq!(review["response"]["status"]["message"], "that name is taken");
//! ```

use std::panic::{catch_unwind, AssertUnwindSafe};

use kube::core::admission::{AdmissionResponse, AdmissionReview};
use kube::core::{DynamicObject, Status, TypeMeta};

use super::sdk::{Body, HttpAnswer};

pub use kube::core::admission::{Operation, META_API_VERSION_V1, META_KIND};

/// The `request` of an `AdmissionReview`, as kube decodes it.
pub type AdmissionRequest = kube::core::admission::AdmissionRequest<DynamicObject>;

/// What a handler decides about one request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ruling {
    /// Whether the request is admitted.
    pub allowed: bool,
    /// `status.code` when refused (403 unless set).
    pub code: u16,
    /// Why it is refused (`status.message`), shown by kubectl.
    pub message: String,
    /// Warnings shown to the client (allowed or not).
    pub warnings: Vec<String>,
}

impl Ruling {
    /// Admitted, with no warning.
    pub fn allow() -> Self {
        Self {
            allowed: true,
            ..Self::default()
        }
    }

    /// Refused with `message` (code 403).
    pub fn refuse(message: impl Into<String>) -> Self {
        Self {
            allowed: false,
            code: 403,
            message: message.into(),
            warnings: Vec::new(),
        }
    }

    /// The same verdict with one more warning.
    pub fn warn(mut self, warning: impl Into<String>) -> Self {
        self.warnings.push(warning.into());
        self
    }
}

/// User code deciding admission requests. Closures
/// `Fn(&AdmissionRequest) -> Ruling` are handlers too. A handler that panics
/// refuses the request with code 500.
pub trait AdmissionHandler: Send + Sync {
    /// Decides one request.
    fn review(&self, request: &AdmissionRequest) -> Ruling;
}

impl<F> AdmissionHandler for F
where
    F: Fn(&AdmissionRequest) -> Ruling + Send + Sync,
{
    fn review(&self, request: &AdmissionRequest) -> Ruling {
        self(request)
    }
}

/// What was decided, for the server's log line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reviewed {
    /// The request's uid (empty when it could not be decoded).
    pub uid: String,
    /// `CREATE`, `UPDATE`, ... (empty when not decoded).
    pub operation: String,
    /// The object's kind (empty when not decoded).
    pub kind: String,
    /// The object's name.
    pub name: String,
    /// Whether it was admitted.
    pub allowed: bool,
    /// `status.code` (0 when admitted).
    pub code: u16,
    /// The refusal's message.
    pub message: String,
}

/// Processes one HTTP exchange: checks, decoding, the handler's verdict,
/// the encoded `AdmissionReview` answer.
pub fn handle_http(
    handler: &dyn AdmissionHandler,
    method: &str,
    content_type: Option<&str>,
    body: Body<'_>,
) -> HttpAnswer {
    handle_http_noting(
        handler,
        method,
        content_type,
        body,
        &mut Reviewed::default(),
    )
}

/// [`handle_http`], noting what was decided in `noted`.
pub fn handle_http_noting(
    handler: &dyn AdmissionHandler,
    method: &str,
    content_type: Option<&str>,
    body: Body<'_>,
    noted: &mut Reviewed,
) -> HttpAnswer {
    if method != "POST" {
        let message = format!("method {method} is not allowed: admission webhooks take POST");
        let mut answer = encode(refusal("", 405, message.clone()), noted);
        answer.status = 405;
        return answer;
    }
    let request = match decode(content_type, body) {
        Ok(request) => request,
        Err((uid, code, message)) => return encode(refusal(&uid, code, message), noted),
    };
    noted.uid.clone_from(&request.uid);
    noted.operation = serde_json::to_value(&request.operation)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    noted.kind.clone_from(&request.kind.kind);
    noted.name.clone_from(&request.name);
    let verdict = match catch_unwind(AssertUnwindSafe(|| handler.review(&request))) {
        Ok(v) => v,
        Err(panic) => Ruling {
            code: 500,
            ..Ruling::refuse(format!(
                "the admission handler panicked: {}",
                super::sdk::panic_text(&*panic)
            ))
        },
    };
    let mut response = AdmissionResponse::from(&request);
    if !verdict.allowed {
        response = response.deny(&verdict.message);
        response.result.code = if verdict.code == 0 { 403 } else { verdict.code };
        response.result.status = Some(kube::core::response::StatusSummary::Failure);
    }
    if !verdict.warnings.is_empty() {
        response.warnings = Some(verdict.warnings);
    }
    encode(response, noted)
}

/// The request of the body, or the uid it names (if any), the code and the
/// message of the refusal.
fn decode(
    content_type: Option<&str>,
    body: Body<'_>,
) -> Result<AdmissionRequest, (String, u16, String)> {
    let bytes = match body {
        Body::TooLarge(limit) => {
            return Err((
                String::new(),
                413,
                format!("request body is larger than {limit} bytes"),
            ))
        }
        Body::ReadError(e) => return Err((String::new(), 400, e.to_owned())),
        Body::Bytes(b) => b,
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err((String::new(), 400, "request body is empty".to_owned()));
    }
    let ct = content_type.unwrap_or("");
    if ct != "application/json" {
        return Err((
            String::new(),
            400,
            format!("contentType={ct}, expected application/json"),
        ));
    }
    // The uid, when the body names one, so even a refusal of a bad body
    // answers the request it came with.
    let raw: Option<serde_json::Value> = serde_json::from_slice(bytes).ok();
    let uid = raw
        .as_ref()
        .and_then(|v| v.pointer("/request/uid"))
        .and_then(|v| v.as_str())
        .unwrap_or("")
        .to_owned();
    let refuse = |message: String| (uid.clone(), 400, message);
    let Some(raw) = raw else {
        let e = serde_json::from_slice::<serde_json::Value>(bytes)
            .err()
            .map_or_else(String::new, |e| e.to_string());
        return Err(refuse(format!("the body is not JSON: {e}")));
    };
    let api_version = raw.get("apiVersion").and_then(|v| v.as_str()).unwrap_or("");
    let kind = raw.get("kind").and_then(|v| v.as_str()).unwrap_or("");
    if api_version != META_API_VERSION_V1 || kind != META_KIND {
        return Err(refuse(format!(
            "expected an AdmissionReview of {META_API_VERSION_V1}, got apiVersion {api_version:?}, kind {kind:?} (admissionReviewVersions must be [\"v1\"])"
        )));
    }
    let review: AdmissionReview<DynamicObject> = serde_json::from_value(raw)
        .map_err(|e| refuse(format!("not a valid AdmissionReview: {e}")))?;
    let Some(mut request) = review.request else {
        return Err(refuse("the AdmissionReview has no request".to_owned()));
    };
    request.types = review.types;
    Ok(request)
}

/// The answer refusing a request that could not be decided (uid unknown):
/// the server's, when a review fails on its blocking pool.
#[cfg(feature = "https")]
pub(crate) fn failed(code: u16, message: String, noted: &mut Reviewed) -> HttpAnswer {
    encode(refusal("", code, message), noted)
}

fn refusal(uid: &str, code: u16, message: String) -> AdmissionResponse {
    let mut response = AdmissionResponse::invalid(message);
    response.result.code = code;
    uid.clone_into(&mut response.uid);
    response
}

/// The answer: an `AdmissionReview` of `admission.k8s.io/v1` with only
/// `response`.
fn encode(mut response: AdmissionResponse, noted: &mut Reviewed) -> HttpAnswer {
    response.types = TypeMeta {
        api_version: META_API_VERSION_V1.to_owned(),
        kind: META_KIND.to_owned(),
    };
    if noted.uid.is_empty() {
        noted.uid.clone_from(&response.uid);
    }
    noted.allowed = response.allowed;
    noted.code = response.result.code;
    noted.message.clone_from(&response.result.message);
    let review = response.into_review();
    let mut body = serde_json::to_vec(&review).unwrap_or_else(|e| {
        // Only a failing serializer gets here: answer without the details.
        let status = Status::failure(&e.to_string(), "InternalError").with_code(500);
        serde_json::to_vec(&serde_json::json!({
            "apiVersion": META_API_VERSION_V1, "kind": META_KIND,
            "response": {"uid": noted.uid, "allowed": false, "status": status}
        }))
        .unwrap_or_default()
    });
    body.push(b'\n');
    HttpAnswer { status: 200, body }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    const JSON: Option<&str> = Some("application/json");

    /// A request shaped as the API server sends it.
    fn review(uid: &str, name: &str) -> Vec<u8> {
        serde_json::to_vec(&json!({
            "kind": "AdmissionReview",
            "apiVersion": "admission.k8s.io/v1",
            "request": {
                "uid": uid,
                "kind": {"group": "config.karmada.io", "version": "v1alpha1", "kind": "ResourceInterpreterCustomization"},
                "resource": {"group": "config.karmada.io", "version": "v1alpha1", "resource": "resourceinterpretercustomizations"},
                "requestKind": {"group": "config.karmada.io", "version": "v1alpha1", "kind": "ResourceInterpreterCustomization"},
                "requestResource": {"group": "config.karmada.io", "version": "v1alpha1", "resource": "resourceinterpretercustomizations"},
                "name": name,
                "operation": "CREATE",
                "userInfo": {"username": "kubernetes-admin", "groups": ["system:masters", "system:authenticated"]},
                "object": {"apiVersion": "config.karmada.io/v1alpha1", "kind": "ResourceInterpreterCustomization",
                           "metadata": {"name": name}, "spec": {}},
                "oldObject": null,
                "dryRun": false,
                "options": {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1"}
            }
        }))
        .unwrap()
    }

    fn by_name(request: &AdmissionRequest) -> Ruling {
        match request.name.as_str() {
            "bad" => Ruling::refuse("no").warn("careful"),
            "boom" => panic!("boom"),
            _ => Ruling::allow().warn("careful"),
        }
    }

    fn answer(body: &[u8]) -> Value {
        let a = handle_http(&by_name, "POST", JSON, Body::Bytes(body));
        assert_eq!(a.status, 200);
        let v: Value = serde_json::from_slice(&a.body).unwrap();
        assert_eq!(v["apiVersion"], "admission.k8s.io/v1");
        assert_eq!(v["kind"], "AdmissionReview");
        assert!(v.get("request").is_none());
        v["response"].clone()
    }

    #[test]
    fn verdicts_are_answered_with_the_uid() {
        let ok = answer(&review("u-1", "good"));
        assert_eq!(
            ok,
            json!({"uid": "u-1", "allowed": true, "status": {}, "warnings": ["careful"]})
        );
        let bad = answer(&review("u-2", "bad"));
        assert_eq!(
            bad,
            json!({"uid": "u-2", "allowed": false,
                   "status": {"status": "Failure", "code": 403, "message": "no"},
                   "warnings": ["careful"]})
        );
        let boom = answer(&review("u-3", "boom"));
        assert_eq!(boom["allowed"], false);
        assert_eq!(boom["status"]["code"], 500);
        assert!(boom["status"]["message"].as_str().unwrap().contains("boom"));
    }

    #[test]
    fn bad_input_is_refused_with_a_message() {
        let mut no_user = serde_json::from_slice::<Value>(&review("u-4", "x")).unwrap();
        no_user["request"]
            .as_object_mut()
            .unwrap()
            .remove("operation");
        let no_user = serde_json::to_vec(&no_user).unwrap();
        let cases: Vec<(Option<&str>, Body<'_>, &str, u16, &str)> = vec![
            (JSON, Body::Bytes(b""), "", 400, "request body is empty"),
            (
                Some("text/plain"),
                Body::Bytes(b"{}"),
                "",
                400,
                "contentType=text/plain",
            ),
            (JSON, Body::Bytes(b"{"), "", 400, "the body is not JSON"),
            (
                JSON,
                Body::Bytes(br#"{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{"uid":"u-5"}}"#),
                "u-5",
                400,
                "expected an AdmissionReview of admission.k8s.io/v1",
            ),
            (
                JSON,
                Body::Bytes(br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}"#),
                "",
                400,
                "the AdmissionReview has no request",
            ),
            (
                JSON,
                Body::Bytes(&no_user),
                "u-4",
                400,
                "not a valid AdmissionReview: missing field `operation`",
            ),
            (
                JSON,
                Body::TooLarge(10),
                "",
                413,
                "request body is larger than 10 bytes",
            ),
        ];
        for (ct, body, uid, code, text) in cases {
            let a = handle_http(&by_name, "POST", ct, body);
            assert_eq!(a.status, 200);
            let v: Value = serde_json::from_slice(&a.body).unwrap();
            let r = &v["response"];
            assert_eq!(r["uid"], uid, "{r}");
            assert_eq!(r["allowed"], false, "{r}");
            assert_eq!(r["status"]["code"], code, "{r}");
            let m = r["status"]["message"].as_str().unwrap();
            assert!(m.starts_with(text), "{m} vs {text}");
        }
        let get = handle_http(&by_name, "GET", JSON, Body::Bytes(b""));
        assert_eq!(get.status, 405);
    }
}
