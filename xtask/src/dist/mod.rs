//! Building and shipping: `cargo xtask dist`, `install-plugin` and `release`, and the Python
//! environment they share with `cargo xtask test` and `bench`. One module per seam:
//!
//! - [`venv`]: the shared virtualenv and fresh throwaway ones;
//! - [`wheel`]: maturin (development install, release wheel, sdist) and the install check;
//! - [`bundle`]: the Agent Zero plugin folder with the wheel inside;
//! - [`install`]: `install-plugin` into an Agent Zero checkout;
//! - [`mod@release`]: one version everywhere, bumping it, the release dry run.

mod bundle;
mod install;
mod release;
mod venv;
mod wheel;

use std::fs;
use std::path::PathBuf;
use std::process::Command;

use crate::util::{self, root};
pub(crate) use bundle::PLUGIN_NAME;
pub(crate) use install::install_plugin;
pub(crate) use release::{check_versions, release};
pub(crate) use venv::{ensure_venv, read_requirements, script_in, target_dir, venv_dir};
pub(crate) use wheel::develop;

/// The distribution name on PyPI.
pub(crate) const DISTRIBUTION: &str = "claude-tool-bridge";

/// `cargo xtask dist`: the wheel, the sdist and the plugin bundle in `dist/`, the wheel and
/// the sdist each installed into a fresh virtualenv and imported.
pub(crate) fn dist(args: &[String]) -> Result<(), String> {
    if let Some(extra) = args.first() {
        return Err(format!(
            "usage: cargo xtask dist (unexpected argument `{extra}`)"
        ));
    }
    build_dist().map(|_| ())
}

/// Builds `dist/`: the release wheel, the sdist (each checked in a fresh virtualenv) and
/// `claude_tool_bridge-plugin-<version>.zip` (the plugin folder with the wheel in
/// `wheels/`). Returns the wheel.
pub(crate) fn build_dist() -> Result<PathBuf, String> {
    let version = release::workspace_version()?;
    let python = ensure_venv(&wheel::BUILD_REQUIREMENTS.map(str::to_owned))?;
    let out = root().join("dist");
    fs::create_dir_all(&out).map_err(|e| format!("cannot create dist/: {e}"))?;
    let wheel = wheel::build_wheel(&python, &out)?;
    let sdist = wheel::build_sdist(&python, &out)?;
    wheel::check_install(&wheel, &version, "wheel")?;
    wheel::check_install(&sdist, &version, "sdist")?;
    let stage = venv::target_dir().join("plugin-stage");
    let _ = fs::remove_dir_all(&stage);
    bundle::stage_plugin(&wheel, &stage.join(PLUGIN_NAME))?;
    let zip = out.join(format!("{PLUGIN_NAME}-plugin-{version}.zip"));
    let _ = fs::remove_file(&zip);
    util::run(
        Command::new(&python)
            .args(["-m", "zipfile", "-c"])
            .arg(&zip)
            .arg(PLUGIN_NAME)
            .current_dir(&stage),
    )?;
    for built in [&wheel, &sdist, &zip] {
        eprintln!("built {}", built.display());
    }
    Ok(wheel)
}
