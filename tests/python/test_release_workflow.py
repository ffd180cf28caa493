"""The release workflow builds a wheel for every platform users run on (the targets
pydantic-core and jiter ship), checks each wheel on its own platform and publishes only from
a version tag."""

from __future__ import annotations

from conftest import REPO

import pytest

yaml = pytest.importorskip("yaml")
WORKFLOW = yaml.safe_load((REPO / ".github" / "workflows" / "release.yml").read_text())
JOBS = WORKFLOW["jobs"]

# (name in the matrix, maturin target, manylinux setting, runner family)
TARGETS = [
    ("manylinux-x86_64", "x86_64", "2014", "ubuntu"),
    ("manylinux-aarch64", "aarch64", "2014", "ubuntu"),
    ("musllinux-x86_64", "x86_64-unknown-linux-musl", "musllinux_1_2", "ubuntu"),
    ("musllinux-aarch64", "aarch64-unknown-linux-musl", "musllinux_1_2", "ubuntu"),
    ("macos-x86_64", "x86_64", "off", "macos"),
    ("macos-arm64", "aarch64", "off", "macos"),
    ("windows-x64", "x64", "off", "windows"),
]


def test_one_wheel_job_per_target():
    matrix = JOBS["wheels"]["strategy"]["matrix"]["include"]
    got = [(m["name"], m["target"], m["manylinux"], m["runner"].split("-")[0]) for m in matrix]
    assert got == TARGETS
    steps = JOBS["wheels"]["steps"]
    build = next(s for s in steps if s.get("uses", "").startswith("PyO3/maturin-action@"))
    assert "--release" in build["with"]["args"]
    assert "crates/ctb-python/Cargo.toml" in WORKFLOW["env"]["MANIFEST"]


def test_every_wheel_and_the_sdist_are_installed_and_imported():
    checked = [m["name"] for m in JOBS["check"]["strategy"]["matrix"]["include"]]
    assert checked == [name for name, *_ in TARGETS] + ["sdist"]
    assert JOBS["sdist"]["steps"][-2]["with"]["command"] == "sdist"
    assert set(JOBS["check"]["needs"]) == {"wheels", "sdist"}


def test_publishing_needs_a_version_tag_and_the_checks():
    on = WORKFLOW.get("on", WORKFLOW.get(True))  # YAML 1.1 reads a bare `on` as True
    assert on["push"]["tags"] == ["v*"]
    publish = JOBS["publish"]
    assert publish["if"] == "startsWith(github.ref, 'refs/tags/v')"
    assert set(publish["needs"]) == {"check", "bundle"}
    runs = " ".join(s.get("run", "") for s in publish["steps"])
    assert "cargo xtask release" in runs  # the tag must name the version every file states
    assert "cargo publish" in runs
    assert any(s.get("uses", "").startswith("pypa/gh-action-pypi-publish@") for s in publish["steps"])
    assert publish["permissions"]["id-token"] == "write"


def test_actions_are_pinned_to_commits():
    for job in JOBS.values():
        for step in job["steps"]:
            uses = step.get("uses")
            if uses:
                ref = uses.split("@", 1)[1]
                assert len(ref) == 40 and all(c in "0123456789abcdef" for c in ref), uses


def test_the_bundle_locks_every_wheel_built():
    """Every wheel is locked: the bundle job hands every platform's wheel to `cargo xtask
    bundle`, which writes their sha256 into wheels.lock (the same code `cargo xtask dist`
    runs), and the release carries the bundle and the hub trees."""
    bundle = JOBS["bundle"]
    download = next(s for s in bundle["steps"] if s.get("uses", "").startswith("actions/download-artifact@"))
    assert download["with"]["pattern"] == "wheel-*" and download["with"]["merge-multiple"] is True
    runs = [s["run"] for s in bundle["steps"] if "run" in s]
    assert runs == [f"cargo xtask bundle --wheels {download['with']['path']} --out bundle-out"]
    upload = next(s for s in bundle["steps"] if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["with"]["path"] == "bundle-out/claude_tool_bridge-*.zip"  # plugin and hub zips
    release = " ".join(s.get("run", "") for s in JOBS["publish"]["steps"])
    assert "bundle/*.zip" in release
