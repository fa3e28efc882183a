//! CEL health rules as a layer: Flux kustomize-controller's
//! `.spec.healthCheckExprs` entries, read unchanged, answering
//! `InterpretHealth` (Flux RFC-0009; `docs/health.md` of the repository).
//!
//! A rule file is a YAML list of entries `{apiVersion, kind, current,
//! inProgress, failed}`, as Flux's cheatsheet publishes them. They are
//! matched as Flux's `runtime/cel` status reader matches them: by group and
//! kind, the version of `apiVersion` ignored (so `example.com/*` and
//! `example.com/v1` mean the same group); an entry without `kind` serves
//! every kind of its group, and an entry naming the kind wins over it; two
//! entries for the same group and kind are an error.
//!
//! An object is judged as Flux's `StatusEvaluator` judges it: an integer
//! `status.observedGeneration` that differs from `metadata.generation` is
//! in progress without evaluating anything; then `inProgress`, `failed` and
//! `current` are evaluated in that order (the ones given), the first that is
//! `true` deciding; none true is in progress. Current is healthy, in
//! progress and failed are not ([`Verdict`], which keeps what decided).
//!
//! Each expression is a CEL boolean over the object, its top-level fields
//! (`metadata`, `spec`, `status`, ...) being the variables. It runs on the
//! `cel` crate (the version kube-rs's `kube-cel` is built on, with
//! `kube-cel`'s Kubernetes functions registered) with optional syntax
//! (`.?field`, `orValue`) on. The sandbox: CEL has no I/O and no unbounded
//! loop (comprehensions run over the object's finite lists); an expression
//! is at most [`MAX_EXPRESSION_BYTES`] long, nests at most [`MAX_NESTING`]
//! deep for the parser and [`MAX_DEPTH`] deep as a tree, and parsing and
//! evaluating run with a stack of known size (never overflowing the
//! caller's); the `cel` crate has no cost limit or deadline of its own, so
//! none is enforced. A rule that does not parse, or
//! calls a function or macro the crate does not have, fails when the rules
//! are loaded with a [`CelError`] naming the entry, the field and the
//! expression; an expression that fails on an object (a field it reads is
//! missing, a result that is not a boolean) is that expression's error,
//! never a panic.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use kube_cel::cel;
use kube_cel::KubeCelExt;
use serde_json::Value;

use karmada_interpreter_core::api::InterpreterOperation;
use karmada_interpreter_core::interpreter::{
    describe, CatalogEntry, Layer, LayerKind, Outcome, Request, Route, Source, TypeRef,
};
use karmada_interpreter_core::{Error, Result};
use karmada_interpreter_declarative::Coverage;

use crate::CEL;

/// The CEL parser's nesting limit (the `cel` crate's own default, set
/// explicitly): an expression nested deeper fails to load.
pub const MAX_NESTING: u16 = 96;

/// The longest expression accepted, in bytes.
pub const MAX_EXPRESSION_BYTES: usize = 10_000;

/// The deepest expression tree accepted (a chain `a && b && ...` of 200
/// terms is 200 deep): evaluation recurses once per level, and runs on
/// whatever thread asks (a server's worker threads have small stacks).
pub const MAX_DEPTH: usize = 128;

/// The stack the parser runs on: the `cel` crate's ANTLR parser recurses
/// several frames per nesting level, and a deeply nested expression must
/// meet the nesting limit's error, not overflow the caller's stack.
const PARSER_STACK_BYTES: usize = 64 << 20;

/// The stack an evaluation has at least: one of [`MAX_DEPTH`] levels takes
/// under 3 MiB in a debug build. A thread with less left (a server's 2 MiB
/// worker) evaluates on a stack of [`EVAL_STACK_BYTES`] made for the call;
/// a main thread's 8 MiB evaluates in place.
pub(crate) const EVAL_RED_ZONE_BYTES: usize = 4 << 20;

/// The size of a stack made for an evaluation.
pub(crate) const EVAL_STACK_BYTES: usize = 8 << 20;

/// One entry of a `healthCheckExprs` list, as Flux's `CustomHealthCheck`.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HealthExpr {
    /// The API version of the kind; only its group is used.
    pub api_version: String,
    /// The kind; empty for every kind of the group.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// When the object has reached its desired state (required).
    pub current: String,
    /// When the object is still being reconciled (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_progress: Option<String>,
    /// When the object failed to reconcile (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
}

/// Which expression of an entry: Flux evaluates them in [`Field::ORDER`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Field {
    /// `inProgress`.
    InProgress,
    /// `failed`.
    Failed,
    /// `current`.
    Current,
}

impl Field {
    /// Flux's evaluation order (RFC-0009).
    pub const ORDER: [Field; 3] = [Field::InProgress, Field::Failed, Field::Current];

    /// The field's name in the file.
    pub fn as_str(self) -> &'static str {
        match self {
            Field::InProgress => "inProgress",
            Field::Failed => "failed",
            Field::Current => "current",
        }
    }

    /// The kstatus status the field stands for.
    pub fn status(self) -> &'static str {
        match self {
            Field::InProgress => "InProgress",
            Field::Failed => "Failed",
            Field::Current => "Current",
        }
    }
}

impl std::fmt::Display for Field {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for Field {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// What decided a [`Verdict`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase", tag = "by")]
pub enum Decision {
    /// An expression was true.
    Expression {
        /// Which one.
        field: Field,
        /// Its text.
        expression: String,
    },
    /// `status.observedGeneration` differs from `metadata.generation`
    /// (checked before any expression, as Flux does).
    ObservedGeneration {
        /// `status.observedGeneration`.
        observed: i64,
        /// `metadata.generation`.
        generation: i64,
    },
    /// No expression was true: in progress, as Flux reads it.
    NoneTrue,
}

impl std::fmt::Display for Decision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Decision::Expression { field, expression } => write!(f, "{field}: {expression}"),
            Decision::ObservedGeneration {
                observed,
                generation,
            } => write!(
                f,
                "status.observedGeneration {observed} differs from metadata.generation {generation}"
            ),
            Decision::NoneTrue => f.write_str("no expression is true"),
        }
    }
}

/// A CEL rule's answer for one object.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    /// The entry's index in the file.
    pub entry: usize,
    /// The entry's printed name ([`CelHealth::entry_name`]).
    pub rule: String,
    /// `Current`, `InProgress` or `Failed` (kstatus' words, as Flux).
    pub status: &'static str,
    /// Karmada's boolean: `Current` is healthy.
    pub healthy: bool,
    /// What decided.
    pub decided_by: Decision,
}

/// Where a rule's text sits in its file (1-based), when it was read from
/// YAML text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Place {
    /// Line.
    pub line: usize,
    /// Column.
    pub column: usize,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// What can go wrong loading or running CEL health rules. Every error of a
/// rule names the entry (index and kind), the field and the expression.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CelError {
    /// The rule file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// An error of the rules of file `path`, at its place in the file when
    /// known (`FILE:LINE:COL: ...`).
    #[error("{}:{}{source}", path.display(), source.place().map(|p| format!("{p}: ")).unwrap_or_else(|| " ".into()))]
    InFile {
        /// The rule file.
        path: PathBuf,
        /// The error.
        #[source]
        source: Box<CelError>,
    },
    /// The file is not a YAML list of `healthCheckExprs` entries.
    #[error("{message}")]
    Format {
        /// Where, when known.
        place: Option<Place>,
        /// What is wrong.
        message: String,
    },
    /// An entry has no (or an empty) `current`, `apiVersion` or `kind`
    /// that is not a string.
    #[error("entry {index} ({kind}): {message}")]
    Entry {
        /// The entry's index.
        index: usize,
        /// `apiVersion Kind` of the entry.
        kind: String,
        /// What is wrong.
        message: String,
        /// Where the entry starts, when known.
        place: Option<Place>,
    },
    /// Two entries for the same group and kind (Flux refuses them too).
    #[error("entry {index} ({kind}): a second rule for group/kind {group_kind} (the first is entry {first})")]
    Duplicate {
        /// The second entry's index.
        index: usize,
        /// `apiVersion Kind` of the entry.
        kind: String,
        /// The group/kind.
        group_kind: String,
        /// The first entry's index.
        first: usize,
        /// Where the second entry starts, when known.
        place: Option<Place>,
    },
    /// An expression calls functions or macros the `cel` crate does not
    /// provide.
    #[error("entry {index} ({kind}), {field}: the cel crate has no function or macro {}: `{expression}`",
            functions.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", "))]
    Missing {
        /// The entry's index.
        index: usize,
        /// `apiVersion Kind` of the entry.
        kind: String,
        /// Which expression.
        field: Field,
        /// Its text.
        expression: String,
        /// The functions or macros missing, sorted.
        functions: Vec<String>,
        /// Where the expression is in the file, when known.
        place: Option<Place>,
    },
    /// An expression does not parse.
    #[error("entry {index} ({kind}), {field}: {message}: `{expression}`")]
    Compile {
        /// The entry's index.
        index: usize,
        /// `apiVersion Kind` of the entry.
        kind: String,
        /// Which expression.
        field: Field,
        /// Its text.
        expression: String,
        /// The parser's message, or the function or macro missing.
        message: String,
        /// Where the error is in the file, when known.
        place: Option<Place>,
    },
    /// An expression failed on an object: a field it reads is missing, a
    /// function refused its arguments, or it is not a boolean.
    #[error("entry {index} ({kind}), {field}: {message}: `{expression}`")]
    Eval {
        /// The entry's index.
        index: usize,
        /// `apiVersion Kind` of the entry.
        kind: String,
        /// Which expression.
        field: Field,
        /// Its text.
        expression: String,
        /// What went wrong.
        message: String,
    },
}

impl CelError {
    /// Where in the rule file the error is, when the rules were read from
    /// YAML text and the error is about one of them.
    pub fn place(&self) -> Option<Place> {
        match self {
            CelError::Format { place, .. }
            | CelError::Entry { place, .. }
            | CelError::Duplicate { place, .. }
            | CelError::Compile { place, .. }
            | CelError::Missing { place, .. } => *place,
            CelError::InFile { source, .. } => source.place(),
            CelError::Io { .. } | CelError::Eval { .. } => None,
        }
    }
}

/// A compiled expression.
pub(crate) struct Compiled {
    pub(crate) text: String,
    /// The file line of its first character, when read from YAML text.
    pub(crate) line: Option<usize>,
    pub(crate) expression: cel::parser::Expression,
    /// The object's top-level fields it reads (only those are converted).
    pub(crate) variables: Vec<String>,
}

/// One compiled entry.
struct Entry {
    rule: HealthExpr,
    group: String,
    /// In Flux's order; the fields not given are left out.
    expressions: Vec<(Field, Compiled)>,
}

/// Rules to load: a file, or entries already parsed (the builder's
/// `health_exprs` takes either).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HealthExprs {
    /// A YAML file holding a `healthCheckExprs` list.
    File(PathBuf),
    /// Parsed entries.
    Rules(Vec<HealthExpr>),
}

impl From<PathBuf> for HealthExprs {
    fn from(path: PathBuf) -> Self {
        HealthExprs::File(path)
    }
}

impl From<&Path> for HealthExprs {
    fn from(path: &Path) -> Self {
        HealthExprs::File(path.to_owned())
    }
}

impl From<Vec<HealthExpr>> for HealthExprs {
    fn from(rules: Vec<HealthExpr>) -> Self {
        HealthExprs::Rules(rules)
    }
}

impl HealthExprs {
    /// Loads and compiles the rules.
    pub fn load(&self) -> std::result::Result<CelHealth, CelError> {
        match self {
            HealthExprs::File(path) => CelHealth::from_file(path),
            HealthExprs::Rules(rules) => CelHealth::new(rules.clone()),
        }
    }
}

/// The CEL health layer over one list of rules.
pub struct CelHealth {
    entries: Vec<Entry>,
    /// Entry index by group, then kind (empty for a group-only entry):
    /// looked up from borrowed strings, without allocating.
    by_group: HashMap<String, HashMap<String, usize>>,
    /// The `cel` crate's functions and kube-cel's, shared by every call
    /// (each call adds the object's fields in an inner scope).
    context: cel::Context<'static>,
    /// The YAML text the rules were read from, when they were.
    text: Option<Arc<str>>,
    /// Where the lines of the expressions evaluated are noted, by `text`
    /// (`test --coverage`; [`CelHealth::with_coverage`]).
    coverage: Option<Coverage>,
}

/// One expression of the rules, as [`CelHealth::expressions`] lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpressionSite<'a> {
    /// The entry's index.
    pub entry: usize,
    /// Which expression.
    pub field: Field,
    /// Its text.
    pub text: &'a str,
    /// The file line of its first character, when the rules were read from
    /// YAML text.
    pub line: Option<usize>,
}

impl std::fmt::Debug for CelHealth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CelHealth")
            .field("rules", &self.rules().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// One entry read from YAML, with where its fields sit.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SpannedEntry {
    api_version: serde_saphyr::Spanned<String>,
    #[serde(default)]
    kind: Option<serde_saphyr::Spanned<String>>,
    #[serde(default)]
    current: Option<serde_saphyr::Spanned<String>>,
    #[serde(default)]
    in_progress: Option<serde_saphyr::Spanned<String>>,
    #[serde(default)]
    failed: Option<serde_saphyr::Spanned<String>>,
}

fn place_of(location: &serde_saphyr::Location) -> Place {
    Place {
        line: usize::try_from(location.line()).unwrap_or(usize::MAX),
        column: usize::try_from(location.column()).unwrap_or(usize::MAX),
    }
}

impl CelHealth {
    /// Reads and compiles the rules of the YAML file `path`.
    pub fn from_file(path: &Path) -> std::result::Result<Self, CelError> {
        let text = std::fs::read_to_string(path).map_err(|source| CelError::Io {
            path: path.to_owned(),
            source,
        })?;
        Self::from_yaml(&text).map_err(|source| CelError::InFile {
            path: path.to_owned(),
            source: Box::new(source),
        })
    }

    /// Compiles the rules of YAML `text`: a list of `healthCheckExprs`
    /// entries. Errors carry their place in the text ([`CelError::place`]).
    pub fn from_yaml(text: &str) -> std::result::Result<Self, CelError> {
        let spanned: Vec<serde_saphyr::Spanned<SpannedEntry>> = serde_saphyr::from_str(text)
            .map_err(|e| CelError::Format {
                place: e.location().as_ref().map(place_of),
                message: format!(
                    "not a list of healthCheckExprs entries (apiVersion, kind, current, inProgress, failed): {}",
                    first_line(&e.to_string())
                ),
            })?;
        let mut rules = Vec::with_capacity(spanned.len());
        let mut places = Vec::with_capacity(spanned.len());
        for entry in spanned {
            let start = place_of(&entry.referenced);
            let e = entry.value;
            let field_place = |s: &Option<serde_saphyr::Spanned<String>>| {
                s.as_ref()
                    .map(|s| scalar_place(text, place_of(&s.referenced)))
            };
            places.push(EntryPlaces {
                start,
                fields: [
                    field_place(&e.in_progress),
                    field_place(&e.failed),
                    field_place(&e.current),
                ],
            });
            rules.push(HealthExpr {
                api_version: e.api_version.value,
                kind: e.kind.map(|k| k.value).unwrap_or_default(),
                current: e.current.map(|c| c.value).unwrap_or_default(),
                in_progress: e.in_progress.map(|c| c.value),
                failed: e.failed.map(|c| c.value),
            });
        }
        let mut health = Self::compile(rules, &places)?;
        health.text = Some(Arc::from(text));
        Ok(health)
    }

    /// Compiles parsed entries.
    pub fn new(rules: Vec<HealthExpr>) -> std::result::Result<Self, CelError> {
        Self::compile(rules, &[])
    }

    fn compile(
        rules: Vec<HealthExpr>,
        places: &[EntryPlaces],
    ) -> std::result::Result<Self, CelError> {
        let mut context = cel::Context::default().with_all();
        context.add_function(OPTIONAL_SELECT, optional_select);
        let mut entries = Vec::with_capacity(rules.len());
        let mut by_group: HashMap<String, HashMap<String, usize>> = HashMap::new();
        for (index, rule) in rules.into_iter().enumerate() {
            let place = places.get(index);
            let kind = entry_kind(&rule);
            if rule.current.trim().is_empty() {
                return Err(CelError::Entry {
                    index,
                    kind,
                    message: "`current` is required (the expression of a healthy object)".into(),
                    place: place.map(|p| p.start),
                });
            }
            let group = group_of(&rule.api_version).to_owned();
            if let Some(&first) = by_group.get(&group).and_then(|k| k.get(&rule.kind)) {
                return Err(CelError::Duplicate {
                    index,
                    kind,
                    group_kind: format!(
                        "{}/{}",
                        group,
                        if rule.kind.is_empty() {
                            "*"
                        } else {
                            &rule.kind
                        }
                    ),
                    first,
                    place: place.map(|p| p.start),
                });
            }
            let mut expressions = Vec::new();
            for (slot, field) in Field::ORDER.into_iter().enumerate() {
                let text = match field {
                    Field::InProgress => rule.in_progress.as_deref(),
                    Field::Failed => rule.failed.as_deref(),
                    Field::Current => Some(rule.current.as_str()),
                };
                let Some(text) = text.filter(|t| !t.trim().is_empty()) else {
                    continue;
                };
                let at = place.and_then(|p| p.fields[slot]);
                let mut compiled =
                    compile_expression(text, &context).map_err(|failure| match failure {
                        Failure::Parse(message, pos) => CelError::Compile {
                            index,
                            kind: kind.clone(),
                            field,
                            expression: text.to_owned(),
                            message,
                            place: at.map(|at| match pos {
                                Some((line, column)) if line <= 1 => Place {
                                    line: at.line,
                                    column: at.column + column.saturating_sub(1),
                                },
                                _ => at,
                            }),
                        },
                        Failure::Missing(functions) => CelError::Missing {
                            index,
                            kind: kind.clone(),
                            field,
                            expression: text.to_owned(),
                            functions,
                            place: at,
                        },
                    })?;
                compiled.line = at.map(|at| at.line);
                expressions.push((field, compiled));
            }
            by_group
                .entry(group.clone())
                .or_default()
                .insert(rule.kind.clone(), index);
            entries.push(Entry {
                rule,
                group,
                expressions,
            });
        }
        Ok(Self {
            entries,
            by_group,
            context,
            text: None,
            coverage: None,
        })
    }

    /// The same rules, noting in `coverage` the file line of every
    /// expression evaluated (`test --coverage`), by the YAML text the rules
    /// were read from ([`Coverage::lines`] of [`CelHealth::text`]). Rules
    /// compiled from parsed entries have no lines and note nothing.
    pub fn with_coverage(self, coverage: Coverage) -> Self {
        Self {
            coverage: Some(coverage),
            ..self
        }
    }

    /// The YAML text the rules were read from, when they were.
    pub fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }

    /// Every expression, in file order (within an entry, Flux's order).
    pub fn expressions(&self) -> impl Iterator<Item = ExpressionSite<'_>> {
        self.entries.iter().enumerate().flat_map(|(entry, e)| {
            e.expressions
                .iter()
                .map(move |(field, compiled)| ExpressionSite {
                    entry,
                    field: *field,
                    text: &compiled.text,
                    line: compiled.line,
                })
        })
    }

    /// The rules, in file order.
    pub fn rules(&self) -> impl Iterator<Item = &HealthExpr> {
        self.entries.iter().map(|e| &e.rule)
    }

    /// How many rules there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there is no rule.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The printed name of entry `index`: `healthCheckExprs[i] apiVersion Kind`.
    pub fn entry_name(&self, index: usize) -> String {
        match self.entries.get(index) {
            Some(e) => format!("healthCheckExprs[{index}] {}", entry_kind(&e.rule)),
            None => format!("healthCheckExprs[{index}]"),
        }
    }

    /// The entry serving objects of type `ty`: the one naming its group and
    /// kind, else its group's entry without a kind.
    fn entry_of(&self, ty: TypeRef<'_>) -> Option<usize> {
        let kinds = self.by_group.get(ty.group)?;
        kinds.get(ty.kind).or_else(|| kinds.get("")).copied()
    }

    /// The verdict of the rule serving `object`'s kind, with what decided
    /// it; `Ok(None)` when no rule serves the kind.
    pub fn verdict(&self, object: &Value) -> std::result::Result<Option<Verdict>, CelError> {
        match self.entry_of(TypeRef::of(object)) {
            Some(index) => self.judge(index, object).map(Some),
            None => Ok(None),
        }
    }

    /// Judges `object` with entry `index` (Flux's `StatusEvaluator`).
    fn judge(&self, index: usize, object: &Value) -> std::result::Result<Verdict, CelError> {
        let entry = self.entries.get(index).ok_or_else(|| CelError::Entry {
            index,
            kind: String::new(),
            message: "no such entry".into(),
            place: None,
        })?;
        let verdict = |status: &'static str, decided_by| Verdict {
            entry: index,
            rule: self.entry_name(index),
            status,
            // The one table (`crate::meaning`): only Current is healthy.
            healthy: crate::meaning::from_kstatus(status) == Some(true),
            decided_by,
        };
        let observed = object
            .pointer("/status/observedGeneration")
            .and_then(Value::as_i64);
        let generation = object
            .pointer("/metadata/generation")
            .and_then(Value::as_i64);
        if let (Some(observed), Some(generation)) = (observed, generation) {
            if observed != generation {
                return Ok(verdict(
                    "InProgress",
                    Decision::ObservedGeneration {
                        observed,
                        generation,
                    },
                ));
            }
        }
        for (field, compiled) in &entry.expressions {
            if let (Some(coverage), Some(text), Some(line)) =
                (&self.coverage, &self.text, compiled.line)
            {
                coverage.record(text, line);
            }
            if self.evaluate(index, entry, *field, compiled, object)? {
                return Ok(verdict(
                    field.status(),
                    Decision::Expression {
                        field: *field,
                        expression: compiled.text.clone(),
                    },
                ));
            }
        }
        Ok(verdict("InProgress", Decision::NoneTrue))
    }

    /// Evaluates one expression on `object`: its top-level fields are the
    /// variables; a result that is not a boolean is an error.
    fn evaluate(
        &self,
        index: usize,
        entry: &Entry,
        field: Field,
        compiled: &Compiled,
        object: &Value,
    ) -> std::result::Result<bool, CelError> {
        let error = |message: String| CelError::Eval {
            index,
            kind: entry_kind(&entry.rule),
            field,
            expression: compiled.text.clone(),
            message,
        };
        let mut scope = self.context.new_inner_scope();
        if let Value::Object(map) = object {
            for name in &compiled.variables {
                if let Some(value) = map.get(name) {
                    scope.add_variable_from_value(name.as_str(), to_cel(value));
                }
            }
        }
        // The `cel` crate answers bad input with errors; a panic inside it
        // would be a bug of the crate, and is still this expression's error.
        let result = stacker::maybe_grow(EVAL_RED_ZONE_BYTES, EVAL_STACK_BYTES, || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                scope.resolve(&compiled.expression)
            }))
        })
        .map_err(|_| error("the CEL interpreter failed (panicked) on this object".into()))?;
        match result {
            Ok(cel::Value::Bool(b)) => Ok(b),
            Ok(other) => Err(error(format!(
                "the expression is not a boolean (it gave {})",
                other.type_of()
            ))),
            Err(cel::ExecutionError::UndeclaredReference(name))
                if compiled.variables.iter().any(|v| **v == *name) =>
            {
                Err(error(format!("the object has no field `{name}`")))
            }
            Err(e) => Err(error(e.to_string())),
        }
    }

    /// Answers `request` (`InterpretHealth` only) with entry `entry`.
    fn answer(&self, entry: Option<usize>, request: &Request<'_>) -> Result<Outcome> {
        let object = request.object();
        let index = match (request, entry) {
            (Request::InterpretHealth { .. }, Some(i)) if i < self.entries.len() => i,
            _ => return Err(Error::not_served(object, request.operation())),
        };
        match self.judge(index, object) {
            Ok(verdict) => Ok(Outcome::Healthy(verdict.healthy)),
            Err(source) => Err(Error::Layer {
                what: "CEL health rule",
                name: self.entry_name(index),
                operation: InterpreterOperation::InterpretHealth,
                object: Some(describe(object)),
                source: Box::new(source),
            }),
        }
    }

    fn source(&self, index: usize) -> Source {
        Source {
            layer: CEL,
            name: self.entry_name(index).into(),
        }
    }
}

/// Where the fields of one entry sit: the entry's start, and each
/// expression's first character in [`Field::ORDER`].
struct EntryPlaces {
    start: Place,
    fields: [Option<Place>; 3],
}

/// `apiVersion Kind` of an entry (`*` for a group-only entry).
fn entry_kind(rule: &HealthExpr) -> String {
    format!(
        "{} {}",
        rule.api_version,
        if rule.kind.is_empty() {
            "*"
        } else {
            &rule.kind
        }
    )
}

/// The group of an apiVersion, as Kubernetes' `ParseGroupVersion` splits
/// it: `group/version`, or a version alone for the core group.
fn group_of(api_version: &str) -> &str {
    api_version.split_once('/').map_or("", |(g, _)| g)
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or_default()
}

/// The place of a scalar's first character of text: past the opening quote
/// of a quoted scalar (the place given is the scalar's start).
fn scalar_place(text: &str, at: Place) -> Place {
    let quoted = text
        .lines()
        .nth(at.line.saturating_sub(1))
        .and_then(|l| l.chars().nth(at.column.saturating_sub(1)))
        .is_some_and(|c| c == '"' || c == '\'');
    if quoted {
        Place {
            column: at.column + 1,
            ..at
        }
    } else {
        at
    }
}

/// The names of the operators the parser writes as calls (never missing).
fn is_operator(name: &str) -> bool {
    name.starts_with('_') || name.starts_with('@') || name.starts_with('!') || name == "-_"
}

/// Why an expression does not compile.
pub(crate) enum Failure {
    /// The parser's message and the 1-based line and column in the
    /// expression, when it gave one.
    Parse(String, Option<(usize, usize)>),
    /// The functions or macros missing.
    Missing(Vec<String>),
}

/// Parses `text` with optional syntax on and checks that every function it
/// calls exists in `context`.
pub(crate) fn compile_expression(
    text: &str,
    context: &cel::Context<'_>,
) -> std::result::Result<Compiled, Failure> {
    if text.len() > MAX_EXPRESSION_BYTES {
        return Err(Failure::Parse(
            format!(
                "the expression is {} bytes long, more than the {MAX_EXPRESSION_BYTES} allowed",
                text.len()
            ),
            None,
        ));
    }
    let mut expression = parse_on_a_large_stack(text)?;
    rewrite_optional_select(&mut expression);
    let references = expression.references();
    let variables: Vec<String> = references
        .variables()
        .into_iter()
        .map(str::to_owned)
        .collect();
    let mut missing: Vec<String> = references
        .functions()
        .into_iter()
        .filter(|f| !is_operator(f) && !function_exists(context, f, &variables))
        .map(str::to_owned)
        .collect();
    missing.sort_unstable();
    if !missing.is_empty() {
        return Err(Failure::Missing(missing));
    }
    Ok(Compiled {
        text: text.to_owned(),
        line: None,
        expression,
        variables,
    })
}

/// Parses `text` (optional syntax on, [`MAX_NESTING`]) with at least
/// [`PARSER_STACK_BYTES`] of stack, and refuses a tree deeper than
/// [`MAX_DEPTH`] (measured, and dropped, on that stack too).
fn parse_on_a_large_stack(text: &str) -> std::result::Result<cel::parser::Expression, Failure> {
    let parse = || {
        let expression = cel::parser::Parser::new()
            .enable_optional_syntax(true)
            .max_recursion_depth(MAX_NESTING)
            .parse(text)
            .map_err(|errors| {
                let first = errors.errors.first();
                let pos = first.and_then(|e| {
                    Some((
                        usize::try_from(e.pos.0).ok()?,
                        usize::try_from(e.pos.1).ok()?,
                    ))
                });
                let message = first.map_or_else(|| errors.to_string(), |e| e.msg.clone());
                Failure::Parse(format!("does not parse: {message}"), pos)
            })?;
        let depth = depth(&expression);
        if depth > MAX_DEPTH {
            return Err(Failure::Parse(
                format!("the expression is nested {depth} deep, more than the {MAX_DEPTH} allowed"),
                None,
            ));
        }
        Ok(expression)
    };
    stacker::maybe_grow(PARSER_STACK_BYTES, PARSER_STACK_BYTES, parse)
}

/// The depth of an expression tree, walked without recursion.
fn depth(expression: &cel::parser::Expression) -> usize {
    use cel::common::ast::{EntryExpr, Expr};
    let mut deepest = 0;
    let mut todo = vec![(expression, 1usize)];
    while let Some((e, d)) = todo.pop() {
        deepest = deepest.max(d);
        let mut push = |child| todo.push((child, d + 1));
        match &e.expr {
            Expr::Call(call) => {
                if let Some(target) = &call.target {
                    push(target);
                }
                call.args.iter().for_each(push);
            }
            Expr::Comprehension(c) => {
                for child in [
                    &c.iter_range,
                    &c.accu_init,
                    &c.loop_cond,
                    &c.loop_step,
                    &c.result,
                ] {
                    push(child);
                }
            }
            Expr::List(list) => list.elements.iter().for_each(push),
            Expr::Map(map) => {
                for entry in &map.entries {
                    if let EntryExpr::MapEntry(m) = &entry.expr {
                        push(&m.key);
                        push(&m.value);
                    }
                }
            }
            Expr::Struct(st) => {
                for entry in &st.entries {
                    match &entry.expr {
                        EntryExpr::StructField(f) => push(&f.value),
                        EntryExpr::MapEntry(m) => {
                            push(&m.key);
                            push(&m.value);
                        }
                    }
                }
            }
            Expr::Select(select) => push(&select.operand),
            Expr::Unspecified | Expr::Ident(_) | Expr::Literal(_) => {}
        }
    }
    deepest
}

/// The function `x.?field` is evaluated with instead of the `cel` crate's
/// own (a name no expression can write).
pub(crate) const OPTIONAL_SELECT: &str = "@optional_select";

/// `x.?field` as the CEL spec has it: `optional.none()` when `x` is a map
/// without `field` or is itself `optional.none()`, else `optional.of` the
/// field. cel 0.13 answers a missing field of a plain map with an error
/// ("No such key"), and a missing field of an optional with an optional
/// holding `optional.none()`, so the idiom Flux's rules use for fields an
/// object may lack (`status.?phase.orValue('')`) would fail on exactly the
/// objects it is written for.
pub(crate) fn optional_select(operand: cel::Value, field: Arc<String>) -> cel::ResolveResult {
    use cel::objects::{Key, OptionalValue};
    let inner = match <&OptionalValue>::try_from(&operand) {
        Ok(optional) => match optional.value() {
            Some(value) => value.clone(),
            None => return Ok(cel::Value::Opaque(Arc::new(OptionalValue::none()))),
        },
        Err(_) => operand,
    };
    match inner {
        cel::Value::Map(map) => Ok(cel::Value::Opaque(Arc::new(
            match map.map.get(&Key::String(field)) {
                Some(value) => OptionalValue::of(value.clone()),
                None => OptionalValue::none(),
            },
        ))),
        other => Err(cel::ExecutionError::function_error(
            "_?._",
            format!("`.?{field}` on a {}, not a map", other.type_of()),
        )),
    }
}

/// Points every `x.?field` of `expression` at [`optional_select`].
fn rewrite_optional_select(expression: &mut cel::parser::Expression) {
    use cel::common::ast::{EntryExpr, Expr};
    match &mut expression.expr {
        Expr::Call(call) => {
            if call.func_name == "_?._" {
                OPTIONAL_SELECT.clone_into(&mut call.func_name);
            }
            if let Some(target) = &mut call.target {
                rewrite_optional_select(target);
            }
            call.args.iter_mut().for_each(rewrite_optional_select);
        }
        Expr::Comprehension(c) => {
            for e in [
                &mut c.iter_range,
                &mut c.accu_init,
                &mut c.loop_cond,
                &mut c.loop_step,
                &mut c.result,
            ] {
                rewrite_optional_select(e);
            }
        }
        Expr::List(list) => list.elements.iter_mut().for_each(rewrite_optional_select),
        Expr::Map(map) => {
            for entry in &mut map.entries {
                if let EntryExpr::MapEntry(e) = &mut entry.expr {
                    rewrite_optional_select(&mut e.key);
                    rewrite_optional_select(&mut e.value);
                }
            }
        }
        Expr::Struct(s) => {
            for entry in &mut s.entries {
                match &mut entry.expr {
                    EntryExpr::StructField(f) => rewrite_optional_select(&mut f.value),
                    EntryExpr::MapEntry(e) => {
                        rewrite_optional_select(&mut e.key);
                        rewrite_optional_select(&mut e.value);
                    }
                }
            }
        }
        Expr::Select(select) => rewrite_optional_select(&mut select.operand),
        Expr::Unspecified | Expr::Ident(_) | Expr::Literal(_) => {}
    }
}

/// Whether `context` has function `name`: a call of it with no arguments
/// is answered with anything but "undeclared reference" (as a global
/// function, or namespaced under one of the expression's identifiers,
/// `math.greatest`). Evaluating a call costs nothing and does no I/O.
fn function_exists(context: &cel::Context<'_>, name: &str, variables: &[String]) -> bool {
    let undeclared = |call: &str| {
        let Ok(expression) = cel::parser::Parser::new().parse(call) else {
            return true;
        };
        let scope = context.new_inner_scope();
        let result =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| scope.resolve(&expression)));
        matches!(
            result,
            Ok(Err(cel::ExecutionError::UndeclaredReference(_))) | Err(_)
        )
    };
    if !undeclared(&format!("{name}()")) {
        return true;
    }
    variables
        .iter()
        .any(|ns| !undeclared(&format!("{ns}.{name}()")))
}

/// A JSON value as CEL sees an unstructured Kubernetes object: integers are
/// `int` (Go's unstructured objects hold int64), other numbers `double`.
pub(crate) fn to_cel(value: &Value) -> cel::Value {
    match value {
        Value::Null => cel::Value::Null,
        Value::Bool(b) => cel::Value::Bool(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => cel::Value::Int(i),
            None => n
                .as_u64()
                .map(cel::Value::UInt)
                .unwrap_or_else(|| cel::Value::Float(n.as_f64().unwrap_or(f64::NAN))),
        },
        Value::String(s) => cel::Value::String(Arc::new(s.clone())),
        Value::Array(items) => cel::Value::List(Arc::new(items.iter().map(to_cel).collect())),
        Value::Object(map) => {
            let map: HashMap<cel::objects::Key, cel::Value> = map
                .iter()
                .map(|(k, v)| (cel::objects::Key::String(Arc::new(k.clone())), to_cel(v)))
                .collect();
            cel::Value::Map(cel::objects::Map { map: Arc::new(map) })
        }
    }
}

impl Layer for CelHealth {
    fn kind(&self) -> LayerKind {
        CEL
    }

    /// The entry serving `ty`; the route's entry is its index.
    fn route(&self, ty: TypeRef<'_>, operation: InterpreterOperation) -> Option<Route> {
        if operation != InterpreterOperation::InterpretHealth {
            return None;
        }
        let entry = self.entry_of(ty)?;
        Some(Route {
            source: self.source(entry),
            entry,
        })
    }

    fn interpret_routed(&self, entry: usize, request: &Request<'_>) -> Result<Outcome> {
        self.answer(Some(entry), request)
    }

    fn interpret(&self, request: &Request<'_>) -> Result<Outcome> {
        self.answer(self.entry_of(TypeRef::of(request.object())), request)
    }

    /// One row per entry: `group/*` (the version is not matched), the kind
    /// or `*` for a group-only entry.
    fn catalog(&self) -> Vec<CatalogEntry> {
        self.entries
            .iter()
            .enumerate()
            .map(|(index, e)| CatalogEntry {
                api_version: if e.group.is_empty() {
                    "v1".to_owned()
                } else {
                    format!("{}/*", e.group)
                },
                kind: if e.rule.kind.is_empty() {
                    "*".to_owned()
                } else {
                    e.rule.kind.clone()
                },
                operation: InterpreterOperation::InterpretHealth,
                source: self.source(index),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;
    use serde_json::json;

    const RULES: &str = r#"
- apiVersion: cert-manager.io/v1
  kind: Certificate
  inProgress: "status.conditions.exists(e, e.type == 'Issuing' && e.status == 'True')"
  failed: "status.conditions.exists(e, e.type == 'Ready' && e.status == 'False')"
  current: "status.conditions.exists(e, e.type == 'Ready' && e.status == 'True')"
- apiVersion: example.com/*
  current: "status.?phase.orValue('') == 'Ready'"
- apiVersion: example.com/v1
  kind: Gadget
  current: "has(status.ready) && status.ready"
"#;

    fn layer() -> CelHealth {
        CelHealth::from_yaml(RULES).expect("rules")
    }

    fn cert(conditions: serde_json::Value) -> Value {
        json!({"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
               "metadata": {"name": "c", "generation": 2},
               "status": {"observedGeneration": 2, "conditions": conditions}})
    }

    #[test]
    fn coverage_notes_the_line_of_each_expression_evaluated() {
        let coverage = Coverage::default();
        let rules = layer().with_coverage(coverage.clone());
        let sites: Vec<(Field, Option<usize>)> =
            rules.expressions().map(|s| (s.field, s.line)).collect();
        assert_eq!(
            &sites[..3],
            [
                (Field::InProgress, Some(4)),
                (Field::Failed, Some(5)),
                (Field::Current, Some(6))
            ]
        );
        // Ready False: inProgress and failed run, current (after a true
        // failed) does not.
        let verdict = rules
            .verdict(&cert(json!([{"type": "Ready", "status": "False"}])))
            .unwrap();
        assert_eq!(verdict.map(|v| v.status), Some("Failed"));
        assert_eq!(coverage.lines(RULES), [4, 5].into());
        // A verdict by observedGeneration evaluates nothing.
        let mut behind = cert(json!([]));
        behind["metadata"]["generation"] = json!(3);
        rules.verdict(&behind).unwrap();
        assert_eq!(coverage.lines(RULES), [4, 5].into());
        // Rules compiled from parsed entries have no lines and note nothing.
        let parsed = CelHealth::new(layer().rules().cloned().collect())
            .unwrap()
            .with_coverage(coverage.clone());
        assert!(parsed.expressions().all(|s| s.line.is_none()));
        parsed
            .verdict(&cert(json!([{"type": "Ready", "status": "True"}])))
            .unwrap();
        assert_eq!(coverage.scripts().len(), 1);
    }

    #[rstest]
    #[case(json!([{"type": "Ready", "status": "True"}]), "Current", Some(Field::Current))]
    #[case(json!([{"type": "Ready", "status": "False"}]), "Failed", Some(Field::Failed))]
    #[case(json!([{"type": "Issuing", "status": "True"}, {"type": "Ready", "status": "True"}]),
           "InProgress", Some(Field::InProgress))]
    #[case(json!([{"type": "Issuing", "status": "False"}, {"type": "Ready", "status": "Unknown"}]),
           "InProgress", None)]
    fn expressions_are_tried_in_fluxs_order_and_map_to_karmadas_boolean(
        #[case] conditions: serde_json::Value,
        #[case] status: &str,
        #[case] field: Option<Field>,
    ) {
        let verdict = layer().verdict(&cert(conditions)).unwrap().expect("served");
        assert_eq!(verdict.status, status);
        assert_eq!(verdict.healthy, status == "Current");
        match (field, &verdict.decided_by) {
            (Some(f), Decision::Expression { field, expression }) => {
                assert_eq!(*field, f);
                assert!(expression.contains("status.conditions"), "{expression}");
            }
            (None, Decision::NoneTrue) => {}
            (f, d) => panic!("expected {f:?}, got {d:?}"),
        }
        let outcome = layer()
            .interpret(&Request::InterpretHealth {
                object: &cert(json!([{"type": "Ready", "status": "True"}])),
            })
            .unwrap();
        assert_eq!(outcome, Outcome::Healthy(true));
    }

    #[test]
    fn an_observed_generation_behind_is_in_progress_before_any_expression() {
        let mut object = cert(json!([{"type": "Ready", "status": "True"}]));
        object["status"]["observedGeneration"] = json!(1);
        let verdict = layer().verdict(&object).unwrap().unwrap();
        assert_eq!(
            verdict.decided_by,
            Decision::ObservedGeneration {
                observed: 1,
                generation: 2
            }
        );
        assert!(!verdict.healthy);
    }

    #[rstest]
    #[case("cert-manager.io/v1", "Certificate", Some(0))]
    #[case("cert-manager.io/v1alpha2", "Certificate", Some(0))]
    #[case("cert-manager.io/v1", "Issuer", None)]
    #[case("example.com/v1", "Widget", Some(1))]
    #[case("example.com/v2beta1", "Widget", Some(1))]
    #[case("example.com/v1", "Gadget", Some(2))]
    #[case("sub.example.com/v1", "Widget", None)]
    #[case("v1", "Pod", None)]
    fn entries_match_by_group_and_kind_the_version_ignored(
        #[case] api_version: &str,
        #[case] kind: &str,
        #[case] entry: Option<usize>,
    ) {
        let layer = layer();
        let object = json!({"apiVersion": api_version, "kind": kind});
        let op = InterpreterOperation::InterpretHealth;
        assert_eq!(
            layer.route(TypeRef::of(&object), op).map(|r| r.entry),
            entry
        );
        assert!(layer
            .route(TypeRef::of(&object), InterpreterOperation::InterpretReplica)
            .is_none());
    }

    #[test]
    fn a_kind_no_rule_serves_is_left_to_the_next_layer() {
        let layer = layer();
        let issuer = json!({"apiVersion": "cert-manager.io/v1", "kind": "Issuer"});
        assert_eq!(layer.verdict(&issuer).unwrap(), None);
        let chain = karmada_interpreter_core::interpreter::Chain::new(vec![
            std::sync::Arc::new(layer),
            std::sync::Arc::new(crate::HealthFallback),
        ]);
        let answer = chain
            .interpret(&Request::InterpretHealth { object: &issuer })
            .unwrap();
        assert_eq!(answer.served_by.layer, crate::FALLBACK);
    }

    #[test]
    fn optional_syntax_and_has_read_missing_fields_without_error() {
        let layer = layer();
        let bare = json!({"apiVersion": "example.com/v1", "kind": "Widget", "status": {}});
        let verdict = layer.verdict(&bare).unwrap().unwrap();
        assert_eq!(verdict.decided_by, Decision::NoneTrue);
        let ready = json!({"apiVersion": "example.com/v1", "kind": "Widget",
                           "status": {"phase": "Ready"}});
        assert!(layer.verdict(&ready).unwrap().unwrap().healthy);
        // Chained, through a missing field, and on an optional index.
        let chained = CelHealth::new(vec![HealthExpr {
            api_version: "example.com/v1".into(),
            kind: "Widget".into(),
            current: "status.?a.?b.orValue(0) == 0 && status[?'c'].orValue(1) == 1 \
                      && !status.?a.hasValue()"
                .into(),
            ..HealthExpr::default()
        }])
        .unwrap();
        assert!(chained.verdict(&bare).unwrap().unwrap().healthy);
        let gadget = json!({"apiVersion": "example.com/v1", "kind": "Gadget", "status": {}});
        assert!(!layer.verdict(&gadget).unwrap().unwrap().healthy);
    }

    #[test]
    fn an_expression_failing_on_an_object_is_its_error_not_a_panic() {
        let layer = layer();
        // No status at all: Flux's rules error on it too.
        let object = json!({"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
                            "metadata": {"name": "c"}});
        let error = layer.verdict(&object).unwrap_err();
        let CelError::Eval {
            index,
            field,
            ref message,
            ..
        } = error
        else {
            panic!("{error:?}")
        };
        assert_eq!((index, field), (0, Field::InProgress));
        assert!(message.contains("no field `status`"), "{message}");
        let text = error.to_string();
        assert!(
            text.contains("entry 0 (cert-manager.io/v1 Certificate), inProgress"),
            "{text}"
        );
        // Through the layer: the chain's layer error, naming the rule.
        let err = layer
            .interpret(&Request::InterpretHealth { object: &object })
            .unwrap_err();
        assert!(err.to_string().contains("healthCheckExprs[0]"), "{err}");
        assert!(err.source_of::<CelError>().is_some());
    }

    #[test]
    fn a_result_that_is_not_a_boolean_is_an_error() {
        let layer = CelHealth::new(vec![HealthExpr {
            api_version: "example.com/v1".into(),
            kind: "Widget".into(),
            current: "status.phase".into(),
            ..HealthExpr::default()
        }])
        .unwrap();
        let object = json!({"apiVersion": "example.com/v1", "kind": "Widget",
                            "status": {"phase": "Ready"}});
        let error = layer.verdict(&object).unwrap_err().to_string();
        assert!(error.contains("not a boolean (it gave string)"), "{error}");
        assert!(error.contains("current"), "{error}");
    }

    #[rstest]
    #[case("status.conditions.exists(e, e.type == ", "does not parse")]
    #[case("status.conditions.transformList(i, e, e.type)", "`transformList`")]
    #[case("noSuchFunction(status)", "`noSuchFunction`")]
    fn a_bad_expression_fails_to_load_naming_entry_field_and_text(
        #[case] expression: &str,
        #[case] wanted: &str,
    ) {
        let text = format!(
            "- apiVersion: example.com/v1\n  kind: Widget\n  current: \"true\"\n  failed: \"{expression}\"\n"
        );
        let error = CelHealth::from_yaml(&text).unwrap_err();
        let message = error.to_string();
        assert!(
            matches!(
                error,
                CelError::Compile {
                    field: Field::Failed,
                    ..
                } | CelError::Missing {
                    field: Field::Failed,
                    ..
                }
            ),
            "{error:?}"
        );
        assert!(
            message.contains("entry 0 (example.com/v1 Widget), failed"),
            "{message}"
        );
        assert!(message.contains(wanted), "{message}");
        assert!(message.contains(expression), "{message}");
        // The place is the expression's line in the file, past the quote.
        let place = error.place().expect("place");
        assert_eq!(place.line, 4);
        assert!(place.column >= 12, "{place}");
    }

    #[test]
    fn the_parse_error_column_is_the_files() {
        let text = "- apiVersion: a.io/v1\n  kind: K\n  current: status.x == = 1\n";
        let error = CelHealth::from_yaml(text).unwrap_err();
        // The expression starts at column 12; its third `=` is its 13th
        // character, where the parser stops.
        assert_eq!(
            error.place(),
            Some(Place {
                line: 3,
                column: 24
            }),
            "{error}"
        );
    }

    #[test]
    fn kubernetes_and_flux_library_functions_are_there() {
        let layer = CelHealth::new(vec![HealthExpr {
            api_version: "example.com/v1".into(),
            kind: "Widget".into(),
            current: "metadata.name.lowerAscii().startsWith('web') && \
                      sets.contains([1, 2], [1]) && '%s'.format(['x']) == 'x' && \
                      quantity(spec.memory).isGreaterThan(quantity('1Gi'))"
                .into(),
            ..HealthExpr::default()
        }])
        .unwrap();
        let object = json!({"apiVersion": "example.com/v1", "kind": "Widget",
                            "metadata": {"name": "WEB-1"}, "spec": {"memory": "2Gi"}});
        assert!(layer.verdict(&object).unwrap().unwrap().healthy);
    }

    #[rstest]
    #[case("- apiVersion: a.io/v1\n  kind: K\n", "`current` is required")]
    #[case("- apiVersion: a.io/v1\n  kind: K\n  current: 'true'\n- apiVersion: a.io/v2\n  kind: K\n  current: 'false'\n",
           "a second rule for group/kind a.io/K (the first is entry 0)")]
    #[case("- apiVersion: a.io/v1\n  kind: K\n  curent: 'true'\n", "curent")]
    #[case("apiVersion: a.io/v1\n", "not a list")]
    fn a_bad_entry_is_an_error_naming_it(#[case] text: &str, #[case] wanted: &str) {
        let error = CelHealth::from_yaml(text).unwrap_err().to_string();
        assert!(error.contains(wanted), "{error}");
    }

    #[test]
    fn the_catalog_has_a_row_per_entry() {
        let rows: Vec<(String, String, String)> = layer()
            .catalog()
            .into_iter()
            .map(|r| (r.api_version, r.kind, r.source.name.into_owned()))
            .collect();
        assert_eq!(
            rows[1],
            (
                "example.com/*".to_owned(),
                "*".to_owned(),
                "healthCheckExprs[1] example.com/* *".to_owned()
            )
        );
        assert_eq!(rows.len(), 3);
    }

    /// The functions and macros the cel crate (0.13, with kube-cel's
    /// libraries) lacks are named when the rules load (docs/health.md lists
    /// them).
    #[rstest]
    #[case("dyn(status.x) == 1", "`dyn`")]
    #[case("type(status.x) == int", "`type`")]
    #[case("bool(status.x)", "`bool`")]
    #[case("status.?x.optMap(v, v + 1).orValue(0) == 1", "`optMap`")]
    #[case("status.m.all(k, v, v == 1)", "`all`")]
    #[case("status.l.transformList(i, v, v)", "`transformList`")]
    #[case("status.m.transformMap(k, v, v)", "`transformMap`")]
    #[case("status.m.exists(k, v, v == 1)", "`exists`")]
    #[case("status.?x.optFlatMap(v, optional.of(v)).hasValue()", "`optFlatMap`")]
    #[case("ip(status.ip).family() == 4", "`family`, `ip`")]
    #[case("url(status.u).getHost() == 'a'", "`getHost`, `url`")]
    fn missing_functions_and_macros_are_named(#[case] expression: &str, #[case] named: &str) {
        let error = CelHealth::new(vec![HealthExpr {
            api_version: "example.com/v1".into(),
            kind: "Widget".into(),
            current: expression.into(),
            ..HealthExpr::default()
        }])
        .unwrap_err()
        .to_string();
        assert!(
            error.contains(&format!("the cel crate has no function or macro {named}")),
            "{error}"
        );
    }

    /// Where the cel crate answers differently from cel-go as Flux
    /// configures it (docs/health.md): equality across numeric types is
    /// false (cel-go: heterogeneous equality, `1 == 1.0` is true).
    #[test]
    fn equality_across_numeric_types_differs_from_cel_go() {
        let layer = CelHealth::new(vec![HealthExpr {
            api_version: "example.com/v1".into(),
            kind: "Widget".into(),
            current: "status.n == 1.0".into(),
            ..HealthExpr::default()
        }])
        .unwrap();
        let object = json!({"apiVersion": "example.com/v1", "kind": "Widget", "status": {"n": 1}});
        assert!(!layer.verdict(&object).unwrap().unwrap().healthy);
    }

    /// Flux's published rules (testdata/cel/published.yaml, sources in the
    /// README beside it) give the verdicts their sources state.
    #[test]
    fn published_rules_give_the_verdicts_their_sources_state() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/cel/published.yaml");
        let text = std::fs::read_to_string(&path).expect("published.yaml");
        let cases = karmada_interpreter_core::yaml::from_str(&text).expect("YAML");
        let mut failures = Vec::new();
        let mut checked = 0;
        for case in cases.as_array().expect("a list of cases") {
            let title = case["title"].as_str().unwrap_or_default();
            let rules: Vec<HealthExpr> =
                serde_json::from_value(case["rules"].clone()).expect("rules");
            let layer = CelHealth::new(rules).unwrap_or_else(|e| panic!("{title}: {e}"));
            for object in case["objects"].as_array().expect("objects") {
                checked += 1;
                let name = object["name"].as_str().unwrap_or_default();
                let got = match layer.verdict(&object["object"]) {
                    Ok(Some(v)) => Ok(v.status.to_owned()),
                    Ok(None) => Ok("not served".to_owned()),
                    Err(e) => Err(e.to_string()),
                };
                let ok = match (&object["want"], &got) {
                    (Value::String(want), Ok(status)) => want == status,
                    (want, Err(error)) => want["error"]
                        .as_str()
                        .is_some_and(|phrase| error.contains(phrase)),
                    _ => false,
                };
                if !ok {
                    failures.push(format!(
                        "{title} / {name}: want {}, got {got:?}",
                        object["want"]
                    ));
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        assert!(checked >= 30, "only {checked} objects");
    }

    /// An expression nested deeper than the limits, or longer, fails to load
    /// with an error (no stack overflow); one within them loads and runs.
    #[rstest]
    #[case::brackets_within(format!("{}true{}", "(".repeat(50), ")".repeat(50)), None)]
    #[case::brackets_beyond(format!("{}true{}", "(".repeat(4000), ")".repeat(4000)), Some("Recursion limit"))]
    // `+` nests to the left, one level a term (`&&` chains are balanced).
    #[case::a_chain_within(vec!["1"; 100].join(" + ") + " == 100", None)]
    #[case::a_chain_beyond(vec!["1"; 1000].join(" + ") + " == 1000", Some("more than the 128 allowed"))]
    #[case::too_long("true || ".repeat(2000) + "true", Some("more than the 10000 allowed"))]
    fn nesting_and_length_are_limited(#[case] current: String, #[case] refused: Option<&str>) {
        let result = CelHealth::new(vec![HealthExpr {
            api_version: "example.com/v1".into(),
            kind: "Widget".into(),
            current,
            ..HealthExpr::default()
        }]);
        match (result, refused) {
            // Within the limits it also evaluates (on this test thread's
            // small stack).
            (Ok(layer), None) => {
                let object = json!({"apiVersion": "example.com/v1", "kind": "Widget"});
                assert!(layer.verdict(&object).unwrap().unwrap().healthy);
            }
            (Err(e), Some(phrase)) => assert!(e.to_string().contains(phrase), "{e}"),
            (Ok(_), Some(phrase)) => panic!("loaded, expected {phrase}"),
            (Err(e), None) => panic!("{e}"),
        }
    }

    /// Objects of every odd shape through every published rule: each
    /// answers a verdict or an error of an expression, never a panic.
    #[test]
    fn odd_objects_get_a_verdict_or_an_error_never_a_panic() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/cel/published.yaml");
        let text = std::fs::read_to_string(&path).expect("published.yaml");
        let cases = karmada_interpreter_core::yaml::from_str(&text).expect("YAML");
        let odd = [
            json!({"status": "Ready"}),
            json!({"status": {"conditions": {"type": "Ready"}}}),
            json!({"status": {"conditions": [null, 1, "x", {"type": 7, "status": true}]}}),
            json!({"status": {"conditions": [{"type": "Ready"}]}, "metadata": {"generation": "2"}}),
            json!({"status": {"observedGeneration": u64::MAX}, "metadata": {"generation": -1}}),
            json!({"status": {"conditions": [{"type": "Synced", "status": "True",
                                              "observedGeneration": 1.5}]},
                   "metadata": {"generation": 1e300}}),
            json!({"data": null, "status": null, "metadata": null, "spec": [1, 2]}),
        ];
        let mut answered = 0;
        for case in cases.as_array().expect("cases") {
            let rules: Vec<HealthExpr> =
                serde_json::from_value(case["rules"].clone()).expect("rules");
            let layer = CelHealth::new(rules.clone()).expect("rules load");
            for rule in &rules {
                for shape in &odd {
                    let mut object = shape.clone();
                    object["apiVersion"] = json!(rule.api_version.replace('*', "v1"));
                    object["kind"] = json!(if rule.kind.is_empty() {
                        "Any"
                    } else {
                        &rule.kind
                    });
                    match layer.verdict(&object) {
                        Ok(Some(_)) | Err(CelError::Eval { .. }) => answered += 1,
                        other => panic!("{object}: {other:?}"),
                    }
                }
            }
        }
        assert!(answered > 100, "{answered}");
    }
}
