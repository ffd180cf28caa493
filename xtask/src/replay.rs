//! `cargo xtask replay` (not written yet).

pub(crate) fn run(_args: &[String]) -> Result<(), String> {
    Err("`replay` is not implemented yet".to_owned())
}
