//! The golden kit against a deliberately broken webhook (`test
//! --webhook-config`): a failure shows the request sent, the answer received
//! and the case's expectation; a patch that edits fields outside what the
//! operation owns is a finding of its own; `--update` refuses an answer that
//! breaks the protocol. Also partial expectations (`outputContains`) against
//! the chain. Every server here listens on 127.0.0.1 and stops by itself.

use std::path::{Path, PathBuf};

use karmada_interpreter::webhook::sdk::{self, Response};
use karmada_interpreter::webhook::server::{RunningServer, Server};
use karmada_interpreter::webhook::tls::TlsIdentity;
use serde_json::{json, Value};

use crate::cli_support::workload_example;
use crate::support::{bin, scratch, text};

/// A webhook with the bugs the kit must show: its ReviseReplica patch drops
/// `spec.newField` (its Go types are older than the object), its
/// AggregateStatus reads `desiredReplicas` (0 outside ReviseReplica) as the
/// ready count, and its Retain answers a patch without `patchType`.
fn broken(req: &sdk::Request) -> Response {
    let Some(object) = req.object.clone() else {
        return sdk::errored(400, "no object");
    };
    let mut wanted = object.clone();
    match req.operation_name.as_str() {
        "ReviseReplica" => {
            wanted["spec"]["replicas"] = json!(req.desired_replicas.unwrap_or(0));
            if let Some(spec) = wanted["spec"].as_object_mut() {
                spec.remove("newField");
            }
            sdk::patch_response(&object, &wanted)
        }
        "AggregateStatus" => {
            wanted["status"] = json!({"readyReplicas": req.desired_replicas.unwrap_or(0)});
            sdk::patch_response(&object, &wanted)
        }
        "Retain" => {
            wanted["spec"]["paused"] = json!(true);
            let mut r = sdk::patch_response(&object, &wanted);
            r.patch_type = None;
            r
        }
        _ => sdk::errored(400, "not served"),
    }
}

/// Starts `broken` and writes its configuration; gives the server (kept
/// alive by the caller) and the configuration file.
fn start_broken(dir: &Path) -> (RunningServer, PathBuf) {
    let id = TlsIdentity::self_signed(&["localhost", "127.0.0.1"]).unwrap();
    let ca = id.cert_pem.clone();
    let server = Server::new(id)
        .route(workload_example::PATH, broken)
        .start("127.0.0.1:0".parse().unwrap())
        .unwrap();
    let url = format!(
        "https://127.0.0.1:{}{}",
        server.local_addr().port(),
        workload_example::PATH
    );
    let config = dir.join("webhook.json");
    std::fs::write(
        &config,
        serde_json::to_string(&workload_example::configuration(&url, &ca)).unwrap(),
    )
    .unwrap();
    (server, config)
}

const WORKLOAD: &str = "  apiVersion: workload.example.io/v1alpha1
  kind: Workload
  metadata: {name: w, namespace: ns}
  spec: {replicas: 3, newField: keep-me}
";

fn write_cases(dir: &Path) -> PathBuf {
    let cases = dir.join("cases");
    std::fs::create_dir_all(&cases).unwrap();
    std::fs::write(
        cases.join("revisereplica-test.yaml"),
        format!(
            "name: revise keeps new fields\noperation: ReviseReplica\ninputReplicas: 5\ndesiredObj:\n{WORKLOAD}output:\n  revised:\n    apiVersion: workload.example.io/v1alpha1\n    kind: Workload\n    metadata: {{name: w, namespace: ns}}\n    spec: {{replicas: 5, newField: keep-me}}\n"
        ),
    )
    .unwrap();
    std::fs::write(
        cases.join("aggregatestatus-test.yaml"),
        format!(
            "name: ready replicas summed\noperation: AggregateStatus\ndesiredObj:\n{WORKLOAD}statusItems:\n  - {{clusterName: a, status: {{readyReplicas: 2}}, applied: true}}\noutputContains:\n  aggregatedStatus:\n    status: {{readyReplicas: 2}}\n"
        ),
    )
    .unwrap();
    std::fs::write(
        cases.join("retain-test.yaml"),
        format!(
            "name: retain paused\noperation: Retain\ndesiredObj:\n{WORKLOAD}observedObj:\n{WORKLOAD}output:\n  retained:\n    apiVersion: workload.example.io/v1alpha1\n    kind: Workload\n    metadata: {{name: w, namespace: ns}}\n    spec: {{replicas: 3, newField: keep-me}}\n"
        ),
    )
    .unwrap();
    cases
}

/// The block of the report about case `name` (its first line up to the next case).
fn block<'a>(report: &'a str, name: &str) -> &'a str {
    let start = report
        .find(&format!("case {name:?}"))
        .unwrap_or_else(|| panic!("no case {name:?} in:\n{report}"));
    let start = report[..start].rfind('\n').map_or(0, |i| i + 1);
    let end = report[start + 1..]
        .find("\nFAIL ")
        .or_else(|| report[start + 1..].find("\nPASS "))
        .map_or(report.len(), |i| start + 1 + i);
    &report[start..end]
}

/// The JSON on the line of `block` that starts with `prefix`.
fn line_json(block: &str, prefix: &str) -> Value {
    let line = block
        .lines()
        .find_map(|l| l.trim().strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no {prefix:?} line in:\n{block}"));
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"))
}

#[test]
fn a_failure_shows_request_answer_expectation_and_findings() {
    let dir = scratch("kit-broken");
    let (server, config) = start_broken(&dir);
    let cases = write_cases(&dir);
    let out = bin()
        .arg("test")
        .arg("--webhook-config")
        .arg(&config)
        .arg(&cases)
        .output()
        .unwrap();
    let report = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{report}\n{}",
        text(&out.stderr)
    );

    // ReviseReplica: the difference, what went over the wire, the
    // expectation, and the edit outside `replicas` as a finding.
    let revise = block(&report, "revise keeps new fields");
    assert!(revise.starts_with("FAIL "), "{revise}");
    assert!(
        revise.contains("revised.spec.newField: expected \"keep-me\", got <absent>"),
        "{revise}"
    );
    let sent = line_json(revise, "request sent: ");
    assert_eq!(sent["request"]["operation"], "ReviseReplica");
    // Karmada's wire name for the desired replicas.
    assert_eq!(sent["request"]["replicas"], 5);
    assert_eq!(sent["request"]["object"]["spec"]["newField"], "keep-me");
    let answer = line_json(revise, "answer received: ");
    assert_eq!(answer["response"]["patchType"], "JSONPatch");
    assert!(answer["response"]["patch"].is_string(), "{answer}");
    assert!(
        revise.contains("expected: {\"output\":{\"revised\":"),
        "{revise}"
    );
    assert!(
        revise.contains("finding: revised.spec.newField: removed (the desired object has \"keep-me\"), but ReviseReplica owns only the replica count"),
        "{revise}"
    );

    // AggregateStatus: a partial expectation, failed by the webhook that
    // reads desiredReplicas; the request shows what it was sent.
    let aggregate = block(&report, "ready replicas summed");
    assert!(
        aggregate
            .contains("outputContains: aggregatedStatus.status.readyReplicas: expected 2, got 0"),
        "{aggregate}"
    );
    let sent = line_json(aggregate, "request sent: ");
    assert_eq!(sent["request"]["aggregatedStatus"][0]["clusterName"], "a");
    assert_eq!(
        sent["request"]["aggregatedStatus"][0]["status"],
        json!({"readyReplicas": 2})
    );
    assert!(
        aggregate.contains("expected: {\"outputContains\":"),
        "{aggregate}"
    );

    // Retain: the protocol violation fails the case.
    let retain = block(&report, "retain paused");
    assert!(
        retain.contains("protocol: a response with a patch must carry patchType"),
        "{retain}"
    );

    // The JSON report carries the same.
    let out = bin()
        .args(["test", "-o", "json", "--webhook-config"])
        .arg(&config)
        .arg(&cases)
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let revise = json["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "revise keeps new fields")
        .unwrap();
    assert_eq!(revise["request"]["request"]["replicas"], 5);
    assert!(revise["answer"]["response"]["patch"].is_string());
    assert_eq!(
        revise["expected"]["output"]["revised"]["spec"]["replicas"],
        5
    );
    assert_eq!(revise["findings"].as_array().unwrap().len(), 1);
    assert_eq!(json["summary"]["findings"], 1);
    server.stop();
}

#[test]
fn update_refuses_an_answer_with_findings_and_says_what_it_would_write() {
    let dir = scratch("kit-update");
    let (server, config) = start_broken(&dir);
    let cases = write_cases(&dir);
    let file = cases.join("revisereplica-test.yaml");
    let before = std::fs::read_to_string(&file).unwrap();
    let out = bin()
        .args(["test", "--update", "--webhook-config"])
        .arg(&config)
        .arg(&cases)
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    // The ReviseReplica answer drops a field it does not own: not written.
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    let refusal = format!(
        "not updated: {}: case \"revise keeps new fields\": the answer edits fields outside what ReviseReplica owns:\n  revised.spec.newField: removed",
        file.display()
    );
    assert!(stderr.contains(&refusal), "{stderr}");
    let would = &stderr[stderr.find(&refusal).unwrap()..];
    assert!(
        would.contains("it would write:\noutput:\n  revised:\n"),
        "{stderr}"
    );
    assert!(would.contains("replicas: 5"), "{stderr}");
    // The Retain answer is refused by the client: nothing to write.
    assert!(
        stderr.contains("case \"retain paused\": the operation failed: ")
            && stderr.contains("nil response.patchType"),
        "{stderr}"
    );
    // The partial case is left to its author.
    assert!(
        stderr.contains("case \"ready replicas summed\" states a partial expectation (edit outputContains by hand)"),
        "{stderr}"
    );
    assert!(stderr.contains("--update: 0 case(s) updated"), "{stderr}");
    server.stop();
}

/// `outputContains` against the chain: what it states must match, the
/// rest is free; a failure names the path and shows both values.
#[test]
fn partial_expectations_name_the_path_and_the_value() {
    let dir = scratch("kit-partial");
    let case = |name: &str, contains: &str| {
        format!(
            "name: {name}\noperation: InterpretReplica\ndesiredObj:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {{name: d, namespace: ns}}\n  spec:\n    replicas: 2\n    template:\n      spec:\n        containers:\n        - name: a\n          resources: {{requests: {{cpu: 4, memory: 1Gi}}}}\noutputContains:\n{contains}"
        )
    };
    std::fs::write(
        dir.join("interpretreplica-test.yaml"),
        [
            case("cpu only", "  requires: {resourceRequest: {cpu: 4}}\n"),
            case("replica only", "  replica: 2\n"),
            case("wrong cpu", "  requires: {resourceRequest: {cpu: 3}}\n"),
        ]
        .join("---\n"),
    )
    .unwrap();
    let out = bin().arg("test").arg(&dir).output().unwrap();
    let report = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{report}");
    assert!(report.contains("2 passed, 1 failed"), "{report}");
    assert!(
        report.contains("outputContains: requires.resourceRequest.cpu: expected 3, got \"4\""),
        "{report}"
    );
}

/// `assert`: CEL expressions over the answer and the input object, against
/// the chain; a failure names the assertion and shows the values it read.
#[test]
fn expression_assertions_name_the_assertion_and_show_the_value() {
    let dir = scratch("kit-assert");
    let case = |name: &str, asserts: &str| {
        format!(
            "name: {name}\noperation: InterpretReplica\ndesiredObj:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {{name: d, namespace: ns}}\n  spec: {{replicas: 2}}\nassert:\n{asserts}"
        )
    };
    std::fs::write(
        dir.join("interpretreplica-test.yaml"),
        [
            case(
                "holds",
                "  - output.replica == 2\n  - output.replica == object.spec.replicas\n  - desiredObj.metadata.namespace == 'ns' && inputReplicas == 0\n",
            ),
            case("wrong count", "  - output.replica == 2\n  - output.replica == 3\n"),
            case("not a boolean", "  - output.replica\n"),
            case("reads nothing there", "  - output.replicas == 2\n"),
        ]
        .join("---\n"),
    )
    .unwrap();
    let out = bin().arg("test").arg(&dir).output().unwrap();
    let report = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{report}");
    assert!(report.contains("1 passed, 3 failed"), "{report}");
    let wrong = block(&report, "wrong count");
    assert!(
        wrong.contains("assert[1] `output.replica == 3` is false (output.replica = 2)"),
        "{wrong}"
    );
    assert!(!wrong.contains("assert[0]"), "{wrong}");
    assert!(
        report.contains("assert[0] `output.replica` is not a boolean: it gives int 2"),
        "{report}"
    );
    let missing = block(&report, "reads nothing there");
    assert!(
        missing.contains("assert[0] `output.replicas == 2` fails: ")
            && missing.contains("(output = {\"replica\":2,\"requires\":null})"),
        "{missing}"
    );

    // An expression that does not compile: the case does not load, naming it.
    std::fs::write(
        dir.join("interpretreplica-test.yaml"),
        case("bad", "  - output.replica ==\n"),
    )
    .unwrap();
    let out = bin().arg("test").arg(&dir).output().unwrap();
    let report = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{report}");
    assert!(
        report.contains("`assert[0]`: `output.replica ==` does not parse"),
        "{report}"
    );
}
