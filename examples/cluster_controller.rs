//! A small controller that interprets the Deployments it watches with the
//! chain a Karmada control plane configures: the cluster's
//! ResourceInterpreterCustomizations and webhook configurations (followed
//! live), then the bundled and native interpreters.
//!
//! ```text
//! cargo run --features cluster --example cluster_controller -- [NAMESPACE]
//! ```
//! Uses the default kubeconfig (or the pod's service account); needs
//! get/list/watch on both config.karmada.io kinds (`deploy/rbac.yaml`) and on
//! Deployments.

use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::apps::v1::Deployment;
use karmada_interpreter::cluster::ClusterConfig;
use karmada_interpreter::interpreter::Typed;
use karmada_interpreter::Interpreter;
use kube::runtime::{watcher, WatchStreamExt};
use kube::{Api, ResourceExt};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = kube::Client::try_default().await?;
    let cluster = ClusterConfig::start(client.clone());
    cluster.wait_synced(Duration::from_secs(30)).await?;
    let chain = cluster.interpreter()?;

    let deployments: Api<Deployment> = match std::env::args().nth(1) {
        Some(namespace) => Api::namespaced(client, &namespace),
        None => Api::all(client),
    };
    let mut applied = watcher(deployments, watcher::Config::default())
        .default_backoff()
        .applied_objects()
        .boxed();
    while let Some(deployment) = applied.next().await {
        match deployment {
            Ok(deployment) => report(&chain, &deployment),
            Err(e) => eprintln!("watch: {e}"),
        }
    }
    Ok(())
}

/// Every call goes through the chain as it is at that moment: a
/// customization changed in the control plane applies to the next object.
fn report(chain: &Interpreter, deployment: &Deployment) {
    let name = format!(
        "{}/{}",
        deployment.namespace().unwrap_or_default(),
        deployment.name_any()
    );
    match chain.get_replicas(Typed(deployment)) {
        Ok(answer) => println!(
            "{name}: {} replica(s) (by {})",
            answer.value.replicas, answer.served_by
        ),
        Err(e) => eprintln!("{name}: {e}"),
    }
    match chain.interpret_health(Typed(deployment)) {
        Ok(answer) => println!("{name}: healthy={} (by {})", answer.value, answer.served_by),
        Err(e) => eprintln!("{name}: {e}"),
    }
    match chain.revise_replica(Typed(deployment), 2) {
        Ok(answer) => println!(
            "{name}: revised to {:?} replicas",
            answer.value.spec.replicas
        ),
        Err(e) => eprintln!("{name}: {e}"),
    }
}
