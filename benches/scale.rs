//! Cost as the work grows (issue 34): for the library and for `serve`, the
//! cost of one call with 1, 100 and 1,000 customizations loaded and with
//! objects of 1 KB, 100 KB and 3 MB, and the start-up time and peak memory
//! with each number of customizations. Prints the tables of
//! docs/performance.md ("Cost as the work grows").
//!
//! ```text
//! cargo bench -p karmada-interpreter-cli --bench scale
//! SCALE_COUNTS="1 100 1000" SCALE_SIZES="1000 100000 3000000" SCALE_ROUNDS=5 cargo bench ... --bench scale
//! ```
//!
//! The customizations are written by `tools/gen-customizations.py` (the one
//! generator; `python3` must be on PATH): each targets its own kind
//! `Widget<i>` and has a health and a replica script and one to four more.
//! Every call is made on `Widget0`'s customization, which has
//! `InterpretHealth` (reads four fields) and `ReviseReplica` (writes one and
//! answers the object). The objects are `Widget0`s grown to the size by a
//! list of container-like items under `spec` that no script reads.
//!
//! How each figure is taken, on a machine other processes share:
//! - library, per call: `karmada-interpreter bench -f <customizations> <cases>
//!   -o json` (the library's `Interpreter::interpret` on a decoded object,
//!   and `Interpreter::interpret_json` from the object's JSON bytes): the
//!   median of batches of this thread's CPU time per call;
//! - library, start-up: a child process loads the file and builds the chain
//!   (`load::customizations_from_file`, `Interpreter::builder()...build()`):
//!   its CPU time for that, and its peak resident memory (`VmHWM`) after;
//! - `serve`, per call: `serve -f <customizations>` answering requests one
//!   at a time on one HTTP/2 connection; the server's CPU time (the sum of
//!   its threads' `schedstat`) per request over a round of about half a
//!   second, the median of `SCALE_ROUNDS` rounds;
//! - `serve`, start-up: its CPU time (`/proc/<pid>/stat`, all threads) until
//!   it listens, and its peak resident memory then and after all the calls.

#[allow(dead_code)]
#[path = "../tests/cli_support/serve_process.rs"]
mod serve_process;

mod http_client;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use hyper::body::Bytes;
use karmada_interpreter::interpreter::Request;
use karmada_interpreter::webhook::build_request;
use karmada_interpreter::{load, Interpreter};
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_karmada-interpreter");
/// The child mode that measures the library's start-up in a fresh process.
const STARTUP_CHILD: &str = "--startup-child";

fn env_list(name: &str, default: &str) -> Vec<usize> {
    std::env::var(name)
        .unwrap_or_else(|_| default.to_owned())
        .split_whitespace()
        .filter_map(|s| s.parse().ok())
        .collect()
}

fn median(mut v: Vec<u64>) -> u64 {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or(0)
}

/// `812 ns`, `12.3 µs`, `1.23 ms`, `1.23 s`.
fn human(ns: u64) -> String {
    match ns {
        0..=9_999 => format!("{ns} ns"),
        10_000..=999_999 => format!("{:.1} µs", ns as f64 / 1e3),
        1_000_000..=999_999_999 => format!("{:.2} ms", ns as f64 / 1e6),
        _ => format!("{:.2} s", ns as f64 / 1e9),
    }
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

fn size_name(bytes: usize) -> String {
    match bytes {
        0..=999_999 => format!("{} KB", bytes / 1000),
        _ => format!("{} MB", bytes / 1_000_000),
    }
}

/// `N` customizations written by tools/gen-customizations.py into `dir`.
fn generate(n: usize, dir: &Path) -> Option<PathBuf> {
    let tool = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tools/gen-customizations.py");
    let file = dir.join(format!("customizations-{n}.yaml"));
    match Command::new("python3")
        .arg(&tool)
        .arg(n.to_string())
        .arg(&file)
        .status()
    {
        Ok(s) if s.success() => Some(file),
        Ok(s) => {
            eprintln!("scale: {} {n} failed: {s}", tool.display());
            None
        }
        Err(e) => {
            eprintln!("scale: python3 is needed for {}: {e}", tool.display());
            None
        }
    }
}

/// `Widget0`, healthy, `size` bytes of compact JSON (or a little more when
/// `size` is below its bare size).
fn widget(size: usize) -> Value {
    let mut object = json!({
        "apiVersion": "apps.example.io/v1",
        "kind": "Widget0",
        "metadata": {"name": "w0", "namespace": "default", "generation": 2,
                     "labels": {"app": "w0"}, "annotations": {}},
        "spec": {"replicas": 2, "items": []},
        "status": {"readyReplicas": 2, "observedGeneration": 2},
    });
    let len = |o: &Value| serde_json::to_vec(o).map(|v| v.len()).unwrap_or(0);
    let padding = r#""example.io/padding":"""#.len();
    let mut now = len(&object);
    let mut items = Vec::new();
    for i in 0.. {
        let item = json!({
            "name": format!("item-{i:06}"),
            "image": format!("registry.example.io/team/app-{i}:1.2.3"),
            "args": ["--port=8080", format!("--id={i}")],
            "weight": i,
        });
        let more = len(&item) + usize::from(!items.is_empty());
        if now + more + padding > size {
            break;
        }
        now += more;
        items.push(item);
    }
    object["spec"]["items"] = Value::Array(items);
    let fill = size.saturating_sub(len(&object) + padding);
    object["metadata"]["annotations"]["example.io/padding"] = Value::String("x".repeat(fill));
    object
}

/// The two golden cases for objects of `size` bytes, in `dir`.
fn write_cases(dir: &Path, object: &Value) -> Vec<PathBuf> {
    let mut revised = object.clone();
    revised["spec"]["replicas"] = json!(3);
    let cases = [
        (
            "health",
            json!({"name": "health", "operation": "InterpretHealth",
                   "observedObj": object, "output": {"healthy": true}}),
        ),
        (
            "revise",
            json!({"name": "revise", "operation": "ReviseReplica", "desiredObj": object,
                   "inputReplicas": 3, "output": {"revised": revised}}),
        ),
    ];
    cases
        .iter()
        .map(|(name, case)| {
            let file = dir.join(format!("{name}.yaml"));
            std::fs::write(&file, serde_json::to_vec(case).expect("case JSON")).expect("case file");
            file
        })
        .collect()
}

/// The library's cost per call (op, from bytes) for each case, by `bench`.
fn library_calls(customizations: &Path, cases: &[PathBuf], size: usize) -> Vec<(u64, u64)> {
    let iterations = match size {
        0..=10_000 => 2000,
        10_001..=1_000_000 => 200,
        _ => 10,
    };
    let out = Command::new(BIN)
        .arg("bench")
        .args(cases)
        .arg("-f")
        .arg(customizations)
        .args(["-o", "json", "-q", "--iterations", &iterations.to_string()])
        .output()
        .expect("run bench");
    let timings: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "bench: {e}: {}",
            String::from_utf8_lossy(&out.stderr).trim_end()
        )
    });
    ["health", "revise"]
        .iter()
        .map(|name| {
            let t = timings
                .iter()
                .find(|t| t["name"] == *name)
                .unwrap_or_else(|| panic!("bench timed no case {name}"));
            assert_eq!(t["matches"], true, "{name}: the answer does not match");
            (
                t["op_ns"].as_u64().unwrap_or(0),
                t["from_bytes_ns"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

/// `VmHWM` (or another `/proc/<pid>/status` field) in KiB.
fn status_kib(pid: &str, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix(field)?.strip_prefix(':').map(str::to_owned))
        })
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn clock_ns(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    #[allow(unsafe_code)] // clock_gettime (libc)
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe {
        libc::clock_gettime(clock, &mut ts)
    };
    (ts.tv_sec as u64) * 1_000_000_000 + ts.tv_nsec as u64
}

/// The child: loads the file, builds the chain, prints its CPU time for
/// that in ns and its peak resident memory in KiB before and after.
fn startup_child(file: &Path) {
    let before = status_kib("self", "VmHWM");
    let started = clock_ns(libc::CLOCK_PROCESS_CPUTIME_ID);
    let items = load::customizations_from_file(file).expect("customizations");
    let chain = Interpreter::builder()
        .customizations(items)
        .build()
        .expect("chain");
    let cpu = clock_ns(libc::CLOCK_PROCESS_CPUTIME_ID) - started;
    let after = status_kib("self", "VmHWM");
    std::hint::black_box(&chain);
    println!("{cpu} {before} {after}");
}

/// The library's start-up with `file`: CPU ns (median of three children)
/// and the peak resident memory (KiB) of the last one.
fn library_startup(file: &Path) -> (u64, u64) {
    let exe = std::env::current_exe().expect("bench executable");
    let mut cpu = Vec::new();
    let mut peak = 0;
    for _ in 0..3 {
        let out = Command::new(&exe)
            .arg(STARTUP_CHILD)
            .arg(file)
            .output()
            .expect("start-up child");
        let text = String::from_utf8_lossy(&out.stdout);
        let fields: Vec<u64> = text
            .split_whitespace()
            .filter_map(|f| f.parse().ok())
            .collect();
        assert_eq!(
            fields.len(),
            3,
            "start-up child: {text} {}",
            String::from_utf8_lossy(&out.stderr)
        );
        cpu.push(fields[0]);
        peak = fields[2];
    }
    (median(cpu), peak)
}

/// CPU time of the process so far, all threads, dead ones included (clock
/// ticks, so 10 ms steps).
fn process_cpu_ns(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The fields after the command's name in parentheses: utime is the 14th
    // field of the line, the 12th after ')'.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<u64> = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|x| x.parse().ok())
        .collect();
    #[allow(unsafe_code)] // sysconf (libc)
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    f.iter().sum::<u64>() * 1_000_000_000 / hz
}

/// CPU time of each of the process's live threads, in ns (`schedstat`).
fn threads_cpu_ns(pid: u32) -> HashMap<String, u64> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|rd| {
            rd.flatten()
                .filter_map(|t| {
                    let s = std::fs::read_to_string(t.path().join("schedstat")).ok()?;
                    let ns = s.split_whitespace().next()?.parse::<u64>().ok()?;
                    Some((t.file_name().to_string_lossy().into_owned(), ns))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The CPU time the process's threads used since `before` (a thread that
/// ended meanwhile is left out: it would take its earlier time with it).
fn threads_cpu_since(pid: u32, before: &HashMap<String, u64>) -> u64 {
    threads_cpu_ns(pid)
        .iter()
        .map(|(tid, ns)| ns.saturating_sub(before.get(tid).copied().unwrap_or(0)))
        .sum()
}

/// The body `serve` gets for one operation on `object`.
fn envelope(request: &Request<'_>) -> Bytes {
    let context = build_request(request).expect("request envelope");
    Bytes::from(serde_json::to_vec(&context).expect("request JSON"))
}

/// `serve`'s CPU time per request for `body`: the median over `rounds`
/// rounds of requests one at a time, each about half a second.
fn serve_calls(
    rt: &tokio::runtime::Runtime,
    serve: &serve_process::ServeProcess,
    body: &Bytes,
    rounds: usize,
) -> u64 {
    let pid = serve.id();
    let connector = http_client::connector(&serve.ca, true);
    let uri = http_client::uri(serve.addr, "/interpret", true);
    rt.block_on(async {
        let mut conn = http_client::connect(serve.addr, &connector, true)
            .await
            .expect("connect");
        // Warm-up, and how many requests make a round.
        let started = Instant::now();
        let mut sent = 0u32;
        while sent < 3 || started.elapsed() < Duration::from_millis(200) {
            assert!(conn.post(&uri, body).await, "serve did not answer");
            sent += 1;
        }
        let per_request = started.elapsed() / sent;
        let round = (Duration::from_millis(500).as_nanos() / per_request.as_nanos().max(1))
            .clamp(5, 50_000) as u64;
        let mut per_call = Vec::new();
        for _ in 0..rounds {
            let before = threads_cpu_ns(pid);
            for _ in 0..round {
                assert!(conn.post(&uri, body).await, "serve did not answer");
            }
            per_call.push(threads_cpu_since(pid, &before) / round);
        }
        median(per_call)
    })
}

/// One row of `serve`'s figures for a number of customizations.
struct ServeRow {
    startup_cpu_ns: u64,
    startup_peak_kib: u64,
    /// Per size: (InterpretHealth, ReviseReplica) CPU ns per request.
    calls: Vec<(u64, u64)>,
    final_peak_kib: u64,
}

fn serve_row(file: &Path, objects: &[Value], rounds: usize) -> ServeRow {
    let file = file.to_str().expect("UTF-8 path");
    let serve = serve_process::start(BIN, "scale", &["-f", file]);
    let pid = serve.id();
    let startup_cpu_ns = process_cpu_ns(pid);
    let startup_peak_kib = status_kib(&pid.to_string(), "VmHWM");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let calls = objects
        .iter()
        .map(|object| {
            let health = envelope(&Request::InterpretHealth { object });
            let revise = envelope(&Request::ReviseReplica {
                object,
                replicas: 3,
            });
            (
                serve_calls(&rt, &serve, &health, rounds),
                serve_calls(&rt, &serve, &revise, rounds),
            )
        })
        .collect();
    let final_peak_kib = status_kib(&pid.to_string(), "VmHWM");
    ServeRow {
        startup_cpu_ns,
        startup_peak_kib,
        calls,
        final_peak_kib,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == STARTUP_CHILD) {
        startup_child(Path::new(&args[i + 1]));
        return;
    }
    // `cargo test --benches` runs this with `--bench` absent: do nothing then.
    if !args.iter().any(|a| a == "--bench") {
        return;
    }
    let counts = env_list("SCALE_COUNTS", "1 100 1000");
    let sizes = env_list("SCALE_SIZES", "1000 100000 3000000");
    let rounds = env_list("SCALE_ROUNDS", "5")
        .first()
        .copied()
        .unwrap_or(5)
        .max(1);
    let dir = std::env::temp_dir().join(format!("ki-scale-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let objects: Vec<Value> = sizes.iter().map(|&s| widget(s)).collect();
    let cases: Vec<Vec<PathBuf>> = objects
        .iter()
        .zip(&sizes)
        .map(|(object, size)| {
            let d = dir.join(format!("cases-{size}"));
            std::fs::create_dir_all(&d).expect("cases dir");
            write_cases(&d, object)
        })
        .collect();

    let mut lib_rows = Vec::new();
    let mut serve_rows = Vec::new();
    for &n in &counts {
        let Some(file) = generate(n, &dir) else {
            let _ = std::fs::remove_dir_all(&dir);
            return;
        };
        eprintln!("scale: {n} customizations");
        let startup = library_startup(&file);
        let calls: Vec<Vec<(u64, u64)>> = cases
            .iter()
            .zip(&sizes)
            .map(|(c, &size)| library_calls(&file, c, size))
            .collect();
        lib_rows.push((n, startup, calls));
        serve_rows.push((n, serve_row(&file, &objects, rounds)));
    }
    let _ = std::fs::remove_dir_all(&dir);

    let object_sizes: Vec<String> = objects
        .iter()
        .map(|o| {
            serde_json::to_vec(o)
                .map(|v| v.len())
                .unwrap_or(0)
                .to_string()
        })
        .collect();
    println!(
        "objects: {} bytes of compact JSON; rounds: {rounds}",
        object_sizes.join(", ")
    );
    println!();
    println!("Library, per call (thread CPU, median of batches; `bench -o json`)");
    println!();
    println!(
        "| customizations | object | InterpretHealth | from bytes | ReviseReplica | from bytes |"
    );
    println!("|---:|---:|---:|---:|---:|---:|");
    for (n, _, calls) in &lib_rows {
        for (size, per) in sizes.iter().zip(calls) {
            println!(
                "| {n} | {} | {} | {} | {} | {} |",
                size_name(*size),
                human(per[0].0),
                human(per[0].1),
                human(per[1].0),
                human(per[1].1)
            );
        }
    }
    println!();
    println!("serve, per request (server CPU, one HTTP/2 connection, median of rounds)");
    println!();
    println!("| customizations | object | InterpretHealth | ReviseReplica |");
    println!("|---:|---:|---:|---:|");
    for (n, row) in &serve_rows {
        for (size, (health, revise)) in sizes.iter().zip(&row.calls) {
            println!(
                "| {n} | {} | {} | {} |",
                size_name(*size),
                human(*health),
                human(*revise)
            );
        }
    }
    println!();
    println!("Start-up and memory");
    println!();
    println!("| customizations | library: load + build (CPU) | library: peak RSS | serve: until listening (CPU) | serve: peak RSS then | serve: peak RSS after the calls |");
    println!("|---:|---:|---:|---:|---:|---:|");
    for ((n, (cpu, peak), _), (_, row)) in lib_rows.iter().zip(&serve_rows) {
        println!(
            "| {n} | {} | {} | {} | {} | {} |",
            human(*cpu),
            mib(*peak),
            human(row.startup_cpu_ns),
            mib(row.startup_peak_kib),
            mib(row.final_peak_kib)
        );
    }
}
