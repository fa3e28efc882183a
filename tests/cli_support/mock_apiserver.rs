//! An in-process Kubernetes API server on 127.0.0.1 that speaks just enough
//! of the list/watch protocol for cluster-scoped custom resources: `GET
//! <collection>` lists, `GET <collection>?watch=true&resourceVersion=N`
//! streams the events after N as JSON lines. Tests change objects, cut every
//! open watch, fail the next requests, or expire the watches (410 Gone).
//! It records what a reporting client writes: merge patches of objects
//! (applied, with a MODIFIED event) and created Events (events.k8s.io/v1).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::{combinators::BoxBody, BodyExt, Full, StreamBody};
use hyper::body::{Bytes, Frame};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};

pub const CUSTOMIZATIONS: &str = "resourceinterpretercustomizations";
pub const WEBHOOKS: &str = "resourceinterpreterwebhookconfigurations";
const PREFIX: &str = "/apis/config.karmada.io/v1alpha1/";

#[derive(Default)]
struct Inner {
    rv: u64,
    objects: BTreeMap<(String, String), Value>,
    /// (resourceVersion, collection, type, object)
    events: Vec<(u64, String, &'static str, Value)>,
    fail_next: u32,
    expire_watches: bool,
    requests: Vec<String>,
    /// Merge patches received: (collection, name, patch).
    patches: Vec<(String, String, Value)>,
    /// Events created (events.k8s.io/v1), in order.
    created_events: Vec<Value>,
    /// Any other resource: (`/apis/<group>/<version>` or `/api/v1`,
    /// plural, namespace, name) → object; listed and read, never watched.
    resources: BTreeMap<(String, String, String, String), Value>,
}

/// Handle to the server; it stops when the runtime it was started on ends.
#[derive(Clone)]
pub struct MockApiServer {
    pub addr: SocketAddr,
    inner: Arc<Mutex<Inner>>,
    /// Bumped on every change: open watches wake up.
    changed: tokio::sync::watch::Sender<u64>,
    /// Bumped to end every open watch.
    kick: tokio::sync::watch::Sender<u64>,
}

impl MockApiServer {
    /// Starts serving on an ephemeral loopback port (call inside a runtime).
    pub async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let server = Self {
            addr: listener.local_addr().unwrap(),
            inner: Arc::default(),
            changed: tokio::sync::watch::channel(0).0,
            kick: tokio::sync::watch::channel(0).0,
        };
        let s = server.clone();
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let s = s.clone();
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |req| {
                        let s = s.clone();
                        async move { Ok::<_, Infallible>(s.handle(req).await) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        server
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// A kube client talking to this server.
    pub fn client(&self) -> kube::Client {
        let config = kube::Config::new(self.url().parse().unwrap());
        kube::Client::try_from(config).unwrap()
    }

    /// A kubeconfig file (plain http on loopback) for the binary.
    pub fn kubeconfig(&self, dir: &std::path::Path) -> std::path::PathBuf {
        let path = dir.join("kubeconfig.yaml");
        let text = format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: mock\n  cluster:\n    server: {}\ncontexts:\n- name: mock\n  context:\n    cluster: mock\n    user: mock\ncurrent-context: mock\nusers:\n- name: mock\n  user:\n    token: test\n",
            self.url()
        );
        std::fs::write(&path, text).unwrap();
        path
    }

    /// Creates or replaces `object` (by `metadata.name`) in `collection`.
    pub fn apply(&self, collection: &str, mut object: Value) {
        let mut inner = self.inner.lock().unwrap();
        inner.rv += 1;
        let rv = inner.rv;
        object["metadata"]["resourceVersion"] = json!(rv.to_string());
        let name = object["metadata"]["name"].as_str().unwrap().to_owned();
        let key = (collection.to_owned(), name);
        let kind = if inner.objects.contains_key(&key) {
            "MODIFIED"
        } else {
            "ADDED"
        };
        inner.objects.insert(key, object.clone());
        inner.events.push((rv, collection.to_owned(), kind, object));
        drop(inner);
        self.changed.send_modify(|g| *g += 1);
    }

    /// Deletes `name` from `collection`.
    pub fn delete(&self, collection: &str, name: &str) {
        let mut inner = self.inner.lock().unwrap();
        inner.rv += 1;
        let rv = inner.rv;
        let mut object = inner
            .objects
            .remove(&(collection.to_owned(), name.to_owned()))
            .unwrap();
        object["metadata"]["resourceVersion"] = json!(rv.to_string());
        inner
            .events
            .push((rv, collection.to_owned(), "DELETED", object));
        drop(inner);
        self.changed.send_modify(|g| *g += 1);
    }

    /// Ends every open watch stream (a lost connection).
    pub fn cut_watches(&self) {
        self.kick.send_modify(|g| *g += 1);
    }

    /// Answers the next `n` requests with 500.
    pub fn fail_next(&self, n: u32) {
        self.inner.lock().unwrap().fail_next = n;
    }

    /// From now on, every watch answers `410 Gone` (forcing a re-list);
    /// `false` restores normal watches.
    pub fn expire_watches(&self, on: bool) {
        self.inner.lock().unwrap().expire_watches = on;
    }

    /// Changes an object without telling any watch (seen only by a re-list).
    pub fn apply_silently(&self, collection: &str, mut object: Value) {
        let mut inner = self.inner.lock().unwrap();
        inner.rv += 1;
        object["metadata"]["resourceVersion"] = json!(inner.rv.to_string());
        let name = object["metadata"]["name"].as_str().unwrap().to_owned();
        inner.objects.insert((collection.to_owned(), name), object);
    }

    /// Deletes an object without telling any watch.
    pub fn delete_silently(&self, collection: &str, name: &str) {
        let mut inner = self.inner.lock().unwrap();
        inner.rv += 1;
        inner
            .objects
            .remove(&(collection.to_owned(), name.to_owned()));
    }

    /// Creates or replaces `object` as a resource `plural` of its
    /// `apiVersion` (in its `metadata.namespace`, if any): listed (all
    /// namespaces, one namespace, by `labelSelector` of `key=value` pairs)
    /// and read by name.
    pub fn put(&self, plural: &str, object: Value) {
        let api_version = object["apiVersion"].as_str().unwrap().to_owned();
        let prefix = if api_version.contains('/') {
            format!("/apis/{api_version}")
        } else {
            format!("/api/{api_version}")
        };
        let namespace = object["metadata"]["namespace"]
            .as_str()
            .unwrap_or("")
            .to_owned();
        let name = object["metadata"]["name"].as_str().unwrap().to_owned();
        self.inner
            .lock()
            .unwrap()
            .resources
            .insert((prefix, plural.to_owned(), namespace, name), object);
    }

    /// A list or a get of a resource [`MockApiServer::put`] serves, by
    /// path: `<prefix>[/namespaces/<ns>]/<plural>[/<name>]`.
    fn resource(
        inner: &Inner,
        path: &str,
        query: &BTreeMap<String, String>,
    ) -> Option<Response<BoxBody<Bytes, Infallible>>> {
        let (prefix, rest) = inner
            .resources
            .keys()
            .map(|(p, _, _, _)| p.as_str())
            .find_map(|p| path.strip_prefix(p).map(|rest| (p, rest)))?;
        let parts: Vec<&str> = rest.trim_start_matches('/').split('/').collect();
        let (namespace, plural, name) = match parts.as_slice() {
            ["namespaces", ns, plural] => (Some(*ns), *plural, None),
            ["namespaces", ns, plural, name] => (Some(*ns), *plural, Some(*name)),
            [plural] => (None, *plural, None),
            [plural, name] => (Some(""), *plural, Some(*name)),
            _ => return None,
        };
        if let Some(name) = name {
            let key = (
                prefix.to_owned(),
                plural.to_owned(),
                namespace.unwrap_or("").to_owned(),
                name.to_owned(),
            );
            return Some(match inner.resources.get(&key) {
                Some(object) => json_response(200, object),
                None => status(404, "NotFound", &format!("{plural} \"{name}\" not found")),
            });
        }
        let selector: Vec<(String, String)> = query
            .get("labelSelector")
            .map(|s| s.replace("%3D", "=").replace("%2C", ","))
            .unwrap_or_default()
            .split(',')
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        let items: Vec<Value> = inner
            .resources
            .iter()
            .filter(|((p, pl, ns, _), _)| {
                p == prefix && pl == plural && namespace.is_none_or(|n| n == ns)
            })
            .filter(|(_, o)| {
                selector
                    .iter()
                    .all(|(k, v)| o["metadata"]["labels"][k].as_str() == Some(v.as_str()))
            })
            .map(|(_, o)| {
                // As the API server lists them: items without their type.
                let mut o = o.clone();
                if let Some(m) = o.as_object_mut() {
                    m.remove("apiVersion");
                    m.remove("kind");
                }
                o
            })
            .collect();
        Some(json_response(
            200,
            &json!({"kind": "List", "apiVersion": "v1", "metadata": {"resourceVersion": inner.rv.to_string()}, "items": items}),
        ))
    }

    /// Request lines seen so far (`GET path?query`).
    pub fn requests(&self) -> Vec<String> {
        self.inner.lock().unwrap().requests.clone()
    }

    /// Creates `object` as an API server with a validating admission
    /// webhook at `https://{webhook}/validate` (trusting `ca`) does: the
    /// AdmissionReview is sent first, and the object stored only when it is
    /// allowed. The review's `response`.
    pub async fn create_admitted(
        &self,
        collection: &str,
        object: Value,
        webhook: SocketAddr,
        ca: &str,
    ) -> Value {
        let uid = format!("review-{}", object["metadata"]["name"].as_str().unwrap());
        let body = crate::serve_admission::review(&uid, &object);
        let send = crate::serve_operable::connect(webhook, ca).await;
        let (status, text) =
            crate::serve_operable::call(send, webhook.port(), "/validate", Some(body)).await;
        assert_eq!(status, 200, "{text}");
        let answer: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(answer["response"]["uid"], uid.as_str(), "{answer}");
        if answer["response"]["allowed"] == true {
            self.apply(collection, object);
        }
        answer["response"].clone()
    }

    /// Merge patches received so far: (collection, name, patch).
    pub fn patches(&self) -> Vec<(String, String, Value)> {
        self.inner.lock().unwrap().patches.clone()
    }

    /// Events created so far (events.k8s.io/v1 objects).
    pub fn events(&self) -> Vec<Value> {
        self.inner.lock().unwrap().created_events.clone()
    }

    /// The stored object `name` of `collection`.
    pub fn object(&self, collection: &str, name: &str) -> Option<Value> {
        let inner = self.inner.lock().unwrap();
        inner
            .objects
            .get(&(collection.to_owned(), name.to_owned()))
            .cloned()
    }

    async fn handle(
        &self,
        req: Request<hyper::body::Incoming>,
    ) -> Response<BoxBody<Bytes, Infallible>> {
        let method = req.method().clone();
        if method == hyper::Method::PATCH || method == hyper::Method::POST {
            let path = req.uri().path().to_owned();
            let uri = req.uri().to_string();
            let body = req.into_body().collect().await.map(|b| b.to_bytes());
            let body: Value = body
                .ok()
                .and_then(|b| serde_json::from_slice(&b).ok())
                .unwrap_or(Value::Null);
            return self.write(&method, &path, &uri, body);
        }
        self.read(req)
    }

    /// `POST .../events` creates an Event; `PATCH <collection>/<name>`
    /// merges a JSON merge patch into the object (a MODIFIED event follows).
    fn write(
        &self,
        method: &hyper::Method,
        path: &str,
        uri: &str,
        body: Value,
    ) -> Response<BoxBody<Bytes, Infallible>> {
        let mut inner = self.inner.lock().unwrap();
        inner.requests.push(format!("{method} {uri}"));
        if inner.fail_next > 0 {
            inner.fail_next -= 1;
            return status(500, "InternalError", "the mock server fails on purpose");
        }
        if method == hyper::Method::POST
            && path == "/apis/events.k8s.io/v1/namespaces/default/events"
        {
            inner.created_events.push(body.clone());
            return json_response(201, &body);
        }
        let Some((collection, name)) = path
            .strip_prefix(PREFIX)
            .and_then(|rest| rest.split_once('/'))
            .filter(|(_, n)| !n.contains('/'))
        else {
            return status(404, "NotFound", "no such path");
        };
        let key = (collection.to_owned(), name.to_owned());
        let Some(mut object) = inner.objects.get(&key).cloned() else {
            return status(404, "NotFound", "no such object");
        };
        inner
            .patches
            .push((collection.to_owned(), name.to_owned(), body.clone()));
        merge(&mut object, &body);
        inner.rv += 1;
        let rv = inner.rv;
        object["metadata"]["resourceVersion"] = json!(rv.to_string());
        inner.objects.insert(key, object.clone());
        inner
            .events
            .push((rv, collection.to_owned(), "MODIFIED", object.clone()));
        drop(inner);
        self.changed.send_modify(|g| *g += 1);
        json_response(200, &object)
    }

    fn read(&self, req: Request<hyper::body::Incoming>) -> Response<BoxBody<Bytes, Infallible>> {
        let path = req.uri().path().to_owned();
        let query: BTreeMap<String, String> = req
            .uri()
            .query()
            .unwrap_or("")
            .split('&')
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        let mut inner = self.inner.lock().unwrap();
        inner
            .requests
            .push(format!("{} {}", req.method(), req.uri()));
        if inner.fail_next > 0 {
            inner.fail_next -= 1;
            return status(500, "InternalError", "the mock server fails on purpose");
        }
        let Some(collection) = path.strip_prefix(PREFIX).filter(|c| !c.contains('/')) else {
            return Self::resource(&inner, &path, &query)
                .unwrap_or_else(|| status(404, "NotFound", "no such path"));
        };
        let collection = collection.to_owned();
        if query.get("watch").map(String::as_str) == Some("true") {
            let since: u64 = query
                .get("resourceVersion")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            let expired = inner.expire_watches;
            drop(inner);
            return self.watch(collection, since, expired);
        }
        let items: Vec<Value> = inner
            .objects
            .iter()
            .filter(|((c, _), _)| *c == collection)
            .map(|(_, o)| o.clone())
            .collect();
        let body = json!({
            "apiVersion": "config.karmada.io/v1alpha1",
            "kind": "List",
            "metadata": {"resourceVersion": inner.rv.to_string()},
            "items": items,
        });
        json_response(200, &body)
    }

    fn watch(
        &self,
        collection: String,
        mut since: u64,
        expired: bool,
    ) -> Response<BoxBody<Bytes, Infallible>> {
        let (tx, rx) = tokio::sync::mpsc::channel::<Bytes>(64);
        let inner = self.inner.clone();
        let mut changed = self.changed.subscribe();
        let mut kick = self.kick.subscribe();
        tokio::spawn(async move {
            if expired {
                let gone = json!({"type": "ERROR", "object": {
                    "apiVersion": "v1", "kind": "Status", "metadata": {},
                    "status": "Failure", "reason": "Expired", "code": 410,
                    "message": "too old resource version"}});
                let _ = tx.send(line(&gone)).await;
                return;
            }
            loop {
                let pending: Vec<(u64, Value)> = {
                    let inner = inner.lock().unwrap();
                    inner
                        .events
                        .iter()
                        .filter(|(rv, c, _, _)| *rv > since && *c == collection)
                        .map(|(rv, _, t, o)| (*rv, json!({"type": t, "object": o})))
                        .collect()
                };
                for (rv, event) in pending {
                    since = rv;
                    if tx.send(line(&event)).await.is_err() {
                        return;
                    }
                }
                tokio::select! {
                    r = changed.changed() => if r.is_err() { return },
                    _ = kick.changed() => return,
                    _ = tokio::time::sleep(Duration::from_secs(30)) => return,
                }
            }
        });
        let stream = futures::stream::unfold(rx, |mut rx| async move {
            rx.recv()
                .await
                .map(|b| (Ok::<_, Infallible>(Frame::data(b)), rx))
        });
        Response::builder()
            .status(200)
            .header("content-type", "application/json")
            .body(BodyExt::boxed(StreamBody::new(stream)))
            .unwrap()
    }
}

/// RFC 7386 JSON merge patch.
fn merge(target: &mut Value, patch: &Value) {
    let Value::Object(patch) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = json!({});
    }
    let Value::Object(map) = target else { return };
    for (k, v) in patch {
        if v.is_null() {
            map.remove(k);
        } else {
            merge(map.entry(k.clone()).or_insert(Value::Null), v);
        }
    }
}

fn line(v: &Value) -> Bytes {
    let mut s = v.to_string();
    s.push('\n');
    Bytes::from(s)
}

fn json_response(code: u16, body: &Value) -> Response<BoxBody<Bytes, Infallible>> {
    Response::builder()
        .status(code)
        .header("content-type", "application/json")
        .body(BodyExt::boxed(Full::new(Bytes::from(body.to_string()))))
        .unwrap()
}

fn status(code: u16, reason: &str, message: &str) -> Response<BoxBody<Bytes, Infallible>> {
    json_response(
        code,
        &json!({"apiVersion": "v1", "kind": "Status", "metadata": {},
                "status": "Failure", "reason": reason, "message": message, "code": code}),
    )
}

/// A customization for `example.io/v1, Kind=Widget` whose `GetReplicas` returns `replicas`.
pub fn widget_customization(name: &str, kind: &str, script: &str) -> Value {
    crate::support::customization::Customization::new(name, "example.io/v1", kind)
        .rule("replicaResource", script)
        .json()
}

/// An object of `example.io/v1, Kind=kind`.
pub fn widget(kind: &str) -> Value {
    json!({"apiVersion": "example.io/v1", "kind": kind, "metadata": {"name": "w", "namespace": "default"},
           "spec": {"replicas": 1}})
}
