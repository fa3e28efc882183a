//! The floors hold: no module imports a module that imports it back (in
//! any crate), and each crate depends only on the floors below it. The
//! crate graph is drawn in `docs/architecture.md`; this test is its check.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::support::ROOT;

/// Every crate of the workspace: (package name, manifest folder, source root).
const CRATES: &[(&str, &str, &str)] = &[
    (
        "karmada-interpreter-layout",
        "crates/layout",
        "crates/layout/src",
    ),
    (
        "karmada-interpreter-lua-src",
        "crates/lua-src",
        "crates/lua-src/src",
    ),
    ("karmada-interpreter-core", "crates/core", "crates/core/src"),
    (
        "karmada-interpreter-declarative",
        "crates/declarative",
        "crates/declarative/src",
    ),
    (
        "karmada-interpreter-webhook",
        "crates/webhook",
        "crates/webhook/src",
    ),
    ("karmada-interpreter-native", "builtin", "builtin/src"),
    (
        "karmada-interpreter-thirdparty",
        "thirdparty",
        "thirdparty/src",
    ),
    ("karmada-interpreter-lint", "crates/lint", "crates/lint/src"),
    (
        "karmada-interpreter-health",
        "crates/health",
        "crates/health/src",
    ),
    ("karmada-interpreter", ".", "src"),
    (
        "karmada-interpreter-golden",
        "crates/golden",
        "crates/golden/src",
    ),
    (
        "karmada-interpreter-cluster",
        "crates/cluster",
        "crates/cluster/src",
    ),
    ("karmada-interpreter-cli", "cli", "cli/src"),
];

/// What each crate may depend on (normal dependencies among the workspace's
/// crates). Layers build on the floor only; the thirdparty layer runs its
/// bundled scripts on the declarative layer's engine, as Karmada's does, and
/// so do the health layers; the face assembles every layer; the golden runner
/// and the cluster integration build on the face; the CLI uses all three.
fn allowed(name: &str) -> &'static [&'static str] {
    match name {
        "karmada-interpreter-layout" | "karmada-interpreter-lua-src" => &[],
        "karmada-interpreter-core" => &[],
        "karmada-interpreter-declarative" => {
            &["karmada-interpreter-core", "karmada-interpreter-lua-src"]
        }
        "karmada-interpreter-webhook" | "karmada-interpreter-native" => {
            &["karmada-interpreter-core"]
        }
        "karmada-interpreter-thirdparty" => &[
            "karmada-interpreter-core",
            "karmada-interpreter-declarative",
        ],
        "karmada-interpreter-lint" => &[
            "karmada-interpreter-core",
            "karmada-interpreter-declarative",
            "karmada-interpreter-layout",
        ],
        "karmada-interpreter-health" => &[
            "karmada-interpreter-core",
            "karmada-interpreter-declarative",
        ],
        "karmada-interpreter" => &[
            "karmada-interpreter-core",
            "karmada-interpreter-declarative",
            "karmada-interpreter-webhook",
            "karmada-interpreter-native",
            "karmada-interpreter-thirdparty",
            "karmada-interpreter-health",
            "karmada-interpreter-lint",
        ],
        "karmada-interpreter-golden" => &[
            "karmada-interpreter",
            "karmada-interpreter-layout",
            "karmada-interpreter-lint",
        ],
        "karmada-interpreter-cluster" => &["karmada-interpreter"],
        "karmada-interpreter-cli" => &[
            "karmada-interpreter",
            "karmada-interpreter-golden",
            "karmada-interpreter-cluster",
        ],
        other => panic!("unknown crate {other}"),
    }
}

/// The workspace crates named in a manifest's `[dependencies]` (normal ones).
fn workspace_dependencies(manifest: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut in_deps = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
            continue;
        }
        if !in_deps {
            continue;
        }
        let name = line.split(['=', '.', ' ']).next().unwrap_or("");
        if name.starts_with("karmada-interpreter") {
            out.insert(name.to_owned());
        }
    }
    out
}

#[test]
fn each_crate_depends_only_on_the_floors_below_it() {
    for (name, dir, _) in CRATES {
        let manifest = std::fs::read_to_string(Path::new(ROOT).join(dir).join("Cargo.toml"))
            .unwrap_or_else(|e| panic!("{dir}/Cargo.toml: {e}"));
        assert!(
            manifest.contains(&format!("name = \"{name}\"")),
            "{dir} is {name}"
        );
        for dep in workspace_dependencies(&manifest) {
            assert!(
                allowed(name).contains(&dep.as_str()),
                "{name} depends on {dep}, which is not below it"
            );
        }
    }
}

#[test]
fn the_dependency_reader_sees_normal_dependencies_only() {
    let manifest =
        "[package]\nname = \"x\"\n[dependencies]\nkarmada-interpreter-core.workspace = true\n\
                    karmada-interpreter-lint = { workspace = true }\nserde = \"1\"\n\
                    [dev-dependencies]\nkarmada-interpreter = { path = \"..\" }\n";
    let deps: Vec<String> = workspace_dependencies(manifest).into_iter().collect();
    assert_eq!(
        deps,
        ["karmada-interpreter-core", "karmada-interpreter-lint"]
    );
}

/// `crate::X` edges between a crate's top-level modules (comments ignored).
fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut files = Vec::new();
    collect_rs(src, &mut files);
    for file in files {
        let rel = file.strip_prefix(src).unwrap();
        let first = rel.iter().next().unwrap().to_string_lossy().into_owned();
        let module = first.trim_end_matches(".rs").to_owned();
        if module == "lib" || module == "main" {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or("");
            let mut rest = code;
            while let Some(at) = rest.find("crate::") {
                rest = &rest[at + "crate::".len()..];
                let target: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !target.is_empty() && target != module {
                    edges.entry(module.clone()).or_default().insert(target);
                }
            }
        }
    }
    edges
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_rs(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The modules of `edges` that reach themselves.
fn in_cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> BTreeSet<String> {
    let reach = |from: &String| {
        let mut seen = BTreeSet::new();
        let mut todo: Vec<&String> = edges.get(from).into_iter().flatten().collect();
        while let Some(next) = todo.pop() {
            if seen.insert(next.clone()) {
                todo.extend(edges.get(next).into_iter().flatten());
            }
        }
        seen
    };
    edges
        .keys()
        .filter(|m| reach(m).contains(*m))
        .cloned()
        .collect()
}

#[test]
fn no_module_imports_a_module_that_imports_it_back() {
    for (name, _, src) in CRATES {
        let graph = module_graph(&Path::new(ROOT).join(src));
        let cycles = in_cycles(&graph);
        assert!(
            cycles.is_empty(),
            "{name}: modules in import cycles: {cycles:?}\n{graph:?}"
        );
    }
}

#[test]
fn the_cycle_finder_finds_cycles() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec!["a"]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.into_iter().map(str::to_owned).collect()))
    .collect();
    let found: Vec<String> = in_cycles(&graph).into_iter().collect();
    assert_eq!(found, ["a", "b", "c"]);
}

#[test]
fn only_the_front_names_every_layer() {
    // The assembly (`Interpreter`, `InterpreterBuilder`) is defined in the
    // front crate's `interpreter` module; no layer crate can reach it (the
    // crate graph above), and inside the front only front ends use it.
    let text = std::fs::read_to_string(Path::new(ROOT).join("src/interpreter.rs")).unwrap();
    for layer in [
        "karmada_interpreter_declarative",
        "karmada_interpreter_webhook",
        "karmada_interpreter_thirdparty",
        "karmada_interpreter_native",
    ] {
        assert!(text.contains(layer), "the assembly names {layer}");
    }
    let graph = module_graph(&Path::new(ROOT).join("src"));
    for (module, targets) in &graph {
        if targets.contains("interpreter") {
            assert!(
                ["golden", "cluster", "prelude"].contains(&module.as_str()),
                "{module} imports the assembly"
            );
        }
    }
}
