//! Valid JSON: whatever serde_json accepts, `parse` reads to the same value (and `repair`
//! writes text that reads back to it). And whatever `parse` reads, printed by serde_json
//! (compact and pretty), reads back to the same value, and `to_string_pretty` prints it as
//! serde_json does.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// With `arbitrary_precision`, serde_json reads an object whose only key is this as a number
/// (and refuses it when the value is no number text): its own quirk, not a JSON rule, so the
/// serde_json side of the comparison cannot take such input.
const SERDE_NUMBER_TOKEN: &str = "$serde_json::private::Number";

fn same(text: &str, want: &Value) {
    let got = ctb_json::parse(text);
    assert_eq!(
        got.as_ref().ok(),
        Some(want),
        "parse differs from serde_json on {text:?}"
    );
    let repaired = ctb_json::repair(text).expect("repair");
    let back: Value = serde_json::from_str(&repaired).expect("repair wrote JSON");
    assert_eq!(&back, want, "repair differs from serde_json on {text:?}");
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if text.contains(SERDE_NUMBER_TOKEN) {
        return;
    }
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        same(text, &v);
    }
    if let Ok(v) = ctb_json::parse(text) {
        same(&v.to_string(), &v);
        if let Ok(pretty) = serde_json::to_string_pretty(&v) {
            same(&pretty, &v);
            // the crate's writer prints what serde_json prints
            assert_eq!(ctb_json::to_string_pretty(&v, "  "), pretty, "{text:?}");
        }
    }
});
