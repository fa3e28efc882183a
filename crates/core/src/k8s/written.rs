//! [`Written`]: what an edit in place wrote, as the JSON Patch operations
//! it applied (without their values: those are in the edited object), so a
//! webhook can send the patch the edit produced instead of diffing the
//! object before and after.

use std::borrow::Cow;

use serde_json::Value;
use smallvec::SmallVec;

use super::error::Result;
use super::field;

/// A JSON Patch operation an edit applied ([RFC 6902] `add`, `replace` or
/// `remove`).
///
/// [RFC 6902]: https://www.rfc-editor.org/rfc/rfc6902
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteOp {
    /// A member that was absent was written (its parents existed).
    Add,
    /// A member that was present was overwritten.
    Replace,
    /// A member that was present was removed.
    Remove,
}

impl WriteOp {
    /// The operation's name in a JSON Patch (`add`, `replace`, `remove`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Add => "add",
            Self::Replace => "replace",
            Self::Remove => "remove",
        }
    }
}

/// One write of an edit: the operation and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Write {
    /// What was done there.
    pub op: WriteOp,
    /// Where, kept as the writer gave it: a handler's fixed path costs no
    /// allocation until a pointer is asked for.
    path: Path,
}

/// A written member's place.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Path {
    /// Member names, outermost first, fixed in the writer's code.
    Static(&'static [&'static str]),
    /// A JSON Pointer built from names known only at run time.
    Pointer(String),
}

impl Write {
    /// The JSON Pointer ([RFC 6901]) of the member written.
    ///
    /// [RFC 6901]: https://www.rfc-editor.org/rfc/rfc6901
    pub fn pointer(&self) -> Cow<'_, str> {
        match &self.path {
            Path::Static(names) => Cow::Owned(pointer(names)),
            Path::Pointer(p) => Cow::Borrowed(p),
        }
    }
}

/// What an edit in place wrote ([`Chain::edit_in_place`](crate::interpreter::Chain::edit_in_place)).
///
/// A layer that edits the object field by field (the native one) records
/// each write as it makes it; applying the writes in order, with each
/// written member's value taken from the edited object, turns the object
/// the edit started from into the edited one. A layer that computes a new
/// object (a Lua script, another webhook) answers [`Written::unknown`]:
/// then only a comparison of the two objects tells what changed.
///
/// ```
/// use karmada_interpreter::interpreter::{Written, WriteOp};
/// use serde_json::json;
///
/// let mut object = json!({"spec": {"replicas": 1}});
/// let mut written = Written::new();
/// written.set(&mut object, &["spec", "replicas"], json!(3)).unwrap();
/// written.set(&mut object, &["status", "phase"], json!("Running")).unwrap();
/// let writes = written.writes().unwrap();
/// assert_eq!((writes[0].op, &*writes[0].pointer()), (WriteOp::Replace, "/spec/replicas"));
/// // `status` was absent: the write that created it adds it whole.
/// assert_eq!((writes[1].op, &*writes[1].pointer()), (WriteOp::Add, "/status"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Written {
    /// `None`: the layer does not know what it changed. Most edits write one
    /// or two members: those are held inline, so recording them allocates
    /// nothing.
    writes: Option<SmallVec<[Write; 2]>>,
}

impl Written {
    /// Nothing written yet, every write to be recorded.
    pub fn new() -> Self {
        Self {
            writes: Some(SmallVec::new()),
        }
    }

    /// The layer does not know what it changed.
    pub fn unknown() -> Self {
        Self { writes: None }
    }

    /// The writes in the order they were made; `None` when unknown.
    pub fn writes(&self) -> Option<&[Write]> {
        self.writes.as_deref()
    }

    /// From now on unknown: the edit wrote something it cannot say as
    /// member writes (a whole new object, say).
    pub fn forget(&mut self) {
        self.writes = None;
    }

    /// Records `op` at `path` (member names, outermost first).
    pub fn note(&mut self, op: WriteOp, path: &[&str]) {
        self.push(op, || Path::Pointer(pointer(path)));
    }

    /// Records `op` at a path fixed in the writer's code (no allocation
    /// for the path).
    fn note_static(&mut self, op: WriteOp, path: &'static [&'static str]) {
        self.push(op, || Path::Static(path));
    }

    fn push(&mut self, op: WriteOp, path: impl FnOnce() -> Path) {
        if let Some(writes) = &mut self.writes {
            writes.push(Write { op, path: path() });
        }
    }

    /// [`field::set`] and its record: a `replace` of the member when it was
    /// there, else an `add` of the outermost member the write created.
    pub fn set(
        &mut self,
        object: &mut Value,
        path: &'static [&'static str],
        value: Value,
    ) -> Result<()> {
        // Every parent there as an object (the common case): one walk down,
        // the leaf's presence read where it is written.
        if let Some((leaf, parents)) = path.split_last() {
            if let Some(map) = field::at_path_mut(object, parents).and_then(Value::as_object_mut) {
                let op = if field::put_member(map, leaf, value) {
                    WriteOp::Replace
                } else {
                    WriteOp::Add
                };
                self.note_static(op, path);
                return Ok(());
            }
        }
        let present = present_prefix(object, path);
        field::set(object, path, value)?;
        if present == path.len() {
            self.note_static(WriteOp::Replace, path);
        } else {
            self.note_static(WriteOp::Add, &path[..=present]);
        }
        Ok(())
    }

    /// [`field::replace_int`] and its record (a `replace` when it wrote).
    pub fn replace_int(
        &mut self,
        object: &mut Value,
        path: &'static [&'static str],
        value: i64,
    ) -> Result<bool> {
        let wrote = field::replace_int(object, path, value)?;
        if wrote {
            self.note_static(WriteOp::Replace, path);
        }
        Ok(wrote)
    }
}

/// How many leading members of `path` are present in `object`.
fn present_prefix(object: &Value, path: &[&str]) -> usize {
    let mut current = object;
    for (i, key) in path.iter().enumerate() {
        match current.as_object().and_then(|m| field::member(m, key)) {
            Some(next) => current = next,
            None => return i,
        }
    }
    path.len()
}

/// The JSON Pointer of `path` (`~` and `/` escaped as RFC 6901 says).
fn pointer(path: &[&str]) -> String {
    let mut out = String::new();
    for key in path {
        out.push('/');
        for c in key.chars() {
            match c {
                '~' => out.push_str("~0"),
                '/' => out.push_str("~1"),
                c => out.push(c),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pointers_escape_and_unknown_records_nothing() {
        assert_eq!(pointer(&["metadata", "a/b~c"]), "/metadata/a~1b~0c");
        let mut unknown = Written::unknown();
        unknown.note(WriteOp::Add, &["spec"]);
        assert_eq!(unknown.writes(), None);
    }

    #[test]
    fn a_failed_write_records_nothing() {
        let mut object = json!({"spec": "not an object"});
        let mut written = Written::new();
        assert!(written.set(&mut object, &["spec", "x"], json!(1)).is_err());
        assert!(!written
            .replace_int(&mut object, &["status", "n"], 2)
            .unwrap());
        assert_eq!(written.writes(), Some(&[][..]));
    }
}
