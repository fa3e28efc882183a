//! Static analysis of customization files (`karmada-interpreter lint`).
//!
//! Two levels:
//! - the document: keys Karmada does not read (a misspelled rule such as
//!   `replicas:` for `replicaResource:`, a rule outside
//!   `spec.customizations`) — Karmada ignores them, so the script never runs;
//! - each script: [selene](https://kampfkarren.github.io/selene/)'s checks on
//!   full-moon's Lua 5.2 parser (5.1 plus `goto`), with a standard library that describes the
//!   sandbox a customization runs in (only what the sandbox provides, `os`
//!   reduced to `time`/`date`, no `io`, `debug`, `coroutine`, `setmetatable`,
//!   `loadstring`, `string.gsub`/`rep`/`dump`), plus the project's own rules:
//!   the entry function and its parameters, assignments to globals (an error
//!   when they replace a builtin such as `error` that the script calls), `require` of anything but
//!   `kube` and unknown `kube` functions, code after `error(...)`, and field
//!   reads through an optional field of an argument (`obj.status.x`) with no
//!   nil check of that field.
//!
//! Positions are those of the customization file: a finding in a script
//! points at the file line and column where the script text sits.
//!
//! A rule is allowed with a comment in the script:
//! `-- lint: allow(rule[, rule...])` at the end of a line allows it on that
//! line; on a line of its own, on the next line of code — or, above the
//! script's first line of code, in the whole script. selene's own
//! `-- selene: allow(lint)` comments work as selene documents them.
//!
//! ```
//! use karmada_interpreter::lint::{Linter, Rule};
//!
//! let text = r#"
//! apiVersion: config.karmada.io/v1alpha1
//! kind: ResourceInterpreterCustomization
//! metadata: {name: demo}
//! spec:
//!   target: {apiVersion: example.io/v1, kind: Demo}
//!   customizations:
//!     healthInterpretation:
//!       luaScript: |
//!         function InterpretHealth(obj)
//!           return obj.status.ready == true
//!         end
//! "#;
//! let findings = Linter::new().unwrap().lint_text(text, "demo.yaml");
//! assert_eq!(findings.len(), 1);
//! assert_eq!(findings[0].rule, Rule::UnguardedField);
//! assert_eq!((findings[0].line, findings[0].column), (11, 18));
//! ```
#![forbid(unsafe_code)]

pub mod admission;
pub mod check;
mod document;
pub use document::{Placement, ScriptSite};
mod layout;
mod locate;
pub use layout::{layout_mismatch, layout_target};
pub use locate::{explain, Located, Locator};
mod sandbox_std;
mod script;

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;

pub use script::{COMPOSITION_FUNCTIONS, KUBE_FUNCTIONS};

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Likely a defect; `--deny-warnings` makes it fail the run.
    Warning,
    /// A defect: the script fails, never runs, or misbehaves.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Warning => "warning",
            Self::Error => "error",
        })
    }
}

/// What a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    /// The YAML or the Lua does not parse.
    Syntax,
    /// A key Karmada does not read (misspelled rule, rule out of place).
    UnknownKey,
    /// The script does not define the operation's entry function.
    MissingEntry,
    /// The entry function takes a different number of parameters than the
    /// operation passes.
    EntryArity,
    /// Assignment to a global other than the entry function (an error when
    /// it replaces a builtin such as `error` or `type` that the script
    /// calls).
    GlobalAssignment,
    /// Read of a global that is never defined.
    UndefinedGlobal,
    /// Use of something the sandbox does not provide (`io`, `os.execute`,
    /// `setmetatable`, `require` of a module other than `kube`, an unknown
    /// `kube` function, ...).
    Sandbox,
    /// A local or parameter that is never used.
    UnusedVariable,
    /// Code that can never run (after `error(...)` or an `if` whose every
    /// branch returns or raises).
    UnreachableCode,
    /// `arg.field.x` where `field` is optional (`status`,
    /// `metadata.labels`, ...) and nothing checks `arg.field` for nil.
    UnguardedField,
    /// The customization's target differs from the folder it sits in
    /// (Karmada's layout `<group>/<version>/<Kind>/customizations.yaml`).
    TargetLayout,
    /// A rule without a script (`replicaResource: {}`, `luaScript: ""`):
    /// Karmada treats it as unset, so the operation falls to the next layer.
    EmptyRule,
    /// With composition on (`docs/composition.md`), a
    /// `karmada-interpreter.io/order` annotation that is not an integer:
    /// building the chain fails. Not reported with composition off (the
    /// annotation is then ignored, as Karmada ignores it).
    CompositionOrder,
    /// Another of selene's lints, by its selene name.
    Selene(&'static str),
}

impl Rule {
    /// The rule's name, as printed and as written in allow comments.
    pub fn name(self) -> &'static str {
        match self {
            Self::Syntax => "syntax",
            Self::UnknownKey => "unknown-key",
            Self::MissingEntry => "missing-entry",
            Self::EntryArity => "entry-arity",
            Self::GlobalAssignment => "global-assignment",
            Self::UndefinedGlobal => "undefined-global",
            Self::Sandbox => "sandbox",
            Self::UnusedVariable => "unused-variable",
            Self::UnreachableCode => "unreachable-code",
            Self::UnguardedField => "unguarded-field",
            Self::TargetLayout => "target-layout",
            Self::EmptyRule => "empty-rule",
            Self::CompositionOrder => "composition-order",
            Self::Selene(name) => name,
        }
    }

    /// The severity a finding of this rule has unless the rule says otherwise.
    pub fn default_severity(self) -> Severity {
        match self {
            Self::Syntax
            | Self::UnknownKey
            | Self::MissingEntry
            | Self::UndefinedGlobal
            | Self::Sandbox
            | Self::CompositionOrder => Severity::Error,
            _ => Severity::Warning,
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// One finding, at a position of the customization file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The file (as given).
    pub file: String,
    /// 1-based file line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// How bad it is.
    pub severity: Severity,
    /// Which rule.
    pub rule: Rule,
    /// What is wrong.
    pub message: String,
}

impl Finding {
    pub(crate) fn new(rule: Rule, line: usize, column: usize, message: String) -> Self {
        Self {
            file: String::new(),
            line,
            column,
            severity: rule.default_severity(),
            rule,
            message,
        }
    }
}

impl fmt::Display for Finding {
    /// `file:line:col: severity[rule]: message`, like a compiler.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}[{}]: {}",
            self.file, self.line, self.column, self.severity, self.rule, self.message
        )
    }
}

/// Why linting could not run.
#[derive(Debug, thiserror::Error)]
pub enum LintError {
    /// A file or directory could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// selene refused the project's configuration (a bug of the project).
    #[error("cannot configure the Lua checker: {0}")]
    Checker(#[source] selene_lib::CheckerError),
}

/// The linter: selene configured for the sandbox plus the project's rules.
pub struct Linter {
    checker: selene_lib::Checker<serde_json::Value>,
    composition: bool,
    profile: karmada_interpreter_core::profile::Profile,
}

impl fmt::Debug for Linter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Linter").finish_non_exhaustive()
    }
}

impl Linter {
    /// A linter for the customization sandbox.
    pub fn new() -> Result<Self, LintError> {
        Ok(Self {
            checker: script::checker().map_err(LintError::Checker)?,
            composition: false,
            profile: karmada_interpreter_core::profile::Profile::default(),
        })
    }

    /// The same linter for scripts that run with composition on or off
    /// (default off, Karmada's sandbox; `docs/composition.md`): with it on,
    /// `kube.below` is a function of the sandbox; with it off, a call to it
    /// is a `sandbox` error saying it needs composition. Admission
    /// ([`admission::review_customization`]) then also allows a second
    /// customization's editing rule for a target (they compose).
    ///
    /// ```
    /// use karmada_interpreter::api::InterpreterOperation as Op;
    /// use karmada_interpreter::lint::{Linter, Rule};
    ///
    /// let script = "local kube = require('kube')\nfunction Retain(desiredObj, observedObj)\n  return kube.below()\nend\n";
    /// let off = Linter::new().unwrap().lint_script(script, Op::Retain);
    /// assert_eq!(off.len(), 1);
    /// assert_eq!(off[0].rule, Rule::Sandbox);
    /// assert!(off[0].message.contains("only with composition on"), "{}", off[0].message);
    /// let on = Linter::new().unwrap().with_composition(true);
    /// assert!(on.lint_script(script, Op::Retain).is_empty());
    /// ```
    pub fn with_composition(mut self, on: bool) -> Self {
        self.composition = on;
        self
    }

    /// The same linter for the customizations of `profile` (default
    /// Karmada's released behaviour): under it, a rule of another profile
    /// (`componentRevision` of `karmada-next`) is reported as a warning,
    /// since released Karmada ignores the key and the script never runs.
    pub fn with_profile(mut self, profile: karmada_interpreter_core::profile::Profile) -> Self {
        self.profile = profile;
        self
    }

    /// Whether the scripts are linted for composition on.
    pub fn composes(&self) -> bool {
        self.composition
    }

    /// Whether this linter reports findings of `rule` ([`sites`] finds
    /// [`Rule::CompositionOrder`] ones whatever the linter; they count only
    /// with composition on).
    pub fn reports(&self, rule: Rule) -> bool {
        self.composition || rule != Rule::CompositionOrder
    }

    /// Lints the text of a customization file (a YAML stream of
    /// `ResourceInterpreterCustomization` documents) named `file`.
    pub fn lint_text(&self, text: &str, file: &str) -> Vec<Finding> {
        let mut findings = Vec::new();
        {
            let sites = sites(text, &mut findings);
            findings.retain(|f| self.reports(f.rule));
            for site in &sites {
                if let Err(off) = self.profile.admit(site.operation) {
                    let (line, column) = site.placement.locate(1, 1);
                    let mut f = Finding::new(
                        Rule::UnknownKey,
                        line,
                        column,
                        format!(
                            "`{}`: {off}. Released Karmada ignores the key, so this script never runs there",
                            site.operation.customization_member()
                        ),
                    );
                    f.severity = Severity::Warning;
                    findings.push(f);
                }
            }
            for site in sites {
                for mut f in self.lint_script(&site.text, site.operation) {
                    let (line, column) = site.placement.locate(f.line, f.column);
                    f.line = line;
                    f.column = column;
                    f.message = format!(
                        "{} ({} of {})",
                        f.message,
                        site.operation,
                        if site.customization.is_empty() {
                            "the customization"
                        } else {
                            &site.customization
                        }
                    );
                    findings.push(f);
                }
            }
        }
        for f in &mut findings {
            file.clone_into(&mut f.file);
        }
        findings.sort_by_key(|f| (f.line, f.column));
        findings
    }

    /// Lints one script serving `operation`; positions are the script's own.
    pub fn lint_script(
        &self,
        text: &str,
        operation: karmada_interpreter_core::api::InterpreterOperation,
    ) -> Vec<Finding> {
        script::lint(&self.checker, text, operation, self.composition)
    }

    /// Lints a customization file.
    pub fn lint_file(&self, path: &Path) -> Result<Vec<Finding>, LintError> {
        let text = std::fs::read_to_string(path).map_err(|source| LintError::Io {
            path: path.to_owned(),
            source,
        })?;
        Ok(self.lint_file_text(path, &text))
    }

    /// Lints `text`, the contents of the file at `path`: the findings of
    /// [`Linter::lint_text`] plus a `target-layout` warning where a
    /// customization's target differs from the folder `path` sits in.
    pub fn lint_file_text(&self, path: &Path, text: &str) -> Vec<Finding> {
        let name = path.display().to_string();
        let mut findings = self.lint_text(text, &name);
        findings.extend(layout_findings(path, text, &name));
        findings.sort_by_key(|f| (f.line, f.column));
        findings
    }
}

/// A [`Rule::TargetLayout`] finding, at the document's `target:` line, for
/// each customization of `text` whose target differs from the folder of
/// `path`.
fn layout_findings(path: &Path, text: &str, name: &str) -> Vec<Finding> {
    if crate::layout::layout_target(path).is_none() {
        return Vec::new();
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for doc in karmada_interpreter_core::yaml::documents(text)
        .into_iter()
        .flatten()
    {
        let Some(value) = doc.value else { continue };
        let Ok(c) = serde_json::from_value(value) else {
            continue;
        };
        if let Some(message) = crate::layout::layout_mismatch(path, &c) {
            let (line, column) = lines
                .iter()
                .enumerate()
                .skip(doc.line.saturating_sub(1))
                .find_map(|(i, l)| l.find("target:").map(|c| (i + 1, c + 1)))
                .unwrap_or((doc.line, 1));
            let mut f = Finding::new(Rule::TargetLayout, line, column, message);
            name.clone_into(&mut f.file);
            out.push(f);
        }
    }
    out
}

/// The scripts of a customization file's text, with their places; problems
/// of the documents go to `findings`.
pub fn sites(text: &str, findings: &mut Vec<Finding>) -> Vec<ScriptSite> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for doc in karmada_interpreter_core::yaml::documents(text) {
        let (start, chunk) = match doc {
            Ok(d) if d.value.is_some() => (d.line, chunk_of(&lines, d.line)),
            Ok(_) => continue,
            Err(e) => {
                findings.push(Finding::new(
                    Rule::Syntax,
                    e.line,
                    1,
                    format!("not valid YAML: {}", e.message),
                ));
                continue;
            }
        };
        out.extend(document::scan(&chunk, start, &lines, findings));
    }
    out
}

/// The lines of the document that starts at file line `start` (up to the
/// next `---` separator).
fn chunk_of(lines: &[&str], start: usize) -> String {
    let mut out = String::new();
    for line in lines.iter().skip(start.saturating_sub(1)) {
        if karmada_interpreter_core::yaml::is_separator(line) && !out.is_empty() {
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The customization files under `paths`: a file is taken as given; a
/// directory is searched recursively for `customizations.yaml`/`.yml`
/// (Karmada's layout). Sorted, without duplicates.
pub fn customization_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, LintError> {
    // Karmada's layout, found by its one walker.
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), LintError> {
        let found = karmada_interpreter_layout::files(dir, |path, _| {
            matches!(
                path.file_name().and_then(|n| n.to_str()),
                Some("customizations.yaml" | "customizations.yml")
            )
        })
        .map_err(|e| LintError::Io {
            path: e.path,
            source: e.source,
        })?;
        out.extend(found);
        Ok(())
    }
    let mut out = Vec::new();
    for path in paths {
        let meta = std::fs::metadata(path).map_err(|source| LintError::Io {
            path: path.clone(),
            source,
        })?;
        if meta.is_dir() {
            walk(path, &mut out)?;
        } else {
            out.push(path.clone());
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

#[cfg(all(test, feature = "karmada-next"))]
mod profile_tests {
    use super::*;
    use karmada_interpreter_core::profile::Profile;

    const FILE: &str = "apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: flink
spec:
  target:
    apiVersion: flink.apache.org/v1beta1
    kind: FlinkDeployment
  customizations:
    componentRevision:
      luaScript: |
        function ReviseComponents(desiredObj, components)
          return desiredObj
        end
";

    /// Under Karmada's released profile the `karmada-next` rule is a warning
    /// at its script (released Karmada ignores the key); under its own
    /// profile it is an ordinary rule.
    #[test]
    fn a_rule_of_another_profile_is_a_warning_at_its_script() {
        let released = Linter::new().unwrap().lint_text(FILE, "f.yaml");
        let warned: Vec<_> = released
            .iter()
            .filter(|f| f.message.contains("`componentRevision`"))
            .collect();
        assert_eq!(warned.len(), 1, "{released:?}");
        assert_eq!(warned[0].severity, Severity::Warning);
        assert_eq!(warned[0].line, 12);
        assert!(
            warned[0].message.contains("karmada-next"),
            "{}",
            warned[0].message
        );
        let next = Linter::new()
            .unwrap()
            .with_profile(Profile::KarmadaNext)
            .lint_text(FILE, "f.yaml");
        assert!(
            next.iter()
                .all(|f| !f.message.contains("`componentRevision`")),
            "{next:?}"
        );
    }
}
