//! The Python environment the commands share: a virtualenv in `<target>/py-venv`, made with
//! `python3 -m venv` (or `$PYTHON`), requirements installed once and recorded in a stamp file.
//! Also fresh throwaway virtualenvs for install checks.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{self, root};

/// The interpreter that makes virtualenvs: `$PYTHON`, else `python3`.
pub(crate) fn base_python() -> String {
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

/// A virtualenv's interpreter.
pub(crate) fn python_in(venv: &Path) -> PathBuf {
    if cfg!(windows) {
        venv.join("Scripts").join("python.exe")
    } else {
        venv.join("bin").join("python")
    }
}

/// A virtualenv's console script (`actionlint`, ...).
pub(crate) fn script_in(venv: &Path, name: &str) -> PathBuf {
    if cfg!(windows) {
        venv.join("Scripts").join(format!("{name}.exe"))
    } else {
        venv.join("bin").join(name)
    }
}

/// Makes the shared virtualenv (once) and installs `requirements` into it (only those not
/// installed by an earlier run, as recorded in a stamp file). Returns its interpreter.
pub(crate) fn ensure_venv(requirements: &[String]) -> Result<PathBuf, String> {
    let venv = venv_dir();
    let python = python_in(&venv);
    if !python.exists() {
        make_venv(&venv)?;
    }
    let stamp = venv.join(".ctb-installed");
    let done = fs::read_to_string(&stamp).unwrap_or_default();
    let missing: Vec<&String> = requirements
        .iter()
        .filter(|r| !done.lines().any(|line| line == r.as_str()))
        .collect();
    if !missing.is_empty() {
        let mut cmd = pip(&python);
        cmd.arg("install").args(missing.iter().map(|s| s.as_str()));
        util::run(&mut cmd)?;
        let mut all: Vec<&str> = done.lines().collect();
        all.extend(missing.iter().map(|s| s.as_str()));
        fs::write(&stamp, all.join("\n") + "\n")
            .map_err(|e| format!("cannot write {}: {e}", stamp.display()))?;
    }
    Ok(python)
}

/// A new, empty virtualenv at `dir` (an old one there is removed first). Returns its
/// interpreter.
pub(crate) fn fresh_venv(dir: &Path) -> Result<PathBuf, String> {
    if dir.exists() {
        fs::remove_dir_all(dir).map_err(|e| format!("cannot remove {}: {e}", dir.display()))?;
    }
    make_venv(dir)?;
    Ok(python_in(dir))
}

fn make_venv(dir: &Path) -> Result<(), String> {
    util::run(
        Command::new(base_python())
            .args(["-m", "venv"])
            .arg(dir)
            .current_dir(root()),
    )
    .map_err(|e| format!("{e} (is python3 with the venv module installed?)"))
}

/// `python -m pip --quiet --disable-pip-version-check`, run from the workspace root.
pub(crate) fn pip(python: &Path) -> Command {
    let mut cmd = Command::new(python);
    cmd.args(["-m", "pip", "--quiet", "--disable-pip-version-check"])
        .current_dir(root());
    cmd
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
