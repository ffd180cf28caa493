//! Any text: `repair` writes valid JSON that serde_json reads back to what `parse` gives (or
//! both fail with the same error), for a whole text and for a cut-off stream; `first_object`
//! and `object_roots` give offsets on character boundaries inside the text. Nothing panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// With `arbitrary_precision`, serde_json reads an object whose only key is this as a number
/// (and refuses it when the value is no number text): its own quirk, not a JSON rule, so the
/// serde_json side of the comparison cannot take such input.
const SERDE_NUMBER_TOKEN: &str = "$serde_json::private::Number";

type Repair = fn(&str) -> Result<String, ctb_json::Error>;
type Parse = fn(&str) -> Result<Value, ctb_json::Error>;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if text.contains(SERDE_NUMBER_TOKEN) {
        return;
    }
    let readings: [(Repair, Parse); 2] = [
        (ctb_json::repair, ctb_json::parse),
        (ctb_json::repair_partial, ctb_json::parse_partial),
    ];
    for (repair, parse) in readings {
        match (repair(text), parse(text)) {
            (Ok(repaired), Ok(value)) => {
                let back: Value = serde_json::from_str(&repaired)
                    .unwrap_or_else(|e| panic!("repair wrote no JSON ({e}): {repaired}"));
                assert_eq!(back, value, "repair and parse disagree");
            }
            (Err(a), Err(b)) => {
                assert_eq!(a, b, "different errors");
                assert!(a.offset() <= text.len());
            }
            (a, b) => panic!("repair and parse disagree: {a:?} / {b:?}"),
        }
    }
    if let Some(first) = ctb_json::first_object(text) {
        assert!(first.start < first.end && first.end <= text.len());
        assert!(text.is_char_boundary(first.start) && text.is_char_boundary(first.end));
    }
    for root in ctb_json::object_roots(text) {
        assert!(root.closed && root.start < root.end && root.end <= text.len());
    }
});
