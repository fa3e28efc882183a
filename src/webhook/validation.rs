//! Validation with Karmada's messages: `ResourceInterpreterWebhookConfiguration`
//! admission (`webhook-and-cli.md` §2.2) and the dependency check the client
//! applies to `InterpretDependency` answers (§2.7 row 5).
//!
//! Messages use the Kubernetes field-error form
//! (`webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be
//! between 1 and 30 seconds`); several errors aggregate as `[e1, e2]` with
//! identical messages collapsed.

use std::fmt;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use crate::api::{
    DependentObjectReference, ResourceInterpreterWebhook, ResourceInterpreterWebhookConfiguration,
    RuleWithOperations,
};

/// The kind of a field error, spelled as Kubernetes spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldErrorType {
    /// `Required value`
    Required,
    /// `Invalid value`
    Invalid,
    /// `Duplicate value`
    Duplicate,
    /// `Unsupported value`
    NotSupported,
    /// `Forbidden`
    Forbidden,
}

impl FieldErrorType {
    fn as_str(self) -> &'static str {
        match self {
            Self::Required => "Required value",
            Self::Invalid => "Invalid value",
            Self::Duplicate => "Duplicate value",
            Self::NotSupported => "Unsupported value",
            Self::Forbidden => "Forbidden",
        }
    }
}

/// One field error: path, type, the offending value (already rendered as Go
/// renders it) and a detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// Field path such as `webhooks[0].rules[1].operations[2]`.
    pub field: String,
    /// The error type.
    pub kind: FieldErrorType,
    /// The bad value as rendered in the message (`None` for required/forbidden).
    pub value: Option<String>,
    /// Explanation (may be empty).
    pub detail: String,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.kind.as_str())?;
        if let Some(v) = &self.value {
            write!(f, ": {v}")?;
        }
        if !self.detail.is_empty() {
            write!(f, ": {}", self.detail)?;
        }
        Ok(())
    }
}

/// A non-empty list of field errors, displayed as Kubernetes aggregates them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationErrors(pub Vec<FieldError>);

impl fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut seen: Vec<String> = Vec::new();
        for e in &self.0 {
            let s = e.to_string();
            if !seen.contains(&s) {
                seen.push(s);
            }
        }
        if seen.len() == 1 {
            f.write_str(&seen[0])
        } else {
            write!(f, "[{}]", seen.join(", "))
        }
    }
}

impl std::error::Error for ValidationErrors {}

fn quote(s: &str) -> String {
    // Go's %q; serde_json's escaping agrees for everything printable.
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

fn go_list(type_name: &str, items: &[String]) -> String {
    let inner: Vec<String> = items.iter().map(|s| quote(s)).collect();
    format!("[]{type_name}{{{}}}", inner.join(", "))
}

struct Errors(Vec<FieldError>);

impl Errors {
    fn push(&mut self, field: String, kind: FieldErrorType, value: Option<String>, detail: &str) {
        self.0.push(FieldError {
            field,
            kind,
            value,
            detail: detail.to_owned(),
        });
    }
    fn required(&mut self, field: String, detail: &str) {
        self.push(field, FieldErrorType::Required, None, detail);
    }
    fn invalid(&mut self, field: String, value: String, detail: &str) {
        self.push(field, FieldErrorType::Invalid, Some(value), detail);
    }
}

/// Operations a rule may name (sorted as Go's `sets.String.List()` returns them).
const SUPPORTED_OPERATIONS: [&str; 9] = [
    "*",
    "AggregateStatus",
    "InterpretComponent",
    "InterpretDependency",
    "InterpretHealth",
    "InterpretReplica",
    "InterpretStatus",
    "Retain",
    "ReviseReplica",
];

/// Envelope versions this client speaks.
pub const ACCEPTED_CONTEXT_VERSIONS: [&str; 1] = ["v1alpha1"];

/// Validates a configuration as Karmada's admission webhook does (§2.2):
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
    let mut errs = Errors(Vec::new());
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
    if errs.0.is_empty() {
        Ok(())
    } else {
        Err(ValidationErrors(errs.0))
    }
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

fn fully_qualified_name(path: &str, name: &str, errs: &mut Errors) {
    if name.is_empty() {
        errs.required(path.to_owned(), "");
        return;
    }
    let name = name.strip_suffix('.').unwrap_or(name);
    let sub = dns1123_subdomain(name);
    if !sub.is_empty() {
        errs.invalid(path.to_owned(), quote(name), &sub.join(","));
        return;
    }
    if name.split('.').count() < 2 {
        errs.invalid(
            path.to_owned(),
            quote(name),
            "should be a domain with at least two segments separated by dots",
        );
        return;
    }
    for label in name.split('.') {
        let e = dns1123_label(label);
        if !e.is_empty() {
            errs.invalid(path.to_owned(), quote(label), &e.join(","));
            return;
        }
    }
}

fn lower_alnum(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
fn is_1123_label(s: &str) -> bool {
    !s.is_empty()
        && s.chars().next().is_some_and(lower_alnum)
        && s.chars().last().is_some_and(lower_alnum)
        && s.chars().all(|c| lower_alnum(c) || c == '-')
}

/// Kubernetes `IsDNS1123Label` messages.
pub(crate) fn dns1123_label(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    if s.len() > 63 {
        out.push("must be no more than 63 characters".to_owned());
    }
    if !is_1123_label(s) {
        out.push("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')".to_owned());
    }
    out
}

/// Kubernetes `IsDNS1123Subdomain` messages.
pub(crate) fn dns1123_subdomain(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    if s.len() > 253 {
        out.push("must be no more than 253 characters".to_owned());
    }
    if !s.split('.').all(is_1123_label) {
        out.push("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')".to_owned());
    }
    out
}

/// Kubernetes `IsDNS1035Label` messages.
fn dns1035_label(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    if s.len() > 63 {
        out.push("must be no more than 63 characters".to_owned());
    }
    let ok = s.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && s.chars().last().is_some_and(lower_alnum)
        && s.chars().all(|c| lower_alnum(c) || c == '-');
    if !ok {
        out.push("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')".to_owned());
    }
    out
}

fn alnum(c: char) -> bool {
    c.is_ascii_alphanumeric()
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`
fn is_qualified_part(s: &str) -> bool {
    !s.is_empty()
        && s.chars().next().is_some_and(alnum)
        && s.chars().last().is_some_and(alnum)
        && s.chars().all(|c| alnum(c) || matches!(c, '-' | '_' | '.'))
}

const QUALIFIED_NAME_FMT: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/// Kubernetes `IsQualifiedName` messages.
fn qualified_name(value: &str) -> Vec<String> {
    let parts: Vec<&str> = value.split('/').collect();
    let example = "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    let (prefix, name) = match parts.as_slice() {
        [name] => (None, *name),
        [prefix, name] => (Some(*prefix), *name),
        _ => {
            return vec![format!(
                "a qualified name {QUALIFIED_NAME_FMT} {example} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
            )]
        }
    };
    let mut out = Vec::new();
    if let Some(prefix) = prefix {
        if prefix.is_empty() {
            out.push("prefix part must be non-empty".to_owned());
        } else {
            out.extend(
                dns1123_subdomain(prefix)
                    .into_iter()
                    .map(|m| format!("prefix part {m}")),
            );
        }
    }
    if name.is_empty() {
        out.push("name part must be non-empty".to_owned());
    } else if name.len() > 63 {
        out.push("name part must be no more than 63 characters".to_owned());
    }
    if !name.is_empty() && !is_qualified_part(name) {
        out.push(format!("name part {QUALIFIED_NAME_FMT} {example}"));
    }
    out
}

/// Kubernetes `IsValidLabelValue` messages.
fn label_value(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    if value.len() > 63 {
        out.push("must be no more than 63 characters".to_owned());
    }
    if !value.is_empty() && !is_qualified_part(value) {
        out.push("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')".to_owned());
    }
    out
}

fn validate_label_selector(sel: &LabelSelector, path: &str, errs: &mut Errors) {
    for (i, req) in sel.match_expressions.iter().flatten().enumerate() {
        let p = format!("{path}.matchExpressions[{i}]");
        let values = req.values.as_deref().unwrap_or_default();
        match req.operator.as_str() {
            "In" | "NotIn" => {
                if values.is_empty() {
                    errs.required(
                        format!("{p}.values"),
                        "must be specified when `operator` is 'In' or 'NotIn'",
                    );
                }
            }
            "Exists" | "DoesNotExist" => {
                if !values.is_empty() {
                    errs.push(
                        format!("{p}.values"),
                        FieldErrorType::Forbidden,
                        None,
                        "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                    );
                }
            }
            other => errs.invalid(
                format!("{p}.operator"),
                quote(other),
                "not a valid selector operator",
            ),
        }
        for msg in qualified_name(&req.key) {
            errs.invalid(format!("{p}.key"), quote(&req.key), &msg);
        }
        for (j, v) in values.iter().enumerate() {
            for msg in label_value(v) {
                errs.invalid(format!("{p}.values[{j}]"), quote(v), &msg);
            }
        }
    }
    for (k, v) in sel.match_labels.iter().flatten() {
        let p = format!("{path}.matchLabels");
        for msg in qualified_name(k) {
            errs.invalid(p.clone(), quote(k), &msg);
        }
        for msg in label_value(v) {
            errs.invalid(p.clone(), quote(v), &msg);
        }
    }
}

/// Karmada's check of `InterpretDependency` results: apiVersion and kind
/// required, name or labelSelector required, label selectors valid.
///
/// ```
/// use karmada_interpreter::api::DependentObjectReference;
/// use karmada_interpreter::webhook::validate_dependencies;
///
/// let bad = DependentObjectReference::named("v1", "", "shop", "settings");
/// assert_eq!(
///     validate_dependencies(&[bad]).unwrap_err().to_string(),
///     r#"dependencies[0].kind: Invalid value: "": missing required kind"#
/// );
/// ```
pub fn validate_dependencies(deps: &[DependentObjectReference]) -> Result<(), ValidationErrors> {
    let mut errs = Errors(Vec::new());
    for (i, dep) in deps.iter().enumerate() {
        let path = format!("dependencies[{i}]");
        if dep.api_version.is_empty() {
            errs.invalid(
                format!("{path}.apiVersion"),
                quote(""),
                "missing required apiVersion",
            );
        }
        if dep.kind.is_empty() {
            errs.invalid(format!("{path}.kind"), quote(""), "missing required kind");
        }
        if dep.name.is_empty() && dep.label_selector.is_none() {
            let json = serde_json::to_string(dep).unwrap_or_default();
            errs.invalid(
                path.clone(),
                json,
                "dependency can not leave name and labelSelector all empty",
            );
        }
        if let Some(sel) = &dep.label_selector {
            validate_label_selector(sel, &format!("{path}.labelSelector"), &mut errs);
        }
    }
    if errs.0.is_empty() {
        Ok(())
    } else {
        Err(ValidationErrors(errs.0))
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
    #[case(json!({"rules": [{"operations": ["Prune"], "apiGroups": ["*"], "apiVersions": ["*"], "kinds": ["*"]}]}), "webhooks[0].rules[0].operations[0]: Unsupported value: \"Prune\": supported values: \"*\", \"AggregateStatus\", \"InterpretComponent\", \"InterpretDependency\", \"InterpretHealth\", \"InterpretReplica\", \"InterpretStatus\", \"Retain\", \"ReviseReplica\"")]
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

    #[test]
    fn dependency_validation() {
        let deps: Vec<DependentObjectReference> = serde_json::from_value(json!([
            {"apiVersion": "v1", "kind": "ConfigMap", "namespace": "n"},
            {"apiVersion": "", "kind": "Secret", "labelSelector": {"matchExpressions": [{"key": "app", "operator": "In"}]}},
            {"apiVersion": "v1", "kind": "Secret", "labelSelector": {"matchLabels": {"app": "checkout"}}},
        ]))
        .unwrap();
        let m = validate_dependencies(&deps).unwrap_err().to_string();
        assert_eq!(m, "[dependencies[0]: Invalid value: {\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"namespace\":\"n\"}: dependency can not leave name and labelSelector all empty, dependencies[1].apiVersion: Invalid value: \"\": missing required apiVersion, dependencies[1].labelSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn']");
        assert!(validate_dependencies(&deps[2..]).is_ok());
    }
}
