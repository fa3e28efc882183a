//! `karmada-interpreter test`.

use std::path::PathBuf;
use std::process::ExitCode;

use karmada_interpreter::golden::{ChainBackend, Runner, Verdict, WebhookBackend};

use super::ChainArgs;

#[derive(Debug, clap::Args)]
pub struct TestArgs {
    /// Case files or directories; default: the project's golden cases
    /// (`conformance/` and `thirdparty/`).
    paths: Vec<PathBuf>,
    #[command(flatten)]
    chain: ChainArgs,
    /// Also print passing cases.
    #[arg(long, short)]
    verbose: bool,
}

/// The project's own golden cases, as shipped in the source tree.
fn default_paths() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    ["conformance", "thirdparty"]
        .iter()
        .map(|d| root.join(d))
        .filter(|p| p.is_dir())
        .collect()
}

pub fn run(args: TestArgs) -> karmada_interpreter::Result<ExitCode> {
    let (customizations, webhooks) = args.chain.load()?;
    let paths = if args.paths.is_empty() {
        default_paths()
    } else {
        args.paths
    };
    // With --webhook-config, cases a webhook matches go to it (with the
    // protocol checks) and the others are skipped: this tests a webhook.
    let runner = if webhooks.is_empty() {
        Runner::new(ChainBackend::new(customizations, Vec::new()))
    } else {
        Runner::new(WebhookBackend::new(webhooks)?)
    };
    let report = runner.run(&paths)?;
    for case in &report.cases {
        if args.verbose || !matches!(case.verdict, Verdict::Passed | Verdict::Skipped(_)) {
            println!("{}", case.render());
        }
    }
    println!("{}", report.summary_line());
    Ok(if report.failed() == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
