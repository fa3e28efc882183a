//! Command-line interface.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::{bench, capture, check, diff, explain, init, lint, list, run, schema, serve, test, ux};

/// Karmada's resource interpreter: native built-ins, Lua customizations,
/// webhooks and golden-case conformance.
#[derive(Debug, Parser)]
#[command(name = "karmada-interpreter", version, about, after_help = ux::EXIT_CODES)]
pub struct Cli {
    /// Which Karmada the answers follow: karmada (its released code) or
    /// karmada-next (with its open pull requests #7830 ReviseComponents,
    /// #7846 and #7537; needs a build with the cargo feature karmada-next).
    #[arg(long, global = true, value_name = "PROFILE", default_value = "karmada", value_parser = crate::profile::parse)]
    profile: karmada_interpreter::profile::Profile,
    /// Composition (not Karmada's behaviour; docs/composition.md): every
    /// customization's Retain, ReviseReplica and AggregateStatus for a kind
    /// applies, in the order of the karmada-interpreter.io/order annotation
    /// then the name, each on the previous result; scripts can call
    /// kube.below(), the answer of the layers below. `lint` then knows
    /// kube.below and admission allows such rules side by side.
    #[arg(long, global = true)]
    composition: bool,
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
    /// Show the chain's decision for an object: for each of the eight
    /// operations which layer answers and why each earlier layer does not;
    /// with --operation, that operation's inputs, answer, time and the Lua
    /// lines that ran (text, or `-o json`).
    Explain(Box<explain::ExplainArgs>),
    /// Run two versions of customizations (-f old -f new) over golden
    /// cases and print where their answers differ (exit 1 when some do).
    Diff(diff::DiffArgs),
    /// Print the JSON Schema of golden case files (`case`), customizations
    /// (`customization`) or webhook configurations (`webhook-config`), for
    /// editors: `# yaml-language-server: $schema=FILE` in a YAML file.
    Schema(schema::SchemaArgs),
    /// Write golden cases from a cluster: objects of a kind read through a
    /// kubeconfig (with --bindings, their ResourceBindings' per-cluster
    /// status items), redacted, with the output the interpreter answers now
    /// as the expectation, each case marked `captured` for review.
    Capture(Box<capture::CaptureArgs>),
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

/// Runs a parsed command line.
pub fn run(cli: Cli) -> crate::error::Result<ExitCode> {
    crate::profile::set(cli.profile);
    crate::composition::set(cli.composition);
    match cli.command {
        Command::Check(args) => check::run(args),
        Command::Run(args) => run::run(args),
        Command::Test(args) => test::run(args),
        Command::List(args) => list::run(args),
        Command::Serve(args) => serve::run(*args),
        Command::Init(args) => init::run(args),
        Command::Completions(args) => Ok(completions(args)),
        Command::Schema(args) => schema::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Explain(args) => explain::run(*args),
        Command::Lint(args) => lint::run(args),
        Command::Diff(args) => diff::run(args),
        Command::Capture(args) => capture::run(*args),
    }
}
