//! Versions: one number for the crates, the wheel, the plugin and the changelog.
//!
//! `cargo xtask release` checks that every place stating the version agrees (also run by
//! `cargo xtask test`); `cargo xtask release <X.Y.Z>` moves them all to a new version, checks
//! again, dry-runs `cargo publish` and builds `dist/`.

use std::fs;
use std::path::Path;

use super::build_dist;
use super::bundle::plugin_dir;
use crate::util::{self, cargo, root};

/// The crates published to crates.io, in dependency order.
pub(crate) const PUBLISHED: [&str; 8] = [
    "ctb-json",
    "ctb-invoke",
    "ctb-schema",
    "ctb-guard",
    "ctb-prose",
    "ctb-echo",
    "claude-tool-bridge",
    "ctb-cli",
];

/// `cargo xtask release [<X.Y.Z>]`.
pub(crate) fn release(args: &[String]) -> Result<(), String> {
    const USAGE: &str = "usage: cargo xtask release [<X.Y.Z>]";
    match args {
        [] => {
            let version = check_versions()?;
            println!("{version}");
            eprintln!(
                "version {version}: the crates, the wheel, plugin.yaml and CHANGELOG.md agree"
            );
            Ok(())
        }
        [version] if is_version(version) => bump_and_release(version),
        [version] => Err(format!("{USAGE} (`{version}` is not a version)")),
        _ => Err(USAGE.to_owned()),
    }
}

fn bump_and_release(version: &str) -> Result<(), String> {
    let changelog = read(&root().join("CHANGELOG.md"))?;
    if !changelog_has(&changelog, version) {
        return Err(format!(
            "CHANGELOG.md has no `## [{version}]` section: write it first"
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
    let agreed = check_versions().map_err(&restore)?;
    if agreed != version {
        return Err(restore(format!("the version bump gave {agreed}")));
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

/// Checks that every place stating the version says the same; returns it. Every
/// disagreement is listed, one per line.
pub(crate) fn check_versions() -> Result<String, String> {
    let version = workspace_version()?;
    let mut problems = Vec::new();
    let manifest = read(&root().join("Cargo.toml"))?;
    for (name, stated) in path_dependency_versions(&manifest) {
        if stated != version {
            problems.push(format!(
                "Cargo.toml: [workspace.dependencies] {name} says {stated}"
            ));
        }
    }
    let crates = fs::read_dir(root().join("crates")).map_err(|e| e.to_string())?;
    let mut manifests: Vec<_> = crates
        .filter_map(|e| e.ok().map(|e| e.path().join("Cargo.toml")))
        .filter(|p| p.is_file())
        .collect();
    manifests.sort();
    for path in manifests {
        let text = read(&path)?;
        let shown = path
            .strip_prefix(root())
            .unwrap_or(&path)
            .display()
            .to_string();
        match package_version(&text) {
            Some(PackageVersion::Workspace) => {}
            Some(PackageVersion::Own(v)) if v == version => {}
            Some(PackageVersion::Own(v)) => problems.push(format!("{shown}: version {v}")),
            None => problems.push(format!("{shown}: no version")),
        }
    }
    let pyproject = read(&root().join("crates/ctb-python/pyproject.toml"))?;
    if !pyproject_takes_cargo_version(&pyproject) {
        problems.push(
            "crates/ctb-python/pyproject.toml: the wheel's version must come from Cargo.toml \
             (dynamic = [\"version\"], no version = line)"
                .to_owned(),
        );
    }
    let plugin = read(&plugin_dir().join("plugin.yaml"))?;
    match yaml_version(&plugin) {
        Some(v) if v == version => {}
        other => problems.push(format!(
            "plugin/claude_tool_bridge/plugin.yaml: version {}",
            other.unwrap_or_else(|| "missing".to_owned())
        )),
    }
    if !changelog_has(&read(&root().join("CHANGELOG.md"))?, &version) {
        problems.push(format!("CHANGELOG.md: no `## [{version}]` section"));
    }
    if problems.is_empty() {
        Ok(version)
    } else {
        Err(format!(
            "the versions disagree with Cargo.toml's {version}:\n  {}",
            problems.join("\n  ")
        ))
    }
}

/// The `[workspace.package] version` of the root Cargo.toml.
pub(crate) fn workspace_version() -> Result<String, String> {
    let text = read(&root().join("Cargo.toml"))?;
    section_lines(&text, "[workspace.package]")
        .find_map(|line| quoted_value(line, "version"))
        .ok_or_else(|| "no [workspace.package] version in Cargo.toml".to_owned())
}

/// The lines of one `[section]` of a TOML file, trimmed.
fn section_lines<'a>(text: &'a str, section: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    let mut inside = false;
    text.lines().filter_map(move |line| {
        let t = line.trim();
        if t.starts_with('[') {
            inside = t == section;
            None
        } else if inside {
            Some(t)
        } else {
            None
        }
    })
}

/// `(name, version)` of each path dependency in `[workspace.dependencies]`.
fn path_dependency_versions(manifest: &str) -> Vec<(String, String)> {
    section_lines(manifest, "[workspace.dependencies]")
        .filter(|line| line.contains("path = \"crates/"))
        .filter_map(|line| {
            let (name, rest) = line.split_once('=')?;
            let at = rest.find("version")?;
            Some((
                name.trim().to_owned(),
                quoted_value(&rest[at..], "version")?,
            ))
        })
        .collect()
}

enum PackageVersion {
    Workspace,
    Own(String),
}

/// How a crate's `[package]` states its version.
fn package_version(manifest: &str) -> Option<PackageVersion> {
    section_lines(manifest, "[package]").find_map(|line| {
        let compact: String = line.chars().filter(|c| !c.is_whitespace()).collect();
        if compact == "version.workspace=true" {
            Some(PackageVersion::Workspace)
        } else {
            quoted_value(line, "version").map(PackageVersion::Own)
        }
    })
}

/// The pyproject lets maturin take the version from Cargo.toml.
fn pyproject_takes_cargo_version(pyproject: &str) -> bool {
    let project: Vec<&str> = section_lines(pyproject, "[project]").collect();
    let dynamic = project
        .iter()
        .any(|l| l.starts_with("dynamic") && l.contains("\"version\""));
    dynamic && !project.iter().any(|l| quoted_value(l, "version").is_some())
}

/// The `version:` of a flat YAML file.
fn yaml_version(text: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let v = line.strip_prefix("version:")?.trim();
        let v = v.split('#').next()?.trim().trim_matches(['"', '\'']);
        (!v.is_empty()).then(|| v.to_owned())
    })
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
            path_dependency_versions(&out),
            [("ctb-json".to_owned(), "0.2.0".to_owned())]
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

    #[test]
    fn where_versions_are_stated() {
        assert!(matches!(
            package_version("[package]\nname = \"x\"\nversion.workspace = true\n"),
            Some(PackageVersion::Workspace)
        ));
        assert!(matches!(
            package_version("[package]\nversion = \"0.3.0\"\n[dependencies]\nversion = \"9\"\n"),
            Some(PackageVersion::Own(v)) if v == "0.3.0"
        ));
        assert!(package_version("[dependencies]\nversion = \"1\"\n").is_none());
        assert!(pyproject_takes_cargo_version(
            "[project]\nname = \"x\"\ndynamic = [\"version\"]\n"
        ));
        assert!(!pyproject_takes_cargo_version(
            "[project]\nversion = \"0.1.0\"\ndynamic = [\"version\"]\n"
        ));
        assert_eq!(
            yaml_version("name: a\nversion: '0.1.0' # x\n").as_deref(),
            Some("0.1.0")
        );
        assert_eq!(yaml_version("name: a\n"), None);
    }

    #[test]
    fn this_workspace_agrees() {
        assert_eq!(check_versions(), workspace_version());
    }
}
