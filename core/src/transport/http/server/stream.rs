//! One SSE stream of a session (a POST's replies, the GET stream, or a legacy SSE
//! connection): the messages routed to it, the decision between a JSON body and an SSE
//! stream, event ids, and the response body that drains it.

use super::events::EventStore;
use bytes::{BufMut, Bytes, BytesMut};
use http_body::{Body, Frame, SizeHint};
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

/// What a stream carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The replies to one POST: ends once its answer is out.
    Post,
    /// The session's standalone GET stream.
    Get,
    /// A legacy HTTP+SSE connection: everything, `event: message` without ids.
    Legacy,
}

/// How a POST is answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Not decided yet: messages are held.
    Pending,
    /// One JSON body with the answer.
    Json,
    /// An SSE stream.
    Sse,
}

pub(crate) struct Queue {
    pub mode: Mode,
    /// Messages held while the mode is pending (and the answer in JSON mode).
    pub held: Vec<Bytes>,
    /// Answers still to come.
    pub expected: usize,
    /// A message other than an answer arrived (so the reply must be a stream).
    pub related: bool,
    /// SSE bytes not yet taken by the body.
    pub frames: BytesMut,
    /// Last event number given out.
    pub seq: u64,
    /// A body (or the POST waiting for its answer) is reading this stream.
    pub attached: bool,
    /// No more messages will come.
    pub finished: bool,
    /// End the current connection (the stream stays resumable).
    pub hang_up: bool,
    pub waker: Option<Waker>,
    /// Most bytes waiting for the reader (`usize::MAX`: no limit). A stream past it is
    /// dropped: what waited is freed and it ends ([`Queue::overflowed`]).
    pub limit: usize,
    /// The reader fell behind by more than `limit`.
    pub overflowed: bool,
}

impl Queue {
    /// Bytes waiting for the reader (encoded events, and messages held before the reply's
    /// form is decided).
    pub fn waiting(&self) -> usize {
        self.frames.len() + self.held.iter().map(Bytes::len).sum::<usize>()
    }
}

pub(crate) struct Stream {
    pub id: u64,
    pub kind: Kind,
    /// The session id for the event store (`""` without sessions).
    pub session: Arc<str>,
    /// Give SSE events ids (resumable streams).
    pub ids: bool,
    pub store: Arc<dyn EventStore>,
    pub q: Mutex<Queue>,
}

/// Appends one `message` event.
fn encode(frames: &mut BytesMut, id: Option<(u64, u64)>, legacy: bool, data: &[u8]) {
    frames.reserve(data.len() + 48);
    if let Some((stream, seq)) = id {
        frames.put_slice(format!("id: {stream}-{seq}\n").as_bytes());
    }
    if legacy {
        frames.put_slice(b"event: message\n");
    }
    frames.put_slice(b"data: ");
    frames.put_slice(data);
    frames.put_slice(b"\n\n");
}

impl Stream {
    pub fn new(
        id: u64,
        kind: Kind,
        session: Arc<str>,
        ids: bool,
        store: Arc<dyn EventStore>,
        expected: usize,
    ) -> Arc<Self> {
        let mode = if kind == Kind::Post { Mode::Pending } else { Mode::Sse };
        Arc::new(Stream {
            id,
            kind,
            session,
            ids,
            store,
            q: Mutex::new(Queue {
                mode,
                held: Vec::new(),
                expected,
                related: false,
                frames: BytesMut::new(),
                seq: 0,
                attached: true,
                finished: false,
                hang_up: false,
                waker: None,
                limit: usize::MAX,
                overflowed: false,
            }),
        })
    }

    pub fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.q.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds a message. `Err` gives it back when this stream cannot carry it (a JSON reply
    /// carries only its answer, a finished stream nothing).
    pub fn push(&self, msg: Bytes, answer: bool, wakers: &mut Vec<Waker>) -> Result<(), Bytes> {
        let mut q = self.lock();
        if q.finished {
            return Err(msg);
        }
        let waiting = q.waiting();
        if q.limit != usize::MAX && waiting > 0 && waiting + msg.len() > q.limit {
            if self.ids && q.mode != Mode::Json {
                // A resumable stream loses nothing: its events are in the event store. What
                // waited for this connection is freed and the connection ends after what it
                // already sent; the client resumes with `Last-Event-ID` (the store's retention
                // permitting).
                let pending = q.mode == Mode::Pending;
                if pending {
                    self.start_sse(&mut q, None);
                }
                q.frames = BytesMut::new();
                if pending {
                    // The reply becomes a stream the client has not seen yet: its priming
                    // event tells it the stream to resume.
                    q.frames.put_slice(format!("id: {}-0\ndata: \n\n", self.id).as_bytes());
                }
                q.hang_up = true;
                crate::metrics::STREAMS_OVERFLOWED.inc();
                tracing::info!(target: "hypermcp::http", stream = self.id, limit = q.limit,
                    "a client is not reading its event stream: its connection ends (it resumes from the event store)");
            } else {
                // A reader this far behind is dropped, not buffered for without bound.
                q.frames = BytesMut::new();
                q.held = Vec::new();
                q.finished = true;
                q.overflowed = true;
                crate::metrics::STREAMS_OVERFLOWED.inc();
                tracing::info!(target: "hypermcp::http", stream = self.id, limit = q.limit,
                    "a client is not reading its event stream: the stream is dropped");
                if let Some(w) = q.waker.take() {
                    wakers.push(w);
                }
                return Err(msg);
            }
        }
        match q.mode {
            Mode::Json if !answer => return Err(msg),
            Mode::Pending | Mode::Json => {
                if !answer {
                    q.related = true;
                }
                q.held.push(msg);
            }
            Mode::Sse => self.emit(&mut q, &msg),
        }
        if answer {
            q.expected = q.expected.saturating_sub(1);
            if q.expected == 0 && self.kind == Kind::Post {
                q.finished = true;
            }
        }
        if let Some(w) = q.waker.take() {
            wakers.push(w);
        }
        Ok(())
    }

    /// Encodes one message as an event (stored for replay when it has an id).
    fn emit(&self, q: &mut Queue, msg: &Bytes) {
        if self.ids {
            q.seq += 1;
            self.store.store(&self.session, self.id, q.seq, msg);
            // After a hang-up this connection carries nothing more: the client resumes after
            // the last event it got, and the store replays the rest.
            if !q.hang_up {
                encode(&mut q.frames, Some((self.id, q.seq)), false, msg);
            }
        } else {
            encode(&mut q.frames, None, self.kind == Kind::Legacy, msg);
        }
    }

    /// Switches a pending POST to SSE: a priming event (an id and `retry`, so the client can
    /// resume), then what was held.
    pub fn start_sse(&self, q: &mut Queue, retry: Option<Duration>) {
        q.mode = Mode::Sse;
        if let (true, Some(r)) = (self.ids, retry) {
            q.frames.put_slice(format!("id: {}-0\nretry: {}\ndata: \n\n", self.id, r.as_millis()).as_bytes());
        }
        for m in std::mem::take(&mut q.held) {
            self.emit(q, &m);
        }
    }

    /// Ends the stream: no more messages.
    pub fn finish(&self, wakers: &mut Vec<Waker>) {
        let mut q = self.lock();
        q.finished = true;
        if let Some(w) = q.waker.take() {
            wakers.push(w);
        }
    }

    /// One answer will never come (its request was cancelled).
    pub fn forgo_answer(&self, wakers: &mut Vec<Waker>) {
        let mut q = self.lock();
        q.expected = q.expected.saturating_sub(1);
        if q.expected == 0 && self.kind == Kind::Post {
            q.finished = true;
        }
        if let Some(w) = q.waker.take() {
            wakers.push(w);
        }
    }

    /// Closes the current connection early (the client resumes with `Last-Event-ID`): a
    /// pending POST becomes an SSE stream (priming event first), then a `retry` hint, then
    /// the connection ends. False for a stream that cannot be resumed.
    pub fn hang_up(&self, retry: Duration, wakers: &mut Vec<Waker>) -> bool {
        let mut q = self.lock();
        if !self.ids || q.finished || q.mode == Mode::Json {
            return false;
        }
        if q.mode == Mode::Pending {
            self.start_sse(&mut q, Some(retry));
        }
        q.frames.put_slice(format!("retry: {}\n\n", retry.as_millis()).as_bytes());
        q.hang_up = true;
        if let Some(w) = q.waker.take() {
            wakers.push(w);
        }
        true
    }
}

/// Called when a stream body goes away (finished or the client left).
pub(crate) trait Detach: Send + Sync {
    fn detached(&self, stream: &Arc<Stream>, delivered: bool);
}

/// The body of an SSE response: drains its stream, with keep-alive comments.
pub(crate) struct SseBody {
    pub stream: Arc<Stream>,
    /// The session: kept alive while its stream is being sent (a stateless session has no
    /// other owner), told when the body goes away.
    pub owner: Arc<dyn Detach>,
    /// How often a comment goes out on an idle stream.
    pub keep_alive: Option<Duration>,
    /// Its timer, armed the first time the stream waits (a reply that never waits, or goes
    /// out as JSON, costs no timer).
    pub idle: Option<Pin<Box<tokio::time::Sleep>>>,
    pub comment: &'static [u8],
    pub done: bool,
}

impl SseBody {
    pub fn new(
        stream: Arc<Stream>,
        owner: Arc<dyn Detach>,
        keep_alive: Option<Duration>,
        comment: &'static [u8],
    ) -> Self {
        crate::metrics::STREAMS_OPEN.inc();
        SseBody { stream, owner, keep_alive, idle: None, comment, done: false }
    }
}

impl Body for SseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if self.done {
            return Poll::Ready(None);
        }
        {
            let mut q = self.stream.lock();
            if !q.frames.is_empty() {
                // Taken whole (not split off): an idle stream keeps no buffer behind.
                let data = std::mem::take(&mut q.frames).freeze();
                drop(q);
                if let (Some(d), Some(sleep)) = (self.keep_alive, &mut self.idle) {
                    sleep.as_mut().reset(tokio::time::Instant::now() + d);
                }
                return Poll::Ready(Some(Ok(Frame::data(data))));
            }
            if q.finished || q.hang_up {
                q.hang_up = false;
                drop(q);
                self.done = true;
                self.release();
                return Poll::Ready(None);
            }
            q.waker = Some(cx.waker().clone());
        }
        let comment = self.comment;
        if let Some(d) = self.keep_alive {
            let sleep = self.idle.get_or_insert_with(|| Box::pin(tokio::time::sleep(d)));
            if sleep.as_mut().poll(cx).is_ready() {
                sleep.as_mut().reset(tokio::time::Instant::now() + d);
                return Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(comment)))));
            }
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.done
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::default()
    }
}

impl SseBody {
    /// The reply went out as JSON: this body will not be sent.
    pub fn release_now(&mut self) {
        if !self.done {
            self.done = true;
            self.release();
        }
    }

    fn release(&mut self) {
        let delivered = {
            let mut q = self.stream.lock();
            q.attached = false;
            q.waker = None;
            q.finished && q.frames.is_empty()
        };
        self.owner.detached(&self.stream, delivered);
    }
}

impl Drop for SseBody {
    fn drop(&mut self) {
        crate::metrics::STREAMS_OPEN.dec();
        if !self.done {
            self.done = true;
            self.release();
        }
    }
}

use std::future::Future;

/// Any response body of the service.
pub enum HttpBody {
    /// No body.
    Empty,
    /// A complete body.
    Full(Option<Bytes>),
    /// An SSE stream.
    #[allow(private_interfaces)]
    Sse(SseBody),
}

impl std::fmt::Debug for HttpBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HttpBody::Empty => f.write_str("Empty"),
            HttpBody::Full(b) => f.debug_tuple("Full").field(&b.as_ref().map(Bytes::len)).finish(),
            HttpBody::Sse(s) => f.debug_tuple("Sse").field(&s.stream.id).finish(),
        }
    }
}

impl Body for HttpBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.get_mut() {
            HttpBody::Empty => Poll::Ready(None),
            HttpBody::Full(b) => Poll::Ready(b.take().map(|b| Ok(Frame::data(b)))),
            HttpBody::Sse(s) => Pin::new(s).poll_frame(cx),
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            HttpBody::Empty => true,
            HttpBody::Full(b) => b.is_none(),
            HttpBody::Sse(s) => s.done,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            HttpBody::Empty => SizeHint::with_exact(0),
            HttpBody::Full(Some(b)) => SizeHint::with_exact(b.len() as u64),
            HttpBody::Full(None) => SizeHint::with_exact(0),
            HttpBody::Sse(_) => SizeHint::default(),
        }
    }
}
