//! The command's own error: every failure that makes a command unable to run
//! (exit code 2), each kind typed and carrying its cause.

use std::path::PathBuf;

use karmada_interpreter::yaml;

/// Why a command could not run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Interpreting, or configuring the chain's layers, failed.
    #[error(transparent)]
    Interpret(#[from] karmada_interpreter::Error),

    /// Golden cases could not be run (a case file that does not parse, no
    /// case where the command searched).
    #[error(transparent)]
    Golden(#[from] karmada_interpreter_golden::GoldenError),

    /// Following a cluster failed (kubeconfig, API server, first sync).
    #[error(transparent)]
    Cluster(#[from] karmada_interpreter_cluster::ClusterError),

    /// Static analysis could not run (`lint`, `test --coverage`).
    #[error(transparent)]
    Lint(#[from] karmada_interpreter::lint::LintError),

    /// A folder of health checks could not be loaded.
    #[error(transparent)]
    Health(#[from] karmada_interpreter::health::HealthError),
    /// A CEL health rule file (`--health-exprs`) that does not load, or a
    /// rule that fails on an object.
    #[error(transparent)]
    HealthExprs(#[from] karmada_interpreter::health::CelError),

    /// A command-line input (`-f`, `--desired-file`, ...) could not be
    /// found, read or decoded.
    #[error("{what}: {source}")]
    Load {
        /// What was being loaded, e.g. `fail to get desired object`.
        what: String,
        /// Why it failed.
        #[source]
        source: LoadError,
    },

    /// The command found nothing to check where it searched: it would pass
    /// while checking nothing.
    #[error("no {what} found in {searched}{hint}")]
    NothingFound {
        /// What was looked for (`ResourceInterpreterCustomization document`, ...).
        what: String,
        /// The inputs searched, comma-separated.
        searched: String,
        /// How to give the command something to check (`: ...`), or empty.
        hint: String,
    },

    /// The flags do not make a command that can run (a missing or
    /// contradictory flag, a value out of range).
    #[error("{what}: {message}")]
    Usage {
        /// The flag or command at fault (`--operation`, `serve`).
        what: String,
        /// What is wrong and how to mend it.
        message: String,
    },

    /// A file could not be written or read.
    #[error("{}: {source}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },

    /// `serve` could not listen on its address.
    #[error("cannot listen on {address}: {source}")]
    Listen {
        /// The address asked for.
        address: std::net::SocketAddr,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },

    /// The runtime, a server or another part of the command could not
    /// start.
    #[error("{what}: {source}")]
    Start {
        /// What could not start.
        what: &'static str,
        /// Why.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },

    /// Serving failed after it started.
    #[error("serving stopped: {0}")]
    Serve(#[source] karmada_interpreter::webhook::WebhookError),

    /// A result could not be encoded for output.
    #[error("cannot encode the {what}: {message}")]
    Encode {
        /// What was being encoded.
        what: String,
        /// The encoder's message.
        message: String,
    },
}

impl From<karmada_interpreter::interpreter::InputError> for Error {
    fn from(e: karmada_interpreter::interpreter::InputError) -> Self {
        Error::Interpret(e.into())
    }
}

/// `Result` with the command's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A [`Error::Usage`] error about `what` (a flag or a command).
    pub fn usage(what: impl Into<String>, message: impl std::fmt::Display) -> Self {
        Error::Usage {
            what: what.into(),
            message: message.to_string(),
        }
    }
}

/// Why a command-line input could not be found or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// Neither a file, a directory, nor a pattern matching anything.
    #[error("the path \"{}\" does not exist", path.display())]
    NotFound {
        /// The path as given.
        path: PathBuf,
    },
    /// A glob pattern that cannot be parsed.
    #[error("pattern \"{pattern}\" is not valid: {source}")]
    Pattern {
        /// The pattern as given.
        pattern: String,
        /// The pattern parser's error.
        #[source]
        source: glob::PatternError,
    },
    /// An `http://` or `https://` input: not fetched by this tool.
    #[error("{url}: URLs are not supported; download the file and give its path (or `-` and pipe it in)")]
    Url {
        /// The URL as given.
        url: String,
    },
    /// `-` given to more than one input: standard input can be read once.
    #[error("standard input can be read once, but both {first} and {second} name it (`-`)")]
    StdinTwice {
        /// The flag that read standard input first.
        first: String,
        /// The flag that asked for it again.
        second: String,
    },
    /// A file or directory that could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// Standard input could not be read.
    #[error("STDIN: {0}")]
    Stdin(#[source] std::io::Error),
    /// A document that is not valid YAML or JSON.
    #[error("error parsing {source_name}: {source}")]
    Yaml {
        /// The file (or `STDIN`).
        source_name: String,
        /// The parser's error, with the document's position.
        #[source]
        source: yaml::YamlError,
    },
    /// A document that does not decode as what the input holds.
    #[error("error parsing {source_name}: document {index}: {detail}")]
    Decode {
        /// The file (or `STDIN`).
        source_name: String,
        /// 1-based position of the document in its stream.
        index: usize,
        /// What does not decode.
        detail: String,
    },
    /// An input meant to hold one object holds none.
    #[error("no object found in {sources}, expect one")]
    NoObject {
        /// The sources read, comma-separated.
        sources: String,
    },
    /// An input meant to hold one object holds several.
    #[error("get {count} objects, expect one at most")]
    ManyObjects {
        /// How many objects the input holds.
        count: usize,
    },
}
