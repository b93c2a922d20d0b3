//! HTTP/1.1 on one connection, as [`serve_http`](super::serve_http) serves it: request heads
//! parsed with `httparse`, bodies read whole (within [`HttpOptions::max_body`] and
//! [`HttpOptions::body_read_timeout`]) before [`HttpService::handle`] sees the request,
//! answers written with `Content-Length` or, for SSE streams, chunked.
//!
//! Why not hyper's connection: hyper keeps an 8 KiB read buffer and an 8 KiB write buffer
//! for each connection for as long as it lives. An MCP server holds many connections open
//! that only wait: `subscriptions/listen` streams, session GET streams, legacy SSE. Here
//! the read buffer is let go while an answer streams (when nothing was read ahead), and a
//! write buffer lives only while it is written: an idle listener costs its stream's state
//! and little else (measured in bench/README.md). [`HttpService`] is still a hyper and
//! tower service for apps that serve it with a stack of their own.
//!
//! [`HttpOptions::max_body`]: super::HttpOptions::max_body
//! [`HttpOptions::body_read_timeout`]: super::HttpOptions::body_read_timeout

use super::serve::ClientAddr;
use super::stream::HttpBody;
use super::HttpService;
use bytes::{Buf, Bytes, BytesMut};
use http::{header, HeaderMap, HeaderName, HeaderValue, Method, Request, Response, StatusCode, Version};
use http_body_util::Full;
use std::io::Write as _;
use std::pin::Pin;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::time::Sleep;

/// Most bytes of a request head (request line and headers); past it the answer is 431.
const MAX_HEAD: usize = 64 * 1024;
/// Most header fields of a request; past it the answer is 431.
const MAX_HEADERS: usize = 100;
/// What the read buffer grows by.
const READ_CHUNK: usize = 8 * 1024;
/// Most bytes read ahead (the next requests of a pipelining client) while an answer is
/// made or streams; past it the connection reads no more until the answer is out.
const MAX_AHEAD: usize = 64 * 1024;
/// Most bytes of a chunk-size line or of the trailers of a chunked body.
const MAX_CHUNK_LINE: usize = 4 * 1024;

/// How one connection is served.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Config {
    /// Keep answering what was asked once the client shut its side down (`false`: a client
    /// that closes is gone, and what it asked is cancelled, as hyper does by default).
    pub half_close: bool,
    /// The client's address, handed to the service with each request.
    pub client: Option<ClientAddr>,
}

/// Serves `io` until the client closes, an answer says `Connection: close`, the
/// connection breaks, or `stop` is set while no request is in progress.
pub(crate) async fn serve<T>(io: T, svc: HttpService, mut stop: tokio::sync::watch::Receiver<bool>, config: Config)
where
    T: AsyncRead + AsyncWrite + Unpin,
{
    let mut conn = Conn { io, buf: BytesMut::new(), eof: false, half_close: config.half_close, kept: None };
    // A request, up to the head of its answer, runs in a box of its own: the task keeps only
    // what it holds longest, an answer that streams (the state of every idle listener). The
    // box serves the connection's requests one after the other, and is let go while an
    // answer streams.
    let mut slot: Option<Pin<Box<Option<_>>>> = None;
    loop {
        let request = owned_exchange(conn, &svc, stop, config);
        let boxed = match &mut slot {
            Some(b) => {
                b.set(Some(request));
                b
            }
            None => slot.insert(Box::pin(Some(request))),
        };
        let Some(running) = boxed.as_mut().as_pin_mut() else { return };
        let step;
        (conn, stop, step) = running.await;
        boxed.set(None);
        match step {
            Step::Next => {}
            Step::End => return,
            Step::Stream { body, chunked, close } => {
                // An answer that streams (an idle listener) keeps nothing for later meanwhile.
                slot = None;
                conn.kept = None;
                if conn.stream(body, chunked).await.is_err() {
                    return;
                }
                if !conn.carry_on(close).await {
                    return;
                }
            }
        }
    }
}

/// [`exchange`] owning what it borrows of the connection's, handed back with its outcome (so
/// that one box can hold each request's in turn).
async fn owned_exchange<T>(
    mut conn: Conn<T>,
    svc: &HttpService,
    mut stop: tokio::sync::watch::Receiver<bool>,
    config: Config,
) -> (Conn<T>, tokio::sync::watch::Receiver<bool>, Step)
where
    T: AsyncRead + AsyncWrite + Unpin,
{
    let step = exchange(&mut conn, svc, &mut stop, config).await;
    (conn, stop, step)
}

/// The timer of the header timeout `t`, due at least `t` from now and at most an eighth of
/// `t` later. One timer serves a connection's requests: it is moved (taken out of the
/// runtime's timer wheel and put back, under its lock) only when less than `t` is left, not
/// for every request.
fn head_timer(timer: &mut Option<Pin<Box<Sleep>>>, t: Duration) -> Pin<&mut Sleep> {
    let now = tokio::time::Instant::now();
    let due = now + t;
    let timer = match timer {
        Some(s) => {
            if s.deadline() < due {
                s.as_mut().reset(due + t / 8);
            }
            s
        }
        None => timer.insert(Box::pin(tokio::time::sleep_until(due + t / 8))),
    };
    timer.as_mut()
}

/// What became of one request.
enum Step {
    /// Answered: the connection carries on.
    Next,
    /// The connection ends (answered and closed, refused, or gone).
    End,
    /// Its answer's head is out; its body streams.
    Stream { body: super::stream::SseBody, chunked: bool, close: bool },
}

/// Reads one request, has `svc` answer it and writes the answer (its head only, when the
/// body streams).
async fn exchange<T>(
    conn: &mut Conn<T>,
    svc: &HttpService,
    stop: &mut tokio::sync::watch::Receiver<bool>,
    config: Config,
) -> Step
where
    T: AsyncRead + AsyncWrite + Unpin,
{
    let head = match svc.options().header_read_timeout {
        Some(t) => {
            let mut timer = conn.kept.as_mut().and_then(|k| k.timer.take());
            let head = tokio::select! {
                biased;
                h = conn.read_head(stop) => h,
                // A client that never finishes its head (or, kept alive, never starts the
                // next one) is let go, as hyper does.
                () = head_timer(&mut timer, t) => return Step::End,
            };
            conn.kept.get_or_insert_with(Default::default).timer = timer;
            head
        }
        None => conn.read_head(stop).await,
    };
    let head = match head {
        Ok(Some(h)) => h,
        Ok(None) => return Step::End,
        Err(status) => {
            let _ = conn.refuse(status).await;
            return Step::End;
        }
    };
    let Head { req, framing, keep_alive, expect_continue } = head;
    let mut close = !keep_alive;
    let max = svc.options().max_body;
    let body = match framing {
        Framing::Length(n) if n > max as u64 => {
            // The service answers 413 from the header; the body is never read.
            close = true;
            Bytes::new()
        }
        Framing::None | Framing::Length(0) => Bytes::new(),
        framing => {
            if expect_continue && conn.buf.is_empty() && conn.write(b"HTTP/1.1 100 Continue\r\n\r\n").await.is_err() {
                return Step::End;
            }
            let read = conn.read_body(framing, max);
            let read = match svc.options().body_read_timeout {
                Some(t) => match tokio::time::timeout(t, read).await {
                    Ok(r) => r,
                    Err(_) => {
                        let _ = conn.respond(super::reply::body_timeout(t), false, true, true).await;
                        return Step::End;
                    }
                },
                None => read.await,
            };
            match read {
                Ok(BodyRead::Whole(b)) => b,
                // The first bytes past the limit: the service answers 413 on them.
                Ok(BodyRead::TooLarge(b)) => {
                    close = true;
                    b
                }
                Err(BodyError::Gone) => return Step::End,
                Err(BodyError::Bad) => {
                    let _ = conn.refuse(StatusCode::BAD_REQUEST).await;
                    return Step::End;
                }
            }
        }
    };
    let head_only = req.method() == Method::HEAD;
    let v11 = req.version() == Version::HTTP_11;
    let req = req.map(|()| Full::new(body));
    let resp = {
        let mut answer = std::pin::pin!(svc.handle_from(req, config.client));
        loop {
            tokio::select! {
                biased;
                resp = &mut answer => break resp,
                gone = conn.read_ahead(), if conn.may_read_ahead() => if gone {
                    return Step::End;
                },
            }
        }
    };
    conn.respond(resp, head_only, v11, close).await
}

/// A request head, read.
struct Head {
    req: Request<()>,
    framing: Framing,
    keep_alive: bool,
    expect_continue: bool,
}

/// How a request's body is delimited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Framing {
    None,
    Length(u64),
    Chunked,
}

enum BodyRead {
    Whole(Bytes),
    /// The body ran past the limit: its first `max + 1` bytes.
    TooLarge(Bytes),
}

enum BodyError {
    /// The client went away (or the connection broke) mid-body.
    Gone,
    /// Bad chunked framing.
    Bad,
}

struct Conn<T> {
    io: T,
    /// Bytes read and not yet taken: a head, a body, the next requests.
    buf: BytesMut,
    /// The client shut its side down.
    eof: bool,
    half_close: bool,
    /// What it keeps from one request to the next (dropped while an answer streams).
    kept: Option<Box<Kept>>,
}

/// What a connection keeps between requests: boxed, so that a connection whose answer
/// streams (an idle listener) holds a pointer's worth of it.
#[derive(Default)]
struct Kept {
    /// The last answer's header map, cleared: the next request's headers go into it.
    headers: Option<HeaderMap>,
    /// The header timeout's timer ([`head_timer`]).
    timer: Option<Pin<Box<Sleep>>>,
}

impl<T: AsyncRead + AsyncWrite + Unpin> Conn<T> {
    /// Reads more into the buffer; `Ok(0)` at the end of the stream.
    async fn fill(&mut self) -> std::io::Result<usize> {
        if self.buf.capacity() - self.buf.len() < 1024 {
            self.buf.reserve(READ_CHUNK);
        }
        let n = self.io.read_buf(&mut self.buf).await?;
        if n == 0 {
            self.eof = true;
        }
        Ok(n)
    }

    /// The next request head: `Ok(None)` when the connection should just close (the client
    /// closed it, it broke, or `stop` was set between requests); `Err` with the status to
    /// answer a bad head with.
    async fn read_head(
        &mut self,
        stop: &mut tokio::sync::watch::Receiver<bool>,
    ) -> std::result::Result<Option<Head>, StatusCode> {
        loop {
            if !self.buf.is_empty() {
                if let Some(head) =
                    parse_head(&mut self.buf, &mut self.kept.get_or_insert_with(Default::default).headers)?
                {
                    return Ok(Some(head));
                }
                if self.buf.len() >= MAX_HEAD {
                    return Err(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
                }
            }
            if self.eof || *stop.borrow() && self.buf.is_empty() {
                return Ok(None);
            }
            let idle = self.buf.is_empty();
            tokio::select! {
                read = self.fill() => match read {
                    Ok(_) => {}
                    Err(_) => return Ok(None),
                },
                changed = stop.changed(), if idle => if changed.is_err() {
                    return Ok(None);
                },
            }
        }
    }

    /// A body framed as `framing`, whole, or its first `max + 1` bytes.
    async fn read_body(&mut self, framing: Framing, max: usize) -> std::result::Result<BodyRead, BodyError> {
        match framing {
            Framing::None => Ok(BodyRead::Whole(Bytes::new())),
            Framing::Length(n) => {
                // n <= max (checked by the caller)
                let n = n as usize;
                if self.buf.len() < n {
                    self.buf.reserve(n - self.buf.len());
                }
                while self.buf.len() < n {
                    match self.fill().await {
                        Ok(0) | Err(_) => return Err(BodyError::Gone),
                        Ok(_) => {}
                    }
                }
                Ok(BodyRead::Whole(self.buf.split_to(n).freeze()))
            }
            Framing::Chunked => {
                let mut body = BytesMut::new();
                loop {
                    let line = self.line().await?;
                    let size = chunk_size(&line).ok_or(BodyError::Bad)?;
                    if size == 0 {
                        // Trailers: read and dropped, up to the empty line.
                        let mut total = 0;
                        loop {
                            let line = self.line().await?;
                            if line.is_empty() {
                                return Ok(BodyRead::Whole(body.freeze()));
                            }
                            total += line.len();
                            if total > MAX_CHUNK_LINE {
                                return Err(BodyError::Bad);
                            }
                        }
                    }
                    let room = (max + 1).saturating_sub(body.len());
                    let want = usize::try_from(size).unwrap_or(usize::MAX);
                    let take = want.min(room);
                    while self.buf.len() < take {
                        match self.fill().await {
                            Ok(0) | Err(_) => return Err(BodyError::Gone),
                            Ok(_) => {}
                        }
                    }
                    body.extend_from_slice(&self.buf[..take]);
                    self.buf.advance(take);
                    if body.len() > max {
                        return Ok(BodyRead::TooLarge(body.freeze()));
                    }
                    let end = self.line().await?;
                    if !end.is_empty() {
                        return Err(BodyError::Bad);
                    }
                }
            }
        }
    }

    /// The next line (without its CRLF), at most [`MAX_CHUNK_LINE`] bytes.
    async fn line(&mut self) -> std::result::Result<Bytes, BodyError> {
        let mut from = 0;
        loop {
            if let Some(i) = self.buf[from..].windows(2).position(|w| w == b"\r\n") {
                let line = self.take(from + i);
                self.buf.advance(2);
                return Ok(line);
            }
            if self.buf.len() > MAX_CHUNK_LINE {
                return Err(BodyError::Bad);
            }
            from = self.buf.len().saturating_sub(1);
            match self.fill().await {
                Ok(0) | Err(_) => return Err(BodyError::Gone),
                Ok(_) => {}
            }
        }
    }

    /// The first `n` buffered bytes, taken out (copied: the buffer stays whole, to be reused
    /// or let go).
    fn take(&mut self, n: usize) -> Bytes {
        let b = Bytes::copy_from_slice(&self.buf[..n]);
        self.buf.advance(n);
        b
    }

    /// Whether to read on while an answer is made: not past the end of the stream, nor past
    /// [`MAX_AHEAD`] bytes waiting.
    fn may_read_ahead(&self) -> bool {
        !self.eof && self.buf.len() < MAX_AHEAD
    }

    /// Reads what comes while an answer is made or streams: the next requests of a
    /// pipelining client are kept; `true` when the client is gone (it closed, without
    /// `half_close`, or the connection broke).
    async fn read_ahead(&mut self) -> bool {
        let read = if self.buf.capacity() - self.buf.len() >= 64 {
            self.io.read_buf(&mut self.buf).await
        } else {
            // No buffer held (an idle stream let it go): a small read, kept if it is data.
            let mut small = [0u8; 64];
            let read = self.io.read(&mut small).await;
            if let Ok(n) = read {
                self.buf.extend_from_slice(&small[..n]);
            }
            read
        };
        match read {
            Ok(0) => {
                self.eof = true;
                !self.half_close
            }
            Ok(_) => false,
            Err(_) => true,
        }
    }

    async fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.io.write_all(bytes).await?;
        self.io.flush().await
    }

    /// Answers a head that could not be read (no body; the connection then closes).
    async fn refuse(&mut self, status: StatusCode) -> std::io::Result<()> {
        super::reply::refused(status, status.canonical_reason().unwrap_or("a bad request head"));
        let mut out = Vec::with_capacity(128);
        status_line(&mut out, status);
        out.extend_from_slice(b"content-length: 0\r\nconnection: close\r\n");
        date_header(&mut out);
        out.extend_from_slice(b"\r\n");
        self.write(&out).await?;
        self.io.shutdown().await
    }

    /// Writes `resp` (its head only for a HEAD request; chunked when it streams to an
    /// HTTP/1.1 client): what becomes of the connection, or the body still to stream.
    async fn respond(&mut self, resp: Response<HttpBody>, head_only: bool, v11: bool, mut close: bool) -> Step {
        let (parts, body) = resp.into_parts();
        close |= connection_close(&parts.headers);
        let status = parts.status;
        let no_content =
            status.is_informational() || status == StatusCode::NO_CONTENT || status == StatusCode::NOT_MODIFIED;
        let send_body = !head_only && !no_content;
        let (whole, stream) = match body {
            HttpBody::Empty | HttpBody::Full(None) => (Some(Bytes::new()), None),
            HttpBody::Full(Some(b)) => (Some(b), None),
            HttpBody::Sse(s) => (None, Some(s)),
        };
        // An HTTP/1.0 client cannot read chunks: the stream ends with the connection.
        if stream.is_some() && !v11 {
            close = true;
        }
        let len = whole.as_ref().map_or(0, Bytes::len);
        let mut out = Vec::with_capacity(256 + parts.headers.len() * 48 + if send_body { len } else { 0 });
        status_line(&mut out, status);
        for (name, value) in &parts.headers {
            if name == header::CONTENT_LENGTH || name == header::TRANSFER_ENCODING || name == header::CONNECTION {
                continue;
            }
            out.extend_from_slice(name.as_str().as_bytes());
            out.extend_from_slice(b": ");
            out.extend_from_slice(value.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
        if !parts.headers.contains_key(header::DATE) {
            date_header(&mut out);
        }
        if !no_content {
            if whole.is_some() {
                out.extend_from_slice(b"content-length: ");
                crate::jsonrpc::write_i64(&mut out, len as i64);
                out.extend_from_slice(b"\r\n");
            } else if v11 {
                out.extend_from_slice(b"transfer-encoding: chunked\r\n");
            }
        }
        if close {
            out.extend_from_slice(b"connection: close\r\n");
        } else if !v11 {
            // An HTTP/1.0 client that asked to keep the connection is told it is kept.
            out.extend_from_slice(b"connection: keep-alive\r\n");
        }
        out.extend_from_slice(b"\r\n");
        // The map has the room a request needed (the service moves the request's map into its
        // reply): the connection's next request is read into it. Not when the answer streams:
        // a waiting connection keeps nothing it does not need.
        let mut kept = parts.headers;
        if stream.is_none() && kept.capacity() <= super::request::KEPT_HEADERS {
            kept.clear();
            self.kept.get_or_insert_with(Default::default).headers = Some(kept);
        }
        if let (Some(b), true) = (&whole, send_body) {
            out.extend_from_slice(b);
        }
        if self.write(&out).await.is_err() {
            return Step::End;
        }
        drop(out);
        match stream {
            Some(body) if send_body => Step::Stream { body, chunked: v11, close },
            _ if self.carry_on(close).await => Step::Next,
            _ => Step::End,
        }
    }

    /// Writes a streaming body as it comes (in chunks, or raw up to the connection's end),
    /// until it ends or the client goes.
    async fn stream(&mut self, mut body: super::stream::SseBody, chunked: bool) -> std::io::Result<()> {
        // A stream may wait a long time: the read buffer goes unless it holds requests read
        // ahead.
        if self.buf.is_empty() {
            self.buf = BytesMut::new();
        }
        loop {
            tokio::select! {
                biased;
                frame = http_body_util::BodyExt::frame(&mut body) => match frame {
                    Some(Ok(frame)) => {
                        let Ok(data) = frame.into_data() else { continue };
                        if data.is_empty() {
                            continue;
                        }
                        if chunked {
                            let mut out = Vec::with_capacity(data.len() + 12);
                            let _ = write!(out, "{:x}\r\n", data.len());
                            out.extend_from_slice(&data);
                            out.extend_from_slice(b"\r\n");
                            self.write(&out).await?;
                        } else {
                            self.write(&data).await?;
                        }
                    }
                    Some(Err(never)) => match never {},
                    None => break,
                },
                gone = self.read_ahead(), if self.may_read_ahead() => if gone {
                    return Err(std::io::ErrorKind::ConnectionAborted.into());
                },
            }
        }
        if chunked {
            self.write(b"0\r\n\r\n").await?;
        }
        Ok(())
    }

    /// After an answer: whether the connection carries on (else it is shut).
    async fn carry_on(&mut self, close: bool) -> bool {
        if close || self.eof && self.buf.is_empty() {
            let _ = self.io.shutdown().await;
            return false;
        }
        true
    }
}

/// Whether a `Connection` header holds the `close` option.
fn connection_close(headers: &HeaderMap) -> bool {
    has_token(headers, header::CONNECTION, "close")
}

fn has_token(headers: &HeaderMap, name: HeaderName, token: &str) -> bool {
    headers
        .get_all(name)
        .iter()
        .any(|v| v.as_bytes().split(|b| *b == b',').any(|t| t.trim_ascii().eq_ignore_ascii_case(token.as_bytes())))
}

/// Parses a request head at the start of `buf` and takes it out: `Ok(None)` while it is
/// incomplete; `Err` with the status a bad one is answered with. The URI and the header
/// values share the head's bytes (no copy each).
fn parse_head(buf: &mut BytesMut, kept: &mut Option<HeaderMap>) -> std::result::Result<Option<Head>, StatusCode> {
    let bad = StatusCode::BAD_REQUEST;
    // Where the path, and each field's name and value, lie in `buf`.
    let mut at = [(0u32, 0u32, 0u32, 0u32); MAX_HEADERS];
    let (len, method, path, version, count) = {
        // Left uninitialised: httparse writes the fields it finds (no 3 KiB to fill first).
        let mut fields = [const { std::mem::MaybeUninit::<httparse::Header<'_>>::uninit() }; MAX_HEADERS];
        let mut parsed = httparse::Request::new(&mut []);
        let len = match parsed.parse_with_uninit_headers(buf, &mut fields) {
            Ok(httparse::Status::Complete(n)) => n,
            Ok(httparse::Status::Partial) => return Ok(None),
            Err(httparse::Error::TooManyHeaders) => return Err(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE),
            Err(_) => return Err(bad),
        };
        let start = buf.as_ptr() as usize;
        let span = |s: &[u8]| {
            let from = s.as_ptr() as usize - start;
            (from as u32, (from + s.len()) as u32)
        };
        let method = Method::from_bytes(parsed.method.unwrap_or_default().as_bytes()).map_err(|_| bad)?;
        let path = span(parsed.path.unwrap_or_default().as_bytes());
        let version = match parsed.version {
            Some(1) => Version::HTTP_11,
            Some(0) => Version::HTTP_10,
            _ => return Err(StatusCode::HTTP_VERSION_NOT_SUPPORTED),
        };
        for (slot, f) in at.iter_mut().zip(parsed.headers.iter()) {
            let (n0, n1) = span(f.name.as_bytes());
            let (v0, v1) = span(f.value);
            *slot = (n0, n1, v0, v1);
        }
        (len, method, path, version, parsed.headers.len())
    };
    let head = buf.split_to(len).freeze();
    let uri = if path.1 > path.0 {
        http::Uri::from_maybe_shared(head.slice(path.0 as usize..path.1 as usize)).map_err(|_| bad)?
    } else {
        return Err(bad);
    };
    let mut headers = match kept.take() {
        Some(mut h) => {
            h.reserve(count);
            h
        }
        None => HeaderMap::with_capacity(count),
    };
    for &(n0, n1, v0, v1) in &at[..count] {
        let name = header_name(&head[n0 as usize..n1 as usize]).map_err(|_| bad)?;
        let value = HeaderValue::from_maybe_shared(head.slice(v0 as usize..v1 as usize)).map_err(|_| bad)?;
        headers.append(name, value);
    }
    let framing = framing(&headers, version)?;
    let keep_alive = match version {
        Version::HTTP_11 => !connection_close(&headers),
        _ => has_token(&headers, header::CONNECTION, "keep-alive") && !connection_close(&headers),
    };
    let expect_continue = version == Version::HTTP_11
        && headers.get(header::EXPECT).is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"100-continue"));
    let mut req = Request::new(());
    *req.method_mut() = method;
    *req.uri_mut() = uri;
    *req.version_mut() = version;
    *req.headers_mut() = headers;
    Ok(Some(Head { req, framing, keep_alive, expect_continue }))
}

/// The header names MCP requests carry that `http` does not know: a request's are taken
/// from here (a copy of a static name) instead of made (lowercased into an allocation each).
static MCP_NAMES: [HeaderName; 5] = [
    HeaderName::from_static("mcp-protocol-version"),
    HeaderName::from_static("mcp-session-id"),
    HeaderName::from_static("mcp-method"),
    HeaderName::from_static("mcp-name"),
    HeaderName::from_static("last-event-id"),
];

/// A header name from its bytes (any case).
fn header_name(name: &[u8]) -> std::result::Result<HeaderName, http::header::InvalidHeaderName> {
    if name.len() >= 8 {
        if let Some(known) = MCP_NAMES.iter().find(|k| k.as_str().as_bytes().eq_ignore_ascii_case(name)) {
            return Ok(known.clone());
        }
    }
    HeaderName::from_bytes(name)
}

/// The framing of a request body (RFC 9112 §6.3). A request with both `Transfer-Encoding`
/// and `Content-Length`, with a transfer coding other than a final `chunked`, or with
/// `Content-Length` values that disagree, is refused: each is how requests get smuggled.
fn framing(headers: &HeaderMap, version: Version) -> std::result::Result<Framing, StatusCode> {
    let bad = StatusCode::BAD_REQUEST;
    if headers.contains_key(header::TRANSFER_ENCODING) {
        if version != Version::HTTP_11 || headers.contains_key(header::CONTENT_LENGTH) {
            return Err(bad);
        }
        let codings: Vec<&[u8]> = headers
            .get_all(header::TRANSFER_ENCODING)
            .iter()
            .flat_map(|v| v.as_bytes().split(|b| *b == b','))
            .map(<[u8]>::trim_ascii)
            .collect();
        return match codings.as_slice() {
            [only] if only.eq_ignore_ascii_case(b"chunked") => Ok(Framing::Chunked),
            _ => Err(StatusCode::NOT_IMPLEMENTED),
        };
    }
    let mut length = None;
    for v in headers.get_all(header::CONTENT_LENGTH) {
        for part in v.as_bytes().split(|b| *b == b',') {
            let part = part.trim_ascii();
            if part.is_empty() || part.len() > 19 || !part.iter().all(u8::is_ascii_digit) {
                return Err(bad);
            }
            let n: u64 = std::str::from_utf8(part).ok().and_then(|s| s.parse().ok()).ok_or(bad)?;
            if length.is_some_and(|l| l != n) {
                return Err(bad);
            }
            length = Some(n);
        }
    }
    Ok(length.map_or(Framing::None, Framing::Length))
}

/// The size of a chunk from its size line (extensions after `;` ignored).
fn chunk_size(line: &[u8]) -> Option<u64> {
    let digits = line.split(|b| *b == b';').next()?.trim_ascii();
    if digits.is_empty() || digits.len() > 15 {
        return None;
    }
    let s = std::str::from_utf8(digits).ok()?;
    u64::from_str_radix(s, 16).ok()
}

/// Appends `HTTP/1.1 <code> <reason>` and its CRLF.
fn status_line(out: &mut Vec<u8>, status: StatusCode) {
    out.extend_from_slice(b"HTTP/1.1 ");
    out.extend_from_slice(status.as_str().as_bytes());
    out.push(b' ');
    out.extend_from_slice(status.canonical_reason().unwrap_or("").as_bytes());
    out.extend_from_slice(b"\r\n");
}

/// Appends the `date` header (the HTTP date, made once a second per thread).
fn date_header(out: &mut Vec<u8>) {
    thread_local! {
        static DATE: std::cell::RefCell<(u64, String)> = const { std::cell::RefCell::new((u64::MAX, String::new())) };
    }
    let now = std::time::SystemTime::now();
    let secs = now.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    DATE.with(|d| {
        let mut d = d.borrow_mut();
        if d.0 != secs {
            *d = (secs, httpdate::fmt_http_date(now));
        }
        out.extend_from_slice(b"date: ");
        out.extend_from_slice(d.1.as_bytes());
        out.extend_from_slice(b"\r\n");
    });
}

#[cfg(test)]
#[path = "h1_tests.rs"]
mod tests;
