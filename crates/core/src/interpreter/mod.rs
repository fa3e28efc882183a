//! The interpreter chain: four layers consulted in Karmada's order.
//!
//! For every (object kind, operation) the chain asks, in order, the declarative
//! customizations, the webhooks, the bundled third-party customizations and
//! the native built-ins (see `docs/architecture.md`). The first layer that serves
//! the pair answers; its error is the chain's error (no fall-through). Every
//! answer says which layer produced it ([`Answer::served_by`]).
//!
//! Module map (the floors are drawn in `docs/architecture.md`):
//!
//! - `layer`: the [`Layer`] trait, [`LayerKind`] (declarative, webhook,
//!   thirdparty, native), [`Request`], [`Outcome`], [`Source`].
//! - `chain`: [`Chain`], the ordered layers and the eight operations, and
//!   [`Below`], the layers after the one answering (what a layer that
//!   composes with them asks: [`Layer::interpret_over`]). The
//!   default chain and its builder are assembled above every layer, in the
//!   `karmada-interpreter` crate (`Interpreter`).
//! - `operation`: the one operation model: [`Inputs`] → [`Request`]
//!   ([`InputError`] when an input is missing or extra), [`Outcome`] →
//!   Karmada's named results ([`results`]). Used by the CLI, the golden
//!   runner and the webhook SDK.
//! - `object`: object identity (gvk, `Kind namespace/name`).
//! - `typed`: [`Typed`] objects (k8s-openapi, `kube` dynamic objects).
//! - `json`: [`Chain::interpret_json`], the operations on inputs held as
//!   JSON text ([`JsonInputs`]), decoding only what the serving handler
//!   looks at.
//! - `explain`: [`Chain::decisions`], which layer serves a (kind,
//!   operation) and why each earlier one does not ([`LayerDecision`]).

mod chain;
mod explain;
mod json;
mod layer;
mod object;
mod operation;
mod typed;

pub use crate::error::JsonInput;
pub use crate::k8s::written::{Write, WriteOp, Written};
pub use chain::{Below, Chain, EditedObject};
pub use explain::{segment_match, LayerDecision};
pub use json::{Edited, JsonInputs};
pub use layer::{
    Answer, CatalogEntry, EditRequest, InPlaceRequest, Layer, LayerKind, Outcome, OwnedRequest,
    ReplicaResult, Request, Route, Source,
};
pub use object::{describe, from_dynamic, from_resource, gvk_of, TypeRef};
pub use operation::{result_names, results, results_map, InputError, Inputs, ObjectInput};
pub use typed::{AsObject, ObjectArg, Typed};
