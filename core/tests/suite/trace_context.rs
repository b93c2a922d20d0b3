//! W3C trace context in `_meta`: a handler reads what the caller sent
//! (`Context::trace_context`), a client sends keys of its own (`CallOptions::meta`), and a
//! server that calls another carries the trace on, in both eras.

use crate::common;

use common::*;
use hypermcp::engine::ClientMode;
use hypermcp::{CallOptions, CallToolResult, Client, ClientOptions, Server, Tool};
use serde_json::{json, Value};

const TP: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

/// A server whose `whoami` tool answers with the trace context it was called under.
fn leaf() -> Server {
    Server::new("leaf", "1.0.0").tool(Tool::new("whoami"), |_args, ctx| async move {
        let tc = ctx.trace_context().map(|t| t.to_host_json()).unwrap_or(Value::Null);
        CallToolResult::structured(json!({ "trace": tc }))
    })
}

fn trace_of(r: &CallToolResult) -> Value {
    r.structured_content.as_ref().expect("structured")["trace"].clone()
}

fn with_meta(meta: Value) -> CallOptions {
    CallOptions { meta: meta.as_object().cloned(), ..Default::default() }
}

#[tokio::test]
async fn a_handler_reads_the_callers_trace_context_in_both_eras() {
    bounded(async {
        for mode in [ClientMode::Legacy, ClientMode::Modern] {
            let t = connect_tapped(&leaf(), ClientOptions::default().mode(mode)).await;
            let meta = json!({"traceparent": TP, "tracestate": "rojo=00f067aa0ba902b7", "baggage": "user=alice%20b"});
            let r = t.client.call_tool_with("whoami", json!({}), with_meta(meta)).await.unwrap();
            let tc = trace_of(&r);
            assert_eq!(tc["traceparent"], TP, "{mode:?}");
            assert_eq!(tc["traceId"], "4bf92f3577b34da6a3ce929d0e0e4736");
            assert_eq!(tc["parentId"], "00f067aa0ba902b7");
            assert_eq!(tc["sampled"], true);
            assert_eq!(tc["tracestate"], "rojo=00f067aa0ba902b7");
            assert_eq!(tc["baggageItems"], json!({"user": "alice b"}));
            // None sent, or one that is not valid: none read (and the call goes on).
            let r = t.client.call_tool("whoami", json!({})).await.unwrap();
            assert_eq!(trace_of(&r), Value::Null);
            let bad = with_meta(json!({"traceparent": "00-zz-00f067aa0ba902b7-01"}));
            let r = t.client.call_tool_with("whoami", json!({}), bad).await.unwrap();
            assert_eq!(trace_of(&r), Value::Null);
            // The keys sent are on the wire as the spec shows them (every message valid).
            assert!(t.assert_all_valid() > 0, "{mode:?}");
            let _ = t.client.close().await;
        }
    })
    .await;
}

#[tokio::test]
async fn keys_the_params_have_are_kept() {
    bounded(async {
        let t = connect_tapped(&leaf(), ClientOptions::default()).await;
        let params = json!({"name": "whoami", "arguments": {}, "_meta": {"traceparent": TP}});
        let other = "00-11111111111111111111111111111111-2222222222222222-00";
        let v = t.client.request("tools/call", Some(params), with_meta(json!({"traceparent": other}))).await.unwrap();
        assert_eq!(v["structuredContent"]["trace"]["traceparent"], TP);
        // A meta for params that are not an object is a clear error, not a panic.
        let err = t.client.request("tools/call", Some(json!([1])), with_meta(json!({"traceparent": TP}))).await;
        assert!(err.unwrap_err().to_string().contains("object"));
        let _ = t.client.close().await;
    })
    .await;
}

#[tokio::test]
async fn a_server_that_calls_another_carries_the_trace_on() {
    bounded(async {
        let downstream = Client::in_memory(&leaf(), ClientOptions::default()).await.unwrap();
        let proxy = Server::new("proxy", "1.0.0").tool(Tool::new("relay"), move |_args, ctx| {
            let downstream = downstream.clone();
            async move {
                let span_id = "b7ad6b7169203331";
                let opts = CallOptions {
                    meta: ctx.trace_context().and_then(|t| t.child(span_id)).map(|t| t.to_meta()),
                    ..Default::default()
                };
                downstream.call_tool_with("whoami", json!({}), opts).await
            }
        });
        for mode in [ClientMode::Legacy, ClientMode::Modern] {
            let t = connect_tapped(&proxy, ClientOptions::default().mode(mode)).await;
            let meta = json!({"traceparent": TP, "baggage": "tenant=acme"});
            let r = t.client.call_tool_with("relay", json!({}), with_meta(meta)).await.unwrap();
            let tc = trace_of(&r);
            // The same trace, the proxy's span as the parent, the baggage passed on.
            assert_eq!(tc["traceId"], "4bf92f3577b34da6a3ce929d0e0e4736", "{mode:?}");
            assert_eq!(tc["parentId"], "b7ad6b7169203331");
            assert_eq!(tc["baggageItems"], json!({"tenant": "acme"}));
            let _ = t.client.close().await;
        }
    })
    .await;
}
