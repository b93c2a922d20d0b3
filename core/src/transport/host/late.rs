//! What reaches a host's stream session from other threads (the [`HostSession`] of a byte
//! stream the host owns): the answer to a `tasks/result` that waited for its task, the
//! requests that wait sends the client (the task's input requests), and the changes of the
//! tasks a 2025-11-25 session follows (`notifications/tasks/status`).
//!
//! They wait in the session's [`Inbox`] until the host polls the session: the host gives a
//! wake function ([`HostSession::set_waker`]), called (from any thread) when the inbox has
//! something after having had nothing. An HTTP session needs none of this: the engine's
//! service owns it, and other threads act on it directly.
//!
//! [`HostSession`]: super::HostSession
//! [`HostSession::set_waker`]: super::HostSession::set_waker

use crate::catalogue::RegistryChange;
use crate::engine::{Outcome, RequestKey};
use crate::runtime::{Command, CommandSink};
use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard};

/// How many task changes an inbox keeps for a host that does not poll: beyond this the
/// oldest are dropped (a change is only news: `tasks/get` tells the state at any time).
const MAX_CHANGES: usize = 4096;

/// Something for the session, from another thread.
pub(crate) enum Item {
    /// A command of a context the runtime answers with (a request to the client).
    Command(Command),
    /// A call the runtime answered late.
    Complete(RequestKey, Outcome),
    /// A change of the server's registry (a task's status).
    Change(RegistryChange),
    /// A call the built-in middleware admitted on the I/O runtime: for the host now.
    Admitted(crate::engine::Event),
}

/// The queue of [`Item`]s of one stream session, with its host's wake function.
pub(crate) struct Inbox {
    items: Mutex<(VecDeque<Item>, usize)>,
    wake: Box<dyn Fn() + Send + Sync>,
}

impl Inbox {
    pub(crate) fn new(wake: impl Fn() + Send + Sync + 'static) -> Self {
        Inbox { items: Mutex::new((VecDeque::new(), 0)), wake: Box::new(wake) }
    }

    fn lock(&self) -> MutexGuard<'_, (VecDeque<Item>, usize)> {
        self.items.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues `item`; wakes the host when the queue was empty.
    pub(crate) fn push(&self, item: Item) {
        let first = {
            let mut g = self.lock();
            let (items, changes) = &mut *g;
            if matches!(item, Item::Change(_)) {
                if *changes == MAX_CHANGES {
                    if let Some(at) = items.iter().position(|i| matches!(i, Item::Change(_))) {
                        items.remove(at);
                        *changes -= 1;
                    }
                }
                *changes += 1;
            }
            items.push_back(item);
            items.len() == 1
        };
        if first {
            (self.wake)();
        }
    }

    /// Whether something is queued.
    pub(crate) fn has_items(&self) -> bool {
        !self.lock().0.is_empty()
    }

    /// Everything queued.
    pub(crate) fn take(&self) -> VecDeque<Item> {
        let mut g = self.lock();
        g.1 = 0;
        std::mem::take(&mut g.0)
    }
}

impl CommandSink for Inbox {
    fn apply(&self, cmd: Command) -> Result<(), ()> {
        self.push(Item::Command(cmd));
        Ok(())
    }
}
