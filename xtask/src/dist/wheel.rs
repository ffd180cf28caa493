//! The `claude-tool-bridge` Python package, built by maturin: the development install the
//! tests use, the release wheel (manylinux2014 on a linux x86-64 host, via zig), the sdist,
//! and the check that each one installs into a fresh virtualenv and imports.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::venv::{fresh_venv, pip, target_dir};
use crate::util::{self, root};

/// What building and checking the release artifacts needs in the shared virtualenv:
/// maturin; zig from PyPI (maturin links against glibc 2.17 with it, so the wheel is
/// manylinux2014); auditwheel (says which manylinux tag a wheel really satisfies).
pub(crate) const BUILD_REQUIREMENTS: [&str; 3] =
    ["maturin>=1.9,<2", "ziglang>=0.13,<0.16", "auditwheel>=6,<7"];

/// The tag the release wheel must carry on a linux x86-64 host (glibc 2.17 = manylinux2014).
pub(crate) const MANYLINUX_TAG: &str = "manylinux_2_17_x86_64";
const MANYLINUX_TARGET: &str = "x86_64-unknown-linux-gnu";

fn binding_manifest() -> PathBuf {
    root().join("crates").join("ctb-python").join("Cargo.toml")
}

/// `python -m maturin` with the virtualenv first on `PATH`: maturin finds zig as
/// `python3 -m ziglang`, which must be the virtualenv's Python, where ziglang is installed.
fn maturin(python: &Path) -> Command {
    let mut cmd = Command::new(python);
    cmd.args(["-m", "maturin"]).current_dir(root());
    if let Some(bin) = python.parent() {
        let mut path = std::ffi::OsString::from(bin);
        if let Some(old) = std::env::var_os("PATH") {
            path.push(if cfg!(windows) { ";" } else { ":" });
            path.push(old);
        }
        cmd.env("PATH", path);
        if let Some(venv) = bin.parent() {
            cmd.env("VIRTUAL_ENV", venv);
        }
    }
    cmd
}

/// Builds the binding (release) and installs it, editable, into the shared virtualenv.
pub(crate) fn develop(python: &Path) -> Result<(), String> {
    let mut cmd = maturin(python);
    cmd.args(["develop", "--release", "--quiet", "--manifest-path"])
        .arg(binding_manifest());
    util::run(&mut cmd)
}

/// Whether this host builds the manylinux2014 wheel (linux x86-64); elsewhere the release
/// wheel is built for the host as it is (the release workflow builds every platform).
pub(crate) fn host_builds_manylinux() -> bool {
    cfg!(all(target_os = "linux", target_arch = "x86_64"))
}

/// Builds the release wheel into `out`; returns its path.
pub(crate) fn build_wheel(python: &Path, out: &Path) -> Result<PathBuf, String> {
    let scratch = target_dir().join("dist-wheel");
    let mut cmd = maturin(python);
    cmd.args(["build", "--release", "--quiet", "--manifest-path"])
        .arg(binding_manifest())
        .arg("--out")
        .arg(&scratch);
    if host_builds_manylinux() {
        cmd.args(["--zig", "--compatibility", "manylinux2014"])
            .args(["--target", MANYLINUX_TARGET]);
    }
    let built = build_one(&mut cmd, &scratch, ".whl")?;
    if host_builds_manylinux() {
        check_manylinux(python, &built)?;
    }
    move_into(&built, out)
}

/// Builds the source distribution into `out`; returns its path.
pub(crate) fn build_sdist(python: &Path, out: &Path) -> Result<PathBuf, String> {
    let scratch = target_dir().join("dist-sdist");
    let mut cmd = maturin(python);
    cmd.args(["sdist", "--manifest-path"])
        .arg(binding_manifest())
        .arg("--out")
        .arg(&scratch);
    let built = build_one(&mut cmd, &scratch, ".tar.gz")?;
    move_into(&built, out)
}

/// Runs a build into the empty folder `scratch` and returns the one file it made.
fn build_one(cmd: &mut Command, scratch: &Path, suffix: &str) -> Result<PathBuf, String> {
    let _ = fs::remove_dir_all(scratch);
    util::run(cmd)?;
    let made: Vec<PathBuf> = fs::read_dir(scratch)
        .map_err(|e| format!("cannot read {}: {e}", scratch.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    match made.as_slice() {
        [one] => Ok(one.clone()),
        _ => Err(format!(
            "expected one {suffix} in {}, found {}",
            scratch.display(),
            made.len()
        )),
    }
}

fn move_into(file: &Path, out: &Path) -> Result<PathBuf, String> {
    fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let dest = out.join(file.file_name().unwrap_or_default());
    fs::copy(file, &dest).map_err(|e| format!("cannot copy to {}: {e}", dest.display()))?;
    let _ = fs::remove_file(file);
    Ok(dest)
}

/// The wheel's file name carries the manylinux2014 tag, and auditwheel agrees that its
/// binary needs nothing newer than glibc 2.17.
fn check_manylinux(python: &Path, wheel: &Path) -> Result<(), String> {
    let name = wheel.file_name().unwrap_or_default().to_string_lossy();
    if !name.contains(MANYLINUX_TAG) {
        return Err(format!("{name} does not carry the {MANYLINUX_TAG} tag"));
    }
    eprintln!("$ {} -m auditwheel show {name}", python.display());
    let shown = Command::new(python)
        .args(["-m", "auditwheel", "show"])
        .arg(wheel)
        .output()
        .map_err(|e| format!("cannot run auditwheel: {e}"))?;
    let text = String::from_utf8_lossy(&shown.stdout).replace('\n', " ");
    if !shown.status.success() || !text.contains(&format!("\"{MANYLINUX_TAG}\"")) {
        return Err(format!(
            "auditwheel does not place {name} at {MANYLINUX_TAG}: {}{}",
            text.trim(),
            String::from_utf8_lossy(&shown.stderr).trim()
        ));
    }
    eprintln!("auditwheel: {name} is consistent with {MANYLINUX_TAG}");
    Ok(())
}

/// Installs `artifact` (a wheel or an sdist) into a new virtualenv and imports it there:
/// the version must be `version` and a call must translate. An sdist is built from source
/// by pip (maturin from PyPI, Rust from this machine) with a cargo target directory of its
/// own under `<target>/dist-check`, kept between runs so only our crates rebuild.
pub(crate) fn check_install(artifact: &Path, version: &str, label: &str) -> Result<(), String> {
    let venv = target_dir().join("dist-check").join(label);
    let python = fresh_venv(&venv)?;
    let mut install = pip(&python);
    install.args(["install", "--no-cache-dir"]);
    if artifact.to_string_lossy().ends_with(".whl") {
        install.args(["--no-index", "--no-deps"]);
    }
    install.arg(artifact).env(
        "CARGO_TARGET_DIR",
        target_dir().join("dist-check").join("cargo"),
    );
    util::run(&mut install)?;
    util::run(
        Command::new(&python)
            .arg(root().join(IMPORT_CHECK))
            .arg(version)
            .current_dir(&venv),
    )
    .map_err(|e| format!("{e}: the {label} installs but does not work"))?;
    eprintln!(
        "checked: {} installs into a fresh virtualenv and imports",
        artifact.file_name().unwrap_or_default().to_string_lossy()
    );
    Ok(())
}

/// The check the release workflow runs on every platform, run here in the fresh virtualenv,
/// away from the source tree.
const IMPORT_CHECK: &str = ".github/workflows/import_check.py";
