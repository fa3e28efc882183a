//! Edits outside what an operation owns: a ReviseReplica or Retain answer
//! that removes or rewrites fields the operation has no business with is
//! reported as a *finding*, apart from the case's verdict (the output may
//! still match a golden file written from the same answer).
//!
//! What each operation owns, from Karmada's semantics:
//!
//! - **ReviseReplica** sets the replica count Karmada scheduled for a
//!   member cluster: Karmada's native implementations write `spec.replicas`
//!   (Deployment, StatefulSet, ReplicaSet) or `spec.parallelism` (Job), and
//!   the bundled customizations write a `replicas` member of their kind
//!   (`spec.replicas`, `spec.tfReplicaSpecs.Worker.replicas`). It owns
//!   every member named `replicas` or `parallelism`, at any depth; creating
//!   the objects that hold it is not an edit.
//! - **Retain** keeps what the member cluster owns: the result may take any
//!   value the observed object has at that place (its absence included),
//!   and a list may merge items of both (a ServiceAccount's `secrets`).
//!   Anything else (a value neither desired nor observed, a member removed
//!   that the member cluster has) is a finding.
//!
//! Other operations return new values, not edits of their input, and have
//! no finding.

use serde_json::{Map, Value};

use crate::case::GoldenCase;
use crate::compare::diff;
use karmada_interpreter::api::InterpreterOperation;

/// Members ReviseReplica owns, wherever they are.
const REPLICA_MEMBERS: [&str; 2] = ["replicas", "parallelism"];

/// The findings about `actual`, the named results of `case`'s operation:
/// one line per edit outside what the operation owns (see the module
/// documentation for what each operation owns).
pub fn findings(case: &GoldenCase, actual: &Map<String, Value>) -> Vec<String> {
    let (result, owner) = match case.operation {
        InterpreterOperation::ReviseReplica => ("revised", Owner::Replicas),
        InterpreterOperation::Retain => ("retained", Owner::Observed),
        _ => return Vec::new(),
    };
    let (Some(before), Some(after)) = (case.desired.as_ref(), actual.get(result)) else {
        return Vec::new();
    };
    if after.is_null() {
        return Vec::new();
    }
    let mut walk = Walk {
        owner,
        operation: case.operation,
        out: Vec::new(),
    };
    let mut path = result.to_owned();
    walk.walk(Some(before), Some(after), case.observed.as_ref(), &mut path);
    walk.out
}

#[derive(Clone, Copy)]
enum Owner {
    Replicas,
    Observed,
}

struct Walk {
    owner: Owner,
    operation: InterpreterOperation,
    out: Vec<String>,
}

fn same(a: Option<&Value>, b: Option<&Value>) -> bool {
    diff(a.unwrap_or(&Value::Null), b.unwrap_or(&Value::Null)).is_empty()
}

/// `Some(None)` for absent or `null`, `Some(Some(map))` for an object,
/// `None` for anything else.
fn object(v: Option<&Value>) -> Option<Option<&Map<String, Value>>> {
    match v {
        None | Some(Value::Null) => Some(None),
        Some(Value::Object(m)) => Some(Some(m)),
        _ => None,
    }
}

fn show(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => "<absent>".into(),
        Some(v) => {
            let text = v.to_string();
            match text.char_indices().nth(120) {
                Some((cut, _)) => format!("{}…", &text[..cut]),
                None => text,
            }
        }
    }
}

impl Walk {
    fn walk(
        &mut self,
        before: Option<&Value>,
        after: Option<&Value>,
        observed: Option<&Value>,
        path: &mut String,
    ) {
        if same(before, after) {
            return;
        }
        match (before, after) {
            (Some(Value::Array(b)), Some(Value::Array(a))) if b.len() == a.len() => {
                for (i, (bi, ai)) in b.iter().zip(a).enumerate() {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    self.walk(Some(bi), Some(ai), observed.and_then(|o| o.get(i)), path);
                    path.truncate(len);
                }
                return;
            }
            _ => {}
        }
        if let (Some(b), Some(a)) = (object(before), object(after)) {
            if b.is_some() || a.is_some() {
                let mut keys: Vec<&String> = b.iter().flat_map(|m| m.keys()).collect();
                keys.extend(a.iter().flat_map(|m| m.keys()));
                keys.sort();
                keys.dedup();
                for key in keys {
                    let len = path.len();
                    path.push('.');
                    path.push_str(key);
                    self.walk(
                        b.and_then(|m| m.get(key)),
                        a.and_then(|m| m.get(key)),
                        observed.and_then(|o| o.get(key)),
                        path,
                    );
                    path.truncate(len);
                }
                return;
            }
        }
        if self.owns(path, before, after, observed) {
            return;
        }
        let what = match (
            before.filter(|v| !v.is_null()),
            after.filter(|v| !v.is_null()),
        ) {
            (Some(b), None) => format!("removed (the desired object has {})", show(Some(b))),
            (None, Some(a)) => format!("added {}", show(Some(a))),
            (b, a) => format!("rewritten from {} to {}", show(b), show(a)),
        };
        let owns = match self.owner {
            Owner::Replicas => "only the replica count (`replicas`, `parallelism`)".to_owned(),
            Owner::Observed => format!(
                "only what the member cluster has (the observed object has {} there)",
                show(observed)
            ),
        };
        self.out.push(format!(
            "{path}: {what}, but {} owns {owns}",
            self.operation
        ));
    }

    fn owns(
        &self,
        path: &str,
        before: Option<&Value>,
        after: Option<&Value>,
        observed: Option<&Value>,
    ) -> bool {
        match self.owner {
            Owner::Replicas => {
                let last = path.rsplit('.').next().unwrap_or("");
                let name = last.split('[').next().unwrap_or("");
                REPLICA_MEMBERS.contains(&name)
            }
            Owner::Observed => {
                if same(observed, after) {
                    return true;
                }
                // A list merging items of the desired and the observed lists.
                let items = |v: Option<&Value>| match v {
                    Some(Value::Array(a)) => a.clone(),
                    _ => Vec::new(),
                };
                match after {
                    Some(Value::Array(a)) => {
                        let known: Vec<Value> =
                            items(before).into_iter().chain(items(observed)).collect();
                        a.iter()
                            .all(|item| known.iter().any(|k| same(Some(k), Some(item))))
                    }
                    _ => false,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn case(operation: &str, desired: Value, observed: Option<Value>) -> GoldenCase {
        let mut text =
            format!("name: t\noperation: {operation}\ndesiredObj: {desired}\nexpectError: true\n");
        if let Some(o) = observed {
            text.push_str(&format!("observedObj: {o}\n"));
        }
        crate::parse_cases(&text, "t.yaml".as_ref())
            .remove(0)
            .unwrap()
    }

    fn results(name: &str, v: Value) -> Map<String, Value> {
        [(name.to_owned(), v)].into_iter().collect()
    }

    #[test]
    fn revise_replica_owns_replica_counts_only() {
        let desired = json!({"apiVersion": "x/v1", "kind": "Thing", "metadata": {"name": "a"},
            "spec": {"replicas": 1, "template": {"x": 1}, "newField": "kept?"}});
        let c = case("ReviseReplica", desired.clone(), None);
        let mut revised = desired.clone();
        revised["spec"]["replicas"] = json!(4);
        assert!(findings(&c, &results("revised", revised.clone())).is_empty());
        // Creating `spec.workers.replicas` is owned too.
        revised["spec"]["workers"] = json!({"replicas": 2});
        assert!(findings(&c, &results("revised", revised.clone())).is_empty());
        // Dropping a field the webhook's Go types do not know is not.
        revised["spec"].as_object_mut().unwrap().remove("newField");
        revised["spec"]["template"]["x"] = json!(2);
        let f = findings(&c, &results("revised", revised));
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(f[0].starts_with("revised.spec.newField: removed (the desired object has \"kept?\"), but ReviseReplica owns only the replica count"), "{}", f[0]);
        assert!(
            f[1].starts_with("revised.spec.template.x: rewritten from 1 to 2"),
            "{}",
            f[1]
        );
    }

    #[test]
    fn retain_owns_what_the_member_cluster_has() {
        let desired = json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "a", "labels": {"x": "1"}},
            "secrets": [{"name": "s1"}], "spec": {"paused": false}});
        let observed = json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "a", "labels": {"x": "1"}},
            "secrets": [{"name": "s2"}], "spec": {"paused": true, "clusterIP": "10.0.0.1"}});
        let c = case("Retain", desired.clone(), Some(observed));
        let mut retained = desired.clone();
        retained["spec"]["paused"] = json!(true);
        retained["spec"]["clusterIP"] = json!("10.0.0.1");
        retained["secrets"] = json!([{"name": "s1"}, {"name": "s2"}]);
        assert!(findings(&c, &results("retained", retained.clone())).is_empty());
        retained["metadata"]["labels"] = json!({});
        retained["spec"]["clusterIP"] = json!("10.0.0.9");
        let f = findings(&c, &results("retained", retained));
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(
            f[0].starts_with("retained.metadata.labels.x: removed"),
            "{}",
            f[0]
        );
        assert!(f[1].contains("added \"10.0.0.9\""), "{}", f[1]);
        assert!(
            f[1].contains("the observed object has \"10.0.0.1\" there"),
            "{}",
            f[1]
        );
    }

    #[test]
    fn other_operations_have_no_findings() {
        let c = case(
            "InterpretHealth",
            json!({"apiVersion": "v1", "kind": "Pod"}),
            None,
        );
        assert!(findings(&c, &results("healthy", json!(true))).is_empty());
    }
}
