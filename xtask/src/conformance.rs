//! `cargo xtask conformance` (not written yet).

pub(crate) fn run(_args: &[String]) -> Result<(), String> {
    Err("`conformance` is not implemented yet".to_owned())
}
