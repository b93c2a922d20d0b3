//! Prompts: listing, `prompts/get` with arguments, and -32602 for a missing required
//! argument or an unknown prompt.

use crate::common;

use common::*;
use hypermcp::{GetPromptResult, Prompt, PromptArgument, PromptMessage, ProtocolVersion, Role, Server};
use std::collections::HashMap;

fn server() -> Server {
    Server::new("prompts-server", "1.0.0").prompt(
        Prompt::new("greet")
            .description("Greets someone")
            .argument(PromptArgument::new("name", true).description("Who to greet"))
            .argument(PromptArgument::new("style", false)),
        |args, _ctx| async move {
            let name = args.get("name").cloned().unwrap_or_default();
            let style = args.get("style").map(String::as_str).unwrap_or("plain");
            Ok(GetPromptResult {
                description: Some(format!("{style} greeting")),
                ..GetPromptResult::messages(vec![
                    PromptMessage::user(format!("Please greet {name}.")),
                    PromptMessage::assistant(format!("Hello, {name}!")),
                ])
            })
        },
    )
}

fn args(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

#[tokio::test]
async fn get_with_arguments() {
    bounded(async {
        let t = connect_tapped(&server(), options_for(ProtocolVersion::V2025_11_25)).await;
        let prompts = t.client.list_prompts().await.expect("prompts/list");
        assert_eq!(prompts.len(), 1);
        let declared: Vec<(&str, Option<bool>)> =
            prompts[0].arguments.iter().flatten().map(|a| (a.name.as_str(), a.required)).collect();
        assert_eq!(declared, [("name", Some(true)), ("style", Some(false))]);

        let r = t.client.get_prompt("greet", args(&[("name", "Ada"), ("style", "formal")])).await.expect("get");
        assert_eq!(r.description.as_deref(), Some("formal greeting"));
        assert_eq!(r.messages.len(), 2);
        assert_eq!(r.messages[0].role, Role::User);
        assert_eq!(r.messages[0].content.as_text(), Some("Please greet Ada."));
        assert_eq!(r.messages[1].role, Role::Assistant);
        assert_eq!(r.messages[1].content.as_text(), Some("Hello, Ada!"));

        // The optional argument may be left out.
        let r = t.client.get_prompt("greet", args(&[("name", "Bob")])).await.expect("get");
        assert_eq!(r.description.as_deref(), Some("plain greeting"));
        t.assert_all_valid();
    })
    .await;
}

#[tokio::test]
async fn missing_required_argument_is_invalid_params() {
    bounded(async {
        let t = connect_tapped(&server(), options_for(ProtocolVersion::V2024_11_05)).await;
        let e = t.client.get_prompt("greet", args(&[("style", "formal")])).await.expect_err("missing name");
        let rpc = e.rpc().unwrap_or_else(|| panic!("not an RPC error: {e:?}"));
        assert_eq!(rpc.code, -32602, "{e}");
        assert!(rpc.message.contains("name"), "{e}");
        assert_eq!(rpc.data.as_ref().map(|d| &d["missing"]), Some(&serde_json::json!(["name"])));

        let e = t.client.get_prompt("nope", args(&[])).await.expect_err("unknown prompt");
        assert_eq!(e.code(), -32602, "{e}");
        assert!(e.to_string().contains("Unknown prompt: nope"), "{e}");
        t.assert_all_valid();
    })
    .await;
}
