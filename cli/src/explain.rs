//! `karmada-interpreter explain`: which layer answers each operation for an
//! object and why the earlier layers do not; for one operation, its inputs,
//! answer, time and the Lua lines that ran.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use crate::load::Loader;
use karmada_interpreter::api::InterpreterOperation;
use karmada_interpreter::declarative::Coverage;
use karmada_interpreter::interpreter::{
    describe, gvk_of, results, Below, Inputs, LayerDecision, LayerKind, Request, Source, TypeRef,
};
use karmada_interpreter::Interpreter;

use crate::error::Error;
use serde_json::{json, Value};

use crate::args::ChainArgs;

/// Output formats of `explain`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Output {
    /// Readable text.
    Text,
    /// One JSON document.
    Json,
}

#[derive(Debug, clap::Args)]
pub struct ExplainArgs {
    #[command(flatten)]
    chain: ChainArgs,
    #[command(flatten)]
    objects: crate::args::ObjectFiles,
    /// Replica count, for --operation ReviseReplica.
    #[arg(long, default_value_t = 0)]
    desired_replica: i32,
    /// The per-component assignment for --operation ReviseComponents (the
    /// karmada-next profile): a YAML or JSON list of `{name, replicas}`.
    #[cfg(feature = "karmada-next")]
    #[arg(long, value_name = "FILE")]
    components_file: Option<String>,
    /// Run this operation (case-insensitive) and show its inputs, answer,
    /// time and, for Lua, the script lines that ran.
    #[arg(long)]
    operation: Option<String>,
    /// Output format.
    #[arg(long, short = 'o', value_enum, default_value_t = Output::Text)]
    output: Output,
}

/// Calls timed after the first (median reported).
const TIMED_CALLS: usize = 9;

pub fn run(args: ExplainArgs) -> crate::error::Result<ExitCode> {
    let (customizations, webhooks) = args.chain.load()?;
    let chain = args
        .chain
        .with_health(Interpreter::builder())
        .customizations(customizations.clone())
        .webhook_configurations(webhooks)
        .build()?;
    let mut loader = Loader::new();
    let crate::args::Objects {
        desired,
        observed,
        items,
    } = args.objects.load(&mut loader)?;
    let Some(subject) = desired.as_ref().or(observed.as_ref()) else {
        return Err(Error::usage(
            "--desired-file/--observed-file",
            "explain needs an object: give --desired-file or --observed-file",
        ));
    };
    let gvk = gvk_of(subject);

    let table: Vec<(InterpreterOperation, Vec<LayerDecision>)> = InterpreterOperation::ALL
        .iter()
        .filter(|op| crate::profile::current().admit(**op).is_ok())
        .map(|op| (*op, chain.decisions(&gvk, *op)))
        .collect();
    let composed: Vec<Option<Composed>> = table
        .iter()
        .map(|(op, decisions)| composed(&chain, &gvk, *op, decisions))
        .collect();

    let detail = match args.operation.as_deref() {
        None => None,
        Some(name) => {
            let op = crate::profile::operation(name)?;
            #[cfg(feature = "karmada-next")]
            let components =
                crate::run::components(args.components_file.as_deref(), op, &mut loader)?;
            let inputs = Inputs {
                desired: desired.as_ref(),
                observed: observed.as_ref(),
                replicas: i64::from(args.desired_replica),
                status_items: items.as_deref(),
                #[cfg(feature = "karmada-next")]
                components: components.as_deref(),
            };
            let request = inputs.request(op).map_err(Error::from)?;
            Some(detail(&chain, &args, customizations, op, &request)?)
        }
    };

    match args.output {
        Output::Json => {
            let operations: Vec<Value> = table
                .iter()
                .zip(&composed)
                .map(|((op, decisions), composed)| {
                    let mut entry = json!({
                        "operation": op.to_string(),
                        "answeredBy": decisions.last().and_then(|d| d.serves.clone()),
                        "layers": decisions,
                    });
                    if let Some(c) = composed {
                        entry["composed"] = json!({"inOrder": c.in_order, "below": c.below});
                    }
                    entry
                })
                .collect();
            let mut doc = json!({
                "object": {
                    "apiVersion": subject.get("apiVersion").cloned().unwrap_or(Value::Null),
                    "kind": gvk.kind,
                    "name": describe(subject),
                },
                "operations": operations,
            });
            if let Some(d) = detail {
                doc["run"] = d;
            }
            println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        }
        Output::Text => {
            println!("{}", describe(subject));
            for ((op, decisions), composed) in table.iter().zip(&composed) {
                match decisions.last().and_then(|d| d.serves.as_ref()) {
                    Some(source) => println!("{op}: {source}"),
                    None => println!("{op}: not served (no layer serves it)"),
                }
                for d in decisions.iter().filter(|d| d.serves.is_none()) {
                    println!("    {}: {}", d.layer, d.reason);
                }
                if let Some(c) = composed {
                    if c.in_order.len() > 1 {
                        println!(
                            "    composed, each on the previous result: {}",
                            c.in_order.join(", then ")
                        );
                    }
                    match &c.below {
                        Some(below) => println!("    kube.below(): {below}"),
                        None => println!("    kube.below(): no layer below serves it"),
                    }
                }
            }
            if let Some(d) = detail {
                print_detail(&d);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// With composition on, what composes for an operation the declarative
/// layer serves: its customizations in the order they run (several for an
/// editing operation) and what `kube.below()` reaches.
struct Composed {
    in_order: Vec<String>,
    below: Option<Source>,
}

fn composed(
    chain: &Interpreter,
    gvk: &kube::core::GroupVersionKind,
    op: InterpreterOperation,
    decisions: &[LayerDecision],
) -> Option<Composed> {
    let serving = decisions.last()?.serves.as_ref()?;
    if !crate::composition::on() || serving.layer != LayerKind::Declarative {
        return None;
    }
    // The decisions list one layer each, up to the one that serves.
    let below = Below::new(chain.layers().get(decisions.len()..).unwrap_or_default());
    Some(Composed {
        in_order: serving.name.split(',').map(str::to_owned).collect(),
        below: below.source(TypeRef::from_gvk(gvk), op),
    })
}

/// Runs one operation: inputs, answer (or error), time, and the Lua lines.
fn detail(
    chain: &Interpreter,
    args: &ExplainArgs,
    customizations: Vec<karmada_interpreter::api::ResourceInterpreterCustomization>,
    op: InterpreterOperation,
    request: &Request<'_>,
) -> crate::error::Result<Value> {
    let object = request.object();
    let started = Instant::now();
    let answer = chain.interpret(request);
    let first = started.elapsed();
    let mut times: Vec<Duration> = (0..TIMED_CALLS)
        .map(|_| {
            let t = Instant::now();
            let _ = chain.interpret(request);
            t.elapsed()
        })
        .collect();
    times.sort();
    let median = times[TIMED_CALLS / 2];

    let mut inputs = serde_json::Map::new();
    match request {
        Request::Retain { desired, observed } => {
            inputs.insert("desiredObj".into(), (*desired).clone());
            inputs.insert("observedObj".into(), (*observed).clone());
        }
        Request::ReviseReplica { object, replicas } => {
            inputs.insert("desiredObj".into(), (*object).clone());
            inputs.insert("desiredReplica".into(), json!(replicas));
        }
        #[cfg(feature = "karmada-next")]
        Request::ReviseComponents { object, components } => {
            inputs.insert("desiredObj".into(), (*object).clone());
            inputs.insert(
                "components".into(),
                serde_json::to_value(components).unwrap_or(Value::Null),
            );
        }
        Request::AggregateStatus { object, items } => {
            inputs.insert("desiredObj".into(), (*object).clone());
            inputs.insert(
                "statusItems".into(),
                serde_json::to_value(items).unwrap_or(Value::Null),
            );
        }
        Request::InterpretStatus { object } | Request::InterpretHealth { object } => {
            inputs.insert("observedObj".into(), (*object).clone());
        }
        Request::InterpretReplica { object }
        | Request::InterpretComponent { object }
        | Request::InterpretDependency { object } => {
            inputs.insert("desiredObj".into(), (*object).clone());
        }
    }

    let mut out = json!({
        "operation": op.to_string(),
        "inputs": inputs,
        "timeMicros": {
            "firstCall": first.as_secs_f64() * 1e6,
            "medianOfNext": median.as_secs_f64() * 1e6,
            "calls": TIMED_CALLS,
        },
    });
    match answer {
        Ok(answer) => {
            out["servedBy"] = json!(answer.served_by);
            let source = answer.served_by.clone();
            out["answer"] = Value::Object(
                results(answer.value)
                    .into_iter()
                    .map(|(k, v)| (k.to_owned(), v))
                    .collect(),
            );
            if let Some((layer, why)) = args.chain.health.reasons()?.verdict(&source, object)? {
                out[layer] = why;
            }
            if let Some((traced, coverage)) = traced_chain(args, customizations.clone(), &source)? {
                // The traced run repeats the answer with the line hook on
                // (not timed).
                let _ = traced.interpret(request);
                out["lua"] = Value::Array(
                    coverage
                        .scripts()
                        .into_iter()
                        .map(|(script, lines)| {
                            let text: Vec<&str> = script.lines().collect();
                            json!({
                                "source": script_source(&customizations, op, &script, &source),
                                "lines": lines.iter().map(|n| json!({
                                    "line": n,
                                    "text": text.get(n - 1).map_or("", |l| l.trim_end()),
                                })).collect::<Vec<_>>(),
                            })
                        })
                        .collect(),
                );
            }
        }
        Err(e) => out["error"] = Value::String(e.to_string()),
    }
    Ok(out)
}

/// Which script ran: the customization whose `op` script it is (with
/// composition several of them run, and `kube.below()` may run a bundled
/// one), else the answer's source.
fn script_source(
    customizations: &[karmada_interpreter::api::ResourceInterpreterCustomization],
    op: InterpreterOperation,
    script: &str,
    source: &Source,
) -> String {
    let own = customizations.iter().find(|c| c.script(op) == Some(script));
    match own {
        Some(c) => c.name().to_owned(),
        // A script the customizations do not hold ran below them.
        None if source.layer == LayerKind::Declarative => "a layer below (kube.below)".to_owned(),
        None => source.name.to_string(),
    }
}

/// The same chain recording the Lua lines it runs, when `source` is a Lua
/// layer (declarative, thirdparty, argocd): its webhooks left out (they did
/// not serve the pair, so the same layer answers), the rest as the flags
/// build it.
fn traced_chain(
    args: &ExplainArgs,
    customizations: Vec<karmada_interpreter::api::ResourceInterpreterCustomization>,
    source: &Source,
) -> crate::error::Result<Option<(Interpreter, Coverage)>> {
    let lua = matches!(source.layer, LayerKind::Declarative | LayerKind::Thirdparty)
        || source.layer == karmada_interpreter::health::ARGOCD;
    if !lua {
        return Ok(None);
    }
    let coverage = Coverage::default();
    let chain = args
        .chain
        .with_health(Interpreter::builder())
        .customizations(customizations)
        .coverage(coverage.clone())
        .build()?;
    Ok(Some((chain, coverage)))
}

/// A CEL verdict's `decidedBy` in words: the expression and its field,
/// the generation check, or none true.
fn cel_decision(d: &Value) -> String {
    let text = |k: &str| d[k].as_str().unwrap_or_default().to_owned();
    match d["by"].as_str() {
        Some("expression") => format!("{}: {}", text("field"), text("expression")),
        Some("observedGeneration") => format!(
            "status.observedGeneration {} differs from metadata.generation {}",
            d["observed"], d["generation"]
        ),
        _ => "no expression being true (in progress, as Flux reads it)".to_owned(),
    }
}

fn print_detail(d: &Value) {
    println!();
    println!("{}:", d["operation"].as_str().unwrap_or_default());
    if let Some(inputs) = d["inputs"].as_object() {
        println!("  inputs:");
        for (name, value) in inputs {
            let shown = match value {
                Value::Object(_) => describe(value),
                other => other.to_string(),
            };
            println!("    {name}: {shown}");
        }
    }
    if let Some(source) = d.get("servedBy") {
        println!(
            "  served by: {} ({})",
            source["layer"].as_str().unwrap_or_default(),
            source["name"].as_str().unwrap_or_default()
        );
    }
    if let Some(answer) = d.get("answer").and_then(Value::as_object) {
        println!("  answer:");
        for (name, value) in answer {
            println!("    {name}: {value}");
        }
    }
    if let Some(error) = d.get("error").and_then(Value::as_str) {
        println!("  error: {error}");
    }
    // A health verdict's words: `healthy (Current)`.
    let verdict = |v: &Value| {
        format!(
            "{} ({})",
            if v["healthy"] == true {
                "healthy"
            } else {
                "unhealthy"
            },
            v["status"].as_str().unwrap_or_default()
        )
    };
    if let Some(v) = d.get("fallback") {
        println!(
            "  fallback verdict: {}: {}",
            verdict(v),
            v["reason"].as_str().unwrap_or_default()
        );
    }
    if let Some(v) = d.get("cel") {
        println!(
            "  cel verdict: {}, decided by {}",
            verdict(v),
            cel_decision(&v["decidedBy"])
        );
    }
    if let Some(v) = d.get("argocd") {
        println!(
            "  argo cd status: {} ({})",
            v["status"].as_str().unwrap_or_default(),
            v["message"].as_str().unwrap_or_default()
        );
    }
    let t = &d["timeMicros"];
    println!(
        "  time: {:.1} µs first call, {:.1} µs median of the next {}",
        t["firstCall"].as_f64().unwrap_or_default(),
        t["medianOfNext"].as_f64().unwrap_or_default(),
        t["calls"]
    );
    if let Some(scripts) = d.get("lua").and_then(Value::as_array) {
        for script in scripts {
            println!(
                "  lua lines that ran ({}):",
                script["source"].as_str().unwrap_or_default()
            );
            for line in script["lines"].as_array().into_iter().flatten() {
                println!(
                    "    {:>4}  {}",
                    line["line"].as_u64().unwrap_or_default(),
                    line["text"].as_str().unwrap_or_default()
                );
            }
        }
    }
}
