//! Helpers shared by the test targets that run the `karmada-interpreter`
//! binary (they need the `cli` feature).

use std::process::{Command, Output};

/// Runs the binary with `args`, from the crate's root directory.
pub fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_karmada-interpreter"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Captured output as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}
