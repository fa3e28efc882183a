//! `karmada-interpreter run`: runs one operation like `karmadactl interpret
//! --operation`, on customizations from files (`-f`) or, without `-f`, on the
//! built-in chain (bundled third-party customizations and native built-ins).

use std::process::ExitCode;

use crate::load::Loader;
use karmada_interpreter::api::InterpreterOperation;
use karmada_interpreter::declarative::Limits;
use karmada_interpreter::interpreter::{results, InputError, Inputs, ObjectInput};
use karmada_interpreter::Interpreter;

use crate::error::Error;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Output {
    Yaml,
    Json,
}

#[derive(Debug, clap::Args)]
#[command(after_help = crate::ux::EXIT_CODES)]
pub struct RunArgs {
    /// The operation (case-insensitive), e.g. InterpretReplica.
    #[arg(long, required_unless_present = "check")]
    operation: Option<String>,
    /// Customizations: files, directories (their .json/.yaml/.yml files),
    /// glob patterns or `-` for standard input; repeatable and
    /// comma-separated. Without any, the built-in chain runs.
    #[arg(long = "filename", short = 'f', value_name = "FILE")]
    files: Vec<String>,
    /// Recurse into the directories given with -f.
    #[arg(long, short = 'R')]
    recursive: bool,
    #[command(flatten)]
    objects: crate::args::ObjectFiles,
    #[command(flatten)]
    health: crate::args::HealthLayersArgs,
    /// Replica count for ReviseReplica (required by it).
    #[arg(long)]
    desired_replica: Option<i32>,
    /// The per-component assignment for ReviseComponents (the karmada-next
    /// profile; required by it): a YAML or JSON file holding a list of
    /// `{name, replicas}`, or `-` for standard input.
    #[cfg(feature = "karmada-next")]
    #[arg(long, value_name = "FILE")]
    components_file: Option<String>,
    #[command(flatten)]
    timeout: crate::ux::TimeoutArg,
    /// The deadline in milliseconds (older spelling of --timeout).
    #[arg(long, hide = true, conflicts_with = "timeout", value_parser = clap::value_parser!(u64).range(1..))]
    timeout_ms: Option<u64>,
    /// Output format.
    #[arg(long, short = 'o', value_enum, default_value = "yaml")]
    output: Output,
    /// Not an option of `run`: validating customization files is the
    /// `check` command. Accepted only to say so.
    #[arg(long, hide = true)]
    check: bool,
}

/// An input error worded as `karmadactl interpret` words it (its flags).
fn in_flag_terms(error: &InputError) -> String {
    match error {
        InputError::Missing {
            input: ObjectInput::Desired,
            ..
        } => "desired, desired-file options are not set".into(),
        InputError::Missing {
            input: ObjectInput::Observed,
            ..
        } => "observed, observed-file options are not set".into(),
        InputError::NoObject { .. } => "desired-file, observed-file options are not set".into(),
        InputError::BothObjects { .. } => {
            "you can not specify both desired-file and observed-file options".into()
        }
        other => other.to_string(),
    }
}

/// `--components-file`'s assignment (required by ReviseComponents).
#[cfg(feature = "karmada-next")]
pub(crate) fn components(
    file: Option<&str>,
    op: InterpreterOperation,
    loader: &mut Loader,
) -> crate::error::Result<Option<Vec<karmada_interpreter::api::TargetComponent>>> {
    let Some(file) = file else {
        if op == InterpreterOperation::ReviseComponents {
            return Err(Error::usage(
                "--components-file",
                "ReviseComponents needs the component assignment to write: give --components-file FILE (a list of {name, replicas})",
            ));
        }
        return Ok(None);
    };
    let value = loader
        .object("--components-file", file)
        .map_err(|source| Error::Load {
            what: "fail to get components".to_owned(),
            source,
        })?;
    serde_json::from_value(value).map(Some).map_err(|e| {
        Error::usage(
            "--components-file",
            format!("the component assignment must be a list of {{name, replicas}}: {e}"),
        )
    })
}

pub fn run(args: RunArgs) -> crate::error::Result<ExitCode> {
    if args.check {
        return Err(Error::usage(
            "--check",
            "`run` has no --check: to validate customization files use `karmada-interpreter check -f FILE`",
        ));
    }
    let operation = args.operation.as_deref().unwrap_or_default();
    let op = crate::profile::operation(operation)?;
    if op == InterpreterOperation::ReviseReplica && args.desired_replica.is_none() {
        return Err(Error::usage(
            "--desired-replica",
            "ReviseReplica needs the replica count to write: give --desired-replica N",
        ));
    }
    // Customizations first, then the objects and status items, each
    // input's failure worded as karmadactl words it.
    let mut loader = Loader::new();
    let customizations = loader.customizations("-f", &args.files, args.recursive)?;
    let crate::args::Objects {
        desired,
        observed,
        items,
    } = args.objects.load(&mut loader)?;
    #[cfg(feature = "karmada-next")]
    let components = components(args.components_file.as_deref(), op, &mut loader)?;

    let fail = |message: String| {
        eprintln!("Execute {op} error: {message}");
        Ok(ExitCode::FAILURE)
    };
    let inputs = Inputs {
        desired: desired.as_ref(),
        observed: observed.as_ref(),
        replicas: i64::from(args.desired_replica.unwrap_or_default()),
        // Without --status-file karmadactl passes no list (nil), not an empty one.
        status_items: items.as_deref(),
        #[cfg(feature = "karmada-next")]
        components: components.as_deref(),
    };
    let request = match inputs.request(op) {
        Ok(r) => r,
        Err(e) => return fail(in_flag_terms(&e)),
    };

    // With -f, only the given customizations answer (karmadactl's rule);
    // without, the built-in set. --timeout reaches every script either way.
    let limits = match args.timeout_ms {
        Some(ms) => Some(Limits {
            timeout: std::time::Duration::from_millis(ms),
            ..Limits::default()
        }),
        None => args.timeout.timeout.map(|_| args.timeout.limits()),
    };
    // With --composition the built-in layers stay behind the files, for
    // the scripts' kube.below(); the files alone still answer.
    let only_files = !args.files.is_empty();
    let composition = crate::composition::on();
    let built_in = !only_files || composition;
    let mut builder = args
        .health
        .apply(Interpreter::builder())
        .customizations(customizations)
        .thirdparty(built_in)
        .native(built_in)
        .profile(crate::profile::current())
        .composition(composition);
    if let Some(limits) = limits {
        builder = builder.lua_limits(limits);
    }
    let chain = builder.build()?;
    if only_files && composition {
        use karmada_interpreter::interpreter::{gvk_of, LayerKind};
        let served = chain.served_by(&gvk_of(request.object()), op);
        if served.is_none_or(|s| matches!(s.layer, LayerKind::Thirdparty | LayerKind::Native)) {
            return fail("rule is not enabled".into());
        }
    }
    let answer = match chain.interpret(&request) {
        Err(karmada_interpreter::Error::NotServed { .. }) if only_files => {
            return fail("rule is not enabled".into())
        }
        answer => answer,
    };
    let answer = match answer {
        Ok(a) => a,
        // Script failures at their place in the -f files.
        Err(e) => return fail(crate::locate::locator(&args.files, args.recursive).describe(&e)),
    };
    // Which layer answered: on stderr for both formats (the YAML on stdout
    // stays karmadactl's), and as `servedBy` in the JSON document.
    eprintln!("served by {}", answer.served_by);
    let served_by = answer.served_by.to_string();
    // Why a health layer this project authors answered so (the CEL rule's
    // deciding expression, the Argo CD check's status and message, the
    // fallback's rule): in the JSON document, as `explain` shows it.
    let why = match &args.output {
        Output::Json => args
            .health
            .reasons()?
            .verdict(&answer.served_by, request.object())?,
        Output::Yaml => None,
    };
    let results = results(answer.value);
    match args.output {
        Output::Json => {
            let mut map: serde_json::Map<String, Value> = results
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect();
            map.insert("servedBy".to_owned(), Value::String(served_by));
            if let Some((layer, why)) = why {
                map.insert(layer.to_owned(), why);
            }
            println!(
                "{}",
                serde_json::to_string_pretty(&Value::Object(map)).unwrap_or_default()
            );
        }
        Output::Yaml => {
            let n = results.len();
            for (i, (name, value)) in results.into_iter().enumerate() {
                println!("---");
                println!("# [{}/{n}] {name}:", i + 1);
                let text = serde_saphyr::to_string(&value).unwrap_or_else(|e| e.to_string());
                print!("{text}");
                if !text.ends_with('\n') {
                    println!();
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
