//! `karmada-interpreter check`: compile-only validation of customization
//! files, in the format of `karmadactl interpret --check`, plus a check that
//! every script defines its entry function.

use std::process::ExitCode;

use crate::load::{Input, Loader};
use karmada_interpreter::api::ResourceInterpreterCustomization;
use karmada_interpreter::lint::check::Checked;
use karmada_interpreter::lint::Locator;
use karmada_interpreter_cluster::list_raw;

use crate::cluster;
use crate::ux::{self, Output};

#[derive(Debug, clap::Args)]
#[command(after_help = ux::EXIT_CODES)]
pub struct CheckArgs {
    /// ResourceInterpreterCustomization documents (YAML or JSON): files,
    /// directories (their .json/.yaml/.yml files that hold such documents),
    /// glob patterns or `-` for standard input; repeatable and
    /// comma-separated.
    #[arg(
        long = "filename",
        short = 'f',
        value_name = "FILE",
        required_unless_present_any = ["kubeconfig", "context", "in_cluster", "health_exprs"]
    )]
    files: Vec<String>,
    /// Recurse into the directories given with -f.
    #[arg(long, short = 'R')]
    recursive: bool,
    /// With a cluster: every ResourceInterpreterCustomization stored in it.
    #[command(flatten)]
    cluster: crate::cluster::ClusterArgs,
    /// Also compile the CEL health rules of this file (Flux
    /// `healthCheckExprs`); a bad rule is reported at its line:col.
    #[command(flatten)]
    health_exprs: crate::args::HealthExprsArg,
    /// Output format: `text` (karmadactl's table), `json` or `yaml` (one
    /// entry per document).
    #[arg(long, short = 'o', value_enum, default_value_t = Output::Text)]
    output: Output,
    /// Print the results only, no summary line.
    #[arg(long, short)]
    quiet: bool,
}

/// kubectl's tab writer (min width 6, padding 3, widths remembered).
#[derive(Default)]
struct TabWriter {
    lines: Vec<String>,
}

impl TabWriter {
    fn line(&mut self, s: impl Into<String>) {
        self.lines.push(s.into());
    }

    fn render(&self) -> String {
        let rows: Vec<Vec<&str>> = self.lines.iter().map(|l| l.split('\t').collect()).collect();
        // widths[row][col] for every tab-terminated cell
        let mut widths: Vec<Vec<usize>> = rows
            .iter()
            .map(|r| vec![0; r.len().saturating_sub(1)])
            .collect();
        let mut memory: Vec<usize> = Vec::new();
        fn layout(
            rows: &[Vec<&str>],
            widths: &mut [Vec<usize>],
            memory: &mut Vec<usize>,
            from: usize,
            to: usize,
            col: usize,
        ) {
            let mut i = from;
            while i < to {
                if rows[i].len() <= col + 1 {
                    i += 1;
                    continue;
                }
                let start = i;
                while i < to && rows[i].len() > col + 1 {
                    i += 1;
                }
                let mut w = rows[start..i]
                    .iter()
                    .map(|r| r[col].chars().count() + 3)
                    .max()
                    .unwrap_or(0)
                    .max(6);
                if memory.len() <= col {
                    memory.resize(col + 1, 0);
                }
                w = w.max(memory[col]);
                memory[col] = w;
                for row in widths.iter_mut().take(i).skip(start) {
                    row[col] = w;
                }
                layout(rows, widths, memory, start, i, col + 1);
            }
        }
        layout(&rows, &mut widths, &mut memory, 0, rows.len(), 0);
        let mut out = String::new();
        for (r, row) in rows.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                if c + 1 < row.len() {
                    out.push_str(cell);
                    let pad = widths[r][c].saturating_sub(cell.chars().count());
                    out.extend(std::iter::repeat_n(' ', pad));
                } else {
                    out.push_str(cell);
                }
            }
            out.push('\n');
        }
        out
    }
}

pub fn run(args: CheckArgs) -> crate::error::Result<ExitCode> {
    let mut tw = TabWriter::default();
    let mut results: Vec<Checked> = Vec::new();
    // The problems again at their place in the file, for people (the
    // table keeps karmadactl's text).
    let mut places = Vec::new();
    let load_error = |source| crate::error::Error::Load {
        what: "fail to read -f".to_owned(),
        source,
    };
    let texts = Loader::new()
        .customization_texts("-f", &args.files, args.recursive)
        .map_err(load_error)?;
    for (source, text) in &texts.kept {
        let source_name = source.name();
        // Where the file's scripts sit, learnt once from the text read
        // (standard input is no file: its failures keep Karmada's text).
        let mut locator = Locator::new();
        if let Input::File(_) = source {
            locator.add_text(&source_name, text);
        }
        for doc in karmada_interpreter::yaml::documents(text) {
            let doc = doc.map_err(|source| {
                load_error(crate::error::LoadError::Yaml {
                    source_name: source_name.clone(),
                    source,
                })
            })?;
            if let Some(value) = doc.value {
                results.push(check_document(
                    &mut tw,
                    &source_name,
                    value,
                    &locator,
                    &mut places,
                ));
            }
        }
    }
    // Every customization in the cluster, as stored (rejected ones included).
    if args.cluster.source().is_some() {
        let objects = cluster::runtime()?.block_on(async {
            match args.cluster.client().await? {
                Some(client) => list_raw::<ResourceInterpreterCustomization>(client)
                    .await
                    .map_err(crate::error::Error::from),
                None => Ok(Vec::new()),
            }
        })?;
        for object in objects {
            let value = serde_json::to_value(&object).map_err(|e| crate::error::Error::Encode {
                what: "cluster object".into(),
                message: e.to_string(),
            })?;
            // Stored objects have no file: places are script lines.
            let locator = Locator::for_object(&value);
            results.push(check_document(
                &mut tw,
                "cluster",
                value,
                &locator,
                &mut places,
            ));
        }
    }
    if let Some(file) = &args.health_exprs.file {
        results.push(check_health_exprs(&mut tw, file, &mut places));
    }
    if results.is_empty() {
        let mut searched = args.files.clone();
        if args.cluster.source().is_some() {
            searched.push("the cluster".to_owned());
        }
        return Err(ux::nothing_found(
            "ResourceInterpreterCustomization document",
            &searched,
            &ux::none_holding(texts.skipped.len(), args.recursive),
        ));
    }
    let checked = results.len();
    let failed = results.iter().filter(|r| !r.passed).count();
    match args.output {
        Output::Text => print!("{}", tw.render()),
        Output::Json | Output::Yaml => {
            ux::print_structured(&results, args.output == Output::Yaml, "check")?
        }
    }
    for place in &places {
        eprintln!("{place}");
    }
    if !args.quiet {
        let line = format!(
            "{checked} document(s) checked, {} passed, {failed} with problems",
            checked - failed
        );
        anstream::eprintln!("{}", ux::colour_summary(&line, failed == 0));
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Compiles the CEL health rules of `file`: a table section of its own,
/// each rule `PASS`, or the error, also added to `places` at its
/// `FILE:LINE:COL`.
fn check_health_exprs(
    tw: &mut TabWriter,
    file: &std::path::Path,
    places: &mut Vec<String>,
) -> Checked {
    let origin = file.display().to_string();
    tw.line("-".repeat(35));
    tw.line(format!("SOURCE: {origin}"));
    let mut checked = Checked {
        source: origin,
        name: "healthCheckExprs".to_owned(),
        ..Checked::default()
    };
    match karmada_interpreter::health::CelHealth::from_file(file) {
        Ok(rules) => {
            tw.line("RULERS:");
            for i in 0..rules.len() {
                tw.line(format!("    {}:\tPASS", rules.entry_name(i)));
            }
            // Every rule is an InterpretHealth rule.
            checked.rules.push((
                karmada_interpreter::api::InterpreterOperation::InterpretHealth,
                "PASS".to_owned(),
            ));
            checked.passed = true;
        }
        Err(e) => {
            let message = e.to_string();
            tw.line(format!("ERROR: {message}"));
            places.push(format!("error: {message}"));
            checked.error = Some(message);
        }
    }
    checked
}

/// Checks one document (a file's or the cluster's), writing karmadactl's
/// table rows to `tw`. Script problems are also added to `places`, at
/// their file position when `locator` knows the file.
fn check_document(
    tw: &mut TabWriter,
    origin: &str,
    value: serde_json::Value,
    locator: &Locator,
    places: &mut Vec<String>,
) -> Checked {
    let checked = karmada_interpreter::lint::check::check_document(
        origin,
        value,
        locator,
        crate::profile::current(),
    );
    tw.line("-".repeat(35));
    tw.line(format!("SOURCE: {}", checked.name));
    if let Some(warning) = &checked.layout_warning {
        places.push(format!("warning: {origin}: {warning}"));
    }
    places.extend(checked.problems.iter().cloned());
    let Some(target) = &checked.target else {
        tw.line(checked.error.clone().unwrap_or_default());
        return checked;
    };
    tw.line(format!("TARGET: {target}\t"));
    tw.line("RULERS:");
    for (op, verdict) in &checked.rules {
        if verdict.starts_with("ERROR") {
            tw.line(format!("    {op}:\t{verdict}\t"));
        } else {
            tw.line(format!("    {op}:\t{verdict}"));
        }
    }
    checked
}
