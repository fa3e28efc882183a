//! The `kube` module: `resourceAdd`,
//! `accuratePodRequirements`, `getPodDependencies`, `getResourceQuantity`.
//!
//! The pod-template computations are the Kubernetes floor's
//! ([`karmada_interpreter_core::k8s::requirements`],
//! [`karmada_interpreter_core::k8s::dependencies`]), the same code the
//! native built-ins run; this module only converts arguments and results.

use std::borrow::Cow;

use mlua::{Lua, MultiValue, Table, Value as LuaValue};
use serde_json::Value;

use super::convert::{self, Target};
use super::fault::HostPanic;
use karmada_interpreter_core::k8s::dependencies::pod_template_dependencies;
use karmada_interpreter_core::k8s::quantity::{Quantity, QuantityError};
use karmada_interpreter_core::k8s::requirements::{pod_template_requirements, RequirementsOptions};

fn bad_arg(n: usize, func: &str, expected: &str, got: &LuaValue) -> mlua::Error {
    mlua::Error::runtime(format!(
        "bad argument #{n} to {func} ({expected} expected, got {})",
        convert::type_name(got)
    ))
}

/// `kube.parseFlinkMemory(text)`: a Flink memory size in bytes. Flink's
/// units are binary and its `m` is mebibytes (Kubernetes' `m` is milli):
/// leading decimal digits, then an optional unit, case and surrounding
/// spaces ignored. `nil`, an empty text and a text without leading digits
/// are 0; an unknown unit is an error. A number argument is read as its text.
#[cfg(feature = "karmada-next")]
fn parse_flink_memory(_: &Lua, args: MultiValue) -> mlua::Result<f64> {
    const UNITS: [(&[&str], i64); 5] = [
        (&["", "b", "bytes"], 1),
        (&["k", "kb", "kibibytes"], 1 << 10),
        (&["m", "mb", "mebibytes"], 1 << 20),
        (&["g", "gb", "gibibytes"], 1 << 30),
        (&["t", "tb", "tebibytes"], 1 << 40),
    ];
    if args.len() != 1 {
        return Err(mlua::Error::runtime(
            "parseFlinkMemory only accepts one argument",
        ));
    }
    let text = match &args[0] {
        LuaValue::Nil => return Ok(0.0),
        LuaValue::String(s) => s.to_string_lossy(),
        LuaValue::Integer(i) => i.to_string(),
        LuaValue::Number(n) => super::text::number_to_string(*n),
        other => return Err(bad_arg(1, "parseFlinkMemory", "string", other)),
    };
    // Go's strings.TrimSpace: ASCII and Unicode white space.
    let text = text.trim();
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return Ok(0.0);
    }
    let (number, unit) = text.split_at(digits);
    // Only decimal digits reach here: the one failure is Go's out of range.
    let value: i64 = number.parse().map_err(|_| {
        mlua::Error::runtime(format!(
            "parseFlinkMemory: invalid number {number:?}: strconv.ParseInt: parsing {number:?}: value out of range"
        ))
    })?;
    let unit = unit.trim().to_lowercase();
    let factor = UNITS
        .iter()
        .find(|(names, _)| names.contains(&unit.as_str()))
        .map(|(_, factor)| *factor)
        .ok_or_else(|| {
            mlua::Error::runtime(format!("parseFlinkMemory: unrecognized suffix {unit:?}"))
        })?;
    // Go's int64 product wraps.
    Ok(value.wrapping_mul(factor) as f64)
}

fn quantity_arg(v: &LuaValue, n: usize, func: &str) -> mlua::Result<Option<Quantity>> {
    match v {
        LuaValue::Nil => Ok(None),
        LuaValue::String(s) => Quantity::parse(&s.to_string_lossy())
            .map(Some)
            .map_err(|e: QuantityError| mlua::Error::external(HostPanic(e.to_string()))),
        other => Err(bad_arg(n, func, "string", other)),
    }
}

fn template_arg<'t>(lua: &Lua, v: &'t LuaValue, func: &str) -> mlua::Result<Cow<'t, Value>> {
    let LuaValue::Table(table) = v else {
        return Err(bad_arg(1, func, "table", v));
    };
    // A template the script has not changed (a table made from the input
    // object, with no input table written in this run) is read from the
    // input itself when converting it would give it back unchanged.
    if let Some(origin) = convert::origin_of(table) {
        if origin.is_object() && convert::round_trip_stable(origin) {
            return Ok(Cow::Borrowed(origin));
        }
    }
    let json = convert::from_lua(lua, v).map_err(|e| {
        mlua::Error::runtime(format!("fail to convert lua value to PodTemplateSpec: {e}"))
    })?;
    let json = convert::reconcile(json, &[], Target::Object);
    if !json.is_object() {
        return Err(mlua::Error::runtime(format!(
            "fail to convert lua value {json} to PodTemplateSpec: expected an object"
        )));
    }
    Ok(Cow::Owned(json))
}

/// Karmada hands typed results to Lua through Go's JSON, where a list that
/// is empty (decoded from an input whose empty tables were dropped) is a nil
/// slice, written `null`, and so arrives as `nil`: `nodeSelectorTerms = {}`
/// in a template gives an empty `hardNodeAffinity` table, which then
/// disappears from the script's result like every empty table.
fn drop_empty_lists(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|_, x| !matches!(x, Value::Array(a) if a.is_empty()));
            m.values_mut().for_each(drop_empty_lists);
        }
        Value::Array(a) => a.iter_mut().for_each(drop_empty_lists),
        _ => {}
    }
}

/// The one list of the result Go writes without `omitempty`,
/// `hardNodeAffinity.nodeSelectorTerms`, is a non-nil empty slice (written
/// `[]`, an empty table in Lua) when the template holds the list and every
/// term of it was an empty table (dropped by the conversion, as Karmada's
/// does): `nodeSelectorTerms = {{}}` gives `hardNodeAffinity =
/// {nodeSelectorTerms = {}}`, which a script's result then writes as
/// `hardNodeAffinity: {nodeSelectorTerms: null}`.
fn keep_written_terms(template: &Value, result: &mut Value) {
    const TERMS: &str =
        "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms";
    if !template.pointer(TERMS).is_some_and(Value::is_array) {
        return;
    }
    if let Some(hard) = result
        .pointer_mut("/nodeClaim/hardNodeAffinity")
        .and_then(Value::as_object_mut)
    {
        hard.entry("nodeSelectorTerms")
            .or_insert_with(|| Value::Array(Vec::new()));
    }
}

/// The registry key under which a composing run puts the function that
/// answers its `kube.below()` (see `LuaLayer::run`): set for the run, unset
/// after it.
pub(crate) const BELOW_KEY: &str = "karmada-interpreter.below";

/// `kube.below()` (composition on): the answer the layers below the
/// customization's layer give for the arguments the entry function
/// received, as the entry function returns it (an error naming the request
/// when none of them serves it). It takes no arguments.
fn below(lua: &Lua, args: MultiValue) -> mlua::Result<MultiValue> {
    if !args.is_empty() {
        return Err(mlua::Error::runtime(
            "kube.below takes no arguments: it answers the arguments the entry function received",
        ));
    }
    match lua.named_registry_value::<Option<mlua::Function>>(BELOW_KEY)? {
        Some(answer) => answer.call(()),
        None => Ok(MultiValue::new()),
    }
}

/// An answer of the layers below as `kube.below()` returns it: what the
/// entry function of its operation returns (`GetReplicas`: the count and
/// the requirements; `InterpretStatus`: the status or `nil`; the editing
/// operations: the object).
pub(crate) fn outcome_to_lua(
    lua: &Lua,
    outcome: karmada_interpreter_core::interpreter::Outcome,
) -> mlua::Result<MultiValue> {
    use karmada_interpreter_core::interpreter::Outcome;
    let json = |v: &Value| convert::to_lua(lua, v);
    let serialized = |v: Result<Value, serde_json::Error>| {
        v.map_err(mlua::Error::external).and_then(|v| json(&v))
    };
    let mut out = MultiValue::new();
    match outcome {
        Outcome::Replicas(r) => {
            out.push_back(LuaValue::Number(f64::from(r.replicas)));
            out.push_back(match &r.requirements {
                Some(req) => serialized(serde_json::to_value(req))?,
                None => LuaValue::Nil,
            });
        }
        Outcome::Components(c) => out.push_back(serialized(serde_json::to_value(c))?),
        Outcome::Dependencies(d) => out.push_back(serialized(serde_json::to_value(d))?),
        Outcome::Revised(v) | Outcome::Retained(v) | Outcome::Aggregated(v) => {
            out.push_back(json(&v)?)
        }
        #[cfg(feature = "karmada-next")]
        Outcome::ComponentsRevised(v) => out.push_back(json(&v)?),
        Outcome::Status(v) => out.push_back(v.as_ref().map_or(Ok(LuaValue::Nil), json)?),
        Outcome::Healthy(b) => out.push_back(LuaValue::Boolean(b)),
    }
    Ok(out)
}

/// The `kube` module; with `next` (the `karmada-next` profile) it also has
/// `parseFlinkMemory` (Karmada's pull request #7537); with `compose`
/// (composition on) it also has `below`.
pub(crate) fn module(lua: &Lua, next: bool, compose: bool) -> mlua::Result<Table> {
    let m = lua.create_table()?;
    if compose {
        m.set("below", lua.create_function(below)?)?;
    }
    #[cfg(feature = "karmada-next")]
    if next {
        m.set("parseFlinkMemory", lua.create_function(parse_flink_memory)?)?;
    }
    let _ = next;
    m.set(
        "resourceAdd",
        lua.create_function(|_, args: MultiValue| {
            let mut total = Quantity::zero();
            for (i, v) in args.iter().enumerate() {
                if let Some(q) = quantity_arg(v, i + 1, "resourceAdd")? {
                    total = total
                        .checked_add(&q)
                        .ok_or_else(|| mlua::Error::runtime("resourceAdd: quantity overflow"))?;
                }
            }
            Ok(total.to_canonical_string())
        })?,
    )?;
    m.set(
        "accuratePodRequirements",
        lua.create_function(|lua, args: MultiValue| {
            if args.len() != 1 {
                return Err(mlua::Error::runtime(
                    "getPodRequirements only accepts one argument",
                ));
            }
            let template = template_arg(lua, &args[0], "accuratePodRequirements")?;
            let req = pod_template_requirements(&template, RequirementsOptions::default())
                .map_err(|e| {
                    mlua::Error::runtime(format!(
                        "fail to convert lua value to PodTemplateSpec: {e}"
                    ))
                })?;
            match req {
                None => Ok(LuaValue::Nil),
                Some(r) => {
                    let mut v = serde_json::to_value(r).map_err(mlua::Error::external)?;
                    drop_empty_lists(&mut v);
                    keep_written_terms(&template, &mut v);
                    convert::to_lua(lua, &v)
                }
            }
        })?,
    )?;
    m.set(
        "getPodDependencies",
        lua.create_function(|lua, args: MultiValue| {
            if args.len() != 2 {
                return Err(mlua::Error::runtime(
                    "getPodDependencies only accepts two argument",
                ));
            }
            let template = template_arg(lua, &args[0], "getPodDependencies")?;
            let namespace = match &args[1] {
                LuaValue::Nil => "default".to_owned(),
                LuaValue::String(s) => s.to_string_lossy(),
                LuaValue::Integer(i) => i.to_string(),
                LuaValue::Number(n) => super::text::number_to_string(*n),
                other => return Err(bad_arg(2, "getPodDependencies", "string", other)),
            };
            let deps = pod_template_dependencies(&template, &namespace).map_err(|e| {
                mlua::Error::runtime(format!(
                    "fail to convert lua value to corev1.PodTemplateSpec: {e}"
                ))
            })?;
            if deps.is_empty() {
                return Ok(LuaValue::Nil);
            }
            let v = serde_json::to_value(deps).map_err(mlua::Error::external)?;
            convert::to_lua(lua, &v)
        })?,
    )?;
    m.set(
        "getResourceQuantity",
        lua.create_function(|_, args: MultiValue| {
            if args.len() != 1 {
                return Err(mlua::Error::runtime(
                    "getResourceQuantity only accepts one argument",
                ));
            }
            let v = match &args[0] {
                LuaValue::Nil => 0.0,
                LuaValue::String(s) => Quantity::parse(&s.to_string_lossy())
                    .map_err(|e| mlua::Error::external(HostPanic(e.to_string())))?
                    .as_approximate_f64(),
                other => return Err(bad_arg(1, "getResourceQuantity", "string", other)),
            };
            if v.is_infinite() {
                return Err(mlua::Error::runtime(format!(
                    "int approximation unexpectedly returned an infinite value: {v},"
                )));
            }
            if v < 0.0 {
                return Err(mlua::Error::runtime(format!(
                    "int approximation unexpectedly returned a negative value: {v},"
                )));
            }
            Ok(v)
        })?,
    )?;
    Ok(m)
}
