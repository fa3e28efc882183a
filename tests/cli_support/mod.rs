//! What only the CLI package's tests share (they need the binary or the
//! CLI's dev-dependencies): a mock API server, a `serve` process and the
//! SDK example compiled in.

#![allow(dead_code)] // each test module uses the part it needs

pub mod mock_apiserver;
pub mod serve_process;
#[path = "../../examples/workload_webhook.rs"]
pub mod workload_example;
