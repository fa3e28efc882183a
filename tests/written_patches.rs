//! What an edit in place says it wrote (`Written`) is the edit: applied
//! as a JSON Patch to the object the edit started from, it gives the
//! edited object. `serve` sends that patch instead of a diff of the two
//! objects, so these tests hold it to the edited object on every golden
//! edit case (the project's and, when present, Karmada's corpora) and on
//! mutated copies of the project's, and check the webhook SDK sends it.

use karmada_interpreter::api::InterpreterOperation as Op;
use karmada_interpreter::interpreter::{LayerKind, OwnedRequest};
use karmada_interpreter::webhook::{apply_patch, sdk};
use karmada_interpreter::Interpreter;
use serde_json::{json, Value};

use crate::json_inputs::{all_roots, cases, kind_of, project_roots};
use crate::support::mutator::mutate;
use crate::support::rng::Rng;

/// Runs `request` in place through `chain`; when the layer says what it
/// wrote, checks the patch of those writes turns the original into the
/// edited object. Returns whether it said (`None`: the edit failed).
fn patch_is_the_edit(
    chain: &Interpreter,
    mut request: OwnedRequest<'_>,
    label: &str,
) -> Option<bool> {
    let original = request.object().clone();
    let answer = chain.edit_in_place(request.lend()).ok()?;
    let edited = request.into_object();
    let Some(response) = sdk::written_patch_response(&edited, &answer.value) else {
        // Pod Retain is the native layer's one edit that rebuilds the
        // object (decoded and re-encoded as Karmada's typed Pod): a new
        // object, so only a diff tells what changed.
        let rebuilt = answer.served_by.name.contains("Pod");
        assert!(
            answer.served_by.layer != LayerKind::Native || rebuilt,
            "{label}: the native layer edits field by field and must say what it wrote"
        );
        return Some(false);
    };
    let patched = match &response.patch {
        Some(patch) => apply_patch(&original, &patch.0)
            .unwrap_or_else(|e| panic!("{label}: the written patch does not apply: {e}")),
        None => original.clone(),
    };
    assert_eq!(patched, edited, "{label}: written {:?}", answer.value);
    Some(true)
}

/// The edit of `case` on `object`, as a request handing it over.
fn edit_request<'a>(
    operation: Op,
    object: Value,
    observed: Option<&'a Value>,
    replicas: i64,
    items: Option<&'a [karmada_interpreter::api::AggregatedStatusItem]>,
) -> Option<OwnedRequest<'a>> {
    Some(match operation {
        Op::ReviseReplica => OwnedRequest::ReviseReplica { object, replicas },
        Op::Retain => OwnedRequest::Retain {
            desired: object,
            observed: observed?,
        },
        Op::AggregateStatus => OwnedRequest::AggregateStatus { object, items },
        _ => return None,
    })
}

#[test]
fn the_written_patch_is_the_edit_on_every_edit_case() {
    let project = project_roots();
    let roots = all_roots();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut said, mut mutated) = (0, 0);
    let mut by_operation = std::collections::BTreeMap::new();
    for (chain, case) in cases(&roots) {
        let object = match case.operation {
            Op::Retain => case.desired.clone(),
            _ => case.desired.clone().or_else(|| case.observed.clone()),
        };
        let Some(object) = object else { continue };
        let (observed, items) = (case.observed.as_ref(), case.status_items.as_deref());
        let request =
            |object| edit_request(case.operation, object, observed, case.input_replicas, items);
        let Some(first) = request(object.clone()) else {
            continue;
        };
        if patch_is_the_edit(&chain, first, &case.label()) == Some(true) {
            said += 1;
            *by_operation.entry(case.operation.to_string()).or_insert(0) += 1;
        }
        if !project.iter().any(|root| case.file.starts_with(root)) {
            continue;
        }
        for round in 0..10 {
            let mut object = object.clone();
            mutate(&mut rng, &mut object);
            let label = format!(
                "{} round {round} ({}): {object}",
                case.label(),
                kind_of(&case)
            );
            if let Some(request) = request(object) {
                patch_is_the_edit(&chain, request, &label);
                mutated += 1;
            }
        }
    }
    for operation in ["ReviseReplica", "Retain", "AggregateStatus"] {
        let n = by_operation.get(operation).copied().unwrap_or(0);
        assert!(
            n > 5,
            "only {n} {operation} cases said what they wrote: {by_operation:?}"
        );
    }
    assert!(said > 60, "only {said} edits said what they wrote");
    assert!(mutated > 500, "only {mutated} mutated objects");
}

/// The SDK's interpreter handler answers a native edit with the patch the
/// edit produced, not a diff: writing the replica count the object already
/// has is still a `replace` (a diff would have nothing to send), and the
/// retained member a Service's edit creates is one `add`.
#[test]
fn serve_sends_the_patch_the_edit_produced() {
    let handler = sdk::InterpreterHandler::new(Interpreter::default());
    let answer = |request: Value| {
        let body = serde_json::to_vec(&json!({"apiVersion": "config.karmada.io/v1alpha1",
            "kind": "ResourceInterpreterContext", "request": request}))
        .unwrap();
        let http = sdk::handle_http(
            &handler,
            "POST",
            Some("application/json"),
            sdk::Body::Bytes(&body),
        );
        let envelope: Value = serde_json::from_slice(&http.body).unwrap();
        let response = envelope["response"].clone();
        assert_eq!(response["successful"], true, "{response}");
        let patch = response["patch"].as_str().map(|p| {
            use base64::Engine as _;
            let bytes = base64::engine::general_purpose::STANDARD.decode(p).unwrap();
            serde_json::from_slice::<Value>(&bytes).unwrap()
        });
        patch
    };
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web"}, "spec": {"replicas": 3}});
    let revise = json!({"uid": "1", "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
        "operation": "ReviseReplica", "object": deployment, "replicas": 3});
    assert_eq!(
        answer(revise),
        Some(json!([{"op": "replace", "path": "/spec/replicas", "value": 3}]))
    );
    let service = |spec: Value| {
        json!({"apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "web"}, "spec": spec})
    };
    let retain = json!({"uid": "2", "kind": {"group": "", "version": "v1", "kind": "Service"},
        "operation": "Retain", "object": service(json!({"ports": [{"port": 80}]})),
        "observedObject": service(json!({"clusterIP": "10.0.0.7", "ports": [{"port": 80}]}))});
    assert_eq!(
        answer(retain),
        Some(json!([{"op": "add", "path": "/spec/clusterIP", "value": "10.0.0.7"}]))
    );
    // Nothing to write: no patch at all.
    let unlabelled = json!({"uid": "3", "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
        "operation": "Retain", "object": deployment, "observedObject": deployment});
    assert_eq!(answer(unlabelled), None);
}
