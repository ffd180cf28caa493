//! `cargo xtask dist`, `install-plugin`, `release`, and the Python environment they share
//! with `cargo xtask test` (a virtualenv in `target/py-venv`, made with `python3 -m venv`).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{self, cargo, root};

/// The crates published to crates.io, in dependency order.
const PUBLISHED: [&str; 7] = [
    "ctb-json",
    "ctb-invoke",
    "ctb-schema",
    "ctb-guard",
    "ctb-prose",
    "claude-tool-bridge",
    "ctb-cli",
];
const PLUGIN_NAME: &str = "claude_tool_bridge";
const WHEEL_PREFIX: &str = "claude_tool_bridge-";
const DISTRIBUTION: &str = "claude-tool-bridge";
/// What building the wheel needs in the virtualenv.
const BUILD_REQUIREMENTS: [&str; 1] = ["maturin>=1.9,<2"];

// ---------------------------------------------------------------- the Python environment

fn base_python() -> String {
    std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

/// The cargo target directory (`CARGO_TARGET_DIR` when set).
pub(crate) fn target_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    if target.is_absolute() {
        target
    } else {
        root().join(target)
    }
}

/// `py-venv` in the cargo target directory.
pub(crate) fn venv_dir() -> PathBuf {
    target_dir().join("py-venv")
}

/// The virtualenv's interpreter.
pub(crate) fn venv_python() -> PathBuf {
    let venv = venv_dir();
    if cfg!(windows) {
        venv.join("Scripts").join("python.exe")
    } else {
        venv.join("bin").join("python")
    }
}

/// Makes the virtualenv (once) and installs `requirements` into it (only those not
/// installed by an earlier run, as recorded in a stamp file).
pub(crate) fn ensure_venv(requirements: &[String]) -> Result<PathBuf, String> {
    let python = venv_python();
    if !python.exists() {
        let venv = venv_dir();
        util::run(
            Command::new(base_python())
                .args(["-m", "venv"])
                .arg(&venv)
                .current_dir(root()),
        )
        .map_err(|e| format!("{e} (is python3 with the venv module installed?)"))?;
    }
    let stamp = venv_dir().join(".ctb-installed");
    let done = fs::read_to_string(&stamp).unwrap_or_default();
    let missing: Vec<&String> = requirements
        .iter()
        .filter(|r| !done.lines().any(|line| line == r.as_str()))
        .collect();
    if !missing.is_empty() {
        let mut cmd = Command::new(&python);
        cmd.args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .args(missing.iter().map(|s| s.as_str()))
        .current_dir(root());
        util::run(&mut cmd)?;
        let mut all: Vec<&str> = done.lines().collect();
        all.extend(missing.iter().map(|s| s.as_str()));
        fs::write(&stamp, all.join("\n") + "\n")
            .map_err(|e| format!("cannot write {}: {e}", stamp.display()))?;
    }
    Ok(python)
}

/// Requirement lines of a pip requirements file (comments and blanks dropped).
pub(crate) fn read_requirements(path: &Path) -> Result<Vec<String>, String> {
    let text =
        fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(text
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim().to_owned())
        .filter(|l| !l.is_empty())
        .collect())
}

fn maturin(python: &Path) -> Command {
    let mut cmd = Command::new(python);
    cmd.args(["-m", "maturin"]).current_dir(root());
    cmd
}

fn binding_manifest() -> PathBuf {
    root().join("crates").join("ctb-python").join("Cargo.toml")
}

/// Builds the binding (release) and installs it into the virtualenv.
pub(crate) fn develop(python: &Path) -> Result<(), String> {
    let mut cmd = maturin(python);
    cmd.args(["develop", "--release", "--quiet", "--manifest-path"])
        .arg(binding_manifest())
        .env("VIRTUAL_ENV", venv_dir());
    util::run(&mut cmd)
}

/// Builds the release wheel into `out`; returns its path.
fn build_wheel(python: &Path, out: &Path) -> Result<PathBuf, String> {
    let version = workspace_version()?;
    let wheels = out.join("wheels-tmp");
    let _ = fs::remove_dir_all(&wheels);
    let mut cmd = maturin(python);
    cmd.args(["build", "--release", "--quiet", "--manifest-path"])
        .arg(binding_manifest())
        .arg("--out")
        .arg(&wheels);
    util::run(&mut cmd)?;
    let built = fs::read_dir(&wheels)
        .map_err(|e| format!("cannot read {}: {e}", wheels.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&format!("{WHEEL_PREFIX}{version}-")))
        })
        .ok_or_else(|| format!("maturin built no wheel for version {version}"))?;
    let name = built.file_name().unwrap_or_default().to_owned();
    let dest = out.join(&name);
    fs::rename(&built, &dest).map_err(|e| format!("cannot move the wheel: {e}"))?;
    let _ = fs::remove_dir_all(&wheels);
    Ok(dest)
}

// ---------------------------------------------------------------- versions

/// The `[workspace.package] version` of the root Cargo.toml.
fn workspace_version() -> Result<String, String> {
    let text = read(&root().join("Cargo.toml"))?;
    let mut in_package = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_package = t == "[workspace.package]";
        } else if in_package && let Some(v) = quoted_value(t, "version") {
            return Ok(v);
        }
    }
    Err("no [workspace.package] version in Cargo.toml".to_owned())
}

/// `value` of a line `key = "value"`.
fn quoted_value(line: &str, key: &str) -> Option<String> {
    let rest = line
        .strip_prefix(key)?
        .trim_start()
        .strip_prefix('=')?
        .trim();
    let inner = rest.strip_prefix('"')?;
    Some(inner[..inner.find('"')?].to_owned())
}

/// `X.Y.Z` with an optional `-pre` part of letters, digits and dots.
fn is_version(v: &str) -> bool {
    let (core, pre) = match v.split_once('-') {
        Some((c, p)) => (c, Some(p)),
        None => (v, None),
    };
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        && pre.is_none_or(|p| {
            !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.')
        })
}

/// The root Cargo.toml with `old` replaced by `new` in `[workspace.package]` and in the
/// path dependencies of `[workspace.dependencies]`.
fn bump_cargo_toml(text: &str, old: &str, new: &str) -> String {
    let mut section = String::new();
    let mut out = String::with_capacity(text.len() + 64);
    let from = format!("version = \"{old}\"");
    let to = format!("version = \"{new}\"");
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if t.starts_with('[') {
            section = t.to_owned();
        }
        let ours = (section == "[workspace.package]" && t.starts_with("version"))
            || (section == "[workspace.dependencies]" && t.contains("path = \"crates/"));
        if ours {
            out.push_str(&line.replacen(&from, &to, 1));
        } else {
            out.push_str(line);
        }
    }
    out
}

/// plugin.yaml with its `version:` line set to `new`.
fn bump_plugin_yaml(text: &str, new: &str) -> String {
    text.split_inclusive('\n')
        .map(|line| {
            if line.starts_with("version:") {
                let end = if line.ends_with('\n') { "\n" } else { "" };
                format!("version: {new}{end}")
            } else {
                line.to_owned()
            }
        })
        .collect()
}

/// Whether CHANGELOG.md has a heading for `version` (`## [1.2.3]` or `## 1.2.3`).
fn changelog_has(text: &str, version: &str) -> bool {
    text.lines().any(|l| {
        let Some(rest) = l.trim().strip_prefix("## ") else {
            return false;
        };
        let rest = rest.trim_start_matches('[');
        rest.strip_prefix(version)
            .is_some_and(|after| after.is_empty() || after.starts_with([']', ' ']))
    })
}

fn read(path: &Path) -> Result<String, String> {
    fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

// ---------------------------------------------------------------- the plugin bundle

fn plugin_dir() -> PathBuf {
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

/// The plugin folder with the wheel in `wheels/`, at `dest`.
fn stage_plugin(wheel: &Path, dest: &Path) -> Result<(), String> {
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

/// `cargo xtask dist`: the wheel and `claude_tool_bridge-plugin-<version>.zip` in `dist/`.
pub(crate) fn dist(args: &[String]) -> Result<(), String> {
    if let Some(extra) = args.first() {
        return Err(format!(
            "usage: cargo xtask dist (unexpected argument `{extra}`)"
        ));
    }
    build_dist().map(|_| ())
}

fn build_dist() -> Result<PathBuf, String> {
    let version = workspace_version()?;
    let python = ensure_venv(&BUILD_REQUIREMENTS.map(str::to_owned))?;
    let out = root().join("dist");
    fs::create_dir_all(&out).map_err(|e| format!("cannot create dist/: {e}"))?;
    let wheel = build_wheel(&python, &out)?;
    let stage = target_dir().join("plugin-stage");
    let _ = fs::remove_dir_all(&stage);
    stage_plugin(&wheel, &stage.join(PLUGIN_NAME))?;
    let zip = out.join(format!("{PLUGIN_NAME}-plugin-{version}.zip"));
    let _ = fs::remove_file(&zip);
    util::run(
        Command::new(&python)
            .args(["-m", "zipfile", "-c"])
            .arg(&zip)
            .arg(PLUGIN_NAME)
            .current_dir(&stage),
    )?;
    eprintln!("built {}\nbuilt {}", wheel.display(), zip.display());
    Ok(wheel)
}

// ---------------------------------------------------------------- install-plugin

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

/// `cargo xtask install-plugin <agent-zero-dir> [--python PATH]`.
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
    stage_plugin(&wheel, &dest)?;
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
        "installed the plugin into {} and the wheel into {}; enable it in Agent Zero's plugin list",
        dest.display(),
        target_python.display()
    );
    Ok(())
}

// ---------------------------------------------------------------- release

/// `cargo xtask release <version>`.
pub(crate) fn release(args: &[String]) -> Result<(), String> {
    const USAGE: &str = "usage: cargo xtask release <X.Y.Z>";
    let [version] = args else {
        return Err(USAGE.to_owned());
    };
    if !is_version(version) {
        return Err(format!("{USAGE} (`{version}` is not a version)"));
    }
    let changelog = read(&root().join("CHANGELOG.md"))?;
    if !changelog_has(&changelog, version) {
        return Err(format!(
            "{USAGE} (CHANGELOG.md has no `## [{version}]` section: write it first)"
        ));
    }
    let old = workspace_version()?;
    let cargo_toml = root().join("Cargo.toml");
    let plugin_yaml = plugin_dir().join("plugin.yaml");
    let (cargo_before, yaml_before) = (read(&cargo_toml)?, read(&plugin_yaml)?);
    let restore = |why: String| -> String {
        let undone = write(&cargo_toml, &cargo_before).and(write(&plugin_yaml, &yaml_before));
        match undone {
            Ok(()) => format!("{why}; the version was set back to {old}"),
            Err(e) => format!("{why}; setting the version back failed too: {e}"),
        }
    };
    write(&cargo_toml, &bump_cargo_toml(&cargo_before, &old, version))?;
    write(&plugin_yaml, &bump_plugin_yaml(&yaml_before, version)).map_err(&restore)?;
    if workspace_version().map_err(&restore)? != *version {
        return Err(restore("the version bump did not take".to_owned()));
    }
    eprintln!("version {old} -> {version} (crates, wheel, plugin.yaml)");
    let mut publish = cargo();
    publish.args(["publish", "--dry-run", "--allow-dirty"]);
    for krate in PUBLISHED {
        publish.args(["-p", krate]);
    }
    util::run(&mut publish).map_err(&restore)?;
    build_dist()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert!(is_version("1.2.3"));
        assert!(is_version("0.1.0-rc.1"));
        for bad in [
            "1.2",
            "1.2.3.4",
            "v1.2.3",
            "1..3",
            "1.2.3-",
            "1.2.3-a b",
            "",
        ] {
            assert!(!is_version(bad), "{bad}");
        }
    }

    #[test]
    fn bumps_only_our_versions() {
        let text = "[workspace.package]\nversion = \"0.1.0\"\n\n[workspace.dependencies]\n\
                    ctb-json = { path = \"crates/ctb-json\", version = \"0.1.0\" }\n\
                    other = { version = \"0.1.0\" }\n";
        let out = bump_cargo_toml(text, "0.1.0", "0.2.0");
        assert_eq!(
            out,
            "[workspace.package]\nversion = \"0.2.0\"\n\n[workspace.dependencies]\n\
             ctb-json = { path = \"crates/ctb-json\", version = \"0.2.0\" }\n\
             other = { version = \"0.1.0\" }\n"
        );
        assert_eq!(
            bump_plugin_yaml("name: x\nversion: 0.1.0\ntitle: y\n", "0.2.0"),
            "name: x\nversion: 0.2.0\ntitle: y\n"
        );
    }

    #[test]
    fn changelog_headings() {
        let text = "# Changelog\n\n## [0.2.0] - 2026-12-01\n\n## 0.1.0\n";
        assert!(changelog_has(text, "0.2.0"));
        assert!(changelog_has(text, "0.1.0"));
        assert!(!changelog_has(text, "0.2"));
        assert!(!changelog_has(text, "0.3.0"));
    }
}
