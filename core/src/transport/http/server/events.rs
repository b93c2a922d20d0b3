//! Where SSE events wait for a client that reconnects with `Last-Event-ID`.

use bytes::Bytes;
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

/// Keeps the events of each SSE stream so a client that lost its connection can resume it
/// (`GET` with `Last-Event-ID`). Event ids are `<stream>-<seq>`: the session's stream
/// number and the event's place in it, both assigned by the server.
pub trait EventStore: Send + Sync + 'static {
    /// Stores event `seq` (1, 2, …) of `stream` in `session` (`""` without sessions).
    fn store(&self, session: &str, stream: u64, seq: u64, data: &Bytes);
    /// The stored events of `stream` after `after`, oldest first, or `None` when the store
    /// no longer has every event after `after` (the client cannot resume without a gap).
    fn replay(&self, session: &str, stream: u64, after: u64) -> Option<Vec<(u64, Bytes)>>;
    /// Forgets a stream (it was delivered in full).
    fn forget_stream(&self, session: &str, stream: u64);
    /// Forgets a session.
    fn forget_session(&self, session: &str);
}

/// The events kept for one stream: `(seq, data)`, oldest first, and their bytes.
#[derive(Default)]
struct Kept {
    events: VecDeque<(u64, Bytes)>,
    bytes: usize,
}

/// The events kept for each stream of one session.
type Streams = HashMap<u64, Kept>;

/// The default [`EventStore`]: the last `per_stream` events of each stream, in memory,
/// within a byte budget per stream.
pub struct InMemoryEventStore {
    per_stream: usize,
    max_bytes: usize,
    sessions: Mutex<HashMap<String, Streams>>,
}

impl InMemoryEventStore {
    /// Keeps at most `per_stream` events of each stream, and at most 8 MiB of them (older
    /// ones are dropped; the newest is always kept).
    pub fn new(per_stream: usize) -> Self {
        InMemoryEventStore { per_stream: per_stream.max(1), max_bytes: 8 << 20, sessions: Mutex::new(HashMap::new()) }
    }

    /// The byte budget of each stream's kept events (default 8 MiB).
    pub fn max_bytes(mut self, bytes: usize) -> Self {
        self.max_bytes = bytes;
        self
    }

    /// How many events are held in all (for tests and metrics).
    pub fn len(&self) -> usize {
        let s = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        s.values().flat_map(|m| m.values()).map(|k| k.events.len()).sum()
    }

    /// Whether no event is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl std::fmt::Debug for InMemoryEventStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InMemoryEventStore").field("per_stream", &self.per_stream).finish_non_exhaustive()
    }
}

impl EventStore for InMemoryEventStore {
    fn store(&self, session: &str, stream: u64, seq: u64, data: &Bytes) {
        let mut s = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        let streams = match s.get_mut(session) {
            Some(m) => m,
            None => s.entry(session.to_string()).or_default(),
        };
        let k = streams.entry(stream).or_default();
        k.events.push_back((seq, data.clone()));
        k.bytes += data.len();
        while k.events.len() > self.per_stream || (k.bytes > self.max_bytes && k.events.len() > 1) {
            if let Some((_, old)) = k.events.pop_front() {
                k.bytes -= old.len();
            }
        }
    }

    fn replay(&self, session: &str, stream: u64, after: u64) -> Option<Vec<(u64, Bytes)>> {
        let s = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        let Some(q) = s.get(session).and_then(|m| m.get(&stream)).map(|k| &k.events) else {
            return if after == 0 { Some(Vec::new()) } else { None };
        };
        // A gap: the first kept event is not the one right after `after`.
        if q.front().is_some_and(|(first, _)| *first > after + 1) {
            return None;
        }
        Some(q.iter().filter(|(seq, _)| *seq > after).cloned().collect())
    }

    fn forget_stream(&self, session: &str, stream: u64) {
        let mut s = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = s.get_mut(session) {
            m.remove(&stream);
            if m.is_empty() {
                s.remove(session);
            }
        }
    }

    fn forget_session(&self, session: &str) {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner()).remove(session);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replays_after_and_detects_gaps() {
        let st = InMemoryEventStore::new(2);
        for i in 1..=3 {
            st.store("s", 1, i, &Bytes::from(format!("e{i}")));
        }
        // Event 1 was dropped: resuming after 0 would miss it.
        assert!(st.replay("s", 1, 0).is_none());
        let r = st.replay("s", 1, 1).expect("no gap after 1");
        assert_eq!(r.iter().map(|(s, _)| *s).collect::<Vec<_>>(), vec![2, 3]);
        assert_eq!(st.replay("s", 1, 3).expect("nothing missing"), vec![]);
        assert_eq!(st.len(), 2);
        // The byte budget drops the oldest too, but keeps the newest whatever its size.
        let st2 = InMemoryEventStore::new(100).max_bytes(10);
        for i in 1..=3 {
            st2.store("s", 1, i, &Bytes::from(vec![b'x'; 6]));
        }
        assert_eq!(st2.len(), 1);
        assert!(st2.replay("s", 1, 2).is_some_and(|r| r.len() == 1));
        st.forget_stream("s", 1);
        assert!(st.is_empty());
        st.store("s", 2, 1, &Bytes::from_static(b"x"));
        st.forget_session("s");
        assert!(st.is_empty());
    }
}
