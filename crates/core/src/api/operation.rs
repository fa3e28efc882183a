use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The eight interpreter operations, spelled exactly as Karmada spells them on
/// the wire and in golden files (nine with the `karmada-next` feature, which
/// adds `ReviseComponents` from Karmada's open pull request #7830).
///
/// ```
/// use karmada_interpreter::api::InterpreterOperation;
///
/// let op: InterpreterOperation = "interpretreplica".parse().unwrap(); // case-insensitive
/// assert_eq!(op, InterpreterOperation::InterpretReplica);
/// assert_eq!(op.lua_function(), "GetReplicas");
/// assert_eq!(serde_json::to_string(&op).unwrap(), "\"InterpretReplica\"");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum InterpreterOperation {
    /// Replica count and per-replica requirements of a template.
    InterpretReplica,
    /// Per-component replica counts and requirements (multi-template workloads).
    InterpretComponent,
    /// Rewrite the replica count of an object for one member cluster.
    ReviseReplica,
    /// Rewrite the per-component replica counts of a multi-component object
    /// for one member cluster (Karmada's open pull request #7830; the
    /// `karmada-next` profile).
    #[cfg(feature = "karmada-next")]
    ReviseComponents,
    /// Keep fields owned by member-cluster controllers.
    Retain,
    /// Fold per-cluster statuses into the template's status.
    AggregateStatus,
    /// Extract the status to report from a member-cluster object.
    InterpretStatus,
    /// Decide whether a member-cluster object is healthy.
    InterpretHealth,
    /// List objects that must be propagated together with this one.
    InterpretDependency,
}

impl InterpreterOperation {
    /// Every operation, in Karmada's canonical rule order (the order used by
    /// validation, `check` output and conflict detection).
    #[cfg(not(feature = "karmada-next"))]
    pub const ALL: [InterpreterOperation; 8] = [
        Self::Retain,
        Self::InterpretReplica,
        Self::InterpretComponent,
        Self::ReviseReplica,
        Self::InterpretStatus,
        Self::AggregateStatus,
        Self::InterpretHealth,
        Self::InterpretDependency,
    ];

    /// Every operation, in Karmada's canonical rule order (the order used by
    /// validation, `check` output and conflict detection); `ReviseComponents`
    /// follows `ReviseReplica`, as in Karmada's pull request #7830.
    #[cfg(feature = "karmada-next")]
    pub const ALL: [InterpreterOperation; 9] = [
        Self::Retain,
        Self::InterpretReplica,
        Self::InterpretComponent,
        Self::ReviseReplica,
        Self::ReviseComponents,
        Self::InterpretStatus,
        Self::AggregateStatus,
        Self::InterpretHealth,
        Self::InterpretDependency,
    ];

    /// The operation name as Karmada spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InterpretReplica => "InterpretReplica",
            Self::InterpretComponent => "InterpretComponent",
            Self::ReviseReplica => "ReviseReplica",
            #[cfg(feature = "karmada-next")]
            Self::ReviseComponents => "ReviseComponents",
            Self::Retain => "Retain",
            Self::AggregateStatus => "AggregateStatus",
            Self::InterpretStatus => "InterpretStatus",
            Self::InterpretHealth => "InterpretHealth",
            Self::InterpretDependency => "InterpretDependency",
        }
    }

    /// The global Lua function a customization script must define.
    pub fn lua_function(self) -> &'static str {
        match self {
            Self::InterpretReplica => "GetReplicas",
            Self::InterpretComponent => "GetComponents",
            Self::ReviseReplica => "ReviseReplica",
            #[cfg(feature = "karmada-next")]
            Self::ReviseComponents => "ReviseComponents",
            Self::Retain => "Retain",
            Self::AggregateStatus => "AggregateStatus",
            Self::InterpretStatus => "ReflectStatus",
            Self::InterpretHealth => "InterpretHealth",
            Self::InterpretDependency => "GetDependencies",
        }
    }

    /// The member of `spec.customizations` that holds this operation's script.
    pub fn customization_member(self) -> &'static str {
        match self {
            Self::InterpretReplica => "replicaResource",
            Self::InterpretComponent => "componentResource",
            Self::ReviseReplica => "replicaRevision",
            #[cfg(feature = "karmada-next")]
            Self::ReviseComponents => "componentRevision",
            Self::Retain => "retention",
            Self::AggregateStatus => "statusAggregation",
            Self::InterpretStatus => "statusReflection",
            Self::InterpretHealth => "healthInterpretation",
            Self::InterpretDependency => "dependencyInterpretation",
        }
    }

    /// Whether the operation belongs to the `karmada-next` profile (Karmada's
    /// open pull requests): such an operation is refused unless the profile
    /// is switched on.
    pub fn is_next(self) -> bool {
        match self {
            #[cfg(feature = "karmada-next")]
            Self::ReviseComponents => true,
            _ => false,
        }
    }

    /// Whether the operation edits its object (its answer is the object
    /// changed: ReviseReplica, Retain, AggregateStatus, and ReviseComponents
    /// under the `karmada-next` profile) rather than reading it.
    pub fn is_edit(self) -> bool {
        match self {
            Self::ReviseReplica | Self::Retain | Self::AggregateStatus => true,
            #[cfg(feature = "karmada-next")]
            Self::ReviseComponents => true,
            _ => false,
        }
    }

    /// Parses an operation name case-insensitively, as Karmada does for
    /// user-supplied names (CLI flags, golden files).
    pub fn parse_case_insensitive(name: &str) -> Result<Self, UnknownOperation> {
        Self::ALL
            .into_iter()
            .find(|op| op.as_str().eq_ignore_ascii_case(name))
            .ok_or_else(|| UnknownOperation(name.to_owned()))
    }
}

impl fmt::Display for InterpreterOperation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for InterpreterOperation {
    type Err = UnknownOperation;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse_case_insensitive(s)
    }
}

/// A name that is not one of the eight operations (`ReviseComponents`, when
/// the `karmada-next` feature is not compiled in, is refused with a message
/// naming the profile it belongs to).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct UnknownOperation(pub String);

/// The operations of the `karmada-next` profile (Karmada's open pull
/// requests), by name, whether or not the feature is compiled in: the
/// refusal of one names the profile.
const NEXT_OPERATIONS: [&str; 1] = ["ReviseComponents"];

/// What follows the name of something of the `karmada-next` profile when
/// this build does not include the profile.
pub(crate) const NOT_COMPILED_IN: &str = "belongs to the karmada-next profile (Karmada's open pull requests #7830, #7846 and #7537, not released yet), which this build does not include: build with the cargo feature `karmada-next` and switch the profile on (the CLI's `--profile karmada-next`)";

impl fmt::Display for UnknownOperation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(name) = NEXT_OPERATIONS
            .iter()
            .find(|n| n.eq_ignore_ascii_case(&self.0))
        {
            return write!(f, "operation {name} {NOT_COMPILED_IN}");
        }
        write!(f, "operation {:?} is not supported; use one of: ", self.0)?;
        for (i, op) in InterpreterOperation::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(op.as_str())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_exactly() {
        for op in InterpreterOperation::ALL {
            let json = serde_json::to_string(&op).unwrap();
            assert_eq!(json, format!("\"{}\"", op.as_str()));
            let back: InterpreterOperation = serde_json::from_str(&json).unwrap();
            assert_eq!(back, op);
            assert_eq!(
                op.as_str().to_lowercase().parse::<InterpreterOperation>(),
                Ok(op)
            );
        }
    }

    #[test]
    fn wire_names_are_case_sensitive() {
        assert!(serde_json::from_str::<InterpreterOperation>("\"retain\"").is_err());
        assert!(serde_json::from_str::<InterpreterOperation>("\"Prune\"").is_err());
    }

    #[test]
    fn unknown_names_are_rejected_with_the_name() {
        let err = "Prune".parse::<InterpreterOperation>().unwrap_err();
        assert!(err.to_string().contains("\"Prune\""), "{err}");
    }
}
