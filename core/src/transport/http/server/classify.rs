//! What a POST body holds ([`Class`]): requests, or only notifications and responses, and
//! whether it is an `initialize`; with a fast path for the common case, a single request.

use crate::jsonrpc::{self, Incoming, RpcError};

/// What a POST body holds.
pub(super) struct Class {
    pub(super) requests: bool,
    pub(super) initialize: bool,
    /// A single request of the stateless revision (its `_meta` says so).
    pub(super) modern: bool,
    /// A `subscriptions/listen` request.
    pub(super) listen: bool,
}

/// Only what the fast path of [`classify`] reads; every other field is skipped.
#[derive(serde::Deserialize)]
struct Peek<'a> {
    #[serde(borrow, default)]
    jsonrpc: Option<&'a str>,
    #[serde(borrow, default)]
    method: Option<&'a str>,
    #[serde(borrow, default)]
    id: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow, default)]
    params: Option<&'a serde_json::value::RawValue>,
}

/// The common case, a single well-formed request, classified at a third of the cost of a
/// full parse (the engine parses the body again anyway). `None`: anything else, for the
/// full [`classify`] to judge (notifications, batches, odd ids, errors of any kind).
fn classify_request(body: &[u8], probe_modern: bool) -> Option<Class> {
    if body.first() != Some(&b'{') || std::str::from_utf8(body).is_err() {
        return None;
    }
    let peek: Peek<'_> = serde_json::from_slice(body).ok()?;
    if peek.jsonrpc != Some("2.0") || jsonrpc::RequestId::from_raw(peek.id?.get()).is_none() {
        return None;
    }
    let method = peek.method?;
    Some(Class {
        requests: true,
        initialize: method == "initialize",
        modern: probe_modern && crate::engine::is_modern(method, peek.params),
        listen: method == "subscriptions/listen",
    })
}

/// `probe_modern`: look in the params for the 2026-07-28 `_meta` keys (`Class::modern`); a
/// caller that already knows the request's era from its headers saves that parse.
pub(super) fn classify(body: &[u8], probe_modern: bool) -> std::result::Result<Class, RpcError> {
    if let Some(class) = classify_request(body, probe_modern) {
        return Ok(class);
    }
    match jsonrpc::parse_message(body) {
        Err(f) => Err(f.error),
        Ok(Incoming::Single(env)) => {
            let request = env.id.is_some() && env.method.is_some();
            let method = env.method.as_deref().unwrap_or("");
            Ok(Class {
                requests: request,
                initialize: request && method == "initialize",
                modern: request && probe_modern && crate::engine::is_modern(method, env.params),
                listen: request && method == "subscriptions/listen",
            })
        }
        Ok(Incoming::Batch(items)) => {
            let requests = items.iter().any(|item| match jsonrpc::message::parse_object_str(item.get()) {
                Ok(env) => env.method.is_some() && env.id.is_some(),
                Err(_) => true, // answered with an error
            });
            Ok(Class { requests, initialize: false, modern: false, listen: false })
        }
    }
}

/// The method and target (`params.name`, else `params.uri`) of each request in a body, for
/// the scopes an entry requires. Anything unreadable is left to the engine to refuse.
pub(super) fn targets(body: &[u8]) -> Vec<(String, String)> {
    #[derive(serde::Deserialize)]
    struct Params {
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        uri: Option<String>,
    }
    #[derive(serde::Deserialize)]
    struct Target {
        #[serde(default)]
        method: Option<String>,
        #[serde(default)]
        params: Option<Params>,
    }
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum Body {
        One(Target),
        Many(Vec<serde_json::Value>),
    }
    let one = |t: Target| {
        let p = t.params?;
        Some((t.method?, p.name.or(p.uri)?))
    };
    match serde_json::from_slice::<Body>(body) {
        Ok(Body::One(t)) => one(t).into_iter().collect(),
        Ok(Body::Many(items)) => {
            items.into_iter().filter_map(|v| serde_json::from_value::<Target>(v).ok()).filter_map(one).collect()
        }
        Err(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path agrees with the full parse wherever it answers, and leaves everything
    /// else to it.
    #[test]
    fn classify_fast_path_matches_the_full_parse() {
        let cases: &[&str] = &[
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#,
            r#"{"jsonrpc":"2.0","id":"a","method":"initialize","params":{}}"#,
            r#"{"method":"ping","id":-3,"jsonrpc":"2.0"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"} trailing"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"p\u0069ng"}"#,
            "  {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
            "{",
            "",
        ];
        for case in cases {
            if let Some(fast) = classify_request(case.as_bytes(), true) {
                let full = classify(case.as_bytes(), true).expect("the fast path accepted what the full parse rejects");
                let slow = match jsonrpc::parse_message(case.as_bytes()) {
                    Ok(Incoming::Single(env)) => {
                        (env.method.is_some() && env.id.is_some(), env.method.as_deref() == Some("initialize"))
                    }
                    other => panic!("{case}: fast path answered for {other:?}"),
                };
                assert_eq!((fast.requests, fast.initialize), slow, "{case}");
                assert_eq!((full.requests, full.initialize), slow, "{case}");
            }
        }
        assert!(classify_request(cases[0].as_bytes(), true).is_some());
        assert!(classify_request(cases[1].as_bytes(), true).is_some_and(|c| c.initialize));
        assert!(classify_request(
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"\xff\"}}",
            true
        )
        .is_none());
        // The `_meta` probe, and its absence when the caller knows the era already.
        let modern = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        assert!(classify(modern, true).unwrap().modern);
        assert!(!classify(modern, false).unwrap().modern);
        assert!(!classify(cases[0].as_bytes(), true).unwrap().modern);
    }

    #[test]
    fn targets_name_each_request_of_a_body() {
        assert_eq!(
            targets(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rm","arguments":{}}}"#),
            vec![("tools/call".to_string(), "rm".to_string())]
        );
        let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///a"}},{"jsonrpc":"2.0","id":2,"method":"ping"},7]"#;
        assert_eq!(targets(batch), vec![("resources/read".to_string(), "file:///a".to_string())]);
        assert!(targets(b"{nope").is_empty());
    }
}
