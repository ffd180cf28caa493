//! `cargo xtask install-plugin <agent-zero-dir> [--python PATH]`: the plugin folder (with the
//! wheel) into an Agent Zero checkout, and the wheel into the Python that runs it.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::bundle::{PLUGIN_NAME, stage_with_wheels};
use super::release::workspace_version;
use super::{DISTRIBUTION, build_dist};
use crate::util;

/// The Python running an Agent Zero checkout: its venv, or the Docker image's.
fn agent_zero_python(a0: &Path) -> Option<PathBuf> {
    [
        a0.join("venv").join("bin").join("python"),
        a0.join(".venv").join("bin").join("python"),
        PathBuf::from("/opt/venv-a0/bin/python"),
    ]
    .into_iter()
    .find(|p| p.exists())
}

pub(crate) fn install_plugin(args: &[String]) -> Result<(), String> {
    const USAGE: &str = "usage: cargo xtask install-plugin <agent-zero-dir> [--python PATH]";
    let mut dir: Option<&str> = None;
    let mut python: Option<&str> = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--python" => {
                python = Some(
                    it.next()
                        .ok_or_else(|| format!("{USAGE} (--python needs a path)"))?,
                )
            }
            flag if flag.starts_with('-') => return Err(format!("{USAGE} (unknown `{flag}`)")),
            path if dir.is_none() => dir = Some(path),
            extra => return Err(format!("{USAGE} (unexpected `{extra}`)")),
        }
    }
    let a0 = PathBuf::from(dir.ok_or_else(|| USAGE.to_owned())?);
    if !a0.join("agent.py").is_file() {
        return Err(format!(
            "{USAGE} ({} is not an Agent Zero checkout: no agent.py)",
            a0.display()
        ));
    }
    let target_python = match python {
        Some(p) if Path::new(p).exists() => PathBuf::from(p),
        Some(p) => return Err(format!("{USAGE} (no Python at {p})")),
        None => agent_zero_python(&a0)
            .ok_or_else(|| format!("{USAGE} (no venv found in {}; pass --python)", a0.display()))?,
    };
    let wheel = build_dist()?;
    let dest = a0.join("usr").join("plugins").join(PLUGIN_NAME);
    if let Some(parent) = dest.parent() {
        fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    stage_with_wheels(std::slice::from_ref(&wheel), &dest)?;
    let version = workspace_version()?;
    util::run(
        Command::new(&target_python)
            .args([
                "-m",
                "pip",
                "install",
                "--no-index",
                "--force-reinstall",
                "--no-deps",
                "--find-links",
            ])
            .arg(dest.join("wheels"))
            .arg(format!("{DISTRIBUTION}=={version}")),
    )?;
    eprintln!(
        "installed the plugin into {} and the wheel into {}; Agent Zero enables a new user \
         plugin by default (Settings -> Plugins shows its switch)",
        dest.display(),
        target_python.display()
    );
    Ok(())
}
