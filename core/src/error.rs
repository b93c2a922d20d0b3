//! The crate's error type.

use crate::catalogue::DefinitionError;
use crate::jsonrpc::{codes, RpcError};
use std::fmt;

/// Everything that can go wrong in the async API.
#[derive(Debug)]
pub enum Error {
    /// A JSON-RPC error: from the peer, or (in a handler) to send to the peer.
    Rpc(RpcError),
    /// A request this side sent to the peer was answered with an error (or refused before
    /// sending, e.g. for a missing client capability). Raised by `ctx.sample`, `ctx.elicit`,
    /// `ctx.list_roots`...; passed on from a tool handler with `?` it becomes an `isError`
    /// result, not the tool call's own JSON-RPC error.
    Request(RpcError),
    /// A transport failure.
    Io(std::io::Error),
    /// A tool, resource, template or prompt definition was refused.
    Definition(DefinitionError),
    /// The session or transport closed.
    Closed,
    /// Anything else; in a tool handler it becomes an `isError: true` result.
    Message(String),
    /// A skill file read does not match the skill's entry (size, digest, frontmatter), or is
    /// not one of its files: the content must not be used.
    SkillVerification(crate::catalogue::skills::SkillVerificationError),
}

impl Error {
    /// A plain error message (a failed tool call, for instance).
    pub fn msg(m: impl Into<String>) -> Self {
        Error::Message(m.into())
    }
    /// The JSON-RPC error object, if this is one.
    pub fn rpc(&self) -> Option<&RpcError> {
        match self {
            Error::Rpc(e) | Error::Request(e) => Some(e),
            _ => None,
        }
    }
    /// The JSON-RPC code (an error of the transport counts as connection closed).
    pub fn code(&self) -> i32 {
        match self {
            Error::Rpc(e) | Error::Request(e) => e.code,
            Error::Closed | Error::Io(_) => codes::CONNECTION_CLOSED,
            Error::Definition(_) => codes::INVALID_PARAMS,
            Error::Message(_) | Error::SkillVerification(_) => codes::INTERNAL_ERROR,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Rpc(e) | Error::Request(e) => write!(f, "{e}"),
            Error::Io(e) => write!(f, "transport error: {e}"),
            Error::Definition(e) => write!(f, "{e}"),
            Error::Closed => f.write_str("the connection is closed"),
            Error::Message(m) => f.write_str(m),
            Error::SkillVerification(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io(e) => Some(e),
            Error::Rpc(e) | Error::Request(e) => Some(e),
            Error::SkillVerification(e) => Some(e),
            _ => None,
        }
    }
}

impl From<RpcError> for Error {
    fn from(e: RpcError) -> Self {
        if e.code == codes::CONNECTION_CLOSED {
            return Error::Closed;
        }
        Error::Rpc(e)
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}

impl From<DefinitionError> for Error {
    fn from(e: DefinitionError) -> Self {
        Error::Definition(e)
    }
}

impl From<String> for Error {
    fn from(e: String) -> Self {
        Error::Message(e)
    }
}

impl From<&str> for Error {
    fn from(e: &str) -> Self {
        Error::Message(e.to_string())
    }
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Self {
        Error::Message(e.to_string())
    }
}

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
