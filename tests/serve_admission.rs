//! `karmada-interpreter serve --admission` end to end over HTTPS:
//! AdmissionReview requests shaped as the API server sends them for
//! customizations and webhook configurations, refused with `check`'s
//! messages at their script line, allowed with `lint`'s findings as
//! warnings; bad requests refused with a message; off by default; the
//! ValidatingWebhookConfiguration `--print-config admission` prints (and
//! `deploy/` holds); and the same handler served by a library user through
//! the SDK's server.

use std::process::Command;

use serde_json::{json, Value};

use crate::cli_support::serve_process;
use crate::serve_operable::{call, connect, runtime};
use crate::support::customization::Customization;
use crate::support::{run_ok, BIN};

/// The customization the server serves from its file: Workload health.
const SERVED: &str = r#"apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: workload-health
spec:
  target:
    apiVersion: workload.example.io/v1alpha1
    kind: Workload
  customizations:
    healthInterpretation:
      luaScript: |
        function InterpretHealth(obj)
          return true
        end
"#;

/// A customization of `rules` (member → `{luaScript}`) for a `kind` of
/// workload.example.io, as the API server stores it (uid, version, ...).
fn customization(name: &str, kind: &str, rules: Value) -> Value {
    let mut built = Customization::new(name, "workload.example.io/v1alpha1", kind);
    for (member, rule) in rules.as_object().unwrap() {
        built = built.rule(member, rule["luaScript"].as_str().unwrap());
    }
    let mut stored = built.json();
    let meta = stored["metadata"].as_object_mut().unwrap();
    meta.insert("uid".into(), json!("5e1c-0000"));
    meta.insert("resourceVersion".into(), json!("1"));
    meta.insert("generation".into(), json!(1));
    stored
}

/// An AdmissionReview as the API server sends it for a create.
pub(crate) fn review(uid: &str, object: &Value) -> Vec<u8> {
    let kind = object["kind"].as_str().unwrap();
    let resource = format!("{}s", kind.to_ascii_lowercase());
    let gvk = json!({"group": "config.karmada.io", "version": "v1alpha1", "kind": kind});
    let gvr = json!({"group": "config.karmada.io", "version": "v1alpha1", "resource": resource});
    serde_json::to_vec(&json!({
        "kind": "AdmissionReview",
        "apiVersion": "admission.k8s.io/v1",
        "request": {
            "uid": uid,
            "kind": gvk, "resource": gvr, "requestKind": gvk, "requestResource": gvr,
            "name": object["metadata"]["name"],
            "operation": "CREATE",
            "userInfo": {"username": "kubernetes-admin",
                         "groups": ["system:masters", "system:authenticated"]},
            "object": object,
            "oldObject": null,
            "dryRun": false,
            "options": {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1",
                        "fieldManager": "kubectl-client-side-apply", "fieldValidation": "Strict"}
        }
    }))
    .unwrap()
}

/// Sends `body` (or a GET without) to `path`; the HTTP status and the body.
fn send(serve: &serve_process::ServeProcess, path: &str, body: Option<Vec<u8>>) -> (u16, String) {
    let (addr, ca) = (serve.addr, serve.ca.clone());
    runtime().block_on(async move {
        let send = connect(addr, &ca).await;
        call(send, addr.port(), path, body).await
    })
}

/// The `response` of the answer to `object`, after checking the envelope
/// and the echoed uid.
fn admit(serve: &serve_process::ServeProcess, uid: &str, object: &Value) -> Value {
    let (status, body) = send(serve, "/validate", Some(review(uid, object)));
    assert_eq!(status, 200, "{body}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["apiVersion"], "admission.k8s.io/v1", "{answer}");
    assert_eq!(answer["kind"], "AdmissionReview", "{answer}");
    assert_eq!(answer["response"]["uid"], uid, "{answer}");
    answer["response"].clone()
}

fn refusal(response: &Value) -> &str {
    assert_eq!(response["allowed"], false, "{response}");
    assert_eq!(response["status"]["code"], 403, "{response}");
    response["status"]["message"].as_str().unwrap()
}

fn health(script: &str) -> Value {
    json!({"healthInterpretation": {"luaScript": script}})
}

#[test]
fn customizations_are_refused_for_what_check_refuses_and_allowed_with_lint_warnings() {
    let dir = crate::support::scratch("admission");
    let file = dir.join("workload.yaml");
    std::fs::write(&file, SERVED).unwrap();
    let file = file.display().to_string();
    let serve = serve_process::start(BIN, "admission", &["--admission", "-f", &file]);

    // A compile error: refused at its script line, in check's words.
    let broken = customization(
        "broken",
        "Gadget",
        health("function InterpretHealth(obj)\n  local ready = obj.status.ready\n  return ready ==\nend\n"),
    );
    let message = refusal(&admit(&serve, "u-compile", &broken)).to_owned();
    assert!(
        message.starts_with(
            "customization \"broken\", rule healthInterpretation (InterpretHealth), script line 4"
        ),
        "{message}"
    );
    assert!(
        message.ends_with(": the script does not compile: near 'end':   syntax error"),
        "{message}"
    );
    assert_says_as_check(&check_messages(&dir, &broken), &message);

    // A missing entry function.
    let missing = customization(
        "missing",
        "Gadget",
        health("function Health(obj)\n  return true\nend\n"),
    );
    let message = refusal(&admit(&serve, "u-missing", &missing)).to_owned();
    assert_eq!(
        message,
        "customization \"missing\", rule healthInterpretation (InterpretHealth), script line 1, column 1: function InterpretHealth is not defined"
    );
    assert_says_as_check(&check_messages(&dir, &missing), &message);

    // A misspelled rule key (Karmada ignores it: the script never runs).
    let typo = customization(
        "typo",
        "Gadget",
        json!({"replicas": {"luaScript": "function GetReplicas(obj)\n  return 1, nil\nend\n"}}),
    );
    let message = refusal(&admit(&serve, "u-typo", &typo)).to_owned();
    assert_eq!(
        message,
        "customization \"typo\": unknown key `replicas` in spec.customizations: not a rule, so its script never runs (did you mean `replicaResource`?)"
    );

    // A second InterpretHealth for the Workload the served file covers.
    let second = customization(
        "workload-health-2",
        "Workload",
        health("function InterpretHealth(obj)\n  return false\nend\n"),
    );
    let message = refusal(&admit(&serve, "u-dup", &second)).to_owned();
    assert!(
        message.contains("conflicting with InterpreterOperation(InterpretHealth) of existing ResourceInterpreterCustomization(workload-health)"),
        "{message}"
    );
    // The served one itself, updated, is no conflict.
    let update = customization(
        "workload-health",
        "Workload",
        health("function InterpretHealth(obj)\n  return false\nend\n"),
    );
    assert_eq!(admit(&serve, "u-update", &update)["allowed"], true);

    // Valid, with what lint finds: allowed, the findings as warnings.
    let valid = customization(
        "valid",
        "Gadget",
        health("function InterpretHealth(obj)\n  return obj.status.ready == true\nend\n"),
    );
    let response = admit(&serve, "u-valid", &valid);
    assert_eq!(response["allowed"], true, "{response}");
    let warnings = response["warnings"].as_array().expect("warnings");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].as_str().unwrap().starts_with(
            "customization \"valid\", rule healthInterpretation (InterpretHealth), script line 2, column 10: warning[unguarded-field]"
        ),
        "{warnings:?}"
    );
    // Clean: allowed with no warning.
    let clean = customization(
        "clean",
        "Gadget",
        health("function InterpretHealth(obj)\n  return obj.spec ~= nil\nend\n"),
    );
    let response = admit(&serve, "u-clean", &clean);
    assert_eq!(
        response,
        json!({"uid": "u-clean", "allowed": true, "status": {}})
    );

    // Every verdict is counted in the metrics, by kind and result.
    let (status, text) = send(&serve, "/metrics", None);
    assert_eq!(status, 200);
    let count = |result: &str| {
        let line = format!("karmada_interpreter_admission_reviews_total{{kind=\"ResourceInterpreterCustomization\",result=\"{result}\"}} ");
        text.lines()
            .find_map(|l| l.strip_prefix(line.as_str()))
            .unwrap_or_else(|| panic!("no {line}in\n{text}"))
            .to_owned()
    };
    assert_eq!(
        [count("denied"), count("warned"), count("allowed")],
        ["4", "1", "2"]
    );
}

/// `check` says what the admission webhook says, at the file position
/// instead of the script's: `customization "x", rule r (Op): problem`.
fn assert_says_as_check(check: &str, admission: &str) {
    let (rule, rest) = admission.split_once(", script line ").unwrap();
    let (_, problem) = rest.split_once(": ").unwrap();
    let expected = format!("{rule}: {problem}");
    assert!(
        check.contains(&expected),
        "check says {check}, admission {admission}"
    );
}

/// What `check` says about `object` (written to a file, as JSON).
fn check_messages(dir: &std::path::Path, object: &Value) -> String {
    let file = dir.join(format!(
        "{}.json",
        object["metadata"]["name"].as_str().unwrap()
    ));
    std::fs::write(&file, serde_json::to_vec(object).unwrap()).unwrap();
    let out = Command::new(BIN)
        .args(["check", "-f"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn webhook_configurations_are_validated_as_karmada_does() {
    let serve = serve_process::start(BIN, "admission-config", &["--admission"]);
    let config = |versions: Value| {
        json!({
            "apiVersion": "config.karmada.io/v1alpha1",
            "kind": "ResourceInterpreterWebhookConfiguration",
            "metadata": {"name": "workloads"},
            "webhooks": [{
                "name": "workloads.example.io",
                "rules": [{"operations": ["InterpretHealth"], "apiGroups": ["workload.example.io"],
                           "apiVersions": ["v1alpha1"], "kinds": ["Workload"]}],
                "clientConfig": {"url": "https://workloads.example.io:8443/interpret"},
                "interpreterContextVersions": versions
            }]
        })
    };
    assert_eq!(
        admit(&serve, "u-ok", &config(json!(["v1alpha1"])))["allowed"],
        true
    );
    let message = refusal(&admit(&serve, "u-bad", &config(json!(["v2"])))).to_owned();
    assert!(
        message.contains("webhooks[0].interpreterContextVersions"),
        "{message}"
    );
}

#[test]
fn malformed_reviews_are_refused_with_a_message_and_admission_is_opt_in() {
    let serve = serve_process::start(BIN, "admission-bad", &["--admission"]);
    let refused = |body: &[u8]| {
        let (status, text) = send(&serve, "/validate", Some(body.to_vec()));
        assert_eq!(status, 200, "{text}");
        let answer: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(answer["response"]["allowed"], false, "{answer}");
        assert_eq!(answer["response"]["status"]["code"], 400, "{answer}");
        answer["response"].clone()
    };
    let r = refused(b"{not json");
    assert!(r["status"]["message"]
        .as_str()
        .unwrap()
        .starts_with("the body is not JSON"));
    let r = refused(br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}"#);
    assert_eq!(r["status"]["message"], "the AdmissionReview has no request");
    // A v1beta1 review names its uid: the refusal answers it.
    let r = refused(br#"{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{"uid":"u-old"}}"#);
    assert_eq!(r["uid"], "u-old");
    assert!(r["status"]["message"]
        .as_str()
        .unwrap()
        .contains("admission.k8s.io/v1"));
    let (status, _) = send(&serve, "/validate", None);
    assert_eq!(status, 405);
    drop(serve);

    // Off by default: nothing at the admission path.
    let plain = serve_process::start(BIN, "admission-off", &[]);
    let object = customization(
        "x",
        "Gadget",
        health("function InterpretHealth(obj) return true end"),
    );
    let (status, _) = send(&plain, "/validate", Some(review("u-off", &object)));
    assert_eq!(status, 404);
}

#[test]
fn print_config_prints_the_validating_webhook_configuration() {
    let dir = crate::support::scratch("print-admission");
    let print = |which: &[&str]| {
        let out = run_ok(
            Command::new(BIN)
                .args(["serve", "--listen", "127.0.0.1:9443", "--cert-dir"])
                .arg(dir.join("certs"))
                .args(["--url", "https://interpreter.example.io:8443/interpret"])
                .args(which),
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let admission: Value = serde_json::from_str(&print(&["--print-config", "admission"])).unwrap();
    assert_eq!(admission["kind"], "ValidatingWebhookConfiguration");
    let hook = &admission["webhooks"][0];
    assert_eq!(
        hook["clientConfig"]["url"],
        "https://interpreter.example.io:8443/validate"
    );
    assert_eq!(hook["admissionReviewVersions"], json!(["v1"]));
    assert_eq!(hook["sideEffects"], "None");
    assert_eq!(
        hook["rules"][0]["resources"],
        json!([
            "resourceinterpretercustomizations",
            "resourceinterpreterwebhookconfigurations"
        ])
    );
    // The default is unchanged: the interpreter's configuration only.
    let default = print(&["--print-config"]);
    let interpreter: Value = serde_json::from_str(&default).unwrap();
    assert_eq!(
        interpreter["kind"],
        "ResourceInterpreterWebhookConfiguration"
    );
    // Both: a YAML stream of the two.
    let all = print(&["--print-config", "all"]);
    let documents: Vec<Value> = all
        .split("---\n")
        .map(|d| serde_json::from_str(d).unwrap())
        .collect();
    assert_eq!(documents, [interpreter, admission]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_deploy_manifest_is_what_print_config_admission_prints() {
    let dir = crate::support::scratch("deploy-admission");
    let out = run_ok(
        Command::new(BIN)
            .args(["serve", "--cert-dir"])
            .arg(dir.join("certs"))
            .args([
                "--service",
                "karmada-interpreter",
                "--service-namespace",
                "karmada-system",
                "--timeout-seconds",
                "10",
                "--print-config",
                "admission",
            ]),
    );
    let mut printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = std::fs::read_to_string(
        std::path::Path::new(crate::support::ROOT).join("deploy/admission.yaml"),
    )
    .unwrap();
    let mut manifest: Value = serde_saphyr::from_str(&text).unwrap();
    // The caBundle is the only difference: the manifest leaves it empty.
    printed["webhooks"][0]["clientConfig"]["caBundle"] = json!("");
    assert_eq!(manifest["webhooks"][0]["clientConfig"]["caBundle"], "");
    manifest["webhooks"][0]["clientConfig"]["caBundle"] = json!("");
    assert_eq!(printed, manifest);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A library user serves the same handler with the SDK's server, beside an
/// interpreter route, comparing with the customizations it knows.
#[test]
fn the_sdk_server_serves_the_admission_handler_beside_the_interpreter() {
    use karmada_interpreter::admission::ConfigurationAdmission;
    use karmada_interpreter::webhook::sdk::InterpreterHandler;
    use karmada_interpreter::webhook::server::Server;
    use karmada_interpreter::webhook::tls::TlsIdentity;

    let known = Customization::new("first", "workload.example.io/v1alpha1", "Gadget")
        .script(
            karmada_interpreter::api::InterpreterOperation::InterpretHealth,
            "function InterpretHealth(obj)\n  return true\nend\n",
        )
        .typed();
    let identity = TlsIdentity::self_signed(&["127.0.0.1"]).unwrap();
    let ca = identity.cert_pem.clone();
    let handler = ConfigurationAdmission::new()
        .unwrap()
        .knowing(move || vec![known.clone()]);
    let running = Server::new(identity)
        .route(
            "/interpret",
            InterpreterHandler::new(karmada_interpreter::Interpreter::default()),
        )
        .admission("/validate", handler)
        .start("127.0.0.1:0".parse().unwrap())
        .unwrap();
    let addr = running.local_addr();
    let second = customization(
        "second",
        "Gadget",
        health("function InterpretHealth(obj)\n  return false\nend\n"),
    );
    let (status, body) = runtime().block_on(async {
        let send = connect(addr, &ca).await;
        call(
            send,
            addr.port(),
            "/validate",
            Some(review("u-sdk", &second)),
        )
        .await
    });
    assert_eq!(status, 200, "{body}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["response"]["uid"], "u-sdk");
    assert!(
        refusal(&answer["response"]).contains("ResourceInterpreterCustomization(first)"),
        "{answer}"
    );
    // The interpreter route answers beside it.
    let envelope = serde_json::to_vec(&json!({"request": {
        "uid": "u-replicas", "operation": "InterpretReplica",
        "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
        "object": {"apiVersion": "apps/v1", "kind": "Deployment",
                   "metadata": {"name": "web"}, "spec": {"replicas": 4}}}}))
    .unwrap();
    let (status, body) = runtime().block_on(async {
        let send = connect(addr, &ca).await;
        call(send, addr.port(), "/interpret", Some(envelope)).await
    });
    assert_eq!(status, 200);
    assert!(body.contains(r#""replicas":4"#), "{body}");
    running.stop();
}
