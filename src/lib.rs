#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod api;
#[path = "../builtin/mod.rs"]
pub mod builtin;
pub mod error;
pub mod golden;
pub mod interpreter;
#[cfg(feature = "lint")]
pub mod lint;
pub mod load;
pub mod lua;
pub mod quantity;
pub mod thirdparty;
pub mod webhook;
pub mod yaml;

pub use error::{Error, Result};
pub use interpreter::Interpreter;
