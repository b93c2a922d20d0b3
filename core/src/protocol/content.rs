//! Content blocks (the schema's `ContentBlock`): text, image, audio, resource links and
//! embedded resources, as carried by tool results (`server/tools`), prompt messages
//! (`server/prompts`) and sampling messages (`client/sampling`).

use super::common::{Annotations, Meta};
use super::resources::{Resource, ResourceContents};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One piece of content in a tool result, prompt message or sampling message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Content {
    /// Text.
    Text {
        /// The text.
        text: String,
        /// Hints.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<Meta>,
    },
    /// An image, base64-encoded.
    Image {
        /// Base64 data.
        data: String,
        /// MIME type.
        #[serde(rename = "mimeType")]
        mime_type: String,
        /// Hints.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<Meta>,
    },
    /// Audio, base64-encoded (2025-03-26).
    Audio {
        /// Base64 data.
        data: String,
        /// MIME type.
        #[serde(rename = "mimeType")]
        mime_type: String,
        /// Hints.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<Meta>,
    },
    /// A link to a resource (2025-06-18).
    ResourceLink(Resource),
    /// An embedded resource.
    Resource {
        /// The contents.
        resource: ResourceContents,
        /// Hints.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
        /// Metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<Meta>,
    },
    /// A tool call requested by a model in sampling (2025-11-25), kept as JSON.
    ToolUse(Map<String, Value>),
    /// A tool's result in sampling (2025-11-25), kept as JSON.
    ToolResult(Map<String, Value>),
}

impl Content {
    /// Text content.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text { text: text.into(), annotations: None, meta: None }
    }
    /// Image content from raw bytes.
    pub fn image(bytes: &[u8], mime_type: impl Into<String>) -> Self {
        Content::Image {
            data: crate::util::base64_encode(bytes),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        }
    }
    /// Audio content from raw bytes.
    pub fn audio(bytes: &[u8], mime_type: impl Into<String>) -> Self {
        Content::Audio {
            data: crate::util::base64_encode(bytes),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        }
    }
    /// An embedded resource.
    pub fn resource(contents: ResourceContents) -> Self {
        Content::Resource { resource: contents, annotations: None, meta: None }
    }
    /// A resource link.
    pub fn resource_link(resource: Resource) -> Self {
        Content::ResourceLink(resource)
    }
    /// The text, for text content.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Content::Text { text, .. } => Some(text),
            _ => None,
        }
    }
}
