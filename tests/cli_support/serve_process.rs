//! `karmada-interpreter serve` as a child process on a free loopback port,
//! for tests and benches (included with `#[path]`). Killed (by its own id)
//! when dropped.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// A running `serve`: its address and the CA its configuration names.
pub struct ServeProcess {
    child: Child,
    pub addr: SocketAddr,
    pub ca: String,
    dir: PathBuf,
    log: Option<PathBuf>,
}

impl Drop for ServeProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl ServeProcess {
    /// How the process ended, or `None` while it runs.
    #[allow(dead_code)]
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// The process id.
    #[allow(dead_code)]
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// What the process wrote to standard error so far ([`start_logged`]).
    #[allow(dead_code)]
    pub fn log(&self) -> String {
        self.log
            .as_ref()
            .and_then(|l| std::fs::read_to_string(l).ok())
            .unwrap_or_default()
    }

    /// The directory the process's files are in (removed on drop).
    #[allow(dead_code)]
    pub fn dir(&self) -> &std::path::Path {
        &self.dir
    }
}

/// [`start`], with standard error kept for [`ServeProcess::log`].
#[allow(dead_code)]
pub fn start_logged(bin: &str, tag: &str, args: &[&str]) -> ServeProcess {
    spawn(bin, tag, args, true)
}

/// Starts `bin serve` with `args` and waits (at most 30 s) for the
/// configuration it writes once listening.
pub fn start(bin: &str, tag: &str, args: &[&str]) -> ServeProcess {
    spawn(bin, tag, args, false)
}

fn spawn(bin: &str, tag: &str, args: &[&str], logged: bool) -> ServeProcess {
    let dir = std::env::temp_dir().join(format!("ki-serve-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("webhook.json");
    let log = logged.then(|| dir.join("serve.log"));
    let stderr = match &log {
        Some(l) => Stdio::from(std::fs::File::create(l).expect("log file")),
        None => Stdio::null(),
    };
    let mut child = Command::new(bin)
        .args(["serve", "--listen", "127.0.0.1:0", "--write-config"])
        .arg(&file)
        .args(args)
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .expect("start serve");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !file.exists() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("serve exited early: {status}");
        }
        assert!(Instant::now() < deadline, "serve did not start in 30 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    let config: Value =
        serde_json::from_slice(&std::fs::read(&file).expect("config")).expect("config JSON");
    let cc = &config["webhooks"][0]["clientConfig"];
    let port: u16 = cc["url"]
        .as_str()
        .expect("url")
        .trim_start_matches("https://127.0.0.1:")
        .split('/')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("port");
    use base64::Engine as _;
    let ca = base64::engine::general_purpose::STANDARD
        .decode(cc["caBundle"].as_str().expect("caBundle"))
        .expect("base64");
    ServeProcess {
        child,
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
        ca: String::from_utf8(ca).expect("PEM"),
        dir,
        log,
    }
}
