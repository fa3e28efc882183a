//! `karmada-interpreter check`: compile-only validation of customization
//! files, in the format of `karmadactl interpret --check`, plus a check that
//! every script defines its entry function.

use std::process::ExitCode;

use karmada_interpreter::api::ResourceInterpreterCustomization;
use karmada_interpreter::cluster::list_raw;
use karmada_interpreter::lint::layout_mismatch;
use karmada_interpreter::lint::Locator;
use karmada_interpreter::load::Loader;
use karmada_interpreter::lua::validate::{check_rules, RuleStatus};
use karmada_interpreter::lua::ScriptPoint;

use crate::cluster;

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// ResourceInterpreterCustomization documents (YAML or JSON): files,
    /// directories (their .json/.yaml/.yml files), glob patterns or `-` for
    /// standard input; repeatable and comma-separated.
    #[arg(
        long = "filename",
        short = 'f',
        value_name = "FILE",
        required_unless_present_any = ["kubeconfig", "context", "in_cluster"]
    )]
    files: Vec<String>,
    /// Recurse into the directories given with -f.
    #[arg(long, short = 'R')]
    recursive: bool,
    /// With a cluster: every ResourceInterpreterCustomization stored in it.
    #[command(flatten)]
    cluster: crate::cluster::ClusterArgs,
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

pub fn run(args: CheckArgs) -> karmada_interpreter::Result<ExitCode> {
    let mut tw = TabWriter::default();
    let mut failed = 0usize;
    let mut checked = 0usize;
    let docs = Loader::new()
        .documents("-f", &args.files, args.recursive, true)
        .map_err(|source| karmada_interpreter::Error::Load {
            what: "fail to read -f".to_owned(),
            source,
        })?;
    // The problems again at their place in the file, for people (the
    // table keeps karmadactl's text).
    let mut places = Vec::new();
    for doc in docs {
        checked += 1;
        let locator = Locator::for_files([&doc.source_name]);
        if !check_document(&mut tw, &doc.source_name, doc.value, &locator, &mut places) {
            failed += 1;
        }
    }
    // Every customization in the cluster, as stored (rejected ones included).
    if args.cluster.source().is_some() {
        let objects = cluster::runtime()?.block_on(async {
            match args.cluster.client().await? {
                Some(client) => list_raw::<ResourceInterpreterCustomization>(client)
                    .await
                    .map_err(cluster::cluster_error),
                None => Ok(Vec::new()),
            }
        })?;
        for object in objects {
            let value =
                serde_json::to_value(&object).map_err(|e| karmada_interpreter::Error::Config {
                    source_name: "cluster".into(),
                    message: e.to_string(),
                })?;
            checked += 1;
            if !check_document(&mut tw, "cluster", value, &Locator::new(), &mut places) {
                failed += 1;
            }
        }
    }
    print!("{}", tw.render());
    for place in &places {
        eprintln!("{place}");
    }
    eprintln!(
        "{checked} document(s) checked, {} passed, {failed} with problems",
        checked - failed
    );
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Checks one document (a file's or the cluster's); `false` when it has
/// problems. Script problems are also added to `places`, at their file
/// position when `locator` knows the file.
fn check_document(
    tw: &mut TabWriter,
    origin: &str,
    value: serde_json::Value,
    locator: &Locator,
    places: &mut Vec<String>,
) -> bool {
    tw.line("-".repeat(35));
    let name = value
        .pointer("/metadata/name")
        .and_then(|v| v.as_str())
        .filter(|s| !s.is_empty())
        .map_or_else(|| origin.to_owned(), str::to_owned);
    tw.line(format!("SOURCE: {name}"));
    let api_version = value
        .get("apiVersion")
        .and_then(|v| v.as_str())
        .unwrap_or("");
    let kind = value.get("kind").and_then(|v| v.as_str()).unwrap_or("");
    if kind != "ResourceInterpreterCustomization" {
        let (group, version) = match api_version.split_once('/') {
            Some((g, v)) => (g, v),
            None => ("", api_version),
        };
        tw.line(format!(
            "not a ResourceInterpreterCustomization, got {group}/{version}, Kind={kind}"
        ));
        return false;
    }
    let c: ResourceInterpreterCustomization = match serde_json::from_value(value) {
        Ok(c) => c,
        Err(e) => {
            tw.line(format!("invalid ResourceInterpreterCustomization: {e}"));
            return false;
        }
    };
    if let Some(warning) = layout_mismatch(std::path::Path::new(origin), &c) {
        places.push(format!("warning: {origin}: {warning}"));
    }
    if c.spec.target.kind.is_empty() {
        tw.line("target.kind no set");
        return false;
    }
    if c.spec.target.api_version.is_empty() {
        tw.line("target.apiVersion no set");
        return false;
    }
    tw.line(format!(
        "TARGET: {} {}\t",
        c.spec.target.api_version, c.spec.target.kind
    ));
    tw.line("RULERS:");
    let mut ok = true;
    let mut place = |op, message: &str| {
        let at = ScriptPoint::from_message(message);
        places.push(locator.describe_message(c.name(), op, message, &at));
    };
    for (op, status) in check_rules(&c) {
        let verdict = match status {
            RuleStatus::Unset => "UNSET".to_owned(),
            RuleStatus::Pass => "PASS".to_owned(),
            RuleStatus::MissingFunction => {
                ok = false;
                let message = format!("function {} is not defined", op.lua_function());
                place(op, &message);
                format!("ERROR: {message}\t")
            }
            RuleStatus::Error(m) => {
                ok = false;
                place(op, &m);
                format!("ERROR: {m}\t")
            }
            RuleStatus::TopLevelError(m) => {
                ok = false;
                place(op, &format!("top-level code fails: {m}"));
                format!("ERROR: top-level code fails: {m}\t")
            }
        };
        tw.line(format!("    {op}:\t{verdict}"));
    }
    ok
}
