//! Embeds every bundled customization (`thirdparty/<group>/<version>/<Kind>/customizations.yaml`)
//! and its golden cases (`.../testdata/*.yaml`) into the library, so adding a bundled kind
//! touches one folder and nothing else.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let thirdparty = root.join("thirdparty");
    println!("cargo:rerun-if-changed=thirdparty");
    let mut files = Vec::new();
    collect(&thirdparty, &mut files);
    files.sort();
    let customizations = files
        .iter()
        .map(|file| {
            let dir = file.parent().expect("file has a parent");
            (relative(dir, &thirdparty), file.clone())
        })
        .collect();
    let mut out = embed(
        "/// (`<group>/<version>/<Kind>`, contents of its `customizations.yaml`), sorted by path.\n\
         pub(crate) static BUNDLED",
        customizations,
    );
    // The bundled golden cases (`<Kind>/testdata/*.yaml`): `test` with no
    // path runs them, wherever the binary runs.
    let mut cases = Vec::new();
    collect_cases(&thirdparty, &mut cases);
    cases.sort();
    let cases = cases
        .into_iter()
        .map(|file| (relative(&file, &root), file))
        .collect();
    out.push_str(&embed(
        "/// (`thirdparty/<group>/<version>/<Kind>/testdata/<file>`, its contents), sorted by path.\n\
         pub(crate) static BUNDLED_CASES",
        cases,
    ));
    let dest = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo")).join("bundled.rs");
    std::fs::write(dest, out).expect("write bundled.rs");
}

/// `path` below `base`, with `/` separators.
fn relative(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .expect("under the manifest dir")
        .to_string_lossy()
        .replace('\\', "/")
}

/// `<head>: &[(&str, &str)] = &[...];`: each (name, file) as the name and the
/// file's contents (included at compile time, and watched for changes).
fn embed(head: &str, entries: Vec<(String, PathBuf)>) -> String {
    let mut out = format!("{head}: &[(&str, &str)] = &[\n");
    for (name, file) in entries {
        println!("cargo:rerun-if-changed={}", file.display());
        writeln!(
            out,
            "    ({name:?}, include_str!({:?})),",
            file.display().to_string()
        )
        .expect("write to string");
    }
    out.push_str("];\n");
    out
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "testdata") {
                println!("cargo:rerun-if-changed={}", path.display());
                collect(&path, files);
            }
        } else if path.file_name().is_some_and(|n| n == "customizations.yaml") {
            files.push(path);
        }
    }
}

/// Every `*.yaml`/`*.yml` file in a `testdata/` folder under `dir`.
fn collect_cases(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let in_testdata = dir.file_name().is_some_and(|n| n == "testdata");
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            println!("cargo:rerun-if-changed={}", path.display());
            collect_cases(&path, files);
        } else if in_testdata && path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            files.push(path);
        }
    }
}
