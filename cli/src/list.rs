//! `karmada-interpreter list`.

use std::process::ExitCode;

use karmada_interpreter::Interpreter;

use crate::args::ChainArgs;
use crate::ux::{self, Output};

#[derive(Debug, clap::Args)]
#[command(after_help = ux::EXIT_CODES)]
pub struct ListArgs {
    #[command(flatten)]
    chain: ChainArgs,
    /// Output format: `text` (a table), or `json`/`yaml` (a list of
    /// `apiVersion`, `kind`, `operation`, `layer`, `source`).
    #[arg(long, short = 'o', value_enum, default_value_t = Output::Text)]
    output: Output,
}

/// One row of `list -o json|yaml`.
#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Served<'a> {
    api_version: &'a str,
    kind: &'a str,
    operation: &'a str,
    layer: &'a str,
    source: &'a str,
}

pub fn run(args: ListArgs) -> crate::error::Result<ExitCode> {
    let (customizations, webhooks) = args.chain.load()?;
    let chain = args
        .chain
        .with_health(Interpreter::builder())
        .customizations(customizations)
        .webhook_configurations(webhooks)
        .build()?;
    let mut rows: Vec<[String; 5]> = chain
        .catalog()
        .into_iter()
        .map(|e| {
            [
                e.api_version,
                e.kind,
                e.operation.to_string(),
                e.source.layer.to_string(),
                e.source.name.into_owned(),
            ]
        })
        .collect();
    rows.sort();
    if args.output != Output::Text {
        let served: Vec<Served<'_>> = rows
            .iter()
            .map(|[api_version, kind, operation, layer, source]| Served {
                api_version,
                kind,
                operation,
                layer,
                source,
            })
            .collect();
        ux::print_structured(&served, args.output == Output::Yaml, "list")?;
        return Ok(ExitCode::SUCCESS);
    }
    let header = ["API VERSION", "KIND", "OPERATION", "LAYER", "SOURCE"].map(String::from);
    let mut widths = header.clone().map(|h| h.len());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.len());
        }
    }
    for row in std::iter::once(&header).chain(&rows) {
        let line: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        println!("{}", line.join("  ").trim_end());
    }
    Ok(ExitCode::SUCCESS)
}
