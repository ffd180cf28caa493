//! Building and shipping: `cargo xtask dist`, `install-plugin` and `release`, and the Python
//! environment they share with `cargo xtask test` and `bench`. One module per seam:
//!
//! - [`venv`]: the shared virtualenv and fresh throwaway ones;
//! - [`wheel`]: maturin (development install, release wheel, sdist) and the install check;
//! - [`mod@bundle`]: the Agent Zero plugin as it ships: the bundle (wheels and their lock), the
//!   root-level plugin tree and the Plugin Hub entry;
//! - [`install`]: `install-plugin` into an Agent Zero checkout;
//! - [`mod@release`]: one version everywhere, bumping it, the release dry run.

mod bundle;
mod install;
mod release;
mod venv;
mod wheel;

use std::fs;
use std::path::PathBuf;

use crate::util::root;
pub(crate) use bundle::bundle;
pub(crate) use install::install_plugin;
pub(crate) use release::{check_versions, release};
pub(crate) use venv::{
    base_python, ensure_venv, read_requirements, script_in, target_dir, venv_dir,
};
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

/// Builds `dist/`: the release wheel, the sdist (each checked in a fresh virtualenv),
/// `claude_tool_bridge-plugin-<version>.zip` (the plugin folder with the wheel in `wheels/`
/// and its sha256 in `wheels.lock`), and the root-level plugin tree and Plugin Hub entry in
/// `dist/hub/` (see [`mod@bundle`]). Returns the wheel.
pub(crate) fn build_dist() -> Result<PathBuf, String> {
    let version = release::workspace_version()?;
    let python = ensure_venv(&wheel::BUILD_REQUIREMENTS.map(str::to_owned))?;
    let out = root().join("dist");
    fs::create_dir_all(&out).map_err(|e| format!("cannot create dist/: {e}"))?;
    let wheel = wheel::build_wheel(&python, &out)?;
    let sdist = wheel::build_sdist(&python, &out)?;
    wheel::check_install(&wheel, &version, "wheel")?;
    wheel::check_install(&sdist, &version, "sdist")?;
    let made = bundle::write_bundle(std::slice::from_ref(&wheel), &out)?;
    for built in [&wheel, &sdist, &made.zip, &made.hub, &made.hub_zip] {
        eprintln!("built {}", built.display());
    }
    Ok(wheel)
}
