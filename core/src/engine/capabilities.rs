//! What a client declares: its capabilities follow from what it can answer (a sampling
//! handler, an elicitation handler, roots) and the extensions it names. One rule for the
//! Rust, Python and Node clients, asserted by all three suites against
//! `tests/fixtures/client_capabilities.json`.

use crate::protocol::tasks::TASKS_EXTENSION;
use crate::protocol::{ClientCapabilities, APP_MIME, UI_EXTENSION};
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// What a client can answer and which extensions it names; [`ClientFeatures::capabilities`]
/// makes what it declares of them. A host sends it as JSON (names in snake_case or
/// camelCase).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClientFeatures {
    /// Answers `sampling/createMessage` (tool use included).
    pub sampling: bool,
    /// Answers `elicitation/create` in form mode.
    pub elicitation: bool,
    /// Answers URL-mode elicitation too (needs `elicitation`).
    #[serde(alias = "elicitationUrl")]
    pub elicitation_url: bool,
    /// Answers `roots/list` and tells when its roots change.
    pub roots: bool,
    /// Follows tasks (`io.modelcontextprotocol/tasks`).
    pub tasks: bool,
    /// Renders MCP Apps (`io.modelcontextprotocol/ui`, with the app MIME type).
    pub apps: bool,
    /// Extensions by identifier, with their settings; they win over `tasks`, `apps` and
    /// `capabilities.extensions`.
    pub extensions: Map<String, Value>,
    /// Capabilities given as they are: each member replaces the one the flags make
    /// (`extensions` is merged, extension by extension).
    pub capabilities: Map<String, Value>,
}

impl ClientFeatures {
    /// The capabilities to declare. Fails on a contradiction (`elicitation_url` without
    /// `elicitation`) or capabilities of the wrong shape.
    pub fn capabilities(&self) -> Result<ClientCapabilities, String> {
        if self.elicitation_url && !self.elicitation {
            return Err("URL-mode elicitation needs an elicitation handler".into());
        }
        let mut caps = Map::new();
        if self.sampling {
            caps.insert("sampling".into(), json!({"tools": {}}));
        }
        if self.elicitation {
            let modes = if self.elicitation_url { json!({"form": {}, "url": {}}) } else { json!({"form": {}}) };
            caps.insert("elicitation".into(), modes);
        }
        if self.roots {
            caps.insert("roots".into(), json!({"listChanged": true}));
        }
        let mut extensions = Map::new();
        if self.tasks {
            extensions.insert(TASKS_EXTENSION.into(), json!({}));
        }
        if self.apps {
            extensions.insert(UI_EXTENSION.into(), json!({"mimeTypes": [APP_MIME]}));
        }
        for (k, v) in &self.capabilities {
            match (k.as_str(), v) {
                ("extensions", Value::Object(given)) => {
                    extensions.extend(given.iter().map(|(id, settings)| (id.clone(), settings.clone())));
                }
                _ => {
                    caps.insert(k.clone(), v.clone());
                }
            }
        }
        extensions.extend(self.extensions.iter().map(|(id, settings)| (id.clone(), settings.clone())));
        if !extensions.is_empty() {
            caps.insert("extensions".into(), Value::Object(extensions));
        }
        serde_json::from_value(Value::Object(caps)).map_err(|e| format!("invalid client capabilities: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table the three languages' suites assert (tests/fixtures/client_capabilities.json).
    #[test]
    fn the_shared_table() {
        let table: Value =
            serde_json::from_str(include_str!("../../../tests/fixtures/client_capabilities.json")).expect("fixture");
        let cases = table["cases"].as_array().expect("cases");
        assert!(cases.len() >= 8);
        for case in cases {
            let features: ClientFeatures = serde_json::from_value(case["features"].clone()).expect("features");
            match case.get("error") {
                Some(e) => {
                    let err = features.capabilities().expect_err("refused");
                    assert!(err.contains(e.as_str().expect("text")), "{}: {err}", case["name"]);
                }
                None => {
                    let caps = features.capabilities().expect("capabilities");
                    assert_eq!(serde_json::to_value(&caps).expect("json"), case["capabilities"], "{}", case["name"]);
                }
            }
        }
    }

    #[test]
    fn camel_case_names_and_unknown_ones() {
        let f: ClientFeatures = serde_json::from_value(json!({"elicitation": true, "elicitationUrl": true})).unwrap();
        assert!(f.elicitation_url);
        let e = serde_json::from_value::<ClientFeatures>(json!({"smapling": true})).unwrap_err();
        assert!(e.to_string().contains("smapling"), "{e}");
    }
}
