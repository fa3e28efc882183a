//! `interpret_json` answers as `interpret` does on the decoded inputs.
//!
//! It decodes an object the serving handler only reads no further than the
//! handler looks (the native table's `keeping` rows). These tests hold that
//! to the whole-object answer: every golden case (the project's and, when
//! present, Karmada's corpora), then mutated copies of every case a
//! `keeping` row serves, compared answer by answer, errors included.
//!
//! AggregateStatus edits a template handed over where the answer differs
//! from it instead of building a new object: the last test holds that to
//! the answer for a lent template, on every case and mutated templates.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use karmada_interpreter::api::{AggregatedStatusItem, InterpreterOperation as Op};
use karmada_interpreter::interpreter::{
    InPlaceRequest, Inputs, JsonInputs, LayerKind, Outcome, OwnedRequest, Request,
};
use karmada_interpreter::{Error, Interpreter};
use karmada_interpreter_golden::{discover, load_cases, ChainBackend, GoldenCase};
use serde_json::{json, Value};

use crate::support::mutator::mutate;
use crate::support::rng::Rng;
use crate::support::{shared, ROOT};

/// The operations and kinds whose read-only object is decoded in part.
fn keeps_part(operation: Op, kind: &str) -> bool {
    match operation {
        Op::Retain => matches!(
            kind,
            "Deployment"
                | "Job"
                | "Service"
                | "ServiceAccount"
                | "PersistentVolumeClaim"
                | "PersistentVolume"
                | "Secret"
        ),
        Op::InterpretStatus => {
            matches!(
                kind,
                "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet"
            )
        }
        _ => false,
    }
}

/// Runs the case's operation on the objects given as JSON text both ways
/// (decoded whole, then `interpret`; `interpret_json`) and checks the
/// answers, or the errors, are the same.
fn compare(
    chain: &Interpreter,
    case: &GoldenCase,
    desired: Option<Vec<u8>>,
    observed: Option<Vec<u8>>,
    label: &str,
) {
    let items = case
        .status_items
        .as_ref()
        .map(|i| serde_json::to_vec(i).expect("encodes"));
    let decode = |b: &Vec<u8>| serde_json::from_slice::<Value>(b).expect("decodes");
    let (whole_desired, whole_observed) =
        (desired.as_ref().map(decode), observed.as_ref().map(decode));
    let whole_items: Option<Vec<AggregatedStatusItem>> = items
        .as_ref()
        .map(|b| serde_json::from_slice(b).expect("decodes"));
    #[cfg(feature = "karmada-next")]
    let components: Option<Vec<u8>> = case
        .inputs()
        .components
        .map(|c| serde_json::to_vec(c).expect("encodes"));
    let both_ways = || {
        let whole = Inputs {
            desired: whole_desired.as_ref(),
            observed: whole_observed.as_ref(),
            replicas: case.input_replicas,
            status_items: whole_items.as_deref(),
            #[cfg(feature = "karmada-next")]
            components: case.inputs().components,
        }
        .request(case.operation)
        .map_err(Error::from)
        .and_then(|request| chain.interpret(&request));
        let from_bytes = chain.interpret_json(
            case.operation,
            JsonInputs {
                desired: desired.as_deref(),
                observed: observed.as_deref(),
                replicas: case.input_replicas,
                status_items: items.as_deref(),
                #[cfg(feature = "karmada-next")]
                components: components.as_deref(),
            },
        );
        (whole, from_bytes)
    };
    let (mut whole, mut from_bytes) = both_ways();
    // A script may write the time of the call (`os.date`, to the second):
    // answers that differ from a script are taken again once, in case the
    // pair of calls straddled a second.
    if let (Ok(a), Ok(b)) = (&whole, &from_bytes) {
        if a.value != b.value && a.served_by.layer != LayerKind::Native {
            (whole, from_bytes) = both_ways();
        }
    }
    match (whole, from_bytes) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.value, b.value, "{label}");
            assert_eq!(a.served_by, b.served_by, "{label}");
        }
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{label}"),
        (a, b) => panic!("{label}: whole {a:?}, from bytes {b:?}"),
    }
}

fn encode(v: &Option<Value>) -> Option<Vec<u8>> {
    v.as_ref().map(|v| serde_json::to_vec(v).expect("encodes"))
}

/// Every case under `roots`, with the chain its file runs in.
pub(crate) fn cases(roots: &[PathBuf]) -> Vec<(Interpreter, GoldenCase)> {
    let backend = ChainBackend::new(Vec::new(), Vec::new());
    let mut chains: HashMap<Option<PathBuf>, Option<Interpreter>> = HashMap::new();
    let mut out = Vec::new();
    for file in discover(roots).expect("case folders exist") {
        let chain = chains
            .entry(file.customization.clone())
            .or_insert_with(|| backend.chain(file.customization.as_deref()).ok());
        let Some(chain) = chain else { continue };
        for case in load_cases(&file.path).into_iter().flatten() {
            if case.status_items_error.is_none() {
                out.push((chain.clone(), case));
            }
        }
    }
    out
}

pub(crate) fn kind_of(case: &GoldenCase) -> &str {
    case.desired
        .as_ref()
        .or(case.observed.as_ref())
        .and_then(|o| o.get("kind"))
        .and_then(Value::as_str)
        .unwrap_or("")
}

pub(crate) fn project_roots() -> Vec<PathBuf> {
    ["conformance", "thirdparty"]
        .iter()
        .map(|d| Path::new(ROOT).join(d))
        .collect()
}

/// The project's case folders, then Karmada's corpora when present.
pub(crate) fn all_roots() -> Vec<PathBuf> {
    let mut roots = project_roots();
    roots.extend(
        ["reference-cases", "karmada-customizations"]
            .iter()
            .filter_map(|d| shared(d)),
    );
    roots
}

#[test]
fn every_golden_case_answers_the_same_from_bytes() {
    let all = cases(&all_roots());
    let mut in_part = 0;
    for (chain, case) in &all {
        if keeps_part(case.operation, kind_of(case)) {
            in_part += 1;
        }
        compare(
            chain,
            case,
            encode(&case.desired),
            encode(&case.observed),
            &case.label(),
        );
    }
    assert!(all.len() > 1000, "only {} cases", all.len());
    assert!(in_part > 40, "only {in_part} cases decoded in part");
}

#[test]
fn mutated_objects_answer_the_same_from_bytes() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut runs = 0;
    for (chain, case) in cases(&project_roots()) {
        if !keeps_part(case.operation, kind_of(&case)) {
            continue;
        }
        for round in 0..40 {
            let mut desired = case.desired.clone();
            let mut observed = case.observed.clone();
            // The object read only: the observed one of Retain, else the one given.
            let target = if case.operation == Op::Retain || desired.is_none() {
                &mut observed
            } else {
                &mut desired
            };
            let Some(object) = target.as_mut() else {
                continue;
            };
            for _ in 0..1 + rng.below(3) {
                mutate(&mut rng, object);
            }
            // Now and then a member repeated after the object's own, which
            // a full decode takes: the dispatch key, or a kept member.
            let mut text = serde_json::to_string(object).expect("encodes");
            if round % 5 == 4 && text.len() > 2 && text.ends_with('}') {
                let extra = match rng.below(3) {
                    0 => json!({"kind": "ConfigMap"}),
                    1 => json!({"status": {"replicas": 7}}),
                    _ => json!({"spec": {"clusterIP": "192.0.2.9", "replicas": 9}}),
                };
                let extra = extra.to_string();
                text.pop();
                text.push(',');
                text.push_str(&extra[1..]);
            }
            let label = format!("{} round {round}: {text}", case.label());
            let text = Some(text.into_bytes());
            let (desired, observed) = if case.operation == Op::Retain || case.desired.is_none() {
                (encode(&desired), text)
            } else {
                (text, encode(&observed))
            };
            compare(&chain, &case, desired, observed, &label);
            runs += 1;
        }
    }
    assert!(runs > 1000, "only {runs} mutated runs");
}

/// `answer` with the times a native Job aggregation stamps with the clock
/// (its conditions' `lastProbeTime` and `lastTransitionTime`, as Karmada
/// writes them) set to one value: the three calls may fall on either side of
/// a second. Every other member, and every other kind, is compared as is.
fn at_call_time(mut answer: Value) -> Value {
    if answer["kind"] != "Job" {
        return answer;
    }
    if let Some(conditions) = answer["status"]["conditions"].as_array_mut() {
        for c in conditions {
            for key in ["lastProbeTime", "lastTransitionTime"] {
                if c.get(key).is_some() {
                    c[key] = Value::from("<time of the call>");
                }
            }
        }
    }
    answer
}

/// AggregateStatus on `template` lent (`interpret`), handed over
/// (`interpret_owned`) and lent mutably (`interpret_in_place`): the same
/// answer or error each way, and a template edited in place is left
/// unchanged by an error. Whether the native layer answered.
fn aggregate_three_ways(
    chain: &Interpreter,
    template: &Value,
    items: Option<&[AggregatedStatusItem]>,
    label: &str,
) -> bool {
    let lent = chain.interpret(&Request::AggregateStatus {
        object: template,
        items,
    });
    let owned = chain.interpret_owned(OwnedRequest::AggregateStatus {
        object: template.clone(),
        items,
    });
    let mut edited = template.clone();
    let in_place = chain.interpret_in_place(InPlaceRequest::AggregateStatus {
        object: &mut edited,
        items,
    });
    match (lent, owned, in_place) {
        (Ok(a), Ok(b), Ok(c)) => {
            assert_eq!(
                (&a.served_by, &b.served_by),
                (&c.served_by, &c.served_by),
                "{label}"
            );
            // Scripts may write the time of the call (a condition's
            // `lastTransitionTime`): only the native layer's answers are
            // compared whole, the layer that edits a template in place.
            if a.served_by.layer != LayerKind::Native {
                return false;
            }
            let Outcome::Aggregated(answer) = a.value else {
                panic!("{label}: {:?}", a.value)
            };
            let Outcome::Aggregated(owned) = b.value else {
                panic!("{label}: {:?}", b.value)
            };
            assert_eq!(at_call_time(owned), at_call_time(answer.clone()), "{label}");
            assert_eq!(at_call_time(edited), at_call_time(answer), "{label}");
            true
        }
        (Err(a), Err(b), Err(c)) => {
            assert_eq!(a.to_string(), b.to_string(), "{label}");
            assert_eq!(a.to_string(), c.to_string(), "{label}");
            assert_eq!(&edited, template, "{label}: an error changed the template");
            false
        }
        (a, b, c) => panic!("{label}: lent {a:?}, handed over {b:?}, in place {c:?}"),
    }
}

#[test]
fn aggregate_status_answers_the_same_on_a_template_handed_over() {
    let project = project_roots();
    let roots = all_roots();
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let (mut cases_run, mut native, mut mutated) = (0, 0, 0);
    for (chain, case) in cases(&roots) {
        let Some(template) = case.desired.as_ref().or(case.observed.as_ref()) else {
            continue;
        };
        if case.operation != Op::AggregateStatus {
            continue;
        }
        let items = case.status_items.as_deref();
        if aggregate_three_ways(&chain, template, items, &case.label()) {
            native += 1;
        }
        cases_run += 1;
        if !project.iter().any(|root| case.file.starts_with(root)) {
            continue;
        }
        for round in 0..20 {
            let mut template = template.clone();
            for _ in 0..1 + rng.below(3) {
                mutate(&mut rng, &mut template);
            }
            let label = format!("{} round {round}: {template}", case.label());
            aggregate_three_ways(&chain, &template, items, &label);
            mutated += 1;
        }
    }
    assert!(cases_run > 100, "only {cases_run} AggregateStatus cases");
    assert!(
        native > 50,
        "only {native} cases served by the native layer"
    );
    assert!(mutated > 1000, "only {mutated} mutated templates");
}
