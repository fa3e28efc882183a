//! Field paths built on the stack while walking an object, rendered only
//! when an error needs them.

use std::fmt;

/// A field path built on the stack and rendered only when an error needs it
/// (`spec.template.spec.containers[0].resources.requests.cpu`).
#[derive(Clone, Copy)]
pub(crate) struct FieldPath<'a> {
    parent: Option<&'a FieldPath<'a>>,
    segment: Segment<'a>,
}

#[derive(Clone, Copy)]
enum Segment<'a> {
    Raw(&'a str),
    /// `statusItems[index] (cluster "name").status`.
    Item(usize, &'a str),
    Key(&'a str),
    Index(usize),
}

impl<'a> FieldPath<'a> {
    /// A path starting with `prefix` (already dotted).
    pub(crate) fn root(prefix: &'a str) -> Self {
        Self {
            parent: None,
            segment: Segment::Raw(prefix),
        }
    }

    /// The status of `statusItems[index]`, from cluster `cluster`.
    pub(crate) fn item(index: usize, cluster: &'a str) -> Self {
        Self {
            parent: None,
            segment: Segment::Item(index, cluster),
        }
    }

    /// `self.key`.
    pub(crate) fn key(&'a self, key: &'a str) -> FieldPath<'a> {
        FieldPath {
            parent: Some(self),
            segment: Segment::Key(key),
        }
    }

    /// `self[index]`.
    pub(crate) fn index(&'a self, index: usize) -> FieldPath<'a> {
        FieldPath {
            parent: Some(self),
            segment: Segment::Index(index),
        }
    }
}

impl fmt::Display for FieldPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(parent) = self.parent {
            parent.fmt(f)?;
        }
        let empty_parent = match self.parent {
            None => true,
            Some(p) => matches!(p.segment, Segment::Raw("")) && p.parent.is_none(),
        };
        match self.segment {
            Segment::Raw(s) => f.write_str(s),
            Segment::Item(i, cluster) => write!(f, "statusItems[{i}] (cluster {cluster:?}).status"),
            Segment::Key(k) if empty_parent => f.write_str(k),
            Segment::Key(k) => write!(f, ".{k}"),
            Segment::Index(i) => write!(f, "[{i}]"),
        }
    }
}
