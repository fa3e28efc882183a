//! The bodies of the fuzz targets, shared by `cargo fuzz` (`fuzz_targets/`)
//! and the bounded property tests of `cargo test`
//! (`tests/fuzz_properties.rs` includes this file), so both exercise the
//! same code with the same assertions.
//!
//! Each target takes raw bytes. Targets over structured input (objects,
//! patches, Lua tables) read the bytes through [`Bytes`], a byte-driven
//! generator: every input decodes to *some* value, biased towards the
//! shapes and field names the interpreter reads, so the fuzzer spends its
//! time past the parsers. Every target asserts that the code under test
//! answers or fails with its typed error and never panics, plus the
//! invariants named in each target's documentation.
//!
//! Only the crate's public API is used.

use std::path::Path;
use std::sync::OnceLock;

use karmada_interpreter::api::{
    AggregatedStatusItem, InterpreterOperation as Op, ResourceInterpreterContext,
    ResourceInterpreterCustomization, ResourceInterpreterRequest,
};
use karmada_interpreter::declarative::LuaLayer;
use karmada_interpreter::interpreter::{CatalogEntry, Layer, Outcome, Request};
use karmada_interpreter::k8s::quantity::Quantity;
use karmada_interpreter::webhook::sdk::{self, Body, InterpreterHandler};
use karmada_interpreter::webhook::{apply_patch, decode_response, interpret_response};
use karmada_interpreter::Interpreter;
use serde_json::{json, Map, Number, Value};

/// A byte-driven generator: reads the fuzz input front to back; once the
/// input is exhausted every read returns zero, so generation always ends.
pub struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Bytes<'a> {
    /// Reads `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Self { data, pos: 0 }
    }

    /// The next byte (0 once exhausted).
    pub fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos = self.pos.saturating_add(1);
        b
    }

    /// True one time in `n` (always once the input is exhausted).
    pub fn one_in(&mut self, n: u8) -> bool {
        self.byte().is_multiple_of(n)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let v = if n <= 256 {
            usize::from(self.byte())
        } else {
            usize::from(u16::from_le_bytes([self.byte(), self.byte()]))
        };
        v % n
    }

    /// Eight bytes as an `i64`.
    pub fn i64(&mut self) -> i64 {
        let mut raw = [0u8; 8];
        for b in &mut raw {
            *b = self.byte();
        }
        i64::from_le_bytes(raw)
    }

    /// Whether anything is left.
    pub fn exhausted(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// The unread rest of the input.
    pub fn rest(&self) -> &'a [u8] {
        self.data.get(self.pos..).unwrap_or(&[])
    }

    /// One of `items` (the first when exhausted).
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// A short string: one of the interesting words, or raw bytes.
    pub fn string(&mut self) -> String {
        if self.one_in(4) {
            let n = self.below(12);
            let raw: Vec<u8> = (0..n).map(|_| self.byte()).collect();
            String::from_utf8_lossy(&raw).into_owned()
        } else {
            self.pick(WORDS).to_owned()
        }
    }
}

/// Field names and values the native built-ins, the Lua bridge and the
/// webhook verification look at.
const WORDS: &[&str] = &[
    "",
    "apiVersion",
    "kind",
    "metadata",
    "name",
    "namespace",
    "labels",
    "annotations",
    "spec",
    "status",
    "replicas",
    "readyReplicas",
    "availableReplicas",
    "updatedReplicas",
    "observedGeneration",
    "generation",
    "template",
    "containers",
    "initContainers",
    "resources",
    "requests",
    "limits",
    "cpu",
    "memory",
    "nodeSelector",
    "tolerations",
    "affinity",
    "volumes",
    "configMap",
    "secret",
    "secretName",
    "persistentVolumeClaim",
    "claimName",
    "serviceAccountName",
    "imagePullSecrets",
    "conditions",
    "type",
    "phase",
    "Running",
    "Succeeded",
    "Failed",
    "Available",
    "Complete",
    "True",
    "False",
    "parallelism",
    "completions",
    "jobTemplate",
    "selector",
    "matchLabels",
    "ports",
    "clusterIP",
    "loadBalancer",
    "ingress",
    "ip",
    "hostname",
    "rules",
    "tls",
    "backend",
    "service",
    "minAvailable",
    "maxUnavailable",
    "currentHealthy",
    "desiredHealthy",
    "volumeName",
    "claimRef",
    "accessModes",
    "capacity",
    "priorityClassName",
    "updateStrategy",
    "strategy",
    "paused",
    "suspend",
    "active",
    "succeeded",
    "failed",
    "startTime",
    "completionTime",
    "lastScheduleTime",
    "100m",
    "1Gi",
    "1.5",
    "-1",
    "1e3",
    "9223372036854775807Ei",
    "0.000000001m",
    "abc",
    "1.2.3",
    "2023-02-08T07:17:00Z",
    "-",
    "-1",
    "~0",
    "~1",
    "0",
];

/// Numbers at the edges the code converts between (i32, i64, u64, f64).
const NUMBERS: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    2.5,
    1e300,
    -1e300,
    1e-300,
    9007199254740993.0,
    // Integral floats beyond the integer range; doubles above 2^53.
    1e20,
    -1e20,
    9.3e18,
    1_537_228_672_809_129_216.0,
];

/// A generated JSON value of at most `depth` nested containers.
pub fn json_value(b: &mut Bytes<'_>, depth: u32) -> Value {
    let choices = if depth == 0 || b.exhausted() { 9 } else { 12 };
    match b.below(choices) {
        0 => Value::Null,
        1 => Value::Bool(b.one_in(2)),
        2 => json!(i64::from(b.byte()) - 16),
        3 => json!(b.pick(&[
            i64::MAX,
            i64::MIN,
            i64::from(i32::MAX),
            i64::from(i32::MIN),
            2_147_483_648,
        ])),
        4 => json!(u64::MAX - u64::from(b.byte())),
        5 => Number::from_f64(b.pick(NUMBERS)).map_or(Value::Null, Value::Number),
        6 => json!(b.i64()),
        7 | 8 => Value::String(b.string()),
        9 => {
            let n = b.below(5);
            Value::Array((0..n).map(|_| json_value(b, depth - 1)).collect())
        }
        _ => Value::Object(json_object(b, depth - 1)),
    }
}

/// A generated JSON object (member names mostly from [`WORDS`]).
pub fn json_object(b: &mut Bytes<'_>, depth: u32) -> Map<String, Value> {
    let n = b.below(7);
    let mut map = Map::new();
    for _ in 0..n {
        let key = b.string();
        map.insert(key, json_value(b, depth));
    }
    map
}

/// A generated object of the given kind: random members, then `apiVersion`
/// and `kind` set so the chain dispatches on them.
pub fn object_of(b: &mut Bytes<'_>, api_version: &str, kind: &str) -> Value {
    let mut map = json_object(b, 5);
    map.insert("apiVersion".into(), Value::String(api_version.to_owned()));
    map.insert("kind".into(), Value::String(kind.to_owned()));
    Value::Object(map)
}

/// Checks that `outcome` answers `op` (a layer must never answer another
/// operation than the one asked).
fn assert_answers(op: Op, outcome: &Outcome) {
    assert_eq!(outcome.operation(), op, "answered another operation");
}

fn native_chain() -> &'static (Interpreter, Vec<CatalogEntry>) {
    static CHAIN: OnceLock<(Interpreter, Vec<CatalogEntry>)> = OnceLock::new();
    CHAIN.get_or_init(|| {
        let chain = Interpreter::builder()
            .thirdparty(false)
            .build()
            .expect("the native chain builds");
        let mut catalog = chain.catalog();
        catalog.sort_by(|a, b| {
            (&a.api_version, &a.kind, a.operation).cmp(&(&b.api_version, &b.kind, b.operation))
        });
        (chain, catalog)
    })
}

/// Generated per-cluster status items for `AggregateStatus`.
fn status_items(b: &mut Bytes<'_>) -> Vec<AggregatedStatusItem> {
    let n = b.below(4);
    (0..n)
        .map(|_| {
            // A `null` item decodes as Go's zero item.
            if b.one_in(8) {
                return serde_json::from_value(Value::Null).unwrap_or_default();
            }
            // Member names in another case match as Go matches them.
            let upper = b.one_in(4);
            let name = |n: &str| {
                if upper {
                    n.to_uppercase()
                } else {
                    n.to_owned()
                }
            };
            let mut item = Map::new();
            item.insert(name("clusterName"), Value::String(b.string()));
            if !b.one_in(4) {
                item.insert(name("status"), Value::Object(json_object(b, 4)));
            }
            item.insert("applied".into(), Value::Bool(b.one_in(2)));
            item.insert(
                "health".into(),
                json!(b.pick(&["Healthy", "Unhealthy", "Unknown", "Other"])),
            );
            serde_json::from_value(Value::Object(item)).unwrap_or_default()
        })
        .collect()
}

/// Runs `request` on `layer`: an answer to the same operation or a typed
/// error, never a panic.
fn run(layer: &dyn Layer, request: &Request<'_>) {
    if let Ok(outcome) = layer.interpret(request) {
        assert_answers(request.operation(), &outcome);
    }
}

/// Builds one request of `op` over `object` with generated extras and runs it.
fn run_operation(b: &mut Bytes<'_>, layer: &dyn Layer, op: Op, object: &Value) {
    match op {
        Op::InterpretReplica => run(layer, &Request::InterpretReplica { object }),
        Op::InterpretComponent => run(layer, &Request::InterpretComponent { object }),
        Op::ReviseReplica => {
            let replicas = match b.below(3) {
                0 => i64::from(b.byte()),
                1 => b.pick(&[i64::MAX, i64::MIN, -1, i64::from(i32::MAX) + 1]),
                _ => b.i64(),
            };
            run(layer, &Request::ReviseReplica { object, replicas });
        }
        Op::Retain => {
            let (api_version, kind) = api_version_and_kind(object);
            let observed = object_of(b, &api_version, &kind);
            run(
                layer,
                &Request::Retain {
                    desired: object,
                    observed: &observed,
                },
            );
        }
        Op::AggregateStatus => {
            let items = status_items(b);
            let items = (!b.one_in(8)).then_some(items.as_slice());
            run(layer, &Request::AggregateStatus { object, items });
        }
        #[cfg(feature = "karmada-next")]
        Op::ReviseComponents => {
            let components: Vec<karmada_interpreter::api::TargetComponent> = (0..b.below(4))
                .map(|_| karmada_interpreter::api::TargetComponent {
                    name: b.string(),
                    replicas: b.i64() as i32,
                })
                .collect();
            let components = (!b.one_in(8)).then_some(components.as_slice());
            run(layer, &Request::ReviseComponents { object, components });
        }
        Op::InterpretStatus => run(layer, &Request::InterpretStatus { object }),
        Op::InterpretHealth => run(layer, &Request::InterpretHealth { object }),
        Op::InterpretDependency => run(layer, &Request::InterpretDependency { object }),
    }
}

fn api_version_and_kind(object: &Value) -> (String, String) {
    let field = |f: &str| {
        object
            .get(f)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    (field("apiVersion"), field("kind"))
}

/// Target `native_operation`: one (kind, operation) the native layer serves,
/// chosen by the first bytes, on a generated object of that kind.
///
/// Invariant: every answer is to the operation asked.
pub fn native_operation(data: &[u8]) {
    let (chain, catalog) = native_chain();
    let mut b = Bytes::new(data);
    let entry = &catalog[b.below(catalog.len())];
    let api_version = if entry.api_version == "*" {
        "example.io/v1"
    } else {
        entry.api_version.as_str()
    };
    let kind = if entry.kind == "*" {
        "Widget"
    } else {
        entry.kind.as_str()
    };
    let object = object_of(&mut b, api_version, kind);
    let layer = chain.layers()[0].as_ref();
    run_operation(&mut b, layer, entry.operation, &object);
}

const FUZZ_API_VERSION: &str = "fuzz.example.io/v1";
const FUZZ_KIND: &str = "Fuzzed";

fn lua_layer(scripts: &[(&str, &str)]) -> LuaLayer {
    let mut customizations = Map::new();
    for (member, script) in scripts {
        customizations.insert((*member).to_owned(), json!({ "luaScript": script }));
    }
    let c: ResourceInterpreterCustomization = serde_json::from_value(json!({
        "apiVersion": "config.karmada.io/v1alpha1",
        "kind": "ResourceInterpreterCustomization",
        "metadata": {"name": "fuzz"},
        "spec": {
            "target": {"apiVersion": FUZZ_API_VERSION, "kind": FUZZ_KIND},
            "customizations": customizations,
        },
    }))
    .expect("the fuzz customization decodes");
    LuaLayer::customizations(vec![c]).expect("the fuzz customization loads")
}

/// A Lua layer whose scripts hand their input straight back: every value
/// crosses host → Lua → host once.
fn echo_layer() -> &'static LuaLayer {
    static LAYER: OnceLock<LuaLayer> = OnceLock::new();
    LAYER.get_or_init(|| {
        lua_layer(&[
            (
                "retention",
                "function Retain(desiredObj, observedObj) return desiredObj end",
            ),
            (
                "statusReflection",
                "function ReflectStatus(observedObj) return observedObj.status end",
            ),
            (
                "replicaRevision",
                "function ReviseReplica(obj, replicas) obj.spec = obj.spec or {} \
                 obj.spec.replicas = replicas return obj end",
            ),
            (
                "statusAggregation",
                "function AggregateStatus(desiredObj, statusItems) \
                 desiredObj.status = {items = statusItems} return desiredObj end",
            ),
            (
                "componentResource",
                "function GetComponents(desiredObj) return desiredObj.spec end",
            ),
            (
                "replicaResource",
                "function GetReplicas(obj) return obj.spec, obj.status end",
            ),
            (
                "healthInterpretation",
                "function InterpretHealth(observedObj) return observedObj.status end",
            ),
            (
                "dependencyInterpretation",
                "function GetDependencies(desiredObj) return desiredObj.spec end",
            ),
        ])
    })
}

/// Target `host_to_lua`: a generated object through a Lua script that hands
/// (parts of) it back, for one of the eight operations.
///
/// Invariant: a "plain" object (no nulls, no empty containers, integers
/// within ±2^53 only) comes back from `Retain` unchanged. Objects with empty
/// containers are not checked: their reconciliation (docs/lua-environment.md, "From JSON to Lua and
/// back") looks at
/// index-free paths of the reference objects, so `[]` may legitimately come
/// back as `{}` (fuzzing found such a case, kept as a regression input).
pub fn host_to_lua(data: &[u8]) {
    let layer = echo_layer();
    let mut b = Bytes::new(data);
    let op = Op::ALL[b.below(Op::ALL.len())];
    let object = object_of(&mut b, FUZZ_API_VERSION, FUZZ_KIND);
    if op == Op::Retain && is_plain(&object) {
        let observed = object_of(&mut b, FUZZ_API_VERSION, FUZZ_KIND);
        let answer = layer.interpret(&Request::Retain {
            desired: &object,
            observed: &observed,
        });
        match answer {
            Ok(Outcome::Retained(back)) => assert_eq!(back, object, "a plain object changed"),
            other => panic!("a plain object did not cross: {other:?}"),
        }
        return;
    }
    run_operation(&mut b, layer, op, &object);
}

/// No nulls, no empty containers, every number an integer within ±2^53
/// (exact as a Lua double).
fn is_plain(v: &Value) -> bool {
    const EXACT: i64 = 1 << 53;
    match v {
        Value::Null => false,
        Value::Bool(_) | Value::String(_) => true,
        Value::Number(n) => n.as_i64().is_some_and(|i| (-EXACT..=EXACT).contains(&i)),
        Value::Array(a) => !a.is_empty() && a.iter().all(is_plain),
        Value::Object(m) => !m.is_empty() && m.values().all(is_plain),
    }
}

/// Lua expressions for values the bridge must handle or refuse cleanly.
const LUA_ATOMS: &[&str] = &[
    "nil",
    "true",
    "false",
    "0",
    "-0",
    "1",
    "-1",
    "0.5",
    "2^53",
    "2^53 + 1",
    "2^63",
    "-2^63",
    "2^64",
    "1e308",
    "1/0",
    "-1/0",
    "0/0",
    "''",
    "'x'",
    "'\\0\\255'",
    "string.char(200, 201)",
    "print",
    "function() end",
    "coroutine.create(function() end)",
    "shared",
    "t",
];

/// A generated Lua expression (table constructors nest up to `depth`).
pub fn lua_expression(b: &mut Bytes<'_>, depth: u32, out: &mut String) {
    if depth == 0 || b.exhausted() || b.one_in(3) {
        out.push_str(b.pick(LUA_ATOMS));
        return;
    }
    out.push('{');
    let n = b.below(6);
    for i in 0..n {
        if i > 0 {
            out.push_str(", ");
        }
        match b.below(6) {
            // positional
            0 | 1 => {}
            // string key
            2 | 3 => {
                out.push_str("[\"");
                for c in b.string().chars() {
                    match c {
                        '\\' | '"' => {
                            out.push('\\');
                            out.push(c);
                        }
                        c if c.is_ascii_graphic() || c == ' ' => out.push(c),
                        c => out.push_str(&format!("\\{}", u32::from(c) % 256)),
                    }
                }
                out.push_str("\"] = ");
            }
            // numeric key: sparse, zero, negative, fractional, huge
            4 => {
                let key = b.pick(&["0", "-1", "1", "2", "3", "5", "1.5", "2^31", "2^53"]);
                out.push('[');
                out.push_str(key);
                out.push_str("] = ");
            }
            // boolean key
            _ => out.push_str("[true] = "),
        }
        lua_expression(b, depth - 1, out);
    }
    out.push('}');
}

/// Target `lua_to_host`: a script builds a generated Lua value (nested
/// tables with mixed, sparse and odd keys, NaN, infinities, functions,
/// cycles, a table reachable twice) and returns it through each operation.
pub fn lua_to_host(data: &[u8]) {
    let mut b = Bytes::new(data);
    let op = Op::ALL[b.below(Op::ALL.len())];
    let mut expr = String::new();
    lua_expression(&mut b, 4, &mut expr);
    let tweak = match b.below(4) {
        0 => "t.self = t",
        1 => "if type(t) == 'table' then t.again = shared end",
        2 => "if type(t) == 'table' then setmetatable(t, {__index = function() return 1 end}) end",
        _ => "",
    };
    let body = format!("local shared = {{}} local t = {{}} t = {expr} {tweak}");
    let script = |name: &str, args: &str, result: &str| {
        format!("function {name}({args}) {body} return {result} end")
    };
    let (member, text) = match op {
        Op::InterpretReplica => ("replicaResource", script("GetReplicas", "obj", "1, t")),
        Op::InterpretComponent => ("componentResource", script("GetComponents", "obj", "t")),
        Op::ReviseReplica => ("replicaRevision", script("ReviseReplica", "obj, r", "t")),
        #[cfg(feature = "karmada-next")]
        Op::ReviseComponents => (
            "componentRevision",
            script("ReviseComponents", "obj, c", "t"),
        ),
        Op::Retain => ("retention", script("Retain", "d, o", "t")),
        Op::AggregateStatus => ("statusAggregation", script("AggregateStatus", "d, s", "t")),
        Op::InterpretStatus => ("statusReflection", script("ReflectStatus", "o", "t")),
        Op::InterpretHealth => ("healthInterpretation", script("InterpretHealth", "o", "t")),
        Op::InterpretDependency => (
            "dependencyInterpretation",
            script("GetDependencies", "d", "t"),
        ),
    };
    let layer = lua_layer(&[(member, &text)]);
    let object = json!({"apiVersion": FUZZ_API_VERSION, "kind": FUZZ_KIND,
                        "metadata": {"name": "n"}, "spec": {"replicas": 1}});
    run_operation(&mut b, &layer, op, &object);
}

/// A generated RFC 6902 patch whose paths mostly point into `object`.
pub fn patch_for(b: &mut Bytes<'_>, object: &Value) -> Value {
    let n = b.below(5);
    let ops = (0..n)
        .map(|_| {
            let op = b.pick(&["add", "remove", "replace", "move", "copy", "test", "bogus"]);
            let mut m = Map::new();
            m.insert("op".into(), json!(op));
            m.insert("path".into(), json!(pointer_into(b, object)));
            match b.below(3) {
                0 => {
                    m.insert("from".into(), json!(pointer_into(b, object)));
                }
                1 => {
                    m.insert("value".into(), json_value(b, 2));
                }
                _ => {}
            }
            Value::Object(m)
        })
        .collect();
    Value::Array(ops)
}

fn pointer_into(b: &mut Bytes<'_>, object: &Value) -> String {
    let mut out = String::new();
    let mut node = Some(object);
    let steps = b.below(5);
    for _ in 0..steps {
        let token = match node {
            Some(Value::Object(m)) if !m.is_empty() && !b.one_in(4) => {
                let key = m.keys().nth(b.below(m.len())).cloned().unwrap_or_default();
                node = m.get(&key);
                key.replace('~', "~0").replace('/', "~1")
            }
            Some(Value::Array(a)) if !b.one_in(4) => {
                let token = match b.below(4) {
                    0 => "-".to_owned(),
                    1 => format!("-{}", b.below(a.len() + 2)),
                    2 => format!("0{}", b.below(3)),
                    _ => b.below(a.len() + 1).to_string(),
                };
                node = token.parse::<usize>().ok().and_then(|i| a.get(i));
                token
            }
            _ => {
                node = None;
                b.string()
            }
        };
        out.push('/');
        out.push_str(&token);
    }
    out
}

/// Target `webhook_patch`: a generated object and a patch — generated
/// against the object, or the raw rest of the input — applied as a webhook
/// answer's patch would be.
///
/// Invariant: a patch of only `test` operations that applies leaves the
/// object unchanged.
pub fn webhook_patch(data: &[u8]) {
    let mut b = Bytes::new(data);
    let object = Value::Object(json_object(&mut b, 4));
    let raw = b.one_in(4);
    let patch = if raw {
        b.rest().to_vec()
    } else {
        serde_json::to_vec(&patch_for(&mut b, &object)).expect("a Value serializes")
    };
    let result = apply_patch(&object, &patch);
    let only_tests = serde_json::from_slice::<Value>(&patch)
        .ok()
        .and_then(|p| p.as_array().cloned())
        .is_some_and(|ops| ops.iter().all(|op| op.get("op") == Some(&json!("test"))));
    if let (Ok(patched), true) = (&result, only_tests) {
        assert_eq!(patched, &object, "a test-only patch changed the object");
    }
}

/// Target `quantity`: the input as a quantity string (and as a JSON value).
///
/// Invariants: a parsed quantity's text parses back to an equal quantity
/// (below 10^21 in magnitude: Go's decimal suffixes end at `E` = 10^18, and
/// Go renders a larger canonical exponent with no suffix at all, so
/// `1e21` shows as `"1"` — a Go defect reproduced on purpose, which fuzzing
/// found and `regressions/quantity/` keeps); adding zero and multiplying by
/// one change nothing.
pub fn quantity(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(q) = Quantity::parse(&text) {
        let shown = q.to_string();
        let again = Quantity::parse(&shown)
            .unwrap_or_else(|e| panic!("{text:?} renders as {shown:?}, which does not parse: {e}"));
        let magnitude = if q.sign() < 0 {
            q.checked_mul_int(-1)
        } else {
            Some(q.clone())
        };
        let limit = Quantity::parse("1e21").expect("1e21 is a quantity");
        if magnitude.is_some_and(|m| m < limit) {
            assert_eq!(q, again, "{text:?} renders as {shown:?}, a different value");
        }
        let _ = q.to_canonical_string();
        let _ = (
            q.value(),
            q.milli_value(),
            q.value_ceil(),
            q.milli_value_ceil(),
        );
        let _ = q.as_approximate_f64();
        if let Some(sum) = q.checked_add(&Quantity::zero()) {
            assert_eq!(sum, q, "adding zero changed {text:?}");
        }
        if let Some(product) = q.checked_mul_int(1) {
            assert_eq!(product, q, "multiplying {text:?} by one changed it");
        }
        let _ = q.checked_add(&q);
        let _ = q.checked_mul_int(-3);
    }
    let _ = Quantity::from_json(&Value::String(text.clone().into_owned()));
    if let Ok(v) = serde_json::from_slice::<Value>(data) {
        let _ = Quantity::from_json(&v);
    }
}

fn serve_handler() -> &'static InterpreterHandler {
    static HANDLER: OnceLock<InterpreterHandler> = OnceLock::new();
    HANDLER.get_or_init(|| InterpreterHandler::new(native_chain().0.clone()))
}

/// Target `webhook_context`: the input as a webhook answer body (decoded and
/// verified against a request of every operation) and as a request body
/// sent to `serve` (the server SDK over the native chain).
///
/// Invariant: the server always answers with a JSON envelope holding a
/// `response`.
pub fn webhook_context(data: &[u8]) {
    if let Ok(ctx) = decode_response(data) {
        let uid = ctx
            .response
            .as_ref()
            .map(|r| r.uid.clone())
            .unwrap_or_default();
        let object = json!({"apiVersion": "apps/v1", "kind": "Deployment",
                            "metadata": {"name": "n", "namespace": "d"},
                            "spec": {"replicas": 1, "list": [1, 2]}});
        for op in Op::ALL {
            let sent = ResourceInterpreterRequest {
                uid: uid.clone(),
                kind: karmada_interpreter::interpreter::gvk_of(&object),
                name: "n".into(),
                namespace: "d".into(),
                operation: op,
                object: object.clone(),
                observed_object: None,
                replicas: 1,
                aggregated_status: Vec::new(),
                #[cfg(feature = "karmada-next")]
                components: Vec::new(),
            };
            if let Ok(outcome) = interpret_response(ctx.clone(), &sent) {
                assert_answers(op, &outcome);
            }
        }
    }
    let _ = serde_json::from_slice::<ResourceInterpreterContext>(data);
    let answer = sdk::handle_http(
        serve_handler(),
        "POST",
        Some("application/json"),
        Body::Bytes(data),
    );
    let envelope: ResourceInterpreterContext = serde_json::from_slice(&answer.body)
        .unwrap_or_else(|e| panic!("serve answered with a body that is not an envelope: {e}"));
    assert!(
        envelope.response.is_some(),
        "serve answered without a response"
    );
}

/// Target `yaml_files`: the input as a customization file, a webhook
/// configuration file and a golden case file.
pub fn yaml_files(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = karmada_interpreter::yaml::documents(&text);
    if let Ok(items) = karmada_interpreter::load::customizations_from_str(&text, "fuzz.yaml") {
        if let Ok(layer) = LuaLayer::customizations(items) {
            let _ = layer.catalog();
        }
    }
    if let Ok(configs) =
        karmada_interpreter::load::webhook_configurations_from_str(&text, "fuzz.yaml")
    {
        for c in &configs {
            let _ = karmada_interpreter::webhook::validate(c);
        }
    }
    let _ = karmada_interpreter_golden::parse_cases(&text, Path::new("fuzz.yaml"));
}

/// A target: runs one input.
pub type Target = fn(&[u8]);

/// Every target by name, for the property tests and the fuzz binaries.
pub const TARGETS: &[(&str, Target)] = &[
    ("webhook_context", webhook_context),
    ("yaml_files", yaml_files),
    ("native_operation", native_operation),
    ("host_to_lua", host_to_lua),
    ("lua_to_host", lua_to_host),
    ("webhook_patch", webhook_patch),
    ("quantity", quantity),
];
