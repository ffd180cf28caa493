//! No input makes the crate panic: every prefix of the catalog fixtures is read as a catalog,
//! and awkward raw values are typed against every kind.

use std::path::Path;

use ctb_schema::Catalog;

#[test]
fn every_prefix_of_every_catalog_fixture() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/catalogs");
    let mut files = 0;
    for entry in std::fs::read_dir(dir).expect("fixture dir") {
        let text = std::fs::read_to_string(entry.expect("entry").path()).expect("read");
        files += 1;
        let mut cut = 0;
        while cut <= text.len() {
            if text.is_char_boundary(cut) {
                let _ = Catalog::from_text(&text[..cut]);
            }
            cut += 5;
        }
    }
    assert!(files >= 10);
}

#[test]
fn awkward_values_against_every_kind() {
    let catalog = Catalog::from_text(
        r#"[{"name": "k", "input_schema": {"type": "object", "properties": {
            "s": {"type": "string"}, "i": {"type": "integer"}, "n": {"type": "number"},
            "b": {"type": "boolean"}, "a": {"type": "array"}, "o": {"type": "object"},
            "z": {"type": "null"}, "e": {"enum": ["x", 1, null]}}}}]"#,
    )
    .expect("catalog");
    let tool = catalog.get("k").expect("tool");
    let values = [
        "",
        " ",
        "-",
        "+",
        ".",
        "e",
        "1e",
        "-.e",
        "0x10",
        "１２",
        "é",
        "\u{0}",
        "[",
        "{",
        "]",
        "}",
        "[[[[[[[[",
        "{\"a\":",
        "\"",
        "nul",
        "tru",
        "1.",
        "-0",
        "00",
        "9".repeat(400).leak(),
        "[1,]",
        "{'a': 1}",
        "\u{feff}[]",
    ];
    for name in ["s", "i", "n", "b", "a", "o", "z", "e", "other"] {
        for v in values {
            let typed = tool.type_args([(name, v)]);
            if name == "s" || name == "other" {
                // Text parameters never fail and keep the bytes.
                let map = typed.expect("text never fails");
                assert_eq!(map[name], serde_json::Value::String(v.to_owned()));
            }
        }
    }
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    let deep = "[".repeat(200_000);
    assert!(Catalog::from_text(&deep).is_err());
    let catalog = Catalog::agent_zero();
    let tool = catalog.get("vision_load").expect("bundled");
    assert!(tool.type_args([("paths", deep.as_str())]).is_err());
    let nested_schema = format!(
        "[{{\"name\": \"t\", \"input_schema\": {{\"type\": \"object\", \"properties\": {{\"p\": {}1{}}}}}}}]",
        "{\"anyOf\": [".repeat(60),
        "]}".repeat(60)
    );
    // Strict JSON refuses the depth; nothing panics either way.
    let _ = Catalog::from_text(&nested_schema);
    let fence = format!(
        "~~~json\n{{\"tool_name\": \"x\", \"tool_args\": {}\n~~~\n",
        "{\"a\":".repeat(100_000)
    );
    let _ = Catalog::from_text(&fence);
}

#[test]
fn exploding_refs_stay_bounded() {
    let mut defs = Vec::new();
    for i in 0..40 {
        defs.push(format!(
            "\"D{i}\": {{\"anyOf\": [{{\"$ref\": \"#/$defs/D{n}\"}}, {{\"$ref\": \"#/$defs/D{n}\"}}, {{\"type\": \"integer\"}}]}}",
            n = i + 1
        ));
    }
    defs.push("\"D40\": {\"type\": \"boolean\"}".to_owned());
    let text = format!(
        "[{{\"name\": \"t\", \"input_schema\": {{\"type\": \"object\", \"$defs\": {{{}}}, \"properties\": {{\"p\": {{\"$ref\": \"#/$defs/D0\"}}}}}}}}]",
        defs.join(", ")
    );
    let start = std::time::Instant::now();
    let catalog = Catalog::from_text(&text).expect("catalog");
    assert!(start.elapsed().as_secs() < 2, "bounded work");
    let p = catalog.get("t").and_then(|t| t.param("p")).expect("param");
    assert!(p.kinds().count() <= 16);
}
