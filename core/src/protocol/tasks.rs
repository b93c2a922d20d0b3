//! Tasks (`io.modelcontextprotocol/tasks`): the extension's identifier, the states of a
//! task, and the shape 2025-11-25 gives a task (its experimental tasks). What a server keeps
//! of a task, and how it changes, is [`crate::store::tasks`]; who runs them,
//! [`crate::runtime::tasks`].

use serde_json::{json, Map, Value};

/// The extension's identifier.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Where a task is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Running.
    Working,
    /// Waiting for the client's answers to `inputRequests` (`tasks/update`).
    InputRequired,
    /// Done, with a result (a tool result with `isError` included).
    Completed,
    /// Ended with a JSON-RPC error.
    Failed,
    /// Cancelled (`tasks/cancel`, or expired while running).
    Cancelled,
}

impl TaskStatus {
    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    /// Whether nothing changes it any more.
    pub const fn is_terminal(self) -> bool {
        matches!(self, TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled)
    }
}

/// A task as 2025-11-25 writes it (`Task`: `ttl` and `pollInterval`, no status-specific
/// fields), from the fields of a 2026-07-28 one (`created()` or `detailed()`). A tool result
/// with `isError` is `failed` there.
pub fn legacy_task(modern: &Map<String, Value>) -> Map<String, Value> {
    let mut m = Map::new();
    for (k, v) in modern {
        match k.as_str() {
            "ttlMs" => {
                m.insert("ttl".into(), v.clone());
            }
            "pollIntervalMs" => {
                m.insert("pollInterval".into(), v.clone());
            }
            "taskId" | "status" | "statusMessage" | "createdAt" | "lastUpdatedAt" => {
                m.insert(k.clone(), v.clone());
            }
            _ => {}
        }
    }
    if modern.get("result").and_then(|r| r.get("isError")) == Some(&Value::Bool(true)) {
        m.insert("status".into(), json!("failed"));
    }
    if let (None, Some(msg)) = (m.get("statusMessage"), modern.get("error").and_then(|e| e.get("message"))) {
        m.insert("statusMessage".into(), msg.clone());
    }
    m
}
