//! What one watcher keeps: the last good version of every object by name,
//! the current rejections, and the re-list buffer.

use std::collections::BTreeMap;
use std::sync::Arc;

use kube::api::DynamicObject;
use kube::runtime::watcher::Event;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::live::Snapshot;
use crate::observe::{self, ObjectStatus, PROBLEMS};
use crate::report::{Note, Severity, Write};
use crate::shadow::ShadowSet;
use crate::{lock, ClusterError, Shared, STATUS_ANNOTATION};
use karmada_interpreter::api::{
    ResourceInterpreterCustomization, ResourceInterpreterWebhookConfiguration,
};
use karmada_interpreter::declarative::LuaLayer;
use karmada_interpreter::lint::check::check_customization;
use karmada_interpreter::lint::Locator;
use karmada_interpreter::webhook::WebhookLayer;

/// A watched configuration kind: how to accept one object and how to
/// publish the accepted set as a layer.
pub(crate) trait Watched:
    kube::Resource<DynamicType = ()> + DeserializeOwned + Clone + Send + Sync + 'static
{
    /// The kind's name, for messages.
    const KIND: &'static str;

    /// Validates one decoded object (`value`, as the API server sent it):
    /// rejected for what Karmada would not run, with the reasons `check`
    /// gives; accepted with the problems `check` finds in what Karmada runs
    /// anyway (empty: none).
    fn check(&self, value: &Value, name: &str) -> Result<Vec<String>, ClusterError>;

    /// Builds the layer from the accepted objects and swaps it in.
    fn publish(shared: &Shared, items: Vec<Self>) -> Result<(), ClusterError>;

    /// Every object's observed status.
    fn statuses(
        shared: &Shared,
        good: &BTreeMap<String, Self>,
        rejected: &BTreeMap<String, String>,
        problems: &BTreeMap<String, Vec<String>>,
    ) -> BTreeMap<String, ObjectStatus>;
}

impl Watched for ResourceInterpreterCustomization {
    const KIND: &'static str = "ResourceInterpreterCustomization";

    /// `check`'s own verdict (the same function), each problem located at
    /// its script line. Rejected as Karmada's admission webhook would: no
    /// target, or a script that does not compile; a script that compiles
    /// and does not define its entry function (or whose top-level code
    /// fails) is accepted, as Karmada runs it (its calls fail), with the
    /// problems in its status. Conflicts between objects are not rejections
    /// here: the objects are already in the cluster, and they merge in name
    /// order as in Karmada (the status says which wins).
    fn check(&self, value: &Value, name: &str) -> Result<Vec<String>, ClusterError> {
        let checked = check_customization(
            "cluster",
            self,
            &Locator::for_object(value),
            karmada_interpreter::profile::Profile::default(),
        );
        if checked.passed {
            return Ok(Vec::new());
        }
        let karmada_refuses = checked.error.is_some()
            || karmada_interpreter::declarative::validate::admit(self, &[]).is_err();
        if !karmada_refuses {
            return Ok(checked.refusals());
        }
        Err(ClusterError::Rejected {
            kind: Self::KIND,
            name: name.to_owned(),
            reasons: checked.refusals(),
        })
    }

    fn publish(shared: &Shared, items: Vec<Self>) -> Result<(), ClusterError> {
        let fail = |source| ClusterError::Layer {
            kind: Self::KIND,
            source,
        };
        let limits = shared.options.limits;
        let (shadows, live): (Vec<Self>, Vec<Self>) = items.into_iter().partition(Self::is_shadow);
        let layer = if shared.options.composition {
            LuaLayer::composed(live.clone(), limits)
        } else {
            LuaLayer::customizations_with_limits(live.clone(), limits)
        }
        .map_err(fail)?
        .with_profile(shared.options.profile);
        let shadows = ShadowSet::new(shadows, limits).map_err(fail)?;
        shared.customizations.store(Arc::new(Snapshot::new(layer)));
        shared.shadows.store(Arc::new(shadows));
        shared.customization_objects.store(Arc::new(live));
        Ok(())
    }

    fn statuses(
        _: &Shared,
        good: &BTreeMap<String, Self>,
        rejected: &BTreeMap<String, String>,
        problems: &BTreeMap<String, Vec<String>>,
    ) -> BTreeMap<String, ObjectStatus> {
        observe::customizations(good, rejected, problems)
    }
}

impl Watched for ResourceInterpreterWebhookConfiguration {
    const KIND: &'static str = "ResourceInterpreterWebhookConfiguration";

    fn check(&self, _: &Value, name: &str) -> Result<Vec<String>, ClusterError> {
        karmada_interpreter::webhook::validate(self)
            .map(|()| Vec::new())
            .map_err(|source| ClusterError::InvalidWebhookConfiguration {
                name: name.to_owned(),
                source,
            })
    }

    fn publish(shared: &Shared, items: Vec<Self>) -> Result<(), ClusterError> {
        let layer =
            WebhookLayer::new_unvalidated(items.clone()).map_err(|source| ClusterError::Layer {
                kind: Self::KIND,
                source,
            })?;
        shared.webhooks.store(Arc::new(Snapshot::new(layer)));
        shared.webhook_objects.store(Arc::new(items));
        Ok(())
    }

    fn statuses(
        shared: &Shared,
        good: &BTreeMap<String, Self>,
        rejected: &BTreeMap<String, String>,
        _: &BTreeMap<String, Vec<String>>,
    ) -> BTreeMap<String, ObjectStatus> {
        let layer = shared.webhooks.load();
        let answers = |gvk: &kube::core::GroupVersionKind, op| {
            use karmada_interpreter::interpreter::Layer;
            layer.layer().source(gvk, op).map(|s| s.name.into_owned())
        };
        observe::webhook_configurations(good, rejected, &answers)
    }
}

/// One watcher's memory.
pub(crate) struct KindState<K> {
    /// The version of each object that serves, by name.
    good: BTreeMap<String, K>,
    /// Objects whose current version is rejected: the reason, by name.
    rejected: BTreeMap<String, String>,
    /// What `check` finds in a serving version Karmada runs anyway, by name.
    problems: BTreeMap<String, Vec<String>>,
    /// Objects of a re-list in progress (`Init` .. `InitDone`).
    relist: Option<Vec<DynamicObject>>,
    synced: bool,
    /// What was last seen of each object (its content without the
    /// resource version and the status this process writes): a change of
    /// the status alone is not a change.
    seen: BTreeMap<String, Value>,
    /// Each object's uid and status annotation as last seen.
    meta: BTreeMap<String, (Option<String>, Option<String>)>,
}

impl<K> Default for KindState<K> {
    fn default() -> Self {
        Self {
            good: BTreeMap::new(),
            rejected: BTreeMap::new(),
            problems: BTreeMap::new(),
            relist: None,
            synced: false,
            seen: BTreeMap::new(),
            meta: BTreeMap::new(),
        }
    }
}

fn name_of(object: &DynamicObject) -> String {
    object.metadata.name.clone().unwrap_or_default()
}

impl<K: Watched> KindState<K> {
    /// Applies one watch event, then publishes and records the status.
    pub(crate) fn handle(&mut self, event: Event<DynamicObject>, shared: &Shared) {
        let publish = match event {
            Event::Init => {
                self.relist = Some(Vec::new());
                false
            }
            Event::InitApply(object) => {
                self.relist.get_or_insert_with(Vec::new).push(object);
                false
            }
            Event::InitDone => {
                let listed = self.relist.take().unwrap_or_default();
                let names: std::collections::BTreeSet<String> =
                    listed.iter().map(name_of).collect();
                // What the list no longer holds was deleted while we were away.
                self.good.retain(|name, _| names.contains(name));
                self.rejected.retain(|name, _| names.contains(name));
                self.problems.retain(|name, _| names.contains(name));
                self.seen.retain(|name, _| names.contains(name));
                self.meta.retain(|name, _| names.contains(name));
                for object in listed {
                    self.apply(object, shared);
                }
                self.synced = true;
                true
            }
            Event::Apply(object) => self.apply(object, shared),
            Event::Delete(object) => {
                let name = name_of(&object);
                self.rejected.remove(&name);
                self.problems.remove(&name);
                self.seen.remove(&name);
                self.meta.remove(&name);
                self.good.remove(&name).is_some()
            }
        };
        if publish {
            if let Err(error) = K::publish(shared, self.good.values().cloned().collect()) {
                shared.report(&error);
            }
        }
        let (synced, serving, rejected) = (
            self.synced,
            self.good.keys().cloned().collect(),
            self.rejected
                .iter()
                .map(|(n, r)| (n.clone(), r.clone()))
                .collect(),
        );
        shared.update_status(K::KIND, |s| {
            s.connected = true;
            s.synced = synced;
            s.serving = serving;
            s.rejected = rejected;
        });
        if self.synced {
            self.observe(shared);
        }
    }

    /// Accepts `object` as the serving version of its name, or records why not
    /// (the previous good version, if any, keeps serving). `false` when
    /// nothing but the status this process writes changed.
    fn apply(&mut self, object: DynamicObject, shared: &Shared) -> bool {
        let name = name_of(&object);
        let annotation = object
            .metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(STATUS_ANNOTATION))
            .cloned();
        self.meta
            .insert(name.clone(), (object.metadata.uid.clone(), annotation));
        let value = match serde_json::to_value(&object) {
            Ok(value) => value,
            Err(source) => {
                let error = ClusterError::Decode {
                    kind: K::KIND,
                    name: name.clone(),
                    source,
                };
                shared.report(&error);
                self.rejected.insert(name, error.to_string());
                return false;
            }
        };
        let content = content(&value);
        if self.seen.get(&name) == Some(&content) {
            return false;
        }
        self.seen.insert(name.clone(), content);
        match decode::<K>(value.clone(), &name).and_then(|k| k.check(&value, &name).map(|p| (k, p)))
        {
            Ok((k, problems)) => {
                self.rejected.remove(&name);
                if problems.is_empty() {
                    self.problems.remove(&name);
                } else {
                    self.problems.insert(name.clone(), problems);
                }
                self.good.insert(name, k);
                true
            }
            Err(error) => {
                shared.report(&error);
                self.rejected.insert(name, error.to_string());
                false
            }
        }
    }

    /// Each object's observed status: kept for
    /// [`ClusterConfig::object_status`](crate::ClusterConfig::object_status)
    /// and, when reporting, written where it changed (the annotation; an
    /// Event when it was accepted, rejected, or marked or unmarked shadow).
    fn observe(&self, shared: &Shared) {
        let statuses = K::statuses(shared, &self.good, &self.rejected, &self.problems);
        let mut writes = Vec::new();
        {
            let mut all = lock(&shared.statuses);
            all.retain(|(kind, name), _| *kind != K::KIND || statuses.contains_key(name));
            for (name, mut status) in statuses {
                let (uid, annotation) = self.meta.get(&name).cloned().unwrap_or_default();
                let entry = all.entry((K::KIND, name.clone())).or_default();
                entry.uid = uid.clone();
                let shadow = status.conditions.iter().any(|c| c.type_ == "Shadow");
                if shadow {
                    status.shadow = entry.status.shadow.clone();
                }
                let previous = if entry.status.conditions.is_empty() {
                    annotation
                        .as_deref()
                        .and_then(|a| serde_json::from_str::<ObjectStatus>(a).ok())
                } else {
                    Some(entry.status.clone())
                };
                let text = serde_json::to_string(&status).ok();
                let event = transition(previous.as_ref(), &status);
                let annotate = text.is_some() && annotation != text;
                if previous.as_ref() == Some(&status) && !annotate {
                    continue;
                }
                entry.status = status;
                if annotate || event.is_some() {
                    writes.push(Write {
                        kind: K::KIND,
                        name,
                        uid,
                        annotation: text,
                        event,
                    });
                }
            }
        }
        for write in writes {
            shared.write(write);
        }
    }
}

/// The Event for a status change: accepted or rejected (again, for a new
/// reason), marked or unmarked shadow. None for an object first seen
/// accepted, so a restart does not repeat them.
fn transition(previous: Option<&ObjectStatus>, now: &ObjectStatus) -> Option<Note> {
    let condition = |s: &ObjectStatus, t: &str| {
        s.conditions
            .iter()
            .find(|c| c.type_ == t)
            .map(|c| (c.status.clone(), c.message.clone()))
    };
    let accepted = condition(now, "Accepted");
    let was = previous.and_then(|p| condition(p, "Accepted"));
    match (&was, &accepted) {
        (_, Some((status, message))) if status == "False" && was.as_ref() != accepted.as_ref() => {
            return Some(Note {
                severity: Severity::Warning,
                reason: "Rejected",
                message: message.clone(),
            })
        }
        (_, Some((status, message)))
            if status == "True"
                && now.accepted().is_some_and(|c| c.reason == PROBLEMS)
                && was.as_ref() != accepted.as_ref() =>
        {
            return Some(Note {
                severity: Severity::Warning,
                reason: PROBLEMS,
                message: message.clone(),
            })
        }
        (Some((before, _)), Some((status, _))) if before == "False" && status == "True" => {
            return Some(Note {
                severity: Severity::Normal,
                reason: "Accepted",
                message: "accepted: its current version serves".to_owned(),
            })
        }
        _ => {}
    }
    let shadow = condition(now, "Shadow");
    let was_shadow = previous.and_then(|p| condition(p, "Shadow"));
    match (was_shadow, shadow) {
        (None, Some((_, message))) if previous.is_some() || now.is_accepted() => Some(Note {
            severity: Severity::Normal,
            reason: "ShadowRun",
            message,
        }),
        (Some(_), None) if now.is_accepted() => Some(Note {
            severity: Severity::Normal,
            reason: "Promoted",
            message: "no longer a shadow: its rules answer".to_owned(),
        }),
        _ => None,
    }
}

/// An object without what changes when only its status is written.
fn content(value: &Value) -> Value {
    let mut value = value.clone();
    if let Some(meta) = value.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("resourceVersion");
        meta.remove("managedFields");
        if let Some(a) = meta.get_mut("annotations").and_then(Value::as_object_mut) {
            a.remove(STATUS_ANNOTATION);
        }
    }
    value
}

fn decode<K: Watched>(value: Value, name: &str) -> Result<K, ClusterError> {
    serde_json::from_value(value).map_err(|source| ClusterError::Decode {
        kind: K::KIND,
        name: name.to_owned(),
        source,
    })
}
