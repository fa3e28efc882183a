//! The CLI's integration tests (`cargo test -p karmada-interpreter-cli`):
//! one binary, one module per concern (as ripgrep's `tests/` is laid out);
//! they run the binary or test what only the roof does (golden runner,
//! cluster, docs, architecture). The library's own are `tests/library.rs`
//! (`cargo test -p karmada-interpreter`). `support` (shared by both) owns what several modules share: the
//! binary and the one success check (`run_ok`, `cli_ok`, `assert_ok`),
//! scratch directories, the shared fixtures (the project's golden cases,
//! the shared test inputs beside the repository, and `skipped` to say in the run's output what a test
//! did not check), the one customization builder (`support::customization`),
//! the one random generator (`support::rng`) and the one random-object
//! mutator (`support::mutator`). The conformance suite is its own target
//! (`conformance/harness.rs`).

mod cli_support;
mod support;

mod architecture;
mod authoring;
mod cli_composition;
mod cli_diff;
mod cli_inputs;
mod cli_lua;
mod cli_ux;
mod cluster;
mod cluster_cli;
mod cluster_report;
mod docs_consistency;
mod golden_kit;
mod golden_runner;
mod health;
mod health_cel;
mod karmada_next;
mod new_user;
mod packaging;
mod schema_cli;
mod serve_admission;
mod serve_operable;
mod thirdparty;
mod ux_errors;
mod webhook;
mod webhook_http;
mod webhook_robustness;
mod webhook_serve;
