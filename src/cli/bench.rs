//! `karmada-interpreter bench`: what each golden case costs through the chain.

use std::collections::HashMap;
use std::hint::black_box;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use karmada_interpreter::api::{AggregatedStatusItem, InterpreterOperation};
use karmada_interpreter::golden::{
    discover, is_webhook_only, load_cases, ChainBackend, GoldenCase, Runner, Verdict,
};
use karmada_interpreter::interpreter::{Answer, Inputs, Outcome, OwnedRequest, Request};
use karmada_interpreter::{Error, Interpreter, Result};
use serde_json::Value;

use super::ChainArgs;

/// Output formats of `bench`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BenchFormat {
    /// An aligned table and a summary line.
    Text,
    /// One JSON array, an object per case.
    Json,
}

#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// Case files or directories (searched recursively), e.g. `thirdparty`
    /// or a folder of bench inputs.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    #[command(flatten)]
    chain: ChainArgs,
    /// Timed calls per case and path (after a warm-up of a tenth of them).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    iterations: u32,
    /// Output format.
    #[arg(long, short = 'o', value_enum, default_value_t = BenchFormat::Text)]
    output: BenchFormat,
}

/// One timed case.
#[derive(Debug, serde::Serialize)]
struct Timing {
    name: String,
    operation: InterpreterOperation,
    /// Median nanoseconds of the operation on inputs already decoded (the
    /// edited object of ReviseReplica and Retain handed over).
    op_ns: u64,
    /// Median nanoseconds from the inputs' JSON bytes to the result.
    from_bytes_ns: u64,
    /// The result matches the case's `output` (the golden runner's verdict).
    matches: bool,
}

/// The inputs of a case as compact JSON bytes, decoded anew on every call
/// of the from-bytes path.
struct Encoded {
    operation: InterpreterOperation,
    desired: Option<Vec<u8>>,
    observed: Option<Vec<u8>>,
    status_items: Option<Vec<u8>>,
    replicas: i64,
}

impl Encoded {
    fn new(case: &GoldenCase) -> Result<Self> {
        fn encode<T: serde::Serialize>(case: &GoldenCase, value: &T) -> Result<Vec<u8>> {
            serde_json::to_vec(value).map_err(|e| Error::InvalidInput {
                operation: case.operation,
                reason: format!(
                    "case {:?}: cannot encode the inputs as JSON: {e}",
                    case.name
                ),
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
            replicas: case.input_replicas,
        })
    }

    /// Decodes the inputs and runs the operation: what a caller holding
    /// bytes pays. The edit operations hand the decoded object over.
    fn run(&self, chain: &Interpreter) -> Result<Answer<Outcome>> {
        use InterpreterOperation as Op;
        let invalid = |e: serde_json::Error| Error::InvalidInput {
            operation: self.operation,
            reason: e.to_string(),
        };
        let decode = |bytes: &Option<Vec<u8>>| -> Result<Option<Value>> {
            bytes
                .as_deref()
                .map(serde_json::from_slice)
                .transpose()
                .map_err(invalid)
        };
        let desired = decode(&self.desired)?;
        let observed = decode(&self.observed)?;
        Ok(match (self.operation, desired, observed) {
            (Op::Retain, Some(desired), Some(observed)) => {
                chain.interpret_owned(OwnedRequest::Retain {
                    desired,
                    observed: &observed,
                })?
            }
            (Op::ReviseReplica, Some(object), None) | (Op::ReviseReplica, None, Some(object)) => {
                chain.interpret_owned(OwnedRequest::ReviseReplica {
                    object,
                    replicas: self.replicas,
                })?
            }
            (operation, desired, observed) => {
                let status_items: Option<Vec<AggregatedStatusItem>> = self
                    .status_items
                    .as_deref()
                    .map(serde_json::from_slice)
                    .transpose()
                    .map_err(invalid)?;
                let inputs = Inputs {
                    desired: desired.as_ref(),
                    observed: observed.as_ref(),
                    replicas: self.replicas,
                    status_items: status_items.as_deref(),
                };
                chain.interpret(&inputs.request(operation)?)?
            }
        })
    }
}

/// The median of `iterations` timed calls of `f` on what `setup` makes
/// (untimed, as is dropping what `f` returns), after a warm-up.
fn median_ns<I, R>(
    iterations: u32,
    mut setup: impl FnMut() -> I,
    mut f: impl FnMut(I) -> R,
) -> u64 {
    for _ in 0..(iterations / 10).max(1) {
        black_box(f(setup()));
    }
    let mut samples: Vec<u64> = (0..iterations)
        .map(|_| {
            let input = setup();
            let start = Instant::now();
            let output = black_box(f(input));
            let elapsed = start.elapsed();
            drop(output);
            u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX)
        })
        .collect();
    samples.sort_unstable();
    samples[samples.len() / 2]
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
    let backend = ChainBackend::new(customizations.clone(), webhooks.clone());
    let chains_backend = ChainBackend::new(customizations, webhooks);
    let runner = Runner::new(backend);
    let mut chains: HashMap<Option<PathBuf>, Interpreter> = HashMap::new();
    let mut timings = Vec::new();
    let files = discover(&paths)?;
    for file in &files {
        if is_webhook_only(&file.path) {
            continue;
        }
        let chain = match chains.entry(file.customization.clone()) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(chains_backend.chain(file.customization.as_deref())?)
            }
        };
        for case in load_cases(&file.path) {
            let case = case?;
            // Cases whose inputs Karmada's typed decoding refuses fail
            // before any call: nothing to time.
            if case.status_items_error.is_some() {
                eprintln!(
                    "not timed: {} (its status items do not decode)",
                    case.label()
                );
                continue;
            }
            let request = case.request()?;
            let encoded = Encoded::new(&case)?;
            // The editing operations get their object handed over, as
            // `Interpreter::revise_replica(object, n)` does (the copy made
            // for each call is not timed); the others read it in place.
            let op_ns = match request {
                Request::ReviseReplica { object, replicas } => median_ns(
                    args.iterations,
                    || object.clone(),
                    |object| {
                        chain.interpret_owned(OwnedRequest::ReviseReplica { object, replicas })
                    },
                ),
                Request::Retain { desired, observed } => median_ns(
                    args.iterations,
                    || desired.clone(),
                    |desired| chain.interpret_owned(OwnedRequest::Retain { desired, observed }),
                ),
                _ => median_ns(args.iterations, || (), |()| chain.interpret(&request)),
            };
            let from_bytes_ns = median_ns(args.iterations, || (), |()| encoded.run(chain));
            let matches = runner.run_case(file, &case).verdict == Verdict::Passed;
            timings.push(Timing {
                name: case.name.clone(),
                operation: case.operation,
                op_ns,
                from_bytes_ns,
                matches,
            });
        }
    }
    if timings.is_empty() {
        return Err(Error::NoCases { searched: paths });
    }
    match args.output {
        BenchFormat::Json => {
            let json = serde_json::to_string_pretty(&timings).map_err(|e| Error::Config {
                source_name: "bench".into(),
                message: format!("cannot encode the timings as JSON: {e}"),
            })?;
            println!("{json}");
        }
        BenchFormat::Text => {
            let width = timings
                .iter()
                .map(|t| t.name.len())
                .max()
                .unwrap_or(4)
                .max(4);
            println!(
                "{:<width$}  {:<19}  {:>10}  {:>10}  matches",
                "case", "operation", "op", "from bytes"
            );
            for t in &timings {
                println!(
                    "{:<width$}  {:<19}  {:>10}  {:>10}  {}",
                    t.name,
                    t.operation.to_string(),
                    human(t.op_ns),
                    human(t.from_bytes_ns),
                    if t.matches { "yes" } else { "NO" }
                );
            }
            let mismatched = timings.iter().filter(|t| !t.matches).count();
            println!(
                "{} cases timed ({} iterations each, medians), {mismatched} not matching their output",
                timings.len(),
                args.iterations
            );
        }
    }
    Ok(if timings.iter().all(|t| t.matches) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
