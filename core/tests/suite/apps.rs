//! MCP Apps (`io.modelcontextprotocol/ui`): a server serves a view (`ui://`,
//! `text/html;profile=mcp-app`, its `_meta.ui` declarations) and links it from a tool
//! (`_meta.ui.resourceUri`, visibility); the server declares the extension; a client reads
//! the view with the CSP and `allow` list to render it with, in both eras.

use crate::common;

use common::*;
use hypermcp::{ClientMode, ClientOptions, Server, Tool, UiCsp, UiResourceMeta, UiVisibility, APP_MIME, UI_EXTENSION};
use serde_json::json;

const HTML: &str = "<!doctype html><html><head><title>Forecast</title></head><body>…</body></html>";

fn server() -> Server {
    let meta = UiResourceMeta {
        csp: Some(UiCsp { connect_domains: Some(vec!["https://api.weather.example".into()]), ..Default::default() }),
        permissions: Some(serde_json::Map::from_iter([("geolocation".to_string(), json!({}))])),
        prefers_border: Some(true),
        ..Default::default()
    };
    Server::new("apps", "1.0.0")
        .app("ui://weather/forecast", HTML, meta)
        .tool(Tool::new("forecast").ui("ui://weather/forecast"), |_args, _ctx| async move { "Sunny, 18 °C" })
        .tool(
            Tool::new("refresh").ui("ui://weather/forecast").ui_visibility(&[UiVisibility::App]),
            |_args, _ctx| async move { "refreshed" },
        )
}

#[tokio::test]
async fn apps_are_served_linked_and_read_in_both_eras() {
    bounded(async {
        for mode in [ClientMode::Legacy, ClientMode::Modern] {
            let ui = json!({"mimeTypes": [APP_MIME]});
            let t = connect_tapped(&server(), ClientOptions::default().mode(mode).extension(UI_EXTENSION, ui)).await;
            let c = &t.client;
            let ext = c.server().capabilities.extensions.clone().expect("extensions");
            assert_eq!(ext[UI_EXTENSION], json!({}), "{mode:?}: the server declares MCP Apps");
            let tools = c.list_tools().await.unwrap();
            let forecast = tools.iter().find(|t| t.name == "forecast").unwrap();
            assert_eq!(forecast.ui_resource_uri(), Some("ui://weather/forecast"));
            let refresh = tools.iter().find(|t| t.name == "refresh").unwrap();
            assert_eq!(refresh.meta.as_ref().unwrap()["ui"]["visibility"], json!(["app"]));
            // Listed as an app, with its declarations.
            let resources = c.list_resources().await.unwrap();
            let listed = resources.iter().find(|r| r.uri == "ui://weather/forecast").expect("listed");
            assert_eq!(listed.mime_type.as_deref(), Some(APP_MIME));
            assert_eq!(listed.meta.as_ref().unwrap()["ui"]["prefersBorder"], json!(true));
            // Read, with what to render it with.
            let app = c.read_app("ui://weather/forecast").await.unwrap();
            assert_eq!(app.html, HTML);
            assert_eq!(app.meta.prefers_border, Some(true));
            assert!(app.csp.contains("connect-src 'self' https://api.weather.example"), "{}", app.csp);
            assert!(app.csp.starts_with("default-src 'none'"), "{}", app.csp);
            assert_eq!(app.allow, "geolocation");
            // The tool's text stays meaningful for hosts without apps.
            let r = c.call_tool("forecast", json!({})).await.unwrap();
            assert_eq!(r.content[0].as_text(), Some("Sunny, 18 °C"));
            assert!(t.assert_all_valid() > 0, "{mode:?}");
            let _ = t.client.close().await;
        }
    })
    .await;
}

#[test]
fn app_definitions_are_checked() {
    let s = Server::new("apps", "1.0.0");
    let e = s.add_app("https://example.com/app", HTML, UiResourceMeta::default()).unwrap_err();
    assert!(e.to_string().contains("ui://"), "{e}");
    let bad = UiResourceMeta {
        csp: Some(UiCsp { resource_domains: Some(vec!["'unsafe-eval'".into()]), ..Default::default() }),
        ..Default::default()
    };
    let e = s.add_app("ui://x/y", HTML, bad).unwrap_err();
    assert!(e.to_string().contains("not an origin"), "{e}");
    // Without declarations, the restrictive default.
    assert!(hypermcp::csp_header(None).contains("connect-src 'none'"));
}
