//! What the integration tests share: the repository root, the binary and
//! the one success check ([`run_ok`], [`cli_ok`], [`assert_ok`]), scratch
//! directories, the project's golden cases, the shared test inputs beside the repository and
//! [`skipped`], the customization builder, the random generator and
//! object mutator, hand-written HTTP pieces, a mock API server and a
//! `serve` process.

#![allow(dead_code)] // each test module uses the part it needs

pub mod customization;
pub mod http1;
pub mod mutator;
pub mod rng;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The `karmada-interpreter` binary: only the CLI package's test binary
/// (`tests/tests.rs`) has it; in the library's (`tests/library.rs`) it is
/// empty and [`bin`] refuses to run.
pub const BIN: &str = match option_env!("CARGO_BIN_EXE_karmada-interpreter") {
    Some(path) => path,
    None => "",
};

/// The repository's root directory: the CLI package is one folder down,
/// the library's package is the root.
pub const ROOT: &str = if BIN.is_empty() {
    env!("CARGO_MANIFEST_DIR")
} else {
    concat!(env!("CARGO_MANIFEST_DIR"), "/..")
};

/// A folder of the shared test input beside the repository (another
/// project's catalogue, Karmada's corpora), or `None` after saying it is
/// absent ([`skipped`]): a user's clone has none, and the test then skips
/// what needs it.
pub fn shared(name: &str) -> Option<PathBuf> {
    let dir = std::path::Path::new(ROOT).join("../shared").join(name);
    if dir.is_dir() {
        Some(dir)
    } else {
        skipped(format_args!("../shared/{name} is absent"));
        None
    }
}

/// Says, in the run's output, that the running test skips something and
/// why: a `SKIPPED <test>: <reason>` line on stderr, written past libtest's
/// capture (which takes only `print!`/`eprint!` output, and shows it only
/// for failed tests), so a passing run shows what it did not check.
pub fn skipped(reason: impl std::fmt::Display) {
    use std::io::Write;
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    let _ = writeln!(std::io::stderr().lock(), "SKIPPED {test}: {reason}");
}

/// The golden cases (those that parse) of the repository's case folders
/// `dirs` (such as `conformance/native`), in file order.
pub fn golden_cases(dirs: &[&str]) -> Vec<karmada_interpreter_golden::GoldenCase> {
    use karmada_interpreter_golden::{discover, load_cases};
    let roots: Vec<PathBuf> = dirs.iter().map(|d| Path::new(ROOT).join(d)).collect();
    discover(&roots)
        .expect("the case folders exist")
        .iter()
        .flat_map(|f| load_cases(&f.path))
        .filter_map(Result::ok)
        .collect()
}

/// The text of `path`, relative to the repository's root.
pub fn read(path: &str) -> String {
    let path = std::path::Path::new(ROOT).join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A command running the binary (from the current directory).
pub fn bin() -> Command {
    assert!(
        !BIN.is_empty(),
        "this test runs the binary: it belongs to the CLI package's tests (tests/tests.rs)"
    );
    Command::new(BIN)
}

/// A fresh, empty directory for one test, under the target directory's
/// scratch space; unique within the run, whatever `name` other tests use.
pub fn scratch(name: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a scratch directory");
    dir
}

/// Runs the binary with `args`, from the repository's root directory.
pub fn cli(args: &[&str]) -> Output {
    Command::new(BIN)
        .current_dir(ROOT)
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Runs `command` and asserts it succeeded, showing its exit status,
/// stdout and stderr if not; gives its output.
#[track_caller]
pub fn run_ok(command: &mut Command) -> Output {
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("{command:?} does not start: {e}"));
    assert_ok(&out, format_args!("{command:?}"));
    out
}

/// Asserts the command that gave `out` (`what`, for the message)
/// succeeded, showing its exit status, stdout and stderr if not.
#[track_caller]
pub fn assert_ok(out: &Output, what: impl std::fmt::Display) {
    assert!(
        out.status.success(),
        "{what}: {}\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
}

/// [`cli`], asserting the binary succeeded ([`assert_ok`]).
#[track_caller]
pub fn cli_ok(args: &[&str]) -> Output {
    let out = cli(args);
    assert_ok(&out, format_args!("karmada-interpreter {}", args.join(" ")));
    out
}

/// Captured output as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}
