//! Pieces shared by the criterion benches.
#![allow(dead_code)] // each bench uses a subset

use std::path::{Path, PathBuf};

use criterion::measurement::{Measurement, ValueFormatter, WallTime};

/// Process CPU time (`CLOCK_PROCESS_CPUTIME_ID`), in nanoseconds: other work
/// on a shared machine does not inflate it (Karmada's figures are CPU time too).
pub struct CpuTime;

fn cpu_now() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    #[allow(unsafe_code)] // clock_gettime (libc)
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe {
        libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts)
    };
    (ts.tv_sec as u64) * 1_000_000_000 + ts.tv_nsec as u64
}

static WALL: WallTime = WallTime;

impl Measurement for CpuTime {
    type Intermediate = u64;
    type Value = u64;
    fn start(&self) -> u64 {
        cpu_now()
    }
    fn end(&self, start: u64) -> u64 {
        cpu_now().saturating_sub(start)
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, v: &u64) -> f64 {
        *v as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        // Nanoseconds, formatted like wall time.
        WALL.formatter()
    }
}

/// `shared/<name>` beside the checkout (or above it), or the directory in `$<env>`.
pub fn shared_dir(env: &str, name: &str) -> Option<PathBuf> {
    if let Ok(dir) = std::env::var(env) {
        return Some(PathBuf::from(dir));
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|a| a.join("shared").join(name))
        .find(|p| p.is_dir())
}

/// `shared/bench-inputs` (Karmada's measured cases), or `$KARMADA_BENCH_INPUTS`.
pub fn bench_inputs_dir() -> Option<PathBuf> {
    shared_dir("KARMADA_BENCH_INPUTS", "bench-inputs")
}
