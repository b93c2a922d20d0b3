//! `subscriptions/listen` (2026-07-28): a long-lived request whose answer is a stream of the
//! change notifications the client opted in to, each tagged with the subscription's id.
//! The engine keeps the open subscriptions of a session, acknowledges each with the subset
//! it will honour, filters every registry change through them, and answers them all when
//! the session closes (their graceful end).

use super::outbox::Route;
use super::server::{ServerRole, ServerSession};
use crate::catalogue::{ListKind, RegistryChange};
use crate::engine::peer::{params, Peer};
use crate::jsonrpc::{RawJson, RequestId, RpcError};
use crate::protocol::meta_keys::SUBSCRIPTION_ID;
use crate::protocol::{ServerCapabilities, SubscriptionFilter};
use serde::Deserialize;
use serde_json::{json, Value};

/// One open subscription: what it receives, and the id that tags its messages.
pub(crate) struct Listen {
    filter: SubscriptionFilter,
    id: Value,
    /// Who opened it (the verified token's subject or client): only that owner's tasks are
    /// sent on it.
    owner: Option<String>,
}

#[derive(Deserialize)]
struct ListenParams {
    notifications: Option<SubscriptionFilter>,
}

/// The part of `asked` this server can honour.
fn agreed(asked: SubscriptionFilter, caps: &ServerCapabilities) -> SubscriptionFilter {
    let on = |flag: Option<bool>, offered: bool| flag.filter(|f| *f && offered);
    let resources = caps.resources.is_some();
    let tasks = caps.extensions.as_ref().is_some_and(|e| e.contains_key(crate::store::tasks::TASKS_EXTENSION));
    SubscriptionFilter {
        tools_list_changed: on(asked.tools_list_changed, caps.tools.is_some()),
        prompts_list_changed: on(asked.prompts_list_changed, caps.prompts.is_some()),
        resources_list_changed: on(asked.resources_list_changed, resources),
        resource_subscriptions: asked.resource_subscriptions.filter(|uris| resources && !uris.is_empty()),
        task_ids: asked.task_ids.filter(|ids| tasks && !ids.is_empty()),
    }
}

/// `notifications/tasks` for a listen stream of `owner` following `filter`, when `change` is
/// one of its tasks: the task as `tasks/get` gives it, tagged with the stream's id.
fn task_notification(
    filter: &SubscriptionFilter,
    owner: &Option<String>,
    change: &RegistryChange,
    tag: &Value,
) -> Option<Value> {
    let RegistryChange::TaskChanged { id, owner: task_owner, detailed } = change else { return None };
    if task_owner != owner || !filter.task_ids.as_ref().is_some_and(|ids| ids.contains(id)) {
        return None;
    }
    let mut params: Value = serde_json::from_str(detailed).ok()?;
    params["_meta"] = json!({ SUBSCRIPTION_ID: tag });
    Some(params)
}

/// The notification a change is, when `filter` asks for it.
fn notification(filter: &SubscriptionFilter, change: &RegistryChange) -> Option<(&'static str, Option<String>)> {
    match change {
        RegistryChange::ListChanged(ListKind::Tools) if filter.tools_list_changed == Some(true) => {
            Some(("notifications/tools/list_changed", None))
        }
        RegistryChange::ListChanged(ListKind::Prompts) if filter.prompts_list_changed == Some(true) => {
            Some(("notifications/prompts/list_changed", None))
        }
        RegistryChange::ListChanged(ListKind::Resources | ListKind::ResourceTemplates)
            if filter.resources_list_changed == Some(true) =>
        {
            Some(("notifications/resources/list_changed", None))
        }
        RegistryChange::ResourceUpdated(uri)
            if filter.resource_subscriptions.as_ref().is_some_and(|u| u.iter().any(|x| x == uri)) =>
        {
            Some(("notifications/resources/updated", Some(uri.clone())))
        }
        _ => None,
    }
}

impl ServerRole {
    /// Opens a subscription: acknowledges it (the first message carrying its id) and keeps
    /// it until the client cancels it or the session ends.
    pub(super) fn listen(
        &mut self,
        peer: &mut Peer,
        id: RequestId,
        raw: Option<RawJson<'_>>,
        ctx: std::sync::Arc<super::modern::RequestContext>,
    ) -> Result<(), RpcError> {
        let p: ListenParams = params(raw)?;
        let Some(asked) = p.notifications else {
            return Err(RpcError::invalid_params("subscriptions/listen needs a notifications filter"));
        };
        // Subscriptions the client has cancelled are forgotten before counting.
        self.listens.retain(|k, _| peer.inflight.contains_key(k));
        if self.listens.len() >= self.config.max_listeners {
            return Err(RpcError::internal(format!(
                "this server keeps at most {} subscriptions open at once",
                self.config.max_listeners
            )));
        }
        if asked.task_ids.as_ref().is_some_and(|ids| !ids.is_empty()) {
            use crate::store::tasks::TASKS_EXTENSION;
            let declared = ctx.client_capabilities.extensions.as_ref().is_some_and(|e| e.contains_key(TASKS_EXTENSION));
            if !declared {
                return Err(super::missing_extension(TASKS_EXTENSION));
            }
        }
        let filter = agreed(asked, &self.build_capabilities());
        let owner = peer
            .origin
            .as_ref()
            .and_then(|o| o.auth.as_ref())
            .and_then(|a| a.subject.clone().or_else(|| a.client_id.clone()));
        let tag = id.to_value();
        let key = peer.begin(id, None, None, None, Some(ctx));
        let ack = json!({ "_meta": { SUBSCRIPTION_ID: tag }, "notifications": filter });
        peer.notify(Route::Related(key), "notifications/subscriptions/acknowledged", Some(&ack));
        self.listens.insert(key, Listen { filter, id: tag, owner });
        Ok(())
    }
}

impl Listen {
    /// The notification (method and params) `change` is for this subscription, if any.
    fn message(&self, change: &RegistryChange) -> Option<(&'static str, Value)> {
        if let Some(params) = task_notification(&self.filter, &self.owner, change, &self.id) {
            return Some(("notifications/tasks", params));
        }
        let (method, uri) = notification(&self.filter, change)?;
        let mut params = json!({ "_meta": { SUBSCRIPTION_ID: self.id } });
        if let Some(uri) = uri {
            params["uri"] = Value::String(uri);
        }
        Some((method, params))
    }

    /// The answer that ends it (the server's graceful close).
    fn end_result(&self) -> Value {
        json!({ "resultType": "complete", "_meta": { SUBSCRIPTION_ID: self.id } })
    }
}

/// A subscription taken out of its session ([`ServerSession::detach_listen`]): what a
/// transport keeps of an acknowledged listener, instead of the whole session, to write its
/// notifications and its end.
pub struct DetachedListen {
    listen: Listen,
    request: RequestId,
}

impl std::fmt::Debug for DetachedListen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DetachedListen").field("request", &self.request).finish_non_exhaustive()
    }
}

impl DetachedListen {
    /// The notification (JSON-RPC text) `change` is for this subscription, if any.
    pub fn notification(&self, change: &RegistryChange) -> Option<Vec<u8>> {
        let (method, params) = self.listen.message(change)?;
        let mut out = Vec::new();
        crate::jsonrpc::write_notification(&mut out, method, Some(&params));
        Some(out)
    }

    /// The response (JSON-RPC text) that ends the subscription: the server's graceful close.
    pub fn end(&self) -> Vec<u8> {
        let mut out = Vec::new();
        crate::jsonrpc::write_result(&mut out, &self.request, &self.listen.end_result());
        out
    }
}

impl ServerSession {
    /// Sends `change` on every subscription that asked for it.
    pub(super) fn notify_listens(&mut self, change: &RegistryChange) {
        if self.role.listens.is_empty() {
            return;
        }
        let peer = &mut self.peer;
        self.role.listens.retain(|k, _| peer.inflight.contains_key(k));
        for (key, l) in &self.role.listens {
            if let Some((method, params)) = l.message(change) {
                peer.notify(Route::Related(*key), method, Some(&params));
            }
        }
    }

    /// Takes the session's one open subscription out of it: the session no longer answers
    /// or notifies it (the caller does, from what is returned). `None` unless exactly one
    /// subscription is open.
    pub fn detach_listen(&mut self) -> Option<DetachedListen> {
        let peer = &mut self.peer;
        self.role.listens.retain(|k, _| peer.inflight.contains_key(k));
        if self.role.listens.len() != 1 {
            return None;
        }
        let (key, listen) = self.role.listens.drain().next()?;
        let inf = self.peer.end(key)?;
        Some(DetachedListen { listen, request: inf.id })
    }

    /// Answers every open subscription (the server ends them: their graceful close).
    pub(super) fn end_listens(&mut self) {
        for (key, l) in std::mem::take(&mut self.role.listens) {
            let Some(inf) = self.peer.end(key) else { continue };
            self.peer.write_result(&inf.id, None, Route::Reply(key), &l.end_result());
        }
    }

    /// Open `subscriptions/listen` streams.
    pub fn listen_count(&self) -> usize {
        self.role.listens.keys().filter(|k| self.peer.inflight.contains_key(k)).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ListChangedCapability;

    #[test]
    fn the_server_agrees_to_what_it_offers() {
        let caps = ServerCapabilities { tools: Some(ListChangedCapability::default()), ..Default::default() };
        let asked = SubscriptionFilter {
            tools_list_changed: Some(true),
            prompts_list_changed: Some(true),
            resource_subscriptions: Some(vec!["a://b".into()]),
            ..Default::default()
        };
        let got = agreed(asked, &caps);
        assert_eq!(got.tools_list_changed, Some(true));
        assert_eq!(got.prompts_list_changed, None);
        assert_eq!(got.resource_subscriptions, None);
        assert!(notification(&got, &RegistryChange::ListChanged(ListKind::Tools)).is_some());
        assert!(notification(&got, &RegistryChange::ListChanged(ListKind::Prompts)).is_none());
    }
}
