//! What most users of the crate need, in one import.
//!
//! ```
//! use karmada_interpreter::prelude::*;
//! use serde_json::json;
//!
//! let chain = Interpreter::default();
//! let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
//!                  "status": {"phase": "Running"}});
//! let answer: Answer<Option<serde_json::Value>> = chain.reflect_status(&pod).unwrap();
//! assert_eq!(answer.served_by.layer, LayerKind::Native);
//! ```

pub use crate::api::{AggregatedStatusItem, InterpreterOperation};
pub use crate::interpreter::{
    Answer, Chain, Interpreter, InterpreterBuilder, Layer, LayerKind, Outcome, Request, Typed,
};
pub use crate::{Error, Result};
