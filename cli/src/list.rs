//! `karmada-interpreter list`.

use std::process::ExitCode;

use karmada_interpreter::Interpreter;

use crate::args::ChainArgs;

#[derive(Debug, clap::Args)]
pub struct ListArgs {
    #[command(flatten)]
    chain: ChainArgs,
}

pub fn run(args: ListArgs) -> karmada_interpreter::Result<ExitCode> {
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
