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
