//! `karmada-interpreter lint`.

use std::process::ExitCode;

use crate::load::{Input, Loader};
use karmada_interpreter::lint::{Finding, Linter, Severity};

use crate::error::{Error, Result};
use crate::ux::{self, Output};

#[derive(Debug, clap::Args)]
#[command(after_help = ux::EXIT_CODES)]
pub struct LintArgs {
    /// Customization files, directories (searched recursively), glob
    /// patterns or `-`, as -f -R.
    paths: Vec<String>,
    #[command(flatten)]
    files: crate::args::CustomizationFiles,
    /// Also compile the CEL health rules of this file (Flux
    /// `healthCheckExprs`): a rule that does not parse is a `syntax` error,
    /// one calling a function the cel crate lacks a `sandbox` error, at its
    /// line:col.
    #[command(flatten)]
    health_exprs: crate::args::HealthExprsArg,
    /// Output format (`text`: `file:line:col: severity[rule]: message`).
    #[arg(long, short = 'o', value_enum, default_value_t = Output::Text)]
    output: Output,
    /// Exit non-zero on warnings too.
    #[arg(long)]
    deny_warnings: bool,
    /// Print the findings only, no summary line.
    #[arg(long, short)]
    quiet: bool,
}

pub fn run(args: LintArgs) -> Result<ExitCode> {
    let files = &args.files.customizations;
    let exprs = args.health_exprs.file.as_deref();
    if files.is_empty() && args.paths.is_empty() && exprs.is_none() {
        return Err(Error::usage(
            "lint",
            "name customization files or directories (PATH or -f FILE)",
        ));
    }
    let linter = Linter::new()?
        .with_composition(crate::composition::on())
        .with_profile(crate::profile::current());
    let mut loader = Loader::new();
    let mut texts = loader
        .customization_texts("-f", files, args.files.recursive)
        .map_err(crate::load::customization_error)?;
    let more = loader
        .customization_texts("PATH", &args.paths, true)
        .map_err(crate::load::customization_error)?;
    texts.kept.extend(more.kept);
    texts.skipped.extend(more.skipped);
    if texts.kept.is_empty() && exprs.is_none() {
        let searched: Vec<String> = files.iter().chain(&args.paths).cloned().collect();
        return Err(ux::nothing_found(
            "ResourceInterpreterCustomization document",
            &searched,
            &ux::none_holding(texts.skipped.len(), true),
        ));
    }
    let mut findings: Vec<Finding> = Vec::new();
    for (source, text) in &texts.kept {
        findings.extend(match source {
            Input::File(path) => linter.lint_file_text(path, text),
            Input::Stdin => linter.lint_text(text, &source.name()),
        });
    }
    if let Some(file) = exprs {
        findings.extend(health_exprs_finding(file));
    }
    match args.output {
        Output::Text => {
            for f in &findings {
                let text = f.to_string();
                let severity = f.severity.to_string();
                let style = ux::verdict_style(&severity);
                anstream::println!(
                    "{}",
                    text.replacen(
                        &format!(": {severity}["),
                        &format!(": {style}{severity}{style:#}["),
                        1
                    )
                );
            }
            let errors = findings
                .iter()
                .filter(|f| f.severity == Severity::Error)
                .count();
            if !args.quiet {
                eprintln!(
                    "{} file(s) linted: {errors} error(s), {} warning(s)",
                    texts.kept.len() + usize::from(exprs.is_some()),
                    findings.len() - errors
                );
            }
        }
        Output::Json | Output::Yaml => {
            ux::print_structured(&findings, args.output == Output::Yaml, "lint")?
        }
    }
    let fails = findings.iter().any(|f| {
        f.severity == Severity::Error || (args.deny_warnings && f.severity == Severity::Warning)
    });
    Ok(if fails {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The finding of a CEL health rule file that does not compile, at the
/// place of the failing rule (line 1 when it has none: a file that cannot
/// be read).
fn health_exprs_finding(file: &std::path::Path) -> Option<Finding> {
    use karmada_interpreter::health::CelError;
    use karmada_interpreter::lint::Rule;
    let error = karmada_interpreter::health::CelHealth::from_file(file).err()?;
    let inner = match &error {
        CelError::InFile { source, .. } => source.as_ref(),
        other => other,
    };
    let rule = match inner {
        CelError::Missing { .. } => Rule::Sandbox,
        _ => Rule::Syntax,
    };
    let place = error.place().unwrap_or_default();
    Some(Finding {
        file: file.display().to_string(),
        line: place.line.max(1),
        column: place.column.max(1),
        severity: Severity::Error,
        rule,
        message: inner.to_string(),
    })
}
