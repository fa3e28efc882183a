//! `karmada-interpreter lint`.

use std::path::PathBuf;
use std::process::ExitCode;

use karmada_interpreter::lint::{customization_files, Finding, Linter, Severity};

/// Output formats of `lint`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LintFormat {
    /// `file:line:col: severity[rule]: message`, one finding a line.
    Text,
    /// A JSON array of findings.
    Json,
}

#[derive(Debug, clap::Args)]
pub struct LintArgs {
    /// Customization files, or directories searched recursively for
    /// `customizations.yaml` (Karmada's layout).
    paths: Vec<PathBuf>,
    /// A customization file (repeatable).
    #[arg(long = "customization", short = 'f', value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, short = 'o', value_enum, default_value_t = LintFormat::Text)]
    output: LintFormat,
    /// Exit non-zero on warnings too.
    #[arg(long)]
    deny_warnings: bool,
}

/// Why `lint` could not run.
#[derive(Debug, thiserror::Error)]
pub enum LintCommandError {
    /// No file was named.
    #[error("lint: name customization files or directories (PATH or -f FILE)")]
    NoInput,
    /// Linting failed.
    #[error(transparent)]
    Lint(#[from] karmada_interpreter::lint::LintError),
    /// The JSON output could not be written.
    #[error("lint: cannot encode the findings as JSON: {0}")]
    Json(#[source] serde_json::Error),
}

pub fn run(args: LintArgs) -> Result<ExitCode, LintCommandError> {
    let mut inputs = args.files.clone();
    inputs.extend(args.paths.iter().cloned());
    if inputs.is_empty() {
        return Err(LintCommandError::NoInput);
    }
    let linter = Linter::new()?;
    let mut findings: Vec<Finding> = Vec::new();
    let files = customization_files(&inputs)?;
    for file in &files {
        findings.extend(linter.lint_file(file)?);
    }
    match args.output {
        LintFormat::Text => {
            for f in &findings {
                println!("{f}");
            }
            let errors = findings
                .iter()
                .filter(|f| f.severity == Severity::Error)
                .count();
            eprintln!(
                "{} file(s) linted: {errors} error(s), {} warning(s)",
                files.len(),
                findings.len() - errors
            );
        }
        LintFormat::Json => {
            let text = serde_json::to_string_pretty(&findings).map_err(LintCommandError::Json)?;
            println!("{text}");
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
