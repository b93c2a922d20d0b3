//! The byte-stream ends of the transport: [`HttpReader`] yields the server's messages, one
//! per line; [`HttpWriter`] cuts the client's writes into lines and hands them to the
//! dispatcher.

use super::state::Shared;
use bytes::Bytes;
use futures_util::future::BoxFuture;
use std::collections::VecDeque;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{mpsc, oneshot};

/// What the reader receives: a line, or the end.
pub(super) type Item = Result<Bytes, End>;

/// The end of the reader: the error it ends with, and the lines to yield before it (the
/// answers of the requests the end failed). One item, so that whoever reads finds the end
/// right behind those answers: a caller whose request failed with the end never sees the
/// transport open still, and never sends on it a request that would fail the same way.
#[derive(Debug)]
pub(super) struct End {
    pub(super) lines: Bytes,
    pub(super) error: io::Error,
}

/// The server's messages, one JSON-RPC message (or batch) per line. Ends (EOF) when the
/// transport shuts down; ends with an error when the session expired or the legacy event
/// stream closed.
#[derive(Debug)]
pub struct HttpReader {
    rx: mpsc::Receiver<Item>,
    cur: Bytes,
    /// The error to end with once `cur` is read.
    end: Option<io::Error>,
    done: bool,
}

impl HttpReader {
    /// A reader of the lines the transport's tasks send on `rx`.
    pub(super) fn new(rx: mpsc::Receiver<Item>) -> HttpReader {
        HttpReader { rx, cur: Bytes::new(), end: None, done: false }
    }
}

impl AsyncRead for HttpReader {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if !this.cur.is_empty() {
                let n = buf.remaining().min(this.cur.len());
                buf.put_slice(&this.cur.split_to(n));
                return Poll::Ready(Ok(()));
            }
            if let Some(e) = this.end.take() {
                return Poll::Ready(Err(e));
            }
            if this.done {
                return Poll::Ready(Ok(()));
            }
            match ready!(this.rx.poll_recv(cx)) {
                Some(Ok(line)) => this.cur = line,
                Some(Err(End { lines, error })) => {
                    this.done = true;
                    this.rx.close();
                    this.cur = lines;
                    this.end = Some(error);
                }
                None => this.done = true,
            }
        }
    }
}

/// What the writer hands to the dispatcher.
pub(super) enum Cmd {
    Line(Bytes),
    Shutdown(oneshot::Sender<()>),
}

type Reserve = BoxFuture<'static, std::result::Result<mpsc::OwnedPermit<Cmd>, mpsc::error::SendError<()>>>;

/// Takes the client's messages, one per line, and POSTs each. Shutting it down ends the
/// session (`DELETE`) and the [`HttpReader`].
pub struct HttpWriter {
    tx: mpsc::Sender<Cmd>,
    reserve: Option<Reserve>,
    partial: Vec<u8>,
    lines: VecDeque<Bytes>,
    pub(super) shared: Arc<Shared>,
    ack: Option<oneshot::Receiver<()>>,
    shut: bool,
}

impl std::fmt::Debug for HttpWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpWriter").field("url", &self.shared.base.url).finish()
    }
}

fn closed_error(m: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, m.into())
}

impl HttpWriter {
    /// A writer handing its lines to the dispatcher on `tx`.
    /// What tells, later, why the transport failed for good (the message of a handshake that
    /// failed at the HTTP level), if it did.
    pub(crate) fn fatal(&self) -> impl Fn() -> Option<String> + use<> {
        let shared = self.shared.clone();
        move || shared.fatal_message()
    }

    pub(super) fn new(tx: mpsc::Sender<Cmd>, shared: Arc<Shared>) -> HttpWriter {
        HttpWriter { tx, reserve: None, partial: Vec::new(), lines: VecDeque::new(), shared, ack: None, shut: false }
    }

    fn poll_permit(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<mpsc::OwnedPermit<Cmd>>> {
        let tx = &self.tx;
        let fut = self.reserve.get_or_insert_with(|| Box::pin(tx.clone().reserve_owned()));
        let r = ready!(fut.as_mut().poll(cx));
        self.reserve = None;
        Poll::Ready(r.map_err(|_| closed_error("the HTTP transport is closed")))
    }

    /// Hands the complete lines to the dispatcher.
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while !self.lines.is_empty() {
            let permit = ready!(self.poll_permit(cx))?;
            if let Some(line) = self.lines.pop_front() {
                permit.send(Cmd::Line(line));
            }
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for HttpWriter {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if let Some(m) = this.shared.fatal_message() {
            return Poll::Ready(Err(closed_error(m)));
        }
        if this.shut || this.ack.is_some() {
            return Poll::Ready(Err(closed_error("the HTTP transport is shut down")));
        }
        ready!(this.poll_drain(cx))?;
        let mut rest = buf;
        while let Some(i) = memchr::memchr(b'\n', rest) {
            this.partial.extend_from_slice(&rest[..i]);
            let line = std::mem::take(&mut this.partial);
            if !line.iter().all(u8::is_ascii_whitespace) {
                this.lines.push_back(Bytes::from(line));
            }
            rest = &rest[i + 1..];
        }
        if this.partial.len() + rest.len() > this.shared.max_message {
            this.partial.clear();
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("a message is larger than the limit of {} bytes", this.shared.max_message),
            )));
        }
        this.partial.extend_from_slice(rest);
        // Hand the lines over now if there is room; else on the next write or flush.
        if let Poll::Ready(Err(e)) = this.poll_drain(cx) {
            return Poll::Ready(Err(e));
        }
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().poll_drain(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.shut {
            return Poll::Ready(Ok(()));
        }
        if this.ack.is_none() {
            if ready!(this.poll_drain(cx)).is_err() {
                this.shut = true;
                return Poll::Ready(Ok(()));
            }
            this.shared.closing.send_replace(true);
            let Ok(permit) = ready!(this.poll_permit(cx)) else {
                this.shut = true;
                return Poll::Ready(Ok(()));
            };
            let (ack_tx, ack_rx) = oneshot::channel();
            permit.send(Cmd::Shutdown(ack_tx));
            this.ack = Some(ack_rx);
        }
        if let Some(ack) = &mut this.ack {
            let _ = ready!(Pin::new(ack).poll(cx));
        }
        this.ack = None;
        this.shut = true;
        Poll::Ready(Ok(()))
    }
}

impl Drop for HttpWriter {
    fn drop(&mut self) {
        // Stop waiting on the line in flight; the dispatcher then ends the session.
        self.shared.closing.send_replace(true);
    }
}
