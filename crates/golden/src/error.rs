//! What can go wrong running golden cases (as opposed to a case failing).

use std::path::PathBuf;

/// A golden-case run could not be carried out: a case file that cannot be
/// read or parsed, a search that found no case, a chain that cannot be
/// built. A case whose answer differs from its expectation is no error: it
/// is a failing case in the [`Report`](crate::Report).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GoldenError {
    /// A golden case file could not be read or parsed.
    #[error("{}: {message}", file.display())]
    CaseFile {
        /// The case file.
        file: PathBuf,
        /// What is wrong, naming the case (document) when known.
        message: String,
    },

    /// A golden-case run found no case: it would check nothing.
    #[error("no golden case found in {}: case files are `*.yaml`/`*.yml` files (other than `customizations.yaml`) holding documents with an `operation`", searched.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "))]
    NoCases {
        /// The files and directories searched.
        searched: Vec<PathBuf>,
    },

    /// A file or directory could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },

    /// The chain the cases run against could not be built (an invalid
    /// customization or webhook configuration).
    #[error(transparent)]
    Chain(#[from] karmada_interpreter::Error),
}

/// `Result` with [`GoldenError`].
pub type Result<T, E = GoldenError> = std::result::Result<T, E>;
