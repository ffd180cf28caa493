//! The Agent Zero plugin as it ships, written by `cargo xtask dist` (with the wheel it built)
//! and by `cargo xtask bundle --wheels DIR` (the release workflow, with every platform's
//! wheel):
//!
//! - `claude_tool_bridge-plugin-<version>.zip`: the plugin folder with the wheels in `wheels/`
//!   and `wheels.lock`, the sha256 of every wheel built for the release; the plugin installs
//!   a wheel (bundled, or from the package index) only when its hash is there;
//! - `hub/claude_tool_bridge/`: the same plugin as the root of a repository, the shape Agent
//!   Zero's Plugin Hub installs from (`git clone`, `plugin.yaml` at the root, `thumbnail.png`
//!   at the root too, where the hub looks for one): the lock and no wheels, so it takes the
//!   locked wheel from the package index (publish the wheels there first);
//! - `hub/a0-plugins/plugins/claude_tool_bridge/`: the entry for the hub's index
//!   (`agent0ai/a0-plugins`): `index.yaml` (from `plugin/hub/index.yaml`) and the thumbnail;
//! - `claude_tool_bridge-hub-<version>.zip`: both `hub/` trees, for the GitHub release.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::release::workspace_version;
use super::venv::base_python;
use crate::util::{self, root};

/// The plugin's folder name (Agent Zero requires it to equal the `name:` in plugin.yaml).
pub(crate) const PLUGIN_NAME: &str = "claude_tool_bridge";

/// The lock's file name in the plugin folder (read by `helpers/install.py`).
pub(crate) const LOCK_NAME: &str = "wheels.lock";

/// `plugin/claude_tool_bridge` in the workspace.
pub(crate) fn plugin_dir() -> PathBuf {
    root().join("plugin").join(PLUGIN_NAME)
}

/// `plugin/hub`: the Plugin Hub entry's source (`index.yaml`).
fn hub_source() -> PathBuf {
    root().join("plugin").join("hub")
}

/// Copies a directory tree, leaving out caches, state files and an old `wheels/` folder or
/// lock.
fn copy_tree(from: &Path, to: &Path, depth: usize) -> Result<(), String> {
    if depth > 16 {
        return Err(format!("{} is nested too deeply", from.display()));
    }
    fs::create_dir_all(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    let entries = fs::read_dir(from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| e.to_string())?;
        let name = entry.file_name();
        let name_str = name.to_string_lossy();
        if name_str == "__pycache__"
            || name_str.ends_with(".pyc")
            || name_str == ".index-attempt.json"
            || (depth == 0 && (name_str == "wheels" || name_str == LOCK_NAME))
        {
            continue;
        }
        let src = entry.path();
        let dst = to.join(&name);
        if src.is_dir() {
            copy_tree(&src, &dst, depth + 1)?;
        } else {
            fs::copy(&src, &dst).map_err(|e| format!("cannot copy {}: {e}", src.display()))?;
        }
    }
    Ok(())
}

/// The sha256 (hex) of each file, computed by Python's hashlib (the standard library: no
/// hashing crate for the tool that builds the release).
fn sha256_of(files: &[PathBuf]) -> Result<Vec<String>, String> {
    const SCRIPT: &str = "import hashlib, sys\n\
                          for path in sys.argv[1:]:\n    \
                          print(hashlib.sha256(open(path, 'rb').read()).hexdigest())\n";
    let out = Command::new(base_python())
        .arg("-c")
        .arg(SCRIPT)
        .args(files)
        .output()
        .map_err(|e| format!("cannot run {} for the sha256: {e}", base_python()))?;
    if !out.status.success() {
        return Err(format!(
            "hashing the wheels failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let digests: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    let well_formed = |d: &String| d.len() == 64 && d.bytes().all(|b| b.is_ascii_hexdigit());
    if digests.len() != files.len() || !digests.iter().all(well_formed) {
        return Err("hashing the wheels gave no digest per wheel".to_owned());
    }
    Ok(digests)
}

/// `wheels.lock`: the version and each wheel's sha256, by file name (sorted).
fn lock_text(version: &str, wheels: &[PathBuf]) -> Result<String, String> {
    let digests = sha256_of(wheels)?;
    let mut entries: Vec<(String, String)> = wheels
        .iter()
        .map(|w| {
            w.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        })
        .zip(digests)
        .collect();
    entries.sort();
    let mut map = serde_json::Map::new();
    for (name, digest) in entries {
        map.insert(name, serde_json::Value::String(digest));
    }
    let lock = serde_json::json!({
        "distribution": super::DISTRIBUTION,
        "version": version,
        "about": "The sha256 of every claude-tool-bridge wheel built for this release. The \
                  plugin installs a wheel, bundled or from the package index, only when its \
                  hash is listed here.",
        "wheels": map,
    });
    serde_json::to_string_pretty(&lock)
        .map(|text| text + "\n")
        .map_err(|e| e.to_string())
}

/// The plugin folder at `dest` (replacing what is there) with `lock` and, when `wheels` is
/// not empty, the wheels in `wheels/`.
fn stage_plugin(dest: &Path, lock: &str, wheels: &[PathBuf]) -> Result<(), String> {
    if dest.exists() {
        fs::remove_dir_all(dest).map_err(|e| format!("cannot remove {}: {e}", dest.display()))?;
    }
    copy_tree(&plugin_dir(), dest, 0)?;
    fs::write(dest.join(LOCK_NAME), lock).map_err(|e| format!("cannot write the lock: {e}"))?;
    if !wheels.is_empty() {
        let folder = dest.join("wheels");
        fs::create_dir_all(&folder).map_err(|e| e.to_string())?;
        for wheel in wheels {
            let name = wheel.file_name().unwrap_or_default();
            fs::copy(wheel, folder.join(name))
                .map_err(|e| format!("cannot copy {}: {e}", wheel.display()))?;
        }
    }
    Ok(())
}

/// The plugin folder with `wheels` in `wheels/` and their lock, at `dest` (what
/// `install-plugin` copies into an Agent Zero checkout).
pub(crate) fn stage_with_wheels(wheels: &[PathBuf], dest: &Path) -> Result<(), String> {
    let version = workspace_version()?;
    stage_plugin(dest, &lock_text(&version, wheels)?, wheels)
}

/// `python -m zipfile -c <zip> <entries...>` run in `dir`.
fn zip(zip: &Path, dir: &Path, entries: &[&str]) -> Result<(), String> {
    let _ = fs::remove_file(zip);
    util::run(
        Command::new(base_python())
            .args(["-m", "zipfile", "-c"])
            .arg(zip)
            .args(entries)
            .current_dir(dir),
    )
}

/// What [`write_bundle`] made.
pub(crate) struct Bundle {
    /// `claude_tool_bridge-plugin-<version>.zip`.
    pub(crate) zip: PathBuf,
    /// `hub/`: the root-level plugin tree and the hub entry.
    pub(crate) hub: PathBuf,
    /// `claude_tool_bridge-hub-<version>.zip`.
    pub(crate) hub_zip: PathBuf,
}

/// Writes the plugin bundle, the root-level plugin tree and the hub entry for `wheels` (every
/// wheel of this version: their hashes are the lock) into `out`.
pub(crate) fn write_bundle(wheels: &[PathBuf], out: &Path) -> Result<Bundle, String> {
    let version = workspace_version()?;
    if wheels.is_empty() {
        return Err("no wheel to bundle: the lock needs the hash of every wheel built".to_owned());
    }
    let prefix = format!("{}-{version}-", PLUGIN_NAME);
    for wheel in wheels {
        let name = wheel.file_name().unwrap_or_default().to_string_lossy();
        if !name.starts_with(&prefix) || !name.ends_with(".whl") {
            return Err(format!(
                "{name} is not a wheel of claude-tool-bridge {version}"
            ));
        }
    }
    let lock = lock_text(&version, wheels)?;
    fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;

    // The bundle: the plugin folder with every wheel and the lock.
    let stage = super::venv::target_dir().join("plugin-stage");
    let _ = fs::remove_dir_all(&stage);
    stage_plugin(&stage.join(PLUGIN_NAME), &lock, wheels)?;
    let bundle = out.join(format!("{PLUGIN_NAME}-plugin-{version}.zip"));
    zip(&bundle, &stage, &[PLUGIN_NAME])?;

    // The hub: the plugin as a repository's root (the lock, no wheels), and the index entry.
    let hub = out.join("hub");
    let _ = fs::remove_dir_all(&hub);
    let tree = hub.join(PLUGIN_NAME);
    stage_plugin(&tree, &lock, &[])?;
    let thumbnail = plugin_dir().join("webui").join("thumbnail.png");
    copy(&thumbnail, &tree.join("thumbnail.png"))?;
    let entry = hub.join("a0-plugins").join("plugins").join(PLUGIN_NAME);
    fs::create_dir_all(&entry).map_err(|e| format!("cannot create {}: {e}", entry.display()))?;
    copy(&hub_source().join("index.yaml"), &entry.join("index.yaml"))?;
    copy(&thumbnail, &entry.join("thumbnail.png"))?;
    let hub_zip = out.join(format!("{PLUGIN_NAME}-hub-{version}.zip"));
    zip(&hub_zip, &hub, &[PLUGIN_NAME, "a0-plugins"])?;
    Ok(Bundle {
        zip: bundle,
        hub,
        hub_zip,
    })
}

fn copy(from: &Path, to: &Path) -> Result<(), String> {
    fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("cannot copy {}: {e}", from.display()))
}

/// `cargo xtask bundle --wheels DIR [--out DIR]`: the bundle, the root-level plugin tree and
/// the hub entry for the wheels in `DIR` (every `claude_tool_bridge-<version>-*.whl` there).
pub(crate) fn bundle(args: &[String]) -> Result<(), String> {
    const USAGE: &str = "usage: cargo xtask bundle --wheels DIR [--out DIR]";
    let mut wheels_dir = None;
    let mut out = root().join("dist");
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let value = || format!("{USAGE} (`{arg}` needs a folder)");
        match arg.as_str() {
            "--wheels" => wheels_dir = Some(PathBuf::from(it.next().ok_or_else(value)?)),
            "--out" => out = PathBuf::from(it.next().ok_or_else(value)?),
            other => return Err(format!("{USAGE} (unexpected `{other}`)")),
        }
    }
    let dir = wheels_dir.ok_or_else(|| USAGE.to_owned())?;
    let mut wheels: Vec<PathBuf> = fs::read_dir(&dir)
        .map_err(|e| format!("{USAGE} (cannot read {}: {e})", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "whl"))
        .collect();
    wheels.sort();
    let made = write_bundle(&wheels, &out)?;
    for built in [&made.zip, &made.hub, &made.hub_zip] {
        eprintln!("built {}", built.display());
    }
    Ok(())
}
