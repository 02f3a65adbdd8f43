//! Compiling released versions for a server ([`ProgramBuilder`]): `canvasc build` of the one
//! canvas, run as a child process at a lower CPU priority, into a crate of its own under
//! `<data dir>/builds/crates/`, all crates sharing one target directory
//! (`<data dir>/builds/target`): the runtime and its dependencies compile once, then a new
//! canvas compiles and links alone, and never recompiles another. The binary is installed as
//! a program bundle (`<data dir>/programs/<name>`, written beside and renamed into place, so
//! a server never starts a half-written one), which the server's [`Bundles`] then run.

use crate::worker::bundles::Bundles;
use canvasc_engine::checkpoint::ENGINE_VERSION;
use canvasc_server::store::BuildJob;
use canvasc_server::{BuildOutcome, ProgramBuilder};
use futures::future::BoxFuture;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

/// The longest a build may take before it is stopped and failed.
const BUILD_TIMEOUT: Duration = Duration::from_secs(45 * 60);

/// What builds programs, as `canvasc serve` starts a server with it.
#[derive(Clone, Debug)]
pub struct BuildTool {
    /// An executable with the `build` command (`canvasc` itself).
    pub canvasc: PathBuf,
    /// The canvasc source tree generated crates depend on, or why there is none.
    pub source: Result<PathBuf, String>,
}

/// How programs are built (`serve --build-profile`, `--build-target-dir`).
#[derive(Clone, Debug)]
pub struct BuildSettings {
    /// Cargo's release profile (optimised, slower to build), else the dev profile.
    pub release: bool,
    /// The cargo target directory builds share (default `<data dir>/builds/target`): keep it
    /// where it survives, and a new canvas compiles in seconds instead of minutes.
    pub target_dir: Option<PathBuf>,
}

/// Builds programs with `canvasc build` and cargo.
pub struct CargoBuilder {
    tool: BuildTool,
    settings: BuildSettings,
    /// `<data dir>/builds`.
    root: PathBuf,
    bundles_dir: PathBuf,
    bundles: Arc<Bundles>,
    /// Why nothing can be built here, found once at start.
    unavailable: Option<String>,
}

impl CargoBuilder {
    pub fn new(
        tool: BuildTool,
        settings: BuildSettings,
        data_dir: &Path,
        bundles_dir: PathBuf,
        bundles: Arc<Bundles>,
    ) -> CargoBuilder {
        let unavailable = match (&tool.source, cargo_version()) {
            (Err(why), _) => Some(format!("no canvasc source tree to build against: {why}")),
            (_, Err(why)) => Some(why),
            (Ok(_), Ok(_)) => None,
        };
        CargoBuilder {
            tool,
            settings,
            root: data_dir.join("builds"),
            bundles_dir,
            bundles,
            unavailable,
        }
    }
}

/// `cargo --version`, or why there is no usable Rust toolchain.
fn cargo_version() -> Result<String, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    match std::process::Command::new(&cargo)
        .arg("--version")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
    {
        Ok(out) if out.status.success() => Ok(String::from_utf8_lossy(&out.stdout).trim().into()),
        Ok(out) => Err(format!(
            "no usable Rust toolchain: `cargo --version` failed ({})",
            out.status
        )),
        Err(e) => Err(format!("no Rust toolchain: cargo cannot be run ({e})")),
    }
}

/// The package (and bundle) name of a program: short, stable, and a valid crate name.
pub fn package_name(program_key: &str) -> String {
    let digest = Sha256::digest(program_key.as_bytes());
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("canvas-{hex}")
}

impl ProgramBuilder for CargoBuilder {
    fn engine_version(&self) -> &str {
        ENGINE_VERSION
    }

    fn unavailable(&self) -> Option<String> {
        self.unavailable.clone()
    }

    fn build(&self, job: BuildJob) -> BoxFuture<'static, BuildOutcome> {
        let name = package_name(&job.program_key);
        let root = self.root.clone();
        let tool = self.tool.clone();
        let settings = self.settings.clone();
        let bundles_dir = self.bundles_dir.clone();
        let bundles = Arc::clone(&self.bundles);
        Box::pin(async move {
            let mut log = String::new();
            let result = build(&tool, &settings, &root, &name, &job, &bundles_dir, &mut log).await;
            if result.is_ok() {
                // The server runs the program from its next turn on.
                let _ = tokio::task::spawn_blocking(move || bundles.rescan()).await;
            }
            BuildOutcome { result, log }
        })
    }
}

async fn build(
    tool: &BuildTool,
    settings: &BuildSettings,
    root: &Path,
    name: &str,
    job: &BuildJob,
    bundles_dir: &Path,
    log: &mut String,
) -> Result<(), String> {
    let source = tool.source.as_ref().map_err(Clone::clone)?;
    let canvases = root.join("canvases");
    let crate_dir = root.join("crates").join(name);
    let target = match &settings.target_dir {
        Some(dir) => dir.clone(),
        None => root.join("target"),
    };
    for dir in [&canvases, &crate_dir, &target, &bundles_dir.to_path_buf()] {
        tokio::fs::create_dir_all(dir)
            .await
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let canvas = canvases.join(format!("{name}.json"));
    tokio::fs::write(&canvas, &job.dsl)
        .await
        .map_err(|e| format!("cannot write {}: {e}", canvas.display()))?;
    // Released versions compile as RAGFlow runs them: a checker error fails its run where
    // RAGFlow's engine would (`--draft`), rather than keeping the version interpreted.
    let mut command = lowered_priority(&tool.canvasc);
    command
        .arg("build")
        .arg(&canvas)
        .arg("--out")
        .arg(&crate_dir)
        .arg("--name")
        .arg(name)
        .arg("--draft")
        .args((!settings.release).then_some("--debug"))
        .arg("--canvasc-source")
        .arg(source)
        .env("CARGO_TARGET_DIR", &target)
        .env("CARGO_TERM_COLOR", "never")
        .env("CARGO_TERM_PROGRESS_WHEN", "never")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    log.push_str(&format!(
        "$ canvasc build {} --name {name} --draft\n",
        canvas.display()
    ));
    let child = command
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", tool.canvasc.display()))?;
    let output = match tokio::time::timeout(BUILD_TIMEOUT, child.wait_with_output()).await {
        Ok(Ok(output)) => output,
        Ok(Err(e)) => return Err(format!("the build could not be waited for: {e}")),
        Err(_) => {
            return Err(format!(
                "the build took longer than {} minutes and was stopped",
                BUILD_TIMEOUT.as_secs() / 60
            ))
        }
    };
    log.push_str(&String::from_utf8_lossy(&output.stdout));
    log.push_str(&String::from_utf8_lossy(&output.stderr));
    if !output.status.success() {
        return Err(
            first_error(log).unwrap_or_else(|| format!("canvasc build failed ({})", output.status))
        );
    }
    let binary = built_binary(&target, settings.release, name);
    let staged = bundles_dir.join(format!(".{name}.partial"));
    tokio::fs::copy(&binary, &staged)
        .await
        .map_err(|e| format!("cannot copy the built program {}: {e}", binary.display()))?;
    tokio::fs::rename(&staged, bundles_dir.join(name))
        .await
        .map_err(|e| format!("cannot install the built program: {e}"))?;
    Ok(())
}

/// Where cargo puts the binary of package `name`.
fn built_binary(target: &Path, release: bool, name: &str) -> PathBuf {
    target
        .join(if release { "release" } else { "debug" })
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
}

/// `program` at a lower CPU priority (`nice -n 10` where there is `nice`), so that serving
/// keeps its latency while a build runs.
fn lowered_priority(program: &Path) -> tokio::process::Command {
    if Path::new("/usr/bin/nice").is_file() {
        let mut command = tokio::process::Command::new("/usr/bin/nice");
        command.args(["-n", "10"]).arg(program);
        command
    } else {
        tokio::process::Command::new(program)
    }
}

/// The first line of the log that reports an error (the compiler's, cargo's or canvasc's).
fn first_error(log: &str) -> Option<String> {
    log.lines()
        .map(str::trim)
        .find(|line| line.starts_with("error"))
        .map(String::from)
}

#[cfg(test)]
mod tests {
    use super::{first_error, package_name};

    #[test]
    fn a_program_key_names_a_valid_and_stable_crate() {
        let name = package_name("sha256:abc@engine-7");
        assert_eq!(name, package_name("sha256:abc@engine-7"));
        assert_ne!(name, package_name("sha256:abc@engine-8"));
        assert!(name.starts_with("canvas-") && name.len() == 23, "{name}");
        assert!(name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
    }

    #[test]
    fn a_failed_build_is_summed_up_by_its_first_error_line() {
        let log = "   Compiling x v0.1.0\nwarning: unused\nerror[E0308]: mismatched types\nerror: could not compile `x`\n";
        assert_eq!(
            first_error(log).as_deref(),
            Some("error[E0308]: mismatched types")
        );
        assert_eq!(first_error("all good\n"), None);
    }
}
