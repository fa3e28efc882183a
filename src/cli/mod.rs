//! Command-line interface.

mod bench;
mod check;
mod cluster;
mod init;
mod lint;
mod list;
mod run;
mod serve;
mod test;
mod test_extra;
mod ux;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use karmada_interpreter::api::{
    ResourceInterpreterCustomization, ResourceInterpreterWebhookConfiguration,
};
use karmada_interpreter::load::{self, Loader, Source};

/// Karmada's resource interpreter: native built-ins, Lua customizations,
/// webhooks and golden-case conformance.
#[derive(Debug, Parser)]
#[command(name = "karmada-interpreter", version, about, after_help = ux::EXIT_CODES)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Validate customization files, or with --kubeconfig every customization
    /// in the cluster (compile status and entry functions per rule).
    Check(check::CheckArgs),
    /// Run one operation, like `karmadactl interpret --operation`.
    Run(run::RunArgs),
    /// Run golden cases (files or directories, searched recursively) against
    /// the interpreter chain. With no PATH, the bundled cases embedded in the binary.
    /// With --webhook-config, cases a webhook matches are sent to it (with
    /// protocol checks) and the others are skipped: this tests a webhook.
    Test(test::TestArgs),
    /// List every (kind, operation) the chain serves and which layer serves it.
    List(list::ListArgs),
    /// Serve the built-in chain (plus customizations, and with --kubeconfig
    /// the cluster's, followed live) as an interpreter webhook over TLS;
    /// `--print-config` prints a matching ResourceInterpreterWebhookConfiguration.
    Serve(Box<serve::ServeArgs>),
    /// Static analysis of customization files: document keys Karmada
    /// ignores, and each script against the sandbox it runs in
    /// (`file:line:col: severity[rule]: message`, or `-o json`).
    Lint(lint::LintArgs),
    /// Write a Karmada-layout folder for a new customization: a stub per
    /// operation in customizations.yaml and a case per operation in
    /// testdata/, ready for `check`, `lint` and `test`.
    Init(init::InitArgs),
    /// Time golden cases through the chain (after a warm-up): per case the
    /// median of the operation alone (inputs decoded; ReviseReplica and
    /// Retain get their object handed over) and from the inputs' JSON bytes
    /// to the result, checking each result still matches the case's output.
    Bench(bench::BenchArgs),
    /// Print a shell completion script (bash, zsh or fish) on stdout.
    Completions(CompletionsArgs),
}

/// `completions SHELL`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    shell: CompletionShell,
}

/// The shells `completions` writes scripts for (those the README documents).
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum CompletionShell {
    Bash,
    Zsh,
    Fish,
}

/// Writes the completion script for `shell` on stdout.
fn completions(args: CompletionsArgs) -> ExitCode {
    use clap::CommandFactory;
    use clap_complete::Shell;
    let shell = match args.shell {
        CompletionShell::Bash => Shell::Bash,
        CompletionShell::Zsh => Shell::Zsh,
        CompletionShell::Fish => Shell::Fish,
    };
    let mut command = Cli::command();
    let name = command.get_name().to_owned();
    clap_complete::generate(shell, &mut command, name, &mut std::io::stdout());
    ExitCode::SUCCESS
}

/// `-f`/`-R`: the customization sources of the declarative layer.
#[derive(Debug, clap::Args)]
pub struct CustomizationFiles {
    /// ResourceInterpreterCustomization documents: the declarative layer,
    /// consulted before every other layer. Files, directories (their
    /// .json/.yaml/.yml files), glob patterns or `-` for standard input;
    /// repeatable and comma-separated, as `run -f`.
    #[arg(
        long = "filename",
        short = 'f',
        visible_alias = "customization",
        value_name = "FILE"
    )]
    customizations: Vec<String>,
    /// Recurse into the directories given with -f.
    #[arg(long, short = 'R')]
    recursive: bool,
}

impl CustomizationFiles {
    /// The customization files named (directories and patterns expanded,
    /// the files there that hold no customization left out; standard input
    /// is no file).
    fn paths(&self) -> karmada_interpreter::Result<Vec<PathBuf>> {
        let sources = Loader::new()
            .customization_texts("-f", &self.customizations, self.recursive)
            .map_err(load::customization_error)?;
        Ok(sources
            .kept
            .into_iter()
            .filter_map(|(s, _)| match s {
                Source::File(path) => Some(path),
                Source::Stdin => None,
            })
            .collect())
    }

    /// The customizations, per source.
    fn by_source(
        &self,
    ) -> karmada_interpreter::Result<Vec<(String, Vec<ResourceInterpreterCustomization>)>> {
        Loader::new().customizations_by_source("-f", &self.customizations, self.recursive)
    }

    /// The customizations of every source.
    fn load(&self) -> karmada_interpreter::Result<Vec<ResourceInterpreterCustomization>> {
        Loader::new().customizations("-f", &self.customizations, self.recursive)
    }
}

/// Customizations and webhook configurations that extend the built-in chain.
#[derive(Debug, clap::Args)]
pub struct ChainArgs {
    #[command(flatten)]
    files: CustomizationFiles,
    /// A file of ResourceInterpreterWebhookConfiguration documents
    /// (repeatable): the webhook layer.
    #[arg(long = "webhook-config", value_name = "FILE")]
    webhook_configs: Vec<PathBuf>,
    #[command(flatten)]
    cluster: cluster::ClusterArgs,
}

impl ChainArgs {
    fn load(
        &self,
    ) -> karmada_interpreter::Result<(
        Vec<ResourceInterpreterCustomization>,
        Vec<ResourceInterpreterWebhookConfiguration>,
    )> {
        let mut customizations = self.files.load()?;
        let mut webhooks = Vec::new();
        for path in &self.webhook_configs {
            webhooks.extend(load::webhook_configurations_from_file(path)?);
        }
        // The objects serving in the cluster now (the rejected ones are
        // reported on stderr and left out, as the live chain does).
        if self.cluster.source().is_some() {
            let runtime = cluster::runtime()?;
            if let Some(cluster) = self.cluster.start(&runtime)? {
                customizations.extend(cluster.customizations().iter().cloned());
                webhooks.extend(cluster.webhook_configurations().iter().cloned());
            }
        }
        Ok((customizations, webhooks))
    }
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> karmada_interpreter::Result<ExitCode> {
    match cli.command {
        Command::Check(args) => check::run(args),
        Command::Run(args) => run::run(args),
        Command::Test(args) => test::run(args),
        Command::List(args) => list::run(args),
        Command::Serve(args) => serve::run(*args),
        Command::Init(args) => init::run(args),
        Command::Completions(args) => Ok(completions(args)),
        Command::Bench(args) => bench::run(args),
        Command::Lint(args) => lint::run(args).or_else(|e| {
            eprintln!("error: {e}");
            Ok(ExitCode::from(2))
        }),
    }
}
