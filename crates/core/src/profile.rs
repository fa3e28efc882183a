//! Profiles: which Karmada the answers follow.
//!
//! [`Profile::Karmada`] (the default) answers as Karmada's released code
//! does. [`Profile::KarmadaNext`] adds what Karmada's open pull requests
//! change, before Karmada ships it: the `ReviseComponents` operation
//! (pull request #7830), Job status aggregation that writes
//! `FailureTarget=True` with `Failed=True` (#7846) and
//! `kube.parseFlinkMemory` (#7537). It needs the cargo feature
//! `karmada-next` and is switched on at run time (the builder's `profile`,
//! the CLI's `--profile karmada-next`); with the feature compiled in and the
//! profile off, every answer is the default profile's.

use std::fmt;
use std::str::FromStr;

use crate::api::InterpreterOperation;

/// Which Karmada the answers follow.
///
/// ```
/// use karmada_interpreter_core::profile::Profile;
///
/// assert_eq!(Profile::default(), Profile::Karmada);
/// assert_eq!("karmada-next".parse::<Profile>().unwrap(), Profile::KarmadaNext);
/// assert_eq!(Profile::KarmadaNext.to_string(), "karmada-next");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Profile {
    /// Karmada's released code.
    #[default]
    Karmada,
    /// Karmada with its open pull requests #7830, #7846 and #7537 (the
    /// cargo feature `karmada-next`).
    KarmadaNext,
}

impl Profile {
    /// The name, as the CLI spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Karmada => "karmada",
            Self::KarmadaNext => NEXT,
        }
    }

    /// Whether this build can follow the profile (`karmada-next` needs the
    /// cargo feature of that name).
    pub fn compiled_in(self) -> bool {
        match self {
            Self::Karmada => true,
            Self::KarmadaNext => cfg!(feature = "karmada-next"),
        }
    }

    /// Whether the profile carries Karmada's open pull requests.
    pub fn is_next(self) -> bool {
        self == Self::KarmadaNext
    }

    /// The profile, or why this build cannot follow it.
    pub fn available(self) -> Result<Self, ProfileError> {
        if self.compiled_in() {
            Ok(self)
        } else {
            Err(ProfileError::Unavailable(self))
        }
    }

    /// `operation` under this profile: an operation of the `karmada-next`
    /// profile is refused, with a message naming the profile, unless the
    /// profile is on.
    pub fn admit(
        self,
        operation: InterpreterOperation,
    ) -> Result<InterpreterOperation, ProfileError> {
        if operation.is_next() && !self.is_next() {
            return Err(ProfileError::Off {
                what: format!("operation {operation}"),
            });
        }
        Ok(operation)
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Profile {
    type Err = ProfileError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "karmada" => Ok(Self::Karmada),
            NEXT => Ok(Self::KarmadaNext),
            other => Err(ProfileError::Unknown(other.to_owned())),
        }
    }
}

const NEXT: &str = "karmada-next";

/// Why something of a profile cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProfileError {
    /// It belongs to the `karmada-next` profile, which is compiled in but off.
    #[error("{what} belongs to the karmada-next profile (Karmada's open pull requests #7830, #7846 and #7537, not released yet), which is off: switch it on (the CLI's `--profile karmada-next`)")]
    Off {
        /// What was asked for, e.g. `operation ReviseComponents`.
        what: String,
    },
    /// It belongs to the `karmada-next` profile, which this build does not include.
    #[error("{what} {}", crate::api::NOT_COMPILED_IN)]
    NotCompiledIn {
        /// What was asked for.
        what: String,
    },
    /// The profile itself is not included in this build.
    #[error("the {0} profile (Karmada's open pull requests #7830, #7846 and #7537, not released yet) is not included in this build: build with the cargo feature `karmada-next`")]
    Unavailable(Profile),
    /// Not a profile's name.
    #[error("unknown profile {0:?}: use karmada or karmada-next")]
    Unknown(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in [Profile::Karmada, Profile::KarmadaNext] {
            assert_eq!(p.as_str().parse::<Profile>(), Ok(p));
        }
        assert!(matches!(
            "next".parse::<Profile>(),
            Err(ProfileError::Unknown(_))
        ));
    }

    #[test]
    fn revise_components_is_refused_naming_the_profile_unless_it_is_on() {
        let e = "ReviseComponents".parse::<InterpreterOperation>();
        #[cfg(not(feature = "karmada-next"))]
        {
            let msg = e.unwrap_err().to_string();
            assert!(msg.contains("karmada-next profile"), "{msg}");
            assert!(msg.contains("cargo feature"), "{msg}");
            assert!(Profile::KarmadaNext.available().is_err());
        }
        #[cfg(feature = "karmada-next")]
        {
            let op = e.unwrap();
            let msg = Profile::Karmada.admit(op).unwrap_err().to_string();
            assert!(
                msg.starts_with("operation ReviseComponents belongs to the karmada-next profile"),
                "{msg}"
            );
            assert!(msg.contains("--profile karmada-next"), "{msg}");
            assert_eq!(Profile::KarmadaNext.admit(op), Ok(op));
        }
        let retain = InterpreterOperation::Retain;
        assert_eq!(Profile::Karmada.admit(retain), Ok(retain));
    }
}
