//! `karmada-interpreter test`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use karmada_interpreter::declarative::Coverage;
use karmada_interpreter_golden::coverage as golden_coverage;
use karmada_interpreter_golden::{
    discover, report, ChainBackend, CrossCheck, RunControl, Runner, Verdict, WebhookBackend,
};

use crate::args::ChainArgs;
use crate::error::Error;

/// `test --health-checks DIR PATH...`: Argo CD's `health_test.yaml` tests
/// under the paths, and the golden cases outside Argo CD kind folders.
mod health_catalogue {
    use std::path::{Path, PathBuf};

    use karmada_interpreter::health::ArgoCdHealth;
    use karmada_interpreter_golden::health_tests as catalogue;
    use karmada_interpreter_golden::{discover, Report, Runner};

    pub fn run(runner: &Runner, dir: &Path, paths: &[PathBuf]) -> crate::error::Result<Report> {
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
use crate::test_extra::{self, MaybeWebhookRules};
use crate::ux::{self, ReportOutput};

#[derive(Debug, clap::Args)]
#[command(after_help = ux::EXIT_CODES)]
pub struct TestArgs {
    /// Case files or directories; default: the bundled cases embedded in the
    /// binary (`thirdparty/<group>/<version>/<Kind>/testdata/`), wherever it runs.
    paths: Vec<PathBuf>,
    #[command(flatten)]
    chain: ChainArgs,
    /// Also print passing cases (human format).
    #[arg(long, short)]
    verbose: bool,
    /// Output format: `text` (default), `json`, `yaml` or `junit` (JUnit
    /// XML, one testcase per golden case, with durations).
    #[arg(long, short = 'o', alias = "format", value_enum, default_value_t = ReportOutput::Text)]
    output: ReportOutput,
    /// Print failing cases only: no progress, notes or summary line.
    #[arg(long, short, conflicts_with = "verbose")]
    quiet: bool,
    /// Run only the cases whose name or file path contains this text.
    #[arg(long, value_name = "TEXT")]
    filter: Option<String>,
    /// Stop at the first failing case.
    #[arg(long)]
    fail_fast: bool,
    /// Write each failing case's observed output into its case file (after
    /// showing the differences), keeping the file's other lines; only case
    /// files under the PATHs given are written.
    #[arg(long, requires = "paths")]
    update: bool,
    #[command(flatten)]
    timeout: ux::TimeoutArg,
    /// Report which lines of the customization scripts the cases ran:
    /// covered/total lines and the uncovered lines of each script (lines of
    /// the customization file).
    #[arg(long)]
    coverage: bool,
    /// Also write the coverage as an lcov tracefile (implies `--coverage`).
    #[arg(long, value_name = "FILE")]
    coverage_out: Option<PathBuf>,
    /// Fail the run when the cases cover less than this percentage of the
    /// customization scripts' lines, all scripts together (implies
    /// `--coverage`).
    #[arg(long, value_name = "PERCENT", value_parser = percent)]
    coverage_threshold: Option<f64>,
    /// With --webhook-config: which checks to run. `cases` (default): the
    /// golden cases, with the protocol checks on every answer; `protocol`:
    /// requests shaped as Karmada sends them for every (kind, operation) the
    /// configuration declares, no case needed; `robustness`: unserved
    /// operations and kinds, an unknown operation, the largest object, a
    /// malformed body, concurrent requests, a slow reader, envelopes to
    /// refuse; `all`: the three.
    #[arg(long, value_enum, value_name = "SUITE")]
    suite: Option<test_extra::Suite>,
    /// With --webhook-config: compare every answer of the webhook with the
    /// answer another interpreter gives to the same request: `builtin` (the
    /// built-in chain) or a customization FILE (the built-in chain plus its
    /// customizations). Each difference is listed per case and operation, as
    /// a finding (a failure with --strict); in the protocol suite, for each
    /// Karmada-shaped request.
    #[arg(long, value_name = "builtin|FILE")]
    cross_check: Option<String>,
    /// With --suite protocol|robustness|all or --cross-check: semantic
    /// doubts (an answer that depends on `replicas` outside ReviseReplica, a
    /// refusal of an object Karmada sends, a difference from the
    /// cross-check's reference) fail their check instead of being reported
    /// as findings.
    #[arg(long)]
    strict: bool,
}

/// A percentage from 0 to 100.
fn percent(text: &str) -> std::result::Result<f64, String> {
    match text.trim_end_matches('%').parse::<f64>() {
        Ok(p) if (0.0..=100.0).contains(&p) => Ok(p),
        _ => Err(format!("expected a percentage from 0 to 100, got {text:?}")),
    }
}

pub fn run(args: TestArgs) -> crate::error::Result<ExitCode> {
    let (customizations, webhooks) = args.chain.load()?;
    if args.coverage_threshold.is_some() && !webhooks.is_empty() {
        return Err(Error::usage(
            "--coverage-threshold",
            "coverage measures customization scripts, which a run against --webhook-config does not run",
        ));
    }
    let suite = test_extra::Suite::chosen(
        args.suite,
        !webhooks.is_empty(),
        &args.paths,
        args.strict,
        args.cross_check.is_some(),
    )?;
    let reference = test_extra::Reference::chosen(args.cross_check.as_deref(), &webhooks)?;
    let paths = args.paths;
    // With --webhook-config, cases a webhook matches go to it (with the
    // protocol checks) and the others are skipped: this tests a webhook.
    let coverage =
        (args.coverage || args.coverage_out.is_some() || args.coverage_threshold.is_some())
            .then(Coverage::default);
    let mut webhook_rules = test_extra::WebhookRules::new(&webhooks);
    let runner = if webhooks.is_empty() {
        let mut backend = args
            .chain
            .health_backend(ChainBackend::new(customizations, Vec::new()))
            .with_files(args.chain.files.paths()?);
        if args.timeout.timeout.is_some() {
            backend = backend.with_limits(args.timeout.limits());
        }
        Runner::new(match &coverage {
            Some(c) => backend.with_coverage(c.clone()),
            None => backend,
        })
    } else {
        let backend =
            WebhookBackend::new(webhooks.clone())?.with_profile(crate::profile::current());
        match &reference {
            Some(reference) => Runner::new(
                CrossCheck::new(backend, reference.backend(), reference.name.clone())
                    .strict(args.strict),
            ),
            None => Runner::new(backend),
        }
    };
    let text_output = args.output == ReportOutput::Text;
    let started = Instant::now();
    let mut progress = test_extra::Progress::new(args.quiet);
    let mut on_case = |case: &karmada_interpreter_golden::CaseReport| progress.case(case);
    let filter = args.filter.clone();
    let select = |file: &std::path::Path, name: &str| {
        filter
            .as_deref()
            .is_none_or(|f| name.contains(f) || file.to_string_lossy().contains(f))
    };
    let mut control = RunControl {
        select: Some(&select),
        fail_fast: args.fail_fast,
        on_case: Some(&mut on_case),
        ..RunControl::default()
    };
    let run = if !suite.cases() {
        Ok(karmada_interpreter_golden::Report::default())
    } else if paths.is_empty() {
        let bundled: Vec<(PathBuf, &str)> = karmada_interpreter::thirdparty::bundled_cases()
            .iter()
            .map(|(path, text)| (PathBuf::from(path), *text))
            .collect();
        let note = format!(
            "bundled cases: {} files of thirdparty/<group>/<version>/<Kind>/testdata/, embedded in the binary",
            bundled.len()
        );
        // Machine-readable formats keep stdout to themselves.
        if text_output && !args.quiet {
            println!("{note}");
        } else if !args.quiet {
            eprintln!("{note}");
        }
        webhook_rules.note_texts(&bundled);
        runner
            .run_texts_with(&bundled, &mut control)
            .map_err(Error::from)
    } else if let Some(dir) = &args.chain.health.health_checks {
        health_catalogue::run(&runner, dir, &paths)
    } else {
        webhook_rules.note_paths(&paths);
        let case_files = discover(&paths)?;
        crate::layout::warn_mismatches(case_files.iter().filter_map(|f| f.customization.clone()));
        runner
            .run_with(&paths, &mut control)
            .map(|mut report| {
                crate::layout::explain_not_served(&mut report, &case_files);
                report
            })
            .map_err(Error::from)
    };
    let (filtered_out, stopped) = (control.filtered_out, control.stopped);
    progress.finish();
    let mut report = test_extra::no_case_selected(run, args.filter.as_deref(), filtered_out)?;
    // The suites that need no cases follow the cases, as case reports.
    report.cases.extend(suite.run(
        &webhooks,
        args.strict,
        reference.as_ref().map(test_extra::Reference::for_suites),
    ));
    match args.output {
        ReportOutput::Text => {
            // A failure shared by several cases (a customization file that
            // does not load) is shown in full once.
            let mut shown: HashMap<String, String> = HashMap::new();
            for case in &report.cases {
                if args.verbose
                    || !matches!(case.verdict, Verdict::Passed | Verdict::Skipped(_))
                    || (!args.quiet && !case.findings.is_empty())
                {
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
                    anstream::println!("{}", ux::colour_first_word(&case.render()));
                }
            }
            if !args.quiet {
                let summary =
                    test_extra::summary(&report, started.elapsed(), filtered_out, stopped);
                anstream::println!("{}", ux::colour_summary(&summary, report.failed() == 0));
            }
        }
        ReportOutput::Junit => print!("{}", report::junit(&report)),
        ReportOutput::Json => println!("{:#}", report::json(&report)),
        ReportOutput::Yaml => ux::print_structured(&report::json(&report), true, "test")?,
    }
    if suite == test_extra::Suite::Cases {
        webhook_rules.report_unmatched();
        webhook_rules.nothing_ran(&report, &paths)?;
    }
    // Failing cases whose observed output --update accepted pass now.
    let updated = if args.update {
        test_extra::update(&runner, &paths, &report, args.quiet)?
    } else {
        0
    };
    let mut below_threshold = false;
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
        let mut scripts = golden_coverage::collect(&files, coverage).map_err(Error::Lint)?;
        // The CEL health rules (--health-exprs): each expression a case
        // evaluated counts, beside the scripts' statements.
        let rules = match &args.chain.health.health_exprs.file {
            Some(file) => golden_coverage::cel_expressions(file, coverage)?,
            None => Vec::new(),
        };
        let summaries = scripts
            .iter()
            .map(golden_coverage::ScriptCoverage::summary)
            .chain(rules.iter().map(golden_coverage::ExprCoverage::summary));
        for summary in summaries {
            // Machine-readable formats keep stdout to themselves.
            if text_output {
                println!("{summary}");
            } else {
                eprintln!("{summary}");
            }
        }
        scripts.extend(rules.iter().map(golden_coverage::ExprCoverage::as_script));
        if let Some(threshold) = args.coverage_threshold {
            let Some((covered, total, percent)) = golden_coverage::overall(&scripts) else {
                return Err(Error::usage(
                    "--coverage-threshold",
                    "no customization script line to measure: give the customizations with -f or in Karmada's layout",
                ));
            };
            below_threshold = percent < threshold;
            if below_threshold {
                eprintln!(
                    "coverage {percent:.1}% ({covered}/{total} lines of {} scripts) is below --coverage-threshold {threshold}%",
                    scripts.len()
                );
            }
        }
        if let Some(out) = &args.coverage_out {
            std::fs::write(out, golden_coverage::lcov(&scripts)).map_err(|source| {
                crate::error::Error::File {
                    path: out.clone(),
                    source,
                }
            })?;
        }
    }
    Ok(if report.failed() <= updated && !below_threshold {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
