//! The one operation model: an operation's inputs become a [`Request`]
//! ([`Inputs::request`]), and an [`Outcome`] becomes Karmada's named results
//! ([`results`]: `replica`, `requires`, `components`, `revised`, `retained`,
//! `aggregatedStatus`, `status`, `healthy`, `dependencies`).
//!
//! The CLI (`run`), the golden runner and the webhook SDK all go through
//! here; each front end only says where its inputs come from and how it
//! words an [`InputError`] in its own vocabulary (flags, case keys, wire
//! members).

use serde_json::{Map, Value};

use super::layer::{Outcome, Request};
#[cfg(feature = "karmada-next")]
use crate::api::TargetComponent;
use crate::api::{AggregatedStatusItem, InterpreterOperation};
pub use crate::error::{InputError, ObjectInput};

impl InputError {
    /// The operation whose inputs are wrong.
    pub fn operation(&self) -> InterpreterOperation {
        match *self {
            Self::Missing { operation, .. }
            | Self::NoObject { operation }
            | Self::BothObjects { operation } => operation,
        }
    }
}

/// Everything an operation may take, each input optional; which ones an
/// operation needs is decided by [`Inputs::request`] (Karmada's slot rules:
/// `Retain` needs both objects, every other operation exactly one).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Inputs<'a> {
    /// The desired object (resource template).
    pub desired: Option<&'a Value>,
    /// The observed (member-cluster) object.
    pub observed: Option<&'a Value>,
    /// `ReviseReplica`: the replica count to write.
    pub replicas: i64,
    /// `AggregateStatus`: the per-cluster statuses. `None` (no list) and an
    /// empty list are different inputs; the front end states which it has.
    pub status_items: Option<&'a [AggregatedStatusItem]>,
    /// `ReviseComponents` (the `karmada-next` profile): the per-component
    /// assignment. `None` (no list) and an empty list are different inputs.
    #[cfg(feature = "karmada-next")]
    pub components: Option<&'a [TargetComponent]>,
}

impl<'a> Inputs<'a> {
    /// The request for `operation`, or which input does not fit.
    ///
    /// ```
    /// use karmada_interpreter::api::InterpreterOperation as Op;
    /// use karmada_interpreter::interpreter::{InputError, Inputs, ObjectInput, Request};
    /// use serde_json::json;
    ///
    /// let pod = json!({"apiVersion": "v1", "kind": "Pod"});
    /// let inputs = Inputs { observed: Some(&pod), ..Inputs::default() };
    /// assert_eq!(inputs.request(Op::InterpretHealth), Ok(Request::InterpretHealth { object: &pod }));
    /// assert_eq!(
    ///     inputs.request(Op::Retain),
    ///     Err(InputError::Missing { operation: Op::Retain, input: ObjectInput::Desired })
    /// );
    /// ```
    pub fn request(&self, operation: InterpreterOperation) -> Result<Request<'a>, InputError> {
        use InterpreterOperation as Op;
        if operation == Op::Retain {
            let missing = |input| InputError::Missing { operation, input };
            return Ok(Request::Retain {
                desired: self.desired.ok_or(missing(ObjectInput::Desired))?,
                observed: self.observed.ok_or(missing(ObjectInput::Observed))?,
            });
        }
        let object = match (self.desired, self.observed) {
            (Some(o), None) | (None, Some(o)) => o,
            (None, None) => return Err(InputError::NoObject { operation }),
            (Some(_), Some(_)) => return Err(InputError::BothObjects { operation }),
        };
        Ok(match operation {
            Op::InterpretReplica => Request::InterpretReplica { object },
            Op::InterpretComponent => Request::InterpretComponent { object },
            Op::ReviseReplica => Request::ReviseReplica {
                object,
                replicas: self.replicas,
            },
            Op::AggregateStatus => Request::AggregateStatus {
                object,
                items: self.status_items,
            },
            #[cfg(feature = "karmada-next")]
            Op::ReviseComponents => Request::ReviseComponents {
                object,
                components: self.components,
            },
            Op::InterpretStatus => Request::InterpretStatus { object },
            Op::InterpretHealth => Request::InterpretHealth { object },
            Op::InterpretDependency => Request::InterpretDependency { object },
            Op::Retain => unreachable!("handled above"),
        })
    }
}

/// The result names an operation produces, in Karmada's order.
pub fn result_names(operation: InterpreterOperation) -> &'static [&'static str] {
    use InterpreterOperation as Op;
    match operation {
        Op::InterpretReplica => &["replica", "requires"],
        Op::InterpretComponent => &["components"],
        Op::ReviseReplica => &["revised"],
        #[cfg(feature = "karmada-next")]
        Op::ReviseComponents => &["revised"],
        Op::Retain => &["retained"],
        Op::AggregateStatus => &["aggregatedStatus"],
        Op::InterpretStatus => &["status"],
        Op::InterpretHealth => &["healthy"],
        Op::InterpretDependency => &["dependencies"],
    }
}

/// An outcome as Karmada's named results, in [`result_names`] order: every
/// name of the operation is present (`requires` and `status` are `null`
/// when the operation returned none).
///
/// ```
/// use karmada_interpreter::interpreter::{results, Outcome, ReplicaResult};
/// use serde_json::json;
///
/// let named = results(Outcome::Replicas(Box::new(ReplicaResult { replicas: 3, requirements: None })));
/// assert_eq!(named, vec![("replica", json!(3)), ("requires", json!(null))]);
/// ```
pub fn results(outcome: Outcome) -> Vec<(&'static str, Value)> {
    match outcome {
        Outcome::Replicas(r) => vec![
            ("replica", Value::from(r.replicas)),
            (
                "requires",
                r.requirements.as_ref().map_or(Value::Null, json),
            ),
        ],
        Outcome::Components(c) => vec![("components", json(&c))],
        Outcome::Revised(v) => vec![("revised", v)],
        #[cfg(feature = "karmada-next")]
        Outcome::ComponentsRevised(v) => vec![("revised", v)],
        Outcome::Retained(v) => vec![("retained", v)],
        Outcome::Aggregated(v) => vec![("aggregatedStatus", v)],
        Outcome::Status(v) => vec![("status", v.unwrap_or(Value::Null))],
        Outcome::Healthy(h) => vec![("healthy", Value::Bool(h))],
        Outcome::Dependencies(d) => vec![("dependencies", json(&d))],
    }
}

/// [`results`] as a JSON object.
pub fn results_map(outcome: Outcome) -> Map<String, Value> {
    results(outcome)
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
}

/// Our own API types always encode; a failure would be a bug worth showing.
fn json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or_else(|e| Value::String(format!("<unencodable: {e}>")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;
    use serde_json::json;
    use InterpreterOperation as Op;

    #[rstest]
    #[case::retain_without_observed(Op::Retain, true, false,
        Err(InputError::Missing { operation: Op::Retain, input: ObjectInput::Observed }))]
    #[case::retain_without_desired(Op::Retain, false, true,
        Err(InputError::Missing { operation: Op::Retain, input: ObjectInput::Desired }))]
    #[case::health_without_objects(Op::InterpretHealth, false, false,
        Err(InputError::NoObject { operation: Op::InterpretHealth }))]
    #[case::health_with_both(Op::InterpretHealth, true, true,
        Err(InputError::BothObjects { operation: Op::InterpretHealth }))]
    #[case::health_observed(Op::InterpretHealth, false, true, Ok(Op::InterpretHealth))]
    #[case::replica_desired(Op::InterpretReplica, true, false, Ok(Op::InterpretReplica))]
    #[case::retain_both(Op::Retain, true, true, Ok(Op::Retain))]
    fn slot_rules(
        #[case] op: InterpreterOperation,
        #[case] desired: bool,
        #[case] observed: bool,
        #[case] expected: Result<InterpreterOperation, InputError>,
    ) {
        let d = json!({"kind": "Pod", "metadata": {"name": "d"}});
        let o = json!({"kind": "Pod", "metadata": {"name": "o"}});
        let inputs = Inputs {
            desired: desired.then_some(&d),
            observed: observed.then_some(&o),
            ..Inputs::default()
        };
        assert_eq!(inputs.request(op).map(|r| r.operation()), expected);
    }

    #[test]
    fn status_items_keep_absent_apart_from_empty() {
        let d = json!({"kind": "Pod"});
        for items in [None, Some(&[][..])] {
            let inputs = Inputs {
                desired: Some(&d),
                status_items: items,
                ..Inputs::default()
            };
            assert_eq!(
                inputs.request(Op::AggregateStatus),
                Ok(Request::AggregateStatus { object: &d, items })
            );
        }
    }

    #[test]
    fn errors_name_the_missing_input_without_front_end_words() {
        let msg = InputError::Missing {
            operation: Op::Retain,
            input: ObjectInput::Observed,
        }
        .to_string();
        assert_eq!(msg, "Retain needs the observed object, which is missing");
        assert!(!msg.contains("file") && !msg.contains("Obj"), "{msg}");
    }

    #[test]
    fn every_outcome_names_exactly_its_operation_results() {
        let outcomes = [
            Outcome::Replicas(Default::default()),
            Outcome::Components(vec![]),
            Outcome::Revised(json!({})),
            Outcome::Retained(json!({})),
            Outcome::Aggregated(json!({})),
            Outcome::Status(None),
            Outcome::Healthy(true),
            Outcome::Dependencies(vec![]),
        ];
        for outcome in outcomes {
            let op = outcome.operation();
            let names: Vec<&str> = results(outcome).into_iter().map(|(k, _)| k).collect();
            assert_eq!(names, result_names(op), "{op}");
        }
    }
}
