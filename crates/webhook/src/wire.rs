//! The client side of the protocol without HTTP: building the request
//! envelope, negotiating the envelope version, decoding and verifying the
//! answer, applying patches and extracting the result. Every failure is a reason text as Karmada
//! words it; [`karmada_error_text`] adds the reference's wrapping.

use serde_json::Value;

use super::error::WebhookError;
use karmada_interpreter_core::api::{
    InterpreterOperation, PatchType, ResourceInterpreterContext, ResourceInterpreterRequest,
    ResourceInterpreterResponse, CONTEXT_API_VERSION, CONTEXT_KIND,
};
use karmada_interpreter_core::interpreter::{gvk_of, Outcome, ReplicaResult, Request};

/// The full error text the reference logs for a failed webhook call:
/// `Internal error occurred: failed calling webhook "<identity>": <reason>`.
///
/// ```
/// use karmada_interpreter::webhook::karmada_error_text;
/// assert_eq!(
///     karmada_error_text("shop-interpreters/workloads.example.io",
///                        "webhook call failed, get status code: 422, msg: spec.template is missing"),
///     "Internal error occurred: failed calling webhook \"shop-interpreters/workloads.example.io\": webhook call failed, get status code: 422, msg: spec.template is missing"
/// );
/// ```
pub fn karmada_error_text(identity: &str, reason: &str) -> String {
    format!("Internal error occurred: failed calling webhook \"{identity}\": {reason}")
}

/// Picks the envelope version from a webhook's ordered preference list:
/// the first entry this client knows (`v1alpha1`), unknown entries skipped.
pub fn negotiate_version(versions: &[String]) -> Result<&'static str, WebhookError> {
    versions
        .iter()
        .find_map(|v| (v == "v1alpha1").then_some("v1alpha1"))
        .ok_or_else(|| {
            WebhookError::Config("could not create ResourceInterpreterContext objects: webhook does not accept known ResourceInterpreterContext versions (v1alpha1)".to_owned())
        })
}

/// Builds the request envelope for one operation with a fresh v4 uid.
///
/// ```
/// use karmada_interpreter::interpreter::Request;
/// use karmada_interpreter::webhook::build_request;
/// use serde_json::json;
///
/// let obj = json!({"apiVersion": "workload.example.io/v1alpha1", "kind": "Workload",
///                  "metadata": {"name": "checkout", "namespace": "shop"}});
/// let ctx = build_request(&Request::ReviseReplica { object: &obj, replicas: 2 }).unwrap();
/// let wire = serde_json::to_value(&ctx).unwrap();
/// assert_eq!(wire["request"]["kind"], json!({"group": "workload.example.io", "version": "v1alpha1", "kind": "Workload"}));
/// assert_eq!(wire["request"]["replicas"], 2);
/// assert_eq!(wire["request"]["uid"].as_str().unwrap().len(), 36);
/// ```
pub fn build_request(request: &Request<'_>) -> Result<ResourceInterpreterContext, WebhookError> {
    let object = request.object();
    let meta = |f: &str| {
        object
            .get("metadata")
            .and_then(|m| m.get(f))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let mut req = ResourceInterpreterRequest::new(
        uuid::Uuid::new_v4().hyphenated().to_string(),
        gvk_of(object),
        meta("name"),
        meta("namespace"),
        request.operation(),
        object.clone(),
    );
    match *request {
        Request::ReviseReplica { replicas, .. } => {
            req.replicas = i32::try_from(replicas).map_err(|_| {
                WebhookError::Request(format!(
                    "desired replicas {replicas} do not fit the protocol's int32 `replicas`"
                ))
            })?;
        }
        Request::Retain { observed, .. } => req.observed_object = Some(observed.clone()),
        #[cfg(feature = "karmada-next")]
        Request::ReviseComponents { components, .. } => {
            req.components = components.map(<[_]>::to_vec).unwrap_or_default();
        }
        Request::AggregateStatus { items, .. } => {
            req.aggregated_status = items.map(<[_]>::to_vec).unwrap_or_default();
        }
        _ => {}
    }
    Ok(ResourceInterpreterContext::for_request(req))
}

/// The request body: compact JSON followed by one `\n`.
pub fn encode_request(ctx: &ResourceInterpreterContext) -> Result<Vec<u8>, WebhookError> {
    let encoded =
        |e: serde_json::Error| WebhookError::Request(format!("cannot encode request: {e}"));
    #[cfg(feature = "karmada-next")]
    if ctx
        .request
        .as_ref()
        .is_some_and(|r| r.operation == InterpreterOperation::ReviseComponents)
    {
        // Karmada's pull request #7830 sends no `replicas` with
        // `ReviseComponents` (a nil pointer), only `components`.
        let mut value = serde_json::to_value(ctx).map_err(encoded)?;
        if let Some(request) = value.get_mut("request").and_then(Value::as_object_mut) {
            request.remove("replicas");
        }
        let mut body = serde_json::to_vec(&value).map_err(encoded)?;
        body.push(b'\n');
        return Ok(body);
    }
    let mut body = serde_json::to_vec(ctx).map_err(encoded)?;
    body.push(b'\n');
    Ok(body)
}

/// Decodes an answer body like Kubernetes' universal deserializer: JSON when
/// it starts with `{`, YAML otherwise; `apiVersion`/`kind`, when present,
/// must name the envelope.
pub fn decode_response(body: &[u8]) -> Result<ResourceInterpreterContext, WebhookError> {
    decode_response_text(body).map_err(WebhookError::Response)
}

fn decode_response_text(body: &[u8]) -> Result<ResourceInterpreterContext, String> {
    let text = std::str::from_utf8(body).map_err(|e| format!("response body is not UTF-8: {e}"))?;
    let value: Value = if text.trim_start().starts_with('{') {
        serde_json::from_str(text)
            .map_err(|e| format!("couldn't get version/kind; json parse error: {e}"))?
    } else {
        let docs = karmada_interpreter_core::yaml::documents(text);
        match docs.into_iter().next() {
            Some(Ok(doc)) => doc.value.unwrap_or(Value::Null),
            Some(Err(e)) => return Err(format!("couldn't decode response body: {}", e.message)),
            None => Value::Null,
        }
    };
    if !value.is_object() {
        return Err(format!(
            "couldn't get version/kind; json parse error: expected a JSON object, got {}",
            short(&value.to_string())
        ));
    }
    let api_version = value.get("apiVersion").and_then(Value::as_str);
    let kind = value.get("kind").and_then(Value::as_str);
    if api_version.is_some_and(|v| v != CONTEXT_API_VERSION)
        || kind.is_some_and(|k| k != CONTEXT_KIND)
    {
        let (group, version) =
            karmada_interpreter_core::k8s::object::split_api_version(api_version.unwrap_or(""));
        return Err(format!(
            "no kind {:?} is registered for version \"{}{}{}\"",
            kind.unwrap_or(CONTEXT_KIND),
            group,
            if group.is_empty() { "" } else { "/" },
            version
        ));
    }
    serde_json::from_value(value).map_err(|e| format!("couldn't decode response: {e}"))
}

pub(crate) fn short(s: &str) -> String {
    const MAX: usize = 200;
    if s.len() <= MAX {
        return s.to_owned();
    }
    let mut end = MAX;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &s[..end])
}

fn invalid(reason: impl std::fmt::Display) -> String {
    format!("received invalid webhook response: {reason}")
}

/// Verifies an answer (checks in Karmada's order: uid, success, status,
/// patch, then the operation's own fields) and turns it into the
/// operation's result, applying patches to the object that was sent.
pub fn interpret_response(
    ctx: ResourceInterpreterContext,
    sent: &ResourceInterpreterRequest,
) -> Result<Outcome, WebhookError> {
    interpret_response_text(ctx, sent).map_err(WebhookError::Response)
}

fn interpret_response_text(
    ctx: ResourceInterpreterContext,
    sent: &ResourceInterpreterRequest,
) -> Result<Outcome, String> {
    use InterpreterOperation as Op;
    let res = ctx
        .response
        .ok_or_else(|| invalid("webhook response was absent"))?;
    if res.uid != sent.uid {
        return Err(invalid(format!(
            "expected response.uid {:?}, got {:?}",
            sent.uid, res.uid
        )));
    }
    if !res.successful {
        let status = res.status.ok_or_else(|| {
            invalid("webhook require response.status when response.successful is false")
        })?;
        return Err(format!(
            "webhook call failed, get status code: {}, msg: {}",
            status.code, status.message
        ));
    }
    let op = sent.operation;
    match op {
        Op::InterpretReplica => {
            let replicas = res
                .replicas
                .ok_or_else(|| invalid("webhook returned nil response.replicas"))?;
            Ok(Outcome::Replicas(Box::new(ReplicaResult {
                replicas,
                requirements: res.replica_requirements,
            })))
        }
        Op::InterpretComponent => Ok(Outcome::Components(res.components.unwrap_or_default())),
        Op::InterpretDependency => {
            let deps = res.dependencies.unwrap_or_default();
            super::validate_dependencies(&deps).map_err(invalid)?;
            Ok(Outcome::Dependencies(deps))
        }
        #[cfg(feature = "karmada-next")]
        Op::ReviseComponents => Ok(Outcome::ComponentsRevised(patched_object(
            &res,
            &sent.object,
        )?)),
        Op::ReviseReplica | Op::Retain | Op::AggregateStatus => {
            let patched = patched_object(&res, &sent.object)?;
            Ok(match op {
                Op::ReviseReplica => Outcome::Revised(patched),
                Op::Retain => Outcome::Retained(patched),
                _ => Outcome::Aggregated(patched),
            })
        }
        Op::InterpretStatus => match res.raw_status {
            Some(v) if !v.is_null() => Ok(Outcome::Status(Some(v))),
            _ => Err(invalid("webhook returned nill response.rawStatus")),
        },
        Op::InterpretHealth => res
            .healthy
            .map(Outcome::Healthy)
            .ok_or_else(|| invalid("webhook returned nil response.healthy")),
        // An operation of the karmada-next profile when this crate is built
        // without the feature (the floor with it).
        #[cfg(not(feature = "karmada-next"))]
        #[allow(unreachable_patterns)]
        _ => Err(format!(
            "{op} needs karmada-interpreter-webhook's feature karmada-next"
        )),
    }
}

fn patched_object(res: &ResourceInterpreterResponse, object: &Value) -> Result<Value, String> {
    let patch = res.patch.as_ref().map(|p| p.0.as_slice()).unwrap_or(&[]);
    match (&res.patch_type, patch.is_empty()) {
        (None, true) => return Ok(object.clone()),
        (None, false) => return Err(invalid("webhook returned nil response.patchType")),
        (Some(_), true) => return Err(invalid("webhook returned empty response.patch")),
        (Some(PatchType::Other(t)), false) => {
            return Err(invalid(format!(
                "webhook returned invalid response.patchType of {t:?}"
            )))
        }
        (Some(PatchType::JsonPatch), false) => {}
    }
    let patched = apply_patch_text(object, patch)?;
    if patched
        .get("kind")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty)
    {
        return Err("the patched object has no kind: Object 'Kind' is missing".to_owned());
    }
    Ok(patched)
}

/// Applies an RFC 6902 JSON Patch document (bytes) to `object` with the
/// reference's specifics: all six operations, `-` appends, negative
/// array indices count from the end, unknown ops are errors.
///
/// ```
/// use karmada_interpreter::webhook::apply_patch;
/// use serde_json::json;
///
/// let obj = json!({"spec": {"replicas": 6, "list": [1, 2, 3]}});
/// let out = apply_patch(&obj, br#"[{"op":"replace","path":"/spec/replicas","value":2},
///                                 {"op":"remove","path":"/spec/list/-1"}]"#).unwrap();
/// assert_eq!(out, json!({"spec": {"replicas": 2, "list": [1, 2]}}));
/// assert!(apply_patch(&obj, br#"[{"op":"remove","path":"/spec/missing"}]"#).is_err());
/// ```
pub fn apply_patch(object: &Value, patch: &[u8]) -> Result<Value, WebhookError> {
    apply_patch_text(object, patch).map_err(WebhookError::Response)
}

fn apply_patch_text(object: &Value, patch: &[u8]) -> Result<Value, String> {
    let ops: Value = serde_json::from_slice(patch)
        .map_err(|e| format!("the webhook's patch is not valid JSON: {e}"))?;
    let Value::Array(ops) = ops else {
        return Err("the webhook's patch is not a JSON array of operations".to_owned());
    };
    let mut doc = object.clone();
    for (i, mut op) in ops.into_iter().enumerate() {
        let kind = op
            .get("op")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        if !matches!(
            kind.as_str(),
            "add" | "remove" | "replace" | "move" | "copy" | "test"
        ) {
            return Err(format!("patch operation {i}: Unexpected kind: {kind}"));
        }
        for member in ["path", "from"] {
            if let Some(Value::String(p)) = op.get(member) {
                let resolved = resolve_negative_indices(&doc, p)
                    .map_err(|e| format!("patch operation {i} ({kind} {p}): {e}"))?;
                op[member] = Value::String(resolved);
            }
        }
        let parsed: json_patch::PatchOperation =
            serde_json::from_value(op).map_err(|e| format!("patch operation {i} ({kind}): {e}"))?;
        json_patch::patch(&mut doc, std::slice::from_ref(&parsed))
            .map_err(|e| format!("patch operation {i} ({kind}) does not apply: {e}"))?;
    }
    Ok(doc)
}

fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// Rewrites array tokens `-N` to `len-N` against the current document.
fn resolve_negative_indices(doc: &Value, pointer: &str) -> Result<String, String> {
    if pointer.is_empty() || !pointer.contains("/-") {
        return Ok(pointer.to_owned());
    }
    let mut out = String::new();
    let mut node = Some(doc);
    for token in pointer.split('/').skip(1) {
        let mut token = token.to_owned();
        if let Some(Value::Array(items)) = node {
            if let Some(n) = token
                .strip_prefix('-')
                .and_then(|n| n.parse::<usize>().ok())
            {
                let idx = items
                    .len()
                    .checked_sub(n)
                    .ok_or_else(|| format!("array index -{n} is out of bounds"))?;
                token = idx.to_string();
            }
        }
        node = match node {
            Some(Value::Object(m)) => m.get(&unescape(&token)),
            Some(Value::Array(a)) => token.parse::<usize>().ok().and_then(|i| a.get(i)),
            _ => None,
        };
        out.push('/');
        out.push_str(&token);
    }
    Ok(out)
}

/// What a webhook must do beyond producing the right result (the
/// conformance suite's protocol checks): echo the uid, set `successful`,
/// use `patchType: JSONPatch` with a patch, put a message in a failing
/// answer. `body` is the raw answer; an empty list means all good.
pub fn protocol_violations(sent: &ResourceInterpreterRequest, body: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => return vec![format!("the answer is not JSON: {e}")],
    };
    let Some(res) = value.get("response").filter(|r| r.is_object()) else {
        return vec!["the answer has no `response` object".to_owned()];
    };
    if res.get("uid").and_then(Value::as_str) != Some(sent.uid.as_str()) {
        out.push(format!(
            "response.uid must echo request.uid {:?}, got {}",
            sent.uid,
            res.get("uid")
                .map_or("nothing".to_owned(), Value::to_string)
        ));
    }
    let successful = res.get("successful").and_then(Value::as_bool);
    if successful.is_none() {
        out.push("response.successful must be set to true or false".to_owned());
    }
    let patch = res.get("patch").and_then(Value::as_str).unwrap_or("");
    if !patch.is_empty() && res.get("patchType").and_then(Value::as_str) != Some("JSONPatch") {
        out.push(format!(
            "a response with a patch must carry patchType \"JSONPatch\", got {}",
            res.get("patchType")
                .map_or("nothing".to_owned(), Value::to_string)
        ));
    }
    if successful == Some(false)
        && res
            .get("status")
            .and_then(|s| s.get("message"))
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
    {
        out.push("a failing answer (successful: false) must carry status.message".to_owned());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sent(op: InterpreterOperation) -> ResourceInterpreterRequest {
        ResourceInterpreterRequest {
            uid: "u-1".into(),
            kind: gvk_of(&json!({"apiVersion": "v1", "kind": "Pod"})),
            name: "p".into(),
            namespace: String::new(),
            operation: op,
            object: json!({"apiVersion": "v1", "kind": "Pod", "spec": {"replicas": 1}}),
            observed_object: None,
            replicas: 0,
            aggregated_status: vec![],
            #[cfg(feature = "karmada-next")]
            components: vec![],
        }
    }

    #[cfg(feature = "karmada-next")]
    #[test]
    fn revise_components_sends_the_assignment_and_no_replicas() {
        use karmada_interpreter_core::api::TargetComponent;
        let object = json!({"apiVersion": "flink.apache.org/v1beta1", "kind": "FlinkDeployment",
                            "metadata": {"name": "f", "namespace": "ns"}});
        let components = [TargetComponent {
            name: "jobmanager".into(),
            replicas: 0,
        }];
        let ctx = build_request(&Request::ReviseComponents {
            object: &object,
            components: Some(&components),
        })
        .unwrap();
        let body: Value = serde_json::from_slice(&encode_request(&ctx).unwrap()).unwrap();
        let request = &body["request"];
        assert_eq!(request["operation"], "ReviseComponents");
        assert_eq!(
            request["components"],
            json!([{"name": "jobmanager", "replicas": 0}])
        );
        assert!(request.get("replicas").is_none(), "{request}");
        // A patch answers it, as for ReviseReplica.
        let patched = answer(
            Op::ReviseComponents,
            json!({"uid": "u-1", "successful": true, "patchType": "JSONPatch",
                   "patch": "W3sib3AiOiJyZXBsYWNlIiwicGF0aCI6Ii9zcGVjL3JlcGxpY2FzIiwidmFsdWUiOjN9XQ=="}),
        )
        .unwrap();
        assert_eq!(
            patched,
            Outcome::ComponentsRevised(
                json!({"apiVersion": "v1", "kind": "Pod", "spec": {"replicas": 3}})
            )
        );
    }

    fn answer(op: InterpreterOperation, response: Value) -> Result<Outcome, String> {
        let ctx = decode_response(
            serde_json::to_string(&json!({ "response": response }))
                .unwrap()
                .as_bytes(),
        )
        .map_err(|e| e.to_string())?;
        interpret_response(ctx, &sent(op)).map_err(|e| e.to_string())
    }

    use InterpreterOperation as Op;

    #[test]
    fn verification_order_and_texts() {
        let cases = [
            (Op::InterpretHealth, json!(null), "received invalid webhook response: webhook response was absent"),
            (Op::InterpretHealth, json!({"uid": "x", "successful": true, "healthy": true}), "received invalid webhook response: expected response.uid \"u-1\", got \"x\""),
            (Op::InterpretHealth, json!({"uid": "u-1", "successful": false}), "received invalid webhook response: webhook require response.status when response.successful is false"),
            (Op::InterpretReplica, json!({"uid": "u-1", "successful": true}), "received invalid webhook response: webhook returned nil response.replicas"),
            (Op::InterpretDependency, json!({"uid": "u-1", "successful": true, "dependencies": [{"apiVersion": "v1", "kind": "", "name": "x"}]}), "received invalid webhook response: dependencies[0].kind: Invalid value: \"\": missing required kind"),
            (Op::Retain, json!({"uid": "u-1", "successful": true, "patch": "W10="}), "received invalid webhook response: webhook returned nil response.patchType"),
            (Op::Retain, json!({"uid": "u-1", "successful": true, "patchType": "JSONPatch", "patch": ""}), "received invalid webhook response: webhook returned empty response.patch"),
            (Op::Retain, json!({"uid": "u-1", "successful": true, "patchType": "Merge", "patch": "W10="}), "received invalid webhook response: webhook returned invalid response.patchType of \"Merge\""),
            (Op::InterpretStatus, json!({"uid": "u-1", "successful": true, "rawStatus": null}), "received invalid webhook response: webhook returned nill response.rawStatus"),
            (Op::InterpretHealth, json!({"uid": "u-1", "successful": true}), "received invalid webhook response: webhook returned nil response.healthy"),
            (Op::InterpretHealth, json!({"uid": "u-1", "successful": false, "status": {"code": 422, "message": "spec.template is missing"}}), "webhook call failed, get status code: 422, msg: spec.template is missing"),
        ];
        for (op, response, expected) in cases {
            assert_eq!(answer(op, response).unwrap_err(), expected);
        }
    }

    #[test]
    fn results_per_operation() {
        assert_eq!(
            answer(Op::Retain, json!({"uid": "u-1", "successful": true})).unwrap(),
            Outcome::Retained(sent(Op::Retain).object)
        );
        // [{"op":"replace","path":"/spec/replicas","value":2}]
        let out = answer(
            Op::ReviseReplica,
            json!({"uid": "u-1", "successful": true, "patchType": "JSONPatch",
            "patch": "W3sib3AiOiJyZXBsYWNlIiwicGF0aCI6Ii9zcGVjL3JlcGxpY2FzIiwidmFsdWUiOjJ9XQ=="}),
        )
        .unwrap();
        assert_eq!(
            out,
            Outcome::Revised(json!({"apiVersion": "v1", "kind": "Pod", "spec": {"replicas": 2}}))
        );
        assert_eq!(
            answer(
                Op::InterpretComponent,
                json!({"uid": "u-1", "successful": true})
            )
            .unwrap(),
            Outcome::Components(vec![])
        );
        assert_eq!(
            answer(
                Op::InterpretStatus,
                json!({"uid": "u-1", "successful": true, "rawStatus": {"a": 1}})
            )
            .unwrap(),
            Outcome::Status(Some(json!({"a": 1})))
        );
    }

    #[test]
    fn decoding_rules() {
        assert!(decode_response(br#"{"apiVersion":"v1","kind":"Pod"}"#)
            .unwrap_err()
            .to_string()
            .contains("no kind \"Pod\" is registered"));
        assert!(decode_response(b"{not json")
            .unwrap_err()
            .to_string()
            .contains("json parse error"));
        assert!(decode_response(br#"{"response":{"uid":"u","replicas":3.0}}"#).is_err());
        let yaml = decode_response(b"response:\n  uid: u\n  successful: true\n").unwrap();
        assert_eq!(yaml.response.unwrap().uid, "u");
    }

    #[test]
    fn version_negotiation() {
        assert_eq!(
            negotiate_version(&["v1beta9".into(), "v1alpha1".into()]).unwrap(),
            "v1alpha1"
        );
        assert!(negotiate_version(&["v1beta9".into()])
            .unwrap_err()
            .to_string()
            .contains("(v1alpha1)"));
    }

    #[test]
    fn patch_specifics() {
        let obj = json!({"a": [1, 2, 3], "kind": "K"});
        let out = apply_patch(&obj, br#"[{"op":"add","path":"/a/-","value":4},{"op":"move","from":"/a/0","path":"/b"},{"op":"test","path":"/b","value":1}]"#).unwrap();
        assert_eq!(out, json!({"a": [2, 3, 4], "b": 1, "kind": "K"}));
        assert!(apply_patch(&obj, br#"[{"op":"frobnicate","path":"/a"}]"#)
            .unwrap_err()
            .to_string()
            .contains("Unexpected kind: frobnicate"));
        assert!(apply_patch(&obj, br#"[{"op":"add","path":"/x/y","value":1}]"#).is_err());
        assert!(apply_patch(&obj, br#"[{"op":"replace","path":"/x","value":1}]"#).is_err());
        assert!(apply_patch(&obj, br#"[{"op":"remove","path":"/a/-9"}]"#).is_err());
    }

    #[test]
    fn protocol_checks() {
        let s = sent(Op::InterpretHealth);
        assert!(protocol_violations(
            &s,
            br#"{"response":{"uid":"u-1","successful":true,"healthy":true}}"#
        )
        .is_empty());
        let v = protocol_violations(
            &s,
            br#"{"response":{"uid":"","successful":false,"status":{"code":400}}}"#,
        );
        assert_eq!(v.len(), 2, "{v:?}");
        let v = protocol_violations(&s, br#"{"response":{"uid":"u-1","patch":"W10="}}"#);
        assert_eq!(v.len(), 2, "{v:?}");
    }
}
