//! The state of tasks (`io.modelcontextprotocol/tasks`): [`TaskRecord`], the only way to
//! change one ([`TaskPatch`], applied atomically by a store with [`TaskRecord::apply`]), the
//! [`TaskStore`] trait (async, so a shared store such as Redis fits) and
//! [`MemoryTaskStore`] (bounded, with time-to-live). No I/O and no runtime here.

use futures_util::future::BoxFuture;
use serde_json::{json, Map, Value};
use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;

pub use crate::protocol::tasks::{legacy_task, TaskStatus, TASKS_EXTENSION};

/// One task as a store keeps it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TaskRecord {
    /// Its id: 128 random bits, base64url (unguessable: it is all a caller needs).
    pub id: String,
    /// Who created it (the access token's subject or client); `None` without authorization.
    pub owner: Option<String>,
    /// The tool it runs.
    pub tool: String,
    /// Where it is.
    pub status: TaskStatus,
    /// What it is doing, for people (progress reports land here).
    pub status_message: Option<String>,
    /// Creation time, Unix ms.
    pub created_ms: u64,
    /// Last change, Unix ms.
    pub updated_ms: u64,
    /// How long it is kept after creation, in ms.
    pub ttl_ms: u64,
    /// How often clients should poll, in ms.
    pub poll_ms: u64,
    /// The input it waits for, by key (`{"method": ..., "params": ...}`).
    pub input_requests: Map<String, Value>,
    /// Every input key it ever asked (a key is never reused).
    pub used_keys: BTreeSet<String>,
    /// Answers received and not yet taken by the handler, by key.
    pub input_responses: Map<String, Value>,
    /// The result (`completed`).
    pub result: Option<Value>,
    /// The JSON-RPC error (`failed`): `{code, message, data?}`.
    pub error: Option<Value>,
}

/// A change to a task.
#[derive(Clone, Debug)]
pub enum TaskPatch {
    /// Progress: a new status message.
    Message(String),
    /// The handler needs input under `key` (`{"method", "params"}`): `input_required`.
    AskInput {
        /// The key (never used before by this task).
        key: String,
        /// The request.
        request: Value,
    },
    /// The client answered some input requests (`tasks/update`): keys that are not
    /// outstanding are ignored; the task is `working` again once none is left.
    Answer(Map<String, Value>),
    /// The handler took the answer to `key`.
    TakeAnswer(String),
    /// The handler finished: a result, or a JSON-RPC error.
    Finish(Result<Value, Value>),
    /// Cancel it.
    Cancel,
}

/// Why a store failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreError {
    /// The store holds as many tasks as it may.
    Full,
    /// The key was asked before by this task.
    KeyReused(String),
    /// The store itself failed (a connection, say).
    Backend(String),
    /// A `tasks/list` cursor this store did not make.
    InvalidCursor(String),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Full => f.write_str("the task store is full"),
            StoreError::KeyReused(k) => write!(f, "input key {k:?} was already used by this task"),
            StoreError::Backend(m) => write!(f, "task store: {m}"),
            StoreError::InvalidCursor(c) => write!(f, "invalid cursor {c:?}: pass the nextCursor of the page before"),
        }
    }
}

impl std::error::Error for StoreError {}

/// Unix ms to RFC 3339 (`2026-11-24T10:00:00.000Z`).
pub fn rfc3339(ms: u64) -> String {
    let secs = ms / 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z", rem / 3600, rem % 3600 / 60, rem % 60, ms % 1000)
}

impl TaskRecord {
    /// A new `working` task.
    pub fn new(id: String, owner: Option<String>, tool: String, now_ms: u64, ttl_ms: u64, poll_ms: u64) -> Self {
        TaskRecord {
            id,
            owner,
            tool,
            status: TaskStatus::Working,
            status_message: None,
            created_ms: now_ms,
            updated_ms: now_ms,
            ttl_ms,
            poll_ms,
            input_requests: Map::new(),
            used_keys: BTreeSet::new(),
            input_responses: Map::new(),
            result: None,
            error: None,
        }
    }

    /// Whether it outlived its time-to-live at `now_ms`.
    pub fn expired(&self, now_ms: u64) -> bool {
        now_ms >= self.created_ms.saturating_add(self.ttl_ms)
    }

    /// Applies a change at `now_ms`; returns whether anything changed. Terminal states are
    /// final; a reused input key is refused.
    pub fn apply(&mut self, patch: TaskPatch, now_ms: u64) -> Result<bool, StoreError> {
        if self.status.is_terminal() {
            return Ok(false);
        }
        match patch {
            TaskPatch::Message(m) => {
                if self.status_message.as_deref() == Some(&m) {
                    return Ok(false);
                }
                self.status_message = Some(m);
            }
            TaskPatch::AskInput { key, request } => {
                if !self.used_keys.insert(key.clone()) {
                    return Err(StoreError::KeyReused(key));
                }
                self.input_requests.insert(key, request);
                self.status = TaskStatus::InputRequired;
            }
            TaskPatch::Answer(answers) => {
                let mut any = false;
                for (k, v) in answers {
                    if self.input_requests.remove(&k).is_some() {
                        self.input_responses.insert(k, v);
                        any = true;
                    }
                }
                if !any {
                    return Ok(false);
                }
                if self.input_requests.is_empty() {
                    self.status = TaskStatus::Working;
                }
            }
            TaskPatch::TakeAnswer(k) => {
                if self.input_responses.remove(&k).is_none() {
                    return Ok(false);
                }
                return Ok(true); // not a change clients see
            }
            TaskPatch::Finish(Ok(result)) => {
                self.status = TaskStatus::Completed;
                self.result = Some(result);
                self.input_requests.clear();
            }
            TaskPatch::Finish(Err(error)) => {
                self.status = TaskStatus::Failed;
                // The spec's diagnostic for people (SHOULD): what failed, from the error.
                if let Some(m) = error.get("message").and_then(Value::as_str) {
                    self.status_message = Some(format!("the task failed: {m}"));
                }
                self.error = Some(error);
                self.input_requests.clear();
            }
            TaskPatch::Cancel => {
                self.status = TaskStatus::Cancelled;
                self.input_requests.clear();
            }
        }
        self.updated_ms = now_ms.max(self.updated_ms);
        Ok(true)
    }

    /// The fields every task carries on the wire (2026-07-28): `taskId`, `status`,
    /// `statusMessage`, `createdAt`, `lastUpdatedAt`, `ttlMs`, `pollIntervalMs`.
    fn base(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("taskId".into(), json!(self.id));
        m.insert("status".into(), json!(self.status.as_str()));
        if let Some(s) = &self.status_message {
            m.insert("statusMessage".into(), json!(s));
        }
        m.insert("createdAt".into(), json!(rfc3339(self.created_ms)));
        m.insert("lastUpdatedAt".into(), json!(rfc3339(self.updated_ms)));
        m.insert("ttlMs".into(), json!(self.ttl_ms));
        m.insert("pollIntervalMs".into(), json!(self.poll_ms));
        m
    }

    /// The result of the call that created it (`CreateTaskResult` without `resultType`).
    pub fn created(&self) -> Map<String, Value> {
        self.base()
    }

    /// What `tasks/get` and `notifications/tasks` carry (`DetailedTask`): the base fields
    /// and the status's own (`inputRequests`, `result` or `error`).
    pub fn detailed(&self) -> Map<String, Value> {
        let mut m = self.base();
        match self.status {
            TaskStatus::InputRequired => {
                m.insert("inputRequests".into(), Value::Object(self.input_requests.clone()));
            }
            TaskStatus::Completed => {
                m.insert("result".into(), self.result.clone().unwrap_or_else(|| json!({})));
            }
            TaskStatus::Failed => {
                m.insert(
                    "error".into(),
                    self.error.clone().unwrap_or_else(|| json!({"code": -32603, "message": "failed"})),
                );
            }
            TaskStatus::Working | TaskStatus::Cancelled => {}
        }
        m
    }
}

/// One page of [`TaskStore::list`].
#[derive(Clone, Debug, Default)]
pub struct TaskPage {
    /// The tasks, oldest first.
    pub tasks: Vec<TaskRecord>,
    /// Where the next page starts (opaque), when there is one.
    pub next: Option<String>,
}

/// The task a `tasks/list` cursor names (the last of the page before: `created_ms.id`), as
/// every store makes them.
pub fn parse_cursor(cursor: Option<&str>) -> Result<Option<(u64, String)>, StoreError> {
    let Some(c) = cursor else { return Ok(None) };
    c.split_once('.')
        .and_then(|(t, id)| Some((t.parse().ok()?, id.to_string())))
        .map(Some)
        .ok_or_else(|| StoreError::InvalidCursor(c.to_string()))
}

/// The cursor of the page after `last` (see [`parse_cursor`]).
pub fn cursor_after(last: &TaskRecord) -> String {
    format!("{}.{}", last.created_ms, last.id)
}

/// Where tasks live. Every method is atomic for the task it names.
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new task; resolves once it is durable (the `CreateTaskResult` goes out only
    /// then).
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), StoreError>>;
    /// The task (`None`: unknown or expired).
    fn get(&self, id: &str) -> BoxFuture<'_, Result<Option<TaskRecord>, StoreError>>;
    /// Applies `patch` and returns the task after it and whether it changed (`None`: unknown
    /// or expired).
    fn update(&self, id: &str, patch: TaskPatch) -> BoxFuture<'_, Result<Option<(TaskRecord, bool)>, StoreError>>;
    /// The tasks of `owner`, oldest first, `limit` a page, from `cursor` (a `next` this
    /// store returned) on (`tasks/list` of 2025-11-25).
    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        cursor: Option<&'a str>,
        limit: usize,
    ) -> BoxFuture<'a, Result<TaskPage, StoreError>>;
}

/// Tasks in this process's memory: at most `max_tasks`, each dropped when its time-to-live
/// ends. When full, expired tasks go first, then the oldest finished ones; if every task is
/// still running, [`StoreError::Full`].
pub struct MemoryTaskStore {
    tasks: Mutex<HashMap<String, TaskRecord>>,
    max_tasks: usize,
}

impl MemoryTaskStore {
    /// A store of at most `max_tasks` tasks.
    pub fn new(max_tasks: usize) -> Self {
        MemoryTaskStore { tasks: Mutex::new(HashMap::new()), max_tasks: max_tasks.max(1) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, TaskRecord>> {
        self.tasks.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How many tasks it holds (expired ones included until swept).
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    fn create_now(&self, record: TaskRecord, now: u64) -> Result<(), StoreError> {
        let mut tasks = self.lock();
        if tasks.len() >= self.max_tasks {
            tasks.retain(|_, t| !t.expired(now));
        }
        if tasks.len() >= self.max_tasks {
            let oldest =
                tasks.values().filter(|t| t.status.is_terminal()).min_by_key(|t| t.updated_ms).map(|t| t.id.clone());
            match oldest {
                Some(id) => {
                    tasks.remove(&id);
                }
                None => return Err(StoreError::Full),
            }
        }
        tasks.insert(record.id.clone(), record);
        Ok(())
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), StoreError>> {
        let r = self.create_now(record, now_ms());
        Box::pin(std::future::ready(r))
    }

    fn get(&self, id: &str) -> BoxFuture<'_, Result<Option<TaskRecord>, StoreError>> {
        let now = now_ms();
        let mut tasks = self.lock();
        let r = match tasks.get(id) {
            Some(t) if t.expired(now) => {
                tasks.remove(id);
                None
            }
            other => other.cloned(),
        };
        Box::pin(std::future::ready(Ok(r)))
    }

    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        cursor: Option<&'a str>,
        limit: usize,
    ) -> BoxFuture<'a, Result<TaskPage, StoreError>> {
        let after = match parse_cursor(cursor) {
            Ok(a) => a,
            Err(e) => return Box::pin(std::future::ready(Err(e))),
        };
        let now = now_ms();
        let tasks = self.lock();
        let mut mine: Vec<&TaskRecord> = tasks
            .values()
            .filter(|t| t.owner.as_deref() == owner && !t.expired(now))
            .filter(|t| after.as_ref().is_none_or(|(ms, id)| (t.created_ms, &t.id) > (*ms, id)))
            .collect();
        mine.sort_by(|a, b| (a.created_ms, &a.id).cmp(&(b.created_ms, &b.id)));
        let limit = limit.max(1);
        let next = (mine.len() > limit).then(|| cursor_after(mine[limit - 1]));
        let page = TaskPage { tasks: mine.into_iter().take(limit).cloned().collect(), next };
        Box::pin(std::future::ready(Ok(page)))
    }

    fn update(&self, id: &str, patch: TaskPatch) -> BoxFuture<'_, Result<Option<(TaskRecord, bool)>, StoreError>> {
        let now = now_ms();
        let mut tasks = self.lock();
        let r = match tasks.get_mut(id) {
            Some(t) if t.expired(now) => {
                tasks.remove(id);
                Ok(None)
            }
            Some(t) => t.apply(patch, now).map(|changed| Some((t.clone(), changed))),
            None => Ok(None),
        };
        Box::pin(std::future::ready(r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::FutureExt;

    fn rec(id: &str, now: u64, ttl: u64) -> TaskRecord {
        TaskRecord::new(id.into(), None, "t".into(), now, ttl, 1000)
    }

    #[test]
    fn times_are_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(1_795_513_200_123), "2026-11-24T09:40:00.123Z");
        assert_eq!(rfc3339(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn patches_follow_the_lifecycle() {
        let mut t = rec("a", 10, 1000);
        assert!(t.apply(TaskPatch::Message("half".into()), 11).unwrap());
        assert!(t
            .apply(TaskPatch::AskInput { key: "k1".into(), request: json!({"method": "elicitation/create"}) }, 12)
            .unwrap());
        t.apply(TaskPatch::AskInput { key: "k2".into(), request: json!({"method": "elicitation/create"}) }, 12)
            .unwrap();
        assert_eq!(t.status, TaskStatus::InputRequired);
        assert_eq!(t.detailed()["inputRequests"].as_object().unwrap().len(), 2);
        // Unknown keys are ignored; a partial answer leaves the task waiting.
        assert!(!t.apply(TaskPatch::Answer(Map::from_iter([("zz".into(), json!(1))])), 13).unwrap());
        t.apply(TaskPatch::Answer(Map::from_iter([("k1".into(), json!({"action": "accept"}))])), 13).unwrap();
        assert_eq!(t.status, TaskStatus::InputRequired);
        assert!(!t.input_requests.contains_key("k1") && t.input_responses.contains_key("k1"));
        t.apply(TaskPatch::Answer(Map::from_iter([("k2".into(), json!({"action": "accept"}))])), 14).unwrap();
        assert_eq!(t.status, TaskStatus::Working);
        assert_eq!(
            t.apply(TaskPatch::AskInput { key: "k1".into(), request: json!({}) }, 15),
            Err(StoreError::KeyReused("k1".into()))
        );
        t.apply(TaskPatch::Finish(Ok(json!({"content": []}))), 16).unwrap();
        assert_eq!(t.status, TaskStatus::Completed);
        assert_eq!(t.detailed()["result"], json!({"content": []}));
        // Terminal is final.
        assert!(!t.apply(TaskPatch::Cancel, 17).unwrap());
        assert_eq!(t.status, TaskStatus::Completed);
        let d = t.detailed();
        assert_eq!(d["ttlMs"], 1000);
        assert_eq!(d["createdAt"], "1970-01-01T00:00:00.010Z");
        assert_eq!(d["lastUpdatedAt"], "1970-01-01T00:00:00.016Z");
    }

    #[test]
    fn the_memory_store_is_bounded_and_expires() {
        let s = MemoryTaskStore::new(2);
        let now = now_ms();
        s.create_now(rec("a", now, 60_000), now).unwrap();
        s.create_now(rec("b", now, 60_000), now).unwrap();
        assert_eq!(s.create_now(rec("c", now, 60_000), now), Err(StoreError::Full));
        s.update("a", TaskPatch::Cancel).now_or_never().unwrap().unwrap();
        s.create_now(rec("c", now, 60_000), now).unwrap();
        assert!(s.get("a").now_or_never().unwrap().unwrap().is_none(), "the finished task made room");
        // Expired tasks are gone, and make room.
        let s = MemoryTaskStore::new(2);
        s.create_now(rec("old", now - 10_000, 5_000), now).unwrap();
        s.create_now(rec("b", now, 60_000), now).unwrap();
        assert!(s.get("old").now_or_never().unwrap().unwrap().is_none());
        assert!(s.update("old", TaskPatch::Cancel).now_or_never().unwrap().unwrap().is_none());
        s.create_now(rec("old2", now - 10_000, 5_000), now).unwrap();
        s.create_now(rec("c", now, 60_000), now).unwrap();
        assert_eq!(s.len(), 2);
    }
}
