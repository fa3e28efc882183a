//! The container image and install path as the README documents them.
//!
//! No container builder can run in CI here, so this checks what can drift
//! without one: the Dockerfile's build-stage command is the one the README
//! names, the image tag the README builds is the one `deploy/` runs, and the
//! runtime stage runs as a non-root user.

use std::path::PathBuf;

fn read(rel: &str) -> String {
    let path = PathBuf::from(crate::support::ROOT).join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The argument of the Dockerfile's `RUN cargo build ...` instruction.
fn dockerfile_build_command(dockerfile: &str) -> String {
    let runs: Vec<&str> = dockerfile
        .lines()
        .filter_map(|l| l.trim().strip_prefix("RUN "))
        .filter(|cmd| cmd.starts_with("cargo build"))
        .collect();
    assert_eq!(
        runs.len(),
        1,
        "exactly one `RUN cargo build` in Dockerfile: {runs:?}"
    );
    runs[0].trim().to_string()
}

/// The tag given by `docker build -t TAG .` in a text.
fn docker_build_tags(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim().trim_start_matches('#').trim();
            let rest = l.strip_prefix("docker build -t ")?;
            Some(rest.split_whitespace().next()?.to_string())
        })
        .collect()
}

#[test]
fn dockerfile_build_stage_matches_readme() {
    let dockerfile = read("Dockerfile");
    let readme = read("README.md");
    let build = dockerfile_build_command(&dockerfile);
    assert!(
        build.contains("--locked"),
        "the image builds with Cargo.lock: {build}"
    );
    assert!(
        build.contains("--release"),
        "the image builds a release binary: {build}"
    );
    assert!(
        readme.contains(&format!("`{build}`")),
        "README names the image's build command `{build}`"
    );
    assert!(readme.contains("cargo install --path cli --locked"));
}

#[test]
fn deploy_manifests_run_the_image_the_readme_builds() {
    let readme_tags = docker_build_tags(&read("README.md"));
    let dockerfile_tags = docker_build_tags(&read("Dockerfile"));
    assert_eq!(
        readme_tags.len(),
        1,
        "README builds one image: {readme_tags:?}"
    );
    assert_eq!(
        readme_tags, dockerfile_tags,
        "Dockerfile header and README agree"
    );
    let deployment = read("deploy/deployment.yaml");
    let images: Vec<&str> = deployment
        .lines()
        .filter_map(|l| l.trim().strip_prefix("image:"))
        .map(str::trim)
        .collect();
    assert!(!images.is_empty(), "deploy/deployment.yaml runs an image");
    for image in images {
        assert_eq!(
            image, readme_tags[0],
            "deploy/ runs the image the README builds"
        );
    }
}

#[test]
fn runtime_stage_is_non_root_and_runs_the_binary() {
    let dockerfile = read("Dockerfile");
    let stages: Vec<&str> = dockerfile
        .split("\nFROM ")
        .skip(1) // text before the first FROM at the start of a line
        .collect();
    let runtime = stages.last().expect("a runtime stage");
    let user = runtime
        .lines()
        .find_map(|l| l.trim().strip_prefix("USER "))
        .expect("the runtime stage sets USER");
    let uid = user.split(':').next().unwrap_or_default();
    assert!(
        uid != "0" && uid != "root",
        "runtime user is not root: {user}"
    );
    assert!(
        runtime.contains("COPY --from=build"),
        "the runtime copies the built binary"
    );
    assert!(runtime.contains("ENTRYPOINT [\"/usr/local/bin/karmada-interpreter\"]"));
}
