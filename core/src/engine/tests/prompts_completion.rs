//! Prompts and completion: required prompt arguments and `completion/complete` references.

use super::*;

fn prompt_registry() -> Registry {
    let r = Registry::new();
    r.add_prompt(
        Prompt::new("greet")
            .argument(PromptArgument::new("name", true))
            .argument(PromptArgument::new("tone", false))
            .argument(PromptArgument::new("lang", true)),
    )
    .unwrap();
    r.add_template(ResourceTemplate::new("users://{id}", "user")).unwrap();
    r
}

#[test]
fn prompt_with_missing_required_argument_is_invalid_params() {
    let t0 = Instant::now();
    let mut s = ready(prompt_registry(), "2025-11-25", json!({}), t0);
    send(&mut s, request(json!(1), "prompts/get", json!({"name": "greet", "arguments": {"tone": "warm"}})), t0);
    let msg = one_line(&mut s);
    let err = assert_error(&msg, json!(1), codes::INVALID_PARAMS);
    assert_eq!(err["data"], json!({"prompt": "greet", "missing": ["name", "lang"]}));
    assert_eq!(err["message"], "Invalid params: prompt greet is missing required argument(s): name, lang");
    send(&mut s, request(json!(2), "prompts/get", json!({"name": "greet", "arguments": {"name": "Ada"}})), t0);
    let msg = one_line(&mut s);
    assert_eq!(
        assert_error(&msg, json!(2), codes::INVALID_PARAMS)["data"],
        json!({"prompt": "greet", "missing": ["lang"]})
    );
    send(&mut s, request(json!(3), "prompts/get", json!({"name": "nope"})), t0);
    let msg = one_line(&mut s);
    assert_eq!(assert_error(&msg, json!(3), codes::INVALID_PARAMS)["data"], json!({"name": "nope"}));
    assert!(events(&mut s).is_empty());

    send(
        &mut s,
        request(json!(4), "prompts/get", json!({"name": "greet", "arguments": {"name": "Ada", "lang": "en"}})),
        t0,
    );
    let inv = invocation(&mut s);
    match &inv.request {
        Request::GetPrompt { name, arguments } => {
            assert_eq!(name, "greet");
            assert_eq!(arguments.len(), 2);
            assert_eq!(arguments["name"], "Ada");
            assert_eq!(arguments["lang"], "en");
        }
        other => panic!("{other:?}"),
    }
    s.complete(
        inv.key,
        Outcome::Prompt(GetPromptResult {
            description: Some("hi".into()),
            messages: vec![PromptMessage::user("Hello Ada")],
            meta: None,
        }),
    );
    assert_eq!(
        one_line(&mut s),
        ok(
            json!(4),
            json!({"description": "hi", "messages": [{"role": "user", "content": {"type": "text", "text": "Hello Ada"}}]})
        )
    );
}

#[test]
fn completion_checks_the_reference() {
    let t0 = Instant::now();
    let mut s = ready_with(prompt_registry(), |c| c.completions = true, "2025-11-25", json!({}), t0);
    let complete = |id: i64, reference: Value, arg: &str| {
        request(json!(id), "completion/complete", json!({"ref": reference, "argument": {"name": arg, "value": "A"}}))
    };

    send(&mut s, complete(1, json!({"type": "ref/prompt", "name": "nope"}), "name"), t0);
    let msg = one_line(&mut s);
    assert_eq!(assert_error(&msg, json!(1), codes::INVALID_PARAMS)["data"], json!({"name": "nope"}));
    send(&mut s, complete(2, json!({"type": "ref/prompt", "name": "greet"}), "age"), t0);
    let msg = one_line(&mut s);
    assert_eq!(assert_error(&msg, json!(2), codes::INVALID_PARAMS)["data"], json!({"argument": "age"}));
    send(&mut s, complete(3, json!({"type": "ref/resource", "uri": "nope://{x}"}), "x"), t0);
    let msg = one_line(&mut s);
    assert_eq!(assert_error(&msg, json!(3), codes::INVALID_PARAMS)["data"], json!({"uri": "nope://{x}"}));
    send(&mut s, complete(4, json!({"type": "ref/unknown"}), "x"), t0);
    assert_error(&one_line(&mut s), json!(4), codes::INVALID_PARAMS);
    assert!(events(&mut s).is_empty());

    let params = json!({
        "ref": {"type": "ref/prompt", "name": "greet"},
        "argument": {"name": "lang", "value": "e"},
        "context": {"arguments": {"name": "Ada"}},
    });
    send(&mut s, request(json!(5), "completion/complete", params), t0);
    let inv = invocation(&mut s);
    match &inv.request {
        Request::Complete(p) => {
            assert_eq!(p.reference, CompletionReference::Prompt { name: "greet".into() });
            assert_eq!(p.argument.name, "lang");
            assert_eq!(p.argument.value, "e");
            let args = p.context.as_ref().and_then(|c| c.arguments.clone()).expect("context.arguments");
            assert_eq!(Value::Object(args), json!({"name": "Ada"}));
        }
        other => panic!("{other:?}"),
    }
    s.complete(inv.key, Outcome::Completion(CompleteResult::values(vec!["en".into(), "es".into()])));
    assert_eq!(
        one_line(&mut s),
        ok(json!(5), json!({"completion": {"values": ["en", "es"], "total": 2, "hasMore": false}}))
    );

    // Template references.
    send(&mut s, complete(6, json!({"type": "ref/resource", "uri": "users://{id}"}), "id"), t0);
    let inv = invocation(&mut s);
    assert!(
        matches!(&inv.request, Request::Complete(p) if p.reference == CompletionReference::Resource { uri: "users://{id}".into() } && p.context.is_none())
    );
}
