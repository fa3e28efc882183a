//! The commands' work grows with the number of customizations in the file,
//! not faster (issue 33): measured as the allocations a command makes on
//! its thread (a count, not a time), for files of N, 2N and 4N
//! customizations. `tools/scale.sh` gives the times.
//!
//! Growing linearly, the second doubling adds twice the work the first
//! added; growing quadratically, four times. `check` read the whole file
//! again for every document it checked (to place script failures), and so
//! added 3.6 times as much.

#![allow(unsafe_code)] // the counting allocator wraps the system one

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use clap::Parser;

thread_local! {
    /// Allocations made on this thread so far.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

/// The system allocator, counting the allocations of each thread.
struct Counting;

// SAFETY: every call is handed to the system allocator unchanged; the count
// is a const-initialized thread local without destructor, which neither
// allocates nor can be accessed after it is gone (`try_with`).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: the caller's contract, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

fn count() {
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// One customization of the generated files: three rules with multi-line
/// scripts; every fifth one's health script has no entry function, so
/// `check` places a failure in the file.
fn customization(i: usize) -> String {
    let health = if i % 5 == 4 {
        "Health"
    } else {
        "InterpretHealth"
    };
    format!(
        r#"apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: widget-{i}
spec:
  target:
    apiVersion: example{group}.io/v1
    kind: Widget{i}
  customizations:
    healthInterpretation:
      luaScript: |
        function {health}(observedObj)
          if observedObj.status == nil then
            return false
          end
          return (observedObj.status.readyReplicas or 0) >= {i}
        end
    replicaResource:
      luaScript: |
        local kube = require("kube")
        function GetReplicas(obj)
          local replica = obj.spec.replicas or 1
          return replica, kube.accuratePodRequirements(obj.spec.template)
        end
    statusReflection:
      luaScript: |
        function ReflectStatus(observedObj)
          if observedObj.status == nil then
            return {{}}
          end
          return {{readyReplicas = observedObj.status.readyReplicas}}
        end
"#,
        group = i % 7
    )
}

/// Two golden cases for the first customization (for `test`).
const CASES: &str = r#"name: healthy
operation: InterpretHealth
observedObj:
  apiVersion: example0.io/v1
  kind: Widget0
  metadata: {name: w}
  status: {readyReplicas: 1}
output: {healthy: true}
---
name: no status
operation: InterpretHealth
observedObj:
  apiVersion: example0.io/v1
  kind: Widget0
  metadata: {name: w}
output: {healthy: false}
"#;

/// The allocations `karmada-interpreter ARGS -f FILE` makes on this thread
/// with a file of `n` customizations (`{cases}` in `args` is replaced by a
/// case file).
fn allocations(args: &[&str], n: usize) -> u64 {
    let dir = std::env::temp_dir().join(format!(
        "karmada-interpreter-scale-{}-{}-{n}",
        std::process::id(),
        args[0]
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("customizations.yaml");
    let text: Vec<String> = (0..n).map(customization).collect();
    std::fs::write(&file, text.join("---\n")).unwrap();
    let cases = dir.join("cases.yaml");
    std::fs::write(&cases, CASES).unwrap();
    let mut line = vec!["karmada-interpreter".to_owned()];
    line.extend(args.iter().map(|a| {
        a.replace("{cases}", &cases.display().to_string())
            .replace("{file}", &file.display().to_string())
    }));
    let cli = crate::cli::Cli::try_parse_from(line).unwrap();
    let before = ALLOCATIONS.with(Cell::get);
    crate::cli::run(cli).unwrap();
    let made = ALLOCATIONS.with(Cell::get) - before;
    std::fs::remove_dir_all(&dir).unwrap();
    made
}

/// How much more work the second doubling of the file (2N to 4N
/// customizations) adds than the first (N to 2N): 2 when the work grows
/// linearly, 4 when it grows with the square.
fn second_doubling_over_first(args: &[&str]) -> f64 {
    const N: usize = 40;
    // A first run, so that what is done once per process (lazily built
    // tables, the bundled customizations) is not counted below.
    allocations(args, 1);
    let [one, two, four] = [N, 2 * N, 4 * N].map(|n| allocations(args, n) as f64);
    (four - two) / (two - one)
}

/// Fails when `args` (a command line) does not grow linearly.
fn assert_linear(args: &[&str]) {
    let growth = second_doubling_over_first(args);
    assert!(
        (1.5..2.6).contains(&growth),
        "{}: from 2N to 4N customizations adds {growth:.2} times the work of N to 2N (2 is linear, 4 quadratic)",
        args[0]
    );
}

#[test]
fn check_grows_linearly_with_the_customizations_in_a_file() {
    assert_linear(&["check", "-f", "{file}", "-q", "-o", "json"]);
}

#[test]
fn lint_grows_linearly_with_the_customizations_in_a_file() {
    assert_linear(&["lint", "-f", "{file}", "-q", "-o", "json"]);
}

#[test]
fn list_grows_linearly_with_the_customizations_in_a_file() {
    assert_linear(&["list", "-f", "{file}", "-o", "json"]);
}

#[test]
fn test_grows_linearly_with_the_customizations_in_a_file() {
    assert_linear(&["test", "-f", "{file}", "{cases}", "-q", "-o", "json"]);
}
