//! How a script fails: [`ScriptError`], the text of a Lua error as Karmada
//! words it, the host failures gopher-lua reports as panics, and the
//! deadline's message. The engine, the sandbox and its host libraries
//! (`kube`, the pattern matcher) all report through these, so they sit
//! below all of them.

/// The message of the deadline error.
pub const DEADLINE_MESSAGE: &str = "context deadline exceeded";

/// How a script failed. The variants tell the kinds of failure apart by
/// type; each carries the Lua message as Karmada words it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ScriptError {
    /// The script does not compile.
    #[error("{0}")]
    Compile(String),
    /// The run outlived its deadline ([`crate::Limits::timeout`]).
    #[error("{0}")]
    Timeout(String),
    /// The Lua state reached its memory limit ([`crate::Limits::memory`]).
    #[error("{0}")]
    MemoryLimit(String),
    /// The script used something the sandbox refuses: a disabled function
    /// (`os.exit`, `string.rep`, `loadstring`, ...), a module other than
    /// `kube`, a write to a read-only library, a binary chunk.
    #[error("{0}")]
    Refused(String),
    /// Any other Lua error (including `not found function`, stack
    /// exhaustion and results of the wrong shape).
    #[error("{0}")]
    Runtime(String),
}

impl ScriptError {
    /// The message.
    pub fn message(&self) -> &str {
        match self {
            Self::Compile(m)
            | Self::Timeout(m)
            | Self::MemoryLimit(m)
            | Self::Refused(m)
            | Self::Runtime(m) => m,
        }
    }

    /// The same kind of failure with another message.
    pub(crate) fn with_message(&self, message: String) -> Self {
        match self {
            Self::Compile(_) => Self::Compile(message),
            Self::Timeout(_) => Self::Timeout(message),
            Self::MemoryLimit(_) => Self::MemoryLimit(message),
            Self::Refused(_) => Self::Refused(message),
            Self::Runtime(_) => Self::Runtime(message),
        }
    }
}

/// Whether `e` is (or wraps) the Lua state's out-of-memory error, or a
/// script re-raised that error's text after catching it.
pub(crate) fn is_memory_error(e: &mlua::Error) -> bool {
    match e {
        mlua::Error::MemoryError(_) => true,
        mlua::Error::CallbackError { cause, .. } | mlua::Error::WithContext { cause, .. } => {
            is_memory_error(cause)
        }
        other => lua_message(other).contains("not enough memory"),
    }
}

/// The text of an mlua error: the Lua message without mlua's decorations
/// and without the stack traceback.
pub fn lua_message(e: &mlua::Error) -> String {
    let raw = match e {
        mlua::Error::CallbackError { cause, traceback } => {
            let mut message = lua_message(cause);
            if called_from_host(traceback) {
                message = anonymous_argument_error(message);
            }
            // A host helper's error carries the position of the script line
            // that called it, as gopher-lua's do (host panics excepted).
            return match (cause.as_ref(), caller_line(traceback)) {
                (mlua::Error::RuntimeError(_), Some(line)) if !message.starts_with("<string>:") => {
                    format!("<string>:{line}: {message}")
                }
                _ => message,
            };
        }
        mlua::Error::WithContext { cause, .. } => return lua_message(cause),
        mlua::Error::RuntimeError(m) => m.clone(),
        mlua::Error::SyntaxError { message, .. } => message.clone(),
        mlua::Error::MemoryError(_) => {
            "not enough memory (memory limit of the Lua state reached)".to_owned()
        }
        mlua::Error::StackError => "stack overflow".to_owned(),
        other => other.to_string(),
    };
    match raw.find("\nstack traceback:") {
        Some(i) => raw[..i].to_owned(),
        None => raw,
    }
}

/// The script line a traceback passes through first (scripts are chunks
/// named `<string>`; the prelude's frames are skipped).
fn caller_line(traceback: &str) -> Option<u32> {
    traceback.lines().find_map(|frame| {
        let rest = frame.trim_start().strip_prefix("<string>:")?;
        rest.split(':').next()?.parse().ok()
    })
}

/// Whether the host helper that failed was called straight from another
/// host function (`pcall(string.sub)`, a `table.sort` comparator): the
/// traceback's first frame is the helper itself, the prelude's frames stand
/// for it too (its functions are gopher-lua's Go functions), and the next
/// frame is a C function's, not a script line.
fn called_from_host(traceback: &str) -> bool {
    traceback
        .lines()
        .skip_while(|line| !line.starts_with("stack traceback:"))
        .skip(2)
        .map(str::trim_start)
        .find(|frame| !frame.starts_with("prelude:"))
        .is_some_and(|frame| frame.starts_with("[C]:"))
}

/// gopher-lua names a Go function called from another Go function
/// `(anonymous)` in its argument errors (`bad argument #1 to (anonymous)
/// (string expected, got nil)`): it finds names in the calling script's
/// code only.
fn anonymous_argument_error(message: String) -> String {
    let Some(rest) = message.strip_prefix("bad argument #") else {
        return message;
    };
    let Some(to) = rest.find(" to ") else {
        return message;
    };
    let name_at = "bad argument #".len() + to + " to ".len();
    match message[name_at..].find(" (") {
        Some(end) => format!(
            "{}(anonymous){}",
            &message[..name_at],
            &message[name_at + end..]
        ),
        None => message,
    }
}

/// A host failure gopher-lua reports as a Go panic: its text, without the
/// position prefix of ordinary helper errors.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct HostPanic(pub(crate) String);
