//! Outbound bytes with their routing, so one buffer serves both a byte stream (stdio: take
//! everything at once) and message-routed transports (HTTP: each reply on its request's
//! stream).

use super::RequestKey;
use std::collections::VecDeque;

/// Where an outbound message belongs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// The final answer to the peer's request.
    Reply(RequestKey),
    /// A message sent while serving the peer's request (progress, logs, nested requests).
    Related(RequestKey),
    /// A response the engine wrote while handling input (requests it answers itself, and
    /// errors): it belongs with the input being handled (the HTTP POST that carried it).
    Answer,
    /// Anything else.
    Standalone,
}

/// One outbound message, for routed transports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transmit {
    /// Where it goes.
    pub route: Route,
    /// The JSON text (no newline).
    pub bytes: Vec<u8>,
}

#[derive(Debug, Default)]
pub(crate) struct Outbox {
    buf: Vec<u8>,
    start: usize,
    index: VecDeque<(Route, usize)>,
}

/// The buffer's capacity when a message starts it.
const FIRST_CAPACITY: usize = 256;

impl Outbox {
    /// Starts a message; write its JSON into the returned buffer, then call `finish`.
    pub(crate) fn begin(&mut self) -> &mut Vec<u8> {
        // Most messages fit: one allocation instead of a few doublings from 8 bytes.
        if self.buf.capacity() == 0 {
            self.buf.reserve(FIRST_CAPACITY);
        }
        &mut self.buf
    }

    pub(crate) fn finish(&mut self, route: Route) {
        self.buf.push(b'\n');
        self.index.push_back((route, self.buf.len()));
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Appends every pending message (newline-terminated) to `dst`.
    pub(crate) fn drain_into(&mut self, dst: &mut Vec<u8>) {
        if dst.is_empty() && self.start == 0 {
            std::mem::swap(dst, &mut self.buf);
        } else {
            dst.extend_from_slice(&self.buf[self.start..]);
            self.buf.clear();
        }
        self.start = 0;
        self.index.clear();
    }

    pub(crate) fn pop(&mut self) -> Option<Transmit> {
        let (route, end) = self.index.pop_front()?;
        if self.index.is_empty() && self.start == 0 {
            // The only message: handed over, not copied (its spare room given back: it may
            // be held a while, as a stream's event).
            let mut bytes = std::mem::take(&mut self.buf);
            bytes.truncate(end - 1);
            bytes.shrink_to_fit();
            return Some(Transmit { route, bytes });
        }
        let bytes = self.buf[self.start..end - 1].to_vec();
        self.start = end;
        if self.index.is_empty() {
            self.buf.clear();
            self.start = 0;
        }
        Some(Transmit { route, bytes })
    }
}
