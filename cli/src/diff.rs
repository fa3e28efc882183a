//! `karmada-interpreter diff -f old.yaml -f new.yaml CASES...`: two
//! versions of some customizations run over the same golden cases (each on
//! the built-in chain, as `test` runs them), and where their answers
//! differ: a changed script is tried on the cases before it replaces the
//! live one.

use std::path::PathBuf;
use std::process::ExitCode;

use karmada_interpreter::api::ResourceInterpreterCustomization;
use karmada_interpreter_golden::{
    diff_result, discover, load_cases, Backend, CaseFile, ChainBackend, GoldenCase, Match,
};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::load::Loader;
use crate::ux::{self, Output};

#[derive(Debug, clap::Args)]
#[command(after_help = ux::EXIT_CODES)]
pub struct DiffArgs {
    /// The two versions, old first, then new: each a file, a directory
    /// (its .json/.yaml/.yml files that hold customizations) or a glob
    /// pattern of ResourceInterpreterCustomization documents.
    #[arg(
        long = "filename",
        short = 'f',
        value_name = "FILE",
        required = true,
        num_args = 1
    )]
    files: Vec<String>,
    /// Golden case files or directories (searched recursively, as `test`
    /// does). The customizations are exactly the two versions: a
    /// customizations.yaml next to the cases is not added.
    #[arg(required = true, value_name = "CASES")]
    cases: Vec<PathBuf>,
    /// Output format (`text`: the differing cases, then a summary line).
    #[arg(long, short = 'o', value_enum, default_value_t = Output::Text)]
    output: Output,
    /// Print the differing cases only, no summary line.
    #[arg(long, short)]
    quiet: bool,
}

/// What one version answered for a case.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
enum Answer {
    /// The operation's named results.
    Result(Map<String, Value>),
    /// How it failed.
    Error(String),
}

/// One place where the answers differ. `None` means absent.
#[derive(Debug, Clone, PartialEq, Serialize)]
struct Change {
    path: String,
    old: Option<Value>,
    new: Option<Value>,
}

/// One case whose answers differ.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Differing {
    file: PathBuf,
    name: String,
    operation: String,
    old: Answer,
    new: Answer,
    /// Where the results differ (empty when one version failed or the
    /// errors differ: the answers say it).
    changes: Vec<Change>,
}

/// Everything `-o json|yaml` prints.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Summary {
    cases: usize,
    same: usize,
    skipped: usize,
    differing: Vec<Differing>,
}

pub fn run(args: DiffArgs) -> Result<ExitCode> {
    let [old, new] = args.files.as_slice() else {
        return Err(Error::usage(
            "-f",
            format!(
                "give two versions, old then new (-f old.yaml -f new.yaml), got {}",
                args.files.len()
            ),
        ));
    };
    let composition = crate::composition::on();
    let old = ChainBackend::new(version(old)?, Vec::new()).with_composition(composition);
    let new = ChainBackend::new(version(new)?, Vec::new()).with_composition(composition);
    let mut summary = Summary {
        cases: 0,
        same: 0,
        skipped: 0,
        differing: Vec::new(),
    };
    for file in discover(&args.cases)? {
        // The two versions only: no customization from the cases' layout.
        let file = CaseFile {
            customization: None,
            ..file
        };
        for case in load_cases(&file.path) {
            let case = case?;
            summary.cases += 1;
            if old.skip_reason(&file, &case).is_some() {
                summary.skipped += 1;
                continue;
            }
            match compare(
                &case,
                answer(&old, &file, &case),
                answer(&new, &file, &case),
            ) {
                None => summary.same += 1,
                Some(d) => summary.differing.push(d),
            }
        }
    }
    if summary.cases == 0 {
        let searched: Vec<String> = args.cases.iter().map(|p| p.display().to_string()).collect();
        return Err(ux::nothing_found("golden case", &searched, ""));
    }
    match args.output {
        Output::Text => {
            for d in &summary.differing {
                anstream::println!("{}", ux::colour_first_word(&render(d)));
            }
        }
        Output::Json | Output::Yaml => {
            ux::print_structured(&summary, args.output == Output::Yaml, "diff")?
        }
    }
    let differ = summary.differing.len();
    if !args.quiet {
        let line = format!(
            "{} case(s): {differ} differ, {} same, {} skipped",
            summary.cases, summary.same, summary.skipped
        );
        anstream::eprintln!("{}", ux::colour_summary(&line, differ == 0));
    }
    Ok(if differ == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The customizations of one version.
fn version(value: &str) -> Result<Vec<ResourceInterpreterCustomization>> {
    Loader::new().customizations("-f", &[value.to_owned()], false)
}

fn answer(backend: &ChainBackend, file: &CaseFile, case: &GoldenCase) -> Answer {
    match backend.produce(file, case).result {
        Ok(results) => Answer::Result(results),
        Err(e) => Answer::Error(e.to_string()),
    }
}

/// The case's difference, or `None` when both versions answer alike
/// (results equal under the golden comparison rules, or the same error).
fn compare(case: &GoldenCase, old: Answer, new: Answer) -> Option<Differing> {
    let changes = match (&old, &new) {
        (Answer::Result(a), Answer::Result(b)) => {
            let changes = changes(a, b);
            if changes.is_empty() {
                return None;
            }
            changes
        }
        (Answer::Error(a), Answer::Error(b)) if a == b => return None,
        _ => Vec::new(),
    };
    Some(Differing {
        file: case.file.clone(),
        name: case.name.clone(),
        operation: case.operation.to_string(),
        old,
        new,
        changes,
    })
}

/// Where two results differ, result by result (both ways: a result only
/// one version gives is a change too).
fn changes(old: &Map<String, Value>, new: &Map<String, Value>) -> Vec<Change> {
    let mut keys: Vec<&String> = old.keys().chain(new.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut out = Vec::new();
    for key in keys {
        let (a, b) = (
            old.get(key).unwrap_or(&Value::Null),
            new.get(key).unwrap_or(&Value::Null),
        );
        for d in diff_result(key, a, b, Match::Whole) {
            let path = if d.path.is_empty() {
                key.clone()
            } else if d.path.starts_with('[') {
                format!("{key}{}", d.path)
            } else {
                format!("{key}.{}", d.path)
            };
            out.push(Change {
                path,
                old: d.expected,
                new: d.actual,
            });
        }
    }
    out
}

/// `DIFF file: case "name" (Operation)`, then each change or both answers.
fn render(d: &Differing) -> String {
    let show = |v: &Option<Value>| v.as_ref().map_or("<absent>".to_owned(), Value::to_string);
    let answer = |a: &Answer| match a {
        Answer::Result(r) => Value::Object(r.clone()).to_string(),
        Answer::Error(e) => format!("error: {e}"),
    };
    let mut out = format!(
        "DIFF {}: case {:?} ({})",
        d.file.display(),
        d.name,
        d.operation
    );
    if d.changes.is_empty() {
        out.push_str(&format!(
            "\n  old: {}\n  new: {}",
            answer(&d.old),
            answer(&d.new)
        ));
    }
    for c in &d.changes {
        out.push_str(&format!(
            "\n  {}: old {}, new {}",
            c.path,
            show(&c.old),
            show(&c.new)
        ));
    }
    out
}
