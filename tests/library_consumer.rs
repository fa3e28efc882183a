//! A crate outside the workspace that depends on the library, as a Rust
//! controller author's crate does: by path, with no `[patch]` of its own,
//! offline against the versions locked here. It must get exactly the engine
//! every other test checks (gopher-lua's `pairs` order, `goto`), and its
//! default features must bring no CLI, linter, Kubernetes client or HTTP server.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{self, assert_ok, ROOT};

/// A customization whose answer depends on `pairs` order (gopher-lua visits
/// string keys in insertion order; PUC Lua in hash order) and uses `goto`.
const CUSTOMIZATION: &str = r#"
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: order}
spec:
  target: {apiVersion: example.io/v1, kind: Ordered}
  customizations:
    statusReflection:
      luaScript: |
        function ReflectStatus(observedObj)
          local t = {}
          for _, k in ipairs({"zeta", "alpha", "mid", "beta", "omega", "gamma"}) do
            t[k] = true
          end
          local keys = {}
          for k in pairs(t) do
            if k == "alpha" then goto continue end
            keys[#keys + 1] = k
            ::continue::
          end
          return {order = table.concat(keys, ",")}
        end
"#;

const MAIN: &str = r#"
use karmada_interpreter::{load, Interpreter};

fn main() {
    let text = std::fs::read_to_string("customization.yaml").expect("read");
    let items = load::customizations_from_str(&text, "customization.yaml").expect("loads");
    let chain = Interpreter::builder().customizations(items).build().expect("builds");
    let object = serde_json::json!({"apiVersion": "example.io/v1", "kind": "Ordered",
                                    "metadata": {"name": "o"}});
    let answer = chain.reflect_status(&object).expect("answers");
    println!("{}", answer.value.expect("a status")["order"].as_str().expect("text"));
}
"#;

/// The target directory this test binary was built in (`<target>/debug/deps/tests-*`):
/// the consumer builds there too, so the dependencies it shares (same
/// features) are not built twice. Cargo holds that directory's lock only
/// while it builds, not while tests run.
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    exe.ancestors()
        .nth(3)
        .expect("<target>/<profile>/deps/<exe>")
        .to_owned()
}

/// A crate of its own workspace in a scratch folder: `dependencies` (TOML
/// lines, where `{root}` is the repository's path) and `extra` manifest
/// sections, this repository's lock file and dev profile (so that the
/// dependencies already built in the shared target directory are reused),
/// and `files` (path, text).
fn scratch_crate(name: &str, dependencies: &str, extra: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = support::scratch(name);
    let root = Path::new(ROOT).canonicalize().unwrap();
    let dependencies = dependencies.replace("{root}", &root.display().to_string());
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            r#"[package]
name = "{name}"
version = "0.0.0"
edition = "2021"
publish = false

{dependencies}
# A binary picks the Kubernetes version (k8s-openapi's rule for libraries).
k8s-openapi = {{ version = "0.29", default-features = false, features = ["latest"] }}
{extra}
[profile.dev]
debug = "line-tables-only"

[profile.dev.package."*"]
debug = false

[workspace]
"#
        ),
    )
    .unwrap();
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn consumer() -> PathBuf {
    scratch_crate(
        "consumer",
        "[dependencies]\nkarmada-interpreter = { path = \"{root}\" }\nserde_json = \"1\"",
        "",
        &[("src/main.rs", MAIN), ("customization.yaml", CUSTOMIZATION)],
    )
}

fn cargo(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(args)
        .arg("--offline")
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target_dir())
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs")
}

#[test]
fn a_crate_linking_the_library_gets_the_gopher_lua_engine_and_light_defaults() {
    let dir = consumer();

    let run = cargo(&dir, &["run", "--quiet"]);
    assert_ok(&run, "cargo run");
    assert_eq!(
        support::text(&run.stdout).trim(),
        "zeta,mid,beta,omega,gamma",
        "insertion order without the key `goto` skipped (gopher-lua's answer)"
    );

    let tree = cargo(&dir, &["tree", "-e", "normal", "--prefix", "none"]);
    assert_ok(&tree, "cargo tree");
    let tree = support::text(&tree.stdout);
    for heavy in [
        "clap ",
        "selene-lib ",
        "kube-client ",
        "kube-runtime ",
        "hyper-util ",
        // The CEL health layer is feature `cel`.
        "kube-cel ",
        "cel ",
    ] {
        assert!(
            !tree.lines().any(|l| l.starts_with(heavy)),
            "{heavy}is in the default dependency tree:\n{tree}"
        );
    }
    // The engine is the patched one, and the unpatched one is not linked.
    assert!(
        tree.lines()
            .any(|l| l.starts_with("karmada-interpreter-lua-src ")),
        "{tree}"
    );
    assert!(!tree.lines().any(|l| l.starts_with("lua-src ")), "{tree}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A controller's repository testing its customizations in its own
/// `cargo test` with the golden crate's harness: Karmada's layout, one test
/// per case, a failure showing the report `karmada-interpreter test` prints.
const WIDGET_CUSTOMIZATION: &str = r#"apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: widget}
spec:
  target: {apiVersion: example.io/v1, kind: Widget}
  customizations:
    healthInterpretation:
      luaScript: |
        function InterpretHealth(observedObj)
          return observedObj.status ~= nil and observedObj.status.ready == true
        end
"#;

const WIDGET_CASES: &str = r#"name: ready
operation: InterpretHealth
observedObj: {apiVersion: example.io/v1, kind: Widget, metadata: {name: w}, status: {ready: true}}
output: {healthy: true}
---
name: not ready
operation: InterpretHealth
observedObj: {apiVersion: example.io/v1, kind: Widget, metadata: {name: w}, status: {ready: false}}
output: {healthy: false}
"#;

const HARNESS_TEST: &str = r#"
fn main() -> std::process::ExitCode {
    karmada_interpreter_golden::harness::Harness::default()
        .cases("customizations")
        .run()
}
"#;

fn golden_consumer() -> PathBuf {
    let kind = "customizations/example.io/v1/Widget";
    scratch_crate(
        "widget-controller",
        "[dev-dependencies]\nkarmada-interpreter-golden = { path = \"{root}/crates/golden\", features = [\"harness\"] }",
        "\n[[test]]\nname = \"customizations\"\nharness = false\n",
        &[
            ("src/lib.rs", "//! A controller.\n"),
            ("tests/customizations.rs", HARNESS_TEST),
            (&format!("{kind}/customizations.yaml"), WIDGET_CUSTOMIZATION),
            (&format!("{kind}/testdata/interprethealth-test.yaml"), WIDGET_CASES),
        ],
    )
}

#[test]
fn a_crate_tests_its_customizations_in_cargo_test_one_test_per_case() {
    let dir = golden_consumer();
    let run = cargo(&dir, &["test", "--test", "customizations"]);
    assert_ok(&run, "cargo test");
    let out = support::text(&run.stdout);
    let file = "customizations/example.io/v1/Widget/testdata/interprethealth-test.yaml";
    for case in ["ready", "not ready"] {
        assert!(
            out.lines()
                .any(|l| l.contains(&format!("{file}::{case} ")) && l.ends_with("ok")),
            "{out}"
        );
    }
    assert!(out.contains("2 passed; 0 failed"), "{out}");

    // A wrong expectation fails its test only, with `test`'s report.
    let cases = dir.join(file);
    std::fs::write(
        &cases,
        WIDGET_CASES.replace("output: {healthy: false}", "output: {healthy: true}"),
    )
    .unwrap();
    let run = cargo(&dir, &["test", "--test", "customizations"]);
    let out = support::text(&run.stdout);
    assert!(!run.status.success(), "{out}");
    assert!(out.contains("1 passed; 1 failed"), "{out}");
    assert!(
        out.contains(&format!(
            "FAIL {file}: case \"not ready\" (InterpretHealth)"
        )) && out.contains("healthy"),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
