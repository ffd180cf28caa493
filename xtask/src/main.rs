//! Project automation, the xtask way: `cargo xtask <command>` (alias in `.cargo/config.toml`).
//!
//! Every command is a plain function in its own module; nothing here needs tools beyond
//! cargo, Python 3 with venv/pip, and what those install.

mod bench;
mod conformance;
mod conversations;
mod dist;
mod fuzz;
mod parsers;
mod replay;
mod test;
#[cfg(test)]
mod tidy;
mod util;

use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask <command>

commands:
  replay [DIR]                 run the bundled replies and conversations through the bridge
  test                         run every test: fmt, clippy, Rust tests, Python tests
  conformance <suite.json>...  score the JSON repair crate or the call grammar against a
                               public test suite (../shared/suites/*.json, parsers/*.json)
  bench [criterion args]       run the criterion benchmarks
  dist                         build the wheel (manylinux2014 on linux x86-64), the sdist and
                               the Agent Zero plugin bundle into dist/; install the wheel and
                               the sdist into fresh virtualenvs and import them; write the
                               lock, the root-level plugin tree and the Plugin Hub entry
  bundle --wheels DIR [--out DIR]
                               the plugin bundle, the root-level plugin tree and the Plugin Hub
                               entry for every wheel in DIR (the release workflow's step)
  fuzz [--seconds N] [TARGET...]
                               run the cargo-fuzz targets in fuzz/ (nightly), N seconds each
  install-plugin <a0-dir> [--python PATH]
                               install the plugin and wheel into an Agent Zero checkout
  release                      check that crates, wheel, plugin.yaml and CHANGELOG agree
  release <version>            bump every version, check, dry-run publish, build dist/";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((cmd, rest)) = args.split_first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let result = match cmd.as_str() {
        "replay" => replay::run(rest),
        "test" => test::run(rest),
        "conformance" => conformance::run(rest),
        "bench" => bench::run(rest),
        "fuzz" => fuzz::run(rest),
        "dist" => dist::dist(rest),
        "bundle" => dist::bundle(rest),
        "install-plugin" => dist::install_plugin(rest),
        "release" => dist::release(rest),
        "help" | "--help" | "-h" => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        other => Err(format!("unknown command `{other}`\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("xtask: {msg}");
            // Bad input (a `usage:` message) exits 2, a failed step 1.
            ExitCode::from(if msg.starts_with("usage:") { 2 } else { 1 })
        }
    }
}
