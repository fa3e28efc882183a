//! The interpreter chain: four layers consulted in Karmada's order.
//!
//! For every (object kind, operation) the chain asks, in order, the declarative
//! customizations, the webhooks, the bundled third-party customizations and
//! the native built-ins (`lua-environment.md` §1.7). The first layer that serves
//! the pair answers; its error is the chain's error (no fall-through). Every
//! answer says which layer produced it ([`Answer::served_by`]).

mod chain;
mod layer;
mod object;
mod typed;

pub use chain::{Interpreter, InterpreterBuilder};
pub use layer::{
    Answer, CatalogEntry, Layer, LayerKind, Outcome, OwnedRequest, ReplicaResult, Request, Source,
};
pub use object::{describe, from_dynamic, from_resource, gvk_of};
pub(crate) use object::{split_api_version, type_name};
pub use typed::AsObject;
