//! The floor's error: a field of a Kubernetes object breaks a rule.

use serde_json::Value;

use super::object::describe;
use super::quantity::QuantityError;
use super::validation::ValidationErrors;

/// A field of an object breaks a Kubernetes rule. Every variant names the
/// object (`Kind namespace/name`, see [`describe`]) and the dotted field path
/// (`spec.template.spec.containers[0].resources.requests.cpu`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ObjectError {
    /// The field does not have the shape Kubernetes' typed decoding accepts,
    /// or a value the operation cannot use.
    #[error("{object}: field `{field}`: {reason}")]
    Field {
        /// `Kind namespace/name` of the object.
        object: String,
        /// Dotted path of the offending field.
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The field holds a quantity that does not parse or does not fit.
    #[error("{object}: field `{field}`: {source}")]
    Quantity {
        /// `Kind namespace/name` of the object.
        object: String,
        /// Dotted path of the quantity.
        field: String,
        /// Why it is not a quantity.
        #[source]
        source: QuantityError,
    },
    /// A list the object yields (its dependencies) breaks Kubernetes
    /// validation; `field` names the list, the errors name its entries.
    #[error("{object}: field `{field}`: {source}")]
    Rules {
        /// `Kind namespace/name` of the object.
        object: String,
        /// The list, e.g. `dependencies`.
        field: String,
        /// Kubernetes' field errors, in Kubernetes' words.
        #[source]
        source: ValidationErrors,
    },
}

impl ObjectError {
    /// An [`ObjectError::Field`] for `field` of `object`.
    pub fn field(object: &Value, field: impl Into<String>, reason: impl Into<String>) -> Self {
        ObjectError::Field {
            object: describe(object),
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// `Kind namespace/name` of the object.
    pub fn object(&self) -> &str {
        match self {
            ObjectError::Field { object, .. }
            | ObjectError::Quantity { object, .. }
            | ObjectError::Rules { object, .. } => object,
        }
    }

    /// The dotted path of the field.
    pub fn field_path(&self) -> &str {
        match self {
            ObjectError::Field { field, .. }
            | ObjectError::Quantity { field, .. }
            | ObjectError::Rules { field, .. } => field,
        }
    }

    /// What is wrong with the field, without the object and the path.
    pub fn reason(&self) -> String {
        match self {
            ObjectError::Field { reason, .. } => reason.clone(),
            ObjectError::Quantity { source, .. } => source.to_string(),
            ObjectError::Rules { source, .. } => source.to_string(),
        }
    }
}

/// `Result` with [`ObjectError`].
pub type Result<T, E = ObjectError> = std::result::Result<T, E>;
