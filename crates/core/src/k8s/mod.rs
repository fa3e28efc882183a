//! The Kubernetes floor: what every layer needs to know about Kubernetes
//! objects, and nothing about the layers. Native handlers (`builtin/`), the
//! Lua `kube` module and decoder (`lua`), and the webhook client's checks
//! (`webhook`) all call this module; it calls none of them (it depends only
//! on the Karmada API types in [`crate::api`]).
//!
//! Module map:
//!
//! - [`object`]: object identity — group, version and kind from the object's
//!   own fields ([`gvk_of`]), and `Kind namespace/name` for messages
//!   ([`describe`]).
//! - [`error`]: [`ObjectError`], a field of an object breaking a rule, naming
//!   the object and the dotted field path.
//! - `field`: **the** JSON field-path reader (strict getters that reject a
//!   wrong type, lenient ones for already-checked objects, a writer) and
//!   `path`, field paths rendered only when an error needs them.
//! - [`quantity`]: Kubernetes resource quantities, exact, with Go's
//!   rendering; `time`: RFC 3339 times as `metav1.Time` reads and writes them,
//!   and the civil-calendar arithmetic Lua's `os.date`/`os.time` share.
//! - [`validation`]: names (DNS-1123/1035 labels and subdomains, qualified
//!   names, label values), label selectors and dependency lists, each rule
//!   written once in Kubernetes' own messages.
//! - [`requirements`] and [`dependencies`]: what one replica of a pod spec
//!   needs, and the objects a pod spec depends on — one computation for the
//!   native handlers and Lua's `kube.accuratePodRequirements`,
//!   `kube.resourceAdd` and `kube.getPodDependencies`.
//! - `normalize`: typed decoding and Go-style re-encoding of objects held as
//!   JSON, driven by `normalize/schema.rs`, the Kubernetes type graph that
//!   `tools/gen_k8s_schema.py` generates from k8s-openapi (a test checks the
//!   file still matches its generator).
//! - [`written`]: what an edit in place wrote, as the JSON Patch operations
//!   it applied ([`written::Written`]), recorded by the writers that make
//!   the edit.

pub mod dependencies;
pub mod error;
#[doc(hidden)] // shared with the layer crates; not a stable API
pub mod field;
pub mod keep;
#[doc(hidden)] // shared with the layer crates; not a stable API
pub mod normalize;
pub mod object;
#[doc(hidden)] // shared with the layer crates; not a stable API
pub mod path;
pub mod quantity;
pub mod requirements;
#[doc(hidden)] // shared with the layer crates; not a stable API
pub mod time;
pub mod validation;
pub mod written;

pub use error::{ObjectError, Result};
pub use object::{describe, gvk_of, TypeRef};
