//! One reply in, one decision out.

use crate::{Catalog, Config, Decision, Reason};

/// Decides what Agent Zero should see for `reply`.
pub fn translate(reply: &str, catalog: &Catalog, config: &Config) -> Decision {
    let _ = (catalog, config);
    Decision::untouched(reply, Reason::NoCall)
}
