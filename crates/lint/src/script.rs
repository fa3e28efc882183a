//! The script level of `lint`: selene's checks with the sandbox's standard
//! library, and the project's own rules on full-moon's syntax tree.

use std::collections::{HashMap, HashSet};

use full_moon::ast::{
    self, Ast, BinOp, Block, Expression, FunctionArgs, FunctionBody, LastStmt, Parameter, Prefix,
    Stmt, Suffix, Var,
};
use full_moon::node::Node;
use full_moon::visitors::{Visit, Visitor};
use full_moon::LuaVersion;
use selene_lib::{Checker, CheckerConfig, CheckerError};

use super::sandbox_std;
use super::{Finding, Rule, Severity};
use karmada_interpreter_core::api::InterpreterOperation;

/// The functions of the sandbox's `kube` module (`require("kube")`); built
/// with the feature `karmada-next`, also the profile's `parseFlinkMemory`
/// (the scripts linted are taken to run with the profile on).
pub const KUBE_FUNCTIONS: &[&str] = &[
    "accuratePodRequirements",
    "getPodDependencies",
    "getResourceQuantity",
    #[cfg(feature = "karmada-next")]
    "parseFlinkMemory",
    "resourceAdd",
];

/// The functions the `kube` module has only with composition on
/// (`docs/composition.md`; Karmada's has none of them).
pub const COMPOSITION_FUNCTIONS: &[&str] = &["below"];

/// What is wrong with calling `kube.<f>` (with composition on or off), or
/// `None` when the module has it.
fn unknown_kube_function(f: &str, composition: bool) -> Option<String> {
    if KUBE_FUNCTIONS.contains(&f) || (composition && COMPOSITION_FUNCTIONS.contains(&f)) {
        return None;
    }
    if COMPOSITION_FUNCTIONS.contains(&f) {
        return Some(format!(
            "`kube.{f}` exists only with composition on (`--composition`, \
             `InterpreterBuilder::composition(true)`); Karmada's kube module has no `{f}`, \
             so the call fails there"
        ));
    }
    let mut known: Vec<&str> = KUBE_FUNCTIONS.to_vec();
    if composition {
        known.extend(COMPOSITION_FUNCTIONS);
        known.sort_unstable();
    }
    Some(format!(
        "module kube has no function `{f}` (it has {})",
        known.join(", ")
    ))
}

/// The parameters the engine passes to an operation's entry function.
pub(crate) fn entry_parameters(op: InterpreterOperation) -> &'static [&'static str] {
    use InterpreterOperation as Op;
    match op {
        Op::InterpretReplica | Op::InterpretComponent => &["obj"],
        Op::ReviseReplica => &["obj", "desiredReplica"],
        #[cfg(feature = "karmada-next")]
        Op::ReviseComponents => &["desiredObj", "components"],
        Op::Retain => &["desiredObj", "observedObj"],
        Op::AggregateStatus => &["desiredObj", "statusItems"],
        Op::InterpretStatus | Op::InterpretHealth => &["observedObj"],
        Op::InterpretDependency => &["desiredObj"],
        // An operation of the karmada-next profile when this crate is built
        // without the feature (the floor with it).
        #[cfg(not(feature = "karmada-next"))]
        #[allow(unreachable_patterns)]
        _ => &["desiredObj", "components"],
    }
}

/// Fields of an object an operation receives that may be absent.
const OPTIONAL_FIELDS: &[&[&str]] = &[
    &["status"],
    &["metadata", "labels"],
    &["metadata", "annotations"],
    &["metadata", "ownerReferences"],
];

/// selene's checks whose findings make the script fail when it runs
/// (wrong use of a library function); its other checks are warnings.
const FAILING_LINTS: &[&str] = &["incorrect_standard_library_use", "bad_string_escape"];

/// selene's style lints that say nothing about correctness are off.
const STYLE_LINTS: &[&str] = &["multiple_statements", "high_cyclomatic_complexity"];

pub(crate) fn checker() -> Result<Checker<serde_json::Value>, CheckerError> {
    let mut config = CheckerConfig::default();
    for lint in STYLE_LINTS {
        config
            .lints
            .insert((*lint).to_owned(), selene_lib::LintVariation::Allow);
    }
    Checker::new(config, sandbox_std::sandbox())
}

/// Lints one script; positions are the script's own (1-based).
pub(crate) fn lint(
    checker: &Checker<serde_json::Value>,
    text: &str,
    op: InterpreterOperation,
    composition: bool,
) -> Vec<Finding> {
    // Lua 5.2's grammar: 5.1 plus `goto`/labels, which gopher-lua accepts.
    let parsed = full_moon::parse_fallible(text, LuaVersion::lua52());
    if !parsed.errors().is_empty() {
        return parsed
            .errors()
            .iter()
            .map(|e| {
                let (start, _) = e.range();
                Finding::new(
                    Rule::Syntax,
                    start.line(),
                    start.character(),
                    format!("Lua syntax: {}", e.error_message()),
                )
            })
            .collect();
    }
    let ast = parsed.into_ast();
    let offsets = LineIndex::new(text);
    let entry = op.lua_function();
    let mut findings = Vec::new();
    let diagnostics = checker.test_on(&ast);
    // Globals the script assigns anywhere.
    let assigned: HashSet<&str> = diagnostics
        .iter()
        .filter(|d| d.diagnostic.code == "unscoped_variables")
        .filter_map(|d| backticked(&d.diagnostic.message))
        .collect();
    for d in &diagnostics {
        if d.severity == selene_lib::lints::Severity::Allow {
            continue;
        }
        let diag = &d.diagnostic;
        let (line, column) = offsets.position(diag.primary_label.range.0 as usize);
        let named = backticked(&diag.message);
        let (rule, severity, message) = match diag.code {
            "unscoped_variables" => {
                let name = named.unwrap_or_default();
                if name == entry {
                    continue;
                }
                global_assignment(name)
            }
            "undefined_variable" => {
                let name = named.unwrap_or_default();
                // A global assigned somewhere (in a function, a loop) is
                // defined once that code ran: the assignment is reported.
                if assigned.contains(name) {
                    continue;
                }
                if sandbox_std::withheld(name) {
                    (
                        Rule::Sandbox,
                        Severity::Error,
                        format!("`{name}` is not available in the customization sandbox"),
                    )
                } else {
                    (
                        Rule::UndefinedGlobal,
                        Severity::Error,
                        format!("`{name}` is not defined (reading it gives nil)"),
                    )
                }
            }
            "incorrect_standard_library_use"
                if diag.message.contains("is not overridable")
                    || diag.message.contains("is not writable") =>
            {
                global_assignment(named.unwrap_or_default())
            }
            "incorrect_standard_library_use" if diag.message.contains("does not contain") => (
                Rule::Sandbox,
                Severity::Error,
                format!(
                    "{} in the customization sandbox",
                    diag.message
                        .replace("standard library global", "library")
                        .replace("does not contain the field", "has no field")
                ),
            ),
            "unused_variable" => {
                // The entry function is called by the engine.
                // A global: its assignment is reported as such.
                let name = diag.message.split(' ').next();
                if name == Some(entry) || name.is_some_and(|n| assigned.contains(n)) {
                    continue;
                }
                (
                    Rule::UnusedVariable,
                    Severity::Warning,
                    diag.message.clone(),
                )
            }
            // Only what makes the script fail is an error: selene's other
            // checks (`if_same_then_else`, `constant_table_comparison`, ...)
            // find code that runs, perhaps not as meant.
            code => (
                Rule::Selene(code),
                match d.severity {
                    selene_lib::lints::Severity::Error if FAILING_LINTS.contains(&code) => {
                        Severity::Error
                    }
                    _ => Severity::Warning,
                },
                diag.message.clone(),
            ),
        };
        findings.push(Finding {
            file: String::new(),
            line,
            column,
            severity,
            rule,
            message,
        });
    }
    let mut rules = OwnRules::new(op, composition);
    rules.visit_ast(&ast);
    rules.finish(&ast);
    // The operation passes the entry function's parameters: an unused one
    // cannot be left out.
    findings.retain(|f| {
        f.rule != Rule::UnusedVariable || !rules.entry_params.contains(&(f.line, f.column))
    });
    findings.extend(rules.findings);
    // Replacing a builtin the script never calls breaks nothing.
    for f in &mut findings {
        if f.rule == Rule::GlobalAssignment && f.severity == Severity::Error {
            if let Some(name) = backticked(&f.message) {
                if !rules.called.contains(name) {
                    f.severity = Severity::Warning;
                }
            }
        }
    }
    let allowed = Allowances::parse(text);
    findings.retain(|f| !allowed.allows(f.rule.name(), f.line));
    findings.sort_by_key(|f| (f.line, f.column));
    findings.dedup();
    findings
}

fn global_assignment(name: &str) -> (Rule, Severity, String) {
    if sandbox_std::is_builtin(name) {
        (
            Rule::GlobalAssignment,
            Severity::Error,
            format!(
                "assignment to global `{name}` replaces the builtin `{name}` for the rest of the script; use a local with another name"
            ),
        )
    } else {
        (
            Rule::GlobalAssignment,
            Severity::Warning,
            format!("`{name}` is assigned as a global; declare it `local`"),
        )
    }
}

/// The first `name` quoted in backticks in a selene message.
fn backticked(message: &str) -> Option<&str> {
    let start = message.find('`')? + 1;
    let len = message[start..].find('`')?;
    Some(&message[start..start + len])
}

/// Byte offset to 1-based line and column (in characters).
struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Self { text, starts }
    }

    fn position(&self, offset: usize) -> (usize, usize) {
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        let start = self.starts[line - 1];
        let column = self
            .text
            .get(start..offset.min(self.text.len()))
            .map_or(1, |s| s.chars().count() + 1);
        (line, column)
    }
}

/// `-- lint: allow(rule, ...)` comments.
#[derive(Debug, Default)]
struct Allowances {
    script: HashSet<String>,
    lines: HashMap<usize, HashSet<String>>,
}

impl Allowances {
    fn parse(text: &str) -> Self {
        let mut out = Self::default();
        let mut pending: Vec<String> = Vec::new();
        let mut seen_code = false;
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            let trimmed = line.trim_start();
            let (code, comment) = match line.find("--") {
                Some(at) => (&line[..at], Some(&line[at + 2..])),
                None => (line, None),
            };
            let rules = comment.map(allowed_rules).unwrap_or_default();
            let has_code = !code.trim().is_empty();
            if has_code {
                seen_code = true;
                let entry = out.lines.entry(n).or_default();
                entry.extend(pending.drain(..));
                entry.extend(rules);
            } else if trimmed.starts_with("--") && !rules.is_empty() {
                if seen_code {
                    pending.extend(rules);
                } else {
                    out.script.extend(rules);
                }
            }
        }
        out
    }

    fn allows(&self, rule: &str, line: usize) -> bool {
        self.script.contains(rule) || self.lines.get(&line).is_some_and(|r| r.contains(rule))
    }
}

/// The rules in `lint: allow(a, b)` within a comment's text.
fn allowed_rules(comment: &str) -> Vec<String> {
    let Some(at) = comment.find("lint: allow(") else {
        return Vec::new();
    };
    let rest = &comment[at + "lint: allow(".len()..];
    let Some(end) = rest.find(')') else {
        return Vec::new();
    };
    rest[..end]
        .split(',')
        .map(|r| r.trim().to_owned())
        .filter(|r| !r.is_empty())
        .collect()
}

fn position(node: &impl Node) -> (usize, usize) {
    node.start_position()
        .map_or((1, 1), |p| (p.line(), p.character()))
}

/// The project's own rules, in one walk over the tree.
struct OwnRules {
    op: InterpreterOperation,
    /// Composition on: `kube.below` exists.
    composition: bool,
    findings: Vec<Finding>,
    /// Names bound to `require("kube")`.
    kube_locals: HashSet<String>,
    /// Every name declared `local` (or as a local function) anywhere.
    locals: HashSet<String>,
    /// Global function declarations (name, position) other than the entry.
    global_functions: Vec<(String, (usize, usize))>,
    entry_found: bool,
    /// Positions of the entry function's parameters.
    entry_params: HashSet<(usize, usize)>,
    /// String functions the sandbox withholds, as methods (`gsub`, ...).
    withheld_methods: &'static [String],
    /// Global names the script calls (`type(...)`).
    called: HashSet<String>,
}

impl OwnRules {
    fn new(op: InterpreterOperation, composition: bool) -> Self {
        Self {
            op,
            composition,
            findings: Vec::new(),
            kube_locals: HashSet::new(),
            locals: HashSet::new(),
            global_functions: Vec::new(),
            entry_found: false,
            entry_params: HashSet::new(),
            withheld_methods: sandbox_std::withheld_string_functions(),
            called: HashSet::new(),
        }
    }

    fn push(&mut self, rule: Rule, at: (usize, usize), message: String) {
        self.findings.push(Finding::new(rule, at.0, at.1, message));
    }

    fn finish(&mut self, ast: &Ast) {
        for (name, at) in std::mem::take(&mut self.global_functions) {
            if !self.locals.contains(&name) {
                let (rule, severity, message) = global_assignment(&name);
                let mut f = Finding::new(rule, at.0, at.1, message);
                f.severity = severity;
                self.findings.push(f);
            }
        }
        if !self.entry_found {
            let at = position(ast.nodes());
            self.push(
                Rule::MissingEntry,
                at,
                format!(
                    "the script does not define the global function `{}` that {} calls",
                    self.op.lua_function(),
                    self.op
                ),
            );
        }
    }

    fn check_entry(&mut self, body: &FunctionBody, at: (usize, usize)) {
        self.entry_found = true;
        let expected = entry_parameters(self.op);
        let params: Vec<&Parameter> = body.parameters().iter().collect();
        self.entry_params
            .extend(params.iter().map(|p| position(*p)));
        let vararg = params.iter().any(|p| matches!(p, Parameter::Ellipsis(_)));
        if !vararg && params.len() != expected.len() {
            self.push(
                Rule::EntryArity,
                at,
                format!(
                    "`{}` takes {} parameter(s), but {} passes {} ({})",
                    self.op.lua_function(),
                    params.len(),
                    self.op,
                    expected.len(),
                    expected.join(", ")
                ),
            );
        }
        let names: Vec<String> = params
            .iter()
            .filter_map(|p| match p {
                Parameter::Name(t) => Some(t.token().to_string()),
                _ => None,
            })
            .collect();
        let mut guards = FieldReads::default();
        body.block().visit(&mut guards);
        for (chain, at) in &guards.reads {
            let Some(root) = chain.first() else { continue };
            if !names.contains(root) {
                continue;
            }
            for optional in OPTIONAL_FIELDS {
                let n = optional.len();
                if chain.len() > n + 1 && chain[1..=n] == **optional {
                    let prefix = chain[..=n].join(".");
                    if !guards.guarded.contains(&prefix) {
                        self.push(
                            Rule::UnguardedField,
                            *at,
                            format!(
                                "`{}` is read without checking `{prefix}`, which may be absent (nil)",
                                chain.join(".")
                            ),
                        );
                    }
                }
            }
        }
    }

    /// Statements after one that always leaves the block.
    fn check_unreachable(&mut self, block: &Block) {
        let stmts: Vec<&Stmt> = block.stmts().collect();
        for (i, stmt) in stmts.iter().enumerate() {
            if !stmt_leaves(stmt) {
                continue;
            }
            let next = match stmts.get(i + 1) {
                Some(s) => position(*s),
                None => match block.last_stmt() {
                    Some(l) => position(l),
                    None => break,
                },
            };
            self.push(
                Rule::UnreachableCode,
                next,
                "unreachable code: the statement before always returns or raises an error".into(),
            );
            break;
        }
    }
}

/// Whether a statement always leaves its block (raises or returns).
fn stmt_leaves(stmt: &Stmt) -> bool {
    match stmt {
        Stmt::FunctionCall(call) => is_error_call(call),
        Stmt::Do(d) => block_leaves(d.block()),
        Stmt::If(i) => {
            i.else_block().is_some_and(block_leaves)
                && block_leaves(i.block())
                && i.else_if()
                    .is_none_or(|eis| eis.iter().all(|e| block_leaves(e.block())))
        }
        _ => false,
    }
}

fn block_leaves(block: &Block) -> bool {
    matches!(block.last_stmt(), Some(LastStmt::Return(_))) || block.stmts().any(stmt_leaves)
}

fn is_error_call(call: &ast::FunctionCall) -> bool {
    matches!(call.prefix(), Prefix::Name(n) if n.token().to_string() == "error")
        && call.suffixes().count() == 1
}

/// The name chain of `a.b.c` (dot and constant-string indexes), stopping at
/// the first call or computed index; `None` unless it starts at a name.
fn name_chain<'a>(prefix: &Prefix, suffixes: impl Iterator<Item = &'a Suffix>) -> Vec<String> {
    let Prefix::Name(root) = prefix else {
        return Vec::new();
    };
    let mut chain = vec![root.token().to_string()];
    for s in suffixes {
        match s {
            Suffix::Index(ast::Index::Dot { name, .. }) => chain.push(name.token().to_string()),
            Suffix::Index(ast::Index::Brackets { expression, .. }) => {
                match string_literal(expression) {
                    Some(s) => chain.push(s),
                    None => {
                        chain.push("[]".into());
                        break;
                    }
                }
            }
            _ => break,
        }
    }
    chain
}

fn string_literal(expr: &Expression) -> Option<String> {
    match expr {
        Expression::String(t) => {
            let s = t.token().to_string();
            Some(s.trim_matches(|c| c == '"' || c == '\'').to_owned())
        }
        _ => None,
    }
}

/// Field reads within a function and the chains its conditions test.
#[derive(Default)]
struct FieldReads {
    reads: Vec<(Vec<String>, (usize, usize))>,
    guarded: HashSet<String>,
}

impl FieldReads {
    /// Every chain in `expr` is tested (condition, `and`/`or` operand,
    /// comparison with nil).
    fn tested(&mut self, expr: &Expression) {
        let mut t = TestedChains::default();
        expr.visit(&mut t);
        self.guarded.extend(t.chains);
    }
}

impl Visitor for FieldReads {
    fn visit_var_expression(&mut self, node: &ast::VarExpression) {
        let chain = name_chain(node.prefix(), node.suffixes());
        if chain.len() > 1 {
            self.reads.push((chain, position(node)));
        }
    }
    fn visit_function_call(&mut self, node: &ast::FunctionCall) {
        let chain = name_chain(node.prefix(), node.suffixes());
        if chain.len() > 1 {
            self.reads.push((chain, position(node)));
        }
    }
    fn visit_if(&mut self, node: &ast::If) {
        self.tested(node.condition());
        for e in node.else_if().into_iter().flatten() {
            self.tested(e.condition());
        }
    }
    fn visit_while(&mut self, node: &ast::While) {
        self.tested(node.condition());
    }
    fn visit_repeat(&mut self, node: &ast::Repeat) {
        self.tested(node.until());
    }
    fn visit_expression(&mut self, node: &Expression) {
        if let Expression::BinaryOperator { lhs, binop, .. } = node {
            if matches!(binop, BinOp::And(_) | BinOp::Or(_)) {
                self.tested(lhs);
            }
        }
    }
}

/// The chains (`a.b`, `a.b.c`) that appear as whole operands in an
/// expression.
#[derive(Default)]
struct TestedChains {
    chains: Vec<String>,
}

impl Visitor for TestedChains {
    fn visit_var_expression(&mut self, node: &ast::VarExpression) {
        let chain = name_chain(node.prefix(), node.suffixes());
        if chain.len() > 1 && !chain.iter().any(|c| c == "[]") {
            self.chains.push(chain.join("."));
        }
    }
}

fn is_require_kube(expr: &Expression) -> bool {
    let Expression::FunctionCall(call) = expr else {
        return false;
    };
    let Prefix::Name(n) = call.prefix() else {
        return false;
    };
    n.token().to_string() == "require" && call_string_arg(call).as_deref() == Some("kube")
}

/// The first argument of a one-call expression when it is a string literal.
fn call_string_arg(call: &ast::FunctionCall) -> Option<String> {
    let Some(Suffix::Call(ast::Call::AnonymousCall(args))) = call.suffixes().next() else {
        return None;
    };
    match args {
        FunctionArgs::Parentheses { arguments, .. } => {
            arguments.iter().next().and_then(string_literal)
        }
        FunctionArgs::String(t) => {
            let s = t.token().to_string();
            Some(s.trim_matches(|c| c == '"' || c == '\'').to_owned())
        }
        _ => None,
    }
}

impl OwnRules {
    fn check_kube_use(&mut self, prefix: &Prefix, mut suffixes: std::slice::Iter<'_, &Suffix>) {
        let Prefix::Name(n) = prefix else { return };
        if !self.kube_locals.contains(&n.token().to_string()) {
            return;
        }
        if let Some(Suffix::Index(ast::Index::Dot { name, .. })) = suffixes.next() {
            let f = name.token().to_string();
            if let Some(message) = unknown_kube_function(&f, self.composition) {
                self.push(Rule::Sandbox, position(name), message);
            }
        }
    }
}

impl Visitor for OwnRules {
    fn visit_block(&mut self, node: &Block) {
        self.check_unreachable(node);
    }

    fn visit_local_assignment(&mut self, node: &ast::LocalAssignment) {
        let names: Vec<String> = node.names().iter().map(|t| t.token().to_string()).collect();
        for (name, expr) in names.iter().zip(node.expressions().iter()) {
            if is_require_kube(expr) {
                self.kube_locals.insert(name.clone());
            }
        }
        self.locals.extend(names);
    }

    fn visit_local_function(&mut self, node: &ast::LocalFunction) {
        self.locals.insert(node.name().token().to_string());
    }

    fn visit_function_declaration(&mut self, node: &ast::FunctionDeclaration) {
        let names: Vec<String> = node
            .name()
            .names()
            .iter()
            .map(|t| t.token().to_string())
            .collect();
        if node.name().method_name().is_some() || names.len() != 1 {
            return;
        }
        let at = position(node.name());
        if names[0] == self.op.lua_function() {
            self.check_entry(node.body(), at);
        } else {
            self.global_functions.push((names[0].clone(), at));
        }
    }

    fn visit_assignment(&mut self, node: &ast::Assignment) {
        for (var, expr) in node.variables().iter().zip(node.expressions().iter()) {
            if let (Var::Name(n), Expression::Function(f)) = (var, expr) {
                if n.token().to_string() == self.op.lua_function() {
                    self.check_entry(f.body(), position(n));
                }
            }
        }
    }

    fn visit_function_call(&mut self, node: &ast::FunctionCall) {
        if let (Prefix::Name(n), Some(Suffix::Call(_))) = (node.prefix(), node.suffixes().next()) {
            self.called.insert(n.token().to_string());
        }
        if let Prefix::Name(n) = node.prefix() {
            if n.token().to_string() == "require" {
                match call_string_arg(node) {
                    // gopher-lua's package.loaded: `kube` and the opened libraries
                    Some(m) if matches!(m.as_str(), "kube" | "string" | "table" | "math" | "os" | "_G") => {}
                    Some(m) => self.push(
                        Rule::Sandbox,
                        position(node),
                        format!("module `{m}` does not exist in the sandbox (only `kube` and the opened libraries)"),
                    ),
                    None => {}
                }
            }
        }
        let suffixes: Vec<&Suffix> = node.suffixes().collect();
        self.check_kube_use(node.prefix(), suffixes.iter());
        // s:gsub(...), ("x"):rep(3): a string method the sandbox withholds.
        for suffix in &suffixes {
            if let Suffix::Call(ast::Call::MethodCall(m)) = suffix {
                let name = m.name().token().to_string();
                if self.withheld_methods.contains(&name) {
                    self.push(
                        Rule::Sandbox,
                        position(m.name()),
                        format!(
                            "`:{name}(...)` calls `string.{name}`, which the customization sandbox disables (the call fails)"
                        ),
                    );
                }
            }
        }
        // require("kube").f(...)
        if let Some(Suffix::Call(_)) = suffixes.first() {
            if let Prefix::Name(n) = node.prefix() {
                if n.token().to_string() == "require"
                    && call_string_arg(node).as_deref() == Some("kube")
                {
                    if let Some(Suffix::Index(ast::Index::Dot { name, .. })) = suffixes.get(1) {
                        let f = name.token().to_string();
                        if let Some(message) = unknown_kube_function(&f, self.composition) {
                            self.push(Rule::Sandbox, position(name), message);
                        }
                    }
                }
            }
        }
    }

    fn visit_var_expression(&mut self, node: &ast::VarExpression) {
        let suffixes: Vec<&Suffix> = node.suffixes().collect();
        self.check_kube_use(node.prefix(), suffixes.iter());
    }
}
