//! The bundled scripts' health against the one meaning of healthy
//! (`docs/health.md`, "What healthy means"): for every bundled kind Argo
//! CD's catalogue also covers, each of Argo CD's own fixtures goes through
//! our bundled `InterpretHealth`, and Argo CD's expected status, mapped
//! through the one table (`health::meaning::from_argocd`), must equal our
//! verdict, except the cases `docs/bundled.md` lists in "Health on Argo CD's
//! fixtures" (each with whose answer it is and why). A listed case that
//! starts to agree fails the run until its row is removed.
//!
//! Argo CD's catalogue is test input beside the repository (skipped when
//! absent); nothing of it is copied here.

use std::collections::BTreeMap;

use karmada_interpreter::api::InterpreterOperation as Op;
use karmada_interpreter::health::meaning;
use karmada_interpreter::interpreter::LayerKind;
use karmada_interpreter::{thirdparty, Interpreter};
use karmada_interpreter_golden::health_tests::read_tests;

/// The 27 kinds Karmada itself bundles (its
/// `pkg/resourceinterpreter/default/thirdparty/resourcecustomizations`):
/// their answers are Karmada's and kept, so a disagreement with Argo CD on
/// one of them is listed as Karmada's. Every other bundled kind is the
/// project's own and follows the table unless its row says why not.
const KARMADAS_KINDS: [&str; 27] = [
    "apps.kruise.io/v1alpha1/AdvancedCronJob",
    "apps.kruise.io/v1alpha1/BroadcastJob",
    "apps.kruise.io/v1alpha1/CloneSet",
    "apps.kruise.io/v1alpha1/DaemonSet",
    "apps.kruise.io/v1alpha1/SidecarSet",
    "apps.kruise.io/v1alpha1/UnitedDeployment",
    "apps.kruise.io/v1beta1/StatefulSet",
    "argoproj.io/v1alpha1/Workflow",
    "batch.volcano.sh/v1alpha1/Job",
    "flink.apache.org/v1beta1/FlinkDeployment",
    "helm.toolkit.fluxcd.io/v2beta1/HelmRelease",
    "kubeflow.org/v1/Notebook",
    "kubeflow.org/v1/PyTorchJob",
    "kubeflow.org/v1/TFJob",
    "kubeflow.org/v2beta1/MPIJob",
    "kustomize.toolkit.fluxcd.io/v1/Kustomization",
    "kyverno.io/v1/ClusterPolicy",
    "kyverno.io/v1/Policy",
    "ray.io/v1/RayCluster",
    "ray.io/v1/RayJob",
    "ray.io/v1/RayService",
    "source.toolkit.fluxcd.io/v1/GitRepository",
    "source.toolkit.fluxcd.io/v1beta2/Bucket",
    "source.toolkit.fluxcd.io/v1beta2/HelmChart",
    "source.toolkit.fluxcd.io/v1beta2/HelmRepository",
    "source.toolkit.fluxcd.io/v1beta2/OCIRepository",
    "sparkoperator.k8s.io/v1beta2/SparkApplication",
];

const DOC: &str = "docs/bundled.md";
const SECTION: &str = "## Health on Argo CD's fixtures";

/// One row of the documented exceptions.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Row {
    argocd: String,
    ours: String,
    whose: String,
    why: String,
}

/// `healthy`, `unhealthy` or `error`, as the table writes a verdict.
fn word(verdict: Option<bool>) -> &'static str {
    match verdict {
        Some(true) => "healthy",
        Some(false) => "unhealthy",
        None => "error",
    }
}

fn cell(text: &str) -> String {
    text.trim().trim_matches('`').to_owned()
}

/// The exception table of the section: (kind folder, fixture) → row.
fn exceptions(doc: &str) -> BTreeMap<(String, String), Row> {
    let start = doc
        .find(SECTION)
        .unwrap_or_else(|| panic!("{DOC} has no section {SECTION:?}"));
    let body = &doc[start + SECTION.len()..];
    let body = &body[..body.find("\n## ").unwrap_or(body.len())];
    let mut rows = BTreeMap::new();
    for line in body.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").collect();
        assert_eq!(cells.len(), 6, "{DOC}: a row has six cells: {line}");
        let key = (cell(cells[0]), cell(cells[1]));
        let row = Row {
            argocd: cell(cells[2]),
            ours: cell(cells[3]),
            whose: cell(cells[4]),
            why: cells[5].trim().to_owned(),
        };
        assert!(
            rows.insert(key.clone(), row).is_none(),
            "{DOC}: {key:?} is listed twice"
        );
    }
    rows
}

#[test]
fn bundled_health_follows_the_table_on_argo_cds_fixtures_but_the_listed_cases() {
    let Some(catalogue) = crate::support::shared("argocd-resource-customizations") else {
        return;
    };
    let doc = std::fs::read_to_string(std::path::Path::new(crate::support::ROOT).join(DOC))
        .expect("read docs/bundled.md");
    let listed = exceptions(&doc);
    let chain = Interpreter::default();
    let catalog = chain.catalog();
    let serves_health = |api_version: &str, kind: &str| {
        catalog.iter().any(|e| {
            e.api_version == api_version
                && e.kind == kind
                && e.operation == Op::InterpretHealth
                && e.source.layer == LayerKind::Thirdparty
        })
    };
    let bundled: Vec<&str> = thirdparty::bundled_kinds().collect();
    for kind in KARMADAS_KINDS {
        assert!(bundled.contains(&kind), "{kind} is no longer bundled");
    }

    // (ours?) → [kinds, fixtures, agreeing]
    let mut counts: BTreeMap<bool, [usize; 3]> = BTreeMap::new();
    let mut differing = BTreeMap::new();
    for path in &bundled {
        let (api_version, kind) = path.rsplit_once('/').expect("group/version/Kind");
        let group = api_version.split('/').next().expect("group/version");
        let tests = catalogue.join(group).join(kind).join("health_test.yaml");
        if !tests.is_file() || !serves_health(api_version, kind) {
            continue;
        }
        let ours = !KARMADAS_KINDS.contains(path);
        let count = counts.entry(ours).or_default();
        count[0] += 1;
        for test in read_tests(&tests).unwrap_or_else(|e| panic!("{e}")) {
            let mut object = test
                .object
                .unwrap_or_else(|e| panic!("{path} {}: {e}", test.input_path));
            // Argo CD's folders are per group and kind; a fixture written at
            // another version is judged as an object of the bundled one.
            object["apiVersion"] = api_version.into();
            let ours_says = match chain.interpret_health(&object) {
                Ok(answer) => {
                    assert_eq!(answer.served_by.layer, LayerKind::Thirdparty, "{path}");
                    Some(answer.value)
                }
                Err(_) => None,
            };
            count[1] += 1;
            if meaning::from_argocd(&test.expected.status) == ours_says {
                count[2] += 1;
            } else {
                differing.insert(
                    (path.to_string(), test.input_path.clone()),
                    (test.expected.status.clone(), word(ours_says), ours),
                );
            }
        }
    }

    let mut problems = Vec::new();
    for (key, (argocd, ours_says, ours)) in &differing {
        match listed.get(key) {
            None => problems.push(format!(
                "{key:?}: Argo CD says {argocd}, the bundled script {ours_says}; not listed in {DOC}"
            )),
            Some(row) => {
                let whose = if *ours { "ours" } else { "Karmada's" };
                if row.argocd != *argocd || row.ours != *ours_says || row.whose != whose {
                    problems.push(format!(
                        "{key:?}: the row says {} / {} / {}, the run {argocd} / {ours_says} / {whose}",
                        row.argocd, row.ours, row.whose
                    ));
                }
                if row.why.is_empty() {
                    problems.push(format!("{key:?}: the row gives no reason"));
                }
            }
        }
    }
    for key in listed.keys().filter(|k| !differing.contains_key(*k)) {
        problems.push(format!(
            "{key:?} is listed in {DOC} but agrees with the table (or is not run): remove the row"
        ));
    }
    for (ours, [kinds, fixtures, agree]) in &counts {
        let line = format!(
            "{}: {kinds} kinds, {fixtures} fixtures, {agree} agree",
            if *ours { "Ours" } else { "Karmada's" }
        );
        if !doc.contains(&line) {
            problems.push(format!("{DOC} does not say {line:?}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
