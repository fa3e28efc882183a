//! Resident memory stays flat over many mixed operations on one interpreter
//! (no leak per call in the Lua engine, the native built-ins or the chain).
//!
//! Every golden case of the project's own (the bundled customizations'
//! `thirdparty/**/testdata` and the native built-ins' `conformance/native`)
//! is run in turn, over and over, on one default chain: every operation
//! kind, Lua and native. Resident memory is read from `/proc/self/statm`
//! after a warm-up and then at intervals; its growth past the warm-up
//! figure must stay within a tolerance.
//!
//! The other tests of this binary run in the same process at the same
//! time, so each check runs in a process of its own: the test re-executes
//! the test binary filtered to itself, with an environment variable that
//! makes the child run the check rather than spawn another child.
//!
//! `cargo test` runs a bounded 20,000-operation version. The full check,
//! 1,000,000 operations (9 minutes on a debug build, much less on a
//! release build):
//!
//! ```sh
//! cargo test --release --all-features --test tests -- memory::resident_memory_stays_flat_over_1m --ignored --nocapture
//! ```

use std::collections::BTreeSet;
use std::hint::black_box;
use std::process::Command;

use karmada_interpreter::api::InterpreterOperation;
use karmada_interpreter::interpreter::LayerKind;
use karmada_interpreter::Interpreter;
use karmada_interpreter_golden::{is_webhook_only, GoldenCase};

use crate::support::assert_ok;

/// Set in the child process: run the check here.
const CHILD: &str = "KARMADA_INTERPRETER_MEMORY_CHECK_CHILD";

const MIB: f64 = 1024.0 * 1024.0;

/// The process's resident memory in bytes (Linux), `None` elsewhere.
fn rss_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    #[allow(unsafe_code)] // sysconf (libc)
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * u64::try_from(page).ok()?)
}

/// The process's peak resident memory (`VmHWM`) in bytes (Linux).
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The project's own golden cases that one default chain serves (no
/// customization file of their own, no webhook).
fn cases() -> Vec<GoldenCase> {
    crate::support::golden_cases(&["thirdparty", "conformance/native"])
        .into_iter()
        .filter(|c| !is_webhook_only(&c.file))
        .filter(|c| c.status_items_error.is_none() && c.request().is_ok())
        .collect()
}

/// Runs one case's operation; the layer that answered, if it succeeded.
fn call(chain: &Interpreter, case: &GoldenCase) -> Option<LayerKind> {
    let request = case.request().ok()?;
    let answer = match request.to_owned_edit() {
        Some(edit) => chain.interpret_owned(edit),
        None => chain.interpret(&request),
    };
    black_box(answer).ok().map(|a| a.served_by.layer)
}

/// Runs `total` operations, cycling through the cases, and checks that
/// resident memory grows by at most `tolerance_mib` after the first
/// `warm_up` operations. Prints the figures.
fn flat_memory(total: usize, warm_up: usize, report_every: usize, tolerance_mib: f64) {
    assert!(
        std::env::var_os(CHILD).is_some(),
        "runs only in a process of its own (see in_own_process)"
    );
    let chain = Interpreter::builder().build().expect("the default chain");
    let cases = cases();
    assert!(cases.len() > 50, "only {} cases found", cases.len());

    // The mix covers every operation kind, answered by Lua and by native code.
    let mut served: BTreeSet<(LayerKind, InterpreterOperation)> = BTreeSet::new();
    for case in &cases {
        if let Some(layer) = call(&chain, case) {
            served.insert((layer, case.operation));
        }
    }
    let operations: BTreeSet<InterpreterOperation> = served.iter().map(|(_, op)| *op).collect();
    assert_eq!(operations.len(), 8, "operations answered: {served:?}");
    for layer in [LayerKind::Thirdparty, LayerKind::Native] {
        assert!(
            served.iter().any(|(l, _)| *l == layer),
            "{layer:?} answered nothing: {served:?}"
        );
    }

    let mut baseline = None;
    let mut peak = 0_u64;
    let mut done = 0;
    while done < total {
        for case in &cases {
            call(&chain, case);
            done += 1;
            if done == warm_up {
                let rss = rss_bytes().expect("resident memory");
                baseline = Some(rss);
                println!(
                    "{done:>9} operations (warm-up done): {:.1} MiB resident",
                    rss as f64 / MIB
                );
            } else if done > warm_up && (done % report_every == 0 || done == total) {
                let rss = rss_bytes().expect("resident memory");
                peak = peak.max(rss);
                println!("{done:>9} operations: {:.1} MiB resident", rss as f64 / MIB);
            }
            if done == total {
                break;
            }
        }
    }
    let baseline = baseline.expect("the warm-up ends before the run does");
    let growth = peak.saturating_sub(baseline) as f64 / MIB;
    println!(
        "{total} operations over {} cases: resident memory grew {growth:.2} MiB after the warm-up (at most {tolerance_mib} MiB allowed); process peak {:.1} MiB",
        cases.len(),
        peak_rss_bytes().unwrap_or(0) as f64 / MIB
    );
    assert!(
        growth <= tolerance_mib,
        "resident memory grew {growth:.2} MiB after the warm-up of {warm_up} operations"
    );
}

/// Runs `check` in a child process that runs only the test `name` (of this
/// module): the test binary again, filtered to that one test, with [`CHILD`]
/// set. In the child, runs `check` itself. Fails when the child fails or
/// did not run exactly that test; shows the child's output.
fn in_own_process(name: &str, check: impl FnOnce()) {
    if std::env::var_os(CHILD).is_some() {
        return check();
    }
    if rss_bytes().is_none() {
        crate::support::skipped("no /proc/self/statm to read resident memory from");
        return;
    }
    // module_path! is `tests::memory`; the test's name drops the crate's.
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    let test = format!("{module}::{name}");
    let out = Command::new(std::env::current_exe().expect("the test binary's path"))
        .args([&test, "--exact", "--include-ignored", "--nocapture"])
        .args(["--test-threads", "1"])
        .env(CHILD, "1")
        .output()
        .expect("the test binary runs again");
    let stdout = crate::support::text(&out.stdout);
    let stderr = crate::support::text(&out.stderr);
    println!("{stdout}");
    assert_ok(&out, format_args!("{test} in its own process"));
    assert!(
        stdout.contains("test result: ok. 1 passed"),
        "{test} did not run in its own process:\n{stdout}\n{stderr}"
    );
}

/// The bounded version `cargo test` runs.
#[test]
fn resident_memory_stays_flat_over_20k_operations() {
    in_own_process("resident_memory_stays_flat_over_20k_operations", || {
        flat_memory(20_000, 5_000, 5_000, 8.0)
    });
}

/// The full check: one million operations.
#[test]
#[ignore = "long: cargo test --release --all-features --test tests -- memory::resident_memory_stays_flat_over_1m --ignored --nocapture"]
fn resident_memory_stays_flat_over_1m_operations() {
    in_own_process("resident_memory_stays_flat_over_1m_operations", || {
        flat_memory(1_000_000, 50_000, 100_000, 4.0)
    });
}
