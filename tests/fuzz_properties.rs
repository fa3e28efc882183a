//! Bounded property tests: every fuzz target of `fuzz/` (same code, included
//! below) over a fixed-seed set of inputs, so `cargo test` checks in seconds
//! what `cargo fuzz` explores for hours.
//!
//! Per target the inputs are: every saved regression input
//! (`fuzz/regressions/<target>/`, the crashes fuzzing found), the seed texts
//! below (valid samples of what the target decodes) and a few thousand (for
//! the YAML files, 500) deterministic mutations of them (a small xorshift
//! picks bit flips, byte insertions, deletions, duplications and splices of
//! interesting tokens).
//! A target passes when no input panics: the code under test answers or
//! returns its typed error, and the target's own invariants hold.

#[allow(dead_code)]
#[path = "../fuzz/src/lib.rs"]
mod harness;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use rstest::rstest;

/// Inputs per target besides seeds and regressions.
const MUTATIONS: usize = 2500;
/// Fewer for the YAML files: each input is parsed three ways and loaded
/// (about 20 ms per input in a debug build).
const YAML_MUTATIONS: usize = 500;

fn mutations(target: &str) -> usize {
    if target == "yaml_files" {
        YAML_MUTATIONS
    } else {
        MUTATIONS
    }
}

use crate::support::rng;
use rng::Rng;

/// Tokens spliced into mutated inputs.
const TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b":",
    b",",
    b"null",
    b"-",
    b".",
    b"e",
    b"Ki",
    b"Ei",
    b"m",
    b"1e400",
    b"9223372036854775808",
    b"\n",
    b"---\n",
    b"  ",
    b"&a ",
    b"*a",
    b"!!binary ",
    b"<<: ",
    b"\xff",
    b"\\u0000",
];

fn mutate(rng: &mut Rng, seed: &[u8]) -> Vec<u8> {
    let mut out = seed.to_vec();
    for _ in 0..=rng.below(4) {
        let at = rng.below(out.len() + 1);
        match rng.below(6) {
            0 if !out.is_empty() => {
                let i = rng.below(out.len());
                out[i] ^= 1 << rng.below(8);
            }
            1 => out.insert(at, rng.next() as u8),
            2 if !out.is_empty() => {
                let end = (at + rng.below(16)).min(out.len());
                out.drain(at.min(end)..end);
            }
            3 if !out.is_empty() => {
                let start = rng.below(out.len());
                let end = (start + rng.below(32)).min(out.len());
                let piece = out[start..end].to_vec();
                out.splice(at..at, piece);
            }
            _ => {
                let token = TOKENS[rng.below(TOKENS.len())];
                out.splice(at..at, token.iter().copied());
            }
        }
    }
    out
}

fn random_bytes(rng: &mut Rng, max: usize) -> Vec<u8> {
    let n = rng.below(max);
    (0..n).map(|_| rng.next() as u8).collect()
}

fn root() -> PathBuf {
    PathBuf::from(crate::support::ROOT)
}

/// Every file under `dir` (sorted), read as bytes; none when it is absent.
fn files_under(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            out.extend(files_under(&p));
        } else if let Ok(bytes) = std::fs::read(&p) {
            out.push((p.display().to_string(), bytes));
        }
    }
    out
}

/// Valid samples of what each target decodes.
fn seeds(target: &str) -> Vec<Vec<u8>> {
    let text = |s: &str| s.as_bytes().to_vec();
    match target {
        "webhook_context" => vec![
            text(
                r#"{"apiVersion":"config.karmada.io/v1alpha1","kind":"ResourceInterpreterContext","response":{"uid":"u","successful":true,"replicas":2,"replicaRequirements":{"resourceRequest":{"cpu":"100m"}}}}"#,
            ),
            text(
                r#"{"response":{"uid":"u","successful":true,"patchType":"JSONPatch","patch":"W3sib3AiOiJyZXBsYWNlIiwicGF0aCI6Ii9zcGVjL3JlcGxpY2FzIiwidmFsdWUiOjJ9XQ=="}}"#,
            ),
            text(
                r#"{"response":{"uid":"u","successful":false,"status":{"code":500,"message":"no"}}}"#,
            ),
            text(
                r#"{"response":{"uid":"u","successful":true,"healthy":true,"rawStatus":{"a":1},"dependencies":[{"apiVersion":"v1","kind":"Secret","namespace":"d","name":"s"}],"components":[{"name":"c","replicas":1}]}}"#,
            ),
            text("response:\n  uid: u\n  successful: true\n  healthy: false\n"),
            text(
                r#"{"apiVersion":"config.karmada.io/v1alpha1","kind":"ResourceInterpreterContext","request":{"uid":"u","kind":{"group":"apps","version":"v1","kind":"Deployment"},"name":"n","namespace":"d","operation":"InterpretReplica","object":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"n"},"spec":{"replicas":3}},"replicas":0}}"#,
            ),
            text(
                r#"{"request":{"uid":"u","kind":{"group":"apps","version":"v1","kind":"Deployment"},"operation":"Retain","object":{"apiVersion":"apps/v1","kind":"Deployment"},"observedObject":{"apiVersion":"apps/v1","kind":"Deployment","spec":{"paused":true}}}}"#,
            ),
            text(
                r#"{"request":{"uid":"u","kind":{"group":"","version":"v1","kind":"Pod"},"operation":"AggregateStatus","object":{"apiVersion":"v1","kind":"Pod"},"aggregatedStatus":[{"clusterName":"a","status":{"phase":"Running"},"applied":true}]}}"#,
            ),
        ],
        "yaml_files" => {
            let mut out: Vec<Vec<u8>> = Vec::new();
            for dir in [
                "conformance/native/apps",
                "conformance/lua",
                "thirdparty",
                "deploy",
            ] {
                out.extend(
                    files_under(&root().join(dir))
                        .into_iter()
                        .filter(|(name, bytes)| name.ends_with(".yaml") && bytes.len() <= 4096)
                        .step_by(7)
                        .take(4)
                        .map(|(_, bytes)| bytes),
                );
            }
            out
        }
        "quantity" => [
            "0",
            "1",
            "-1",
            "+1",
            "100m",
            "1.5",
            "0.5Gi",
            "1Ki",
            "1Ei",
            "8Ei",
            "1e3",
            "1E-3",
            "1e-9",
            "123456789012345678901234567890",
            "0.000000001",
            "1n",
            "1u",
            "1k",
            "1M",
            "1G",
            "1T",
            "1P",
            "1E",
            "1Pi",
            ".",
            "+",
            "-",
            "1e4294967296",
            "9.99999999e18",
        ]
        .iter()
        .map(|s| text(s))
        .collect(),
        _ => Vec::new(),
    }
}

/// The fixed input set of `target`: regressions, seeds, mutations of the
/// seeds (or, for the generator-driven targets, random byte strings).
fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let mut out = files_under(&root().join("fuzz/regressions").join(target));
    let seeds = seeds(target);
    out.extend(
        seeds
            .iter()
            .enumerate()
            .map(|(i, s)| (format!("seed {i}"), s.clone())),
    );
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ target.len() as u64);
    for i in 0..mutations(target) {
        let input = if seeds.is_empty() {
            random_bytes(&mut rng, 600)
        } else {
            let seed = &seeds[rng.below(seeds.len())];
            mutate(&mut rng, seed)
        };
        out.push((format!("generated {i}"), input));
    }
    out
}

#[rstest]
fn no_input_panics(
    #[values(
        "webhook_context",
        "yaml_files",
        "native_operation",
        "host_to_lua",
        "lua_to_host",
        "webhook_patch",
        "quantity"
    )]
    target: &str,
) {
    let (_, run) = harness::TARGETS
        .iter()
        .find(|(name, _)| *name == target)
        .expect("every target is listed");
    let inputs = inputs(target);
    assert!(inputs.len() >= mutations(target));
    let mut failures = Vec::new();
    for (name, input) in &inputs {
        if catch_unwind(AssertUnwindSafe(|| run(input))).is_err() {
            failures.push(format!("{name}: {:?}", String::from_utf8_lossy(input)));
        }
    }
    assert!(
        failures.is_empty(),
        "{target}: {} of {} inputs panicked:\n{}",
        failures.len(),
        inputs.len(),
        failures.join("\n")
    );
}

#[test]
fn every_target_is_tested() {
    let names: Vec<&str> = harness::TARGETS.iter().map(|(n, _)| *n).collect();
    let bins = std::fs::read_dir(root().join("fuzz/fuzz_targets"))
        .expect("fuzz/fuzz_targets exists")
        .filter_map(|e| e.ok())
        .map(|e| {
            e.file_name()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_owned()
        })
        .collect::<std::collections::BTreeSet<_>>();
    let listed = names.iter().map(|n| (*n).to_owned()).collect();
    assert_eq!(bins, listed, "fuzz binaries and harness::TARGETS differ");
}
