//! `cargo xtask bench` (not written yet).

pub(crate) fn run(_args: &[String]) -> Result<(), String> {
    Err("`bench` is not implemented yet".to_owned())
}
