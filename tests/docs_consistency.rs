//! The reference manual stays true mechanically:
//!
//! - `docs/builtins.md` has one `## <apiVersion> <Kind>` section per kind and
//!   one `### <Operation>` sub-section per operation the native layer serves,
//!   and describes nothing the native layer does not serve;
//! - `docs/bundled.md` does the same for the bundled third-party layer;
//! - every example of `docs/lua-environment.md` is a file under
//!   `docs/examples/` shown verbatim in the document, every such file is
//!   shown, and the examples pass through the golden runner
//!   (`karmada-interpreter test`) and `karmada-interpreter check`.
//!
//! The served (kind, operation) pairs come from the same public API the
//! `list` command prints (`Interpreter::catalog`), so the test follows the
//! tables wherever the code that fills them lives.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use karmada_interpreter::interpreter::LayerKind;
use karmada_interpreter::Interpreter;
use support::{cli, text};

mod support;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    let path = root().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// (apiVersion, kind) → operations, as the chain's catalog lists them for `layer`.
type Served = BTreeMap<(String, String), BTreeSet<String>>;

fn served_by(layer: LayerKind) -> Served {
    let mut out = Served::new();
    for entry in Interpreter::default().catalog() {
        if entry.source.layer == layer {
            out.entry((entry.api_version, entry.kind))
                .or_default()
                .insert(entry.operation.to_string());
        }
    }
    out
}

/// `*`, `v1`, `apps/v1`, `batch.volcano.sh/v1alpha1`: the first word of a
/// kind's heading; any other first word starts a general section.
fn looks_like_api_version(word: &str) -> bool {
    let version = word.rsplit_once('/').map_or(word, |(_, v)| v);
    word == "*"
        || version
            .strip_prefix('v')
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
}

/// One `###` sub-section: its operation, its line, and whether it has prose.
#[derive(Debug)]
struct Section {
    line: usize,
    has_text: bool,
}

/// (apiVersion, kind) → operation → its section.
type Described = BTreeMap<(String, String), BTreeMap<String, Section>>;

/// The `## <apiVersion> <Kind> ...` / `### <Operation>` sections of a
/// document. Backticks are ignored; in a `##` heading the first two words
/// are the apiVersion and the kind (`*` for the catch-all row). Headings
/// inside fenced code blocks do not count. Duplicates are reported.
fn sections(text: &str) -> (Described, Vec<String>) {
    let mut out = Described::new();
    let mut problems = Vec::new();
    let mut kind: Option<(String, String)> = None;
    let mut op: Option<String> = None;
    let mut fenced = false;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_end();
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        let heading = |prefix: &str| {
            line.strip_prefix(prefix)
                .map(|h| h.replace('`', "").trim().to_owned())
        };
        if !fenced {
            if let Some(h) = heading("### ") {
                let Some(k) = &kind else {
                    // a sub-section of a general section
                    continue;
                };
                let name = h.split_whitespace().next().unwrap_or("").to_owned();
                let ops = out.entry(k.clone()).or_default();
                if ops.contains_key(&name) {
                    problems.push(format!("line {}: {k:?} {name} described twice", i + 1));
                }
                ops.insert(
                    name.clone(),
                    Section {
                        line: i + 1,
                        has_text: false,
                    },
                );
                op = Some(name);
                continue;
            }
            if let Some(h) = heading("## ") {
                let mut words = h.split_whitespace();
                let api_version = words.next().unwrap_or("");
                if !looks_like_api_version(api_version) {
                    // a general section (`## Rules shared by every kind`)
                    kind = None;
                    op = None;
                    continue;
                }
                let key = (
                    api_version.to_owned(),
                    words.next().unwrap_or("").to_owned(),
                );
                if out.contains_key(&key) {
                    problems.push(format!("line {}: {key:?} has two sections", i + 1));
                }
                out.entry(key.clone()).or_default();
                kind = Some(key);
                op = None;
                continue;
            }
            if line.starts_with("# ") {
                kind = None;
                op = None;
                continue;
            }
        }
        if let (Some(k), Some(o)) = (&kind, &op) {
            if !line.trim().is_empty() {
                if let Some(s) = out.get_mut(k).and_then(|ops| ops.get_mut(o)) {
                    s.has_text = true;
                }
            }
        }
    }
    (out, problems)
}

/// Compares a document's sections with what a layer serves.
fn check_document(doc: &str, layer: LayerKind) {
    let served = served_by(layer);
    assert!(!served.is_empty(), "the {layer} layer serves nothing?");
    let (described, mut problems) = sections(&read(doc));
    for ((api_version, kind), ops) in &served {
        let key = (api_version.clone(), kind.clone());
        let Some(sections) = described.get(&key) else {
            problems.push(format!("no `## {api_version} {kind}` section"));
            continue;
        };
        for op in ops {
            match sections.get(op) {
                None => problems.push(format!("{api_version} {kind}: no `### {op}` section")),
                Some(s) if !s.has_text => problems.push(format!(
                    "{api_version} {kind} {op} (line {}): empty section",
                    s.line
                )),
                Some(_) => {}
            }
        }
    }
    for (key, sections) in &described {
        let Some(ops) = served.get(key) else {
            problems.push(format!(
                "section `## {} {}` describes a kind the {layer} layer does not serve",
                key.0, key.1
            ));
            continue;
        };
        for (op, s) in sections {
            if !ops.contains(op) {
                problems.push(format!(
                    "{} {} {op} (line {}): the {layer} layer does not serve it",
                    key.0, key.1, s.line
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{doc}:\n{}", problems.join("\n"));
}

#[test]
fn builtins_md_describes_exactly_the_native_table() {
    check_document("docs/builtins.md", LayerKind::Native);
}

#[test]
fn bundled_md_describes_exactly_the_bundled_layer() {
    check_document("docs/bundled.md", LayerKind::Thirdparty);
}

#[test]
fn the_section_parser_reports_missing_extra_and_empty_sections() {
    let text = "# Title\n\n## Rules shared\n\n### Errors\n\ntext\n\n## apps/v1 `Deployment`\n\n### InterpretHealth\n\nHealthy when.\n\n\
                ### Retain\n\n```\n## not/a Heading\n```\n\n## `*` `*` (every other kind)\n\n\
                ### InterpretStatus\n\ntext\n### InterpretStatus\n";
    let (s, problems) = sections(text);
    let deployment = &s[&("apps/v1".to_owned(), "Deployment".to_owned())];
    assert!(deployment["InterpretHealth"].has_text);
    // a fenced block is content, not a heading
    assert!(deployment["Retain"].has_text);
    assert!(!s.contains_key(&("not/a".to_owned(), "Heading".to_owned())));
    assert!(s.contains_key(&("*".to_owned(), "*".to_owned())));
    // general sections are not kinds
    assert!(!s.keys().any(|(a, _)| a == "Rules"));
    assert_eq!(s.len(), 2, "{s:?}");
    assert!(looks_like_api_version("batch.volcano.sh/v1alpha1"));
    assert!(!looks_like_api_version("Conventions"));
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("twice"));
}

/// The fenced blocks of a document whose first line is `# docs/examples/...`:
/// (path, content without that line).
fn example_blocks(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if !line.starts_with("```") {
            continue;
        }
        let mut body: Vec<&str> = Vec::new();
        for l in lines.by_ref() {
            if l.starts_with("```") {
                break;
            }
            body.push(l);
        }
        if let Some(path) = body
            .first()
            .and_then(|first| first.strip_prefix("# "))
            .filter(|p| p.starts_with("docs/examples/"))
        {
            let content = body[1..].join("\n") + "\n";
            out.push((path.trim().to_owned(), content));
        }
    }
    out
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[test]
fn lua_environment_examples_are_the_files_under_docs_examples() {
    let blocks = example_blocks(&read("docs/lua-environment.md"));
    assert!(blocks.len() >= 6, "too few examples: {}", blocks.len());
    let mut shown = BTreeSet::new();
    for (path, content) in &blocks {
        assert_eq!(
            &read(path),
            content,
            "{path}: the document and the file differ"
        );
        assert!(shown.insert(path.clone()), "{path} shown twice");
    }
    let mut files = Vec::new();
    files_under(&root().join("docs/examples"), &mut files);
    for file in files {
        let rel = file
            .strip_prefix(root())
            .unwrap_or(&file)
            .to_string_lossy()
            .replace('\\', "/");
        assert!(
            shown.contains(&rel),
            "{rel} is not shown in docs/lua-environment.md"
        );
    }
}

#[test]
fn lua_environment_examples_pass_the_golden_runner() {
    let blocks = example_blocks(&read("docs/lua-environment.md"));
    // Every YAML document of a testdata file is one case.
    let cases: usize = blocks
        .iter()
        .filter(|(path, _)| path.contains("/testdata/"))
        .map(|(_, content)| content.split("\n---\n").count())
        .sum();
    assert!(cases > 0);
    let out = cli(&["test", "docs/examples"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert_eq!(
        stdout.lines().last(),
        Some(format!("{cases} passed, 0 failed").as_str()),
        "{stdout}"
    );
}

#[test]
fn lua_environment_examples_pass_check() {
    let blocks = example_blocks(&read("docs/lua-environment.md"));
    let customizations: Vec<&str> = blocks
        .iter()
        .map(|(path, _)| path.as_str())
        .filter(|p| p.ends_with("/customizations.yaml"))
        .collect();
    assert!(!customizations.is_empty());
    for file in customizations {
        let out = cli(&["check", "-f", file]);
        assert!(
            out.status.success(),
            "{file}:\n{}\n{}",
            text(&out.stdout),
            text(&out.stderr)
        );
    }
}
