//! The bridge to JavaScript: events and payloads as JSON text (V8's `JSON.parse` builds
//! objects faster than property-by-property construction from native code), durations in
//! milliseconds, and the wake-up of Node's loop.

use crate::errors::option_err;
use hypermcp::engine::{Event, Origin, RequestContext};
use hypermcp::transport::host::events::{write_context, write_json, write_json_with};
use hypermcp::transport::host::TimeUnit;
use napi::bindgen_prelude::Unknown;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Env, Status};
use serde_json::Value;
use std::io::Write as _;
use std::sync::{Arc, Mutex, MutexGuard};

/// JavaScript speaks milliseconds: every duration crosses in them.
pub const UNIT: TimeUnit = TimeUnit::Milliseconds;

/// A JS function called with no arguments, its result ignored; weak (it keeps Node alive
/// only while held).
pub type WakeFn = ThreadsafeFunction<(), Unknown<'static>, (), Status, false, true>;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The wake-up of Node's loop: the I/O thread calls a JS function (one queued call, no
/// arguments); while the work it announces may still come, it keeps Node alive.
pub struct Wake {
    tsfn: Arc<Mutex<WakeFn>>,
    held: Mutex<bool>,
}

impl Wake {
    /// Wraps `tsfn`; the function that calls it can be called from any thread.
    pub fn new(tsfn: WakeFn) -> (Wake, impl Fn() + Send + Sync + 'static) {
        let tsfn = Arc::new(Mutex::new(tsfn));
        let t = tsfn.clone();
        let signal = move || {
            lock(&t).call((), ThreadsafeFunctionCallMode::NonBlocking);
        };
        (Wake { tsfn, held: Mutex::new(false) }, signal)
    }

    /// Keeps Node alive (`true`) or lets it exit when idle (`false`).
    #[allow(deprecated)] // refer/unref: the documented way to make a weak function strong
    pub fn hold(&self, env: &Env, hold: bool) -> napi::Result<()> {
        let mut held = lock(&self.held);
        if *held != hold {
            *held = hold;
            let mut f = lock(&self.tsfn);
            if hold {
                f.refer(env)?;
            } else {
                f.unref(env)?;
            }
        }
        Ok(())
    }
}

/// Every event `next` gives, as [`events_json`].
pub fn poll_events_json(next: impl FnMut() -> Option<Event>) -> String {
    events_json(&std::iter::from_fn(next).collect::<Vec<_>>())
}

/// What a session queued for the peer, as a buffer; null when nothing is (cheaper for JS
/// than an empty buffer: most flushes of an HTTP session, and many of a stream, have none).
pub fn output(take: impl FnOnce(&mut Vec<u8>)) -> Option<napi::bindgen_prelude::Buffer> {
    let mut out = Vec::new();
    take(&mut out);
    (!out.is_empty()).then(|| out.into())
}

/// Events as JSON text of an array of `[kind, field, ...]` arrays (the layout:
/// `events.cjs`), or an empty string when there are none.
pub fn events_json(events: &[Event]) -> String {
    if events.is_empty() {
        return String::new();
    }
    let mut out = Vec::with_capacity(256);
    write_events(events, None, &mut out);
    // Every piece of it is JSON text: UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// The 2026-07-28 request contexts JS holds, by slot. The engine shares one context between
/// the requests whose `_meta` read the same, so most calls an HTTP server hands over carry
/// the same few: an event names the slot of one JS already holds (a number) instead of
/// carrying it again, and gives `[slot, context]` for one it does not (a multi round-trip
/// retry's context, which holds the client's answers, goes inline, kept nowhere). Holding the `Arc`
/// keeps that context as it was (the engine copies a shared context before changing it) and
/// its address from being reused.
///
/// The HTTP requests' origins (`ctx.headers`, `ctx.sessionId`, `ctx.auth`) are not written
/// at all: each is kept in `origins` and the event gives its index there; JS takes the
/// batch's with [`ContextSlots::take_origins`], each an external value that holds it until
/// JS lets it go, made JSON only if a handler reads it. (Every header of every call written
/// as JSON and parsed again cost Node's thread a third of what the revision's work added to
/// a 1-connection HTTP echo.)
#[derive(Default)]
pub struct ContextSlots {
    contexts: HeldContexts,
    origins: Vec<Arc<Origin>>,
}

/// The contexts JS keeps, in slots reused in turn.
#[derive(Default)]
struct HeldContexts {
    held: [Option<Arc<RequestContext>>; CONTEXT_SLOTS],
    next: usize,
}

/// Contexts JS holds at once (the engine keeps the last `_meta` read per worker thread).
const CONTEXT_SLOTS: usize = 8;
const _: () = assert!(CONTEXT_SLOTS <= 10, "a slot is written as one digit");

impl HeldContexts {
    fn write(&mut self, c: &Arc<RequestContext>, out: &mut Vec<u8>) {
        // A retry's context is its own (the engine copies it to add the inputs) and carries
        // the client's answers: it goes inline and is kept by neither side.
        if c.input_responses.is_some() || c.request_state.is_some() || c.round != 0 {
            return write_context(c, out);
        }
        // A slot is one digit.
        if let Some(i) = self.held.iter().position(|h| h.as_ref().is_some_and(|h| Arc::ptr_eq(h, c))) {
            out.push(b'0' + i as u8);
            return;
        }
        let i = self.next;
        self.next = (i + 1) % CONTEXT_SLOTS;
        self.held[i] = Some(c.clone());
        out.extend_from_slice(&[b'[', b'0' + i as u8, b',']);
        write_context(c, out);
        out.push(b']');
    }
}

impl ContextSlots {
    /// The origins the events written since the last take name, by index.
    pub fn take_origins(&mut self) -> Vec<Arc<Origin>> {
        std::mem::take(&mut self.origins)
    }
}

/// Events as [`events_json`] writes them (`[]` when there are none), appended to `out`;
/// with `slots`, each request context as they say (its slot, or `[slot, context]`): what
/// `HttpServer.poll` hands JS.
pub fn write_events(events: &[Event], mut slots: Option<&mut ContextSlots>, out: &mut Vec<u8>) {
    out.push(b'[');
    for (i, ev) in events.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        match slots.as_deref_mut() {
            Some(ContextSlots { contexts, origins }) => write_json_with(
                ev,
                out,
                |c, out| contexts.write(c, out),
                |o, out| {
                    let _ = write!(out, "{}", origins.len());
                    origins.push(o.clone());
                },
            ),
            None => write_json(ev, out, write_context),
        }
    }
    out.push(b']');
}

/// Parses options, or a payload JS built, from JSON text; a refusal is an `OptionError`.
pub fn parse_json(env: &Env, text: &str, what: &str) -> napi::Result<Value> {
    serde_json::from_str(text).map_err(|e| option_err(env, format!("invalid {what}: {e}")))
}

/// Parses a typed payload from JSON text, naming what it was for errors.
pub fn parse<T: serde::de::DeserializeOwned>(text: &str, what: &str) -> napi::Result<T> {
    serde_json::from_str(text).map_err(|e| napi::Error::from_reason(format!("invalid {what}: {e}")))
}
