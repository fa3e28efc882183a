//! Lua probes whose answers Karmada's own code gave (tests/data/gopher-probes):
//! each probe's script runs as an InterpretStatus customization and must give
//! Karmada's value or Karmada's error message. The answers were recorded with
//! `tools/gopher_probes.py`, which runs the same scripts through Karmada's
//! declarative interpreter (gopher-lua); a probe marked `deviation` is one of
//! the deliberate differences of COMPATIBILITY.md, one marked `open` a
//! difference not bridged yet; both must still differ.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use karmada_interpreter::api::{InterpreterOperation, ResourceInterpreterCustomization};
use karmada_interpreter::declarative::LuaLayer;
use karmada_interpreter::interpreter::{Layer, Outcome, Request};
use karmada_interpreter::Error;
use serde::Deserialize;
use serde_json::Value;

use crate::support::customization::Customization;

#[derive(Deserialize)]
struct Probe {
    name: String,
    script: String,
    karmada: Answer,
    /// Why the engine answers differently on purpose (a COMPATIBILITY.md rule).
    #[serde(default)]
    deviation: Option<String>,
    /// A difference not bridged yet (docs/lua-engine.md, "Remaining
    /// differences"): the probe must still differ, so the list stays honest.
    #[serde(default)]
    open: Option<String>,
}

#[derive(Deserialize, Debug, PartialEq, Default)]
#[serde(deny_unknown_fields)]
struct Answer {
    #[serde(default)]
    value: Option<Value>,
    #[serde(default)]
    error: Option<String>,
}

fn data() -> PathBuf {
    Path::new(crate::support::ROOT).join("tests/data/gopher-probes")
}

fn probes() -> Vec<(String, Probe)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(data())
        .expect("probe directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("probe file");
        let list: Vec<Probe> =
            serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let file = f.file_name().unwrap().to_string_lossy().into_owned();
        out.extend(list.into_iter().map(|p| (file.clone(), p)));
    }
    out
}

fn customization(kind: &str, script: String) -> ResourceInterpreterCustomization {
    Customization::new(&format!("probe-{kind}"), "probe.example.io/v1", kind)
        .script(InterpreterOperation::InterpretStatus, &script)
        .typed()
}

/// Whitespace runs as one space, as the oracle writes Karmada's messages.
fn normalized(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn answer(result: Result<Outcome, Error>) -> Answer {
    match result {
        Ok(Outcome::Status(status)) => Answer {
            value: status.and_then(|s| s.get("v").cloned()),
            error: None,
        },
        Ok(other) => panic!("unexpected outcome {other:?}"),
        Err(e) => Answer {
            value: None,
            error: Some(normalized(
                &match karmada_interpreter::declarative::script_error(&e) {
                    Some(failure) => failure.error.message().to_owned(),
                    None => e.to_string(),
                },
            )),
        },
    }
}

#[test]
fn probes_answer_as_karmada() {
    let wrapper = std::fs::read_to_string(data().join("wrapper.lua")).expect("wrapper");
    let object: Value =
        serde_json::from_str(&std::fs::read_to_string(data().join("object.json")).expect("object"))
            .expect("object json");
    let probes = probes();
    assert!(probes.len() >= 500, "only {} probes", probes.len());
    let customizations = probes
        .iter()
        .enumerate()
        .map(|(i, (_, p))| {
            customization(
                &format!("P{i}"),
                wrapper.replace("@BODY@", p.script.trim_end_matches('\n')),
            )
        })
        .collect();
    let layer = LuaLayer::customizations(customizations).expect("layer");
    let mut failures = BTreeMap::new();
    let mut matched = 0;
    // GOPHER_PROBE=<text>: run only the probes whose name contains it
    let only = std::env::var("GOPHER_PROBE").ok();
    for (i, (file, p)) in probes.iter().enumerate() {
        if only.as_ref().is_some_and(|o| !p.name.contains(o.as_str())) {
            continue;
        }
        let mut obj = object.clone();
        obj["kind"] = Value::String(format!("P{i}"));
        let got = answer(layer.interpret(&Request::InterpretStatus { object: &obj }));
        let same = got == p.karmada;
        if same {
            matched += 1;
        }
        match (p.deviation.as_ref().or(p.open.as_ref()), same) {
            (None, false) => {
                failures.insert(
                    format!("{file}: {}", p.name),
                    format!("Karmada {:?}, here {got:?}", p.karmada),
                );
            }
            (Some(_), true) => {
                failures.insert(
                    format!("{file}: {}", p.name),
                    "marked as a deviation or open difference but answers as Karmada".to_owned(),
                );
            }
            _ => {}
        }
    }
    eprintln!("{matched} of {} probes answer as Karmada", probes.len());
    let report: Vec<String> = failures.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    assert!(
        failures.is_empty(),
        "{} probes differ:\n{}",
        failures.len(),
        report.join("\n")
    );
}
