//! The connections to the server's origin: HTTP/1.1 connections, lent to one exchange at a
//! time ([`Lease`]) and reused while idle.

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use std::io;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// An idle pooled connection older than this is not reused (servers commonly close idle
/// keep-alive connections after 5 s; reusing one the server is closing would lose a POST).
const IDLE_REUSE: Duration = Duration::from_secs(3);
/// Idle connections kept for reuse.
const MAX_IDLE: usize = 8;

type Sender = SendRequest<Full<Bytes>>;

/// HTTP/1.1 connections to the server's origin: idle ones are reused.
pub(super) struct Pool {
    host: String,
    port: u16,
    timeout: Duration,
    /// `https://`: each connection starts with this TLS handshake.
    tls: Option<super::tls::Tls>,
    idle: Mutex<Vec<(Sender, Instant)>>,
}

/// The HTTP/1.1 handshake over `io` (TCP, or TLS over it); the connection runs in a task.
async fn handshake<T>(io: T) -> io::Result<Sender>
where
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(io)).await.map_err(io::Error::other)?;
    tokio::spawn(async move {
        let _ = conn.await;
    });
    Ok(sender)
}

/// A connection lent to one exchange; given back once the response body was read to its end
/// (dropping it closes the connection).
pub(super) struct Lease {
    sender: Sender,
    pool: Arc<Pool>,
}

impl Lease {
    pub(super) fn release(self) {
        self.pool.put(self.sender);
    }
}

impl Pool {
    /// An empty pool for `host:port`; `timeout` limits establishing one connection.
    pub(super) fn new(host: String, port: u16, timeout: Duration, tls: Option<super::tls::Tls>) -> Pool {
        Pool { host, port, timeout, tls, idle: Mutex::new(Vec::new()) }
    }

    pub(super) async fn open(&self) -> io::Result<Sender> {
        let connect = tokio::net::TcpStream::connect((self.host.as_str(), self.port));
        let stream = match tokio::time::timeout(self.timeout, connect).await {
            Ok(r) => r?,
            Err(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("connecting timed out after {:?}", self.timeout),
                ))
            }
        };
        let _ = stream.set_nodelay(true);
        let Some(tls) = &self.tls else { return handshake(stream).await };
        match tokio::time::timeout(self.timeout, tls.handshake(stream)).await {
            Ok(r) => handshake(r?).await,
            Err(_) => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("the TLS handshake timed out after {:?}", self.timeout),
            )),
        }
    }

    pub(super) fn put(&self, sender: Sender) {
        if sender.is_closed() {
            return;
        }
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < MAX_IDLE {
            idle.push((sender, Instant::now()));
        }
    }

    fn take(&self) -> Option<Sender> {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        while let Some((sender, since)) = idle.pop() {
            if !sender.is_closed() && sender.is_ready() && since.elapsed() < IDLE_REUSE {
                return Some(sender);
            }
        }
        None
    }

    /// Sends a request on an idle connection (when one is ready) or a new one.
    pub(super) async fn send(
        self: &Arc<Self>,
        mut req: Request<Full<Bytes>>,
    ) -> io::Result<(Response<Incoming>, Lease)> {
        loop {
            let (mut sender, reused) = match self.take() {
                Some(s) => (s, true),
                None => (self.open().await?, false),
            };
            if !reused {
                sender.ready().await.map_err(io::Error::other)?;
            }
            match sender.try_send_request(req).await {
                Ok(resp) => return Ok((resp, Lease { sender, pool: self.clone() })),
                Err(mut e) => match e.take_message() {
                    // Not sent: the pooled connection was closing. Try a fresh one.
                    Some(r) if reused => req = r,
                    _ => return Err(send_error(e.into_error())),
                },
            }
        }
    }
}

/// A request that failed once sent, as an I/O error whose kind says what happened: the
/// connection closing under it (before a complete answer) is `ConnectionReset`.
fn send_error(e: hyper::Error) -> io::Error {
    let broke = e.is_incomplete_message() || e.is_closed() || e.is_canceled();
    let kind = match std::error::Error::source(&e).and_then(|s| s.downcast_ref::<io::Error>()) {
        Some(io) => io.kind(),
        None if broke => io::ErrorKind::ConnectionReset,
        None => io::ErrorKind::Other,
    };
    io::Error::new(kind, e)
}
