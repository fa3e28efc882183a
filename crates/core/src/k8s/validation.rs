//! Kubernetes validation rules, written once for every layer: names (DNS-1123
//! labels and subdomains, DNS-1035 labels, qualified names, label values,
//! fully qualified domain names), label selectors and dependency lists.
//!
//! Each rule comes in Kubernetes' message form (a list of field errors,
//! displayed as `field: Invalid value: "x": detail`, several aggregated as
//! `[e1, e2]` with identical messages collapsed) and, where a hot path only
//! needs a yes/no answer, as an `is_…` predicate that is the message form
//! being empty (no allocation on success).
//!
//! Karmada checks the dependency lists of every layer (built-in handlers,
//! Lua scripts, webhook answers) with the same function; here that is
//! [`validate_dependencies`].

use std::fmt;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use crate::api::DependentObjectReference;

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

/// Go's `%q` of a string.
pub fn quote(s: &str) -> String {
    // Go's %q; serde_json's escaping agrees for everything printable.
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

/// Go's `%#v` of a string slice (`[]string{"a", "b"}`).
pub fn go_list(type_name: &str, items: &[String]) -> String {
    let inner: Vec<String> = items.iter().map(|s| quote(s)).collect();
    format!("[]{type_name}{{{}}}", inner.join(", "))
}

/// Field errors collected by a validation, in order.
#[derive(Default)]
pub struct Errors(Vec<FieldError>);

impl Errors {
    /// Whether no error was collected.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The collected errors, as one error listing them (or `Ok` when none).
    pub fn into_result(self) -> Result<(), ValidationErrors> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(ValidationErrors(self.0))
        }
    }

    /// Adds an error of `kind` at `field`.
    pub fn push(
        &mut self,
        field: String,
        kind: FieldErrorType,
        value: Option<String>,
        detail: &str,
    ) {
        self.0.push(FieldError {
            field,
            kind,
            value,
            detail: detail.to_owned(),
        });
    }
    /// Adds a `Required value` error at `field`.
    pub fn required(&mut self, field: String, detail: &str) {
        self.push(field, FieldErrorType::Required, None, detail);
    }
    /// Adds an `Invalid value` error at `field` for `value`.
    pub fn invalid(&mut self, field: String, value: String, detail: &str) {
        self.push(field, FieldErrorType::Invalid, Some(value), detail);
    }
}

/// Kubernetes `IsFullyQualifiedName`: a DNS-1123 subdomain of at least two
/// segments (a trailing dot allowed).
pub fn fully_qualified_name(path: &str, name: &str, errs: &mut Errors) {
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
pub fn dns1123_subdomain(s: &str) -> Vec<String> {
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
pub fn dns1035_label(s: &str) -> Vec<String> {
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

/// Kubernetes `IsQualifiedName` messages: `[prefix/]name`, the prefix a
/// DNS-1123 subdomain, the name at most 63 characters of `[-A-Za-z0-9_.]`
/// starting and ending alphanumeric.
pub(crate) fn qualified_name(value: &str) -> Vec<String> {
    let example = "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    let (prefix, name) = match value.split_once('/') {
        None => (None, value),
        Some((prefix, name)) if !name.contains('/') => (Some(prefix), name),
        Some(_) => {
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

/// Whether [`qualified_name`] finds nothing wrong.
pub(crate) fn is_qualified_name(value: &str) -> bool {
    qualified_name(value).is_empty()
}

/// Whether [`dns1123_subdomain`] finds nothing wrong.
pub(crate) fn is_dns1123_subdomain(value: &str) -> bool {
    dns1123_subdomain(value).is_empty()
}

/// Kubernetes `IsValidLabelValue` messages.
pub(crate) fn label_value(value: &str) -> Vec<String> {
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
/// use karmada_interpreter::k8s::validation::validate_dependencies;
///
/// let bad = DependentObjectReference::named("v1", "", "shop", "settings");
/// assert_eq!(
///     validate_dependencies(&[bad]).unwrap_err().to_string(),
///     r#"dependencies[0].kind: Invalid value: "": missing required kind"#
/// );
/// ```
pub fn validate_dependencies(deps: &[DependentObjectReference]) -> Result<(), ValidationErrors> {
    let mut errs = Errors::default();
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

/// What is wrong with a target as people name one for a customization:
/// `api_version` is `group/version` (a DNS-1123 subdomain and a DNS-1035
/// label) or a core-group `version`, `kind` a CamelCase name. Empty when
/// nothing is.
///
/// ```
/// use karmada_interpreter::k8s::validation::target_problems;
/// assert!(target_problems("example.io/v1", "Widget").is_empty());
/// assert!(target_problems("v1", "ConfigMap").is_empty());
/// assert!(!target_problems("example.io", "Widget").is_empty());
/// assert!(!target_problems("example.io/v1", "widget").is_empty());
/// ```
pub fn target_problems(api_version: &str, kind: &str) -> Vec<String> {
    let mut out = Vec::new();
    match api_version.split_once('/') {
        None if api_version.contains('.') => out.push(format!(
            "apiVersion {api_version:?} names no version: write `group/version`, e.g. `{api_version}/v1`"
        )),
        None => {
            for problem in dns1035_label(api_version) {
                out.push(format!("apiVersion {api_version:?}: version: {problem}"));
            }
        }
        Some((group, version)) => {
            for problem in dns1123_subdomain(group) {
                out.push(format!("apiVersion {api_version:?}: group: {problem}"));
            }
            for problem in dns1035_label(version) {
                out.push(format!("apiVersion {api_version:?}: version: {problem}"));
            }
        }
    }
    let camel = kind.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && kind.chars().all(|c| c.is_ascii_alphanumeric());
    if !camel {
        out.push(format!(
            "kind {kind:?} must start with an upper-case letter and hold only letters and digits, e.g. `Widget`"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;
    use serde_json::json;

    #[rstest]
    #[case("app", true)]
    #[case("example.com/app", true)]
    #[case("Example.com/app", false)]
    #[case("/app", false)]
    #[case("a/b/c", false)]
    #[case("-app", false)]
    #[case("app_1.x", true)]
    #[case("", false)]
    fn qualified_names(#[case] name: &str, #[case] ok: bool) {
        assert_eq!(is_qualified_name(name), ok, "{:?}", qualified_name(name));
        assert_eq!(qualified_name(name).is_empty(), ok);
    }

    #[rstest]
    #[case("", true)]
    #[case("derived-", false)]
    #[case("My_Value.1", true)]
    fn label_values(#[case] value: &str, #[case] ok: bool) {
        assert_eq!(label_value(value).is_empty(), ok);
        assert!(!label_value(&"a".repeat(64)).is_empty());
    }

    #[rstest]
    #[case("example.com", true)]
    #[case("a..b", false)]
    #[case("Upper.com", false)]
    #[case("", false)]
    fn subdomains(#[case] value: &str, #[case] ok: bool) {
        assert_eq!(is_dns1123_subdomain(value), ok);
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
