//! `karmada-interpreter capture`: golden cases from a cluster. Objects of a
//! kind are read through a kubeconfig (and, with `--bindings`, each one's
//! ResourceBinding status items from a Karmada control plane), redacted
//! (`--redact`, and a Secret's `data`/`stringData` always), and written as
//! case files whose expected output is what the chosen interpreter answers
//! now, each case marked `captured` for review.

use std::path::PathBuf;
use std::process::ExitCode;

use karmada_interpreter::api::InterpreterOperation;
use karmada_interpreter::Interpreter;
use karmada_interpreter_cluster::capture::{binding_status_items, read_objects, Selection};
use karmada_interpreter_cluster::{client_for, ClientSource};
use karmada_interpreter_golden::capture::{
    capturable, capture_cases, case_file, redact, Captured, RedactPath,
};
use serde_json::{json, Value};

use crate::args::CustomizationFiles;
use crate::error::{Error, Result};

#[derive(Debug, clap::Args)]
#[command(after_help = "Example (a Karmada control plane):\n  \
    karmada-interpreter capture --kubeconfig karmada.config --api-version apps/v1 --kind Deployment \\\n    \
    -n shop --bindings --redact 'spec.template.spec.containers[*].env' --out testdata/")]
pub struct CaptureArgs {
    /// The kind of the objects to read.
    #[arg(long, value_name = "KIND")]
    kind: String,
    /// The kind's API version (`apps/v1`; `v1` for the core group).
    #[arg(long, value_name = "GROUP/VERSION")]
    api_version: String,
    /// The resource's plural name, when it is not the kind's usual plural.
    #[arg(long, value_name = "PLURAL")]
    resource: Option<String>,
    /// Read only this namespace (default: every namespace).
    #[arg(long, short = 'n', value_name = "NAMESPACE")]
    namespace: Option<String>,
    /// Read only the objects of this name (repeatable).
    #[arg(long = "name", value_name = "NAME")]
    names: Vec<String>,
    /// Read only the objects this label selector matches (`app=web`).
    #[arg(long, short = 'l', value_name = "SELECTOR")]
    selector: Option<String>,
    /// The kubeconfig of the cluster to read (default: $KUBECONFIG, then
    /// ~/.kube/config).
    #[arg(long, value_name = "FILE")]
    kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to use.
    #[arg(long, value_name = "NAME")]
    context: Option<String>,
    /// The cluster is a Karmada control plane: read each object's
    /// ResourceBinding (ClusterResourceBinding for a cluster-scoped kind)
    /// and write an AggregateStatus case from its per-cluster status items.
    #[arg(long)]
    bindings: bool,
    /// The operations to write cases for (repeatable; default: every one the
    /// interpreter serves for the kind whose inputs the capture has:
    /// InterpretReplica, InterpretComponent, InterpretStatus,
    /// InterpretHealth, InterpretDependency, and AggregateStatus with
    /// --bindings).
    #[arg(long = "operation", value_name = "OPERATION")]
    operations: Vec<String>,
    /// Redact the value at this path (a JSONPath such as
    /// `spec.template.spec.containers[*].env` or `$.data['tls.key']`) in
    /// every object and status item: each string under it becomes
    /// `REDACTED`, each number 0, its shape stays (repeatable). A Secret's
    /// `data` and `stringData` values are always redacted.
    #[arg(long, value_name = "JSONPATH")]
    redact: Vec<String>,
    #[command(flatten)]
    files: CustomizationFiles,
    /// The folder to write the case files into (created if needed): one
    /// file per operation, `<operation>-captured.yaml`; an existing file is
    /// not overwritten.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

pub fn run(args: CaptureArgs) -> Result<ExitCode> {
    let paths: Vec<RedactPath> = args
        .redact
        .iter()
        .map(|p| RedactPath::parse(p).map_err(|e| Error::usage("--redact", e)))
        .collect::<Result<_>>()?;
    let operations = operations(&args)?;
    let customizations = args.files.load()?;
    let files = args.files.paths()?;
    let interpreter = if customizations.is_empty() {
        "builtin".to_owned()
    } else {
        format!(
            "builtin + {}",
            files
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let chain = Interpreter::builder()
        .customizations(customizations)
        .profile(crate::profile::current())
        .build()?;
    let selection = Selection {
        api_version: args.api_version.clone(),
        kind: args.kind.clone(),
        plural: args.resource.clone(),
        namespace: args.namespace.clone(),
        names: args.names.clone(),
        label_selector: args.selector.clone(),
    };
    let source = ClientSource::Kubeconfig {
        path: args.kubeconfig.clone(),
        context: args.context.clone(),
    };
    let from = match (&args.context, &args.kubeconfig) {
        (Some(context), _) => format!("context {context}"),
        (None, Some(file)) => format!("kubeconfig {}", file.display()),
        (None, None) => "the default kubeconfig".to_owned(),
    };
    let runtime = crate::cluster::runtime()?;
    let read = runtime.block_on(async {
        let client = client_for(&source).await?;
        let objects = read_objects(&client, &selection).await?;
        let mut out = Vec::new();
        for object in objects {
            let binding = if args.bindings {
                binding_status_items(&client, &object).await?
            } else {
                None
            };
            out.push((object, binding));
        }
        Ok::<_, karmada_interpreter_cluster::ClusterError>(out)
    })?;
    if read.is_empty() {
        return Err(crate::ux::nothing_found(
            &format!("{} {}", args.api_version, args.kind),
            &[from],
            "check --api-version, --kind, --namespace, --name and --selector (and --resource for an unusual plural)",
        ));
    }
    let objects = read.len();
    let mut by_operation: Vec<(InterpreterOperation, Vec<String>)> = Vec::new();
    for (mut object, binding) in read {
        // Karmada's interpreters never read it, and it dwarfs the object.
        if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.remove("managedFields");
        }
        let mut redacted = redact(&mut object, &paths);
        let items = binding.as_ref().map(|(_, items)| {
            items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    let mut item = item.clone();
                    if let Some(status) = item.status.take() {
                        let mut holder = json!({ "status": status });
                        redacted.extend(
                            redact(&mut holder, &paths)
                                .into_iter()
                                .map(|p| format!("statusItems[{i}].{p}")),
                        );
                        item.status = holder.get_mut("status").map(Value::take);
                    }
                    item
                })
                .collect::<Vec<_>>()
        });
        if args.bindings && binding.is_none() {
            eprintln!(
                "capture: no ResourceBinding for {} {}: no AggregateStatus case for it",
                args.kind,
                name_of(&object)
            );
        }
        let captured = Captured {
            from: from.clone(),
            binding: binding.as_ref().map(|(name, _)| name.clone()),
            interpreter: interpreter.clone(),
            redacted,
            ..Captured::default()
        };
        for (op, text) in capture_cases(&chain, &object, items.as_deref(), &operations, &captured) {
            match by_operation.iter_mut().find(|(o, _)| *o == op) {
                Some((_, docs)) => docs.push(text),
                None => by_operation.push((op, vec![text])),
            }
        }
    }
    if by_operation.is_empty() {
        return Err(crate::ux::nothing_found(
            "operation the interpreter serves",
            &[format!("{} {}", args.api_version, args.kind)],
            &format!(
                "{interpreter} serves none of {} for this kind: give its customizations with -f",
                operations
                    .iter()
                    .map(|o| o.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    std::fs::create_dir_all(&args.out).map_err(|source| Error::File {
        path: args.out.clone(),
        source,
    })?;
    let header = format!(
        "Captured by `karmada-interpreter capture` from {from}: the expected output of each\n\
         case is what {interpreter} answered then, not a verified truth.\n\
         Review each case, then delete its `captured` key."
    );
    let mut written = Vec::new();
    for (op, docs) in &by_operation {
        let path = args
            .out
            .join(format!("{}-captured.yaml", op.as_str().to_lowercase()));
        if path.exists() {
            return Err(Error::usage(
                "--out",
                format!(
                    "{} exists: capture does not overwrite case files (move it, or choose another --out)",
                    path.display()
                ),
            ));
        }
        written.push((path, case_file(docs, &header), docs.len()));
    }
    let mut cases = 0;
    for (path, text, n) in written {
        std::fs::write(&path, text).map_err(|source| Error::File {
            path: path.clone(),
            source,
        })?;
        eprintln!("capture: {n} case(s) written to {}", path.display());
        cases += n;
    }
    eprintln!(
        "capture: {cases} case(s) from {objects} {}(s); review them, then delete each `captured` key",
        args.kind
    );
    Ok(ExitCode::SUCCESS)
}

/// The operations asked for, or every capturable one.
fn operations(args: &CaptureArgs) -> Result<Vec<InterpreterOperation>> {
    let allowed = capturable(args.bindings);
    if args.operations.is_empty() {
        return Ok(allowed);
    }
    args.operations
        .iter()
        .map(|text| {
            let op = InterpreterOperation::parse_case_insensitive(text)
                .map_err(|e| Error::usage("--operation", e))?;
            if allowed.contains(&op) {
                Ok(op)
            } else {
                Err(Error::usage(
                    "--operation",
                    format!(
                        "capture writes cases for operations one object gives the inputs of ({}){}",
                        allowed
                            .iter()
                            .map(|o| o.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                        match op {
                            InterpreterOperation::AggregateStatus =>
                                ": AggregateStatus needs --bindings",
                            InterpreterOperation::Retain =>
                                ": Retain needs the member cluster's copy too",
                            InterpreterOperation::ReviseReplica =>
                                ": ReviseReplica needs a replica count to set",
                            _ => "",
                        }
                    ),
                ))
            }
        })
        .collect()
}

/// `namespace/name` of an object.
fn name_of(object: &Value) -> String {
    let meta = |f: &str| {
        object
            .pointer(&format!("/metadata/{f}"))
            .and_then(Value::as_str)
            .unwrap_or("")
    };
    match meta("namespace") {
        "" => meta("name").to_owned(),
        ns => format!("{ns}/{}", meta("name")),
    }
}
