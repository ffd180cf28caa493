//! Valid JSON: whatever serde_json accepts, `parse` reads to the same value (and `repair`
//! writes text that reads back to it). And whatever `parse` reads, printed by serde_json
//! (compact and pretty), reads back to the same value, and `to_string_pretty` prints it as
//! serde_json does. `skim_object` lists exactly the members of what serde_json reads as an
//! object, and nothing for anything else it accepts or refuses.
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
    match serde_json::from_str::<Value>(text) {
        Ok(v) => {
            same(text, &v);
            // the skim lists exactly an object's members
            let skim = ctb_json::skim_object(text);
            if let Value::Object(map) = &v {
                let members = skim.expect("a strict object is skimmed");
                let mut read = serde_json::Map::new();
                for m in members {
                    let key: String = serde_json::from_str(m.key).expect("a key");
                    read.insert(key, serde_json::from_str(m.value).expect("a value"));
                }
                assert_eq!(&read, map, "{text:?}");
            } else {
                assert!(skim.is_none(), "{text:?}");
            }
        }
        // what serde_json refuses is no strict object (a lone surrogate escape aside)
        Err(_) if !text.contains("\\u") => {
            assert!(ctb_json::skim_object(text).is_none(), "{text:?}");
        }
        Err(_) => {}
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
