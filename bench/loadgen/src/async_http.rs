//! The event-driven counterpart of [`crate::http::Conn`]: an HTTP/1.1
//! keep-alive connection over a tokio `TcpStream`, or TLS over one ([`Tls`],
//! rustls), one request at a time, parsed by the same sans-I/O
//! [`ResponseParser`]. Meant for a current_thread runtime running many
//! connections as tasks, so that a thread serves many sockets per `epoll_wait`
//! instead of waking once per response.

use crate::http::{Answer, Expect, Failure, Progress, ResponseParser};

use rustls::pki_types::ServerName;
use std::future::Future;
use std::io;
use std::net::ToSocketAddrs;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt, Interest};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use tokio_rustls::TlsConnector;

/// Receive buffer per connection.
const BUF: usize = 16 * 1024;

/// How to speak TLS to one server: the trusted CA certificates and the name the server's
/// certificate must carry. Cheap to clone (one configuration shared by every connection).
#[derive(Clone)]
pub struct Tls {
    connector: TlsConnector,
    name: ServerName<'static>,
    /// What the first handshake agreed on, e.g. `TLSv1_3 TLS13_AES_256_GCM_SHA384`.
    negotiated: Arc<std::sync::OnceLock<String>>,
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tls").field("name", &self.name).finish_non_exhaustive()
    }
}

impl Tls {
    /// TLS 1.2 or 1.3 (rustls with the ring provider, as the hypermcp server) to `host` (an IPv6
    /// address may keep its brackets), trusting only the CA certificates of the PEM file `ca_file`.
    pub fn new(ca_file: &Path, host: &str) -> Result<Tls, String> {
        let what = ca_file.display();
        let pem = std::fs::read(ca_file).map_err(|e| format!("cannot read the CA file {what}: {e}"))?;
        let mut roots = rustls::RootCertStore::empty();
        for cert in rustls_pemfile::certs(&mut pem.as_slice()) {
            let cert = cert.map_err(|e| format!("{what}: not a PEM certificate file: {e}"))?;
            roots.add(cert).map_err(|e| format!("{what}: unusable CA certificate: {e}"))?;
        }
        if roots.is_empty() {
            return Err(format!("{what} holds no PEM certificate"));
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS: {e}"))?
            .with_root_certificates(roots)
            .with_no_client_auth();
        let bare = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
        let name =
            ServerName::try_from(bare.to_owned()).map_err(|e| format!("{host:?}: not a TLS server name: {e}"))?;
        Ok(Tls { connector: TlsConnector::from(Arc::new(config)), name, negotiated: Arc::default() })
    }

    /// The protocol version and cipher suite of the first completed handshake, if any.
    pub fn negotiated(&self) -> Option<&str> {
        self.negotiated.get().map(String::as_str)
    }
}

/// The byte stream of a connection.
enum Stream {
    Plain(TcpStream),
    Tls(Box<TlsStream<TcpStream>>),
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Stream::Plain(_) => "Plain",
            Stream::Tls(_) => "Tls",
        })
    }
}

impl Stream {
    async fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self {
            Stream::Plain(s) => s.write_all(bytes).await,
            // rustls may still hold records once the plaintext is taken: flush sends them.
            Stream::Tls(s) => {
                s.write_all(bytes).await?;
                s.flush().await
            }
        }
    }

    async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Plain(s) => s.read(buf).await,
            Stream::Tls(s) => s.read(buf).await,
        }
    }
}

/// A buffered connection; every read and write gives up after `timeout`.
#[derive(Debug)]
pub struct AsyncConn {
    stream: Stream,
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
        Self::connect_with(authority, timeout, None).await
    }

    /// [`AsyncConn::connect`], then with `tls` the TLS handshake (a failed one is a
    /// [`Failure::Bad`] starting with "TLS handshake").
    pub async fn connect_with(authority: &str, timeout: Duration, tls: Option<&Tls>) -> Result<AsyncConn, Failure> {
        let io = |err| Failure::Io { err, nothing_received: false };
        let mut last = None;
        for a in authority.to_socket_addrs().map_err(io)? {
            match within(timeout, TcpStream::connect(a)).await {
                Ok(stream) => {
                    stream.set_nodelay(true).map_err(io)?;
                    let stream = match tls {
                        None => Stream::Plain(stream),
                        Some(t) => {
                            let s = within(timeout, t.connector.connect(t.name.clone(), stream))
                                .await
                                .map_err(|e| Failure::Bad(format!("TLS handshake with {authority}: {e}")))?;
                            let session = s.get_ref().1;
                            if let (Some(v), Some(c)) = (session.protocol_version(), session.negotiated_cipher_suite())
                            {
                                let _ = t.negotiated.set(format!("{v:?} {:?}", c.suite()));
                            }
                            Stream::Tls(Box::new(s))
                        }
                    };
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
    /// event. Not over TLS: rustls may have left records in the socket that
    /// arrived before that event.
    fn forget_readable(&self) {
        if let Stream::Plain(s) = &self.stream {
            let _ = s.try_io(Interest::READABLE, || Err::<(), _>(io::ErrorKind::WouldBlock.into()));
        }
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

    /// A CA (its PEM) and a server identity it signs for `localhost`.
    fn pki() -> (String, rustls::ServerConfig) {
        use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
        use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
        let ca_key = KeyPair::generate().unwrap();
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca = ca_params.self_signed(&ca_key).unwrap();
        let issuer = Issuer::new(ca_params, ca_key);
        let key = KeyPair::generate().unwrap();
        let leaf = CertificateParams::new(vec!["localhost".to_string()]).unwrap().signed_by(&key, &issuer).unwrap();
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![leaf.der().clone()],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
            )
            .unwrap();
        (ca.pem(), config)
    }

    #[test]
    fn exchanges_over_tls() {
        let (ca_pem, config) = pki();
        let dir = std::env::temp_dir().join(format!("httpload-tls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ca_file = dir.join("ca.pem");
        std::fs::write(&ca_file, &ca_pem).unwrap();
        let (other_ca, _) = pki();
        let other_file = dir.join("other.pem");
        std::fs::write(&other_file, other_ca).unwrap();

        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap().to_string();
            let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
            let server = tokio::spawn(async move {
                // The first connection: two requests, answered; the second fails its handshake.
                let (tcp, _) = listener.accept().await.unwrap();
                let mut tls = acceptor.accept(tcp).await.unwrap();
                let mut buf = [0u8; 4096];
                for id in 1..=2 {
                    let mut got = Vec::new();
                    while !got.ends_with(b"}") {
                        let n = tls.read(&mut buf).await.unwrap();
                        assert!(n > 0);
                        got.extend_from_slice(&buf[..n]);
                    }
                    assert!(got.starts_with(b"POST / HTTP/1.1\r\nAuthorization: Bearer t\r\n"));
                    let json = format!(
                        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"hi"}}]}}}}"#
                    );
                    let answer = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{json}",
                        json.len()
                    );
                    tls.write_all(answer.as_bytes()).await.unwrap();
                    tls.flush().await.unwrap();
                }
                let (tcp, _) = listener.accept().await.unwrap();
                assert!(acceptor.accept(tcp).await.is_err());
            });
            let tls = Tls::new(&ca_file, "localhost").unwrap();
            let mut conn = AsyncConn::connect_with(&addr, Duration::from_secs(5), Some(&tls)).await.unwrap();
            let mut p = ResponseParser::default();
            for id in 1..=2 {
                let a = conn
                    .exchange(b"POST / HTTP/1.1\r\nAuthorization: Bearer t\r\n\r\n{}", Expect::Response(id), &mut p)
                    .await
                    .unwrap();
                check_echo(&a.message, id, "hi", "\"hi\"").unwrap();
            }
            assert!(tls.negotiated().is_some_and(|n| n.starts_with("TLSv1_")), "{:?}", tls.negotiated());
            // A server whose certificate another CA signed is refused.
            let untrusting = Tls::new(&other_file, "localhost").unwrap();
            match AsyncConn::connect_with(&addr, Duration::from_secs(5), Some(&untrusting)).await {
                Err(Failure::Bad(m)) => assert!(m.starts_with("TLS handshake"), "{m}"),
                other => panic!("{other:?}"),
            }
            server.await.unwrap();
        });
        assert!(Tls::new(&dir.join("missing.pem"), "localhost").unwrap_err().contains("cannot read"));
        assert!(Tls::new(&ca_file, "[::1]").is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
