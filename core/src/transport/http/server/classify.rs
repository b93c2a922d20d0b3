//! What a POST body holds ([`Class`]): requests, or only notifications and responses, and
//! whether it is an `initialize`; with the message itself when the body is a single one, for
//! the engine to take as parsed (one parse of the body, not one here and one in the engine).

use crate::jsonrpc::{self, Envelope, Incoming, RpcError};

/// What a POST body holds.
pub(super) struct Class {
    pub(super) requests: bool,
    pub(super) initialize: bool,
    /// A single request of the stateless revision (its `_meta` says so).
    pub(super) modern: bool,
    /// A `subscriptions/listen` request.
    pub(super) listen: bool,
}

/// `probe_modern`: look in the params for the 2026-07-28 `_meta` keys (`Class::modern`); a
/// caller that already knows the request's era from its headers saves that parse. The
/// envelope is the body's message when it holds one (`None` for a batch), parsed by
/// [`jsonrpc::parse_message`] exactly as the engine would parse the bytes.
pub(super) fn classify(
    body: &[u8],
    probe_modern: bool,
) -> std::result::Result<(Class, Option<Envelope<'_>>), RpcError> {
    match jsonrpc::parse_message(body) {
        Err(f) => Err(f.error),
        Ok(Incoming::Single(env)) => {
            let request = env.id.is_some() && env.method.is_some();
            let method = env.method.as_deref().unwrap_or("");
            let class = Class {
                requests: request,
                initialize: request && method == "initialize",
                modern: request && probe_modern && crate::engine::is_modern(method, env.params),
                listen: request && method == "subscriptions/listen",
            };
            Ok((class, Some(env)))
        }
        Ok(Incoming::Batch(items)) => {
            let requests = items.iter().any(|item| match jsonrpc::message::parse_object_str(item.get()) {
                Ok(env) => env.method.is_some() && env.id.is_some(),
                Err(_) => true, // answered with an error
            });
            Ok((Class { requests, initialize: false, modern: false, listen: false }, None))
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

    /// Each kind of body, and the message handed on for single ones.
    #[test]
    fn bodies_are_classified_and_single_messages_handed_on() {
        let class =
            |body: &str| classify(body.as_bytes(), true).map(|(c, env)| (c.requests, c.initialize, env.is_some()));
        let call =
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#;
        assert_eq!(class(call).ok(), Some((true, false, true)));
        assert_eq!(
            class(r#"{"jsonrpc":"2.0","id":"a","method":"initialize","params":{}}"#).ok(),
            Some((true, true, true))
        );
        assert_eq!(class(r#"{"method":"ping","id":-3,"jsonrpc":"2.0"}"#).ok(), Some((true, false, true)));
        assert_eq!(class(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).ok(), Some((false, false, true)));
        assert_eq!(class(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#).ok(), Some((false, false, true)));
        assert_eq!(class(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#).ok(), Some((true, false, false)));
        assert_eq!(
            class(r#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#).ok(),
            Some((false, false, false))
        );
        // An escaped method name is read (and compared) decoded.
        assert_eq!(class(r#"{"jsonrpc":"2.0","id":1,"method":"initializ\u0065"}"#).ok(), Some((true, true, true)));
        for bad in [
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"} trailing"#,
            "{",
            "",
        ] {
            assert!(classify(bad.as_bytes(), true).is_err(), "{bad}");
        }
        assert!(
            classify(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"\xff\"}}", true).is_err()
        );
        // The `_meta` probe, and its absence when the caller knows the era already.
        let modern = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        assert!(classify(modern, true).unwrap().0.modern);
        assert!(!classify(modern, false).unwrap().0.modern);
        assert!(!classify(call.as_bytes(), true).unwrap().0.modern);
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
