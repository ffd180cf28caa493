//! The Agent Zero plugin bundle: the plugin folder with the release wheel in `wheels/`.

use std::fs;
use std::path::{Path, PathBuf};

use crate::util::root;

/// The plugin's folder name (Agent Zero requires it to equal the `name:` in plugin.yaml).
pub(crate) const PLUGIN_NAME: &str = "claude_tool_bridge";

/// `plugin/claude_tool_bridge` in the workspace.
pub(crate) fn plugin_dir() -> PathBuf {
    root().join("plugin").join(PLUGIN_NAME)
}

/// Copies a directory tree, leaving out caches and an old `wheels/` folder.
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
            || (depth == 0 && name_str == "wheels")
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

/// The plugin folder with `wheel` in `wheels/`, at `dest` (replacing what is there).
pub(crate) fn stage_plugin(wheel: &Path, dest: &Path) -> Result<(), String> {
    if dest.exists() {
        fs::remove_dir_all(dest).map_err(|e| format!("cannot remove {}: {e}", dest.display()))?;
    }
    copy_tree(&plugin_dir(), dest, 0)?;
    let wheels = dest.join("wheels");
    fs::create_dir_all(&wheels).map_err(|e| e.to_string())?;
    let name = wheel.file_name().unwrap_or_default();
    fs::copy(wheel, wheels.join(name)).map_err(|e| format!("cannot copy the wheel: {e}"))?;
    Ok(())
}
