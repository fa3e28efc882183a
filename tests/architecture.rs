//! The floors hold: no module imports a module that imports it back (in
//! any crate of the repository, through `crate::`, `super::` or a braced
//! import, in `use` or in code), and each crate depends only on the floors
//! below it. The
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

/// Every crate's source root under `dir`: each `src` folder holding a
/// `lib.rs` or `main.rs` (build output and hidden folders left out).
fn crate_sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if name == "target" || name.starts_with('.') {
            continue;
        }
        if name == "src" && (path.join("lib.rs").is_file() || path.join("main.rs").is_file()) {
            out.push(path);
        } else {
            crate_sources(&path, out);
        }
    }
}

/// The edges between a crate's top-level modules, read from its source
/// root (see [`graph_of`]).
fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut paths = Vec::new();
    collect_rs(src, &mut paths);
    let files: Vec<(Vec<String>, String)> = paths
        .iter()
        .map(|file| {
            let rel = file.strip_prefix(src).unwrap();
            let text =
                std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            (module_path(rel), text)
        })
        .collect();
    graph_of(&files)
}

/// The module a file under the source root defines: `a/b.rs` and
/// `a/b/mod.rs` are `[a, b]`; `lib.rs` and `main.rs` are the root, `[]`.
fn module_path(rel: &Path) -> Vec<String> {
    let mut path: Vec<String> = rel
        .iter()
        .map(|part| {
            let part = part.to_string_lossy();
            part.strip_suffix(".rs").unwrap_or(&part).to_owned()
        })
        .collect();
    if path.last().is_some_and(|last| last == "mod") || path == ["lib"] || path == ["main"] {
        path.pop();
    }
    path
}

/// Module `A` -> `B` when code of top-level module `A` names `B` through
/// `crate::B`, `crate::{B, ..}` (the first segments of a braced group, at
/// any nesting of braces inside it), or `super::B` / `super::super::B`
/// resolved from where the code stands (its file and the inline modules
/// around it): a `super::` that stays inside `A` is no edge. Paths count
/// wherever they appear, in `use` or in expressions; a name the crate root
/// re-exports from a module (`pub use engine::Engine;`, then
/// `crate::Engine`) stands for that module. Comments, string and
/// character literals, and `#[cfg(test)]` modules (inline, or files
/// declared `#[cfg(test)] mod x;`) are left out.
fn graph_of(files: &[(Vec<String>, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let mut units = Vec::new();
    let mut test_only: Vec<Vec<String>> = Vec::new();
    for (path, text) in files {
        let (tokens, test_files) = without_test_modules(&tokens(&code_only(text)));
        test_only.extend(test_files.into_iter().map(|name| {
            let mut child = path.clone();
            child.push(name);
            child
        }));
        units.push((path.clone(), tokens));
    }
    units.retain(|(path, _)| !test_only.iter().any(|t| path.starts_with(t)));

    let mut modules: BTreeSet<String> = units
        .iter()
        .filter_map(|(p, _)| p.first().cloned())
        .collect();
    for (path, tokens) in &units {
        if path.is_empty() {
            modules.extend(inline_modules(tokens));
        }
    }
    let reexports: BTreeMap<String, String> = units
        .iter()
        .filter(|(path, _)| path.is_empty())
        .flat_map(|(_, tokens)| root_reexports(tokens, &modules))
        .collect();

    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (path, tokens) in &units {
        for (from, target) in references(path, tokens) {
            let target = match reexports.get(&target) {
                Some(module) if !modules.contains(&target) => module.clone(),
                _ => target,
            };
            if target != from && !["self", "super", "crate"].contains(&target.as_str()) {
                edges.entry(from).or_default().insert(target);
            }
        }
    }
    edges
}

/// The source with comments, string literals and character literals
/// replaced by a space.
fn code_only(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if ch == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(' ');
        } else if ch == '\'' && at(i + 1) == '\\' {
            i += 3;
            while i < c.len() && c[i] != '\'' {
                i += 1;
            }
            i += 1;
            out.push(' ');
        } else if ch == '\'' && at(i + 2) == '\'' {
            i += 3;
            out.push(' ');
        } else if ident(ch) {
            let start = i;
            while i < c.len() && ident(c[i]) {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            let hashes = c[i..].iter().take_while(|&&h| h == '#').count();
            if (word == "r" || word == "br") && at(i + hashes) == '"' {
                let close: String = std::iter::once('"')
                    .chain(std::iter::repeat_n('#', hashes))
                    .collect();
                let rest: String = c[i + hashes + 1..].iter().collect();
                let len = rest
                    .find(&close)
                    .map_or(rest.len(), |end| end + close.len());
                i += hashes + 1 + rest[..len].chars().count();
                out.push(' ');
            } else {
                out.push_str(&word);
            }
        } else {
            out.push(ch);
            i += 1;
        }
    }
    out
}

/// A token of comment-free code: a word, `::`, or one other character.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Word(String),
    Path,
    Char(char),
}

fn tokens(code: &str) -> Vec<Tok> {
    let c: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        if c[i].is_alphanumeric() || c[i] == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push(Tok::Word(c[start..i].iter().collect()));
        } else if c[i] == ':' && c.get(i + 1) == Some(&':') {
            out.push(Tok::Path);
            i += 2;
        } else {
            if !c[i].is_whitespace() {
                out.push(Tok::Char(c[i]));
            }
            i += 1;
        }
    }
    out
}

fn is_word(tok: Option<&Tok>, word: &str) -> bool {
    matches!(tok, Some(Tok::Word(w)) if w == word)
}

/// The index just past the group that opens at `open` (`{`, `[` or `(`).
fn past_group(tokens: &[Tok], open: usize) -> usize {
    let mut depth = 0usize;
    for (i, tok) in tokens.iter().enumerate().skip(open) {
        match tok {
            Tok::Char('{' | '[' | '(') => depth += 1,
            Tok::Char('}' | ']' | ')') => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

/// The tokens without `#[cfg(test)]` inline modules, and the names of the
/// test-only modules declared as files (`#[cfg(test)] mod tests;`).
fn without_test_modules(tokens: &[Tok]) -> (Vec<Tok>, Vec<String>) {
    let cfg_test = [
        Tok::Char('#'),
        Tok::Char('['),
        Tok::Word("cfg".into()),
        Tok::Char('('),
        Tok::Word("test".into()),
        Tok::Char(')'),
        Tok::Char(']'),
    ];
    let mut out = Vec::new();
    let mut files = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if !tokens[i..].starts_with(&cfg_test) {
            out.push(tokens[i].clone());
            i += 1;
            continue;
        }
        // Past further attributes and a visibility, to `mod name`.
        let mut j = i + cfg_test.len();
        loop {
            if tokens.get(j) == Some(&Tok::Char('#')) && tokens.get(j + 1) == Some(&Tok::Char('['))
            {
                j = past_group(tokens, j + 1);
            } else if is_word(tokens.get(j), "pub") {
                j += 1;
                if tokens.get(j) == Some(&Tok::Char('(')) {
                    j = past_group(tokens, j);
                }
            } else {
                break;
            }
        }
        match (tokens.get(j), tokens.get(j + 1), tokens.get(j + 2)) {
            (Some(Tok::Word(m)), Some(Tok::Word(_)), Some(Tok::Char('{'))) if m == "mod" => {
                i = past_group(tokens, j + 2);
            }
            (Some(Tok::Word(m)), Some(Tok::Word(name)), Some(Tok::Char(';'))) if m == "mod" => {
                files.push(name.clone());
                i = j + 3;
            }
            _ => {
                out.push(tokens[i].clone());
                i += 1;
            }
        }
    }
    (out, files)
}

/// The modules a file defines inline (`mod name { .. }`) at its top level.
fn inline_modules(tokens: &[Tok]) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    for (i, tok) in tokens.iter().enumerate() {
        match tok {
            Tok::Char('{') => depth += 1,
            Tok::Char('}') => depth = depth.saturating_sub(1),
            Tok::Word(w) if w == "mod" && depth == 0 => {
                if let (Some(Tok::Word(name)), Some(Tok::Char('{'))) =
                    (tokens.get(i + 1), tokens.get(i + 2))
                {
                    out.push(name.clone());
                }
            }
            _ => {}
        }
    }
    out
}

/// The names a crate root's `use` items import from its own modules
/// (`pub use engine::{Engine, Limits as L};` gives `Engine` and `L`, both
/// standing for `engine`).
fn root_reexports(tokens: &[Tok], modules: &BTreeSet<String>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Tok::Char('{') => depth += 1,
            Tok::Char('}') => depth = depth.saturating_sub(1),
            Tok::Word(w) if w == "use" && depth == 0 => {
                let end = tokens[i..]
                    .iter()
                    .position(|t| *t == Tok::Char(';'))
                    .map_or(tokens.len(), |n| i + n);
                let mut path = &tokens[i + 1..end];
                while let [Tok::Word(w), Tok::Path, rest @ ..] = path {
                    if w != "crate" && w != "self" {
                        break;
                    }
                    path = rest;
                }
                if let Some(Tok::Word(module)) = path.first() {
                    if modules.contains(module) {
                        for (n, tok) in path.iter().enumerate().skip(1) {
                            let last = matches!(path.get(n + 1), None | Some(Tok::Char(',' | '}')));
                            if let (Tok::Word(name), true) = (tok, last) {
                                if name != "self" {
                                    out.push((name.clone(), module.clone()));
                                }
                            }
                        }
                    }
                }
                i = end;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Each (top-level module, name) a path of the file names at the crate's
/// top level, for a file whose module path is `file`.
fn references(file: &[String], tokens: &[Tok]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    // The inline modules the scan is in, with the brace depth inside each.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Tok::Char('{') => depth += 1,
            Tok::Char('}') => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            Tok::Word(w) if w == "mod" => {
                if let (Some(Tok::Word(name)), Some(Tok::Char('{'))) =
                    (tokens.get(i + 1), tokens.get(i + 2))
                {
                    inline.push((name.clone(), depth + 1));
                }
            }
            Tok::Word(w)
                if (w == "crate" || w == "super")
                    && tokens.get(i + 1) == Some(&Tok::Path)
                    && (i == 0 || tokens[i - 1] != Tok::Path) =>
            {
                let here: Vec<String> = file
                    .iter()
                    .cloned()
                    .chain(inline.iter().map(|(n, _)| n.clone()))
                    .collect();
                let mut j = i;
                let mut ups = 0;
                while is_word(tokens.get(j), "super") && tokens.get(j + 1) == Some(&Tok::Path) {
                    ups += 1;
                    j += 2;
                }
                if ups == 0 {
                    j += 2; // crate::
                }
                // `crate::` starts at the root; each `super::` goes one up
                // from here. A base below the root is inside this module.
                let base = if ups == 0 {
                    0
                } else {
                    here.len().saturating_sub(ups)
                };
                if let (0, Some(from)) = (base, here.first()) {
                    for name in first_segments(tokens, j) {
                        out.push((from.clone(), name));
                    }
                }
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The first segments of the path that starts at `at`: one name, or each
/// name at the top level of a braced group (`{a, b::c, d::{e}}`: a, b, d).
fn first_segments(tokens: &[Tok], at: usize) -> Vec<String> {
    match tokens.get(at) {
        Some(Tok::Word(name)) => vec![name.clone()],
        Some(Tok::Char('{')) => {
            let end = past_group(tokens, at);
            let mut out = Vec::new();
            let mut depth = 0usize;
            let mut expect = true;
            for tok in &tokens[at..end] {
                match tok {
                    Tok::Char('{') => {
                        depth += 1;
                        expect = depth == 1;
                    }
                    Tok::Char('}') => depth -= 1,
                    Tok::Char(',') if depth == 1 => expect = true,
                    Tok::Word(name) if expect && depth == 1 => {
                        out.push(name.clone());
                        expect = false;
                    }
                    _ => expect = false,
                }
            }
            out
        }
        _ => Vec::new(),
    }
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
    let mut sources = Vec::new();
    crate_sources(Path::new(ROOT), &mut sources);
    for (name, _, src) in CRATES {
        let src = Path::new(ROOT).join(src);
        assert!(
            sources
                .iter()
                .any(|s| s.canonicalize().ok() == src.canonicalize().ok()),
            "{name}'s sources are among those checked"
        );
    }
    let mut knots = Vec::new();
    for src in &sources {
        let graph = module_graph(src);
        let cycles = in_cycles(&graph);
        if !cycles.is_empty() {
            let edges: BTreeMap<_, Vec<_>> = graph
                .iter()
                .filter(|(from, _)| cycles.contains(*from))
                .map(|(from, to)| (from, to.iter().filter(|t| cycles.contains(*t)).collect()))
                .collect();
            knots.push(format!(
                "{}: {edges:?}",
                src.strip_prefix(ROOT).unwrap_or(src).display()
            ));
        }
    }
    assert!(
        knots.is_empty(),
        "modules in import cycles (module -> the modules of its cycle it names):\n{}",
        knots.join("\n")
    );
}

/// The top-level modules of a source root (files and folders).
fn top_modules(src: &Path) -> BTreeSet<String> {
    std::fs::read_dir(src)
        .unwrap_or_else(|e| panic!("{}: {e}", src.display()))
        .filter_map(|entry| module_path(Path::new(&entry.unwrap().file_name())).pop())
        .collect()
}

#[test]
fn layers_name_the_floor_by_its_own_name() {
    // `crate::` means the crate itself: no layer makes `crate::k8s` (or
    // `super::k8s` from a top-level module) mean the floor's module through
    // an import at its root.
    let floor = top_modules(&Path::new(ROOT).join("crates/core/src"));
    assert!(floor.contains("k8s") && floor.contains("api"), "{floor:?}");
    for (name, _, src) in CRATES {
        if !allowed(name).contains(&"karmada-interpreter-core") || *name == "karmada-interpreter" {
            continue;
        }
        let src = Path::new(ROOT).join(src);
        let own = top_modules(&src);
        for (from, targets) in module_graph(&src) {
            for target in targets {
                assert!(
                    !floor.contains(&target) || own.contains(&target),
                    "{name}: {from} names the floor's `{target}` as its own; \
                     write karmada_interpreter_core::{target}"
                );
            }
        }
    }
}

#[test]
fn the_module_reader_sees_super_braces_and_expressions() {
    let file = |path: &[&str], text: &str| {
        (
            path.iter()
                .map(|p| (*p).to_owned())
                .collect::<Vec<String>>(),
            text.to_owned(),
        )
    };
    let files = [
        file(
            &[],
            "mod a; mod b;\npub use g::{Thing, Other as Alias};\nuse crate::h::Hidden;",
        ),
        file(
            &["a"],
            "use super::b::X; // crate::z\nfn f() { crate::c::g(); let s = \"crate::y\"; }\n\
             /* crate::w /* nested */ crate::w */ const C: char = '\\''; fn l<'x>() {}",
        ),
        file(
            &["a", "inner"],
            "use super::helper; use super::super::d::Y;",
        ),
        file(
            &["b"],
            "use crate::{c::{self, H}, e,\n    f::{g::G, x}};\nlet r = r#\"crate::q\"#;\n\
             #[cfg(test)]\n#[allow(unused)]\nmod tests { use crate::q; }",
        ),
        file(
            &["c"],
            "fn x() -> crate::Thing { crate::Alias::new() } fn y(_: crate::Hidden) {}",
        ),
        file(
            &["d"],
            "mod inner { use super::x; mod deeper { use super::super::w; } }\n\
                      mod up { use super::super::h; }",
        ),
        file(&["q"], "#[cfg(test)]\nmod tests;\nuse self::tests::T;"),
        file(&["q", "tests"], "use crate::a;"),
        file(&["g"], "pub struct Thing; pub struct Other;"),
        file(&["h"], "pub struct Hidden;"),
    ];
    let graph = graph_of(&files);
    let shown: Vec<String> = graph
        .iter()
        .map(|(from, to)| {
            format!(
                "{from} -> {}",
                to.iter().cloned().collect::<Vec<_>>().join(" ")
            )
        })
        .collect();
    assert_eq!(
        shown,
        ["a -> b c d", "b -> c e f", "c -> g h", "d -> h"],
        "{graph:?}"
    );
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
