//! `schema.rs` is generated: this test runs its generator
//! (`tools/gen_k8s_schema.py`) on the k8s-openapi sources cargo downloaded for
//! this build and compares the output with the committed file. It skips,
//! saying why, when `python3` or those sources are not available.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The version of k8s-openapi that `Cargo.lock` pins.
fn locked_k8s_openapi(root: &Path) -> Option<String> {
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).ok()?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "name = \"k8s-openapi\"" {
            let version = lines.next()?.trim().strip_prefix("version = \"")?;
            return Some(version.trim_end_matches('"').to_owned());
        }
    }
    None
}

/// `<cargo home>/registry/src/<index>/k8s-openapi-<version>/src/v1_36`.
fn generator_input(version: &str) -> Option<PathBuf> {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))?;
    let registries = std::fs::read_dir(cargo_home.join("registry").join("src")).ok()?;
    registries
        .flatten()
        .map(|index| {
            index
                .path()
                .join(format!("k8s-openapi-{version}"))
                .join("src")
                .join("v1_36")
        })
        .find(|dir| dir.is_dir())
}

#[test]
fn schema_rs_matches_its_generator() {
    // The repository's root (this crate is `crates/core`); a packaged copy
    // of the crate has no generator and no lock file, and skips.
    let root = &Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    if !root.join("tools/gen_k8s_schema.py").is_file() {
        eprintln!("skipped: the generator (tools/gen_k8s_schema.py) is not here");
        return;
    }
    let Some(version) = locked_k8s_openapi(root) else {
        eprintln!("skipped: no k8s-openapi in Cargo.lock");
        return;
    };
    let Some(input) = generator_input(&version) else {
        eprintln!("skipped: the k8s-openapi {version} sources (the generator's input) are not in the cargo registry");
        return;
    };
    let output = match Command::new("python3")
        .arg(root.join("tools/gen_k8s_schema.py"))
        .arg(&input)
        .output()
    {
        Ok(output) => output,
        Err(e) => {
            eprintln!("skipped: cannot run python3: {e}");
            return;
        }
    };
    assert!(
        output.status.success(),
        "tools/gen_k8s_schema.py failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let generated = String::from_utf8(output.stdout).expect("the generator writes UTF-8");
    let committed = std::fs::read_to_string(root.join("crates/core/src/k8s/normalize/schema.rs"))
        .expect("schema.rs is in the repository");
    if generated != committed {
        let line = generated
            .lines()
            .zip(committed.lines())
            .position(|(g, c)| g != c)
            .unwrap_or_else(|| generated.lines().count().min(committed.lines().count()));
        panic!(
            "crates/core/src/k8s/normalize/schema.rs differs from what tools/gen_k8s_schema.py generates \
             (first difference at line {}); regenerate it: \
             python3 tools/gen_k8s_schema.py {} > crates/core/src/k8s/normalize/schema.rs",
            line + 1,
            input.display()
        );
    }
}
