//! What a layer of the chain is: the trait, its request and outcome types.

use std::borrow::Cow;
use std::fmt;

use kube::core::GroupVersionKind;
use serde_json::Value;

use super::chain::Below;
#[cfg(feature = "karmada-next")]
use crate::api::TargetComponent;
use crate::api::{
    AggregatedStatusItem, Component, DependentObjectReference, InterpreterOperation,
    ReplicaRequirements,
};
use crate::error::Result;
use crate::k8s::keep::Keep;
use crate::k8s::object::TypeRef;
use crate::k8s::written::Written;

/// Which layer answered: Karmada's four, named as Karmada names its
/// interpreters (declarative, webhook, thirdparty, native), or a layer of
/// someone else's ([`LayerKind::Other`]: the opt-in health layers of
/// `karmada-interpreter-health`, a user's own layer).
///
/// ```
/// use karmada_interpreter_core::interpreter::LayerKind;
///
/// // A layer of your own names itself; it is printed and serialized by its name.
/// const AUDIT: LayerKind = LayerKind::Other("audit");
/// assert_eq!(AUDIT.to_string(), "audit");
/// assert_eq!(LayerKind::Native.as_str(), "native");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum LayerKind {
    /// User `ResourceInterpreterCustomization` objects: Lua scripts
    /// (Karmada's declarative, or customized, interpreter; crate `karmada-interpreter-declarative`).
    Declarative,
    /// Interpreter webhooks (crate `karmada-interpreter-webhook`).
    Webhook,
    /// Customizations bundled with karmada-interpreter (`thirdparty/`, Lua;
    /// crate `karmada-interpreter-thirdparty`).
    Thirdparty,
    /// Native Rust built-ins (`builtin/`, crate `karmada-interpreter-native`).
    Native,
    /// Any other layer, by the lower-case name it prints as (for example
    /// `argocd` and `fallback`, the opt-in health layers of
    /// `karmada-interpreter-health`).
    Other(&'static str),
}

impl LayerKind {
    /// Karmada's four layers, in the order Karmada consults them.
    pub const KARMADA: [LayerKind; 4] = [
        Self::Declarative,
        Self::Webhook,
        Self::Thirdparty,
        Self::Native,
    ];

    /// Lower-case name used in output and docs.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Declarative => "declarative",
            Self::Webhook => "webhook",
            Self::Thirdparty => "thirdparty",
            Self::Native => "native",
            Self::Other(name) => name,
        }
    }
}

impl fmt::Display for LayerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which layer, and what inside it (customization name, webhook identity,
/// native table entry), produced an answer.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Source {
    /// The layer.
    pub layer: LayerKind,
    /// What inside the layer answered. Borrowed when the layer can name
    /// its entries without allocating (the native table does).
    pub name: Cow<'static, str>,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.layer, self.name)
    }
}

/// A result together with where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer<T> {
    /// The result.
    pub value: T,
    /// The layer that produced it.
    pub served_by: Source,
}

impl<T> Answer<T> {
    /// Maps the value, keeping the source.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Answer<U> {
        Answer {
            value: f(self.value),
            served_by: self.served_by,
        }
    }
}

/// One operation with its inputs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Request<'a> {
    /// `GetReplicas(desired)`.
    InterpretReplica {
        /// The resource template.
        object: &'a Value,
    },
    /// `GetComponents(desired)`.
    InterpretComponent {
        /// The resource template.
        object: &'a Value,
    },
    /// `ReviseReplica(object, replicas)`.
    ReviseReplica {
        /// The object to revise.
        object: &'a Value,
        /// The replica count to write.
        replicas: i64,
    },
    /// `ReviseComponents(object, components)` (the `karmada-next` profile).
    #[cfg(feature = "karmada-next")]
    ReviseComponents {
        /// The object to revise.
        object: &'a Value,
        /// The per-component assignment; `None` (Lua `nil`) and an empty
        /// list are different inputs.
        components: Option<&'a [TargetComponent]>,
    },
    /// `Retain(desired, observed)`.
    Retain {
        /// The manifest about to be applied.
        desired: &'a Value,
        /// The live object in the member cluster.
        observed: &'a Value,
    },
    /// `AggregateStatus(template, items)`.
    AggregateStatus {
        /// The resource template.
        object: &'a Value,
        /// Per-cluster statuses; `None` and an empty list are different inputs.
        items: Option<&'a [AggregatedStatusItem]>,
    },
    /// `ReflectStatus(observed)`.
    InterpretStatus {
        /// The live member-cluster object.
        object: &'a Value,
    },
    /// `InterpretHealth(observed)`.
    InterpretHealth {
        /// The live member-cluster object.
        object: &'a Value,
    },
    /// `GetDependencies(desired)`.
    InterpretDependency {
        /// The resource template.
        object: &'a Value,
    },
}

impl<'a> Request<'a> {
    /// The operation.
    pub fn operation(&self) -> InterpreterOperation {
        use InterpreterOperation as Op;
        match self {
            Self::InterpretReplica { .. } => Op::InterpretReplica,
            Self::InterpretComponent { .. } => Op::InterpretComponent,
            Self::ReviseReplica { .. } => Op::ReviseReplica,
            #[cfg(feature = "karmada-next")]
            Self::ReviseComponents { .. } => Op::ReviseComponents,
            Self::Retain { .. } => Op::Retain,
            Self::AggregateStatus { .. } => Op::AggregateStatus,
            Self::InterpretStatus { .. } => Op::InterpretStatus,
            Self::InterpretHealth { .. } => Op::InterpretHealth,
            Self::InterpretDependency { .. } => Op::InterpretDependency,
        }
    }

    /// An editing request (`ReviseReplica`, `Retain`, `AggregateStatus`)
    /// as one handing over a copy of its object; `None` for the reading
    /// operations.
    pub fn to_owned_edit(&self) -> Option<OwnedRequest<'a>> {
        match *self {
            Self::ReviseReplica { object, replicas } => Some(OwnedRequest::ReviseReplica {
                object: object.clone(),
                replicas,
            }),
            #[cfg(feature = "karmada-next")]
            Self::ReviseComponents { object, components } => Some(OwnedRequest::ReviseComponents {
                object: object.clone(),
                components,
            }),
            Self::Retain { desired, observed } => Some(OwnedRequest::Retain {
                desired: desired.clone(),
                observed,
            }),
            Self::AggregateStatus { object, items } => Some(OwnedRequest::AggregateStatus {
                object: object.clone(),
                items,
            }),
            _ => None,
        }
    }

    /// The object the chain dispatches on (the desired object for `Retain`).
    pub fn object(&self) -> &'a Value {
        match *self {
            Self::InterpretReplica { object }
            | Self::InterpretComponent { object }
            | Self::ReviseReplica { object, .. }
            | Self::AggregateStatus { object, .. }
            | Self::InterpretStatus { object }
            | Self::InterpretHealth { object }
            | Self::InterpretDependency { object } => object,
            #[cfg(feature = "karmada-next")]
            Self::ReviseComponents { object, .. } => object,
            Self::Retain { desired, .. } => desired,
        }
    }
}

/// An editing request (`ReviseReplica`, `Retain`, `AggregateStatus`) holding its object as `O`:
/// handed over ([`OwnedRequest`], `O = Value`) or lent mutably
/// ([`InPlaceRequest`], `O = &mut Value`). Layers that cannot use the
/// ownership answer it as the borrowed [`Request`] ([`EditRequest::as_request`]).
#[derive(Debug, Clone, PartialEq)]
pub enum EditRequest<'a, O> {
    /// `ReviseReplica(object, replicas)`.
    ReviseReplica {
        /// The object to revise.
        object: O,
        /// The replica count to write.
        replicas: i64,
    },
    /// `ReviseComponents(object, components)` (the `karmada-next` profile).
    #[cfg(feature = "karmada-next")]
    ReviseComponents {
        /// The object to revise.
        object: O,
        /// The per-component assignment (`None`: Lua `nil`).
        components: Option<&'a [TargetComponent]>,
    },
    /// `Retain(desired, observed)`.
    Retain {
        /// The manifest about to be applied.
        desired: O,
        /// The live object in the member cluster.
        observed: &'a Value,
    },
    /// `AggregateStatus(template, items)`: the answer is the template with
    /// the aggregated status.
    AggregateStatus {
        /// The resource template.
        object: O,
        /// Each member cluster's reported status.
        items: Option<&'a [AggregatedStatusItem]>,
    },
}

/// A request whose object the caller hands over: a layer that edits the
/// object can then answer without copying it.
pub type OwnedRequest<'a> = EditRequest<'a, Value>;

/// An editing request whose object the caller lends mutably: on success the
/// object *is* the answer, edited in place (Karmada's own semantics: its
/// native interpreter edits the unstructured object it is given); on error
/// it is unchanged. A layer that edits in place (the native one) touches
/// only the fields it writes; the others compute a new object and store it
/// ([`InPlaceRequest::store`]).
pub type InPlaceRequest<'a> = EditRequest<'a, &'a mut Value>;

impl<O: std::borrow::Borrow<Value>> EditRequest<'_, O> {
    /// The operation.
    pub fn operation(&self) -> InterpreterOperation {
        self.as_request().operation()
    }

    /// The object the chain dispatches on (the desired object for `Retain`).
    pub fn object(&self) -> &Value {
        match self {
            Self::ReviseReplica { object, .. } => object.borrow(),
            #[cfg(feature = "karmada-next")]
            Self::ReviseComponents { object, .. } => object.borrow(),
            Self::Retain { desired, .. } => desired.borrow(),
            Self::AggregateStatus { object, .. } => object.borrow(),
        }
    }

    /// The same request, borrowing the object.
    pub fn as_request(&self) -> Request<'_> {
        match self {
            Self::ReviseReplica { object, replicas } => Request::ReviseReplica {
                object: object.borrow(),
                replicas: *replicas,
            },
            #[cfg(feature = "karmada-next")]
            Self::ReviseComponents { object, components } => Request::ReviseComponents {
                object: object.borrow(),
                components: *components,
            },
            Self::Retain { desired, observed } => Request::Retain {
                desired: desired.borrow(),
                observed,
            },
            Self::AggregateStatus { object, items } => Request::AggregateStatus {
                object: object.borrow(),
                items: *items,
            },
        }
    }
}

impl OwnedRequest<'_> {
    /// The same request with its object lent mutably, to edit it in place
    /// before [`OwnedRequest::into_outcome`] hands it back.
    pub fn lend(&mut self) -> InPlaceRequest<'_> {
        match self {
            Self::ReviseReplica { object, replicas } => InPlaceRequest::ReviseReplica {
                object,
                replicas: *replicas,
            },
            #[cfg(feature = "karmada-next")]
            Self::ReviseComponents { object, components } => InPlaceRequest::ReviseComponents {
                object,
                components: *components,
            },
            Self::Retain { desired, observed } => InPlaceRequest::Retain { desired, observed },
            Self::AggregateStatus { object, items } => InPlaceRequest::AggregateStatus {
                object,
                items: *items,
            },
        }
    }

    /// The object (edited, once the request has run).
    pub fn into_object(self) -> Value {
        match self {
            Self::ReviseReplica { object, .. }
            | Self::Retain {
                desired: object, ..
            }
            | Self::AggregateStatus { object, .. } => object,
            #[cfg(feature = "karmada-next")]
            Self::ReviseComponents { object, .. } => object,
        }
    }

    /// The object, as the operation's answer.
    pub fn into_outcome(self) -> Outcome {
        match self {
            Self::ReviseReplica { object, .. } => Outcome::Revised(object),
            #[cfg(feature = "karmada-next")]
            Self::ReviseComponents { object, .. } => Outcome::ComponentsRevised(object),
            Self::Retain { desired, .. } => Outcome::Retained(desired),
            Self::AggregateStatus { object, .. } => Outcome::Aggregated(object),
        }
    }
}

impl InPlaceRequest<'_> {
    /// Stores a layer's answer in the lent object. An outcome of another
    /// operation is an error and leaves the object unchanged.
    pub fn store(self, outcome: Outcome) -> Result<()> {
        match (self, outcome) {
            (Self::ReviseReplica { object, .. }, Outcome::Revised(v))
            | (
                Self::Retain {
                    desired: object, ..
                },
                Outcome::Retained(v),
            )
            | (Self::AggregateStatus { object, .. }, Outcome::Aggregated(v)) => {
                *object = v;
                Ok(())
            }
            #[cfg(feature = "karmada-next")]
            (Self::ReviseComponents { object, .. }, Outcome::ComponentsRevised(v)) => {
                *object = v;
                Ok(())
            }
            (request, other) => Err(crate::Error::InvalidInput {
                operation: request.operation(),
                reason: format!("a layer answered {} instead", other.operation()),
            }),
        }
    }
}

/// `InterpretReplica`'s result.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ReplicaResult {
    /// Replica count.
    pub replicas: i32,
    /// Per-replica requirements; `None` when the interpreter returns none.
    pub requirements: Option<ReplicaRequirements>,
}

/// The result of one operation.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// `InterpretReplica` (boxed: the result with its requirements is
    /// several times the size of every other outcome, and every answer
    /// moves through the chain by value).
    Replicas(Box<ReplicaResult>),
    /// `InterpretComponent`.
    Components(Vec<Component>),
    /// `ReviseReplica`: the revised object.
    Revised(Value),
    /// `ReviseComponents` (the `karmada-next` profile): the revised object.
    #[cfg(feature = "karmada-next")]
    ComponentsRevised(Value),
    /// `Retain`: the object to apply.
    Retained(Value),
    /// `AggregateStatus`: the template with its aggregated status.
    Aggregated(Value),
    /// `InterpretStatus`: the reflected status (`None` when nothing is reflected).
    Status(Option<Value>),
    /// `InterpretHealth`.
    Healthy(bool),
    /// `InterpretDependency`.
    Dependencies(Vec<DependentObjectReference>),
}

// Every answer moves through the chain by value: an outcome stays the size
// of one JSON value and a tag (a large variant goes in a box).
const _: () = assert!(std::mem::size_of::<Outcome>() <= std::mem::size_of::<Value>() + 8);

impl Outcome {
    /// The operation this outcome answers.
    pub fn operation(&self) -> InterpreterOperation {
        use InterpreterOperation as Op;
        match self {
            Self::Replicas(_) => Op::InterpretReplica,
            Self::Components(_) => Op::InterpretComponent,
            Self::Revised(_) => Op::ReviseReplica,
            #[cfg(feature = "karmada-next")]
            Self::ComponentsRevised(_) => Op::ReviseComponents,
            Self::Retained(_) => Op::Retain,
            Self::Aggregated(_) => Op::AggregateStatus,
            Self::Status(_) => Op::InterpretStatus,
            Self::Healthy(_) => Op::InterpretHealth,
            Self::Dependencies(_) => Op::InterpretDependency,
        }
    }
}

/// Each reading operation's result type from its [`Outcome`]: the outcome
/// of another operation is handed back.
macro_rules! result_from_outcome {
    ($($(#[$doc:meta])* $variant:ident($binding:ident) => $result:ty = $value:expr;)*) => {$(
        $(#[$doc])*
        impl TryFrom<Outcome> for $result {
            type Error = Outcome;

            fn try_from(outcome: Outcome) -> std::result::Result<Self, Outcome> {
                match outcome {
                    Outcome::$variant($binding) => Ok($value),
                    other => Err(other),
                }
            }
        }
    )*};
}

result_from_outcome! {
    /// `InterpretReplica`'s result.
    Replicas(result) => ReplicaResult = *result;
    /// `InterpretComponent`'s result.
    Components(components) => Vec<Component> = components;
    /// `InterpretStatus`'s result.
    Status(status) => Option<Value> = status;
    /// `InterpretHealth`'s result.
    Healthy(healthy) => bool = healthy;
    /// `InterpretDependency`'s result.
    Dependencies(dependencies) => Vec<DependentObjectReference> = dependencies;
}

/// One row of a layer's catalog: a (kind, operation) the layer serves.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CatalogEntry {
    /// `group/version` (`v1` for core); `*` when the layer serves every version.
    pub api_version: String,
    /// The kind; `*` when the layer serves every kind.
    pub kind: String,
    /// The operation.
    pub operation: InterpreterOperation,
    /// What inside the layer serves it.
    pub source: Source,
}

/// What the chain resolved a request to in the layer that serves it: where
/// the answer comes from, and the layer's own index of what serves it
/// (the native layer's table row, a Lua layer's target, the webhook
/// layer's hook), handed back to
/// [`Layer::interpret_routed`] so the layer does not look it up again.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Route {
    /// What in the layer serves the request.
    pub source: Source,
    /// The layer's own index of it; `0` for layers that do not use one.
    pub entry: usize,
}

impl From<Source> for Route {
    /// A route without an index of the layer's own.
    fn from(source: Source) -> Self {
        Self { source, entry: 0 }
    }
}

/// One layer of the chain.
///
/// A layer says whether it serves a (kind, operation) and answers requests.
/// The chain resolves each request once ([`Layer::route`], from the
/// object's borrowed apiVersion and kind) and then asks the layer that
/// serves it to answer ([`Layer::interpret_over`], or
/// [`Layer::edit_over`] for an object lent mutably, handing it the layers
/// after it; their defaults answer through [`Layer::interpret_routed`] and
/// [`Layer::edit_routed`]); it only calls the `interpret` methods of a
/// layer that routed the request's object and operation.
pub trait Layer: Send + Sync {
    /// Which layer this is.
    fn kind(&self) -> LayerKind;

    /// What in this layer serves `operation` for objects of type `ty`, and
    /// the layer's own index of it, or `None`. The chain calls it on every
    /// request, with the apiVersion and kind borrowed from the object: a
    /// layer looks them up without allocating.
    fn route(&self, ty: TypeRef<'_>, operation: InterpreterOperation) -> Option<Route>;

    /// What in this layer serves `operation` for objects of `gvk`, or
    /// `None`: the source of [`Layer::route`]'s answer.
    fn source(&self, gvk: &GroupVersionKind, operation: InterpreterOperation) -> Option<Source> {
        self.route(TypeRef::from_gvk(gvk), operation)
            .map(|route| route.source)
    }

    /// Answers a request this layer routed, `entry` being
    /// [`Route::entry`]. The default answers through `interpret`; a layer
    /// whose routes carry an index overrides it to go straight to what the
    /// index names.
    fn interpret_routed(&self, entry: usize, request: &Request<'_>) -> Result<Outcome> {
        let _ = entry;
        self.interpret(request)
    }

    /// Edits in place the object of a request this layer routed (`entry`
    /// being [`Route::entry`]): on success the object is the answer, on
    /// error it is unchanged. The default answers the borrowed request
    /// through [`Layer::interpret_routed`] and stores the answer (an
    /// outcome of another operation is refused), as `interpret_in_place`
    /// does with `interpret`; a layer that edits in place overrides both
    /// (the native layer calls the row's editing handler).
    ///
    /// The answer says what the edit wrote ([`Written`]): the default, which
    /// stores a new object, does not know ([`Written::unknown`]).
    fn edit_routed(&self, entry: usize, request: InPlaceRequest<'_>) -> Result<Written> {
        let outcome = self.interpret_routed(entry, &request.as_request())?;
        request.store(outcome)?;
        Ok(Written::unknown())
    }

    /// Answers a request this layer routed, with the layers after it in
    /// the chain at hand (`below`). The chain dispatches every request
    /// through this method (and [`Layer::edit_over`]). A layer that
    /// composes with the layers below it asks them for their answer
    /// ([`Below::interpret`]) — the declarative layer does, with
    /// composition on, when a script calls `kube.below()`
    /// (`docs/composition.md`); the default ignores them and answers
    /// through [`Layer::interpret_routed`].
    fn interpret_over(
        &self,
        entry: usize,
        request: &Request<'_>,
        below: Below<'_>,
    ) -> Result<Outcome> {
        let _ = below;
        self.interpret_routed(entry, request)
    }

    /// Edits in place, as [`Layer::edit_routed`], with the layers after
    /// this one at hand (see [`Layer::interpret_over`]); the default
    /// ignores them and edits through [`Layer::edit_routed`].
    fn edit_over(
        &self,
        entry: usize,
        request: InPlaceRequest<'_>,
        below: Below<'_>,
    ) -> Result<Written> {
        let _ = below;
        self.edit_routed(entry, request)
    }

    /// What the handler of route `entry` looks at of the object it only
    /// reads (the object of a reading operation, the observed object of
    /// `Retain`): [`Chain::interpret_json`](super::Chain::interpret_json)
    /// builds only that from the bytes. `None`, the default: all of it.
    fn keeps(&self, entry: usize) -> Option<Keep> {
        let _ = entry;
        None
    }

    /// Runs one operation.
    fn interpret(&self, request: &Request<'_>) -> Result<Outcome>;

    /// Runs an operation whose object the caller hands over. The default
    /// answers the borrowed request; layers that edit the object override it
    /// to skip the copy.
    fn interpret_owned(&self, request: OwnedRequest<'_>) -> Result<Outcome> {
        self.interpret(&request.as_request())
    }

    /// Runs an editing operation on an object the caller lends mutably:
    /// on success the object is the answer, on error it is unchanged. The
    /// default answers the borrowed request and stores the result; layers
    /// that edit the object override it to write only what they change.
    fn interpret_in_place(&self, request: InPlaceRequest<'_>) -> Result<()> {
        let outcome = self.interpret(&request.as_request())?;
        request.store(outcome)
    }

    /// Every (kind, operation) this layer serves, for listings. Layers whose
    /// coverage is open-ended (webhook rules with wildcards) list their rules.
    fn catalog(&self) -> Vec<CatalogEntry>;
}

#[cfg(test)]
mod tests {
    use super::LayerKind;

    #[test]
    fn printed_names_are_karmadas_and_match_the_variants() {
        let names: Vec<&str> = LayerKind::KARMADA.iter().map(|k| k.as_str()).collect();
        assert_eq!(names, ["declarative", "webhook", "thirdparty", "native"]);
        for kind in LayerKind::KARMADA {
            assert_eq!(format!("{kind:?}").to_lowercase(), kind.to_string());
        }
        assert_eq!(LayerKind::Other("argocd").to_string(), "argocd");
    }
}
