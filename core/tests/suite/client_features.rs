//! Server-to-client requests made from a tool handler: sampling (`ctx.sample`), elicitation
//! (`ctx.elicit`, form and URL mode) and roots (`ctx.list_roots`), answered by the client's
//! handlers; without a handler (or in a revision without the feature) the server-side call
//! fails with a clear error.

use crate::common;

use common::*;
use hypermcp::{
    CallToolResult, ClientOptions, CreateMessageParams, CreateMessageResult, ElicitAction, ElicitParams, ElicitResult,
    Error, ProtocolVersion, Role, Root, SamplingMessage, Server, Tool,
};
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};

/// The tool's answer: the text, or the failed server-to-client call as an `isError` result
/// carrying its code (the tests assert the code; plain `?` also gives an `isError` result, see
/// `question_mark_on_a_failed_client_request_is_a_tool_error`).
fn report(r: Result<String, Error>) -> CallToolResult {
    match r {
        Ok(text) => CallToolResult::text(text),
        Err(e) => CallToolResult::error(format!("code {}: {e}", e.code())),
    }
}

fn server() -> Server {
    Server::new("client-features", "1.0.0")
        .tool(Tool::new("ask_model_plain"), |_args, ctx| async move {
            let params = CreateMessageParams { max_tokens: 5, ..Default::default() };
            let answer = ctx.sample(params).await?;
            Ok::<_, Error>(CallToolResult::text(answer.model))
        })
        .tool(Tool::new("ask_model"), |_args, ctx| async move {
            report(
                async {
                    let params = CreateMessageParams {
                        messages: vec![SamplingMessage {
                            role: Role::User,
                            content: json!({"type": "text", "text": "What is 2 + 2?"}),
                        }],
                        system_prompt: Some("Be brief.".into()),
                        max_tokens: 50,
                        ..Default::default()
                    };
                    let answer = ctx.sample(params).await?;
                    Ok(format!("{} said {}", answer.model, answer.content["text"].as_str().unwrap_or("?")))
                }
                .await,
            )
        })
        .tool(Tool::new("ask_user"), |_args, ctx| async move {
            report(
                async {
                    let schema = json!({
                        "type": "object",
                        "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
                        "required": ["name"]
                    });
                    let r = ctx.elicit(ElicitParams::form("Who are you?", schema)).await?;
                    Ok(format!("{:?} {}", r.action, Value::from(r.content.unwrap_or_default())))
                }
                .await,
            )
        })
        .tool(Tool::new("ask_url"), |_args, ctx| async move {
            report(
                async {
                    let r = ctx
                        .elicit(ElicitParams::url("Please sign in", "https://example.com/login", "elicit-1"))
                        .await?;
                    ctx.elicitation_complete("elicit-1");
                    Ok(format!("{:?}", r.action))
                }
                .await,
            )
        })
        .tool(Tool::new("roots"), |_args, ctx| async move {
            report(
                async {
                    let roots = ctx.list_roots().await?;
                    let uris: Vec<String> = roots.into_iter().map(|r| r.uri).collect();
                    Ok(uris.join(","))
                }
                .await,
            )
        })
}

type Captured<T> = Arc<Mutex<Vec<T>>>;

fn full_client(rev: ProtocolVersion) -> (ClientOptions, Captured<CreateMessageParams>, Captured<ElicitParams>) {
    let sampled: Captured<CreateMessageParams> = Default::default();
    let elicited: Captured<ElicitParams> = Default::default();
    let (s, e) = (sampled.clone(), elicited.clone());
    let options = options_for(rev)
        .on_sampling(move |p| {
            s.lock().unwrap().push(p);
            async move {
                Ok(CreateMessageResult {
                    role: Role::Assistant,
                    content: json!({"type": "text", "text": "4"}),
                    model: "test-model".into(),
                    stop_reason: Some("endTurn".into()),
                    meta: None,
                })
            }
        })
        .on_elicitation(true, move |p| {
            e.lock().unwrap().push(p.clone());
            async move {
                Ok(match p {
                    ElicitParams::Form { .. } => ElicitResult {
                        action: ElicitAction::Accept,
                        content: Some(Map::from_iter([("name".to_string(), json!("Ada")), ("age".into(), json!(36))])),
                        meta: None,
                    },
                    ElicitParams::Url { .. } => {
                        ElicitResult { action: ElicitAction::Accept, content: None, meta: None }
                    }
                })
            }
        })
        .on_roots(|| async move {
            Ok(vec![
                Root { uri: "file:///work/project".into(), name: Some("project".into()), meta: None },
                Root { uri: "file:///tmp".into(), name: None, meta: None },
            ])
        });
    (options, sampled, elicited)
}

#[tokio::test]
async fn sampling_is_answered_by_the_client() {
    bounded(async {
        for rev in ProtocolVersion::LEGACY {
            let (options, sampled, _) = full_client(rev);
            let t = connect_tapped(&server(), options).await;
            let r = t.client.call_tool("ask_model", json!({})).await.expect("call");
            assert_eq!(r.content[0].as_text(), Some("test-model said 4"), "{rev}: {r:?}");
            let seen = sampled.lock().unwrap().clone();
            assert_eq!(seen.len(), 1);
            assert_eq!(seen[0].max_tokens, 50);
            assert_eq!(seen[0].system_prompt.as_deref(), Some("Be brief."));
            assert_eq!(seen[0].messages[0].content["text"], "What is 2 + 2?");
            let req = &t.tap.with_method("sampling/createMessage")[0];
            assert_eq!(req.dir, Dir::ToClient);
            t.tap.assert_all_valid(rev);
        }
    })
    .await;
}

#[tokio::test]
async fn form_elicitation_is_answered_by_the_client() {
    bounded(async {
        for rev in [ProtocolVersion::V2025_06_18, ProtocolVersion::V2025_11_25] {
            let (options, _, elicited) = full_client(rev);
            let t = connect_tapped(&server(), options).await;
            let r = t.client.call_tool("ask_user", json!({})).await.expect("call");
            assert_eq!(r.content[0].as_text(), Some(r#"Accept {"age":36,"name":"Ada"}"#), "{rev}: {r:?}");
            let seen = elicited.lock().unwrap().clone();
            match &seen[..] {
                [ElicitParams::Form { message, requested_schema, .. }] => {
                    assert_eq!(message, "Who are you?");
                    assert_eq!(requested_schema["required"], json!(["name"]));
                }
                other => panic!("{rev}: expected one form elicitation, got {other:?}"),
            }
            t.tap.assert_all_valid(rev);
        }
    })
    .await;
}

#[tokio::test]
async fn url_elicitation_is_answered_and_completed() {
    bounded(async {
        let rev = ProtocolVersion::V2025_11_25;
        let (options, _, elicited) = full_client(rev);
        let (options, mut notes) = notification_channel(options);
        let t = connect_tapped(&server(), options).await;
        let r = t.client.call_tool("ask_url", json!({})).await.expect("call");
        assert_eq!(r.content[0].as_text(), Some("Accept"), "{r:?}");
        match &elicited.lock().unwrap()[..] {
            [ElicitParams::Url { url, elicitation_id, message, mode, .. }] => {
                assert_eq!(url, "https://example.com/login");
                assert_eq!(elicitation_id, "elicit-1");
                assert_eq!(message, "Please sign in");
                assert_eq!(mode, "url");
            }
            other => panic!("expected one URL elicitation, got {other:?}"),
        }
        let done = next_notification(&mut notes, "notifications/elicitation/complete").await;
        assert_eq!(done, json!({"elicitationId": "elicit-1"}));
        t.assert_all_valid();
    })
    .await;
}

#[tokio::test]
async fn roots_are_listed_by_the_client() {
    bounded(async {
        let (options, _, _) = full_client(ProtocolVersion::V2024_11_05);
        let t = connect_tapped(&server(), options).await;
        let r = t.client.call_tool("roots", json!({})).await.expect("call");
        assert_eq!(r.content[0].as_text(), Some("file:///work/project,file:///tmp"));
        let req = &t.tap.with_method("roots/list")[0];
        let answer = t.tap.response_to(Dir::ToClient, &req.json["id"]).expect("answered");
        assert_eq!(answer.json["result"]["roots"][0], json!({"uri": "file:///work/project", "name": "project"}));
        t.assert_all_valid();
    })
    .await;
}

/// A failure of the server-side call, as the tool reports it.
async fn failure_of(t: &Tapped, tool: &str) -> String {
    let r = t.client.call_tool(tool, json!({})).await.expect("a tool result");
    assert!(r.failed(), "{tool} should fail: {r:?}");
    r.content[0].as_text().unwrap_or_default().to_string()
}

#[tokio::test]
async fn missing_client_handlers_fail_clearly() {
    bounded(async {
        // A client with no handler at all declares no capability: nothing is sent.
        let t = connect_tapped(&server(), options_for(ProtocolVersion::V2025_11_25)).await;
        assert_eq!(
            failure_of(&t, "ask_model").await,
            "code -32601: the client does not support sampling (code -32601)"
        );
        assert!(failure_of(&t, "ask_user").await.contains("does not support form elicitation"));
        assert!(failure_of(&t, "ask_url").await.contains("does not support URL-mode elicitation"));
        assert!(failure_of(&t, "roots").await.contains("does not support roots"));
        for m in ["sampling/createMessage", "elicitation/create", "roots/list"] {
            assert!(t.tap.with_method(m).is_empty(), "{m} was sent: {}", t.tap.dump());
        }
        t.assert_all_valid();

        // Form elicitation only: URL mode is refused.
        let options = options_for(ProtocolVersion::V2025_11_25).on_elicitation(false, |_p| async move {
            Ok(ElicitResult { action: ElicitAction::Decline, content: None, meta: None })
        });
        let t = connect_tapped(&server(), options).await;
        assert!(failure_of(&t, "ask_url").await.contains("does not support URL-mode elicitation"));
        let r = t.client.call_tool("ask_user", json!({})).await.expect("call");
        assert_eq!(r.content[0].as_text(), Some("Decline {}"));
        t.assert_all_valid();

        // A revision without elicitation, even with a handler.
        let (options, _, elicited) = full_client(ProtocolVersion::V2025_03_26);
        let t = connect_tapped(&server(), options).await;
        let why = failure_of(&t, "ask_user").await;
        assert!(why.contains("elicitation") && why.contains("2025-03-26"), "{why}");
        assert!(elicited.lock().unwrap().is_empty());
        t.assert_all_valid();
    })
    .await;
}

#[tokio::test]
async fn question_mark_on_a_failed_client_request_is_a_tool_error() {
    bounded(async {
        // The client declares no sampling: `ctx.sample(..).await?` fails inside the tool, and
        // the tool call itself still succeeds at the protocol level with `isError: true`.
        let t = connect_tapped(&server(), options_for(ProtocolVersion::V2025_11_25)).await;
        let r = t.client.call_tool("ask_model_plain", json!({})).await.expect("a tool result, not a JSON-RPC error");
        assert!(r.failed(), "{r:?}");
        assert!(r.content[0].as_text().unwrap_or_default().contains("does not support sampling"), "{r:?}");
        t.assert_all_valid();
    })
    .await;
}
