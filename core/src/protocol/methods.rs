//! The method names the specification and its extensions own, in every revision: a server's
//! own methods (`server.method("vendor/name", ...)`) and notifications must use others.

/// Every request and notification method of the revisions and extensions hypermcp speaks.
pub const SPEC_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "resources/directory/read",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "sampling/createMessage",
    "elicitation/create",
    "roots/list",
    "subscriptions/listen",
    "tasks/get",
    "tasks/result",
    "tasks/list",
    "tasks/cancel",
    "tasks/update",
    "skills/list",
    "skills/get",
    "ui/initialize",
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/message",
    "notifications/tools/list_changed",
    "notifications/resources/list_changed",
    "notifications/resources/updated",
    "notifications/prompts/list_changed",
    "notifications/roots/list_changed",
    "notifications/elicitation/complete",
    "notifications/subscriptions/acknowledged",
    "notifications/tasks",
    "notifications/tasks/status",
];

/// The families of methods the specification (or an extension) owns: a name under one of
/// them may be defined by a later revision.
const SPEC_FAMILIES: &[&str] = &[
    "tools/",
    "resources/",
    "prompts/",
    "completion/",
    "logging/",
    "sampling/",
    "elicitation/",
    "roots/",
    "tasks/",
    "subscriptions/",
    "server/",
    "skills/",
    "ui/",
];

/// Why `method` cannot be a method of a server's own (`Ok`: it can). The spec's and its
/// extensions' names and families are theirs (`notifications/` followed by one of those
/// families too), JSON-RPC keeps `rpc.` for itself, and a name is 1 to 256 characters
/// without spaces.
pub fn check_custom(method: &str) -> Result<(), String> {
    if method.is_empty() || method.len() > 256 || method.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!("invalid method name {method:?}: use 1-256 characters without spaces (\"vendor/name\")"));
    }
    let family = |m: &str| SPEC_FAMILIES.iter().any(|f| m.starts_with(f));
    let under_notifications = method.strip_prefix("notifications/").is_some_and(family);
    if SPEC_METHODS.contains(&method) || family(method) || under_notifications {
        return Err(format!(
            "method {method:?} belongs to the MCP specification (or one of its extensions): name yours \"vendor/name\""
        ));
    }
    if method.starts_with("rpc.") {
        return Err(format!("method {method:?}: JSON-RPC reserves names that start with \"rpc.\""));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_specs_names_are_refused_and_others_taken() {
        for m in SPEC_METHODS {
            assert!(check_custom(m).unwrap_err().contains("specification"), "{m}");
        }
        for m in ["tools/search", "notifications/tools/soon", "ui/open-link", "server/health"] {
            assert!(check_custom(m).is_err(), "{m}");
        }
        assert!(check_custom("rpc.discover").unwrap_err().contains("rpc."));
        assert!(check_custom("").is_err());
        assert!(check_custom("acme search").is_err());
        for m in ["acme/search", "notifications/acme/indexed", "acme.reindex", "toolsearch"] {
            assert_eq!(check_custom(m), Ok(()), "{m}");
        }
    }
}
