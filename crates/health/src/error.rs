//! What can go wrong loading or running the health layers.

use std::path::PathBuf;

/// A health layer's own failure. Loading a folder of checks fails with
/// [`HealthError::NoChecks`] or [`HealthError::Io`]; a check that cannot tell
/// whether an object is healthy answers [`HealthError::Unknown`], carried by
/// the chain's `Error::Layer` as its source.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HealthError {
    /// The folder holds no `<group>/<Kind>/health.lua`.
    #[error("{}: no Argo CD health check found: expected <group>/<Kind>/{} files", root.display(), crate::HEALTH_SCRIPT)]
    NoChecks {
        /// The folder searched.
        root: PathBuf,
    },
    /// A folder or a check could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The folder or file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The check cannot tell whether the object is healthy (Argo CD's
    /// `Unknown`, or no status at all): Karmada records such an object's
    /// health as Unknown.
    #[error("{reason}")]
    Unknown {
        /// What the check answered.
        reason: String,
    },
}
