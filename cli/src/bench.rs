//! `karmada-interpreter bench`: what each golden case costs through the chain.

use std::collections::HashMap;
use std::hint::black_box;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use karmada_interpreter::api::InterpreterOperation;
use karmada_interpreter::interpreter::{Answer, JsonInputs, Outcome};
use karmada_interpreter::Interpreter;

use crate::error::{Error, Result};
use karmada_interpreter_golden::{
    discover, is_webhook_only, load_cases, ChainBackend, GoldenCase, Runner, Verdict,
};

use crate::args::ChainArgs;
use crate::ux::{self, Output};

#[derive(Debug, clap::Args)]
#[command(after_help = ux::EXIT_CODES)]
pub struct BenchArgs {
    /// Case files or directories (searched recursively), e.g. `thirdparty`
    /// or a folder of bench inputs.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    #[command(flatten)]
    chain: ChainArgs,
    /// Timed calls per case and path, at least (after a warm-up), in
    /// batches lasting at least 50 µs each and at least 5 batches.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    iterations: u32,
    /// Output format: `text` (a table and a summary line), or `json`/`yaml`
    /// (a list, an entry per case).
    #[arg(long, short = 'o', value_enum, default_value_t = Output::Text)]
    output: Output,
    /// Time only the cases whose name or file path contains this text.
    #[arg(long, value_name = "TEXT")]
    filter: Option<String>,
    /// Print the results only: no progress, notes or summary line.
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    timeout: ux::TimeoutArg,
}

/// One timed case.
#[derive(Debug, serde::Serialize)]
struct Timing {
    name: String,
    operation: InterpreterOperation,
    /// Nanoseconds per call of the operation on inputs already decoded (the
    /// edited object of ReviseReplica, Retain and AggregateStatus handed
    /// over): the median over the samples of a sample's time divided by its
    /// calls.
    op_ns: u64,
    /// Nanoseconds per call from the inputs' JSON bytes to the result
    /// (median, as `op_ns`).
    from_bytes_ns: u64,
    /// The result matches the case's `output` (the golden runner's verdict).
    matches: bool,
    /// The clock the times are read from: `thread-cpu` (this thread's CPU
    /// time) or `wall`.
    clock: Clock,
    /// Calls per timed sample of the operation alone and from bytes.
    op_batch: u32,
    from_bytes_batch: u32,
    /// Samples the medians are taken over.
    op_samples: u32,
    from_bytes_samples: u32,
}

/// The inputs of a case as compact JSON bytes, decoded anew on every call
/// of the from-bytes path.
struct Encoded {
    operation: InterpreterOperation,
    desired: Option<Vec<u8>>,
    observed: Option<Vec<u8>>,
    status_items: Option<Vec<u8>>,
    #[cfg(feature = "karmada-next")]
    components: Option<Vec<u8>>,
    replicas: i64,
}

impl Encoded {
    fn new(case: &GoldenCase) -> Result<Self> {
        fn encode<T: serde::Serialize>(case: &GoldenCase, value: &T) -> Result<Vec<u8>> {
            serde_json::to_vec(value).map_err(|e| Error::Encode {
                what: format!(
                    "inputs of case {:?} ({}) as JSON",
                    case.name, case.operation
                ),
                message: e.to_string(),
            })
        }
        Ok(Self {
            operation: case.operation,
            desired: case.desired.as_ref().map(|v| encode(case, v)).transpose()?,
            observed: case
                .observed
                .as_ref()
                .map(|v| encode(case, v))
                .transpose()?,
            status_items: case
                .status_items
                .as_ref()
                .map(|v| encode(case, v))
                .transpose()?,
            #[cfg(feature = "karmada-next")]
            components: case
                .input_components
                .as_ref()
                .map(|v| encode(case, v))
                .transpose()?,
            replicas: case.input_replicas,
        })
    }

    /// Decodes the inputs and runs the operation: what a caller holding
    /// bytes pays, through [`Interpreter::interpret_json`] (the edit
    /// operations get the decoded object handed over).
    fn run(&self, chain: &Interpreter) -> karmada_interpreter::Result<Answer<Outcome>> {
        chain.interpret_json(
            self.operation,
            JsonInputs {
                desired: self.desired.as_deref(),
                observed: self.observed.as_deref(),
                replicas: self.replicas,
                status_items: self.status_items.as_deref(),
                #[cfg(feature = "karmada-next")]
                components: self.components.as_deref(),
            },
        )
    }
}

/// The clock `bench` reads: the calling thread's CPU time where the system
/// has one (what Karmada's figures are: CPU time per call, one thread), the
/// wall clock elsewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
enum Clock {
    /// `CLOCK_THREAD_CPUTIME_ID`: time this thread spent on a CPU.
    ThreadCpu,
    /// `std::time::Instant`: elapsed time, other processes' share included.
    Wall,
}

impl Clock {
    /// The thread CPU clock if it can be read here, else the wall clock.
    fn pick() -> Self {
        if thread_cpu_ns().is_some() {
            Self::ThreadCpu
        } else {
            Self::Wall
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Self::ThreadCpu => "thread-cpu",
            Self::Wall => "wall",
        }
    }

    /// Nanoseconds `f` takes by this clock.
    fn time<R>(self, f: impl FnOnce() -> R) -> (u64, R) {
        match self {
            Self::ThreadCpu => {
                let start = thread_cpu_ns().unwrap_or(0);
                let out = f();
                let end = thread_cpu_ns().unwrap_or(start);
                (end.saturating_sub(start), out)
            }
            Self::Wall => {
                let start = Instant::now();
                let out = f();
                let elapsed = start.elapsed();
                (u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX), out)
            }
        }
    }
}

/// This thread's CPU time in nanoseconds, if the system keeps it.
#[cfg(any(
    target_os = "linux",
    target_os = "android",
    target_os = "macos",
    target_os = "freebsd"
))]
fn thread_cpu_ns() -> Option<u64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    #[allow(unsafe_code)] // clock_gettime (libc)
    // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return None;
    }
    let secs = u64::try_from(ts.tv_sec).ok()?;
    let nanos = u64::try_from(ts.tv_nsec).ok()?;
    Some(secs * 1_000_000_000 + nanos)
}

#[cfg(not(any(
    target_os = "linux",
    target_os = "android",
    target_os = "macos",
    target_os = "freebsd"
)))]
fn thread_cpu_ns() -> Option<u64> {
    None
}

/// A sample lasts at least this long, so the clock's own cost and
/// resolution stay below a percent of it.
const MIN_SAMPLE_NS: u64 = 50_000;
/// Samples per median, at least.
const MIN_SAMPLES: u32 = 5;
/// Calls per sample, at most.
const MAX_BATCH: u32 = 1_000_000;

/// What [`measure`] found: the median cost of one call and how it was taken.
#[derive(Debug, Clone, Copy)]
struct Measured {
    /// Median over the samples of (sample time / calls in the sample).
    ns: u64,
    /// Calls per sample.
    batch: u32,
    /// Samples taken.
    samples: u32,
}

/// The median cost of one call of `f`, timed by `clock` in batches: each
/// sample times `batch` calls in a row on inputs `setup` made beforehand;
/// making the inputs and dropping the results are not timed. The batch is
/// found as Go's benchmarks find theirs: doubled from one call until a
/// batch lasts [`MIN_SAMPLE_NS`], after three warm-up calls. Then at least
/// `iterations` calls are timed, in at least [`MIN_SAMPLES`] samples.
fn measure<I, R>(
    clock: Clock,
    iterations: u32,
    mut setup: impl FnMut() -> I,
    mut f: impl FnMut(I) -> R,
) -> Measured {
    let mut sample = |batch: u32| -> u64 {
        let inputs: Vec<I> = (0..batch).map(|_| setup()).collect();
        let mut outputs = Vec::with_capacity(inputs.len());
        let (ns, ()) = clock.time(|| {
            for input in inputs {
                outputs.push(black_box(f(input)));
            }
        });
        drop(outputs);
        ns
    };
    // The first calls pay for cold caches and lazily built state: not a
    // measure of the cost of a call.
    for _ in 0..3 {
        sample(1);
    }
    let mut batch = 1_u32;
    loop {
        let ns = sample(batch);
        if ns >= MIN_SAMPLE_NS || batch >= MAX_BATCH {
            break;
        }
        // Aim a little past the minimum, at most a hundredfold per step.
        let per_call = (ns / u64::from(batch)).max(1);
        let next = (MIN_SAMPLE_NS + MIN_SAMPLE_NS / 5).div_ceil(per_call);
        batch = u32::try_from(next)
            .unwrap_or(MAX_BATCH)
            .clamp(batch + 1, batch.saturating_mul(100))
            .min(MAX_BATCH);
    }
    let samples = iterations.div_ceil(batch).max(MIN_SAMPLES);
    let mut per_call_ns: Vec<u64> = (0..samples)
        .map(|_| sample(batch) / u64::from(batch))
        .collect();
    per_call_ns.sort_unstable();
    Measured {
        ns: per_call_ns[per_call_ns.len() / 2],
        batch,
        samples,
    }
}

/// `812 ns`, `12.3 µs`, `1.23 ms`.
fn human(ns: u64) -> String {
    match ns {
        0..=9_999 => format!("{ns} ns"),
        10_000..=9_999_999 => format!("{:.1} µs", ns as f64 / 1e3),
        _ => format!("{:.2} ms", ns as f64 / 1e6),
    }
}

pub fn run(args: BenchArgs) -> Result<ExitCode> {
    let (customizations, webhooks) = args.chain.load()?;
    let paths = args.paths;
    let mut backend = args
        .chain
        .health_backend(ChainBackend::new(customizations.clone(), webhooks.clone()))
        .with_files(args.chain.files.paths()?);
    let mut chains_backend = args
        .chain
        .health_backend(ChainBackend::new(customizations, webhooks));
    if args.timeout.timeout.is_some() {
        backend = backend.with_limits(args.timeout.limits());
        chains_backend = chains_backend.with_limits(args.timeout.limits());
    }
    let runner = Runner::new(backend);
    let mut chains: HashMap<Option<PathBuf>, Interpreter> = HashMap::new();
    let mut timings = Vec::new();
    let clock = Clock::pick();
    let started = Instant::now();
    let mut filtered_out = 0usize;
    let mut files = Vec::new();
    for file in discover(&paths)? {
        if is_webhook_only(&file.path) || runner.file_skip_reason(&file).is_some() {
            continue;
        }
        let mut cases = Vec::new();
        for case in load_cases(&file.path) {
            let case = case?;
            let selected = args
                .filter
                .as_deref()
                .is_none_or(|f| case.name.contains(f) || file.path.to_string_lossy().contains(f));
            if selected {
                cases.push(case);
            } else {
                filtered_out += 1;
            }
        }
        files.push((file, cases));
    }
    let total = files.iter().map(|(_, cases)| cases.len() as u64).sum();
    let bar = ux::progress(Some(total), args.quiet, "timing cases");
    for (file, cases) in &files {
        let chain = match chains.entry(file.customization.clone()) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(chains_backend.chain(file.customization.as_deref())?)
            }
        };
        for case in cases {
            bar.set_message(case.name.clone());
            bar.inc(1);
            // Cases whose inputs Karmada's typed decoding refuses fail
            // before any call: nothing to time.
            if case.status_items_error.is_some() {
                bar.suspend(|| {
                    eprintln!(
                        "not timed: {} (its status items do not decode)",
                        case.label()
                    )
                });
                continue;
            }
            let request = case.request()?;
            let encoded = Encoded::new(case)?;
            // The editing operations (AggregateStatus included: its answer
            // is the template edited) get their object handed over, as
            // `Interpreter::revise_replica(object, n)` does (the copy made
            // for each call is not timed); the others read it in place.
            let op = match request.to_owned_edit() {
                Some(edit) => measure(
                    clock,
                    args.iterations,
                    || edit.clone(),
                    |edit| chain.interpret_owned(edit),
                ),
                None => measure(
                    clock,
                    args.iterations,
                    || (),
                    |()| chain.interpret(&request),
                ),
            };
            let from_bytes = measure(clock, args.iterations, || (), |()| encoded.run(chain));
            let judged = runner.run_case(file, case);
            // A failing case says why (a script failure at its place).
            if let Verdict::Failed(_) = judged.verdict {
                eprintln!("{}", judged.render());
            }
            let matches = judged.verdict == Verdict::Passed;
            timings.push(Timing {
                name: case.name.clone(),
                operation: case.operation,
                op_ns: op.ns,
                from_bytes_ns: from_bytes.ns,
                matches,
                clock,
                op_batch: op.batch,
                from_bytes_batch: from_bytes.batch,
                op_samples: op.samples,
                from_bytes_samples: from_bytes.samples,
            });
        }
    }
    bar.finish_and_clear();
    if timings.is_empty() {
        return Err(crate::test_extra::no_cases(
            paths,
            args.filter.as_deref(),
            filtered_out,
        ));
    }
    match args.output {
        Output::Json | Output::Yaml => {
            ux::print_structured(&timings, args.output == Output::Yaml, "bench")?;
        }
        Output::Text => {
            let width = timings
                .iter()
                .map(|t| t.name.len())
                .max()
                .unwrap_or(4)
                .max(4);
            if !args.quiet {
                println!(
                    "clock: {} (median per call over batches of calls lasting at least {} µs)",
                    match clock {
                        Clock::ThreadCpu => "this thread's CPU time",
                        Clock::Wall => "wall clock (no per-thread CPU clock here)",
                    },
                    MIN_SAMPLE_NS / 1000
                );
            }
            println!(
                "{:<width$}  {:<19}  {:>10}  {:>10}  matches",
                "case", "operation", "op", "from bytes"
            );
            for t in &timings {
                anstream::println!(
                    "{:<width$}  {:<19}  {:>10}  {:>10}  {}",
                    t.name,
                    t.operation.to_string(),
                    human(t.op_ns),
                    human(t.from_bytes_ns),
                    if t.matches {
                        "yes".to_owned()
                    } else {
                        ux::colour_summary("NO", false)
                    }
                );
            }
            let mismatched = timings.iter().filter(|t| !t.matches).count();
            if !args.quiet {
                let mut line = format!(
                    "{} cases timed (at least {} calls each, {} clock, medians), {mismatched} not matching their output",
                    timings.len(),
                    args.iterations,
                    clock.as_str()
                );
                if filtered_out > 0 {
                    line.push_str(&format!(", {filtered_out} filtered out"));
                }
                line.push_str(&format!(", in {}", ux::seconds(started.elapsed())));
                anstream::println!("{}", ux::colour_summary(&line, mismatched == 0));
            }
        }
    }
    Ok(if timings.iter().all(|t| t.matches) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
