//! `karmada-interpreter serve`: the whole built-in chain (native, bundled
//! third-party customizations, and customizations given with `-f`) as an
//! interpreter webhook over TLS.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use k8s_openapi::api::admissionregistration::v1::{ServiceReference, WebhookClientConfig};
use k8s_openapi::ByteString;
use karmada_interpreter::admission::ConfigurationAdmission;
use karmada_interpreter::api::ResourceInterpreterWebhookConfiguration;
use karmada_interpreter::webhook::sdk::InterpreterHandler;
use karmada_interpreter::webhook::server::{Limits, Server};
use karmada_interpreter::webhook::tls::TlsIdentity;
use karmada_interpreter::webhook::{clean_path, configuration_for};
use karmada_interpreter::Interpreter;

use crate::error::Error;

#[path = "serve_metrics.rs"]
mod metrics;

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    #[command(flatten)]
    files: crate::args::CustomizationFiles,
    #[command(flatten)]
    health: crate::args::HealthLayersArgs,
    /// Address to listen on (port 0 picks a free port).
    #[arg(long, default_value = "0.0.0.0:8443", value_name = "ADDR")]
    listen: SocketAddr,
    /// Request path of the interpreter.
    #[arg(long, default_value = "/interpret", value_name = "PATH")]
    path: String,
    /// Serving certificate chain (PEM); with --key.
    #[arg(long, requires = "key", value_name = "FILE")]
    cert: Option<PathBuf>,
    /// Private key of --cert (PEM).
    #[arg(long, requires = "cert", value_name = "FILE")]
    key: Option<PathBuf>,
    /// Directory with tls.crt and tls.key; a self-signed pair is created
    /// there when both are missing (so --print-config and serve agree).
    #[arg(long, conflicts_with = "cert", value_name = "DIR")]
    cert_dir: Option<PathBuf>,
    /// CA bundle (PEM) to put in the printed configuration; default: the
    /// serving certificate chain (right for self-signed certificates).
    #[arg(long, value_name = "FILE")]
    ca: Option<PathBuf>,
    /// Extra DNS names or IPs for the self-signed certificate (repeatable).
    #[arg(long = "host", value_name = "NAME")]
    hosts: Vec<String>,
    /// Print the configuration for this server and exit: `interpreter`
    /// (the default: a ResourceInterpreterWebhookConfiguration),
    /// `admission` (a ValidatingWebhookConfiguration for --admission-path)
    /// or `all` (both, as a YAML stream).
    #[arg(long, value_enum, num_args = 0..=1, default_missing_value = "interpreter", value_name = "WHICH")]
    print_config: Option<PrintConfig>,
    /// Also serve the validating admission webhook for
    /// ResourceInterpreterCustomization and
    /// ResourceInterpreterWebhookConfiguration objects: refuses what
    /// `check` refuses, keys Karmada ignores and a rule a served
    /// customization of the same target defines already; warns on what
    /// `lint` finds.
    #[arg(long)]
    admission: bool,
    /// Request path of the admission webhook (with --admission).
    #[arg(long, default_value = "/validate", value_name = "PATH")]
    admission_path: String,
    /// Name of the webhook entry in the printed ValidatingWebhookConfiguration.
    #[arg(
        long,
        default_value = "config.karmada-interpreter.io",
        value_name = "NAME"
    )]
    admission_webhook_name: String,
    /// Once listening, write the configuration (with the actual port) to FILE.
    #[arg(long, value_name = "FILE")]
    write_config: Option<PathBuf>,
    /// URL Karmada should call (default: https://127.0.0.1:<port><path>).
    #[arg(long, conflicts_with = "service", value_name = "URL")]
    url: Option<String>,
    /// Reach the server through this Service instead of a URL.
    #[arg(long, requires = "service_namespace", value_name = "NAME")]
    service: Option<String>,
    /// Namespace of --service.
    #[arg(long, value_name = "NAMESPACE")]
    service_namespace: Option<String>,
    /// Port of --service.
    #[arg(long, default_value_t = 443, value_name = "PORT")]
    service_port: i32,
    /// metadata.name of the printed configuration.
    #[arg(long, default_value = "karmada-interpreter", value_name = "NAME")]
    config_name: String,
    /// Name of the webhook entry in the printed configuration.
    #[arg(
        long,
        default_value = "interpreter.karmada-interpreter.io",
        value_name = "NAME"
    )]
    webhook_name: String,
    /// Largest request body accepted, in bytes (default: the Kubernetes API
    /// server's 3 MiB); larger requests are answered with code 413.
    #[arg(long, default_value_t = karmada_interpreter::webhook::sdk::MAX_REQUEST_BODY_BYTES, value_name = "BYTES")]
    max_request_bytes: usize,
    /// Open connections at most; further clients wait in the listen backlog.
    #[arg(long, default_value_t = Limits::default().max_connections, value_name = "N")]
    max_connections: usize,
    /// Requests interpreted at once at most; further requests wait their turn.
    #[arg(long, default_value_t = Limits::default().max_concurrent_requests, value_name = "N")]
    max_concurrent_requests: usize,
    /// timeoutSeconds of the printed configuration (1..30).
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(i32).range(1..=30))]
    timeout_seconds: Option<i32>,
    /// Request log: one line per request on standard error (operation,
    /// kind, layer, customization, status, duration), as text or JSON.
    #[arg(long, value_enum, default_value_t = metrics::LogFormat::Text, value_name = "FORMAT")]
    log_format: metrics::LogFormat,
    /// Least severe log lines written (`info`: one line per request).
    #[arg(long, value_enum, default_value_t = metrics::LogLevel::Info, value_name = "LEVEL")]
    log_level: metrics::LogLevel,
    /// Path of the Prometheus metrics page (GET, on the serving port).
    #[arg(long, default_value = "/metrics", value_name = "PATH")]
    metrics_path: String,
    /// How long a short request may run on an I/O thread, in microseconds,
    /// before it is handed to the blocking pool (its Lua run is cut off and
    /// started again there); 0 hands every request over.
    #[arg(long, default_value_t = 1000, value_name = "MICROSECONDS")]
    inline_budget_us: u64,
    /// I/O threads (default: one per CPU the process may run on); with one,
    /// a single-threaded runtime.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    io_threads: Option<u16>,
    /// With a cluster: write each followed object's observed status (the
    /// karmada-interpreter.io/status annotation) and Events about it
    /// (rejected, accepted again, script failures, shadow differences).
    #[arg(long, value_enum, value_name = "WHAT")]
    report: Option<crate::cluster::Report>,
    /// At most one Event per object about script failures and shadow
    /// differences in this many seconds (with --report).
    #[arg(long, default_value_t = 60, value_name = "SECONDS")]
    event_interval: u64,
    /// Serve the cluster's customizations and webhook configurations too,
    /// following every change live.
    #[command(flatten)]
    cluster: crate::cluster::ClusterArgs,
    #[command(flatten)]
    timeout: crate::ux::TimeoutArg,
}

/// Which configuration `--print-config` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum PrintConfig {
    /// The ResourceInterpreterWebhookConfiguration.
    Interpreter,
    /// The ValidatingWebhookConfiguration of the admission webhook.
    Admission,
    /// Both.
    All,
}

impl ServeArgs {
    fn san_names(&self) -> Vec<String> {
        let mut names: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
        if let (Some(svc), Some(ns)) = (&self.service, &self.service_namespace) {
            names.push(format!("{svc}.{ns}.svc"));
            names.push(format!("{svc}.{ns}.svc.cluster.local"));
        }
        if let Some(url) = &self.url {
            let cc = WebhookClientConfig {
                url: Some(url.clone()),
                ..Default::default()
            };
            if let Ok(e) = karmada_interpreter::webhook::Endpoint::from_client_config(&cc) {
                names.push(e.server_name);
            }
        }
        names.extend(self.hosts.iter().cloned());
        names.dedup();
        names
    }

    /// The serving identity and whether it is a throw-away one.
    fn identity(&self) -> crate::error::Result<(TlsIdentity, bool)> {
        if let (Some(cert), Some(key)) = (&self.cert, &self.key) {
            return Ok((TlsIdentity::from_files(cert, key)?, false));
        }
        let names = self.san_names();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        if let Some(dir) = &self.cert_dir {
            let (cert, key) = (dir.join("tls.crt"), dir.join("tls.key"));
            if !cert.exists() && !key.exists() {
                let id = TlsIdentity::self_signed(&refs).map_err(|e| Error::Start {
                    what: "a self-signed certificate",
                    source: Box::new(e),
                })?;
                std::fs::create_dir_all(dir).map_err(|source| Error::File {
                    path: dir.clone(),
                    source,
                })?;
                write_file(&cert, id.cert_pem.as_bytes())?;
                write_private(&key, id.key_pem.as_bytes())?;
                eprintln!("wrote a self-signed certificate to {}", cert.display());
            }
            return Ok((TlsIdentity::from_files(&cert, &key)?, false));
        }
        Ok((
            TlsIdentity::self_signed(&refs).map_err(|e| Error::Start {
                what: "a self-signed certificate",
                source: Box::new(e),
            })?,
            true,
        ))
    }

    /// How the API server reaches this server at `path`: the Service, the
    /// URL given, or the address it listens on.
    fn client_config(
        &self,
        identity: &TlsIdentity,
        addr: SocketAddr,
        path: &str,
    ) -> crate::error::Result<WebhookClientConfig> {
        let ca = match &self.ca {
            Some(path) => load_bytes(path)?,
            None => identity.cert_pem.clone().into_bytes(),
        };
        let path = clean_path(path);
        let mut cc = WebhookClientConfig {
            ca_bundle: Some(ByteString(ca)),
            ..Default::default()
        };
        if let (Some(name), Some(namespace)) = (&self.service, &self.service_namespace) {
            cc.service = Some(ServiceReference {
                name: name.clone(),
                namespace: namespace.clone(),
                path: Some(path),
                port: Some(self.service_port),
            });
        } else {
            let url = match &self.url {
                // --url names the interpreter's path; the admission webhook
                // is on the same server.
                Some(url) if path != clean_path(&self.path) => {
                    with_path(url, &clean_path(&self.path), &path)
                }
                Some(url) => url.clone(),
                None => {
                    let ip = if addr.ip().is_unspecified() {
                        "127.0.0.1".to_owned()
                    } else if addr.is_ipv6() {
                        format!("[{}]", addr.ip())
                    } else {
                        addr.ip().to_string()
                    };
                    format!("https://{ip}:{}{path}", addr.port())
                }
            };
            cc.url = Some(url);
        }
        Ok(cc)
    }

    fn configuration(
        &self,
        chain: &Interpreter,
        identity: &TlsIdentity,
        addr: SocketAddr,
    ) -> crate::error::Result<ResourceInterpreterWebhookConfiguration> {
        let cc = self.client_config(identity, addr, &self.path)?;
        let config = configuration_for(
            chain,
            &self.config_name,
            &self.webhook_name,
            cc,
            self.timeout_seconds,
        );
        karmada_interpreter::webhook::validate(&config).map_err(|e| {
            Error::usage(
                "serve",
                format!("the generated configuration is invalid: {e}"),
            )
        })?;
        Ok(config)
    }

    /// The configurations `--print-config` asks for, rendered.
    fn printed(
        &self,
        which: PrintConfig,
        chain: &Interpreter,
        identity: &TlsIdentity,
    ) -> crate::error::Result<String> {
        let mut out = Vec::new();
        if which != PrintConfig::Admission {
            out.push(render(&self.configuration(
                chain,
                identity,
                self.listen,
            )?)?);
        }
        if which != PrintConfig::Interpreter {
            let cc = self.client_config(identity, self.listen, &self.admission_path)?;
            let config = karmada_interpreter::admission::validating_configuration(
                &self.config_name,
                &self.admission_webhook_name,
                cc,
                self.timeout_seconds,
            );
            out.push(render(&config)?);
        }
        Ok(out.join("---\n"))
    }
}

/// `url` with its path `from` (at its end) replaced by `to`.
fn with_path(url: &str, from: &str, to: &str) -> String {
    match url.strip_suffix(from) {
        Some(base) => format!("{base}{to}"),
        None => format!("{}{to}", url.trim_end_matches('/')),
    }
}

fn load_bytes(path: &Path) -> crate::error::Result<Vec<u8>> {
    std::fs::read(path).map_err(|source| Error::File {
        path: path.to_owned(),
        source,
    })
}

fn write_file(path: &Path, bytes: &[u8]) -> crate::error::Result<()> {
    std::fs::write(path, bytes).map_err(|source| Error::File {
        path: path.to_owned(),
        source,
    })
}

/// Writes a new private key file readable by its owner only (0600 on Unix).
fn write_private(path: &Path, bytes: &[u8]) -> crate::error::Result<()> {
    use std::io::Write as _;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
        .open(path)
        .and_then(|mut f| f.write_all(bytes))
        .map_err(|source| Error::File {
            path: path.to_owned(),
            source,
        })
}

/// A configuration as pretty JSON (which YAML readers accept too).
fn render(config: &impl serde::Serialize) -> crate::error::Result<String> {
    serde_json::to_string_pretty(config)
        .map(|s| s + "\n")
        .map_err(|e| Error::Encode {
            what: "webhook configuration".into(),
            message: e.to_string(),
        })
}

/// Refuses to serve a customization whose rule would fail every call: the
/// error names the file, the customization and the rule, at its place in
/// the file (as `check` does: the same check).
fn refuse_broken(
    source_name: &str,
    customizations: &[karmada_interpreter::api::ResourceInterpreterCustomization],
) -> crate::error::Result<()> {
    let locator = karmada_interpreter::lint::Locator::for_files([source_name]);
    for c in customizations {
        let checked = karmada_interpreter::lint::check::check_customization(
            source_name,
            c,
            &locator,
            crate::profile::current(),
        );
        if let Some(problem) = checked.problems.first() {
            return Err(karmada_interpreter::Error::Config {
                source_name: source_name.to_owned(),
                message: format!(
                    "{problem}; not serving it (see `karmada-interpreter check -f {source_name}`)"
                ),
            }
            .into());
        }
    }
    Ok(())
}

#[allow(unsafe_code)] // SIGPIPE's disposition (libc)
pub fn run(args: ServeArgs) -> crate::error::Result<ExitCode> {
    // `main` lets SIGPIPE end the program (for `... | head`); a server must
    // not die when a client resets its connection while an answer is being
    // written (a vectored socket write raises SIGPIPE): back to Rust's
    // default, the write fails with EPIPE and only that connection ends.
    #[cfg(unix)]
    // SAFETY: called before the runtime (and any other thread) starts;
    // SIG_IGN is a valid disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    let mut customizations = Vec::new();
    for (name, found) in args.files.by_source()? {
        refuse_broken(&name, &found)?;
        customizations.extend(found);
    }
    let logs = metrics::init_logging(args.log_format, args.log_level);
    let threads = args.io_threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    );
    // One I/O thread: a single-threaded runtime (no work-stealing queues or
    // cross-thread wake-ups to pay for); more: one worker per thread.
    let runtime = if threads == 1 {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        builder.worker_threads(threads);
        builder
    }
    .enable_all()
    .build()
    .map_err(|e| Error::Start {
        what: "the runtime",
        source: Box::new(e),
    })?;
    // Kept alive for as long as we serve: its watchers update the chain.
    let mut cluster_args = args.cluster.clone();
    cluster_args.lua_limits = Some(args.timeout.limits());
    cluster_args.reporting = args
        .report
        .map(|what| what.reporting(std::time::Duration::from_secs(args.event_interval)));
    let cluster = cluster_args.start(&runtime)?;
    let served_files = customizations.clone();
    let base = || {
        let builder = args
            .health
            .apply(Interpreter::builder())
            .customizations(customizations.clone())
            .profile(crate::profile::current())
            .composition(crate::composition::on());
        if args.timeout.timeout.is_some() {
            builder.lua_limits(args.timeout.limits())
        } else {
            builder
        }
    };
    let mut builder = base();
    if let Some(cluster) = &cluster {
        // A shadow of a kind no cluster customization serves is compared
        // with the same chain's layers below.
        builder = cluster.attach_comparing(builder, base());
    }
    let chain = builder.build()?;
    let (identity, throwaway) = args.identity()?;
    if let Some(which) = args.print_config {
        if throwaway {
            return Err(Error::usage("serve", 
                "--print-config needs --cert/--key or --cert-dir, so the printed caBundle matches the serving certificate (with a throw-away self-signed certificate use --write-config)",
            ));
        }
        print!("{}", args.printed(which, &chain, &identity)?);
        return Ok(ExitCode::SUCCESS);
    }
    let path = clean_path(&args.path);
    let std_listener =
        std::net::TcpListener::bind(args.listen).map_err(|source| Error::Listen {
            address: args.listen,
            source,
        })?;
    let listen_error = |source| Error::Listen {
        address: args.listen,
        source,
    };
    let local = std_listener.local_addr().map_err(listen_error)?;
    std_listener.set_nonblocking(true).map_err(listen_error)?;
    if let Some(file) = &args.write_config {
        let text = render(&args.configuration(&chain, &identity, local)?)?;
        // Write then rename, so a reader never sees half a file.
        let tmp = file.with_extension("tmp");
        write_file(&tmp, text.as_bytes())?;
        std::fs::rename(&tmp, file).map_err(|source| Error::File {
            path: file.clone(),
            source,
        })?;
    }
    let limits = Limits {
        max_body_bytes: args.max_request_bytes,
        max_connections: args.max_connections,
        max_concurrent_requests: args.max_concurrent_requests,
        inline_budget: std::time::Duration::from_micros(args.inline_budget_us),
        ..Limits::default()
    };
    let observed = std::sync::Arc::new(metrics::Metrics::default());
    let page = observed.clone();
    if let Some(cluster) = &cluster {
        observed.follow(cluster.clone());
    }
    let mut server = Server::new(identity).limits(limits);
    let admission_path = clean_path(&args.admission_path);
    if args.admission {
        if admission_path == path || admission_path == clean_path(&args.metrics_path) {
            return Err(Error::usage(
                "--admission-path",
                format!("{admission_path} is the path of another endpoint"),
            ));
        }
        // A new customization is compared with those served: the -f files'
        // and the cluster's as they are at the time of the request.
        let files = served_files;
        let followed = cluster.clone();
        let handler =
            ConfigurationAdmission::composing(crate::composition::on())?.knowing(move || {
                let mut known = files.clone();
                if let Some(cluster) = &followed {
                    known.extend(cluster.customizations().iter().cloned());
                }
                known
            });
        server = server.admission(
            &admission_path,
            metrics::Counted {
                handler,
                metrics: observed.clone(),
            },
        );
    }
    let server = server
        .route(&path, {
            // Script failures in the log at their place in the -f files.
            let locator = crate::locate::locator(&args.files.customizations, args.files.recursive);
            // Why an unhealthy verdict of our health layers is so: in the
            // log line and, as the layer's status word, a metrics label.
            let reasons = args.health.reasons()?;
            InterpreterHandler::new(chain)
                .with_profile(crate::profile::current())
                .with_describer(move |e| locator.describe(e))
                .with_health_reasons(move |source, object| reasons.unhealthy(source, object))
        })
        .observer(observed)
        .page(
            &clean_path(&args.metrics_path),
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
            move || page.render(),
        );
    // The shadow comparisons' counts and last differences, as JSON.
    let server = match &cluster {
        Some(followed) => {
            let followed = followed.clone();
            server.page("/debug/shadow", "application/json", move || {
                crate::cluster::shadow_json(&followed.shadow_report())
            })
        }
        None => server,
    };
    eprintln!("serving the interpreter chain on https://{local}{path}");
    if args.admission {
        eprintln!("serving the admission webhook on https://{local}{admission_path}");
    }
    metrics::flush_every(logs.clone());
    let address = args.listen;
    let served = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(std_listener)
            .map_err(|source| Error::Listen { address, source })?;
        server
            .run(listener, shutdown_signal())
            .await
            .map_err(Error::Serve)
    });
    logs.flush();
    served?;
    drop(cluster);
    eprintln!("stopped");
    Ok(ExitCode::SUCCESS)
}

/// Completes on SIGINT or SIGTERM.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
