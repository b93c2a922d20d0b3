//! The event-driven counterpart of [`crate::http::Conn`]: an HTTP/1.1
//! keep-alive connection over a tokio `TcpStream` (one request at a time),
//! parsed by the same sans-I/O [`ResponseParser`]. Meant for a current_thread
//! runtime running many connections as tasks, so that a thread serves many
//! sockets per `epoll_wait` instead of waking once per response.

use crate::http::{Answer, Expect, Failure, Progress, ResponseParser};

use std::future::Future;
use std::io;
use std::net::ToSocketAddrs;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt, Interest};
use tokio::net::TcpStream;

/// Receive buffer per connection.
const BUF: usize = 16 * 1024;

/// A buffered connection; every read and write gives up after `timeout`.
#[derive(Debug)]
pub struct AsyncConn {
    stream: TcpStream,
    buf: Box<[u8]>,
    pos: usize,
    end: usize,
    timeout: Duration,
}

fn timed_out() -> io::Error {
    io::Error::new(io::ErrorKind::TimedOut, "timed out")
}

/// `fut`, unless `timeout` passes first. (The timer is only armed if `fut` is
/// not ready at once.)
async fn within<T>(timeout: Duration, fut: impl Future<Output = io::Result<T>>) -> io::Result<T> {
    tokio::time::timeout(timeout, fut).await.unwrap_or_else(|_| Err(timed_out()))
}

impl AsyncConn {
    /// Connects to `authority` (`host:port`; the first address that accepts),
    /// with `TCP_NODELAY`. The error is a [`Failure::Bad`] starting with
    /// "cannot connect" when no address accepts.
    pub async fn connect(authority: &str, timeout: Duration) -> Result<AsyncConn, Failure> {
        let io = |err| Failure::Io { err, nothing_received: false };
        let mut last = None;
        for a in authority.to_socket_addrs().map_err(io)? {
            match within(timeout, TcpStream::connect(a)).await {
                Ok(stream) => {
                    stream.set_nodelay(true).map_err(io)?;
                    let buf = vec![0; BUF].into_boxed_slice();
                    return Ok(AsyncConn { stream, buf, pos: 0, end: 0, timeout });
                }
                Err(e) => last = Some(e),
            }
        }
        Err(Failure::Bad(format!(
            "cannot connect to {authority}: {}",
            last.map_or("no address".to_owned(), |e| e.to_string())
        )))
    }

    /// Sends one complete request (head and body) and reads its answer with
    /// `parser` (the same outcomes as [`crate::http::exchange`]).
    pub async fn exchange(
        &mut self,
        request: &[u8],
        expect: Expect,
        parser: &mut ResponseParser,
    ) -> Result<Answer, Failure> {
        parser.start(expect);
        within(self.timeout, self.stream.write_all(request)).await.map_err(|e| parser.io_failure(e))?;
        loop {
            if self.pos < self.end {
                let (n, progress) = parser.feed(&self.buf[self.pos..self.end]);
                self.pos += n;
                if let Progress::Done(outcome) = progress {
                    if self.pos == self.end && self.end < self.buf.len() {
                        self.forget_readable();
                    }
                    return outcome;
                }
            }
            self.pos = 0;
            self.end = 0;
            let n = within(self.timeout, self.stream.read(&mut self.buf)).await.map_err(|e| parser.io_failure(e))?;
            if n == 0 {
                return parser.eof();
            }
            self.end = n;
        }
    }

    /// The last read drained the socket (it did not fill the buffer) and the
    /// answer is complete: nothing more is expected before the next request,
    /// so clear tokio's cached read readiness. The next read then waits for
    /// the poller at once instead of first trying a `read` that would fail
    /// with `EWOULDBLOCK` (one system call per request saved). Bytes that did
    /// arrive meanwhile are not lost: their readiness event is still queued in
    /// the poller, and tokio ignores a clear that is older than the latest
    /// event.
    fn forget_readable(&self) {
        let _ = self.stream.try_io(Interest::READABLE, || Err::<(), _>(io::ErrorKind::WouldBlock.into()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::check_echo;
    use std::io::{Read, Write};
    use std::net::TcpListener;

    /// A server that reads one request per answer and writes each answer in
    /// small pieces (so that the client sees them across many reads), then
    /// closes the connection.
    fn serve(answers: Vec<Vec<u8>>) -> (String, std::thread::JoinHandle<()>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let server = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            s.set_nodelay(true).unwrap();
            let mut buf = [0u8; 4096];
            for answer in answers {
                let mut got = Vec::new();
                while !got.ends_with(b"}") {
                    let n = s.read(&mut buf).unwrap();
                    assert!(n > 0);
                    got.extend_from_slice(&buf[..n]);
                }
                for piece in answer.chunks(23) {
                    s.write_all(piece).unwrap();
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
        });
        (addr, server)
    }

    #[test]
    fn exchanges_over_tokio() {
        let json = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}"#;
        let events = concat!(
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n",
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}}\n\n",
        );
        let mut sse =
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
        for part in events.as_bytes().chunks(50) {
            sse.extend_from_slice(format!("{:x}\r\n", part.len()).as_bytes());
            sse.extend_from_slice(part);
            sse.extend_from_slice(b"\r\n");
        }
        sse.extend_from_slice(b"0\r\n\r\n");
        let answers = vec![
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{json}",
                json.len()
            )
            .into_bytes(),
            sse,
            b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n".to_vec(),
        ];
        let (addr, server) = serve(answers);
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let mut conn = AsyncConn::connect(&addr, Duration::from_secs(5)).await.unwrap();
            let mut p = ResponseParser::default();
            let a = conn.exchange(b"POST / HTTP/1.1\r\n\r\n{}", Expect::Response(1), &mut p).await.unwrap();
            check_echo(&a.message, 1, "hi", "\"hi\"").unwrap();
            let a = conn.exchange(b"POST / HTTP/1.1\r\n\r\n{}", Expect::Response(2), &mut p).await.unwrap();
            assert_eq!(a.skipped, 1);
            check_echo(&a.message, 2, "hi", "\"hi\"").unwrap();
            let a = conn.exchange(b"POST / HTTP/1.1\r\n\r\n{}", Expect::Accepted, &mut p).await.unwrap();
            assert_eq!(a.head.status, 202);
            // The server has closed the connection: retryable.
            match conn.exchange(b"POST / HTTP/1.1\r\n\r\n{}", Expect::Response(3), &mut p).await {
                Err(Failure::Io { nothing_received: true, .. }) => {}
                other => panic!("{other:?}"),
            }
        });
        server.join().unwrap();
        let refused = rt.block_on(AsyncConn::connect("127.0.0.1:1", Duration::from_secs(5)));
        assert!(matches!(refused, Err(Failure::Bad(m)) if m.starts_with("cannot connect")));
    }
}
