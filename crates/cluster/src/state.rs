//! What one watcher keeps: the last good version of every object by name,
//! the current rejections, and the re-list buffer.

use std::collections::BTreeMap;
use std::sync::Arc;

use kube::api::DynamicObject;
use kube::runtime::watcher::Event;
use serde::de::DeserializeOwned;

use crate::live::Snapshot;
use crate::{ClusterError, Shared};
use karmada_interpreter::api::{
    ResourceInterpreterCustomization, ResourceInterpreterWebhookConfiguration,
};
use karmada_interpreter::declarative::LuaLayer;
use karmada_interpreter::webhook::WebhookLayer;

/// A watched configuration kind: how to accept one object and how to
/// publish the accepted set as a layer.
pub(crate) trait Watched:
    kube::Resource<DynamicType = ()> + DeserializeOwned + Clone + Send + Sync + 'static
{
    /// The kind's name, for messages.
    const KIND: &'static str;

    /// Validates one decoded object as admission would.
    fn check(&self, name: &str) -> Result<(), ClusterError>;

    /// Builds the layer from the accepted objects and swaps it in.
    fn publish(shared: &Shared, items: Vec<Self>) -> Result<(), ClusterError>;
}

impl Watched for ResourceInterpreterCustomization {
    const KIND: &'static str = "ResourceInterpreterCustomization";

    fn check(&self, name: &str) -> Result<(), ClusterError> {
        let missing = |field| ClusterError::MissingTarget {
            name: name.to_owned(),
            field,
        };
        if self.spec.target.api_version.is_empty() {
            return Err(missing("spec.target.apiVersion"));
        }
        if self.spec.target.kind.is_empty() {
            return Err(missing("spec.target.kind"));
        }
        // Conflicts between objects are not rejections here: the objects are
        // already in the cluster, and they merge in name order as in Karmada.
        karmada_interpreter::declarative::validate::admit(self, &[]).map_err(|source| {
            ClusterError::InvalidCustomization {
                name: name.to_owned(),
                source,
            }
        })
    }

    fn publish(shared: &Shared, items: Vec<Self>) -> Result<(), ClusterError> {
        let limits = shared.options.limits;
        let layer = if shared.options.composition {
            LuaLayer::composed(items.clone(), limits)
        } else {
            LuaLayer::customizations_with_limits(items.clone(), limits)
        }
        .map_err(|source| ClusterError::Layer {
            kind: Self::KIND,
            source,
        })?;
        shared.customizations.store(Arc::new(Snapshot::new(layer)));
        shared.customization_objects.store(Arc::new(items));
        Ok(())
    }
}

impl Watched for ResourceInterpreterWebhookConfiguration {
    const KIND: &'static str = "ResourceInterpreterWebhookConfiguration";

    fn check(&self, name: &str) -> Result<(), ClusterError> {
        karmada_interpreter::webhook::validate(self).map_err(|source| {
            ClusterError::InvalidWebhookConfiguration {
                name: name.to_owned(),
                source,
            }
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
}

/// One watcher's memory.
pub(crate) struct KindState<K> {
    /// The version of each object that serves, by name.
    good: BTreeMap<String, K>,
    /// Objects whose current version is rejected: the reason, by name.
    rejected: BTreeMap<String, String>,
    /// Objects of a re-list in progress (`Init` .. `InitDone`).
    relist: Option<Vec<DynamicObject>>,
    synced: bool,
}

impl<K> Default for KindState<K> {
    fn default() -> Self {
        Self {
            good: BTreeMap::new(),
            rejected: BTreeMap::new(),
            relist: None,
            synced: false,
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
                for object in listed {
                    self.apply(object, shared);
                }
                self.synced = true;
                true
            }
            Event::Apply(object) => {
                self.apply(object, shared);
                true
            }
            Event::Delete(object) => {
                let name = name_of(&object);
                self.rejected.remove(&name);
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
    }

    /// Accepts `object` as the serving version of its name, or records why not
    /// (the previous good version, if any, keeps serving).
    fn apply(&mut self, object: DynamicObject, shared: &Shared) {
        let name = name_of(&object);
        match decode::<K>(&object, &name).and_then(|k| k.check(&name).map(|()| k)) {
            Ok(k) => {
                self.rejected.remove(&name);
                self.good.insert(name, k);
            }
            Err(error) => {
                shared.report(&error);
                self.rejected.insert(name, error.to_string());
            }
        }
    }
}

fn decode<K: Watched>(object: &DynamicObject, name: &str) -> Result<K, ClusterError> {
    let fail = |source| ClusterError::Decode {
        kind: K::KIND,
        name: name.to_owned(),
        source,
    };
    let value = serde_json::to_value(object).map_err(fail)?;
    serde_json::from_value(value).map_err(fail)
}
