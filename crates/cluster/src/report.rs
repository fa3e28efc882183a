//! Writing what is observed where a platform team looks: the
//! [`STATUS_ANNOTATION`](crate::STATUS_ANNOTATION) on the object (a JSON
//! merge patch of its metadata: Karmada's CRDs have no status subresource)
//! and `events.k8s.io/v1` Events regarding it (in namespace `default`, as
//! for every cluster-scoped object; `kubectl describe` shows both). A task
//! of its own writes them from a bounded queue: the watchers and the calls
//! never wait for the API server; a full queue drops the write (counted in
//! [`ClusterStatus::dropped_reports`](crate::ClusterStatus)).

use std::time::Duration;

use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::api::events::v1::Event;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use kube::api::{Api, ApiResource, DynamicObject, Patch, PatchParams, PostParams};
use tokio::sync::mpsc;

use karmada_interpreter::api::CONFIG_API_VERSION;

use crate::{ClusterError, Shared, STATUS_ANNOTATION};

/// What is written, and by whom ([`ClusterOptions::reporting`](crate::ClusterOptions)).
#[derive(Debug, Clone)]
pub struct Reporting {
    /// Write each object's observed status as its
    /// [`STATUS_ANNOTATION`](crate::STATUS_ANNOTATION) (needs `patch` on
    /// both kinds). Default on.
    pub annotate: bool,
    /// Write Events (needs `create` on `events.k8s.io` events in
    /// namespace `default`). Default on.
    pub events: bool,
    /// The Events' `reportingController`. Default `karmada-interpreter`.
    pub controller: String,
    /// The Events' `reportingInstance` (the pod's name). Default: the controller.
    pub instance: Option<String>,
    /// At most one Event per object in this long about run-time failures
    /// and shadow differences (the counts between are in the next one and
    /// in the metrics). Default 60 s.
    pub event_interval: Duration,
}

impl Default for Reporting {
    fn default() -> Self {
        Self {
            annotate: true,
            events: true,
            controller: "karmada-interpreter".to_owned(),
            instance: None,
            event_interval: Duration::from_secs(60),
        }
    }
}

/// `Normal` or `Warning`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Severity {
    Normal,
    Warning,
}

/// One Event to write.
#[derive(Debug, Clone)]
pub(crate) struct Note {
    pub(crate) severity: Severity,
    pub(crate) reason: &'static str,
    pub(crate) message: String,
}

/// One write about one object.
#[derive(Debug, Clone)]
pub(crate) struct Write {
    pub(crate) kind: &'static str,
    pub(crate) name: String,
    pub(crate) uid: Option<String>,
    /// The status annotation's new text.
    pub(crate) annotation: Option<String>,
    pub(crate) event: Option<Note>,
}

/// Writes waiting, at most.
pub(crate) const QUEUE: usize = 1024;

/// The writer task: one write at a time, failures reported and dropped
/// (the next change writes the whole status again).
pub(crate) async fn run(
    client: kube::Client,
    reporting: Reporting,
    mut rx: mpsc::Receiver<Write>,
    shared: std::sync::Weak<Shared>,
) {
    while let Some(write) = rx.recv().await {
        let result = apply(&client, &reporting, &write).await;
        let Some(shared) = shared.upgrade() else {
            return;
        };
        if let Err(error) = result {
            shared.report(&error);
        }
    }
}

async fn apply(
    client: &kube::Client,
    reporting: &Reporting,
    write: &Write,
) -> Result<(), ClusterError> {
    if let (true, Some(text)) = (reporting.annotate, &write.annotation) {
        let resource = resource(write.kind);
        let api: Api<DynamicObject> = Api::all_with(client.clone(), &resource);
        let patch = serde_json::json!({"metadata": {"annotations": {STATUS_ANNOTATION: text}}});
        api.patch(&write.name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .map_err(|source| ClusterError::Api {
                what: format!("writing the status of {} {:?}", write.kind, write.name),
                source,
            })?;
    }
    if let (true, Some(note)) = (reporting.events, &write.event) {
        let now = k8s_openapi::jiff::Timestamp::now();
        let event = Event {
            metadata: ObjectMeta {
                name: Some(format!("{}.{:x}", write.name, now.as_nanosecond())),
                namespace: Some("default".to_owned()),
                ..ObjectMeta::default()
            },
            event_time: Some(MicroTime(now)),
            type_: Some(
                match note.severity {
                    Severity::Normal => "Normal",
                    Severity::Warning => "Warning",
                }
                .to_owned(),
            ),
            reason: Some(note.reason.to_owned()),
            action: Some("Interpret".to_owned()),
            note: Some(cut(&note.message, 1024)),
            regarding: Some(ObjectReference {
                api_version: Some(CONFIG_API_VERSION.to_owned()),
                kind: Some(write.kind.to_owned()),
                name: Some(write.name.clone()),
                uid: write.uid.clone(),
                ..ObjectReference::default()
            }),
            reporting_controller: Some(reporting.controller.clone()),
            reporting_instance: Some(
                reporting
                    .instance
                    .clone()
                    .unwrap_or_else(|| reporting.controller.clone()),
            ),
            ..Event::default()
        };
        let api: Api<Event> = Api::namespaced(client.clone(), "default");
        api.create(&PostParams::default(), &event)
            .await
            .map_err(|source| ClusterError::Api {
                what: format!("writing an Event about {} {:?}", write.kind, write.name),
                source,
            })?;
    }
    Ok(())
}

/// The API resource of a watched kind.
fn resource(kind: &str) -> ApiResource {
    use karmada_interpreter::api::{
        ResourceInterpreterCustomization, ResourceInterpreterWebhookConfiguration,
    };
    if kind == ResourceInterpreterCustomization::KIND {
        ApiResource::erase::<ResourceInterpreterCustomization>(&())
    } else {
        ApiResource::erase::<ResourceInterpreterWebhookConfiguration>(&())
    }
}

/// At most `max` bytes (an Event's note is limited to 1 kB).
fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut at = max - 3;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    format!("{}...", &text[..at])
}
