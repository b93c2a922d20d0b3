//! The built-in dispatcher: the invocation path of a [`Runtime`] (the Rust handlers of a
//! server). A handler that
//! finishes without waiting is answered in place; one that waits runs on its own task.

use super::session::{Dispatcher, Session};
use crate::engine::{Event, RequestKey};
use crate::runtime::{panicked_masked, ready, CancelState, Context, Invoke, Runtime, Sink};
use futures_util::future::{AbortHandle, Abortable};
use futures_util::FutureExt;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

/// A handler running on its own task.
pub(crate) struct Running {
    abort: AbortHandle,
    cancel: Arc<CancelState>,
}

pub(crate) struct RustDispatcher {
    pub server: Arc<Runtime>,
}

impl Dispatcher for RustDispatcher {
    fn task_runtime(&self) -> Option<Arc<crate::runtime::tasks::TaskRuntime>> {
        self.server.task_runtime()
    }

    fn events(&self, session: &Arc<Session>, events: Vec<Event>) {
        for ev in events {
            match ev {
                Event::Invoke(inv) => {
                    let key = inv.key;
                    let mask = self.server.handlers().masks();
                    let panicked = move |p| panicked_masked(p, mask);
                    let cancel = Arc::new(CancelState::default());
                    let ctx = Context::new(
                        &inv,
                        Sink::Session(Arc::downgrade(session) as _),
                        session.peer_info(),
                        cancel.clone(),
                    );
                    let mut fut = match std::panic::catch_unwind(AssertUnwindSafe(|| self.server.invoke(inv, ctx))) {
                        Ok(fut) => AssertUnwindSafe(fut).catch_unwind(),
                        Err(p) => AssertUnwindSafe(ready(panicked(p))).catch_unwind(),
                    };
                    // Most handlers finish at once: no task, no wake-up.
                    if let Some(r) = (&mut fut).now_or_never() {
                        session.complete(key, r.unwrap_or_else(panicked));
                        continue;
                    }
                    let (abort, reg) = AbortHandle::new_pair();
                    session.tasks.lock().unwrap_or_else(|e| e.into_inner()).insert(key, Running { abort, cancel });
                    let s = session.clone();
                    let task = Abortable::new(fut, reg);
                    let spawn = async move {
                        let r = task.await;
                        s.tasks.lock().unwrap_or_else(|e| e.into_inner()).remove(&key);
                        if let Ok(r) = r {
                            s.complete(key, r.unwrap_or_else(panicked));
                        }
                    };
                    match session.shared.runtime.get() {
                        Some(rt) => {
                            rt.spawn(spawn);
                        }
                        None => {
                            tokio::spawn(spawn);
                        }
                    }
                }
                Event::Cancelled { key, .. } => cancel(session, key),
                Event::Notification { method, params, .. } => {
                    let _enter = session.shared.runtime.get().map(|rt| rt.enter());
                    self.server.notification(&method, params.as_ref());
                }
                _ => {}
            }
        }
    }

    fn closed(&self, session: &Arc<Session>) {
        let running: Vec<RequestKey> =
            session.tasks.lock().unwrap_or_else(|e| e.into_inner()).keys().copied().collect();
        for key in running {
            cancel(session, key);
        }
    }
}

fn cancel(session: &Session, key: RequestKey) {
    if let Some(r) = session.tasks.lock().unwrap_or_else(|e| e.into_inner()).remove(&key) {
        r.cancel.cancel();
        r.abort.abort();
    }
}
