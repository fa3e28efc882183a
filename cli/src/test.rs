//! `karmada-interpreter test`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;

use karmada_interpreter::golden::coverage as golden_coverage;
use karmada_interpreter::golden::{
    discover, report, ChainBackend, Runner, Verdict, WebhookBackend,
};
use karmada_interpreter::lua::Coverage;

use crate::args::ChainArgs;

/// `test --health-checks DIR PATH...`: Argo CD's `health_test.yaml` tests
/// under the paths, and the golden cases outside Argo CD kind folders.
mod health_catalogue {
    use std::path::{Path, PathBuf};

    use karmada_interpreter::golden::{discover, Report, Runner};
    use karmada_interpreter::health::{catalogue, ArgoCdHealth};

    pub fn run(
        runner: &Runner,
        dir: &Path,
        paths: &[PathBuf],
    ) -> karmada_interpreter::Result<Report> {
        let tests = catalogue::test_files(paths)?;
        let golden: Vec<PathBuf> = discover(paths)?
            .into_iter()
            .map(|f| f.path)
            .filter(|p| !catalogue::in_check_folder(p))
            .collect();
        let mut report = if golden.is_empty() && !tests.is_empty() {
            Report::default()
        } else {
            runner.run(&golden)?
        };
        if !tests.is_empty() {
            let layer = ArgoCdHealth::from_dir(dir)?;
            report.cases.extend(catalogue::run(&layer, &tests));
        }
        Ok(report)
    }
}

#[derive(Debug, clap::Args)]
pub struct TestArgs {
    /// Case files or directories; default: the bundled cases embedded in the
    /// binary (`thirdparty/<group>/<version>/<Kind>/testdata/`), wherever it runs.
    paths: Vec<PathBuf>,
    #[command(flatten)]
    chain: ChainArgs,
    /// Also print passing cases (human format).
    #[arg(long, short)]
    verbose: bool,
    /// Output format: `human` (default), `junit` (JUnit XML, one testcase
    /// per golden case) or `json`.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Report which lines of the customization scripts the cases ran:
    /// covered/total lines and the uncovered lines of each script (lines of
    /// the customization file).
    #[arg(long)]
    coverage: bool,
    /// Also write the coverage as an lcov tracefile (implies `--coverage`).
    #[arg(long, value_name = "FILE")]
    coverage_out: Option<PathBuf>,
}

/// Output formats of `test`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One block per failing case and a summary line.
    Human,
    /// JUnit XML for CI services.
    Junit,
    /// A JSON document.
    Json,
}

pub fn run(args: TestArgs) -> karmada_interpreter::Result<ExitCode> {
    let (customizations, webhooks) = args.chain.load()?;
    let paths = args.paths;
    // With --webhook-config, cases a webhook matches go to it (with the
    // protocol checks) and the others are skipped: this tests a webhook.
    let coverage = (args.coverage || args.coverage_out.is_some()).then(Coverage::default);
    let runner = if webhooks.is_empty() {
        let backend = args
            .chain
            .health_backend(ChainBackend::new(customizations, Vec::new()))
            .with_files(args.chain.files.paths()?);
        Runner::new(match &coverage {
            Some(c) => backend.with_coverage(c.clone()),
            None => backend,
        })
    } else {
        Runner::new(WebhookBackend::new(webhooks)?)
    };
    let report = if paths.is_empty() {
        let bundled: Vec<(PathBuf, &str)> = karmada_interpreter::thirdparty::bundled_cases()
            .iter()
            .map(|(path, text)| (PathBuf::from(path), *text))
            .collect();
        let note = format!(
            "bundled cases: {} files of thirdparty/<group>/<version>/<Kind>/testdata/, embedded in the binary",
            bundled.len()
        );
        // Machine-readable formats keep stdout to themselves.
        if args.format == Format::Human {
            println!("{note}");
        } else {
            eprintln!("{note}");
        }
        runner.run_texts(&bundled)?
    } else if let Some(dir) = &args.chain.health_checks {
        health_catalogue::run(&runner, dir, &paths)?
    } else {
        let case_files = discover(&paths)?;
        crate::layout::warn_mismatches(case_files.iter().filter_map(|f| f.customization.clone()));
        let mut report = runner.run(&paths)?;
        crate::layout::explain_not_served(&mut report, &case_files);
        report
    };
    match args.format {
        Format::Human => {
            // A failure shared by several cases (a customization file that
            // does not load) is shown in full once.
            let mut shown: HashMap<String, String> = HashMap::new();
            for case in &report.cases {
                if args.verbose || !matches!(case.verdict, Verdict::Passed | Verdict::Skipped(_)) {
                    let mut case = case.clone();
                    if let Verdict::Failed(lines) = &mut case.verdict {
                        for line in lines
                            .iter_mut()
                            .filter(|l| l.starts_with("operation failed: "))
                        {
                            match shown.get(line.as_str()) {
                                Some(first) => {
                                    *line = format!("the same failure as case {first:?} above")
                                }
                                None => {
                                    shown.insert(line.clone(), case.name.clone());
                                }
                            }
                        }
                    }
                    println!("{}", case.render());
                }
            }
            println!("{}", report.summary_line());
        }
        Format::Junit => print!("{}", report::junit(&report)),
        Format::Json => println!("{:#}", report::json(&report)),
    }
    if let Some(coverage) = &coverage {
        // The customization files the run used: those named with -f and
        // those next to the case files (Karmada's layout).
        let mut files = args.chain.files.paths()?;
        files.extend(
            discover(&paths)?
                .into_iter()
                .filter_map(|f| f.customization),
        );
        files.sort();
        files.dedup();
        let scripts = golden_coverage::collect(&files, coverage).map_err(|e| {
            karmada_interpreter::Error::Config {
                source_name: "coverage".into(),
                message: e.to_string(),
            }
        })?;
        for s in &scripts {
            // Machine-readable formats keep stdout to themselves.
            if args.format == Format::Human {
                println!("{}", s.summary());
            } else {
                eprintln!("{}", s.summary());
            }
        }
        if let Some(out) = &args.coverage_out {
            std::fs::write(out, golden_coverage::lcov(&scripts)).map_err(|source| {
                karmada_interpreter::Error::Io {
                    path: out.clone(),
                    source,
                }
            })?;
        }
    }
    Ok(if report.failed() == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
