//! Engine behaviour with exact texts: result conversion errors, run errors,
//! admission validation, the rule check, limits and concurrency.

use std::time::Duration;

use karmada_interpreter::api::{
    AggregatedStatusItem, InterpreterOperation, ResourceInterpreterCustomization,
};
use karmada_interpreter::declarative::validate::{admit, check_rules, Denial, RuleStatus};
use karmada_interpreter::declarative::{Limits, LuaLayer};
use karmada_interpreter::interpreter::{Layer, Outcome, Request};
use karmada_interpreter::Error;
use rstest::rstest;
use serde_json::{json, Value};

use crate::support::customization::Customization;

fn object() -> Value {
    json!({"apiVersion": "engine.example.io/v1", "kind": "Thing", "metadata": {"name": "t"},
           "spec": {"replicas": 2}})
}

fn run(op: InterpreterOperation, script: &str) -> Result<Outcome, Error> {
    let layer = LuaLayer::customizations(vec![with_rules("c", "Thing", &[(op, script)])]).unwrap();
    let obj = object();
    let items: Vec<AggregatedStatusItem> = Vec::new();
    let request = match op {
        InterpreterOperation::InterpretReplica => Request::InterpretReplica { object: &obj },
        InterpreterOperation::InterpretComponent => Request::InterpretComponent { object: &obj },
        InterpreterOperation::ReviseReplica => Request::ReviseReplica {
            object: &obj,
            replicas: 3,
        },
        #[cfg(feature = "karmada-next")]
        InterpreterOperation::ReviseComponents => Request::ReviseComponents {
            object: &obj,
            components: Some(&[]),
        },
        InterpreterOperation::Retain => Request::Retain {
            desired: &obj,
            observed: &obj,
        },
        InterpreterOperation::AggregateStatus => Request::AggregateStatus {
            object: &obj,
            items: Some(&items),
        },
        InterpreterOperation::InterpretStatus => Request::InterpretStatus { object: &obj },
        InterpreterOperation::InterpretHealth => Request::InterpretHealth { object: &obj },
        InterpreterOperation::InterpretDependency => Request::InterpretDependency { object: &obj },
    };
    layer.interpret(&request)
}

fn message(r: Result<Outcome, Error>) -> String {
    match r {
        Err(e) => match karmada_interpreter::declarative::script_error(&e).map(|f| &f.error) {
            Some(source) => source.message().to_owned(),
            None => panic!("expected a Lua error, got {e:?}"),
        },
        other => panic!("expected a Lua error, got {other:?}"),
    }
}

use InterpreterOperation as Op;

#[rstest]
#[case(
    Op::InterpretReplica,
    "function GetReplicas(o) return nil end",
    "result type 0 is not number"
)]
#[case(
    Op::InterpretReplica,
    "function GetReplicas(o) return '3' end",
    "result type 3 is not number"
)]
#[case(
    Op::InterpretReplica,
    "function GetReplicas(o) return 3, 'x' end",
    "expect the returned requires type is table but got string"
)]
#[case(
    Op::InterpretComponent,
    "function GetComponents(o) return 1 end",
    "expected result type 'table' or 'nil' from GetComponents, but got 'number'"
)]
#[case(
    Op::InterpretComponent,
    "function GetComponents(o) error('x', 0) end",
    "failed to run 'GetComponents' script: x"
)]
#[case(Op::InterpretComponent, "function GetComponents(o) return {{name = print}} end", "failed to convert lua table for components: encode lua result to json failed: json: error calling MarshalJSON for type *json.jsonValue: json: error calling MarshalJSON for type *json.jsonValue: json: error calling MarshalJSON for type *json.jsonValue: cannot encode function to JSON")]
#[case(
    Op::ReviseReplica,
    "function ReviseReplica(o, n) return n end",
    "expect the returned requires type is table but got number"
)]
#[case(
    Op::ReviseReplica,
    "function ReviseReplica(o, n) o.kind = nil return o end",
    "Object 'Kind' is missing in"
)]
#[case(
    Op::ReviseReplica,
    "function ReviseReplica(o, n) local t = {} o.a = t o.b = t return o end",
    "encode lua result to json failed: json: error calling MarshalJSON for type *json.jsonValue: json: error calling MarshalJSON for type *json.jsonValue: cannot encode recursively nested tables to JSON"
)]
#[case(
    Op::ReviseReplica,
    "function ReviseReplica(o, n) o.a = {1, nil, 3} return o end",
    "cannot encode sparse array"
)]
#[case(
    Op::ReviseReplica,
    "function ReviseReplica(o, n) o.a = {1, x = 2} return o end",
    "cannot encode mixed or invalid key types"
)]
#[case(
    Op::ReviseReplica,
    "function ReviseReplica(o, n) o.a = 0/0 return o end",
    "json: unsupported value: NaN"
)]
#[case(
    Op::ReviseReplica,
    "function ReviseReplica(o, n) o.a = -1/0 return o end",
    "json: unsupported value: -Inf"
)]
#[case(
    Op::Retain,
    "function Retain(d, o) return true end",
    "expect the returned requires type is table but got boolean"
)]
#[case(
    Op::InterpretStatus,
    "function ReflectStatus(o) return nil end",
    "expect the returned replica type is table but got nil"
)]
#[case(
    Op::InterpretHealth,
    "function InterpretHealth(o) end",
    "result type 0 is not bool"
)]
#[case(
    Op::InterpretHealth,
    "function InterpretHealth(o) return 1 end",
    "result type 2 is not bool"
)]
#[case(
    Op::InterpretHealth,
    "function InterpretHealth(o) return {} end",
    "result type 7 is not bool"
)]
#[case(
    Op::InterpretHealth,
    "function InterpretHeatlh(o) return true end",
    "not found function InterpretHealth"
)]
#[case(
    Op::InterpretHealth,
    "InterpretHealth = 5",
    "InterpretHealth is not a function: number"
)]
#[case(
    Op::InterpretHealth,
    "function InterpretHealth(o)\n  local x = nil\n  return x.y\nend",
    "<string>:3: attempt to index a non-table object(nil) with key 'y'"
)]
#[case(
    Op::InterpretHealth,
    "function InterpretHealth(o) error('boom') end",
    "<string>:1: boom"
)]
#[case(
    Op::InterpretHealth,
    "return +",
    "<string> line:1(column:8) near '+':   syntax error\n"
)]
#[case(
    Op::InterpretHealth,
    "function InterpretHealth(o) return require('nope') end",
    "module nope not found:\n\tno field package.preload['nope']"
)]
#[case(
    Op::InterpretHealth,
    "function InterpretHealth(o) return load end",
    "result type 4 is not bool"
)]
#[case(
    Op::InterpretHealth,
    "function InterpretHealth(o) load('x') end",
    "call function load is not supported in karmada customized resourceinterpreter."
)]
#[case(
    Op::InterpretHealth,
    "function InterpretHealth(o) return require('kube').resourceAdd(1) end",
    "bad argument #1 to resourceAdd (string expected, got number)"
)]
#[case(
    Op::InterpretHealth,
    "function InterpretHealth(o) return require('kube').resourceAdd('1x') end",
    "cannot parse '1x'"
)]
#[case(
    Op::InterpretHealth,
    "function InterpretHealth(o) return require('kube').accuratePodRequirements() end",
    "getPodRequirements only accepts one argument"
)]
#[case(
    Op::InterpretHealth,
    "function InterpretHealth(o) return require('kube').getPodDependencies({}) end",
    "getPodDependencies only accepts two argument"
)]
#[case(
    Op::InterpretHealth,
    "function InterpretHealth(o) return require('kube').getResourceQuantity('-1') end",
    "int approximation unexpectedly returned a negative value"
)]
#[case(
    Op::InterpretHealth,
    "function InterpretHealth(o) return string.rep('x', 2) end",
    "The Lua function string.rep is not supported by Karmada."
)]
#[case(
    Op::InterpretDependency,
    "function GetDependencies(o) return nil end",
    "expect the returned requires type is table but got nil"
)]
#[case(Op::InterpretDependency, "function GetDependencies(o) return {{apiVersion = 'v1', kind = 'Secret'}} end", "dependencies[0]: Invalid value: {\"apiVersion\":\"v1\",\"kind\":\"Secret\"}: dependency can not leave name and labelSelector all empty")]
fn error_texts(#[case] op: InterpreterOperation, #[case] script: &str, #[case] expected: &str) {
    let m = message(run(op, script));
    assert!(m.contains(expected), "{m:?} does not contain {expected:?}");
}

#[test]
fn error_names_customization_and_operation() {
    let err = run(
        Op::InterpretHealth,
        "function InterpretHealth(o) error('boom') end",
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "customization \"c\": InterpretHealth: <string>:1: boom"
    );
}

#[test]
fn replica_count_is_truncated_toward_zero() {
    for (script, want) in [
        ("return 2.9", 2),
        ("return -1.5", -1),
        ("return o.spec.replicas", 2),
    ] {
        let out = run(
            Op::InterpretReplica,
            &format!("function GetReplicas(o) {script} end"),
        )
        .unwrap();
        assert_eq!(
            out,
            Outcome::Replicas(Box::new(karmada_interpreter::interpreter::ReplicaResult {
                replicas: want,
                requirements: None
            }))
        );
    }
}

#[test]
fn revise_replica_gets_a_number_and_returns_an_integer() {
    let out = run(
        Op::ReviseReplica,
        "function ReviseReplica(o, n) o.spec.replicas = n o.spec.t = type(n) return o end",
    )
    .unwrap();
    let Outcome::Revised(v) = out else { panic!() };
    assert_eq!(v["spec"]["replicas"], json!(3));
    assert!(v["spec"]["replicas"].is_i64());
    assert_eq!(v["spec"]["t"], json!("number"));
}

#[test]
fn top_level_code_runs_on_every_call() {
    let layer = LuaLayer::customizations(vec![with_rules(
        "c",
        "Thing",
        &[(
            Op::InterpretHealth,
            "counter = (counter or 0) + 1\nfunction InterpretHealth(o) return counter == 1 end",
        )],
    )])
    .unwrap();
    let obj = object();
    for _ in 0..5 {
        assert_eq!(
            layer
                .interpret(&Request::InterpretHealth { object: &obj })
                .unwrap(),
            Outcome::Healthy(true)
        );
    }
}

#[test]
fn deadline_is_configurable() {
    // The loop runs at least one whole second (os.time has second
    // granularity), far beyond the 50 ms deadline.
    let layer = LuaLayer::customizations_with_limits(
        vec![with_rules("c", "Thing", &[(Op::InterpretHealth, "function InterpretHealth(o) local t = os.time() while os.time() - t < 2 do end return true end")])],
        Limits {
            timeout: Duration::from_millis(50),
            ..Limits::default()
        },
    )
    .unwrap();
    let obj = object();
    let err = layer
        .interpret(&Request::InterpretHealth { object: &obj })
        .unwrap_err();
    assert!(
        err.to_string().contains("context deadline exceeded"),
        "{err}"
    );
}

#[test]
fn concurrent_calls_share_the_pool() {
    let layer = std::sync::Arc::new(
        LuaLayer::customizations(vec![with_rules(
            "c",
            "Thing",
            &[(
                Op::InterpretHealth,
                "function InterpretHealth(o) return o.spec.replicas == 2 end",
            )],
        )])
        .unwrap(),
    );
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let layer = layer.clone();
            std::thread::spawn(move || {
                let obj = object();
                for _ in 0..50 {
                    assert_eq!(
                        layer
                            .interpret(&Request::InterpretHealth { object: &obj })
                            .unwrap(),
                        Outcome::Healthy(true)
                    );
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

// ---- admission validation and the per-rule check behind `check`

fn with_rules(name: &str, kind: &str, pairs: &[(Op, &str)]) -> ResourceInterpreterCustomization {
    pairs
        .iter()
        .fold(
            Customization::new(name, "engine.example.io/v1", kind),
            |c, (op, script)| c.script(*op, script),
        )
        .typed()
}

#[test]
fn admission_conflicts() {
    let existing = vec![
        with_rules("other-kind", "Else", &[(Op::Retain, "x = 1")]),
        with_rules(
            "first",
            "Thing",
            &[
                (Op::InterpretDependency, "x = 1"),
                (Op::InterpretHealth, "x = 1"),
            ],
        ),
    ];
    // dependency scripts never conflict
    let deps = with_rules("new", "Thing", &[(Op::InterpretDependency, "y = 1")]);
    assert_eq!(admit(&deps, &existing), Ok(()));
    let health = with_rules("new", "Thing", &[(Op::InterpretHealth, "y = 1")]);
    let denial = admit(&health, &existing).unwrap_err();
    assert_eq!(
        denial.to_string(),
        "conflicting with InterpreterOperation(InterpretHealth) of existing ResourceInterpreterCustomization(first)"
    );
    // an update of the same object does not conflict with itself
    let update = with_rules("first", "Thing", &[(Op::InterpretHealth, "y = 2")]);
    assert_eq!(admit(&update, &existing), Ok(()));
}

#[test]
fn admission_compile_check() {
    let bad = with_rules(
        "new",
        "Thing",
        &[
            (Op::Retain, "function Retain(d, o) return d end"),
            (Op::InterpretReplica, "bad format"),
        ],
    );
    match admit(&bad, &[]).unwrap_err() {
        Denial::Compile { operation, message } => {
            assert_eq!(operation, Op::InterpretReplica);
            assert_eq!(
                message,
                "<string> line:1(column:10) near 'format':   parse error\n"
            );
        }
        other => panic!("{other:?}"),
    }
    // compiles without defining the function: admitted (only compilation is checked)
    let no_fn = with_rules("new", "Thing", &[(Op::InterpretHealth, "x = 1")]);
    assert_eq!(admit(&no_fn, &[]), Ok(()));
}

#[test]
fn rule_check_reports_every_rule() {
    let c = with_rules(
        "c",
        "Thing",
        &[
            (Op::Retain, "function Retain(d, o) return d end"),
            (Op::InterpretReplica, "bad format"),
            (
                Op::InterpretHealth,
                "local function InterpretHealth(o) return true end",
            ),
            (
                Op::InterpretStatus,
                "ReflectStatus = function(o) return {} end",
            ),
            (Op::AggregateStatus, "error('top')"),
        ],
    );
    let got = check_rules(&c);
    let order: Vec<Op> = got.iter().map(|(op, _)| *op).collect();
    assert_eq!(order, InterpreterOperation::ALL.to_vec());
    let status = |op: Op| {
        got.iter()
            .find(|(o, _)| *o == op)
            .map(|(_, s)| s.clone())
            .unwrap()
    };
    assert_eq!(status(Op::Retain), RuleStatus::Pass);
    assert!(
        matches!(status(Op::InterpretReplica), RuleStatus::Error(m) if m == "<string> line:1(column:10) near 'format':   parse error")
    );
    assert_eq!(status(Op::InterpretHealth), RuleStatus::MissingFunction);
    assert_eq!(status(Op::InterpretStatus), RuleStatus::Pass);
    assert!(
        matches!(status(Op::AggregateStatus), RuleStatus::TopLevelError(m) if m.contains("top"))
    );
    assert_eq!(status(Op::InterpretDependency), RuleStatus::Unset);
}

// ---- merging several customizations for one target

fn health_of(layer: &LuaLayer, obj: &Value) -> Result<Outcome, Error> {
    layer.interpret(&Request::InterpretHealth { object: obj })
}

#[test]
fn merge_first_non_empty_script_in_name_order_wins() {
    let empty_first = with_rules("a", "Thing", &[(Op::InterpretHealth, "")]);
    let second = with_rules(
        "b",
        "Thing",
        &[(
            Op::InterpretHealth,
            "function InterpretHealth(o) return true end",
        )],
    );
    let third = with_rules(
        "c",
        "Thing",
        &[(
            Op::InterpretHealth,
            "function InterpretHealth(o) return false end",
        )],
    );
    // given in any order, sorted by name
    let layer = LuaLayer::customizations(vec![third, empty_first, second]).unwrap();
    let gvk = karmada_interpreter::interpreter::gvk_of(&object());
    assert_eq!(layer.source(&gvk, Op::InterpretHealth).unwrap().name, "b");
    assert_eq!(
        health_of(&layer, &object()).unwrap(),
        Outcome::Healthy(true)
    );
    // nothing serves a rule no customization fills
    assert!(layer.source(&gvk, Op::Retain).is_none());
}

#[test]
fn merge_runs_every_dependency_script() {
    let dep = |name: &str, secret: &str| {
        with_rules(
            name,
            "Thing",
            &[(
                Op::InterpretDependency,
                format!(
                    "function GetDependencies(o) return {{{{apiVersion = 'v1', kind = 'Secret', namespace = 'ns', name = '{secret}'}}}} end"
                )
                .as_str(),
            )],
        )
    };
    let layer =
        LuaLayer::customizations(vec![dep("z", "b"), dep("y", "a"), dep("x", "b")]).unwrap();
    let out = layer
        .interpret(&Request::InterpretDependency { object: &object() })
        .unwrap();
    let Outcome::Dependencies(deps) = out else {
        panic!()
    };
    let names: Vec<&str> = deps.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["a", "b"], "deduplicated and sorted");
}

#[test]
fn unparsable_target_api_version_matches_empty_api_version() {
    let mut c = with_rules(
        "c",
        "Thing",
        &[(
            Op::InterpretHealth,
            "function InterpretHealth(o) return true end",
        )],
    );
    c.spec.target.api_version = "a/b/c".to_owned();
    let layer = LuaLayer::customizations(vec![c]).unwrap();
    let no_version = json!({"kind": "Thing", "metadata": {"name": "t"}});
    assert_eq!(
        health_of(&layer, &no_version).unwrap(),
        Outcome::Healthy(true)
    );
    assert!(layer
        .source(
            &karmada_interpreter::interpreter::gvk_of(&object()),
            Op::InterpretHealth
        )
        .is_none());
}

#[test]
fn garbage_churn_with_a_large_live_heap_fits_the_memory_limit() {
    // ~2 MB live, ~35 MB of garbage, 8 MB limit: the collector must keep up.
    let script = r#"
      function InterpretHealth(o)
        local keep = {}
        for i = 1, 20000 do keep[i] = {i} end
        for r = 1, 50 do
          local t = {}
          for i = 1, 10000 do t[i] = {i} end
        end
        return #keep == 20000
      end
    "#;
    let layer = LuaLayer::customizations_with_limits(
        vec![with_rules("c", "Thing", &[(Op::InterpretHealth, script)])],
        Limits {
            timeout: Duration::from_secs(20),
            memory: 8 << 20,
        },
    )
    .unwrap();
    let obj = object();
    for _ in 0..3 {
        assert_eq!(
            layer
                .interpret(&Request::InterpretHealth { object: &obj })
                .unwrap(),
            Outcome::Healthy(true)
        );
    }
}

// ---- Karmada parity (issue: long tail) ----

fn replicas_of(script: &str) -> (i32, Option<Value>) {
    match run(Op::InterpretReplica, script).unwrap() {
        Outcome::Replicas(r) => (
            r.replicas,
            r.requirements.map(|q| serde_json::to_value(q).unwrap()),
        ),
        other => panic!("{other:?}"),
    }
}

/// Go's `int32(float64)` on amd64: out of range and NaN give -2147483648.
#[rstest]
#[case("return 2147483647", 2147483647)]
#[case("return -2147483648", -2147483648)]
#[case("return 2147483647.9", 2147483647)]
#[case("return 2147483648", -2147483648)]
#[case("return -2147483649", -2147483648)]
#[case("return 1e300", -2147483648)]
#[case("return 0/0", -2147483648)]
#[case("return 1/0", -2147483648)]
fn replica_counts_convert_as_go_int32(#[case] body: &str, #[case] want: i32) {
    let (n, _) = replicas_of(&format!("function GetReplicas(o) {body} end"));
    assert_eq!(n, want);
}

/// After `x = nil` a global reads nil for the rest of the run, even when the
/// base environment has a builtin of that name (Karmada's FlinkDeployment
/// aggregation stores such a global in its result).
#[rstest]
#[case("error = '' error = nil")]
#[case("error = nil")]
#[case("local function f() type = nil end f()")]
fn a_global_set_to_nil_shadows_the_builtin(#[case] assign: &str) {
    let name = if assign.contains("type") {
        "type"
    } else {
        "error"
    };
    let script =
        format!("function GetReplicas(o) {assign} if {name} == nil then return 1 end return 0 end");
    assert_eq!(replicas_of(&script).0, 1);
}

#[test]
fn the_globals_table_lists_the_builtins_as_gopher_lua_does() {
    let script = "function GetReplicas(o) local n = 0 for k, v in pairs(_G) do \
                  if k == 'pairs' or k == 'tostring' then n = n + 1 end end return n end";
    assert_eq!(replicas_of(script).0, 2);
}

#[test]
fn pod_dependencies_are_nil_when_nothing_is_referenced() {
    let script = r#"
        local kube = require("kube")
        function GetDependencies(o)
          local none = kube.getPodDependencies({spec = {containers = {{name = "a"}}}}, "ns")
          local some = kube.getPodDependencies({spec = {serviceAccountName = "sa"}}, "ns")
          if none ~= nil or some == nil then error("unexpected") end
          return some
        end"#;
    match run(Op::InterpretDependency, script).unwrap() {
        Outcome::Dependencies(d) => {
            assert_eq!(d.len(), 1);
            assert_eq!(d[0].kind, "ServiceAccount");
        }
        other => panic!("{other:?}"),
    }
}

/// Empty tables disappear on the way into `accuratePodRequirements`, and
/// typed results omit what Go's `omitempty` omits (an empty toleration
/// operator).
#[test]
fn pod_requirements_drop_empty_tables_and_omit_empty_members() {
    let script = r#"
        local kube = require("kube")
        function GetReplicas(o)
          local r = kube.accuratePodRequirements({spec = {
            affinity = {nodeAffinity = {requiredDuringSchedulingIgnoredDuringExecution = {nodeSelectorTerms = {}}}},
            tolerations = {{key = "k", operator = "", effect = "NoSchedule"}},
            containers = {{name = "a", resources = {requests = {cpu = "1"}}}}}})
          return 1, r
        end"#;
    let (_, req) = replicas_of(script);
    let req = req.expect("requirements");
    assert_eq!(
        req["nodeClaim"],
        json!({"tolerations": [{"key": "k", "effect": "NoSchedule"}]}),
        "{req}"
    );
}

fn status_of(body: &str) -> Value {
    match run(
        Op::InterpretStatus,
        &format!("function ReflectStatus(o) {body} end"),
    )
    .unwrap()
    {
        Outcome::Status(Some(v)) => v,
        other => panic!("{other:?}"),
    }
}

const KEYS: &str = "local function keys(t) local out = {} \
    for k in pairs(t) do out[#out + 1] = tostring(k) end return table.concat(out, ',') end ";

/// `pairs` over a script-built table: the positive integer keys below 2^26
/// in ascending order, then the other keys in first-insertion order
/// (gopher-lua, whatever the hash layout; Karmada's answers for more tables
/// are in tests/data/gopher-probes/tables.yaml).
#[rstest]
#[case(
    "local t = {} t.zeta = 1 t.alpha = 2 t.mid = 3 t[10] = 4 t.beta = 5",
    "10,zeta,alpha,mid,beta"
)]
#[case("local t = {1, 2, 3, x = 1} t.y = 2 t.b = 3", "1,2,3,x,y,b")]
#[case("local t = {c = 1, b = 2, a = 3}", "c,b,a")]
#[case("local t = {} t.b = 1 t.a = 2 t.b = nil t.c = 3", "a,c")]
#[case(
    "local t = {} for i = 40, 1, -1 do t['k' .. i] = i end for i = 1, 35 do t['k' .. i] = nil end",
    "k40,k39,k38,k37,k36"
)]
fn pairs_visits_script_built_tables_in_insertion_order(#[case] build: &str, #[case] want: &str) {
    let v = status_of(&format!("{KEYS}{build} return {{order = keys(t)}}"));
    assert_eq!(v["order"], json!(want));
}

#[test]
fn pairs_keeps_insertion_order_across_growth() {
    let v = status_of(&format!(
        "{KEYS} local t = {{}} local want = {{}} for i = 1, 200 do local k = 'n' .. ((i * 7919) % 1000) \
         if t[k] == nil then want[#want + 1] = k end t[k] = i end \
         return {{same = keys(t) == table.concat(want, ',')}}"
    ));
    assert_eq!(v["same"], json!(true));
}

/// `#t` on a table with holes: the largest non-nil index of the array part.
#[rstest]
#[case("local t = {1, 2, 3, 4} t[2] = nil t[4] = nil", 3)]
#[case("local t = {} t[1] = 1 t[2] = 2 t[3] = 3 t[2] = nil", 3)]
#[case("local t = {1, nil, 3}", 3)]
#[case("local t = {nil, nil}", 0)]
#[case("local t = {1, 2, 3}", 3)]
fn length_of_tables_with_holes(#[case] build: &str, #[case] want: i64) {
    let v = status_of(&format!("{build} return {{n = #t}}"));
    assert_eq!(v["n"], json!(want));
}

/// `..` writes numbers as gopher-lua does (as `tostring` does).
#[rstest]
#[case("1/3", "0.3333333333333333")]
#[case("1e15", "1000000000000000")]
#[case("2^53", "9007199254740992")]
#[case("-2^63", "-9223372036854775808")]
#[case("2^63", "9.223372036854776e+18")]
#[case("1e100", "1e+100")]
#[case("0.1", "0.1")]
#[case("-1.5", "-1.5")]
#[case("1234567.5", "1.2345675e+06")]
#[case("123456.5", "123456.5")]
#[case("0.0001", "0.0001")]
#[case("0.00001", "1e-05")]
#[case("5e-324", "5e-324")]
#[case("1/0", "+Inf")]
#[case("-1/0", "-Inf")]
#[case("0/0", "NaN")]
#[case("-0", "0")]
fn concatenation_formats_numbers_as_gopher_lua(#[case] expr: &str, #[case] want: &str) {
    let v = status_of(&format!(
        "local x = {expr} return {{cat = x .. '', same = (x .. '') == tostring(x)}}"
    ));
    assert_eq!(v, json!({"cat": want, "same": true}));
}

/// Strings in arithmetic are read as gopher-lua reads them (Go's ParseInt
/// with base prefixes, then ParseFloat); what Go refuses is not a number.
#[rstest]
#[case("'010'", "8")]
#[case("'0x10'", "16")]
#[case("'0b101'", "5")]
#[case("'0o17'", "15")]
#[case("'1_000'", "1000")]
#[case("'08'", "8")]
#[case("' 5\\n'", "5")]
#[case("'-0x10'", "-16")]
#[case("'1e3'", "1000")]
#[case("'.5'", "0.5")]
#[case("'5.'", "5")]
#[case("'0x1p4'", "16")]
#[case("'inf'", "+Inf")]
#[case("'-Infinity'", "-Inf")]
#[case("'9223372036854775807'", "9.223372036854776e+18")]
#[case("'5\\r'", "error")]
#[case("'1e400'", "error")]
#[case("'0x1.8'", "error")]
#[case("'1__0'", "error")]
#[case("'_1'", "error")]
#[case("'0x'", "error")]
#[case("'abc'", "error")]
#[case("''", "error")]
fn strings_coerce_to_numbers_as_gopher_lua(#[case] lit: &str, #[case] want: &str) {
    let v = status_of(&format!(
        "local ok, r = pcall(function() return {lit} + 0 end) \
         return {{r = ok and tostring(r) or 'error'}}"
    ));
    assert_eq!(v["r"], json!(want), "{lit}");
}

/// `goto` and `::label::` (Lua 5.2, accepted by gopher-lua): `continue`
/// in loops, leaving nested loops, backward jumps, a label at the end of a
/// block after locals, and closures capturing a fresh local per iteration.
#[rstest]
#[case(
    "local out = {} for i = 1, 6 do if i % 2 == 0 then goto continue end \
     out[#out + 1] = i ::continue:: end local r = table.concat(out, ',')",
    "1,3,5"
)]
#[case(
    "local out = {} for _, v in ipairs({'a', 'skip', 'b'}) do local w = v \
     if w == 'skip' then goto continue end out[#out + 1] = w ::continue:: end \
     local r = table.concat(out, ',')",
    "a,b"
)]
#[case(
    "local i, out = 0, {} while i < 5 do i = i + 1 if i == 3 then goto next end \
     out[#out + 1] = i ::next:: end local r = table.concat(out, ',')",
    "1,2,4,5"
)]
#[case(
    "local i, out = 0, {} repeat i = i + 1 if i == 2 then goto cont end \
     out[#out + 1] = i ::cont:: until i >= 3 local r = table.concat(out, ',')",
    "1,3"
)]
#[case(
    "local found for i = 1, 3 do for j = 1, 3 do if i * j == 4 then found = i .. 'x' .. j \
     goto done end end end ::done:: local r = found",
    "2x2"
)]
#[case(
    "local n = 0 ::top:: n = n + 1 if n < 4 then goto top end local r = tostring(n)",
    "4"
)]
#[case(
    "local fs = {} for i = 1, 3 do local x = i * 10 fs[i] = function() return x end \
     if i < 3 then goto continue end ::continue:: end \
     local r = fs[1]() .. ',' .. fs[2]() .. ',' .. fs[3]()",
    "10,20,30"
)]
#[case(
    "local fs, i = {}, 1 ::again:: do local x = i fs[i] = function() return x end \
     i = i + 1 if i <= 3 then goto again end end \
     local r = fs[1]() .. ',' .. fs[2]() .. ',' .. fs[3]()",
    "1,2,3"
)]
#[case(
    "local goto_ = 1 do goto e end goto_ = 2 ::e:: local r = tostring(goto_)",
    "1"
)]
#[case("local r = 'a' do goto x end ::x:: ::y:: r = r .. 'b'", "ab")]
#[case("local r = [[a [[b]]", "a [[b")]
#[case(
    ";; local r = 'a';; ; for i = 1, 2 do if i == 1 then goto c end r = r .. i ::c:: ; end",
    "a2"
)]
fn goto_and_labels_run_as_in_gopher_lua(#[case] body: &str, #[case] want: &str) {
    let v = status_of(&format!("{body} return {{r = r}}"));
    assert_eq!(v["r"], json!(want), "{body}");
}

/// Misplaced gotos and labels are compile errors with gopher-lua's texts.
#[rstest]
#[case(
    "goto nowhere",
    "compile error near line(0) <string>: no visible label 'nowhere' for <goto> at line 1"
)]
#[case(
    "::a::\n::a::",
    "compile error near line(3) <string>: label 'a' already defined on line 1"
)]
#[case(
    "do goto l\nlocal x = 1\n::l:: print(x) end",
    "compile error near line(4) <string>: <goto l> at line 1 jumps into the scope of local 'x'"
)]
#[case(
    "::out:: local function f()\n goto out\nend",
    "compile error near line(3) <string>: no visible label 'out' for <goto> at line 2"
)]
#[case(
    "for i = 1, 2 do end goto = 1",
    "<string> line:1(column:26) near '=':   syntax error\n"
)]
#[case(
    "while true do end break",
    "compile error near line(1) <string>: no loop to break"
)]
fn goto_errors(#[case] script: &str, #[case] expected: &str) {
    let m = message(run(Op::InterpretHealth, script));
    assert!(m.contains(expected), "{m:?} does not contain {expected:?}");
}

/// Runtime errors carry gopher-lua's texts, and that is what a `pcall`
/// handler sees (the prefix is the position in the script).
#[rstest]
#[case(
    "local x = nil\nreturn x.y",
    "<string>:3: attempt to index a non-table object(nil) with key 'y'"
)]
#[case(
    "local x = 5 return x[1.5]",
    "attempt to index a non-table object(number) with key '1.5'"
)]
#[case(
    "local x = true x.k = 1",
    "attempt to index a non-table object(boolean) with key 'k'"
)]
#[case(
    "local o = {} return o.a.b.c",
    "attempt to index a non-table object(nil) with key 'b'"
)]
#[case(
    "local o = nil return o:name()",
    "attempt to index a non-table object(nil) with key 'name'"
)]
#[case("local f = 1 return f()", "attempt to call a non-function object")]
#[case("return undefinedFunction(1)", "attempt to call a non-function object")]
#[case("return #nil", "__len undefined")]
#[case("local n = 5 return #n", "__len undefined")]
#[case("return -{}", "__unm undefined")]
#[case(
    "return 1 + nil",
    "cannot perform add operation between number and nil"
)]
#[case(
    "return {} - 1",
    "cannot perform sub operation between table and number"
)]
#[case(
    "return '2' * {}",
    "cannot perform mul operation between number and table"
)]
#[case(
    "return 'x' / 2",
    "cannot perform div operation between string and number"
)]
#[case("return nil % nil", "cannot perform mod operation between nil and nil")]
#[case(
    "return 2 ^ true",
    "cannot perform pow operation between number and boolean"
)]
#[case(
    "return 'a' .. nil",
    "cannot perform concat operation between string and nil"
)]
#[case(
    "return {} .. 'a'",
    "cannot perform concat operation between table and string"
)]
#[case("return 1 < 'x'", "attempt to compare number with string")]
#[case("return nil < nil", "attempt to compare nil with nil")]
#[case("return {} <= {}", "attempt to compare table with table")]
#[case(
    "return ipairs(nil)",
    "bad argument #1 to ipairs (table expected, got nil)"
)]
#[case(
    "return math.floor('x')",
    "bad argument #1 to floor (number expected, got string)"
)]
#[case("return select(0)", "bad argument #1 to select (index out of range)")]
#[case(
    "return unpack(nil)",
    "bad argument #1 to unpack (table expected, got nil)"
)]
#[case("for i = 1, 'x' do end", "for statement limit must be a number")]
#[case("for i = nil, 2 do end", "for statement init must be a number")]
#[case("for i = 1, 2, {} do end", "for statement step must be a number")]
fn runtime_errors_have_gopher_lua_texts(#[case] body: &str, #[case] want: &str) {
    let v = status_of(&format!(
        "local ok, e = pcall(function()\n{body}\nend) return {{ok = ok, e = e}}"
    ));
    assert_eq!(v["ok"], json!(false), "{body}");
    let e = v["e"].as_str().unwrap_or_default();
    assert!(e.starts_with("<string>:"), "{e:?}");
    assert!(e.contains(want), "{e:?} does not contain {want:?}");
}

/// Compile errors in gopher-lua's form: the scanner's line and column (the
/// characters consumed on the line, the offending token included), the
/// token as written (strings without their quotes), then the reason.
#[rstest]
#[case(
    "bad format",
    "<string> line:1(column:10) near 'format':   parse error\n"
)]
#[case("x = 1\nlocal y = x\ny", "<string> at EOF:   parse error\n")]
#[case(
    "local t = {}\nt.a\nreturn t",
    "<string> line:3(column:6) near 'return':   parse error\n"
)]
#[case("return 1;;", "<string> line:1(column:10) near ';':   syntax error\n")]
#[case(
    "return 1 // 2",
    "<string> line:1(column:11) near '/':   syntax error\n"
)]
#[case(
    "return 1 & 2",
    "<string> line:1(column:10) near '&':   Invalid token\n"
)]
#[case(
    "return 1 ~ 2",
    "<string> line:1(column:10) near '~':   Invalid '~' token\n"
)]
#[case("x = = 1", "<string> line:1(column:5) near '=':   syntax error\n")]
#[case(
    "x = 'abc\ny = 1",
    "<string> line:2(column:0) near 'abc':   unterminated string\n"
)]
#[case("x = 'abc", "<string> at EOF:   unterminated string\n")]
#[case("x = [[abc", "<string> at EOF:   unterminated multiline string\n")]
#[case(
    "local function f()\n  return 1\n",
    "<string> at EOF:   syntax error\n"
)]
#[case(
    "if x then\n  y = 'a' 'b'\nend",
    "<string> line:2(column:13) near 'b':   syntax error\n"
)]
#[case(
    "  f(1) x = [==[ a ]=] b",
    "<string> at EOF:   unterminated multiline string\n"
)]
#[case(
    "x = \"é\" + + 1",
    "<string> line:1(column:11) near '+':   syntax error\n"
)]
#[case("x = [[a [[b]] y", "<string> at EOF:   parse error\n")]
fn compile_errors_have_gopher_lua_form(#[case] script: &str, #[case] want: &str) {
    let m = message(run(Op::InterpretHealth, script));
    assert_eq!(m, want, "{script}");
}

/// `table.sort` is Go's `sort.Sort` (pattern-defeating quicksort), as in
/// gopher-lua: records with equal keys end in Go's order (computed with
/// Go's algorithm), and an inconsistent order function never raises.
#[rstest]
#[case(
    "local t = {} for i = 1, 30 do t[i] = {k = (i * 7) % 4, id = i} end \
     table.sort(t, function(a, b) return a.k < b.k end)",
    "8,28,24,4,20,16,12,15,3,27,11,7,23,19,10,22,30,18,14,2,6,26,9,13,25,21,1,5,29,17"
)]
#[case(
    "local t = {} for i = 1, 100 do t[i] = {k = (i * 37) % 5, id = i} end \
     table.sort(t, function(a, b) return a.k > b.k end)",
    "72,82,47,37,97,52,7,92,32,57,87,12,62,27,42,67,17,77,2,22,89,19,69,24,79,74,14,84,64,29,\
     54,59,9,34,94,49,4,99,39,44,51,61,96,6,91,46,11,86,36,81,1,16,76,21,71,56,31,41,66,26,23,\
     83,63,3,98,43,93,68,58,8,88,33,73,38,48,53,18,78,13,28,80,90,50,35,85,75,20,55,10,15,45,\
     70,25,40,95,30,5,65,60,100"
)]
#[case(
    "local t = {} for i = 1, 13 do t[i] = {k = 0, id = i} end \
     table.sort(t, function(a, b) return a.k < b.k end)",
    "1,2,3,4,5,6,7,8,9,10,11,12,13"
)]
fn sort_orders_ties_as_go(#[case] build: &str, #[case] want: &str) {
    let v = status_of(&format!(
        "{build} local ids = {{}} for i, r in ipairs(t) do ids[i] = r.id end \
         return {{ids = table.concat(ids, ',')}}"
    ));
    assert_eq!(v["ids"], json!(want));
}

#[test]
fn sort_sorts_and_never_detects_inconsistent_order_functions() {
    let v = status_of(
        "local t = {} for i = 1, 500 do t[i] = (i * 7919) % 1009 end table.sort(t) \
         local ok = true for i = 2, #t do if t[i - 1] > t[i] then ok = false end end \
         local u = {} for i = 1, 300 do u[i] = i % 7 end \
         local fine, e = pcall(table.sort, u, function(a, b) return true end) \
         local sum = 0 for i = 1, #u do sum = sum + u[i] end \
         local w = {'b', 'a', 'c'} table.sort(w, function(a, b) return a > b end) \
         return {sorted = ok, fine = fine, n = #u, sum = sum, w = table.concat(w)}",
    );
    let sum: i64 = (1..=300).map(|i| i % 7).sum();
    assert_eq!(
        v,
        json!({"sorted": true, "fine": true, "n": 300, "sum": sum, "w": "cba"})
    );
}

/// `string.find` in plain mode with `init` past the end fails as
/// gopher-lua's Go slice does; within the string it finds, or gives nil.
#[rstest]
#[case(
    "return string.find('abc', 'b', 10, true)",
    "runtime error: slice bounds out of range [9:3]"
)]
#[case(
    "return string.find('abc', 'b', 5, true)",
    "runtime error: slice bounds out of range [4:3]"
)]
fn plain_find_past_the_end_is_gopher_luas_panic(#[case] body: &str, #[case] want: &str) {
    let m = message(run(
        Op::InterpretHealth,
        &format!("function InterpretHealth(o) {body} end"),
    ));
    assert_eq!(m, want);
}

#[test]
fn plain_find_within_bounds() {
    let v = status_of(
        "return {a = tostring(string.find('abc', 'b', 4, true)), \
         b = tostring(string.find('abc', 'b', 10)), c = tostring(string.find('abcb', 'b', 3, true))}",
    );
    assert_eq!(v, json!({"a": "nil", "b": "nil", "c": "4"}));
}

/// Errors of the host helpers (the Rust string functions, `kube`, the
/// prelude's wrappers) read like gopher-lua's: the caller's script position,
/// the function's own name, and a `pcall` handler gets the text.
#[rstest]
#[case(
    "local x = string.find(nil, 'x')",
    "<string>:2: bad argument #1 to find (string expected, got nil)"
)]
#[case(
    "local x = ('abc'):find({})",
    "<string>:2: bad argument #2 to find (string expected, got table)"
)]
#[case(
    "local x = string.upper(nil)",
    "<string>:2: bad argument #1 to upper (string expected, got nil)"
)]
#[case(
    "local x = string.sub(nil, 1)",
    "<string>:2: bad argument #1 to sub (string expected, got nil)"
)]
#[case(
    "local x = string.byte(nil)",
    "<string>:2: bad argument #1 to byte (string expected, got nil)"
)]
#[case(
    "local x = ('abc'):byte({})",
    "<string>:2: bad argument #2 to byte (number expected, got table)"
)]
#[case(
    "local x = string.char('x')",
    "<string>:2: bad argument #1 to char (number expected, got string)"
)]
#[case(
    "local x = string.reverse(nil)",
    "<string>:2: bad argument #1 to reverse (string expected, got nil)"
)]
#[case(
    "local x = tostring()",
    "<string>:2: bad argument #1 to tostring (value expected)"
)]
#[case(
    "local x = require('kube').resourceAdd(1)",
    "<string>:2: bad argument #1 to resourceAdd (string expected, got number)"
)]
#[case("local x = require('kube').resourceAdd('1x')", "cannot parse '1x'")]
#[case(
    "local x = string.find('abc', 'b', 10, true)",
    "runtime error: slice bounds out of range [9:3]"
)]
#[case(
    "local x = load('x')",
    "<string>:1: call function load is not supported in karmada customized resourceinterpreter."
)]
fn host_errors_read_like_gopher_luas(#[case] body: &str, #[case] want: &str) {
    let v = status_of(&format!(
        "local ok, e = pcall(function()\n{body}\nend) return {{ok = ok, t = type(e), e = e}}"
    ));
    assert_eq!(v["ok"], json!(false), "{body}");
    assert_eq!(v["t"], json!("string"), "{body}");
    let e = v["e"].as_str().unwrap_or_default();
    assert!(e.starts_with(want), "{e:?} does not start with {want:?}");
    // uncaught, the run fails with the same text
    let m = message(run(
        Op::InterpretHealth,
        &format!("function InterpretHealth(o)\n{body}\nend"),
    ));
    assert!(m.starts_with(want), "{m:?} does not start with {want:?}");
}

/// Status items reach `AggregateStatus` as tables holding `clusterName`
/// always and the other members only when set, which `pairs` lists in the
/// order a JSON object holds them (by name).
#[test]
fn status_items_reach_lua_with_their_set_members_in_name_order() {
    let script = r#"
        function AggregateStatus(obj, items)
          local seen = {}
          for i = 1, #items do
            local keys = {}
            for k, v in pairs(items[i]) do keys[#keys + 1] = k .. "=" .. tostring(v) end
            seen[i] = table.concat(keys, ",")
          end
          obj.status = {seen = seen, count = #items}
          return obj
        end"#;
    let layer = LuaLayer::customizations(vec![with_rules(
        "c",
        "Thing",
        &[(InterpreterOperation::AggregateStatus, script)],
    )])
    .unwrap();
    let obj = object();
    let items = vec![
        AggregatedStatusItem {
            cluster_name: "m1".to_owned(),
            status: Some(json!({"ready": 1})),
            applied: true,
            applied_message: "ok".to_owned(),
            health: Some(karmada_interpreter::api::ResourceHealth::Healthy),
        },
        AggregatedStatusItem {
            cluster_name: "m2".to_owned(),
            status: Some(Value::Null),
            ..Default::default()
        },
    ];
    let out = layer
        .interpret(&Request::AggregateStatus {
            object: &obj,
            items: Some(&items),
        })
        .unwrap();
    let Outcome::Aggregated(v) = out else {
        panic!("{out:?}")
    };
    let seen = &v["status"]["seen"];
    assert!(seen[0].as_str().unwrap().starts_with(
        "applied=true,appliedMessage=ok,clusterName=m1,health=Healthy,status=table: "
    ));
    assert_eq!(seen[1], "clusterName=m2");
    assert_eq!(v["status"]["count"], 2);
}

/// `kube.*` reads a template the script has not changed from the input
/// itself; a change anywhere in the input (even deep inside the template,
/// or in another part of the object) is seen.
#[rstest]
#[case("", "from-input")]
#[case(
    "o.spec.template.spec.volumes[1].secret.secretName = 'changed-deep'",
    "changed-deep"
)]
#[case(
    "local v = o.spec.template.spec.volumes[1] v.secret = {secretName = 'replaced'}",
    "replaced"
)]
#[case("o.metadata.name = 'renamed'", "from-input")]
fn kube_sees_the_template_as_the_script_left_it(#[case] change: &str, #[case] want: &str) {
    let script = format!(
        r#"
        local kube = require("kube")
        function GetDependencies(o)
          {change}
          return kube.getPodDependencies(o.spec.template, "ns")
        end"#
    );
    let layer = LuaLayer::customizations(vec![with_rules(
        "c",
        "Thing",
        &[(Op::InterpretDependency, script.as_str())],
    )])
    .unwrap();
    let obj = json!({"apiVersion": "engine.example.io/v1", "kind": "Thing",
        "metadata": {"name": "t"},
        "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "i"}],
            "volumes": [{"name": "v", "secret": {"secretName": "from-input"}}]}}}});
    match layer
        .interpret(&Request::InterpretDependency { object: &obj })
        .unwrap()
    {
        Outcome::Dependencies(d) => {
            assert_eq!(d.len(), 1, "{d:?}");
            assert_eq!(d[0].name, want);
        }
        other => panic!("{other:?}"),
    }
}

/// A script's numeric constants are no table keys of its own: compiling a
/// constant just below 2^26 (the largest key gopher-lua keeps in a table's
/// array part) costs nothing, where it once took the compiler's constant
/// table to hundreds of MiB and failed on the memory limit.
#[rstest]
#[case("1000000")]
#[case("50000000")]
#[case("67108863")]
fn large_numeric_constants_compile_in_little_memory(#[case] constant: &str) {
    let v = status_of(&format!(
        "local big = {constant} return {{big = big, more = big > 1}}"
    ));
    assert_eq!(v["more"], json!(true));
    assert_eq!(v["big"].to_string(), constant);
}
