//! The integration tests: one binary, one module per concern (as ripgrep's
//! `tests/` is laid out). `support` owns what several modules share: the
//! binary, scratch directories, customization builders, the random-object
//! mutator. The conformance suite is its own target (`conformance/harness.rs`).

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
