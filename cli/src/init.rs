//! `karmada-interpreter init`: a Karmada-layout folder to start a
//! customization from — `customizations.yaml` with a working stub per
//! operation and `testdata/<operation>-test.yaml` with one case each whose
//! expected output is what the stub returns, so that `check`, `lint` and
//! `test` accept the folder at once. Each YAML file starts with a
//! `# yaml-language-server: $schema=` line pointing at the schema `init`
//! writes next to `customizations.yaml` (`case.schema.json`,
//! `customization.schema.json`), so an editor completes and checks the
//! files at once.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use karmada_interpreter::api::InterpreterOperation as Op;
use karmada_interpreter::interpreter::results_map;
use karmada_interpreter::{load, Interpreter};

use crate::error::{Error, Result};
use karmada_interpreter_golden::parse_cases;
use karmada_interpreter_golden::schema::Document;
use serde_json::{json, Value};

#[derive(Debug, clap::Args)]
pub struct InitArgs {
    /// The target's apiVersion (`group/version`, e.g. `example.io/v1`).
    api_version: String,
    /// The target's kind (e.g. `Workload`).
    kind: String,
    /// The operations to write stubs for, comma-separated or repeated
    /// (default: all eight).
    #[arg(long, value_delimiter = ',')]
    operations: Vec<Op>,
    /// The folder to write (default: `<group>/<version>/<Kind>`, Karmada's
    /// layout); it must not hold a customizations.yaml yet.
    dir: Option<PathBuf>,
}

/// A stub entry function per operation: it works on the sample objects
/// and passes `lint` (it checks optional fields before reading through them).
fn stub(op: Op) -> &'static str {
    match op {
        Op::InterpretReplica => {
            "function GetReplicas(obj)
  local replicas = 0
  if obj.spec ~= nil and obj.spec.replicas ~= nil then
    replicas = obj.spec.replicas
  end
  -- Second result: per-replica requirements (nil: none), e.g.
  -- require(\"kube\").accuratePodRequirements(obj.spec.template).
  return replicas, nil
end"
        }
        Op::InterpretComponent => {
            "function GetComponents(obj)
  local replicas = 0
  if obj.spec ~= nil and obj.spec.replicas ~= nil then
    replicas = obj.spec.replicas
  end
  return { { name = \"main\", replicas = replicas } }
end"
        }
        Op::ReviseReplica => {
            "function ReviseReplica(obj, desiredReplica)
  if obj.spec == nil then
    obj.spec = {}
  end
  obj.spec.replicas = desiredReplica
  return obj
end"
        }
        #[cfg(feature = "karmada-next")]
        Op::ReviseComponents => {
            "function ReviseComponents(desiredObj, components)
  -- One entry per component: {name = ..., replicas = ...}.
  if desiredObj.spec == nil then
    desiredObj.spec = {}
  end
  for i = 1, #components do
    if components[i].name == \"main\" then
      desiredObj.spec.replicas = components[i].replicas
    end
  end
  return desiredObj
end"
        }
        Op::Retain => {
            "function Retain(desiredObj, observedObj)
  -- Keep fields that member-cluster controllers own, e.g.
  -- desiredObj.spec.paused = observedObj.spec.paused
  return desiredObj
end"
        }
        Op::AggregateStatus => {
            "function AggregateStatus(desiredObj, statusItems)
  if statusItems == nil then
    return desiredObj
  end
  local ready = 0
  for i = 1, #statusItems do
    local item = statusItems[i]
    if item.status ~= nil and item.status.readyReplicas ~= nil then
      ready = ready + item.status.readyReplicas
    end
  end
  if desiredObj.status == nil then
    desiredObj.status = {}
  end
  desiredObj.status.readyReplicas = ready
  return desiredObj
end"
        }
        Op::InterpretStatus => {
            "function ReflectStatus(observedObj)
  if observedObj.status == nil then
    return {}
  end
  return { readyReplicas = observedObj.status.readyReplicas }
end"
        }
        Op::InterpretHealth => {
            "function InterpretHealth(observedObj)
  if observedObj.status == nil or observedObj.status.readyReplicas == nil then
    return false
  end
  return observedObj.status.readyReplicas > 0
end"
        }
        Op::InterpretDependency => {
            "function GetDependencies(desiredObj)
  local dependencies = {}
  -- e.g. a ConfigMap named in the spec:
  -- if desiredObj.spec ~= nil and desiredObj.spec.configMapName ~= nil then
  --   table.insert(dependencies, { apiVersion = \"v1\", kind = \"ConfigMap\",
  --     namespace = desiredObj.metadata.namespace, name = desiredObj.spec.configMapName })
  -- end
  return dependencies
end"
        }
    }
}

/// The sample object of the skeleton cases.
fn sample(api_version: &str, kind: &str) -> Value {
    json!({
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": "sample", "namespace": "default"},
        "spec": {"replicas": 2},
        "status": {"readyReplicas": 2},
    })
}

/// The skeleton case of one operation (without its output).
fn case(op: Op, object: &Value) -> Value {
    let mut case = json!({
        "name": format!("{op} of the sample"),
        "description": "Generated by `karmada-interpreter init`: edit the inputs and the expected output.",
        "operation": op.as_str(),
    });
    match op {
        Op::InterpretReplica | Op::InterpretComponent | Op::InterpretDependency => {
            case["desiredObj"] = object.clone();
        }
        Op::ReviseReplica => {
            case["desiredObj"] = object.clone();
            case["inputReplicas"] = json!(3);
        }
        #[cfg(feature = "karmada-next")]
        Op::ReviseComponents => {
            case["desiredObj"] = object.clone();
            case["inputComponents"] = json!([{"name": "main", "replicas": 3}]);
        }
        Op::Retain => {
            case["desiredObj"] = object.clone();
            case["observedObj"] = object.clone();
        }
        Op::AggregateStatus => {
            case["desiredObj"] = object.clone();
            case["statusItems"] = json!([
                {"clusterName": "member1", "status": {"readyReplicas": 1}, "applied": true},
                {"clusterName": "member2", "status": {"readyReplicas": 1}, "applied": true},
            ]);
        }
        Op::InterpretStatus | Op::InterpretHealth => {
            case["observedObj"] = object.clone();
        }
    }
    case
}

/// The header line of a file `init` writes: the schema of `document`,
/// `up` folders above the file.
fn modeline(document: Document, up: usize) -> String {
    format!(
        "{}\n",
        Document::modeline(&format!("{}{}", "../".repeat(up), document.file_name()))
    )
}

fn customizations_yaml(api_version: &str, kind: &str, ops: &[Op]) -> String {
    let name = format!("declarative-configuration-{}", kind.to_ascii_lowercase());
    let mut out = modeline(Document::Customization, 0);
    out += &format!(
        "apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\nmetadata:\n  name: {name}\nspec:\n  target:\n    apiVersion: {api_version}\n    kind: {kind}\n  customizations:\n"
    );
    for op in Op::ALL.iter().filter(|op| ops.contains(op)) {
        out.push_str(&format!(
            "    {}:\n      luaScript: |\n",
            op.customization_member()
        ));
        for line in stub(*op).lines() {
            out.push_str("        ");
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|source| Error::File {
        path: path.to_owned(),
        source,
    })
}

pub fn run(args: InitArgs) -> Result<ExitCode> {
    let (group, version) = args
        .api_version
        .rsplit_once('/')
        .unwrap_or(("", args.api_version.as_str()));
    let problems =
        karmada_interpreter::k8s::validation::target_problems(&args.api_version, &args.kind);
    if !problems.is_empty() {
        return Err(Error::usage("init", problems.join("; ")));
    }
    let ops: Vec<Op> = if args.operations.is_empty() {
        // The profile's operations only with the profile on.
        Op::ALL
            .into_iter()
            .filter(|op| crate::profile::current().admit(*op).is_ok())
            .collect()
    } else {
        for op in &args.operations {
            crate::profile::current()
                .admit(*op)
                .map_err(|e| Error::usage("--operations", e))?;
        }
        args.operations.clone()
    };
    let dir = args.dir.clone().unwrap_or_else(|| {
        let group = if group.is_empty() { "core" } else { group };
        PathBuf::from(group).join(version).join(&args.kind)
    });
    let file = dir.join("customizations.yaml");
    if file.exists() {
        return Err(Error::usage(
            "init",
            format!("{} exists; init writes a new folder", file.display()),
        ));
    }
    let testdata = dir.join("testdata");
    std::fs::create_dir_all(&testdata).map_err(|source| Error::File {
        path: testdata.clone(),
        source,
    })?;
    for document in [Document::Case, Document::Customization] {
        write(
            &dir.join(document.file_name()),
            &crate::schema::text(document)?,
        )?;
    }
    let text = customizations_yaml(&args.api_version, &args.kind, &ops);
    write(&file, &text)?;
    // The expected outputs are what the stubs return.
    let chain = Interpreter::builder()
        .customizations(load::customizations_from_str(
            &text,
            &file.display().to_string(),
        )?)
        .profile(crate::profile::current())
        .build()?;
    let object = sample(&args.api_version, &args.kind);
    for op in Op::ALL.iter().filter(|op| ops.contains(op)) {
        let path = testdata.join(format!("{}-test.yaml", op.as_str().to_ascii_lowercase()));
        let mut value = case(*op, &object);
        // Parsed through the case reader (with a placeholder output) so the
        // inputs are read exactly as `test` will read them.
        value["output"] = json!({});
        let yaml = to_yaml(&value)?;
        let parsed = parse_cases(&yaml, &path)
            .into_iter()
            .next()
            .ok_or_else(|| Error::usage("init", format!("{op}: no case generated")))??;
        let request = parsed.request().map_err(karmada_interpreter::Error::from)?;
        let output = results_map(chain.interpret(&request)?.value);
        value["output"] = Value::Object(output);
        let text = modeline(Document::Case, 1) + &to_yaml(&value)?;
        write(&path, &text)?;
    }
    println!(
        "wrote {} and {} case file(s) under {}, with the schemas editors read ({} and {}: `karmada-interpreter schema` prints them again after an upgrade)",
        file.display(),
        ops.len(),
        testdata.display(),
        Document::Customization.file_name(),
        Document::Case.file_name()
    );
    println!(
        "next: edit the scripts, then `karmada-interpreter lint {0}` and `karmada-interpreter test --coverage {0}`",
        dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn to_yaml(value: &Value) -> Result<String> {
    serde_saphyr::to_string(value).map_err(|e| Error::Encode {
        what: "case as YAML".into(),
        message: e.to_string(),
    })
}
