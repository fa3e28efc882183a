//! The reference manual stays true mechanically:
//!
//! - `docs/builtins.md` has one `## <apiVersion> <Kind>` section per kind and
//!   one `### <Operation>` sub-section per operation the native layer serves,
//!   and describes nothing the native layer does not serve;
//! - `docs/bundled.md` does the same for the bundled third-party layer;
//! - every example of `docs/lua-environment.md` is a file under
//!   `docs/examples/` shown verbatim in the document, every such file is
//!   shown, and the examples pass through the golden runner
//!   (`karmada-interpreter test`) and `karmada-interpreter check`;
//! - every reference resolves inside the repository: no source, document,
//!   script or test data cites a numbered section (the section sign) or a
//!   document the repository does not contain, no comment or document sends
//!   the reader to the `shared` folder beside the checkout, and every relative
//!   Markdown link names a file that exists;
//! - the README keeps its two commands (set-up and run; tests) as written, CI
//!   runs the test command, the page stays short, and it links every
//!   document under `docs/`.
//!
//! The served (kind, operation) pairs come from the same public API the
//! `list` command prints (`Interpreter::catalog`), so the test follows the
//! tables wherever the code that fills them lives.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use karmada_interpreter::interpreter::LayerKind;
use karmada_interpreter::Interpreter;
use support::text;

use crate::support;
use crate::support::cli_ok;

fn root() -> PathBuf {
    PathBuf::from(crate::support::ROOT)
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
    let out = cli_ok(&["test", "docs/examples"]);
    let stdout = text(&out.stdout);
    assert_eq!(
        stdout.lines().last().and_then(|l| l.split(" in ").next()),
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
        cli_ok(&["check", "-f", file]);
    }
}

// ---- every reference resolves inside the repository

/// Folders never scanned: build output, vendored third-party code, git.
const SKIPPED_DIRS: [&str; 3] = ["target", "vendor", ".git"];
/// The kinds of file a reader follows references in.
const SCANNED_EXTENSIONS: [&str; 6] = ["rs", "md", "lua", "yaml", "yml", "toml"];

/// Every scanned file of the repository, relative to its root, with its text.
fn repository_texts() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            // A symbolic link stands for its target, which is scanned where
            // it is (a crate's link to the root's COMPATIBILITY.md, so that
            // the packaged crate carries it).
            if entry.file_type().is_ok_and(|t| t.is_symlink()) {
                continue;
            }
            if path.is_dir() {
                if !SKIPPED_DIRS.iter().any(|s| name == *s) {
                    walk(&path, out);
                }
            } else if path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| SCANNED_EXTENSIONS.contains(&e))
            {
                out.push(path);
            }
        }
    }
    let mut paths = Vec::new();
    walk(&root(), &mut paths);
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let rel = p.strip_prefix(root()).unwrap_or(&p).display().to_string();
            (rel, String::from_utf8_lossy(&bytes).into_owned())
        })
        .collect()
}

/// What makes a line a reference the repository cannot resolve (`None`
/// when it is fine): the section sign, the name of a document that is not
/// in the repository, or (in a comment or a document) the `shared` folder
/// beside the checkout. Code may still read that folder's data.
fn unresolved_reference(file: &str, line: &str) -> Option<&'static str> {
    // Spelled out piecewise so that this file does not match itself.
    const OUTSIDE_DOCUMENTS: [&str; 6] = [
        concat!("native-", "builtins.md"),
        concat!("webhook-and-", "cli.md"),
        concat!("thirdparty-", "semantics.md"),
        concat!("lua-environment.md ", "\u{a7}"),
        concat!("reference-cases/", "README"),
        concat!("bench-inputs/", "README"),
    ];
    if line.contains('\u{a7}') {
        return Some("a numbered section of a document outside the repository");
    }
    if OUTSIDE_DOCUMENTS.iter().any(|d| line.contains(d)) {
        return Some("a document outside the repository");
    }
    let prose = file.ends_with(".md") || {
        let code = line.trim_start();
        code.starts_with("//") || code.starts_with('#') || code.starts_with("--")
    };
    if prose && line.contains(concat!("../", "shared")) {
        return Some("the shared folder outside the repository");
    }
    None
}

#[test]
fn no_reference_points_outside_the_repository() {
    let texts = repository_texts();
    assert!(
        texts.iter().any(|(rel, _)| rel == "src/lib.rs") && texts.len() > 100,
        "the scan found too few files ({}): is the walk broken?",
        texts.len()
    );
    let mut found = Vec::new();
    for (rel, text) in &texts {
        for (n, line) in text.lines().enumerate() {
            if let Some(why) = unresolved_reference(rel, line) {
                found.push(format!("{rel}:{}: {why}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "references that do not resolve in the repository:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_reference_check_catches_outside_references() {
    let sign = "\u{a7}";
    assert!(unresolved_reference("src/a.rs", &format!("/// as in {sign}14.1")).is_some());
    assert!(
        unresolved_reference("x.yaml", &format!("description: \"kept ({sign}7.1)\"")).is_some()
    );
    let doc = concat!("webhook-and-", "cli.md");
    assert!(unresolved_reference("src/a.rs", &format!("//! see `{doc}`")).is_some());
    let shared = concat!("../", "shared/bench-inputs");
    assert!(unresolved_reference("docs/a.md", &format!("figures in `{shared}`")).is_some());
    assert!(unresolved_reference("benches/a.rs", &format!("// see {shared}")).is_some());
    // Code may read the shared data; plain links to repository documents are fine.
    assert!(unresolved_reference(
        "tests/a.rs",
        &format!("    let d = root().join(\"{shared}\");")
    )
    .is_none());
    assert!(unresolved_reference("src/a.rs", "/// see `docs/webhook.md`").is_none());
}

/// The relative targets of the Markdown links of `text` (outside code blocks;
/// no URLs, no in-page anchors), without their `#anchor`.
fn relative_links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let Some(end) = rest.find(')') else { break };
            let target = &rest[..end];
            rest = &rest[end..];
            let is_url = target.split_once(':').is_some_and(|(scheme, _)| {
                !scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphabetic())
            });
            if target.is_empty() || target.starts_with('#') || is_url || target.contains(' ') {
                continue;
            }
            let path = target.split('#').next().unwrap_or(target);
            out.push(path.to_owned());
        }
    }
    out
}

#[test]
fn markdown_links_name_files_in_the_repository() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for (rel, text) in repository_texts() {
        if !rel.ends_with(".md") {
            continue;
        }
        let dir = root().join(&rel);
        let dir = dir.parent().unwrap_or(&dir);
        for link in relative_links(&text) {
            checked += 1;
            if !dir.join(&link).exists() {
                broken.push(format!("{rel}: ({link})"));
            }
        }
    }
    assert!(
        checked > 10,
        "only {checked} relative links found: is the link parser broken?"
    );
    assert!(
        broken.is_empty(),
        "links to files that do not exist:\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_link_parser_finds_relative_targets_only() {
    let text = "see [a](docs/a.md#x), [b](https://x.io/y) and [c](#top)\n```\n[d](no.md)\n```\n[e](../README.md)";
    assert_eq!(relative_links(text), ["docs/a.md", "../README.md"]);
}

// ---- the front page

/// The lines inside a document's ```sh blocks, trimmed.
fn sh_lines(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut in_sh = false;
    for line in text.lines() {
        if line.starts_with("```") {
            in_sh = line == "```sh";
            continue;
        }
        if in_sh {
            out.push(line.trim());
        }
    }
    out
}

/// The README keeps its two commands as written (set-up and run; tests),
/// CI runs exactly the test command first (then its other checks), and the
/// page stays one a newcomer
/// reads in minutes: reference material belongs in `docs/`.
#[test]
fn readme_keeps_its_two_commands_and_stays_short() {
    let readme = read("README.md");
    let commands = sh_lines(&readme);
    for command in [
        "cargo run --release -- test conformance thirdparty",
        "cargo test --all-features",
    ] {
        assert!(
            commands.contains(&command),
            "README.md has no ```sh line `{command}`"
        );
    }
    let ci = read(".ci/run");
    let first = ci.lines().map(str::trim).find(|l| l.starts_with("cargo "));
    assert_eq!(
        first,
        Some("cargo test --all-features"),
        "the first cargo command of .ci/run is the README's test command, as written:\n{ci}"
    );
    let lines = readme.lines().count();
    assert!(
        lines < 300,
        "README.md has {lines} lines: move reference material into docs/"
    );
}

/// Every document under `docs/` is linked from the README, so a reader of
/// the front page can reach all of them.
#[test]
fn readme_links_every_document_under_docs() {
    let linked: BTreeSet<String> = relative_links(&read("README.md")).into_iter().collect();
    let mut documents = Vec::new();
    for entry in std::fs::read_dir(root().join("docs")).expect("docs/") {
        let path = entry.expect("docs/ entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            documents.push(format!("docs/{name}"));
        }
    }
    assert!(documents.len() >= 10, "too few documents: {documents:?}");
    let missing: Vec<&String> = documents.iter().filter(|d| !linked.contains(*d)).collect();
    assert!(
        missing.is_empty(),
        "documents the README does not link: {missing:?}"
    );
}
