//! [`HostMiddleware`]: the built-in middleware of a host-language server, run in the engine
//! at the edge of the host: a call is admitted (rate limits) before the host sees it, and
//! timed and logged when the host completes it. The host runs none of it: no crossing into
//! Python or JavaScript, whatever their number.
//!
//! Limits kept in this process answer at once. Limits kept in Redis answer on the I/O
//! runtime; the call then reaches the host a moment later (through the session's inbox, or
//! the HTTP server's queue), or is answered with the refusal there.

use super::tasks::Caller;
use crate::engine::{Event, Outcome, RequestKey};
use crate::runtime::builtin::{self, Builtins, Noted};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The built-in middleware of one host server, shared by its sessions (see the module docs).
#[derive(Debug, Default)]
pub struct HostMiddleware {
    links: Builtins,
    /// The server's catalogue: a cache forgets what its changes make stale.
    registry: Option<Arc<crate::catalogue::Registry>>,
    /// The calls the host is running that are timed or logged, by (session, key) (shared
    /// with the admissions that finish on the I/O runtime).
    running: Arc<Mutex<HashMap<(u64, u64), Noted>>>,
}

/// What a session hands the gate for a call that is admitted later: how the call reaches the
/// host once admitted, or how it is answered (refused, or from the cache).
pub(crate) struct Deferred {
    pub deliver: Box<dyn FnOnce(Event) + Send>,
    pub answer: Box<dyn FnOnce(Outcome) + Send>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl HostMiddleware {
    /// No middleware yet, for the server of `registry` (`None`: only to check options).
    pub fn new(registry: Option<Arc<crate::catalogue::Registry>>) -> Arc<Self> {
        Arc::new(HostMiddleware { registry, ..Default::default() })
    }

    /// Adds built-in `kind` (`rate_limiting`, `timing`, `logging`) with its options (JSON,
    /// camelCase), after those added before. Fails with a message naming the option that
    /// is wrong.
    pub fn add(&self, kind: &str, config: &Value) -> Result<(), String> {
        self.links.add(builtin::parse(kind, config)?, self.registry.as_deref());
        Ok(())
    }

    /// The calls being timed or logged now.
    pub fn running(&self) -> usize {
        lock(&self.running).len()
    }

    /// Whether any link is defined (sessions of a server without skip the gate).
    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }

    /// What the gate does with an event of `session` before the host sees it: a call that
    /// reaches user code is admitted (or refused through `caller`) and its timing and line
    /// begin. Returns the event the host is to handle now, if any; `later` is how a call
    /// admitted on the I/O runtime gets to the host (`None`: admitted here or let through).
    pub(crate) fn admit(
        &self,
        session: u64,
        ev: Event,
        caller: &mut dyn Caller,
        later: impl FnOnce() -> Option<Deferred>,
    ) -> Option<Event> {
        let Event::Invoke(inv) = ev else {
            if let Event::Cancelled { key, .. } = &ev {
                lock(&self.running).remove(&(session, key.0));
            }
            return Some(ev);
        };
        if !builtin::reaches_user_code(&inv.request) {
            return Some(Event::Invoke(inv));
        }
        let links = self.links.snapshot();
        let local = builtin::all_local(&links);
        if local {
            if let Some(refused) = builtin::refused_now(&links, &inv.request, inv.origin.as_deref()) {
                let client = client_name(&inv, caller);
                builtin::say_refused(&links, &inv.request, inv.origin.as_deref(), || client, &refused);
                caller.complete(inv.key, refused);
                return None;
            }
        }
        // Timed from its arrival (admitted later or not); the client's name is read now, on
        // the session's thread.
        let mut noted = builtin::begin(&links, &inv.request, inv.origin.as_deref(), builtin::uncacheable(&inv), || {
            client_name(&inv, caller)
        });
        if local {
            if let Some(hit) = noted.take_hit() {
                noted.end(&hit);
                caller.complete(inv.key, hit);
                return None;
            }
        }
        let hit = noted.take_hit();
        let remote = noted.remote();
        if !noted.is_empty() {
            lock(&self.running).insert((session, inv.key.0), noted);
        }
        if local {
            return Some(Event::Invoke(inv));
        }
        // A session that cannot be answered later (no waker): the call goes through.
        let Some(deferred) = later() else { return Some(Event::Invoke(inv)) };
        let running = Arc::downgrade(&self.running);
        super::runtime::io_runtime().spawn(async move {
            for limit in builtin::limits(&links) {
                if let Some(refused) = limit.admit(&inv.request, inv.origin.as_deref()).await {
                    // Refused: its line says so; no timing of a call the host never ran.
                    if let Some(noted) = running.upgrade().and_then(|r| lock(&r).remove(&(session, inv.key.0))) {
                        noted.end_refused(&refused);
                    }
                    (deferred.answer)(refused);
                    return;
                }
            }
            if let Some(hit) = hit {
                // Admitted, and answered from the cache: the host never runs it.
                if let Some(noted) = running.upgrade().and_then(|r| lock(&r).remove(&(session, inv.key.0))) {
                    noted.end(&hit);
                }
                (deferred.answer)(hit);
                return;
            }
            if let Some(hit) = match &remote {
                Some(r) => r.fetch().await,
                None => None,
            } {
                // Answered from the replicas' cache: the host never runs it.
                if let Some(noted) = running.upgrade().and_then(|r| lock(&r).remove(&(session, inv.key.0))) {
                    noted.end_hit(&hit);
                }
                (deferred.answer)(hit);
                return;
            }
            (deferred.deliver)(Event::Invoke(inv));
        });
        None
    }

    /// Call `key` of `session` ended with `outcome` (the host's, or the engine's for a call
    /// cancelled meanwhile): its timing and line end.
    pub(crate) fn finished(&self, session: u64, key: RequestKey, outcome: &Outcome) {
        let noted = lock(&self.running).remove(&(session, key.0));
        if let Some(noted) = noted {
            noted.end(outcome);
        }
    }

    /// Session `session` ended: what it was running is forgotten.
    pub(crate) fn session_ended(&self, session: u64) {
        lock(&self.running).retain(|(s, _), _| *s != session);
    }
}

/// How the built-ins' log line names the client of `inv` (`name/version`).
fn client_name(inv: &crate::engine::Invocation, caller: &mut dyn Caller) -> Option<String> {
    let client = inv.context.as_ref().and_then(|c| c.client_info.as_deref().cloned());
    client.or_else(|| caller.client_info()).map(|c| format!("{}/{}", c.name, c.version))
}
