//! Validation with Karmada's messages: `ResourceInterpreterWebhookConfiguration`
//! admission and the dependency check the client applies to
//! `InterpretDependency` answers.
//!
//! Messages use the Kubernetes field-error form
//! (`webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be
//! between 1 and 30 seconds`); several errors aggregate as `[e1, e2]` with
//! identical messages collapsed.

use karmada_interpreter_core::api::{
    ResourceInterpreterWebhook, ResourceInterpreterWebhookConfiguration, RuleWithOperations,
};
use karmada_interpreter_core::k8s::validation::{
    dns1035_label, dns1123_subdomain, fully_qualified_name, go_list, quote, Errors,
};
pub use karmada_interpreter_core::k8s::validation::{
    validate_dependencies, FieldError, FieldErrorType, ValidationErrors,
};

/// Operations a rule may name (sorted as Go's `sets.String.List()` returns them).
/// With the `karmada-next` feature, `ReviseComponents` too (Karmada's pull
/// request #7830 adds it to the admission webhook's list).
const SUPPORTED_OPERATIONS: &[&str] = &[
    "*",
    "AggregateStatus",
    "InterpretComponent",
    "InterpretDependency",
    "InterpretHealth",
    "InterpretReplica",
    "InterpretStatus",
    "Retain",
    #[cfg(feature = "karmada-next")]
    "ReviseComponents",
    "ReviseReplica",
];

/// Envelope versions this client speaks.
pub const ACCEPTED_CONTEXT_VERSIONS: [&str; 1] = ["v1alpha1"];

/// Validates a configuration as Karmada's admission webhook does:
/// every webhook entry is checked and all errors are collected.
///
/// ```
/// use karmada_interpreter::webhook::validate;
///
/// let config = karmada_interpreter::load::webhook_configurations_from_str(r#"
/// apiVersion: config.karmada.io/v1alpha1
/// kind: ResourceInterpreterWebhookConfiguration
/// metadata: {name: shop}
/// webhooks:
///   - name: workloads.example.io
///     clientConfig: {url: "https://127.0.0.1:8443/interpret"}
///     interpreterContextVersions: ["v1alpha1"]
///     timeoutSeconds: 31
/// "#, "inline").unwrap().remove(0);
/// assert_eq!(
///     validate(&config).unwrap_err().to_string(),
///     "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds"
/// );
/// ```
pub fn validate(config: &ResourceInterpreterWebhookConfiguration) -> Result<(), ValidationErrors> {
    let mut errs = Errors::default();
    let mut names: Vec<&str> = Vec::new();
    for (i, hook) in config.webhooks.iter().enumerate() {
        let path = format!("webhooks[{i}]");
        validate_webhook(hook, &path, &mut errs);
        if names.contains(&hook.name.as_str()) {
            errs.push(
                format!("{path}.name"),
                FieldErrorType::Duplicate,
                Some(quote(&hook.name)),
                "",
            );
            continue;
        }
        names.push(&hook.name);
    }
    errs.into_result()
}

fn validate_webhook(hook: &ResourceInterpreterWebhook, path: &str, errs: &mut Errors) {
    fully_qualified_name(&format!("{path}.name"), &hook.name, errs);
    for (j, rule) in hook.rules.iter().enumerate() {
        validate_rule(rule, &format!("{path}.rules[{j}]"), errs);
    }
    if let Some(t) = hook.timeout_seconds {
        if !(1..=30).contains(&t) {
            errs.invalid(
                format!("{path}.timeoutSeconds"),
                t.to_string(),
                "the timeout value must be between 1 and 30 seconds",
            );
        }
    }
    let cc = &hook.client_config;
    match (&cc.url, &cc.service) {
        (Some(_), Some(_)) | (None, None) => errs.required(
            format!("{path}.clientConfig"),
            "exactly one of url or service is required",
        ),
        (Some(url), None) => validate_url(&format!("{path}.clientConfig.url"), url, errs),
        (None, Some(svc)) => validate_service(
            &format!("{path}.clientConfig.service"),
            &svc.namespace,
            &svc.name,
            svc.path.as_deref(),
            svc.port.unwrap_or(443),
            errs,
        ),
    }
    validate_versions(
        &hook.interpreter_context_versions,
        &format!("{path}.interpreterContextVersions"),
        errs,
    );
}

fn validate_rule(rule: &RuleWithOperations, path: &str, errs: &mut Errors) {
    let ops = &rule.operations;
    if ops.is_empty() {
        errs.required(format!("{path}.operations"), "");
    }
    if ops.len() > 1 && ops.iter().any(|o| o == "*") {
        errs.invalid(
            format!("{path}.operations"),
            go_list("v1alpha1.InterpreterOperation", ops),
            "if '*' is present, must not specify other operations",
        );
    }
    for (i, op) in ops.iter().enumerate() {
        if !SUPPORTED_OPERATIONS.contains(&op.as_str()) {
            let supported: Vec<String> = SUPPORTED_OPERATIONS.iter().map(|s| quote(s)).collect();
            errs.push(
                format!("{path}.operations[{i}]"),
                FieldErrorType::NotSupported,
                Some(quote(op)),
                &format!("supported values: {}", supported.join(", ")),
            );
        }
    }
    let lists: [(&str, &Vec<String>, &str, bool); 3] = [
        ("apiGroups", &rule.api_groups, "API groups", false),
        ("apiVersions", &rule.api_versions, "API versions", true),
        ("kinds", &rule.kinds, "kinds", true),
    ];
    for (member, list, what, no_empty) in lists {
        if list.is_empty() {
            errs.required(format!("{path}.{member}"), "");
        }
        if list.len() > 1 && list.iter().any(|e| e == "*") {
            errs.invalid(
                format!("{path}.{member}"),
                go_list("string", list),
                &format!("if '*' is present, must not specify other {what}"),
            );
        }
        if no_empty {
            for (i, e) in list.iter().enumerate() {
                if e.is_empty() {
                    errs.required(format!("{path}.{member}[{i}]"), "");
                }
            }
        }
    }
}

fn validate_url(path: &str, url: &str, errs: &mut Errors) {
    const FORM: &str = "; desired format: https://host[/path]";
    let u = super::endpoint::ParsedUrl::parse(url);
    // Go's url.Parse rejects a non-numeric port.
    if let Some((_, port)) = u.host.rsplit_once(':').filter(|_| !u.host.ends_with(']')) {
        if !port.chars().all(|c| c.is_ascii_digit()) {
            errs.required(
                path.to_owned(),
                &format!(
                    "url must be a valid URL: parse {}: invalid port {} after host{FORM}",
                    quote(url),
                    quote(&format!(":{port}"))
                ),
            );
            return;
        }
    }
    if u.scheme != "https" {
        errs.invalid(
            path.to_owned(),
            quote(&u.scheme),
            &format!("'https' is the only allowed URL scheme{FORM}"),
        );
    }
    if u.host.is_empty() {
        errs.invalid(
            path.to_owned(),
            quote(&u.host),
            &format!("host must be specified{FORM}"),
        );
    }
    if let Some(user) = &u.user {
        errs.invalid(
            path.to_owned(),
            quote(user),
            "user information is not permitted in the URL",
        );
    }
    if !u.fragment.is_empty() {
        errs.invalid(
            path.to_owned(),
            quote(&u.fragment),
            "fragments are not permitted in the URL",
        );
    }
    if !u.query.is_empty() {
        errs.invalid(
            path.to_owned(),
            quote(&u.query),
            "query parameters are not permitted in the URL",
        );
    }
}

fn validate_service(
    path: &str,
    namespace: &str,
    name: &str,
    url_path: Option<&str>,
    port: i32,
    errs: &mut Errors,
) {
    if name.is_empty() {
        errs.required(format!("{path}.name"), "service name is required");
    }
    if namespace.is_empty() {
        errs.required(format!("{path}.namespace"), "service namespace is required");
    }
    if !(1..=65535).contains(&port) {
        errs.invalid(
            format!("{path}.port"),
            port.to_string(),
            "port is not valid: must be between 1 and 65535, inclusive",
        );
    }
    let Some(p) = url_path else { return };
    if p.is_empty() || p == "/" {
        return;
    }
    let field = format!("{path}.path");
    if p == "//" {
        errs.invalid(field, quote(p), "segment[0] may not be empty");
        return;
    }
    if !p.starts_with('/') {
        errs.invalid(field.clone(), quote(p), "must start with a '/'");
    }
    let mut rest = p.get(1..).unwrap_or("");
    if let Some(stripped) = rest.strip_suffix('/') {
        rest = stripped;
    }
    for (i, step) in rest.split('/').enumerate() {
        if step.is_empty() {
            errs.invalid(
                field.clone(),
                quote(p),
                &format!("segment[{i}] may not be empty"),
            );
            continue;
        }
        for failure in dns1123_subdomain(step) {
            errs.invalid(field.clone(), quote(p), &format!("segment[{i}]: {failure}"));
        }
    }
}

fn validate_versions(versions: &[String], path: &str, errs: &mut Errors) {
    let accepted = ACCEPTED_CONTEXT_VERSIONS.join(", ");
    if versions.is_empty() {
        errs.required(path.to_owned(), &format!("must specify one of {accepted}"));
    }
    let mut visited: Vec<&str> = Vec::new();
    let mut has_accepted = false;
    for (i, v) in versions.iter().enumerate() {
        if visited.contains(&v.as_str()) {
            errs.invalid(format!("{path}[{i}]"), quote(v), "duplicate version");
            continue;
        }
        visited.push(v);
        for msg in dns1035_label(v) {
            errs.invalid(format!("{path}[{i}]"), quote(v), &msg);
        }
        if ACCEPTED_CONTEXT_VERSIONS.contains(&v.as_str()) {
            has_accepted = true;
        }
    }
    if !has_accepted {
        errs.invalid(
            path.to_owned(),
            go_list("string", versions),
            &format!("must include at least one of {accepted}"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;
    use serde_json::json;

    fn config(hooks: serde_json::Value) -> ResourceInterpreterWebhookConfiguration {
        serde_json::from_value(json!({"metadata": {"name": "c"}, "webhooks": hooks})).unwrap()
    }

    fn hook(extra: serde_json::Value) -> serde_json::Value {
        let mut base = json!({
            "name": "workloads.example.io",
            "clientConfig": {"url": "https://127.0.0.1:8443/x"},
            "interpreterContextVersions": ["v1alpha1"],
            "rules": [{"operations": ["*"], "apiGroups": [""], "apiVersions": ["v1"], "kinds": ["Pod"]}],
        });
        for (k, v) in extra.as_object().unwrap() {
            base[k] = v.clone();
        }
        base
    }

    fn message(extra: serde_json::Value) -> String {
        match validate(&config(json!([hook(extra)]))) {
            Ok(()) => "ok".into(),
            Err(e) => e.to_string(),
        }
    }

    #[rstest]
    #[case(json!({}), "ok")]
    #[case(json!({"name": ""}), "webhooks[0].name: Required value")]
    #[case(json!({"name": "single"}), "webhooks[0].name: Invalid value: \"single\": should be a domain with at least two segments separated by dots")]
    #[case(json!({"name": "a.b."}), "ok")]
    #[case(json!({"timeoutSeconds": 0}), "webhooks[0].timeoutSeconds: Invalid value: 0: the timeout value must be between 1 and 30 seconds")]
    #[case(json!({"clientConfig": {}}), "webhooks[0].clientConfig: Required value: exactly one of url or service is required")]
    #[case(json!({"clientConfig": {"url": "http://h/x"}}), "webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]")]
    #[case(json!({"clientConfig": {"url": "https://h/x?a=b"}}), "webhooks[0].clientConfig.url: Invalid value: \"a=b\": query parameters are not permitted in the URL")]
    #[case(json!({"clientConfig": {"url": "https://u:p@h/x"}}), "webhooks[0].clientConfig.url: Invalid value: \"u:p\": user information is not permitted in the URL")]
    #[case(json!({"clientConfig": {"url": "https://h:abc/x"}}), "webhooks[0].clientConfig.url: Required value: url must be a valid URL: parse \"https://h:abc/x\": invalid port \":abc\" after host; desired format: https://host[/path]")]
    #[case(json!({"clientConfig": {"url": "https://[::1]:8443/x"}}), "ok")]
    #[case(json!({"clientConfig": {"url": "https://h/x#f"}}), "webhooks[0].clientConfig.url: Invalid value: \"f\": fragments are not permitted in the URL")]
    #[case(json!({"clientConfig": {"service": {"name": "s", "namespace": "n", "port": 0}}}), "webhooks[0].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive")]
    #[case(json!({"clientConfig": {"service": {"name": "s", "namespace": "n", "path": "//"}}}), "webhooks[0].clientConfig.service.path: Invalid value: \"//\": segment[0] may not be empty")]
    #[case(json!({"clientConfig": {"service": {"name": "s", "namespace": "n", "path": "/interpret/workload/"}}}), "ok")]
    #[case(json!({"interpreterContextVersions": ["v1alpha1", "v1alpha1"]}), "webhooks[0].interpreterContextVersions[1]: Invalid value: \"v1alpha1\": duplicate version")]
    #[case(json!({"interpreterContextVersions": ["v1beta9"]}), "webhooks[0].interpreterContextVersions: Invalid value: []string{\"v1beta9\"}: must include at least one of v1alpha1")]
    #[cfg_attr(not(feature = "karmada-next"), case(json!({"rules": [{"operations": ["Prune"], "apiGroups": ["*"], "apiVersions": ["*"], "kinds": ["*"]}]}), "webhooks[0].rules[0].operations[0]: Unsupported value: \"Prune\": supported values: \"*\", \"AggregateStatus\", \"InterpretComponent\", \"InterpretDependency\", \"InterpretHealth\", \"InterpretReplica\", \"InterpretStatus\", \"Retain\", \"ReviseReplica\""))]
    #[cfg_attr(feature = "karmada-next", case(json!({"rules": [{"operations": ["Prune"], "apiGroups": ["*"], "apiVersions": ["*"], "kinds": ["*"]}]}), "webhooks[0].rules[0].operations[0]: Unsupported value: \"Prune\": supported values: \"*\", \"AggregateStatus\", \"InterpretComponent\", \"InterpretDependency\", \"InterpretHealth\", \"InterpretReplica\", \"InterpretStatus\", \"Retain\", \"ReviseComponents\", \"ReviseReplica\""))]
    #[case(json!({"rules": [{"operations": ["*", "Retain"], "apiGroups": [""], "apiVersions": ["v1"], "kinds": ["Pod"]}]}), "webhooks[0].rules[0].operations: Invalid value: []v1alpha1.InterpreterOperation{\"*\", \"Retain\"}: if '*' is present, must not specify other operations")]
    #[case(json!({"rules": [{"operations": ["Retain"], "apiGroups": [], "apiVersions": [""], "kinds": ["*", "Pod"]}]}), "[webhooks[0].rules[0].apiGroups: Required value, webhooks[0].rules[0].apiVersions[0]: Required value, webhooks[0].rules[0].kinds: Invalid value: []string{\"*\", \"Pod\"}: if '*' is present, must not specify other kinds]")]
    fn configuration_validation(#[case] extra: serde_json::Value, #[case] expected: &str) {
        assert_eq!(message(extra), expected);
    }

    #[test]
    fn service_path_segments_must_be_lowercase_subdomains() {
        let m = message(
            json!({"clientConfig": {"service": {"name": "s", "namespace": "n", "path": "/Interpret_Workload"}}}),
        );
        assert!(
            m.starts_with("webhooks[0].clientConfig.service.path: Invalid value: \"/Interpret_Workload\": segment[0]: a lowercase RFC 1123 subdomain"),
            "{m}"
        );
    }

    #[test]
    fn duplicate_names_and_empty_versions() {
        let c = config(json!([
            hook(json!({})),
            hook(json!({"interpreterContextVersions": []}))
        ]));
        let m = validate(&c).unwrap_err().to_string();
        assert_eq!(m, "[webhooks[1].interpreterContextVersions: Required value: must specify one of v1alpha1, webhooks[1].interpreterContextVersions: Invalid value: []string{}: must include at least one of v1alpha1, webhooks[1].name: Duplicate value: \"workloads.example.io\"]");
    }
}
