//! Line coverage of customization scripts by golden cases
//! (`test --coverage`): per script, which of its statements ran, reported at
//! the lines of the customization file, as a summary and as lcov.
//!
//! A statement counts once, at the file line where it starts. It ran when
//! the Lua line hook saw any line it owns: its lines outside the blocks
//! nested in it (so `if cond then` counts when its condition ran, a
//! multi-line call when any of its lines ran).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use full_moon::ast::{Block, LastStmt, Stmt};
use full_moon::node::Node;
use full_moon::visitors::{Visit, Visitor};
use full_moon::LuaVersion;

use karmada_interpreter::api::InterpreterOperation;
use karmada_interpreter::declarative::Coverage;
use karmada_interpreter::lint::{self, LintError};

/// The coverage of one script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptCoverage {
    /// The customization file.
    pub file: PathBuf,
    /// The customization's name.
    pub customization: String,
    /// The operation the script serves.
    pub operation: InterpreterOperation,
    /// Per file line where a statement starts: whether it ran.
    pub lines: BTreeMap<usize, bool>,
}

impl ScriptCoverage {
    /// Statements (by line) in the script.
    pub fn total(&self) -> usize {
        self.lines.len()
    }

    /// Statements (by line) that ran.
    pub fn covered(&self) -> usize {
        self.lines.values().filter(|hit| **hit).count()
    }

    /// File lines of the statements that never ran.
    pub fn uncovered(&self) -> Vec<usize> {
        self.lines
            .iter()
            .filter(|(_, hit)| !**hit)
            .map(|(line, _)| *line)
            .collect()
    }

    /// `file: name/Operation: covered/total lines (pct%), uncovered: 5, 9-11`.
    pub fn summary(&self) -> String {
        let total = self.total();
        let pct = if total == 0 {
            100.0
        } else {
            self.covered() as f64 * 100.0 / total as f64
        };
        let mut s = format!(
            "{}: {}/{}: {}/{} lines ({pct:.0}%)",
            self.file.display(),
            self.customization,
            self.operation,
            self.covered(),
            total
        );
        let uncovered = self.uncovered();
        if !uncovered.is_empty() {
            let _ = write!(s, ", uncovered: {}", ranges(&uncovered));
        }
        s
    }
}

/// `1, 3-5, 9` for `[1, 3, 4, 5, 9]`.
fn ranges(lines: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let start = lines[i];
        let mut end = start;
        while i + 1 < lines.len() && lines[i + 1] == end + 1 {
            i += 1;
            end = lines[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(", ")
}

/// The coverage of every script in the customization `files`, from the
/// lines `coverage` recorded.
pub fn collect(files: &[PathBuf], coverage: &Coverage) -> Result<Vec<ScriptCoverage>, LintError> {
    let mut out = Vec::new();
    for file in files {
        out.extend(of_file(file, coverage)?);
    }
    Ok(out)
}

/// The coverage of the CEL health rules of one file (`--health-exprs`):
/// per entry, which of its expressions a case evaluated.
#[cfg(feature = "cel")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExprCoverage {
    /// The rule file.
    pub file: PathBuf,
    /// The entry's printed name (`healthCheckExprs[0] apps/v1 Deployment`).
    pub rule: String,
    /// Its expressions in Flux's order: the field (`inProgress`, `failed`,
    /// `current`), the file line of its first character, and whether a case
    /// evaluated it.
    pub expressions: Vec<(karmada_interpreter::health::cel::Field, usize, bool)>,
}

#[cfg(feature = "cel")]
impl ExprCoverage {
    /// `file: rule: covered/total expressions (pct%), uncovered: failed (line 7), ...`.
    pub fn summary(&self) -> String {
        let total = self.expressions.len();
        let covered = self.expressions.iter().filter(|(_, _, hit)| *hit).count();
        let pct = if total == 0 {
            100.0
        } else {
            covered as f64 * 100.0 / total as f64
        };
        let mut s = format!(
            "{}: {}: {covered}/{total} expressions ({pct:.0}%)",
            self.file.display(),
            self.rule
        );
        let uncovered: Vec<String> = self
            .expressions
            .iter()
            .filter(|(_, _, hit)| !*hit)
            .map(|(field, line, _)| format!("{field} (line {line})"))
            .collect();
        if !uncovered.is_empty() {
            let _ = write!(s, ", uncovered: {}", uncovered.join(", "));
        }
        s
    }

    /// The same coverage as a script's, one line per expression, so the
    /// totals, `--coverage-threshold` and lcov count CEL expressions beside
    /// Lua statements.
    pub fn as_script(&self) -> ScriptCoverage {
        let mut lines = BTreeMap::new();
        for (_, line, hit) in &self.expressions {
            *lines.entry(*line).or_insert(false) |= *hit;
        }
        ScriptCoverage {
            file: self.file.clone(),
            customization: self.rule.clone(),
            operation: InterpreterOperation::InterpretHealth,
            lines,
        }
    }
}

/// The coverage of every CEL health rule of `file`, from the expression
/// lines `coverage` recorded while the cases ran (an expression counts once
/// a case evaluated it, whatever it gave).
#[cfg(feature = "cel")]
pub fn cel_expressions(
    file: &Path,
    coverage: &Coverage,
) -> Result<Vec<ExprCoverage>, karmada_interpreter::health::CelError> {
    let rules = karmada_interpreter::health::CelHealth::from_file(file)?;
    let ran = rules.text().map(|t| coverage.lines(t)).unwrap_or_default();
    let mut out: Vec<ExprCoverage> = (0..rules.len())
        .map(|entry| ExprCoverage {
            file: file.to_owned(),
            rule: rules.entry_name(entry),
            expressions: Vec::new(),
        })
        .collect();
    for site in rules.expressions() {
        if let (Some(line), Some(rule)) = (site.line, out.get_mut(site.entry)) {
            rule.expressions
                .push((site.field, line, ran.contains(&line)));
        }
    }
    Ok(out)
}

fn of_file(file: &Path, coverage: &Coverage) -> Result<Vec<ScriptCoverage>, LintError> {
    let text = std::fs::read_to_string(file).map_err(|source| LintError::Io {
        path: file.to_owned(),
        source,
    })?;
    let mut ignored = Vec::new();
    let mut out = Vec::new();
    for site in lint::sites(&text, &mut ignored) {
        let ran = coverage.lines(&site.text);
        let mut lines = BTreeMap::new();
        for (start, owned) in statements(&site.text) {
            let (line, _) = site.placement.locate(start, 1);
            let hit = owned.iter().any(|l| ran.contains(l));
            *lines.entry(line).or_insert(false) |= hit;
        }
        out.push(ScriptCoverage {
            file: file.to_owned(),
            customization: site.customization,
            operation: site.operation,
            lines,
        });
    }
    Ok(out)
}

/// Each statement of a script: its first line and the lines it owns (its
/// lines outside the blocks nested in it). A script that does not parse has
/// none.
fn statements(script: &str) -> Vec<(usize, BTreeSet<usize>)> {
    let Ok(ast) = full_moon::parse_fallible(script, LuaVersion::lua51()).into_result() else {
        return Vec::new();
    };
    let mut v = Statements::default();
    ast.nodes().visit(&mut v);
    v.out
}

#[derive(Default)]
struct Statements {
    out: Vec<(usize, BTreeSet<usize>)>,
}

impl Statements {
    fn add(&mut self, node: &impl Visit, range: Option<(usize, usize)>) {
        let Some((start, end)) = range else { return };
        let mut inner = InnerBlocks::default();
        node.visit(&mut inner);
        let owned = (start..=end)
            .filter(|l| !inner.spans.iter().any(|(s, e)| s <= l && l <= e))
            .collect();
        self.out.push((start, owned));
    }
}

fn lines_of(node: &impl Node) -> Option<(usize, usize)> {
    let (s, e) = node.range()?;
    Some((s.line(), e.line()))
}

impl Visitor for Statements {
    fn visit_stmt(&mut self, node: &Stmt) {
        self.add(node, lines_of(node));
    }
    fn visit_last_stmt(&mut self, node: &LastStmt) {
        self.add(node, lines_of(node));
    }
}

/// The line spans of the blocks inside a statement.
#[derive(Default)]
struct InnerBlocks {
    spans: Vec<(usize, usize)>,
}

impl Visitor for InnerBlocks {
    fn visit_block(&mut self, node: &Block) {
        if let Some(span) = lines_of(node) {
            self.spans.push(span);
        }
    }
}

/// The lines the scripts cover together, as (covered, total) and a
/// percentage (`test --coverage-threshold`); `None` when they have no line
/// at all (nothing to measure).
///
/// ```
/// use karmada_interpreter_golden::coverage::{overall, ScriptCoverage};
/// use karmada_interpreter::api::InterpreterOperation;
///
/// let script = ScriptCoverage {
///     file: "c.yaml".into(),
///     customization: "widgets".into(),
///     operation: InterpreterOperation::InterpretHealth,
///     lines: [(3, true), (4, false), (5, true), (6, true)].into(),
/// };
/// assert_eq!(overall(std::slice::from_ref(&script)), Some((3, 4, 75.0)));
/// assert_eq!(overall(&[]), None);
/// ```
pub fn overall(scripts: &[ScriptCoverage]) -> Option<(usize, usize, f64)> {
    let total: usize = scripts.iter().map(ScriptCoverage::total).sum();
    let covered: usize = scripts.iter().map(ScriptCoverage::covered).sum();
    (total > 0).then(|| (covered, total, covered as f64 * 100.0 / total as f64))
}

/// The coverage as an lcov tracefile: one `SF` record per customization
/// file, `DA:<line>,<0|1>` per statement line, `LF`/`LH` totals.
pub fn lcov(scripts: &[ScriptCoverage]) -> String {
    let mut files: BTreeMap<&Path, BTreeMap<usize, bool>> = BTreeMap::new();
    for s in scripts {
        let lines = files.entry(&s.file).or_default();
        for (line, hit) in &s.lines {
            *lines.entry(*line).or_insert(false) |= *hit;
        }
    }
    let mut out = String::new();
    for (file, lines) in files {
        let _ = writeln!(out, "TN:\nSF:{}", file.display());
        for (line, hit) in &lines {
            let _ = writeln!(out, "DA:{line},{}", u8::from(*hit));
        }
        let _ = writeln!(
            out,
            "LF:{}\nLH:{}\nend_of_record",
            lines.len(),
            lines.values().filter(|h| **h).count()
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_own_their_lines_outside_nested_blocks() {
        let script = "local x =\n  1\nif x then\n  x = 2\nelse\n  x = 3\nend\nreturn x";
        let got = statements(script);
        let starts: Vec<usize> = got.iter().map(|(s, _)| *s).collect();
        assert_eq!(starts, [1, 3, 4, 6, 8]);
        assert_eq!(got[0].1, BTreeSet::from([1, 2]));
        assert_eq!(got[1].1, BTreeSet::from([3, 5, 7]));
    }

    #[test]
    fn ranges_compress_runs() {
        assert_eq!(ranges(&[1, 3, 4, 5, 9]), "1, 3-5, 9");
    }
}
