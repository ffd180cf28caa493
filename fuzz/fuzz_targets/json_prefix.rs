//! Truncated streams: a valid document (the input if serde_json reads it, otherwise what
//! `parse` makes of it, printed compact or pretty; none with a key twice, where a later
//! duplicate replaces the earlier member) is cut at every character; each prefix must
//! repair, in both readings of the end, keeping every member and item that was complete before
//! the cut. The rules are those of `crates/ctb-json/tests/prefixes.rs`, from the same file.
#![no_main]

#[path = "../../crates/ctb-json/tests/support/prefix.rs"]
mod prefix;

use libfuzzer_sys::fuzz_target;
use prefix::{Mode, check_document, has_duplicate_keys};
use serde_json::Value;

/// With `arbitrary_precision`, serde_json reads an object whose only key is this as a number
/// (and refuses it when the value is no number text): its own quirk, not a JSON rule, so the
/// serde_json side of the comparison cannot take such input.
const SERDE_NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// Every prefix is repaired: keep documents small enough for many runs a second.
const MAX_DOCUMENT: usize = 1500;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if text.contains(SERDE_NUMBER_TOKEN) {
        return;
    }
    let document = if serde_json::from_str::<Value>(text).is_ok() {
        text.trim().to_owned()
    } else {
        let Ok(value) = ctb_json::parse(text) else {
            return;
        };
        if data.first().is_some_and(|b| b % 2 == 0) {
            value.to_string()
        } else {
            serde_json::to_string_pretty(&value).expect("prints")
        }
    };
    if document.len() > MAX_DOCUMENT || document.is_empty() || has_duplicate_keys(&document) {
        return;
    }
    for mode in [Mode::Tolerant, Mode::Partial] {
        let (_, failures) = check_document("input", &document, mode);
        if let Some(first) = failures.first() {
            panic!(
                "{} of the prefixes fail; the first:\n{first}",
                failures.len()
            );
        }
    }
});
