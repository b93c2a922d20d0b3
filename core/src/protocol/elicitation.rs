//! Elicitation (`client/elicitation`): the `elicitation/create` request, form or URL mode,
//! and what the user did with it.

use super::common::Meta;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `elicitation/create` params: a form (2025-06-18) or a URL to visit (2025-11-25).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ElicitParams {
    /// Ask the user to open a URL.
    Url {
        /// Always `"url"`.
        mode: String,
        /// Why.
        message: String,
        /// The URL.
        url: String,
        /// Id to correlate `notifications/elicitation/complete`.
        #[serde(rename = "elicitationId")]
        elicitation_id: String,
        /// Metadata (at 2025-11-25, the task a request is for: `io.modelcontextprotocol/related-task`).
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<Meta>,
    },
    /// Ask the user to fill a form.
    Form {
        /// `"form"` (2025-11-25; absent before).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mode: Option<String>,
        /// What is asked.
        message: String,
        /// A flat JSON Schema object of primitive properties.
        #[serde(rename = "requestedSchema")]
        requested_schema: Value,
        /// Metadata (at 2025-11-25, the task a request is for: `io.modelcontextprotocol/related-task`).
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<Meta>,
    },
}

impl ElicitParams {
    /// A form request.
    pub fn form(message: impl Into<String>, requested_schema: Value) -> Self {
        ElicitParams::Form { mode: None, message: message.into(), requested_schema, meta: None }
    }
    /// A URL request.
    pub fn url(message: impl Into<String>, url: impl Into<String>, elicitation_id: impl Into<String>) -> Self {
        ElicitParams::Url {
            mode: "url".into(),
            message: message.into(),
            url: url.into(),
            elicitation_id: elicitation_id.into(),
            meta: None,
        }
    }
    /// The request's `_meta`.
    pub fn meta(&self) -> Option<&Meta> {
        match self {
            ElicitParams::Url { meta, .. } | ElicitParams::Form { meta, .. } => meta.as_ref(),
        }
    }
    /// Whether this is URL mode.
    pub fn is_url(&self) -> bool {
        matches!(self, ElicitParams::Url { .. })
    }

    /// The params as a JSON value, what `serde_json::to_value` makes of them, with the
    /// schema and `_meta` moved in instead of copied member by member.
    pub(crate) fn into_value(self) -> Value {
        let mut m = Map::new();
        let meta = match self {
            ElicitParams::Url { mode, message, url, elicitation_id, meta } => {
                m.insert("mode".into(), Value::String(mode));
                m.insert("message".into(), Value::String(message));
                m.insert("url".into(), Value::String(url));
                m.insert("elicitationId".into(), Value::String(elicitation_id));
                meta
            }
            ElicitParams::Form { mode, message, requested_schema, meta } => {
                if let Some(mode) = mode {
                    m.insert("mode".into(), Value::String(mode));
                }
                m.insert("message".into(), Value::String(message));
                m.insert("requestedSchema".into(), requested_schema);
                meta
            }
        };
        if let Some(meta) = meta {
            m.insert("_meta".into(), Value::Object(meta));
        }
        Value::Object(m)
    }
}

/// What the user did with an elicitation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted.
    Accept,
    /// Explicitly declined.
    Decline,
    /// Dismissed.
    Cancel,
}

/// `elicitation/create` result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The form values, when accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn into_value_is_what_serde_makes() {
        let mut meta = Map::new();
        meta.insert("io.modelcontextprotocol/related-task".into(), json!({"taskId": "t1"}));
        let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
        let cases = [
            ElicitParams::form("Name?", schema.clone()),
            ElicitParams::Form {
                mode: Some("form".into()),
                message: "Name?".into(),
                requested_schema: schema,
                meta: Some(meta.clone()),
            },
            ElicitParams::url("Sign in", "https://example.com/a", "e1"),
            ElicitParams::Url {
                mode: "url".into(),
                message: "Sign in".into(),
                url: "https://example.com/a".into(),
                elicitation_id: "e1".into(),
                meta: Some(meta),
            },
        ];
        for p in cases {
            let serde = serde_json::to_value(&p).unwrap();
            assert_eq!(p.into_value(), serde);
        }
    }
}
