//! `cargo xtask dist`, `install-plugin`, `release` (not written yet).

pub(crate) fn dist(_args: &[String]) -> Result<(), String> {
    Err("`dist` is not implemented yet".to_owned())
}

pub(crate) fn install_plugin(_args: &[String]) -> Result<(), String> {
    Err("`install-plugin` is not implemented yet".to_owned())
}

pub(crate) fn release(_args: &[String]) -> Result<(), String> {
    Err("`release` is not implemented yet".to_owned())
}
