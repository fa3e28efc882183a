//! The library's integration tests (`cargo test -p karmada-interpreter`;
//! add `--all-features` for the webhook client's): one binary, one module
//! per concern, each calling the library only. What runs the binary, the
//! golden runner's command-line side, the cluster integration and the
//! repository's own checks are the CLI package's tests (`tests/tests.rs`).
//! `support` is shared by both binaries.

mod support;

mod api_roundtrip;
mod bundled_health;
mod chain;
mod composition;
mod fuzz_properties;
mod gopher_probes;
mod json_inputs;
mod karmada_corpora;
mod library_consumer;
mod lua_engine;
mod lua_sandbox;
mod memory;
mod native_robustness;
mod native_status_robustness;
mod omitempty;
mod sandbox_catalogue;
mod thirdparty_robustness;
#[cfg(feature = "webhook")]
mod webhook_client_faults;
#[cfg(feature = "webhook")]
mod written_patches;
