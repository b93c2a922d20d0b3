//! MCP Apps (`io.modelcontextprotocol/ui`): a tool links an interactive view (an HTML
//! resource under `ui://`, `text/html;profile=mcp-app`) through `_meta.ui` of its definition;
//! the view's resource says which origins it needs (`_meta.ui.csp`), which browser features
//! (`permissions`), its origin (`domain`) and whether it wants a border. What a host needs to
//! render one safely is here too: the Content-Security-Policy built from those declarations
//! (the restrictive default when there are none) and the iframe `allow` list.

use super::tools::Tool;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// The extension's identifier.
pub const UI_EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The MIME type of an app's HTML.
pub const APP_MIME: &str = "text/html;profile=mcp-app";
/// The URI scheme of app resources.
pub const APP_SCHEME: &str = "ui://";
/// The deprecated flat key of a tool's view (`_meta["ui/resourceUri"]`), still read.
pub const DEPRECATED_RESOURCE_URI: &str = "ui/resourceUri";

/// The origins an app needs (each list adds to the restrictive default).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UiCsp {
    /// Origins for fetch, XHR and WebSocket (`connect-src`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_domains: Option<Vec<String>>,
    /// Origins for scripts, styles, images, fonts and media.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_domains: Option<Vec<String>>,
    /// Origins of nested iframes (`frame-src`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_domains: Option<Vec<String>>,
    /// Allowed base URIs (`base-uri`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_uri_domains: Option<Vec<String>>,
}

/// What an app's resource declares (`_meta.ui` of the resource and of its contents).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UiResourceMeta {
    /// The origins it needs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csp: Option<UiCsp>,
    /// Browser features it asks for (`camera`, `microphone`, `geolocation`,
    /// `clipboardWrite`, each `{}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<Map<String, Value>>,
    /// A dedicated origin for the view (host-specific format).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Whether the host should draw a border and background.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefers_border: Option<bool>,
}

/// Whether `origin` may go into a CSP source list: a host, `scheme://host[:port]` or a
/// wildcard host, nothing that could end the directive or add a keyword.
fn safe_source(origin: &str) -> bool {
    !origin.is_empty()
        && origin.len() <= 253
        && origin.bytes().all(|b| b.is_ascii_alphanumeric() || b".:/*-_[]".contains(&b))
}

/// Checks an app's declarations: every CSP entry an origin, known permissions.
pub fn check_meta(meta: &UiResourceMeta) -> Result<(), String> {
    if let Some(csp) = &meta.csp {
        for list in [&csp.connect_domains, &csp.resource_domains, &csp.frame_domains, &csp.base_uri_domains] {
            for d in list.iter().flatten() {
                if !safe_source(d) {
                    return Err(format!("csp: {d:?} is not an origin (https://host[:port], or a host)"));
                }
            }
        }
    }
    for k in meta.permissions.iter().flat_map(|p| p.keys()) {
        if !["camera", "microphone", "geolocation", "clipboardWrite"].contains(&k.as_str()) {
            return Err(format!("permissions: unknown {k:?} (camera, microphone, geolocation, clipboardWrite)"));
        }
    }
    Ok(())
}

/// The Content-Security-Policy a host enforces for an app: the specification's restrictive
/// default when the app declares no origins, else that policy with the declared origins
/// (entries that are not origins are dropped: a host never loosens it beyond them).
pub fn csp_header(meta: Option<&UiResourceMeta>) -> String {
    let Some(csp) = meta.and_then(|m| m.csp.as_ref()) else {
        // The specification's default, plus what its sandbox section and the draft add
        // (`default-src` does not cover `base-uri`): stricter is allowed, looser never.
        return "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; \
                img-src 'self' data:; media-src 'self' data:; connect-src 'none'; object-src 'none'; base-uri 'self'"
            .to_string();
    };
    let list = |l: &Option<Vec<String>>| -> String {
        l.iter().flatten().filter(|d| safe_source(d)).map(String::as_str).collect::<Vec<_>>().join(" ")
    };
    let with = |base: &str, extra: String| if extra.is_empty() { base.to_string() } else { format!("{base} {extra}") };
    let res = list(&csp.resource_domains);
    let frames = list(&csp.frame_domains);
    let base = list(&csp.base_uri_domains);
    [
        "default-src 'none'".to_string(),
        with("script-src 'self' 'unsafe-inline'", res.clone()),
        with("style-src 'self' 'unsafe-inline'", res.clone()),
        with("connect-src 'self'", list(&csp.connect_domains)),
        with("img-src 'self' data:", res.clone()),
        with("font-src 'self'", res.clone()),
        with("media-src 'self' data:", res),
        format!("frame-src {}", if frames.is_empty() { "'none'" } else { &frames }),
        "object-src 'none'".to_string(),
        format!("base-uri {}", if base.is_empty() { "'self'" } else { &base }),
    ]
    .join("; ")
}

/// The iframe `allow` attribute for an app's permissions (`camera microphone ...`).
pub fn allow_attribute(meta: Option<&UiResourceMeta>) -> String {
    let Some(p) = meta.and_then(|m| m.permissions.as_ref()) else { return String::new() };
    [
        ("camera", "camera"),
        ("microphone", "microphone"),
        ("geolocation", "geolocation"),
        ("clipboardWrite", "clipboard-write"),
    ]
    .iter()
    .filter(|(k, _)| p.contains_key(*k))
    .map(|(_, v)| *v)
    .collect::<Vec<_>>()
    .join(" ")
}

/// Who may call a tool with a view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UiVisibility {
    /// The model (the tool is in the agent's list).
    Model,
    /// The view itself (`tools/call` from the app).
    App,
}

impl Tool {
    /// Links the view at `resource_uri` (`ui://...`) to this tool (`_meta.ui.resourceUri`):
    /// hosts that render MCP Apps show the tool's results in it. The tool still returns
    /// meaningful `content`, which other hosts show.
    pub fn ui(mut self, resource_uri: impl Into<String>) -> Self {
        let meta = self.meta.get_or_insert_with(Map::new);
        let ui = meta.entry("ui").or_insert_with(|| json!({}));
        if let Value::Object(ui) = ui {
            ui.insert("resourceUri".into(), Value::String(resource_uri.into()));
        }
        self
    }

    /// Who may call it (`_meta.ui.visibility`; default both): `[App]` hides it from the model
    /// (a button of the view, say).
    pub fn ui_visibility(mut self, who: &[UiVisibility]) -> Self {
        let meta = self.meta.get_or_insert_with(Map::new);
        let ui = meta.entry("ui").or_insert_with(|| json!({}));
        if let Value::Object(ui) = ui {
            ui.insert("visibility".into(), serde_json::to_value(who).unwrap_or_default());
        }
        self
    }

    /// The URI of the view linked to this tool (`_meta.ui.resourceUri`, or the deprecated
    /// flat `_meta["ui/resourceUri"]`).
    pub fn ui_resource_uri(&self) -> Option<&str> {
        let meta = self.meta.as_ref()?;
        meta.get("ui")
            .and_then(|u| u.get("resourceUri"))
            .or_else(|| meta.get(DEPRECATED_RESOURCE_URI))
            .and_then(Value::as_str)
    }
}

/// An app's HTML as a client reads it (`resources/read` of a `ui://` resource).
#[derive(Clone, Debug, PartialEq)]
pub struct AppView {
    /// Its URI.
    pub uri: String,
    /// The HTML document.
    pub html: String,
    /// What it declares (`_meta.ui` of the contents, over the listing's).
    pub meta: UiResourceMeta,
    /// The Content-Security-Policy to enforce ([`csp_header`]).
    pub csp: String,
    /// The iframe `allow` attribute ([`allow_attribute`]).
    pub allow: String,
}

/// Reads an app out of a `resources/read` result of `uri`: the scheme must be `ui://` and
/// the contents `text/html;profile=mcp-app`, as `text` or base64 `blob`. `listed` is the
/// `_meta.ui` of the resource's `resources/list` entry, if known (the contents' wins).
pub fn read_app(uri: &str, result: &Value, listed: Option<&Value>) -> Result<AppView, String> {
    if !uri.starts_with(APP_SCHEME) {
        return Err(format!("{uri} is not an app: app resources are ui:// URIs"));
    }
    let parts = result.get("contents").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let part =
        parts.iter().find(|c| c["uri"].as_str() == Some(uri)).or(parts.first()).ok_or(format!("{uri}: no contents"))?;
    let mime = part.get("mimeType").and_then(Value::as_str).unwrap_or("");
    if mime != APP_MIME {
        return Err(format!("{uri}: its MIME type is {mime:?}, an app's is {APP_MIME:?}"));
    }
    let html = match (part.get("text").and_then(Value::as_str), part.get("blob").and_then(Value::as_str)) {
        (Some(t), _) => t.to_string(),
        (None, Some(b)) => crate::util::base64_decode(b)
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .ok_or(format!("{uri}: its blob is not base64 UTF-8 HTML"))?,
        _ => return Err(format!("{uri}: no text or blob contents")),
    };
    let mut merged = listed.and_then(Value::as_object).cloned().unwrap_or_default();
    if let Some(Value::Object(own)) = part.get("_meta").and_then(|m| m.get("ui")) {
        merged.extend(own.clone());
    }
    let meta: UiResourceMeta =
        serde_json::from_value(Value::Object(merged)).map_err(|e| format!("{uri}: invalid _meta.ui: {e}"))?;
    Ok(AppView { uri: uri.to_string(), csp: csp_header(Some(&meta)), allow: allow_attribute(Some(&meta)), html, meta })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_csp_is_restrictive_unless_origins_are_declared() {
        let default = csp_header(None);
        assert!(default.contains("default-src 'none'") && default.contains("connect-src 'none'"), "{default}");
        let meta = UiResourceMeta {
            csp: Some(UiCsp {
                connect_domains: Some(vec!["https://api.example.com".into(), "x; script-src *".into()]),
                resource_domains: Some(vec!["https://cdn.example.com".into()]),
                ..Default::default()
            }),
            ..Default::default()
        };
        let csp = csp_header(Some(&meta));
        assert!(csp.contains("connect-src 'self' https://api.example.com;"), "{csp}");
        assert!(csp.contains("script-src 'self' 'unsafe-inline' https://cdn.example.com;"), "{csp}");
        assert!(csp.contains("frame-src 'none'") && !csp.contains("script-src *"), "{csp}");
        assert!(check_meta(&meta).unwrap_err().contains("not an origin"));
    }

    #[test]
    fn tools_link_views_and_clients_read_them() {
        let t =
            Tool::new("forecast").ui("ui://weather/forecast").ui_visibility(&[UiVisibility::Model, UiVisibility::App]);
        assert_eq!(t.ui_resource_uri(), Some("ui://weather/forecast"));
        assert_eq!(t.meta.as_ref().unwrap()["ui"]["visibility"], json!(["model", "app"]));
        let mut old = Tool::new("old");
        old.meta = Some(Map::from_iter([(DEPRECATED_RESOURCE_URI.to_string(), json!("ui://x/y"))]));
        assert_eq!(old.ui_resource_uri(), Some("ui://x/y"));
        let result = json!({"contents": [{"uri": "ui://w/f", "mimeType": APP_MIME, "text": "<!doctype html>",
            "_meta": {"ui": {"prefersBorder": true, "permissions": {"camera": {}}}}}]});
        let app = read_app("ui://w/f", &result, Some(&json!({"prefersBorder": false, "domain": "a.example"}))).unwrap();
        assert_eq!(app.html, "<!doctype html>");
        assert_eq!((app.meta.prefers_border, app.meta.domain.as_deref()), (Some(true), Some("a.example")));
        assert_eq!(app.allow, "camera");
        let wrong = json!({"contents": [{"uri": "ui://w/f", "mimeType": "text/html", "text": "x"}]});
        assert!(read_app("ui://w/f", &wrong, None).unwrap_err().contains("MIME"));
        assert!(read_app("https://w/f", &result, None).unwrap_err().contains("ui://"));
    }
}
