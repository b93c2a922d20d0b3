//! Resources: static text and blob reads, template reads with variables, -32002 for unknown
//! URIs, and subscriptions delivering `notifications/resources/updated`.

use crate::common;

use common::*;
use hypermcp::{ProtocolVersion, ReadResourceResult, Resource, ResourceContents, ResourceTemplate, Server};
use serde_json::json;

const PNG: &[u8] = &[0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0x10];

fn server() -> Server {
    Server::new("resources-server", "1.0.0")
        .resource(
            Resource::new("mem://greeting", "greeting").mime_type("text/plain").description("A greeting"),
            |req, _ctx| async move { Ok(ReadResourceResult::text(req.uri, "Hello, resources!", Some("text/plain"))) },
        )
        .resource(Resource::new("mem://logo.png", "logo").mime_type("image/png"), |req, _ctx| async move {
            Ok(ReadResourceResult::blob(req.uri, PNG, "image/png"))
        })
        .resource(Resource::new("mem://counter", "counter"), |req, _ctx| async move {
            Ok(ReadResourceResult::text(req.uri, "1", None))
        })
        .resource_template(
            ResourceTemplate::new("users://{id}/posts/{post}", "user-post").mime_type("application/json"),
            |req, _ctx| async move {
                assert!(req.variables.len() == 2, "exactly the template's variables: {:?}", req.variables);
                let body = json!({"user": req.variables["id"], "post": req.variables["post"]});
                Ok(ReadResourceResult::text(req.uri, body.to_string(), Some("application/json")))
            },
        )
}

#[tokio::test]
async fn reads_static_text_and_blob_resources() {
    bounded(async {
        let t = connect_tapped(&server(), options_for(ProtocolVersion::V2025_11_25)).await;
        let listed = t.client.list_resources().await.expect("resources/list");
        let uris: Vec<&str> = listed.iter().map(|r| r.uri.as_str()).collect();
        assert_eq!(uris, ["mem://greeting", "mem://logo.png", "mem://counter"]);
        assert_eq!(listed[0].mime_type.as_deref(), Some("text/plain"));

        let text = t.client.read_resource("mem://greeting").await.expect("read text");
        assert_eq!(text.contents.len(), 1);
        match &text.contents[0] {
            ResourceContents::Text { uri, mime_type, text, .. } => {
                assert_eq!(uri, "mem://greeting");
                assert_eq!(mime_type.as_deref(), Some("text/plain"));
                assert_eq!(text, "Hello, resources!");
            }
            other => panic!("expected text contents, got {other:?}"),
        }

        let blob = t.client.read_resource("mem://logo.png").await.expect("read blob");
        match &blob.contents[0] {
            contents @ ResourceContents::Blob { uri, mime_type, blob, .. } => {
                assert_eq!(uri, "mem://logo.png");
                assert_eq!(mime_type.as_deref(), Some("image/png"));
                assert_eq!(contents.decode_blob().as_deref(), Some(PNG), "blob round-trips: {blob}");
            }
            other => panic!("expected blob contents, got {other:?}"),
        }
        t.assert_all_valid();
    })
    .await;
}

#[tokio::test]
async fn reads_through_a_template_with_variables() {
    bounded(async {
        let t = connect_tapped(&server(), options_for(ProtocolVersion::V2025_06_18)).await;
        let templates = t.client.list_resource_templates().await.expect("templates/list");
        assert_eq!(templates.len(), 1);
        assert_eq!(templates[0].uri_template, "users://{id}/posts/{post}");

        let r = t.client.read_resource("users://42/posts/hello-world").await.expect("template read");
        match &r.contents[0] {
            ResourceContents::Text { uri, text, .. } => {
                assert_eq!(uri, "users://42/posts/hello-world");
                let body: serde_json::Value = serde_json::from_str(text).unwrap();
                assert_eq!(body, json!({"user": "42", "post": "hello-world"}));
            }
            other => panic!("expected text contents, got {other:?}"),
        }
        t.assert_all_valid();
    })
    .await;
}

#[tokio::test]
async fn unknown_uri_is_resource_not_found() {
    bounded(async {
        let t = connect_tapped(&server(), options_for(ProtocolVersion::V2025_11_25)).await;
        for uri in ["mem://nothing-here", "users://42"] {
            let e = t.client.read_resource(uri).await.expect_err("not found");
            let rpc = e.rpc().unwrap_or_else(|| panic!("not an RPC error: {e:?}"));
            assert_eq!(rpc.code, -32002, "{e}");
            assert_eq!(rpc.data, Some(json!({"uri": uri})));
        }
        // Subscribing to an unknown resource is refused the same way.
        let e = t.client.subscribe_resource("mem://nothing-here").await.expect_err("not found");
        assert_eq!(e.code(), -32002);
        t.assert_all_valid();
    })
    .await;
}

#[tokio::test]
async fn subscriptions_deliver_updates() {
    bounded(async {
        let server = server();
        let (options, mut rx) = notification_channel(options_for(ProtocolVersion::V2025_11_25));
        let t = connect_tapped(&server, options).await;
        assert_eq!(t.client.server().capabilities.resources.as_ref().and_then(|r| r.subscribe), Some(true));

        t.client.subscribe_resource("mem://counter").await.expect("subscribe");
        // Updates of a resource nobody subscribed to are not sent; the subscribed one is.
        server.notify_resource_updated("mem://greeting");
        server.notify_resource_updated("mem://counter");
        let p = next_notification(&mut rx, "notifications/resources/updated").await;
        assert_eq!(p, json!({"uri": "mem://counter"}));

        // After unsubscribing, nothing more. Changes are handled in order, so the update of
        // a second subscription proves no update of the first was sent before it.
        t.client.unsubscribe_resource("mem://counter").await.expect("unsubscribe");
        t.client.subscribe_resource("mem://logo.png").await.expect("subscribe");
        server.notify_resource_updated("mem://counter");
        server.notify_resource_updated("mem://logo.png");
        let p = next_notification(&mut rx, "notifications/resources/updated").await;
        assert_eq!(p, json!({"uri": "mem://logo.png"}));

        let updates = t.tap.with_method("notifications/resources/updated");
        assert_eq!(updates.len(), 2, "{}", t.tap.dump());
        assert!(updates.iter().all(|m| m.dir == Dir::ToClient));
        assert!(rx.try_recv().is_err(), "no other notification");
        t.assert_all_valid();
    })
    .await;
}
