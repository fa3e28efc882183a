//! The integration tests: one binary, one module per concern (as ripgrep's
//! `tests/` is laid out). `support` owns what several modules share: the
//! binary and the one success check (`run_ok`, `cli_ok`, `assert_ok`),
//! scratch directories, the shared fixtures (the project's golden cases,
//! `../shared` inputs, and `skipped` to say in the run's output what a test
//! did not check), the one customization builder (`support::customization`),
//! the one random generator (`support::rng`) and the one random-object
//! mutator (`support::mutator`). The conformance suite is its own target
//! (`conformance/harness.rs`).

mod support;

mod api_roundtrip;
mod architecture;
mod authoring;
mod chain;
mod cli_inputs;
mod cli_lua;
mod cli_ux;
mod cluster;
mod cluster_cli;
mod docs_consistency;
mod fuzz_properties;
mod golden_runner;
mod gopher_probes;
mod health;
mod json_inputs;
mod karmada_corpora;
mod library_consumer;
mod lua_engine;
mod lua_sandbox;
mod memory;
mod native_robustness;
mod native_status_robustness;
mod new_user;
mod omitempty;
mod packaging;
mod sandbox_catalogue;
mod serve_operable;
mod thirdparty;
mod thirdparty_robustness;
mod ux_errors;
mod webhook;
mod webhook_client_faults;
mod webhook_http;
mod webhook_serve;
