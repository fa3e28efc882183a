//! Embeds every bundled customization (`<group>/<version>/<Kind>/customizations.yaml`)
//! and its golden cases (`.../testdata/*.yaml`) into the crate, so adding a
//! bundled kind touches one folder and nothing else.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use karmada_interpreter_layout as layout;

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    // A directory: cargo scans it whole, so a new kind's folder rebuilds.
    println!("cargo:rerun-if-changed={}", root.display());
    let files = layout::customization_files(&root).expect("read the bundled folders");
    let customizations = files
        .iter()
        .map(|file| {
            let dir = file.parent().expect("file has a parent");
            (relative(dir, &root), file.clone())
        })
        .collect();
    let mut out = embed(
        "/// (`<group>/<version>/<Kind>`, contents of its `customizations.yaml`), sorted by path.\n\
         pub(crate) static BUNDLED",
        customizations,
    );
    // The bundled golden cases (`<Kind>/testdata/*.yaml`): `test` with no
    // path runs them, wherever the binary runs. Named as in the repository.
    let cases = layout::case_files(&root)
        .expect("read the bundled cases")
        .into_iter()
        .map(|file| (format!("thirdparty/{}", relative(&file, &root)), file))
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
