//! Edge conversions: shape a value of the neutral model for one negotiated revision, so an
//! older peer never sees a field its revision does not define.
//!
//! Fields are dropped where a revision lacks them; content types a revision lacks are
//! rendered as text (a resource link becomes its URI, audio a short note), so nothing the
//! user returned vanishes silently.

use super::types::*;
use super::version::{Feature, ProtocolVersion};
use serde_json::{Map, Value};
use std::borrow::Cow;

fn strip(obj: &mut Map<String, Value>, v: ProtocolVersion) {
    if !v.supports(Feature::Titles) {
        obj.remove("title");
    }
    if !v.supports(Feature::Icons) {
        obj.remove("icons");
    }
    if !v.supports(Feature::DefinitionMeta) {
        obj.remove("_meta");
    }
}

/// A tool definition as revision `v` defines it.
pub fn tool(t: &Tool, v: ProtocolVersion) -> Value {
    let mut value = serde_json::to_value(t).unwrap_or(Value::Null);
    if let Value::Object(obj) = &mut value {
        strip(obj, v);
        if !v.supports(Feature::StructuredOutput) {
            obj.remove("outputSchema");
        }
        if !v.supports(Feature::ToolAnnotations) {
            obj.remove("annotations");
        }
        if !v.supports(Feature::LegacyTasks) {
            obj.remove("execution");
        }
    }
    value
}

/// A resource definition as revision `v` defines it.
pub fn resource(r: &Resource, v: ProtocolVersion) -> Value {
    let mut value = serde_json::to_value(r).unwrap_or(Value::Null);
    if let Value::Object(obj) = &mut value {
        strip(obj, v);
    }
    value
}

/// A resource template as revision `v` defines it.
pub fn resource_template(r: &ResourceTemplate, v: ProtocolVersion) -> Value {
    let mut value = serde_json::to_value(r).unwrap_or(Value::Null);
    if let Value::Object(obj) = &mut value {
        strip(obj, v);
    }
    value
}

/// A prompt definition as revision `v` defines it.
pub fn prompt(p: &Prompt, v: ProtocolVersion) -> Value {
    let mut value = serde_json::to_value(p).unwrap_or(Value::Null);
    if let Value::Object(obj) = &mut value {
        strip(obj, v);
        if !v.supports(Feature::Titles) {
            if let Some(Value::Array(args)) = obj.get_mut("arguments") {
                for a in args.iter_mut().filter_map(Value::as_object_mut) {
                    a.remove("title");
                }
            }
        }
    }
    value
}

/// An implementation record as revision `v` defines it.
pub fn implementation(i: &Implementation, v: ProtocolVersion) -> Cow<'_, Implementation> {
    if v.supports(Feature::Icons) {
        return Cow::Borrowed(i);
    }
    let mut i = i.clone();
    i.icons = None;
    i.description = None;
    i.website_url = None;
    if !v.supports(Feature::Titles) {
        i.title = None;
    }
    Cow::Owned(i)
}

/// Server capabilities as revision `v` defines them.
pub fn server_capabilities(c: &ServerCapabilities, v: ProtocolVersion) -> Cow<'_, ServerCapabilities> {
    let drop_completions = c.completions.is_some() && !v.supports(Feature::CompletionsCapability);
    let drop_tasks = c.tasks.is_some() && !v.supports(Feature::LegacyTasks);
    if !drop_completions && !drop_tasks {
        return Cow::Borrowed(c);
    }
    let mut c = c.clone();
    if drop_completions {
        c.completions = None;
    }
    if drop_tasks {
        c.tasks = None;
    }
    Cow::Owned(c)
}

fn content_ok(c: &Content, v: ProtocolVersion) -> bool {
    match c {
        Content::Audio { .. } => v.supports(Feature::AudioContent),
        Content::ResourceLink(_) => v.supports(Feature::ResourceLinks),
        Content::ToolUse(_) | Content::ToolResult(_) => v.supports(Feature::SamplingTools),
        _ => true,
    }
}

/// One content block as revision `v` defines it.
pub fn content(c: &Content, v: ProtocolVersion) -> Cow<'_, Content> {
    if content_ok(c, v) {
        return Cow::Borrowed(c);
    }
    Cow::Owned(match c {
        Content::ResourceLink(r) => Content::text(format!("Resource: {} ({})", r.name, r.uri)),
        Content::Audio { mime_type, .. } => {
            Content::text(format!("[audio content ({mime_type}) not supported by protocol {v}]"))
        }
        other => Content::text(serde_json::to_string(other).unwrap_or_default()),
    })
}

/// A tool result as revision `v` defines it (borrowed unchanged when nothing differs, the
/// common case).
pub fn call_tool_result(r: &CallToolResult, v: ProtocolVersion) -> Cow<'_, CallToolResult> {
    let structured_ok = r.structured_content.is_none() || v.supports(Feature::StructuredOutput);
    if structured_ok && r.content.iter().all(|c| content_ok(c, v)) {
        return Cow::Borrowed(r);
    }
    let mut out = r.clone();
    if !structured_ok {
        out.structured_content = None;
    }
    out.content = r.content.iter().map(|c| content(c, v).into_owned()).collect();
    Cow::Owned(out)
}

/// A prompt result as revision `v` defines it.
pub fn get_prompt_result(r: &GetPromptResult, v: ProtocolVersion) -> Cow<'_, GetPromptResult> {
    if r.messages.iter().all(|m| content_ok(&m.content, v)) {
        return Cow::Borrowed(r);
    }
    let mut out = r.clone();
    for m in &mut out.messages {
        m.content = content(&m.content, v).into_owned();
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn old_revisions_lose_new_fields() {
        let t = Tool::new("t")
            .title("T")
            .output_schema(json!({"type": "object"}))
            .annotations(ToolAnnotations { read_only_hint: Some(true), ..Default::default() })
            .icons(vec![Icon { src: "data:,".into(), mime_type: None, sizes: None, theme: None }]);
        let old = tool(&t, ProtocolVersion::V2024_11_05);
        assert_eq!(old, json!({"name": "t", "inputSchema": {"type": "object"}}));
        let mid = tool(&t, ProtocolVersion::V2025_06_18);
        assert!(mid.get("title").is_some() && mid.get("outputSchema").is_some());
        assert!(mid.get("icons").is_none());
        assert!(tool(&t, ProtocolVersion::V2025_11_25).get("icons").is_some());
    }

    #[test]
    fn results_downgrade_content() {
        let mut r = CallToolResult::structured(json!({"a": 1}));
        r.content.push(Content::resource_link(Resource::new("file:///x", "x")));
        let old = call_tool_result(&r, ProtocolVersion::V2025_03_26);
        assert!(old.structured_content.is_none());
        assert_eq!(old.content[1].as_text(), Some("Resource: x (file:///x)"));
        assert!(matches!(call_tool_result(&r, ProtocolVersion::V2025_06_18), Cow::Borrowed(_)));
    }
}
