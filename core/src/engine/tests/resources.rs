//! Resources: reads of static resources and templates, subscriptions and updates, and
//! list-changed notifications.

use super::*;

fn resource_registry() -> Registry {
    let r = Registry::new();
    r.add_resource(Resource::new("file:///a.txt", "a").mime_type("text/plain")).unwrap();
    r.add_template(ResourceTemplate::new("weather://{city}/now", "weather")).unwrap();
    r
}

#[test]
fn resource_reads_resolve_static_resources_and_templates() {
    let t0 = Instant::now();
    let mut s = ready(resource_registry(), "2025-11-25", json!({}), t0);

    send(&mut s, request(json!(1), "resources/read", json!({"uri": "file:///a.txt"})), t0);
    let inv = invocation(&mut s);
    match &inv.request {
        Request::ReadResource { uri, template, variables } => {
            assert_eq!(uri, "file:///a.txt");
            assert!(template.is_none());
            assert!(variables.is_empty());
        }
        other => panic!("{other:?}"),
    }
    s.complete(
        inv.key,
        Outcome::Resource(ReadResourceResult {
            contents: vec![ResourceContents::text("file:///a.txt", "hello").with_mime_type("text/plain")],
            ..Default::default()
        }),
    );
    assert_eq!(
        one_line(&mut s),
        ok(json!(1), json!({"contents": [{"uri": "file:///a.txt", "mimeType": "text/plain", "text": "hello"}]}))
    );

    send(
        &mut s,
        request(json!(2), "resources/read", json!({"uri": "weather://paris/now", "_meta": {"progressToken": "w"}})),
        t0,
    );
    let inv = invocation(&mut s);
    assert_eq!(inv.progress_token, Some(RequestId::from("w")));
    match &inv.request {
        Request::ReadResource { uri, template, variables } => {
            assert_eq!(uri, "weather://paris/now");
            assert_eq!(template.as_ref().map(|t| t.template.uri_template.as_str()), Some("weather://{city}/now"));
            assert_eq!(variables.len(), 1);
            assert_eq!(variables["city"], "paris");
        }
        other => panic!("{other:?}"),
    }

    send(&mut s, request(json!(3), "resources/read", json!({"uri": "nope://x"})), t0);
    let msg = one_line(&mut s);
    let err = assert_error(&msg, json!(3), codes::RESOURCE_NOT_FOUND);
    assert_eq!(err["data"], json!({"uri": "nope://x"}));
    assert_eq!(err["message"], "Resource not found: nope://x");
    send(&mut s, request(json!(4), "resources/read", json!({})), t0);
    assert_error(&one_line(&mut s), json!(4), codes::INVALID_PARAMS);
    assert!(events(&mut s).is_empty());

    // Both lists.
    send(&mut s, request(json!(5), "resources/list", Value::Null), t0);
    assert_eq!(
        one_line(&mut s),
        ok(json!(5), json!({"resources": [{"uri": "file:///a.txt", "name": "a", "mimeType": "text/plain"}]}))
    );
    send(&mut s, request(json!(6), "resources/templates/list", Value::Null), t0);
    assert_eq!(
        one_line(&mut s),
        ok(json!(6), json!({"resourceTemplates": [{"uriTemplate": "weather://{city}/now", "name": "weather"}]}))
    );
}

#[test]
fn resource_updates_reach_only_subscribers() {
    let t0 = Instant::now();
    let mut s = ready(resource_registry(), "2025-11-25", json!({}), t0);
    let updated = |uri: &str| RegistryChange::ResourceUpdated(uri.to_string());

    s.registry_changed(&updated("file:///a.txt"));
    assert_quiet(&mut s);

    send(&mut s, request(json!(1), "resources/subscribe", json!({"uri": "file:///a.txt"})), t0);
    assert_eq!(one_line(&mut s), ok(json!(1), json!({})));
    send(&mut s, request(json!(2), "resources/subscribe", json!({"uri": "weather://oslo/now"})), t0);
    assert_eq!(one_line(&mut s), ok(json!(2), json!({})));
    send(&mut s, request(json!(3), "resources/subscribe", json!({"uri": "nope://x"})), t0);
    let msg = one_line(&mut s);
    assert_eq!(assert_error(&msg, json!(3), codes::RESOURCE_NOT_FOUND)["data"], json!({"uri": "nope://x"}));

    s.registry_changed(&updated("file:///a.txt"));
    assert_eq!(lines(&mut s), vec![notification("notifications/resources/updated", json!({"uri": "file:///a.txt"}))]);
    s.registry_changed(&updated("weather://oslo/now"));
    assert_eq!(
        lines(&mut s),
        vec![notification("notifications/resources/updated", json!({"uri": "weather://oslo/now"}))]
    );
    s.registry_changed(&updated("weather://rome/now"));
    s.registry_changed(&updated("nope://x"));
    assert_quiet(&mut s);

    send(&mut s, request(json!(4), "resources/unsubscribe", json!({"uri": "file:///a.txt"})), t0);
    assert_eq!(one_line(&mut s), ok(json!(4), json!({})));
    s.registry_changed(&updated("file:///a.txt"));
    assert_quiet(&mut s);
    // Still subscribed to the other one.
    s.registry_changed(&updated("weather://oslo/now"));
    assert_eq!(lines(&mut s).len(), 1);
    // After close nothing is sent.
    s.close();
    s.registry_changed(&updated("weather://oslo/now"));
    assert_quiet(&mut s);
}

#[test]
fn list_changed_is_sent_only_after_initialize_and_for_declared_lists() {
    let t0 = Instant::now();
    let reg = resource_registry();
    reg.add_tool(Tool::new("t")).unwrap();
    let mut s = new_server(reg, |_| {});
    for kind in [ListKind::Tools, ListKind::Resources, ListKind::ResourceTemplates, ListKind::Prompts] {
        s.registry_changed(&RegistryChange::ListChanged(kind));
    }
    assert_quiet(&mut s);

    initialize(&mut s, "2025-11-25", json!({}), t0);
    send(&mut s, notification("notifications/initialized", Value::Null), t0);
    events(&mut s);
    for (kind, method) in [
        (ListKind::Tools, Some("notifications/tools/list_changed")),
        (ListKind::Resources, Some("notifications/resources/list_changed")),
        (ListKind::ResourceTemplates, Some("notifications/resources/list_changed")),
        (ListKind::Prompts, None),
    ] {
        s.registry_changed(&RegistryChange::ListChanged(kind));
        let out = lines(&mut s);
        match method {
            Some(m) => assert_eq!(out, vec![json!({"jsonrpc": "2.0", "method": m})], "{kind:?}"),
            None => assert!(out.is_empty(), "{kind:?}: {out:?}"),
        }
    }
    assert!(events(&mut s).is_empty());

    let reg = Registry::new();
    reg.add_prompt(Prompt::new("p")).unwrap();
    let mut s = ready(reg, "2024-11-05", json!({}), t0);
    s.registry_changed(&RegistryChange::ListChanged(ListKind::Prompts));
    assert_eq!(lines(&mut s), vec![json!({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"})]);
    s.registry_changed(&RegistryChange::ListChanged(ListKind::Tools));
    assert_quiet(&mut s);
}
