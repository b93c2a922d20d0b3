//! Per-caller visibility of requests without a session (2026-07-28, and stateless HTTP): the
//! caller is the request's token subject. Its own rules (what `ctx.enable_components`, ...
//! made them) are kept in this process or, with replicas, in their shared store, read
//! through a cache here that the bus keeps current; its `subscriptions/listen` streams hear
//! of each list it now sees differently, on every replica.

use super::session::Session;
use super::table::{Listener, Shared};
use super::HttpService;
use crate::catalogue::visibility::{Rules, VisibilityChange};
use crate::catalogue::{ListKind, RegistryChange};
use crate::jsonrpc::RpcError;
use crate::store::BusMessage;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Most subjects whose rules this process keeps without a store (a change for one more is
/// refused, never someone's rules dropped); with a store, most cached (the cache then
/// starts again).
pub(crate) const MAX_VIEWS: usize = 100_000;

/// How long a shared store keeps a subject's rules after their last change.
pub(crate) const VIEW_TTL: Duration = Duration::from_secs(30 * 24 * 3600);

/// How long a replica trusts its copy of a subject's rules (the bus tells it of changes; this
/// bounds what a message lost while the bus reconnected can cost).
const REFRESH: Duration = Duration::from_secs(60);

/// The subjects' rules: all of them without a store; with one, a cache (no rules included, so
/// that a caller without any costs no store round trip a request).
#[derive(Default)]
pub(crate) struct Views {
    map: Mutex<ByCaller>,
}

/// Each subject's rules, and when they were last read from the store (or changed).
type ByCaller = HashMap<Arc<str>, (Arc<Rules>, Instant)>;

impl Views {
    fn lock(&self) -> std::sync::MutexGuard<'_, ByCaller> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The subject's rules as known here: `None` when a store must be asked (not cached, or
    /// cached too long ago).
    fn cached(&self, subject: &str, now: Instant, shared_store: bool) -> Option<Arc<Rules>> {
        match self.lock().get(subject) {
            Some((r, at)) if !shared_store || now.saturating_duration_since(*at) < REFRESH => Some(r.clone()),
            None if !shared_store => Some(Arc::new(Rules::new())),
            _ => None,
        }
    }

    /// Keeps what the store holds for the subject.
    fn remember(&self, subject: &str, rules: Rules, now: Instant) -> Arc<Rules> {
        let rules = Arc::new(rules);
        let mut m = self.lock();
        if m.len() >= MAX_VIEWS && !m.contains_key(subject) {
            m.clear();
        }
        m.insert(Arc::from(subject), (rules.clone(), now));
        rules
    }

    /// Applies `change` here (no store): the rules before and after.
    fn change(&self, subject: &str, change: &VisibilityChange, now: Instant) -> Result<(Rules, Rules), RpcError> {
        let mut m = self.lock();
        let old = m.get(subject).map(|(r, _)| (**r).clone()).unwrap_or_default();
        let new = change.apply(&old).map_err(RpcError::invalid_params)?;
        if new.is_empty() {
            m.remove(subject);
        } else if m.len() >= MAX_VIEWS && !m.contains_key(subject) {
            return Err(RpcError::internal(format!(
                "this server keeps the rules of at most {MAX_VIEWS} callers: the change of visibility was not made"
            )));
        } else {
            m.insert(Arc::from(subject), (Arc::new(new.clone()), now));
        }
        Ok((old, new))
    }
}

impl HttpService {
    /// The own rules of the authenticated caller of a request without a session (`None`:
    /// it has none); a 503 reply when the store that keeps them is unreachable
    /// (serving the request as anyone would show what the caller's rules hide).
    pub(super) async fn caller_view(&self, subject: &str) -> Result<Option<Arc<Rules>>, super::reply::Reply> {
        let sh = &self.shared;
        let now = Instant::now();
        let cluster = sh.cluster.get();
        let rules = match sh.views.cached(subject, now, cluster.is_some()) {
            Some(r) => r,
            None => {
                let Some(c) = cluster else { return Ok(None) };
                let rules = c.store.load_view(subject).await.map_err(|e| super::cluster::unavailable(&e))?;
                sh.views.remember(subject, rules, now)
            }
        };
        Ok((!rules.is_empty()).then_some(rules))
    }
}

impl Shared {
    /// Changes what the caller `subject` sees, for this request (`session`) and its next
    /// ones; `then` gets the outcome once the change is where every replica reads it.
    pub(super) fn change_view(
        self: &Arc<Self>,
        session: &Arc<Session>,
        subject: Arc<str>,
        change: &VisibilityChange,
        then: impl FnOnce(Result<(), RpcError>) + Send + 'static,
    ) {
        let now = Instant::now();
        let (Some(c), Some(rt)) = (self.cluster.get(), self.runtime.get()) else {
            let r = self
                .views
                .change(&subject, change, now)
                .map(|(old, new)| self.view_changed(session, &subject, &old, new));
            return then(r.map(drop));
        };
        // Refused at once when it is no change (no criterion, too many rules).
        let known = self.views.cached(&subject, now, false).unwrap_or_default();
        if let Err(e) = change.apply(&known) {
            return then(Err(RpcError::invalid_params(e)));
        }
        let (store, me, session, change) = (c.store.clone(), self.clone(), session.clone(), change.clone());
        rt.spawn(async move {
            let (old, new) = match store.change_view(&subject, &change, VIEW_TTL).await {
                Ok(r) => r,
                Err(e) => {
                    return then(Err(RpcError::internal(format!(
                        "the shared store is unavailable: the change of visibility was not saved ({e})"
                    ))))
                }
            };
            me.views.remember(&subject, new.clone(), Instant::now());
            let lists = me.view_changed(&session, &subject, &old, new.clone());
            // Told even when no list looks different now: the rules decide for what is added later.
            if old != new {
                let msg = BusMessage::View { subject: subject.to_string(), rules: new, lists };
                if let Err(e) = store.publish(crate::store::Target::All, &msg).await {
                    let within = format!("{REFRESH:?}");
                    tracing::warn!(target: "hypermcp::session", error = %e, within, "the other replicas were not told of a change of visibility; they read it again within a minute");
                }
            }
            then(Ok(()));
        });
    }

    /// The caller's rules went from `old` to `new`: the request at hand sees them, and its
    /// listen streams here hear of the lists it sees differently (returned).
    fn view_changed(&self, session: &Session, subject: &str, old: &Rules, new: Rules) -> Vec<ListKind> {
        let lists = self.registry.view_changes(Some(old), Some(&new));
        session.with(|i| {
            if !i.closed {
                i.engine.set_caller_rules(new);
            }
        });
        self.tell_view(subject, &lists);
        lists
    }

    /// Another replica changed what `subject` sees: its next requests here see it too, and its
    /// listen streams here hear of `lists`.
    pub(super) fn view_told(&self, subject: &str, rules: Rules, lists: &[ListKind]) {
        self.views.remember(subject, rules, Instant::now());
        self.tell_view(subject, lists);
    }

    /// Tells the listen streams of `subject` that it sees `lists` differently.
    fn tell_view(&self, subject: &str, lists: &[ListKind]) {
        if lists.is_empty() {
            return;
        }
        let mut wakers = Vec::new();
        for l in self.listeners_of(subject) {
            if let Listener::Lean(l) = l {
                for &kind in lists {
                    l.tell(&RegistryChange::ListChanged(kind), &mut wakers);
                }
            }
        }
        wakers.into_iter().for_each(std::task::Waker::wake);
    }
}
