//! What a client is told of a handler that failed unexpectedly (an exception, an error it
//! did not mean the client to read, a panic): the failure's text, or, when the server masks
//! error details ([`super::ServerConfig::mask_error_details`]), a generic message naming
//! what failed, the failure itself going to the log (target `hypermcp::errors`, with the
//! traceback the host gave). One rule for the three languages.

use super::Outcome;
use crate::jsonrpc::{codes, RpcError};
use crate::protocol::CallToolResult;

/// What failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failed<'a> {
    /// The tool of that name: its call is answered with an `isError` result.
    Tool(&'a str),
    /// The resource of that URI (the others are answered -32603).
    Resource(&'a str),
    /// The prompt of that name.
    Prompt(&'a str),
    /// The completion handler.
    Completion,
    /// The request method of the server's own of that name.
    Method(&'a str),
    /// A list hook of the middleware.
    List,
}

impl<'a> Failed<'a> {
    /// `kind` as the bindings name it (`tool`, `resource`, `prompt`, `completion` or
    /// `complete`, `method`, `list`) with its `name`.
    pub fn parse(kind: &str, name: &'a str) -> Result<Self, String> {
        Ok(match kind {
            "tool" => Failed::Tool(name),
            "resource" => Failed::Resource(name),
            "prompt" => Failed::Prompt(name),
            "completion" | "complete" => Failed::Completion,
            "method" => Failed::Method(name),
            "list" => Failed::List,
            _ => return Err(format!("no handler kind {kind:?} (tool, resource, prompt, completion, method, list)")),
        })
    }

    fn kind(self) -> &'static str {
        match self {
            Failed::Tool(_) => "tool",
            Failed::Resource(_) => "resource",
            Failed::Prompt(_) => "prompt",
            Failed::Completion => "completion",
            Failed::Method(_) => "method",
            Failed::List => "list",
        }
    }

    fn name(self) -> &'a str {
        match self {
            Failed::Tool(n) | Failed::Resource(n) | Failed::Prompt(n) | Failed::Method(n) => n,
            Failed::Completion | Failed::List => "",
        }
    }

    /// What the client reads when details are masked.
    fn masked(self) -> String {
        match self {
            Failed::Tool(n) => format!("Error calling tool {n:?}"),
            Failed::Resource(u) => format!("Error reading resource {u:?}"),
            Failed::Prompt(n) => format!("Error rendering prompt {n:?}"),
            Failed::Completion => "Error completing the argument".into(),
            Failed::Method(m) => format!("Error in method {m:?}"),
            Failed::List => "Error listing the components".into(),
        }
    }

    /// What the client reads otherwise.
    fn plain(self, error: &str) -> String {
        match self {
            Failed::Tool(_) => error.to_string(),
            Failed::Method(m) => format!("{m} failed: {error}"),
            Failed::List => format!("a list hook failed: {error}"),
            other => format!("{} handler failed: {error}", other.kind()),
        }
    }
}

/// The outcome of a handler that failed with `error` (its message; `detail`: its traceback,
/// when the host has one): masked or not as `mask` says.
pub fn failure(what: Failed<'_>, error: &str, detail: Option<&str>, mask: bool) -> Outcome {
    let text = if mask {
        let (kind, name) = (what.kind(), what.name());
        tracing::error!(target: "hypermcp::errors", kind, name, error, detail, "handler failed (the client was told less: mask_error_details)");
        what.masked()
    } else {
        what.plain(error)
    };
    match what {
        Failed::Tool(_) => Outcome::Tool(CallToolResult::error(text)),
        _ => Outcome::Error(RpcError::new(codes::INTERNAL_ERROR, text)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(o: &Outcome) -> String {
        match o {
            Outcome::Tool(r) => {
                assert_eq!(r.is_error, Some(true));
                r.content[0].as_text().unwrap().to_string()
            }
            Outcome::Error(e) => {
                assert_eq!(e.code, codes::INTERNAL_ERROR);
                e.message.clone()
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn masked_failures_name_what_failed_and_nothing_more() {
        let o = failure(Failed::Tool("book"), "db password is hunter2", Some("Traceback ..."), true);
        assert_eq!(text(&o), "Error calling tool \"book\"");
        assert_eq!(text(&failure(Failed::Tool("book"), "no seats", None, false)), "no seats");
        assert_eq!(
            text(&failure(Failed::Resource("file:///x"), "gone", None, true)),
            "Error reading resource \"file:///x\""
        );
        assert_eq!(text(&failure(Failed::Resource("file:///x"), "gone", None, false)), "resource handler failed: gone");
        assert_eq!(text(&failure(Failed::Method("acme/x"), "boom", None, false)), "acme/x failed: boom");
        assert_eq!(text(&failure(Failed::List, "boom", None, false)), "a list hook failed: boom");
        assert_eq!(Failed::parse("complete", ""), Ok(Failed::Completion));
        assert!(Failed::parse("nope", "").unwrap_err().contains("no handler kind"));
    }
}
