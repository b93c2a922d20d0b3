//! Completion: the handler receives the reference, the argument and (2025-06-18 on) the
//! other arguments already given, and its values reach the client.

use crate::common;

use common::*;
use hypermcp::{
    CompleteParams, CompleteResult, CompletionArgument, CompletionContext, CompletionReference, Prompt, PromptArgument,
    ProtocolVersion, ReadResourceResult, ResourceTemplate, Server,
};
use serde_json::{json, Map, Value};
use tokio::sync::mpsc;

const CITIES: [&str; 5] = ["Paris", "Parma", "Porto", "Prague", "Berlin"];

fn server() -> (Server, mpsc::UnboundedReceiver<CompleteParams>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let server = Server::new("completion-server", "1.0.0")
        .prompt(
            Prompt::new("travel")
                .argument(PromptArgument::new("origin", true))
                .argument(PromptArgument::new("destination", true)),
            |_args, _ctx| async move { Ok(Default::default()) },
        )
        .resource_template(ResourceTemplate::new("city://{name}/weather", "weather"), |req, _ctx| async move {
            Ok(ReadResourceResult::text(req.uri, "sunny", None))
        })
        .completion(move |params, _ctx| {
            let tx = tx.clone();
            async move {
                let prefix = params.argument.value.clone();
                let _ = tx.send(params);
                Ok(CompleteResult::values(
                    CITIES.iter().filter(|c| c.starts_with(&prefix)).map(|c| c.to_string()).collect(),
                ))
            }
        });
    (server, rx)
}

fn context(pairs: &[(&str, &str)]) -> Option<CompletionContext> {
    let args: Map<String, Value> = pairs.iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
    Some(CompletionContext { arguments: Some(args) })
}

#[tokio::test]
async fn handler_gets_reference_argument_and_context() {
    bounded(async {
        let (server, mut seen) = server();
        let t = connect_tapped(&server, options_for(ProtocolVersion::V2025_06_18)).await;
        assert!(t.client.server().capabilities.completions.is_some(), "completions capability declared");

        let params = CompleteParams {
            reference: CompletionReference::Prompt { name: "travel".into() },
            argument: CompletionArgument { name: "destination".into(), value: "Par".into() },
            context: context(&[("origin", "Berlin")]),
        };
        let r = t.client.complete(params.clone()).await.expect("complete");
        assert_eq!(r.completion.values, ["Paris", "Parma"]);
        assert_eq!(r.completion.total, Some(2));
        assert_eq!(r.completion.has_more, Some(false));
        let got = seen.try_recv().expect("the handler ran");
        assert_eq!(got, params, "the handler sees exactly what the client sent");

        // A template variable.
        let params = CompleteParams {
            reference: CompletionReference::Resource { uri: "city://{name}/weather".into() },
            argument: CompletionArgument { name: "name".into(), value: "P".into() },
            context: None,
        };
        let r = t.client.complete(params.clone()).await.expect("complete");
        assert_eq!(r.completion.values, ["Paris", "Parma", "Porto", "Prague"]);
        assert_eq!(seen.try_recv().expect("the handler ran"), params);

        // Unknown prompt argument: refused before the handler.
        let bad = CompleteParams {
            reference: CompletionReference::Prompt { name: "travel".into() },
            argument: CompletionArgument { name: "airline".into(), value: "".into() },
            context: None,
        };
        assert_eq!(t.client.complete(bad).await.expect_err("unknown argument").code(), -32602);
        assert!(seen.try_recv().is_err(), "the handler did not run");

        let wire = &t.tap.with_method("completion/complete")[0];
        assert_eq!(wire.json["params"]["ref"], json!({"type": "ref/prompt", "name": "travel"}));
        assert_eq!(wire.json["params"]["context"], json!({"arguments": {"origin": "Berlin"}}));
        t.assert_all_valid();
    })
    .await;
}

#[tokio::test]
async fn completion_works_before_the_capability_existed() {
    bounded(async {
        let (server, mut seen) = server();
        let t = connect_tapped(&server, options_for(ProtocolVersion::V2024_11_05)).await;
        assert!(t.client.server().capabilities.completions.is_none(), "2024-11-05 has no completions capability");
        let params = CompleteParams {
            reference: CompletionReference::Prompt { name: "travel".into() },
            argument: CompletionArgument { name: "origin".into(), value: "B".into() },
            context: None,
        };
        let r = t.client.complete(params.clone()).await.expect("complete");
        assert_eq!(r.completion.values, ["Berlin"]);
        assert_eq!(seen.try_recv().expect("the handler ran"), params);
        t.assert_all_valid();
    })
    .await;
}
