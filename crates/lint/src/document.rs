//! The document level of `lint`: the keys of a customization, with their
//! lines, and where each script's text sits in the file.
//!
//! Karmada (and the project's loader) ignore keys they do not know, so a
//! misspelled rule (`replicas:` for `replicaResource:`) or a rule put outside
//! `spec.customizations` silently never runs. This module reads each
//! document again with source locations (serde-saphyr's `Spanned`) and
//! reports such keys.

use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_saphyr::Spanned;

use super::{Finding, Rule};
use karmada_interpreter_core::api::InterpreterOperation;

/// A YAML node with the locations of its keys and values.
#[derive(Debug)]
enum Node {
    Map(Vec<(Spanned<String>, Spanned<Node>)>),
    Str(String),
    Other,
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NodeVisitor;
        impl<'de> Visitor<'de> for NodeVisitor {
            type Value = Node;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any YAML node")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
                let mut entries = Vec::new();
                while let Some(key) = map.next_key::<Spanned<String>>()? {
                    let value = map.next_value::<Spanned<Node>>()?;
                    entries.push((key, value));
                }
                Ok(Node::Map(entries))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Node::Other)
            }
            fn visit_str<E>(self, v: &str) -> Result<Node, E> {
                Ok(Node::Str(v.to_owned()))
            }
            fn visit_string<E>(self, v: String) -> Result<Node, E> {
                Ok(Node::Str(v))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Node, E> {
                Ok(Node::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Node, E> {
                Ok(Node::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Node, E> {
                Ok(Node::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Node, E> {
                Ok(Node::Other)
            }
            fn visit_unit<E>(self) -> Result<Node, E> {
                Ok(Node::Other)
            }
            fn visit_none<E>(self) -> Result<Node, E> {
                Ok(Node::Other)
            }
            fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<Node, D2::Error> {
                Node::deserialize(d)
            }
        }
        deserializer.deserialize_any(NodeVisitor)
    }
}

/// Where a script's text starts in the file, so that script positions can be
/// reported as file positions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// File line (1-based) of the script's first line.
    pub line: usize,
    /// Columns before the script's text on each line (block indentation), or
    /// before the value on the key's line for a one-line scalar.
    pub indent: usize,
    /// For a folded block scalar (`>`), the file line of each script line
    /// (folding joins lines); columns on a joined line are approximate.
    pub folded: Option<Vec<usize>>,
}

impl Placement {
    /// The file position of a 1-based script `line`/`column`.
    pub fn locate(&self, line: usize, column: usize) -> (usize, usize) {
        let at = match &self.folded {
            Some(map) => map
                .get(line.saturating_sub(1))
                .or(map.last())
                .copied()
                .unwrap_or(self.line),
            None => self.line + line.saturating_sub(1),
        };
        (at, self.indent + column)
    }
}

/// The file line of each line of a folded block scalar whose content starts
/// at file line `start` with indentation `base`: lines of the base
/// indentation that follow each other are joined; one blank line between
/// them is a line break; more-indented lines keep their breaks.
fn folded_lines(lines: &[&str], start: usize, base: usize) -> Vec<usize> {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut map = Vec::new();
    let mut prev_more: Option<bool> = None;
    let mut blanks: Vec<usize> = Vec::new();
    for (i, text) in lines.iter().enumerate().skip(start.saturating_sub(1)) {
        let n = i + 1;
        if text.trim().is_empty() {
            blanks.push(n);
            continue;
        }
        if indent(text) < base {
            break;
        }
        let more = indent(text) > base;
        match prev_more {
            None => map.append(&mut blanks),
            Some(p) => {
                if !p && !more && !blanks.is_empty() {
                    // The first break is folded away.
                    blanks.remove(0);
                    map.append(&mut blanks);
                    map.push(n);
                } else if !p && !more {
                    // Joined with the previous line.
                } else {
                    map.append(&mut blanks);
                    map.push(n);
                }
                prev_more = Some(more);
                blanks.clear();
                continue;
            }
        }
        map.push(n);
        prev_more = Some(more);
    }
    map
}

/// One script of a customization.
#[derive(Debug, Clone)]
pub struct ScriptSite {
    /// The customization's name (`metadata.name`).
    pub customization: String,
    /// The operation the script serves.
    pub operation: InterpreterOperation,
    /// The script text.
    pub text: String,
    /// Where it sits in the file.
    pub placement: Placement,
}

/// The keys a customization may have, by path.
const TOP_KEYS: &[&str] = &["apiVersion", "kind", "metadata", "spec", "status"];
const TARGET_KEYS: &[&str] = &["apiVersion", "kind"];
const RULE_KEYS: &[&str] = &["luaScript"];

fn rule_operation(key: &str) -> Option<InterpreterOperation> {
    InterpreterOperation::ALL
        .into_iter()
        .find(|op| op.customization_member() == key)
}

/// The rule an unknown key under `customizations` most likely meant: the
/// rule whose member name, operation name or entry function is closest.
fn suggest_rule(key: &str) -> Option<&'static str> {
    let key = key.to_ascii_lowercase();
    let mut best: Option<(f64, &'static str)> = None;
    for op in InterpreterOperation::ALL {
        for alias in [op.customization_member(), op.as_str(), op.lua_function()] {
            let alias = alias.to_ascii_lowercase();
            let mut score = strsim::jaro_winkler(&key, &alias);
            if alias.contains(&key) || key.contains(&alias) {
                score = score.max(0.9);
            }
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, op.customization_member()));
            }
        }
    }
    best.filter(|(s, _)| *s >= 0.75).map(|(_, m)| m)
}

/// A [`Rule::CompositionOrder`] finding for an order annotation among
/// `annotations` whose value is not an integer (at its key).
fn order_findings(
    annotations: &[(Spanned<String>, Spanned<Node>)],
    line: &dyn Fn(&Spanned<String>) -> usize,
    col: &dyn Fn(&Spanned<String>) -> usize,
    out: &mut Vec<Finding>,
) {
    use karmada_interpreter_core::api::ResourceInterpreterCustomization as C;
    for (k, v) in annotations {
        if k.value != C::ORDER_ANNOTATION {
            continue;
        }
        let integer = matches!(&v.value, Node::Str(s) if s.trim().parse::<i64>().is_ok());
        if !integer {
            let shown = match &v.value {
                Node::Str(s) => format!("{s:?}"),
                _ => "a value that is not a string".to_owned(),
            };
            out.push(Finding::new(
                Rule::CompositionOrder,
                line(k),
                col(k),
                format!(
                    "`{}` is {shown}, not an integer: with composition on, building the chain fails (the order of composition, lower first)",
                    C::ORDER_ANNOTATION
                ),
            ));
        }
    }
}

/// Reads one document (`text`, starting at file line `first_line`): unknown
/// keys become findings, each script a [`ScriptSite`].
pub(crate) fn scan(
    text: &str,
    first_line: usize,
    lines: &[&str],
    findings: &mut Vec<Finding>,
) -> Vec<ScriptSite> {
    let root: Spanned<Node> = match serde_saphyr::from_str(text) {
        Ok(n) => n,
        Err(e) => {
            findings.push(Finding::new(
                Rule::Syntax,
                first_line,
                1,
                format!("not valid YAML: {e}"),
            ));
            return Vec::new();
        }
    };
    let line = |s: &Spanned<String>| first_line + (s.referenced.line() as usize).saturating_sub(1);
    let col = |s: &Spanned<String>| (s.referenced.column() as usize).max(1);
    let mut unknown = |key: &Spanned<String>, path: &str, message: String| {
        findings.push(Finding::new(
            Rule::UnknownKey,
            line(key),
            col(key),
            format!("unknown key `{}` in {path}: {message}", key.value),
        ));
    };
    let Node::Map(top) = root.value else {
        return Vec::new();
    };
    // Only customizations are linted (a stream may hold other kinds).
    let other_kind = top.iter().any(|(k, v)| {
        k.value == "kind"
            && matches!(&v.value, Node::Str(kind) if kind != "ResourceInterpreterCustomization")
    });
    if other_kind {
        return Vec::new();
    }
    let mut name = String::new();
    let mut order = Vec::new();
    let mut sites = Vec::new();
    // `unknown` holds `findings` until the scan ends
    let mut empty_rules = Vec::new();
    for (key, value) in &top {
        if !TOP_KEYS.contains(&key.value.as_str()) {
            let message = match rule_operation(&key.value) {
                Some(_) => "a rule belongs under `spec.customizations`; here it never runs".into(),
                None => "Karmada ignores it".into(),
            };
            unknown(key, "the document", message);
        }
        if key.value == "metadata" {
            if let Node::Map(meta) = &value.value {
                for (k, v) in meta {
                    if let (true, Node::Str(n)) = (k.value == "name", &v.value) {
                        name.clone_from(n);
                    }
                    if let (true, Node::Map(annotations)) = (k.value == "annotations", &v.value) {
                        order_findings(annotations, &line, &col, &mut order);
                    }
                }
            }
        }
    }
    for (key, spec) in &top {
        if key.value != "spec" {
            continue;
        }
        let Node::Map(spec) = &spec.value else {
            continue;
        };
        for (key, value) in spec {
            match key.value.as_str() {
                "target" => {
                    if let Node::Map(target) = &value.value {
                        for (k, _) in target {
                            if !TARGET_KEYS.contains(&k.value.as_str()) {
                                unknown(k, "spec.target", "Karmada ignores it".into());
                            }
                        }
                    }
                }
                "customizations" => {
                    let Node::Map(rules) = &value.value else {
                        continue;
                    };
                    for (k, rule) in rules {
                        let Some(op) = rule_operation(&k.value) else {
                            let hint = match suggest_rule(&k.value) {
                                Some(m) => format!(
                                    "not a rule, so its script never runs (did you mean `{m}`?)"
                                ),
                                None => "not a rule, so its script never runs".into(),
                            };
                            unknown(k, "spec.customizations", hint);
                            continue;
                        };
                        // `replicaResource: {}`, `luaScript: ""` or `null`, or
                        // `replicaResource:` alone
                        let scripted = match &rule.value {
                            Node::Map(fields) => fields.iter().any(|(fk, fv)| {
                                fk.value == "luaScript"
                                    && matches!(&fv.value, Node::Str(t) if !t.is_empty())
                            }),
                            Node::Str(_) => true,
                            Node::Other => false,
                        };
                        if !scripted {
                            empty_rules.push(Finding::new(
                                Rule::EmptyRule,
                                line(k),
                                col(k),
                                format!(
                                    "`{}` has no script (`luaScript` absent or empty), so the rule is unset: {} falls to the next layer, as in Karmada",
                                    k.value, op
                                ),
                            ));
                        }
                        let Node::Map(fields) = &rule.value else {
                            continue;
                        };
                        for (fk, fv) in fields {
                            if !RULE_KEYS.contains(&fk.value.as_str()) {
                                unknown(
                                    fk,
                                    &format!("spec.customizations.{}", k.value),
                                    "only `luaScript` is read".into(),
                                );
                                continue;
                            }
                            // an empty script is an unset rule (`empty-rule`)
                            if let Node::Str(script) = &fv.value {
                                if script.is_empty() {
                                    continue;
                                }
                                // A block scalar's indicator is on the key's
                                // line (the value's own location may be its
                                // first content line).
                                let key_line = line(fk);
                                let indicator = col(fk) + fk.value.chars().count() + 1;
                                let after_key: String = lines
                                    .get(key_line.wrapping_sub(1))
                                    .copied()
                                    .unwrap_or("")
                                    .chars()
                                    .skip(indicator - 1)
                                    .collect();
                                let after_key = after_key.trim_start();
                                let (at, column) =
                                    if after_key.starts_with('|') || after_key.starts_with('>') {
                                        (key_line, indicator)
                                    } else {
                                        (
                                            first_line
                                                + (fv.referenced.line() as usize).saturating_sub(1),
                                            fv.referenced.column() as usize,
                                        )
                                    };
                                sites.push(ScriptSite {
                                    customization: name.clone(),
                                    operation: op,
                                    text: script.clone(),
                                    placement: placement(lines, at, column),
                                });
                            }
                        }
                    }
                }
                other => {
                    let message = match rule_operation(other) {
                        Some(_) => {
                            "a rule belongs under `spec.customizations`; here it never runs".into()
                        }
                        None => "Karmada ignores it".into(),
                    };
                    unknown(key, "spec", message);
                }
            }
        }
    }
    findings.extend(empty_rules);
    findings.extend(order);
    sites
}

/// Where the script of a value at file line `line`, column `column` begins:
/// a block scalar (`|`, `>`) starts on the next line at its indentation; any
/// other scalar on its own line after the quote (if any).
fn placement(lines: &[&str], line: usize, column: usize) -> Placement {
    let here = lines.get(line.wrapping_sub(1)).copied().unwrap_or("");
    let rest: String = here.chars().skip(column.saturating_sub(1)).collect();
    let rest = rest.trim_start();
    if rest.starts_with('|') || rest.starts_with('>') {
        let indent = lines
            .iter()
            .skip(line)
            .find(|l| !l.trim().is_empty())
            .map_or(0, |l| l.len() - l.trim_start().len());
        Placement {
            line: line + 1,
            indent,
            folded: rest
                .starts_with('>')
                .then(|| folded_lines(lines, line + 1, indent)),
        }
    } else {
        let quoted = usize::from(rest.starts_with('"') || rest.starts_with('\''));
        Placement {
            line,
            indent: column.saturating_sub(1) + quoted,
            folded: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "\
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: demo
spec:
  target:
    apiVersion: example.io/v1
    kind: Demo
  replicaResource:
    luaScript: x
  customizations:
    reviseReplica:
      luaScript: |
        function ReviseReplica(obj, n) return obj end
    healthInterpretation:
      luaScript: |

        function InterpretHealth(obj)
          return true
        end
    statusReflection:
      luaScript: \"function ReflectStatus(o) return o.status end\"
";

    #[test]
    fn unknown_keys_and_script_placements() {
        let lines: Vec<&str> = DOC.lines().collect();
        let mut findings = Vec::new();
        let sites = scan(DOC, 1, &lines, &mut findings);
        let got: Vec<(usize, usize, &str)> = findings
            .iter()
            .map(|f| (f.line, f.column, f.message.as_str()))
            .collect();
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!((got[0].0, got[0].1), (9, 3));
        assert!(got[0].2.contains("belongs under `spec.customizations`"));
        assert_eq!((got[1].0, got[1].1), (12, 5));
        assert!(
            got[1].2.contains("did you mean `replicaRevision`"),
            "{}",
            got[1].2
        );
        assert_eq!(sites.len(), 2);
        assert_eq!(sites[0].operation, InterpreterOperation::InterpretHealth);
        assert_eq!(sites[0].placement.line, 17);
        assert_eq!(sites[0].placement.indent, 8);
        // Script line 3 (`return true`) is file line 19.
        assert_eq!(sites[0].placement.locate(3, 3), (19, 11));
        assert_eq!(sites[0].customization, "demo");
        assert_eq!(
            (sites[1].placement.line, sites[1].placement.indent),
            (22, 18)
        );
    }

    /// Karmada (karmadactl interpret --check) reports such rules UNSET.
    #[test]
    fn a_rule_without_a_script_is_an_unset_rule() {
        let text = "\
kind: ResourceInterpreterCustomization
metadata:
  name: demo
spec:
  target:
    apiVersion: example.io/v1
    kind: Demo
  customizations:
    replicaResource: {}
    retention:
      luaScript: \"\"
    statusReflection:
    healthInterpretation:
      luaScript: \"function InterpretHealth(o) return true end\"
";
        let lines: Vec<&str> = text.lines().collect();
        let mut findings = Vec::new();
        let sites = scan(text, 1, &lines, &mut findings);
        let got: Vec<(Rule, usize, usize)> = findings
            .iter()
            .map(|f| (f.rule, f.line, f.column))
            .collect();
        assert_eq!(
            got,
            [
                (Rule::EmptyRule, 9, 5),
                (Rule::EmptyRule, 10, 5),
                (Rule::EmptyRule, 12, 5)
            ],
            "{findings:?}"
        );
        assert!(findings[0].message.contains(
            "`replicaResource` has no script (`luaScript` absent or empty), so the rule is unset"
        ));
        assert_eq!(sites.len(), 1);
    }

    #[test]
    fn folded_scalars_map_each_script_line_to_its_file_line() {
        let text = "k: >\n  function F(o)\n    if o then\n      return 1\n    end\n  end\n  local a =\n  1\n\n  local b = 2\n";
        let lines: Vec<&str> = text.lines().collect();
        // Script: "function F(o)\n  if o then\n    return 1\n  end\nend local a = 1\nlocal b = 2\n"
        let value: String =
            serde_saphyr::from_str::<std::collections::HashMap<String, String>>(text)
                .unwrap()
                .remove("k")
                .unwrap();
        assert_eq!(value.lines().count(), 6, "{value:?}");
        assert_eq!(folded_lines(&lines, 2, 2), vec![2, 3, 4, 5, 6, 10]);
    }

    /// An order annotation that is not an integer is a
    /// `composition-order` error at its key, reported only with
    /// composition on.
    #[test]
    fn a_malformed_order_is_found_only_with_composition() {
        let text = "\
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: demo
  annotations:
    karmada-interpreter.io/order: first
spec:
  target: {apiVersion: example.io/v1, kind: Demo}
  customizations:
    healthInterpretation:
      luaScript: 'function InterpretHealth(obj) return true end'
";
        let off = crate::Linter::new().unwrap().lint_text(text, "demo.yaml");
        assert!(off.is_empty(), "{off:?}");
        let on = crate::Linter::new()
            .unwrap()
            .with_composition(true)
            .lint_text(text, "demo.yaml");
        assert_eq!(on.len(), 1, "{on:?}");
        assert_eq!(
            (on[0].rule, on[0].line, on[0].column),
            (Rule::CompositionOrder, 6, 5)
        );
        assert!(
            on[0].message.contains("\"first\", not an integer"),
            "{}",
            on[0].message
        );
        let fine = text.replace("first", "'-3'");
        let on = crate::Linter::new().unwrap().with_composition(true);
        assert!(on.lint_text(&fine, "demo.yaml").is_empty());
    }
}
