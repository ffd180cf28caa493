//! Any text as a tool catalog (JSON definitions or Agent Zero prompt text): nothing panics; a
//! catalog that loads has tools, finds each by its name, and types any raw value without
//! panicking.
#![no_main]

use ctb_schema::Catalog;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(catalog) = Catalog::from_text(text) else {
        return;
    };
    assert!(!catalog.is_empty());
    let raw = text.get(..text.len().min(64)).unwrap_or("");
    for tool in &catalog {
        assert!(catalog.get(&tool.name).is_some(), "{} not found", tool.name);
        for p in tool.params() {
            let _ = tool.type_value(p.name(), raw);
        }
        let _ = tool.type_args([("x", raw)]);
    }
});
