//! The argument groups several commands share: the customization files
//! (`-f`/`-R`) and the chain's extensions (customizations, webhooks, cluster).

use std::path::PathBuf;

use crate::load::{Input, Loader};
use karmada_interpreter::api::{
    ResourceInterpreterCustomization, ResourceInterpreterWebhookConfiguration,
};

use crate::cluster;

/// `-f`/`-R`: the customization sources of the declarative layer.
#[derive(Debug, clap::Args)]
pub struct CustomizationFiles {
    /// ResourceInterpreterCustomization documents: the declarative layer,
    /// consulted before every other layer. Files, directories (their
    /// .json/.yaml/.yml files), glob patterns or `-` for standard input;
    /// repeatable and comma-separated, as `run -f`.
    #[arg(
        long = "filename",
        short = 'f',
        visible_alias = "customization",
        alias = "customizations",
        value_name = "FILE"
    )]
    pub(crate) customizations: Vec<String>,
    /// Recurse into the directories given with -f.
    #[arg(long, short = 'R')]
    pub(crate) recursive: bool,
}

impl CustomizationFiles {
    /// The customization files named (directories and patterns expanded,
    /// the files there that hold no customization left out; standard input
    /// is no file).
    pub fn paths(&self) -> crate::error::Result<Vec<PathBuf>> {
        let sources = Loader::new()
            .customization_texts("-f", &self.customizations, self.recursive)
            .map_err(crate::load::customization_error)?;
        Ok(sources
            .kept
            .into_iter()
            .filter_map(|(s, _)| match s {
                Input::File(path) => Some(path),
                Input::Stdin => None,
            })
            .collect())
    }

    /// The customizations, per source.
    pub fn by_source(
        &self,
    ) -> crate::error::Result<Vec<(String, Vec<ResourceInterpreterCustomization>)>> {
        Loader::new().customizations_by_source("-f", &self.customizations, self.recursive)
    }

    /// The customizations of every source.
    pub fn load(&self) -> crate::error::Result<Vec<ResourceInterpreterCustomization>> {
        Loader::new().customizations("-f", &self.customizations, self.recursive)
    }
}

/// Customizations and webhook configurations that extend the built-in chain.
#[derive(Debug, clap::Args)]
pub struct ChainArgs {
    #[command(flatten)]
    pub(crate) files: CustomizationFiles,
    /// A file of ResourceInterpreterWebhookConfiguration documents
    /// (repeatable): the webhook layer.
    #[arg(long = "webhook-config", value_name = "FILE")]
    pub(crate) webhook_configs: Vec<PathBuf>,
    #[command(flatten)]
    pub(crate) cluster: cluster::ClusterArgs,
    #[command(flatten)]
    pub(crate) health: HealthLayersArgs,
}

/// The opt-in health layers: `--health-checks DIR`, `--health-fallback`,
/// `--health-exprs FILE`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct HealthLayersArgs {
    /// A folder of Argo CD health checks (`<group>/<Kind>/health.lua`, Argo
    /// CD's layout): they answer InterpretHealth for kinds no other layer
    /// serves. With `test`, the folders' `health_test.yaml` tests run too.
    #[arg(long = "health-checks", value_name = "DIR")]
    pub(crate) health_checks: Option<PathBuf>,
    /// Answer InterpretHealth for every kind no other layer serves with
    /// kstatus-style generic rules (deletion, observedGeneration,
    /// Ready/Reconciling/Stalled conditions) instead of leaving it unserved.
    #[arg(long)]
    pub(crate) health_fallback: bool,
    #[command(flatten)]
    pub(crate) health_exprs: HealthExprsArg,
}

impl HealthLayersArgs {
    /// `builder` with the opt-in health layers these flags ask for.
    pub fn apply(
        &self,
        builder: karmada_interpreter::interpreter::InterpreterBuilder,
    ) -> karmada_interpreter::interpreter::InterpreterBuilder {
        let builder = match &self.health_checks {
            Some(dir) => builder.health_checks(dir),
            None => builder,
        };
        self.health_exprs
            .apply(builder)
            .health_fallback(self.health_fallback)
    }

    /// The layers these flags ask for, loaded to say why they answered so.
    pub fn reasons(&self) -> crate::error::Result<crate::health_reason::HealthReasons> {
        crate::health_reason::HealthReasons::load(
            self.health_exprs.file.as_deref(),
            self.health_checks.as_deref(),
        )
    }
}

/// `--health-exprs FILE`: the CEL health layer.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct HealthExprsArg {
    /// A YAML file of Flux kustomize-controller `healthCheckExprs` entries
    /// (apiVersion, kind, current, inProgress, failed: CEL expressions over
    /// the object): they answer InterpretHealth for the kinds they name that
    /// no earlier layer serves, before Argo CD health checks (current is
    /// healthy; inProgress, failed, or none true is not).
    #[arg(id = "health_exprs", long = "health-exprs", value_name = "FILE")]
    pub(crate) file: Option<PathBuf>,
}

impl HealthExprsArg {
    /// `builder` with the CEL health layer, when a file is given.
    pub fn apply(
        &self,
        builder: karmada_interpreter::interpreter::InterpreterBuilder,
    ) -> karmada_interpreter::interpreter::InterpreterBuilder {
        match &self.file {
            Some(file) => builder.health_exprs(file.clone()),
            None => builder,
        }
    }
}

impl ChainArgs {
    /// `builder` with the opt-in health layers these flags ask for (and the
    /// command line's `--profile` and `--composition`).
    pub fn with_health(
        &self,
        builder: karmada_interpreter::interpreter::InterpreterBuilder,
    ) -> karmada_interpreter::interpreter::InterpreterBuilder {
        self.health.apply(
            builder
                .profile(crate::profile::current())
                .composition(crate::composition::on()),
        )
    }

    /// `backend` with the opt-in health layers these flags ask for.
    pub fn health_backend(
        &self,
        backend: karmada_interpreter_golden::ChainBackend,
    ) -> karmada_interpreter_golden::ChainBackend {
        backend
            .with_health(
                self.health.health_checks.clone(),
                self.health.health_fallback,
            )
            .with_health_exprs(self.health.health_exprs.file.clone())
            .with_profile(crate::profile::current())
            .with_composition(crate::composition::on())
    }

    pub fn load(
        &self,
    ) -> crate::error::Result<(
        Vec<ResourceInterpreterCustomization>,
        Vec<ResourceInterpreterWebhookConfiguration>,
    )> {
        let mut customizations = self.files.load()?;
        let mut webhooks = Vec::new();
        for path in &self.webhook_configs {
            webhooks.extend(karmada_interpreter::load::webhook_configurations_from_file(
                path,
            )?);
        }
        // The objects serving in the cluster now (the rejected ones are
        // reported on stderr and left out, as the live chain does).
        if self.cluster.source().is_some() {
            let runtime = cluster::runtime()?;
            if let Some(cluster) = self.cluster.start(&runtime)? {
                customizations.extend(cluster.customizations().iter().cloned());
                webhooks.extend(cluster.webhook_configurations().iter().cloned());
            }
        }
        Ok((customizations, webhooks))
    }
}

/// `--desired-file`, `--observed-file`, `--status-file`: an operation's
/// objects and status items, read as karmadactl reads them.
#[derive(Debug, clap::Args)]
pub struct ObjectFiles {
    /// The desired object (YAML or JSON): a file, a directory or pattern
    /// holding one object, or `-` for standard input.
    #[arg(long, value_name = "FILE")]
    pub(crate) desired_file: Option<String>,
    /// The observed object, as --desired-file.
    #[arg(long, value_name = "FILE")]
    pub(crate) observed_file: Option<String>,
    /// Aggregated status items (multi-document YAML or JSON): a file, a
    /// directory, a glob pattern or `-` for standard input.
    #[arg(long, value_name = "FILE")]
    pub(crate) status_file: Option<String>,
}

/// What [`ObjectFiles`] name, read.
pub struct Objects {
    /// The desired object.
    pub desired: Option<serde_json::Value>,
    /// The observed object.
    pub observed: Option<serde_json::Value>,
    /// The status items.
    pub items: Option<Vec<karmada_interpreter::api::AggregatedStatusItem>>,
}

impl ObjectFiles {
    /// Reads the objects and status items with `loader` (which knows
    /// whether standard input was read already), each failure worded as
    /// karmadactl words it.
    pub fn load(&self, loader: &mut Loader) -> crate::error::Result<Objects> {
        let mut object = |flag: &str, value: Option<&str>, what: &str| {
            value
                .map(|f| loader.object(flag, f))
                .transpose()
                .map_err(|source| crate::error::Error::Load {
                    what: what.to_owned(),
                    source,
                })
        };
        let desired = object(
            "--desired-file",
            self.desired_file.as_deref(),
            "fail to get desired object",
        )?;
        let observed = object(
            "--observed-file",
            self.observed_file.as_deref(),
            "fail to get observed object",
        )?;
        let items = self
            .status_file
            .as_deref()
            .map(|f| loader.status_items("--status-file", f))
            .transpose()
            .map_err(|source| crate::error::Error::Load {
                what: "fail to get status items".to_owned(),
                source,
            })?;
        Ok(Objects {
            desired,
            observed,
            items,
        })
    }
}
