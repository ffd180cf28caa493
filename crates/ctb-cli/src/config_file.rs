//! Reading a settings file: YAML (`default_config.yaml`) or JSON (a saved `config.json`),
//! told apart by the first character. The facade takes the parsed document
//! ([`Config::from_value`]); parsing the text is this edge's job.

use claude_tool_bridge::{Config, ConfigWarning};
use serde_json::Value;

/// Parses `text` and builds the config. JSON when the text starts with `{`, YAML otherwise
/// (an empty file gives the defaults).
pub(crate) fn parse(text: &str) -> Result<(Config, Vec<ConfigWarning>), String> {
    let value: Value = if text.trim().is_empty() {
        Value::Null
    } else if text.trim_start().starts_with('{') {
        serde_json::from_str(text).map_err(|e| format!("JSON: {e}"))?
    } else {
        let yaml: serde_yaml_ng::Value =
            serde_yaml_ng::from_str(text).map_err(|e| format!("YAML: {e}"))?;
        serde_json::to_value(yaml).map_err(|e| format!("YAML: {e}"))?
    };
    Config::from_value(value).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_json_and_empty() {
        let (c, w) = parse("models: gpt\nloop_guard: false\n").unwrap();
        assert_eq!(c.models.as_slice(), ["gpt"]);
        assert!(!c.loop_guard && w.is_empty());
        let (c, _) = parse(r#"{"stop_sequence": false}"#).unwrap();
        assert!(!c.stop_sequence);
        assert_eq!(parse(" \n").unwrap().0, Config::default());
        for bad in ["{", "- a\n- b", "key: [unclosed"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
