//! Pieces shared by the kinds' AggregateStatus and InterpretStatus
//! handlers, which live in each kind's module.

use std::borrow::Cow;

use karmada_interpreter_core::api::AggregatedStatusItem;
use karmada_interpreter_core::error::{Error, Result};
use karmada_interpreter_core::interpreter::{describe, Outcome, Request};
use karmada_interpreter_core::k8s::field;
use karmada_interpreter_core::k8s::keep::Keep;
use karmada_interpreter_core::k8s::normalize::{self, Emit, Ty};
use karmada_interpreter_core::k8s::written::Written;
use serde_json::{Map, Value};

/// What [`reflect_workload`] reads of the object (and [`generation_keys`]).
pub(crate) const REFLECT_WORKLOAD_KEEPS: Keep = Keep::Members(&[
    ("status", Keep::All),
    (
        "metadata",
        Keep::Members(&[("generation", Keep::All), ("annotations", Keep::All)]),
    ),
]);

/// A decoded (typed) JSON object, see [`normalize::decode`].
pub(crate) type Decoded = Map<String, Value>;

/// The template and the status items of an AggregateStatus request.
pub(crate) fn aggregate_inputs<'a>(
    request: &Request<'a>,
) -> Result<(&'a Value, Option<&'a [AggregatedStatusItem]>)> {
    match *request {
        Request::AggregateStatus { object, items } => Ok((object, items)),
        _ => Err(Error::InvalidInput {
            operation: request.operation(),
            reason: "not an AggregateStatus request".to_owned(),
        }),
    }
}

/// Decodes one item's status; `None` when it has none. A status already
/// in its decoded form is borrowed, not copied.
pub(crate) fn decode_item<'a>(
    template: &Value,
    index: usize,
    item: &'a AggregatedStatusItem,
    ty: &'static Ty,
) -> Result<Option<Cow<'a, Decoded>>> {
    match &item.status {
        None | Some(Value::Null) => Ok(None),
        Some(status) => Ok(Some(normalize::decode_item(
            template,
            index,
            &item.cluster_name,
            status,
            ty,
        )?)),
    }
}

/// The template's `status`, typed-decoded as `ty` (absent → empty).
pub(crate) fn template_status(template: &Value, ty: &'static Ty) -> Result<Decoded> {
    match template.get("status") {
        None => Ok(Map::new()),
        Some(status) => Ok(normalize::decode(template, "status", status, ty, false)?),
    }
}

/// An integer of a decoded object (absent → 0).
pub(crate) fn int(m: &Decoded, key: &str) -> i64 {
    field::integer(Some(m), key).unwrap_or(0)
}

/// A string of a decoded object (absent → "").
pub(crate) fn string<'a>(m: &'a Decoded, key: &str) -> &'a str {
    field::text(Some(m), key)
}

/// A list of a decoded object (absent → empty).
pub(crate) fn list<'a>(m: &'a Decoded, key: &str) -> &'a [Value] {
    field::list(Some(m), key)
}

/// An object of a decoded object.
pub(crate) fn object<'a>(m: &'a Decoded, key: &str) -> Option<&'a Decoded> {
    field::map(Some(m), key)
}

/// `metadata.generation` of a template that passed [`normalize::check`] (absent → 0).
pub(crate) fn template_generation(template: &Value) -> i64 {
    field::generation(template)
}

/// Writes an integer into a decoded value the way Go holds it: a zero value
/// field is the same as unset.
pub(crate) fn put_int(m: &mut Decoded, ty: &'static Ty, key: &str, value: i64) {
    let omits_zero = ty
        .field(key)
        .is_some_and(|f| matches!(f.emit, Emit::OmitZero | Emit::AlwaysZero));
    if value == 0 && omits_zero {
        m.remove(key);
    } else {
        field::put_member(m, key, normalize::num(value));
    }
}

/// The normalized template (root type `root_ty`) with `status` replaced
/// wholesale by the encoding of the decoded `status` (Karmada replaces the
/// status: keys the template's old status had survive only when the
/// operation copied them into `status`, and a decoded status holds no key
/// the schema does not know).
pub(crate) fn with_status(
    template: &Value,
    root_ty: &'static Ty,
    status: Decoded,
    status_ty: &'static Ty,
) -> Result<Aggregated> {
    let status = normalize::encode_owned(template, "status", status, status_ty)?;
    Ok(Aggregated::WithStatus {
        root: root_ty,
        status,
    })
}

/// What an AggregateStatus handler found, before it is written anywhere:
/// a template lent to the chain gets a new object, one handed over is
/// edited where the answer differs from it.
#[derive(Debug)]
pub(crate) enum Aggregated {
    /// The template exactly as given.
    Unchanged,
    /// The template re-encoded as its type `root`, with `status` (already
    /// encoded) in place of its status.
    WithStatus { root: &'static Ty, status: Value },
}

impl Aggregated {
    /// The answer for a lent template.
    pub(crate) fn answer(self, template: &Value) -> Result<Outcome> {
        Ok(Outcome::Aggregated(match self {
            Self::Unchanged => template.clone(),
            Self::WithStatus { root, status } => {
                normalize::encode_replacing(template, root, "status", status)?
            }
        }))
    }

    /// The same answer written into a template handed over; on error the
    /// template is unchanged.
    pub(crate) fn write(self, template: &mut Value) -> Result<Written> {
        let mut written = Written::new();
        if let Self::WithStatus { root, status } = self {
            normalize::encode_replacing_in_place(template, root, "status", status, &mut written)?;
        }
        Ok(written)
    }
}

/// A counter summed over the member clusters must fit the 32-bit status field.
pub(crate) fn check_int32_sum(template: &Value, key: &str, sum: i64) -> Result<()> {
    match i32::try_from(sum) {
        Ok(_) => Ok(()),
        Err(_) => Err(field::invalid(
            template,
            &format!("status.{key}"),
            format!("the sum over member clusters ({sum}) does not fit 32 bits"),
        )
        .into()),
    }
}

/// The `status` of an object for InterpretStatus: absent → `None`; present
/// but not an object (including `null`) → error.
pub(crate) fn reflected_status(object: &Value) -> Result<Option<&Value>> {
    match object.get("status") {
        None => Ok(None),
        Some(status @ Value::Object(_)) => Ok(Some(status)),
        Some(other) => Err(Error::InvalidField {
            object: describe(object),
            field: "status".to_owned(),
            reason: format!("expected an object, got {other}"),
        }),
    }
}

/// The generation keys InterpretStatus adds for Deployment, ReplicaSet,
/// StatefulSet and DaemonSet: the object's `metadata.generation` (0
/// unless an integer) and its `resourcetemplate.karmada.io/generation`
/// annotation (required, base-10 `i64`).
pub(crate) fn generation_keys(object: &Value) -> Result<(i64, i64)> {
    let meta = object.get("metadata");
    let generation = meta
        .and_then(|m| m.get("generation"))
        .and_then(Value::as_i64)
        .unwrap_or(0);
    // Karmada reads the annotations with `GetAnnotations`, which gives none
    // at all when one of them is neither a string nor `null`.
    let annotation = meta
        .and_then(|m| m.get("annotations"))
        .and_then(Value::as_object)
        .filter(|a| a.values().all(|v| v.is_string() || v.is_null()))
        .and_then(|a| a.get(GENERATION_ANNOTATION));
    let err = |reason: String| Error::InvalidField {
        object: describe(object),
        field: format!("metadata.annotations[{GENERATION_ANNOTATION}]"),
        reason,
    };
    let text = match annotation {
        Some(Value::String(s)) if !s.is_empty() => s,
        _ => {
            return Err(err(
                "missing: the resource template generation is required".into()
            ))
        }
    };
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(err(format!("{text:?} is not a base-10 integer")));
    }
    let value = text
        .parse::<i64>()
        .map_err(|e| err(format!("{text:?} is not a 64-bit integer: {e}")))?;
    Ok((generation, value))
}

/// The annotation carrying the resource template's generation.
pub(crate) const GENERATION_ANNOTATION: &str = "resourcetemplate.karmada.io/generation";

/// Starts a reflected status with the generation keys (omitted when 0).
pub(crate) fn generation_prefix(generation: i64, template_generation: i64) -> Decoded {
    let mut out = Map::new();
    if generation != 0 {
        out.insert("generation".into(), normalize::num(generation));
    }
    if template_generation != 0 {
        out.insert(
            "resourceTemplateGeneration".into(),
            normalize::num(template_generation),
        );
    }
    out
}

/// Copies integer `keys` of a status that passed [`normalize::check`] into
/// `out`: `always` ones even when 0, the others only when non-zero.
pub(crate) fn copy_ints(out: &mut Decoded, status: &Value, keys: &[(&str, bool)]) {
    for &(key, always) in keys {
        let v = field::integer(Some(status), key).unwrap_or(0);
        if always || v != 0 {
            out.insert(key.to_owned(), normalize::num(v));
        }
    }
}

/// AggregateStatus of a kind whose status is `{loadBalancer: {ingress: [...]}}`
/// (Service, Ingress): the members' entries merged; the
/// template unchanged when that is already its status.
pub(crate) fn aggregate_load_balancer(
    request: &Request<'_>,
    root: &'static Ty,
    status: &'static Ty,
    with_ip_mode: bool,
) -> Result<Aggregated> {
    let (template, items) = aggregate_inputs(request)?;
    let old = template_status(template, status)?;
    let decoded: Vec<_> = items
        .unwrap_or(&[])
        .iter()
        .enumerate()
        .map(|(i, item)| decode_item(template, i, item, status))
        .collect::<Result<_>>()?;
    let entries = decoded
        .iter()
        .flatten()
        .filter_map(|m| object(m, "loadBalancer"))
        .flat_map(|lb| list(lb, "ingress"))
        .filter_map(Value::as_object)
        .collect();
    let mut lb = Map::new();
    lb.insert(
        "ingress".into(),
        Value::Array(loadbalancer::merge(entries, with_ip_mode)),
    );
    let mut new = Map::new();
    new.insert("loadBalancer".into(), Value::Object(lb));
    if new == old {
        return unchanged(template, root);
    }
    with_status(template, root, new, status)
}

/// Load-balancer ingress merging for Service and Ingress.
pub(crate) mod loadbalancer {
    use std::cmp::Ordering;

    use serde_json::{Map, Value};

    /// Merges entries: group by (hostname, ip, ipMode), union of ports,
    /// both levels sorted. `with_ip_mode` is false for Ingress.
    pub(crate) fn merge(entries: Vec<&Map<String, Value>>, with_ip_mode: bool) -> Vec<Value> {
        struct Group<'a> {
            hostname: &'a str,
            ip: &'a str,
            ip_mode: Option<&'a str>,
            ports: Vec<&'a Map<String, Value>>,
        }
        let mut groups: Vec<Group<'_>> = Vec::new();
        for e in entries {
            let hostname = e.get("hostname").and_then(Value::as_str).unwrap_or("");
            let ip = e.get("ip").and_then(Value::as_str).unwrap_or("");
            let ip_mode = if with_ip_mode {
                e.get("ipMode").and_then(Value::as_str)
            } else {
                None
            };
            let ports = e
                .get("ports")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_object);
            let idx = match groups
                .iter()
                .position(|g| g.hostname == hostname && g.ip == ip && g.ip_mode == ip_mode)
            {
                Some(i) => i,
                None => {
                    groups.push(Group {
                        hostname,
                        ip,
                        ip_mode,
                        ports: Vec::new(),
                    });
                    groups.len() - 1
                }
            };
            if let Some(g) = groups.get_mut(idx) {
                for p in ports {
                    if !g.ports.iter().any(|q| port_key(q) == port_key(p)) {
                        g.ports.push(p);
                    }
                }
            }
        }
        groups.sort_by(|a, b| {
            // Non-empty hostnames first, ascending; then ip; then ipMode
            // (present before absent, ascending).
            (a.hostname.is_empty(), a.hostname, a.ip)
                .cmp(&(b.hostname.is_empty(), b.hostname, b.ip))
                .then_with(|| match (a.ip_mode, b.ip_mode) {
                    (Some(x), Some(y)) => x.cmp(y),
                    (Some(_), None) => Ordering::Less,
                    (None, Some(_)) => Ordering::Greater,
                    (None, None) => Ordering::Equal,
                })
        });
        groups
            .into_iter()
            .map(|mut g| {
                g.ports.sort_by(|a, b| port_key(a).cmp(&port_key(b)));
                let mut m = Map::new();
                if !g.hostname.is_empty() {
                    m.insert("hostname".into(), g.hostname.into());
                }
                if !g.ip.is_empty() {
                    m.insert("ip".into(), g.ip.into());
                }
                if let Some(mode) = g.ip_mode {
                    m.insert("ipMode".into(), mode.into());
                }
                if !g.ports.is_empty() {
                    let ports = g.ports.into_iter().map(|p| Value::Object(p.clone()));
                    m.insert("ports".into(), Value::Array(ports.collect()));
                }
                Value::Object(m)
            })
            .collect()
    }

    /// (port, protocol, error): entries without an error sort first.
    fn port_key(p: &Map<String, Value>) -> (i64, &str, Option<&str>) {
        (
            p.get("port").and_then(Value::as_i64).unwrap_or(0),
            p.get("protocol").and_then(Value::as_str).unwrap_or(""),
            p.get("error").and_then(Value::as_str),
        )
    }
}

/// A generation-aware workload kind.
pub(crate) struct Workload {
    /// The kind's object type.
    pub root: &'static Ty,
    /// The kind's status type.
    pub status: &'static Ty,
    /// The member status shape (status plus generation keys).
    pub wrapped: &'static Ty,
    /// Counters summed over members.
    pub counters: &'static [&'static str],
    /// DaemonSet: the whole old status decides "unchanged", not only the counters.
    pub whole_status_compare: bool,
    /// InterpretStatus: the status fields reflected, in output order, each
    /// with whether it is written even when 0.
    pub reflected: &'static [(&'static str, bool)],
    /// StatefulSet reads the generation annotation before checking the
    /// status (only decides which error is reported).
    pub annotation_first: bool,
    /// Deployment reflects `null` rather than an empty status.
    pub empty_is_null: bool,
}

/// InterpretStatus for Deployment, ReplicaSet, StatefulSet and DaemonSet:
/// the generation keys, then the kind's reflected counters (the only
/// `status` fields checked: a bad value elsewhere in `status` is not read).
pub(crate) fn reflect_workload(request: &Request<'_>, w: &Workload) -> Result<Outcome> {
    let object = request.object();
    let Some(status) = reflected_status(object)? else {
        return Ok(Outcome::Status(None));
    };
    // `status` is typed-decoded as Karmada does (a wrong type anywhere in it
    // fails); an over-large 32-bit integer fails only in a reflected field.
    let check = || {
        if normalize::check(object, "status", status, w.status).is_ok() {
            return Ok(());
        }
        normalize::check_wrapping(object, "status", status, w.status)?;
        let keys = w.reflected.iter().map(|&(key, _)| key);
        normalize::check_keys(object, "status", status, w.status, keys)
    };
    let (generation, template_generation) = if w.annotation_first {
        let keys = generation_keys(object)?;
        check()?;
        keys
    } else {
        check()?;
        generation_keys(object)?
    };
    let mut out = generation_prefix(generation, template_generation);
    copy_ints(&mut out, status, w.reflected);
    if w.empty_is_null && out.is_empty() {
        return Ok(Outcome::Status(None));
    }
    Ok(Outcome::Status(Some(Value::Object(out))))
}

/// AggregateStatus for Deployment, ReplicaSet, StatefulSet and DaemonSet.
///
/// A member is fresh when it has observed its own latest generation and was
/// produced from the template's current generation; when every member is
/// fresh, `observedGeneration` follows the template's generation. (Karmada's
/// StatefulSet handler compares with the member's own generation instead, so
/// its `observedGeneration` never advances; see COMPATIBILITY.md.)
pub(crate) fn aggregate_workload(request: &Request<'_>, w: &Workload) -> Result<Aggregated> {
    let (template, items) = aggregate_inputs(request)?;
    let old = template_status(template, w.status)?;
    let generation = template_generation(template);
    let items = items.unwrap_or(&[]);
    let mut sums = vec![0i64; w.counters.len()];
    let mut fresh = 0usize;
    for (i, item) in items.iter().enumerate() {
        let Some(m) = decode_item(template, i, item, w.wrapped)? else {
            continue;
        };
        if int(&m, "observedGeneration") >= int(&m, "generation")
            && int(&m, "resourceTemplateGeneration") >= generation
        {
            fresh += 1;
        }
        for (sum, key) in sums.iter_mut().zip(w.counters) {
            *sum += int(&m, key);
        }
    }
    let observed = if fresh == items.len() {
        generation
    } else {
        int(&old, "observedGeneration")
    };
    for (sum, key) in sums.iter().zip(w.counters) {
        check_int32_sum(template, key, *sum)?;
    }
    let same = if w.whole_status_compare {
        let mut new = Map::new();
        put_int(&mut new, w.status, "observedGeneration", observed);
        for (sum, key) in sums.iter().zip(w.counters) {
            put_int(&mut new, w.status, key, *sum);
        }
        let mut old_cmp = old.clone();
        old_cmp.retain(|_, v| !matches!(v, Value::Array(a) if a.is_empty()));
        old_cmp == new
    } else {
        int(&old, "observedGeneration") == observed
            && sums
                .iter()
                .zip(w.counters)
                .all(|(sum, key)| int(&old, key) == *sum)
    };
    if same {
        return unchanged(template, w.root);
    }
    // The template's old status (its known fields: conditions, collision
    // count, ...) with the aggregated counters written over it.
    let mut status = old;
    put_int(&mut status, w.status, "observedGeneration", observed);
    for (sum, key) in sums.iter().zip(w.counters) {
        put_int(&mut status, w.status, key, *sum);
    }
    with_status(template, w.root, status, w.status)
}

/// The "unchanged" result: the template exactly as given, once it is known
/// to typed-decode (Karmada decodes the template for every AggregateStatus,
/// so a template of the wrong shape is an error even when nothing changes).
pub(crate) fn unchanged(template: &Value, root: &'static Ty) -> Result<Aggregated> {
    normalize::check(template, "", template, root)?;
    Ok(Aggregated::Unchanged)
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use karmada_interpreter_core::api::AggregatedStatusItem;
    use karmada_interpreter_core::interpreter::{Outcome, Request};

    /// AggregateStatus replaces `status`: a key the template's old status
    /// had that the kind's status type does not know never survives (keys
    /// outside `status` do); known fields the operation does not compute
    /// (conditions) are kept, as Karmada's typed update keeps them.
    #[rstest::rstest]
    #[case::deployment("apps/v1", "Deployment", json!({"replicas": 3, "readyReplicas": 3}))]
    #[case::replica_set("apps/v1", "ReplicaSet", json!({"replicas": 3, "readyReplicas": 3}))]
    #[case::stateful_set("apps/v1", "StatefulSet", json!({"replicas": 3, "readyReplicas": 3}))]
    #[case::daemon_set("apps/v1", "DaemonSet", json!({"numberReady": 3, "desiredNumberScheduled": 3}))]
    #[case::job("batch/v1", "Job", json!({"active": 1}))]
    #[case::pod("v1", "Pod", json!({"phase": "Running"}))]
    #[case::persistent_volume_claim("v1", "PersistentVolumeClaim", json!({"phase": "Lost"}))]
    fn aggregation_replaces_the_status(
        #[case] api_version: &str,
        #[case] kind: &str,
        #[case] member: Value,
    ) {
        let template = json!({"apiVersion": api_version, "kind": kind,
            "metadata": {"name": "web", "namespace": "shop", "generation": 2},
            "extra": {"kept": true},
            "status": {"staleKey": {"from": "the template"},
                       "conditions": [{"type": "Progressing", "status": "True"}]}});
        let items: Vec<AggregatedStatusItem> = serde_json::from_value(json!([
            {"clusterName": "a", "applied": true, "status": member}
        ]))
        .expect("items decode");
        let layer = super::super::layer();
        let answer = layer.interpret(&Request::AggregateStatus {
            object: &template,
            items: Some(&items),
        });
        let Ok(Outcome::Aggregated(out)) = answer else {
            panic!("{answer:?}");
        };
        assert_eq!(out["extra"], json!({"kept": true}), "{out}");
        assert!(out["status"].get("staleKey").is_none(), "{out}");
        if matches!(
            kind,
            "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet"
        ) {
            assert_eq!(
                out["status"]["conditions"][0]["type"], "Progressing",
                "{out}"
            );
        }
        // Without items (Pod's "nothing reported" path) the same holds.
        if kind == "Pod" {
            let answer = layer.interpret(&Request::AggregateStatus {
                object: &template,
                items: None,
            });
            let Ok(Outcome::Aggregated(out)) = answer else {
                panic!("{answer:?}");
            };
            assert!(out["status"].get("staleKey").is_none(), "{out}");
            assert_eq!(
                out["status"]["conditions"][0]["type"], "Progressing",
                "{out}"
            );
        }
    }
}
