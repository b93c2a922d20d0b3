//! A minimal HTTP/1.1 keep-alive client for `httpload`: just enough of the
//! protocol to POST JSON-RPC messages to a Streamable HTTP MCP endpoint and read
//! the answers, with no runtime and no dependency beyond `serde_json`.
//!
//! - [`Url`]: `http://host[:port]/path` only (loopback benchmarks, no TLS).
//! - [`Conn`]: a buffered connection; [`Conn::read_head`] parses the status line
//!   and the headers that matter, [`Conn::read_body`] decodes a body delimited by
//!   `Content-Length`, `Transfer-Encoding: chunked` or the end of the connection.
//! - [`SseParser`]: incremental `text/event-stream` parsing (the `data` lines of
//!   each event).
//! - [`exchange`]: one request and its answer, JSON or SSE; with SSE the events
//!   are read until the JSON-RPC response with the request's id arrives (its
//!   arrival time is what a latency is measured to), then the rest of the
//!   stream is drained so the connection can carry the next request.
//! - [`check_echo`]: the answer to an `echo` call carries the text that was sent.

use crate::check::{classify, Reply};

use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::time::Instant;

/// The protocol version sent in `initialize` and then in `MCP-Protocol-Version`.
pub const PROTOCOL_VERSION: &str = "2025-06-18";
/// Longest accepted status, header, chunk-size or SSE line.
const MAX_LINE: usize = 64 * 1024;
/// Largest body kept for a JSON answer or a single SSE event.
const MAX_BODY: usize = 16 * 1024 * 1024;

/// A parsed `http://` URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    /// Host as written (an IPv6 address keeps its brackets).
    pub host: String,
    /// Port (80 when absent).
    pub port: u16,
    /// Path and query, at least `/`.
    pub path: String,
}

impl Url {
    /// Parses `http://host[:port][/path]`.
    pub fn parse(s: &str) -> Result<Url, String> {
        let rest = s.strip_prefix("http://").ok_or_else(|| format!("{s:?}: only http:// URLs are supported"))?;
        let (authority, path) = match rest.find(['/', '?']) {
            Some(i) if rest.as_bytes()[i] == b'/' => (&rest[..i], rest[i..].to_owned()),
            Some(i) => (&rest[..i], format!("/{}", &rest[i..])),
            None => (rest, "/".to_owned()),
        };
        let bad_port = |p: &str| format!("{s:?}: bad port {p:?}");
        let (host, port) = if authority.starts_with('[') {
            let end = authority.find(']').ok_or_else(|| format!("{s:?}: unclosed IPv6 address"))?;
            let host = &authority[..=end];
            match &authority[end + 1..] {
                "" => (host, 80),
                p => {
                    let p = p.strip_prefix(':').ok_or_else(|| bad_port(p))?;
                    (host, p.parse().map_err(|_| bad_port(p))?)
                }
            }
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h, p.parse().map_err(|_| bad_port(p))?),
                None => (authority, 80),
            }
        };
        if host.is_empty() || host.contains('@') {
            return Err(format!("{s:?}: bad host"));
        }
        Ok(Url { host: host.to_owned(), port, path })
    }

    /// `host:port`, for connecting and for the `Host` header.
    pub fn authority(&self) -> String {
        format!("{}:{}", self.host, self.port)
    }
}

/// The parts of a response head that matter here.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Head {
    /// Status code.
    pub status: u16,
    /// `Content-Length`, if given.
    pub content_length: Option<u64>,
    /// `Transfer-Encoding` ends with `chunked`.
    pub chunked: bool,
    /// Media type of `Content-Type`, lowercased, without parameters (empty if absent).
    pub content_type: String,
    /// `Mcp-Session-Id`, if given.
    pub session_id: Option<String>,
    /// The server closes the connection after this response.
    pub close: bool,
}

impl Head {
    /// Whether the body is an SSE stream.
    pub fn is_sse(&self) -> bool {
        self.content_type == "text/event-stream"
    }

    /// Where the body ends (the request was not a HEAD).
    pub fn body(&self) -> Body {
        if self.status == 204 || self.status == 304 || (100..200).contains(&self.status) {
            Body::Done
        } else if self.chunked {
            Body::ChunkSize
        } else {
            match self.content_length {
                Some(0) => Body::Done,
                Some(n) => Body::Length(n),
                None => Body::UntilClose,
            }
        }
    }
}

/// Body decoding state for [`Conn::read_body`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    /// This many bytes are left.
    Length(u64),
    /// A chunk-size line comes next.
    ChunkSize,
    /// This many bytes of the current chunk are left.
    ChunkData(u64),
    /// The CRLF after a chunk's data comes next.
    ChunkEnd,
    /// Trailer lines (after the last chunk) until an empty line.
    Trailers,
    /// The body runs until the server closes the connection.
    UntilClose,
    /// Complete.
    Done,
}

fn bad_data(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.into())
}

/// A buffered HTTP/1.1 connection over any byte stream.
#[derive(Debug)]
pub struct Conn<S> {
    stream: S,
    buf: Box<[u8]>,
    pos: usize,
    end: usize,
    line: Vec<u8>,
    /// Bytes received since [`Conn::reset_received`].
    received: u64,
}

impl<S: Read + Write> Conn<S> {
    /// Wraps a connected stream.
    pub fn new(stream: S) -> Self {
        Conn { stream, buf: vec![0; 64 * 1024].into_boxed_slice(), pos: 0, end: 0, line: Vec::new(), received: 0 }
    }

    /// The underlying stream.
    pub fn get_ref(&self) -> &S {
        &self.stream
    }

    /// Writes all of `bytes` (one request: head and body in one buffer).
    pub fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stream.write_all(bytes)?;
        self.stream.flush()
    }

    /// Bytes received since the last [`Conn::reset_received`].
    pub fn received(&self) -> u64 {
        self.received
    }

    /// Starts counting received bytes from zero.
    pub fn reset_received(&mut self) {
        self.received = 0;
    }

    /// Makes sure some bytes are buffered; `false` at end of stream.
    fn fill(&mut self) -> io::Result<bool> {
        if self.pos < self.end {
            return Ok(true);
        }
        self.pos = 0;
        self.end = 0;
        loop {
            match self.stream.read(&mut self.buf) {
                Ok(n) => {
                    self.end = n;
                    self.received += n as u64;
                    return Ok(n > 0);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Reads one line into `self.line`, without its LF and an optional CR.
    fn read_line(&mut self) -> io::Result<()> {
        self.line.clear();
        loop {
            if !self.fill()? {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "connection closed in the middle of a line"));
            }
            let avail = &self.buf[self.pos..self.end];
            if let Some(i) = avail.iter().position(|&b| b == b'\n') {
                self.line.extend_from_slice(&avail[..i]);
                self.pos += i + 1;
                if self.line.last() == Some(&b'\r') {
                    self.line.pop();
                }
                return Ok(());
            }
            self.line.extend_from_slice(avail);
            self.pos = self.end;
            if self.line.len() > MAX_LINE {
                return Err(bad_data("line too long"));
            }
        }
    }

    /// Reads a status line and headers (interim 1xx responses are skipped).
    pub fn read_head(&mut self) -> io::Result<Head> {
        loop {
            let head = self.read_one_head()?;
            if (100..200).contains(&head.status) && head.status != 101 {
                continue;
            }
            return Ok(head);
        }
    }

    fn read_one_head(&mut self) -> io::Result<Head> {
        self.read_line()?;
        let status_line = String::from_utf8_lossy(&self.line).into_owned();
        let mut parts = status_line.splitn(3, ' ');
        let version = parts.next().unwrap_or_default();
        if !version.starts_with("HTTP/1.") {
            return Err(bad_data(format!("not an HTTP/1.x status line: {status_line:?}")));
        }
        let status: u16 = parts
            .next()
            .and_then(|s| s.parse().ok())
            .filter(|s| (100..1000).contains(s))
            .ok_or_else(|| bad_data(format!("bad status line: {status_line:?}")))?;
        let http10 = version == "HTTP/1.0";
        let mut head = Head { status, close: http10, ..Head::default() };
        loop {
            self.read_line()?;
            if self.line.is_empty() {
                break;
            }
            let Some(colon) = self.line.iter().position(|&b| b == b':') else {
                return Err(bad_data(format!("bad header line: {:?}", String::from_utf8_lossy(&self.line))));
            };
            let name = self.line[..colon].trim_ascii();
            let value = String::from_utf8_lossy(self.line[colon + 1..].trim_ascii()).into_owned();
            if name.eq_ignore_ascii_case(b"content-length") {
                let n: u64 = value.parse().map_err(|_| bad_data(format!("bad Content-Length {value:?}")))?;
                if head.content_length.is_some_and(|m| m != n) {
                    return Err(bad_data("conflicting Content-Length headers"));
                }
                head.content_length = Some(n);
            } else if name.eq_ignore_ascii_case(b"transfer-encoding") {
                head.chunked = value.rsplit(',').next().is_some_and(|last| last.trim().eq_ignore_ascii_case("chunked"));
            } else if name.eq_ignore_ascii_case(b"content-type") {
                head.content_type = value.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
            } else if name.eq_ignore_ascii_case(b"mcp-session-id") {
                head.session_id = Some(value);
            } else if name.eq_ignore_ascii_case(b"connection") {
                for token in value.split(',').map(str::trim) {
                    if token.eq_ignore_ascii_case("close") {
                        head.close = true;
                    } else if token.eq_ignore_ascii_case("keep-alive") && http10 {
                        head.close = false;
                    }
                }
            }
        }
        if head.body() == Body::UntilClose {
            head.close = true;
        }
        Ok(head)
    }

    /// Appends the next piece of the body to `out` and returns whether the body
    /// is complete. Each call makes progress; it returns as soon as it has
    /// appended data, so that a caller parsing a stream sees each event when it
    /// arrives.
    pub fn read_body(&mut self, state: &mut Body, out: &mut Vec<u8>) -> io::Result<bool> {
        loop {
            match *state {
                Body::Done => return Ok(true),
                Body::Length(0) => {
                    *state = Body::Done;
                    return Ok(true);
                }
                Body::Length(n) | Body::ChunkData(n) => {
                    if !self.fill()? {
                        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "connection closed inside a body"));
                    }
                    let take = (n as usize).min(self.end - self.pos);
                    out.extend_from_slice(&self.buf[self.pos..self.pos + take]);
                    self.pos += take;
                    let left = n - take as u64;
                    *state = match *state {
                        Body::Length(_) if left == 0 => Body::Done,
                        Body::Length(_) => Body::Length(left),
                        _ if left == 0 => Body::ChunkEnd,
                        _ => Body::ChunkData(left),
                    };
                    return Ok(*state == Body::Done);
                }
                Body::ChunkSize => {
                    self.read_line()?;
                    let line = String::from_utf8_lossy(&self.line);
                    let size = line.split(';').next().unwrap_or_default().trim();
                    let n = u64::from_str_radix(size, 16)
                        .map_err(|_| bad_data(format!("bad chunk size line {:?}", line.as_ref())))?;
                    *state = if n == 0 { Body::Trailers } else { Body::ChunkData(n) };
                }
                Body::ChunkEnd => {
                    self.read_line()?;
                    if !self.line.is_empty() {
                        return Err(bad_data("chunk data longer than its size"));
                    }
                    *state = Body::ChunkSize;
                }
                Body::Trailers => {
                    self.read_line()?;
                    if self.line.is_empty() {
                        *state = Body::Done;
                        return Ok(true);
                    }
                }
                Body::UntilClose => {
                    if !self.fill()? {
                        *state = Body::Done;
                        return Ok(true);
                    }
                    out.extend_from_slice(&self.buf[self.pos..self.end]);
                    self.pos = self.end;
                    return Ok(false);
                }
            }
        }
    }

    /// Reads the rest of a body, appending it to `out` (which must stay under
    /// 16 MiB).
    pub fn read_to_end(&mut self, state: &mut Body, out: &mut Vec<u8>) -> io::Result<()> {
        while !self.read_body(state, out)? {
            if out.len() > MAX_BODY {
                return Err(bad_data("body too large"));
            }
        }
        Ok(())
    }
}

/// Incremental `text/event-stream` parser: collects the `data` lines of each
/// event (joined with LF) and hands each complete event with data to a callback.
/// Other fields (`event`, `id`, `retry`) and comments are ignored.
#[derive(Debug, Default)]
pub struct SseParser {
    line: Vec<u8>,
    data: Vec<u8>,
    has_data: bool,
    /// The last byte fed was a CR: an LF right after it belongs to the same line end.
    after_cr: bool,
}

impl SseParser {
    /// Forgets any partial line or event.
    pub fn reset(&mut self) {
        self.line.clear();
        self.data.clear();
        self.has_data = false;
        self.after_cr = false;
    }

    /// Parses `bytes`, calling `on_event` with the data of each complete event.
    pub fn feed(&mut self, mut bytes: &[u8], on_event: &mut dyn FnMut(&[u8])) -> io::Result<()> {
        if self.after_cr && bytes.first() == Some(&b'\n') {
            bytes = &bytes[1..];
        }
        self.after_cr = false;
        while let Some(i) = bytes.iter().position(|&b| b == b'\n' || b == b'\r') {
            self.line.extend_from_slice(&bytes[..i]);
            self.end_line(on_event);
            let mut next = i + 1;
            if bytes[i] == b'\r' {
                match bytes.get(next) {
                    Some(b'\n') => next += 1,
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
            bytes = &bytes[next..];
        }
        self.line.extend_from_slice(bytes);
        if self.line.len() > MAX_LINE || self.data.len() > MAX_BODY {
            return Err(bad_data("SSE line or event too long"));
        }
        Ok(())
    }

    /// End of the stream. Strictly, an event not closed by an empty line is
    /// discarded; some servers end a POST's stream right after the last `data`
    /// line, so a pending event is dispatched instead.
    pub fn finish(&mut self, on_event: &mut dyn FnMut(&[u8])) {
        if !self.line.is_empty() {
            self.end_line(on_event);
        }
        self.end_line(on_event);
        self.reset();
    }

    fn end_line(&mut self, on_event: &mut dyn FnMut(&[u8])) {
        let line = std::mem::take(&mut self.line);
        if line.is_empty() {
            if self.has_data {
                if self.data.last() == Some(&b'\n') {
                    self.data.pop();
                }
                on_event(&self.data);
            }
            self.data.clear();
            self.has_data = false;
        } else if line[0] != b':' {
            let (field, value) = match line.iter().position(|&b| b == b':') {
                Some(i) => {
                    let v = &line[i + 1..];
                    (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
                }
                None => (&line[..], &[][..]),
            };
            if field == b"data" {
                self.data.extend_from_slice(value);
                self.data.push(b'\n');
                self.has_data = true;
            }
        }
        self.line = line;
        self.line.clear();
    }
}

/// What a request expects back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// A notification: any 2xx answer (202 Accepted normally), body ignored.
    Accepted,
    /// A request with this id: a 200 answer carrying the JSON-RPC response, as
    /// a JSON body or as an event of an SSE stream.
    Response(u64),
}

/// A successful exchange.
#[derive(Debug)]
pub struct Answer {
    /// The response head.
    pub head: Head,
    /// When the JSON-RPC response was complete (for SSE: when its event was
    /// parsed, before the rest of the stream was drained).
    pub at: Instant,
    /// The JSON-RPC response ([`Expect::Response`]; empty for [`Expect::Accepted`]).
    pub message: Vec<u8>,
    /// Server messages (requests, notifications) seen on the SSE stream before
    /// the response.
    pub skipped: u64,
}

/// Why an exchange failed.
#[derive(Debug)]
pub enum Failure {
    /// Writing or reading failed. `nothing_received`: not a byte of the answer
    /// arrived (on a reused keep-alive connection that the server closed
    /// meanwhile, the request can be retried on a new one).
    Io {
        /// The error.
        err: io::Error,
        /// No byte of the answer arrived.
        nothing_received: bool,
    },
    /// A complete answer that is not the expected one.
    Bad(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Io { err, nothing_received: true } => write!(f, "I/O error before any answer: {err}"),
            Failure::Io { err, .. } => write!(f, "I/O error: {err}"),
            Failure::Bad(msg) => f.write_str(msg),
        }
    }
}

/// Reusable buffers of [`exchange`].
#[derive(Debug, Default)]
pub struct Scratch {
    chunk: Vec<u8>,
    sse: SseParser,
}

fn shorten(bytes: &[u8]) -> String {
    const MAX: usize = 300;
    let s = String::from_utf8_lossy(bytes);
    if s.len() <= MAX {
        return s.into_owned();
    }
    let mut end = MAX;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &s[..end])
}

/// Sends one complete request (head and body) and reads its answer.
pub fn exchange<S: Read + Write>(
    conn: &mut Conn<S>,
    request: &[u8],
    expect: Expect,
    scratch: &mut Scratch,
) -> Result<Answer, Failure> {
    conn.reset_received();
    let io_fail = |conn: &Conn<S>, err: io::Error| Failure::Io { err, nothing_received: conn.received() == 0 };
    conn.write_all(request).map_err(|e| io_fail(conn, e))?;
    let head = conn.read_head().map_err(|e| io_fail(conn, e))?;
    let mut body = head.body();
    let buf = &mut scratch.chunk;
    buf.clear();

    let want_id = match expect {
        Expect::Accepted => {
            conn.read_to_end(&mut body, buf).map_err(|e| io_fail(conn, e))?;
            if !(200..300).contains(&head.status) {
                return Err(Failure::Bad(format!("HTTP {} to a notification: {}", head.status, shorten(buf))));
            }
            return Ok(Answer { head, at: Instant::now(), message: Vec::new(), skipped: 0 });
        }
        Expect::Response(id) => id,
    };
    if head.status != 200 || !(head.is_sse() || head.content_type == "application/json") {
        conn.read_to_end(&mut body, buf).map_err(|e| io_fail(conn, e))?;
        return Err(Failure::Bad(format!(
            "HTTP {} ({}): {}",
            head.status,
            if head.content_type.is_empty() { "no content type" } else { &head.content_type },
            shorten(buf)
        )));
    }
    if !head.is_sse() {
        conn.read_to_end(&mut body, buf).map_err(|e| io_fail(conn, e))?;
        let at = Instant::now();
        return Ok(Answer { head, at, message: std::mem::take(buf), skipped: 0 });
    }

    // SSE: events until the response with our id, then drain the stream.
    let sse = &mut scratch.sse;
    sse.reset();
    let mut found: Option<(Instant, Vec<u8>)> = None;
    let mut skipped = 0u64;
    let mut problem: Option<String> = None;
    let mut on_event = |data: &[u8]| {
        if found.is_some() || problem.is_some() {
            return;
        }
        match classify(data, false) {
            Reply::Message => skipped += 1,
            Reply::Ok(id) | Reply::Bad(Some(id), _) if id == want_id => found = Some((Instant::now(), data.to_vec())),
            Reply::Ok(id) | Reply::Bad(Some(id), _) => {
                problem = Some(format!("SSE event answers id {id}, expected {want_id}: {}", shorten(data)))
            }
            Reply::Bad(None, msg) => problem = Some(format!("bad SSE event: {msg}")),
        }
    };
    loop {
        buf.clear();
        let done = conn.read_body(&mut body, buf).map_err(|e| io_fail(conn, e))?;
        sse.feed(buf, &mut on_event).map_err(|e| io_fail(conn, e))?;
        if done {
            sse.finish(&mut on_event);
            break;
        }
    }
    if let Some(p) = problem {
        return Err(Failure::Bad(p));
    }
    match found {
        Some((at, message)) => Ok(Answer { head, at, message, skipped }),
        None => Err(Failure::Bad(format!(
            "the SSE stream ended without the response to id {want_id} ({skipped} other message(s))"
        ))),
    }
}

/// Checks a JSON-RPC response to an `echo` call with id `id`: a result (no
/// error, not `isError`) whose first text content is `text`. `text_json` is
/// `text` serialized as a JSON string (compared raw first, without allocating).
pub fn check_echo(message: &[u8], id: u64, text: &str, text_json: &str) -> Result<(), String> {
    match classify(message, false) {
        Reply::Ok(got) if got == id => {}
        Reply::Ok(got) => return Err(format!("response id {got}, expected {id}")),
        Reply::Bad(_, msg) => return Err(msg),
        Reply::Message => return Err(format!("a server message instead of the response: {}", shorten(message))),
    }
    match echoed_text_fast(message, text, text_json).or_else(|| echoed_text_slow(message, text)) {
        Some(true) => Ok(()),
        Some(false) => Err(format!("the echoed text differs from {text:?}: {}", shorten(message))),
        None => Err(format!("no text content in the result: {}", shorten(message))),
    }
}

type Borrowed<'a> = BTreeMap<&'a str, &'a RawValue>;

/// `Some(equal)` for the first text content item; `None` if the shape could not
/// be read this way.
fn echoed_text_fast(message: &[u8], text: &str, text_json: &str) -> Option<bool> {
    let obj: Borrowed<'_> = serde_json::from_slice(message).ok()?;
    let result: Borrowed<'_> = serde_json::from_str(obj.get("result")?.get()).ok()?;
    let content: Vec<&RawValue> = serde_json::from_str(result.get("content")?.get()).ok()?;
    for item in content {
        let item: Borrowed<'_> = serde_json::from_str(item.get()).ok()?;
        if item.get("type").map(|t| t.get()) != Some("\"text\"") {
            continue;
        }
        let raw = item.get("text")?.get();
        if raw == text_json {
            return Some(true);
        }
        let got: String = serde_json::from_str(raw).ok()?;
        return Some(got == text);
    }
    None
}

fn echoed_text_slow(message: &[u8], text: &str) -> Option<bool> {
    let v: Value = serde_json::from_slice(message).ok()?;
    let content = v.get("result")?.get("content")?.as_array()?;
    let item = content.iter().find(|c| c.get("type").and_then(Value::as_str) == Some("text"))?;
    Some(item.get("text")?.as_str()? == text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    /// A stream that returns its input `step` bytes per read and records writes.
    struct Mock {
        input: Cursor<Vec<u8>>,
        step: usize,
        written: Vec<u8>,
    }

    impl Mock {
        fn new(input: &[u8], step: usize) -> Self {
            Mock { input: Cursor::new(input.to_vec()), step, written: Vec::new() }
        }
    }

    impl Read for Mock {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(self.step);
            self.input.read(&mut buf[..n])
        }
    }

    impl Write for Mock {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.written.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    const STEPS: [usize; 4] = [1, 3, 7, 1 << 16];

    fn body_of(input: &[u8], step: usize) -> (Head, Vec<u8>, Conn<Mock>) {
        let mut conn = Conn::new(Mock::new(input, step));
        let head = conn.read_head().unwrap();
        let mut state = head.body();
        let mut out = Vec::new();
        conn.read_to_end(&mut state, &mut out).unwrap();
        (head, out, conn)
    }

    #[test]
    fn urls() {
        let u = Url::parse("http://127.0.0.1:8080/mcp").unwrap();
        assert_eq!(u, Url { host: "127.0.0.1".into(), port: 8080, path: "/mcp".into() });
        assert_eq!(u.authority(), "127.0.0.1:8080");
        assert_eq!(Url::parse("http://localhost").unwrap().path, "/");
        assert_eq!(Url::parse("http://localhost").unwrap().port, 80);
        assert_eq!(Url::parse("http://h:1?x=1").unwrap().path, "/?x=1");
        let v6 = Url::parse("http://[::1]:3000/a/b").unwrap();
        assert_eq!((v6.host.as_str(), v6.port, v6.path.as_str()), ("[::1]", 3000, "/a/b"));
        assert!(Url::parse("https://h/").is_err());
        assert!(Url::parse("http://h:x/").is_err());
        assert!(Url::parse("http://:80/").is_err());
        assert!(Url::parse("http://[::1/").is_err());
    }

    #[test]
    fn content_length_body_and_headers() {
        let input = b"HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nMcp-Session-Id:  abc \r\nContent-Length: 5\r\n\r\nhelloNEXT";
        for step in STEPS {
            let (head, body, mut conn) = body_of(input, step);
            assert_eq!(head.status, 200);
            assert_eq!(head.content_type, "application/json");
            assert_eq!(head.session_id.as_deref(), Some("abc"));
            assert!(!head.close && !head.chunked);
            assert_eq!(body, b"hello");
            // The next response's bytes stay buffered.
            let mut rest = Vec::new();
            conn.read_body(&mut Body::UntilClose, &mut rest).unwrap();
            assert_eq!(rest, b"NEXT"[..rest.len()].to_vec());
        }
    }

    #[test]
    fn chunked_body() {
        let input = b"HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, chunked\r\n\r\n5;ext=1\r\nhello\r\nA\r\n, world!!!\r\n0\r\nX-Trailer: 1\r\n\r\n";
        for step in STEPS {
            let (head, body, _) = body_of(input, step);
            assert!(head.chunked);
            assert_eq!(body, b"hello, world!!!");
        }
        // Bare LF line ends are tolerated.
        let (_, body, _) = body_of(b"HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n3\nabc\n0\n\n", 2);
        assert_eq!(body, b"abc");
    }

    #[test]
    fn chunked_errors() {
        for input in [
            &b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"[..],
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
        ] {
            let mut conn = Conn::new(Mock::new(input, 4));
            let head = conn.read_head().unwrap();
            let mut state = head.body();
            assert!(conn.read_to_end(&mut state, &mut Vec::new()).is_err());
        }
    }

    #[test]
    fn heads() {
        let mut c =
            Conn::new(Mock::new(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 202 Accepted\r\nConnection: close\r\n\r\n", 5));
        let h = c.read_head().unwrap();
        assert_eq!(h.status, 202);
        assert!(h.close);
        assert_eq!(h.body(), Body::UntilClose);
        let mut c = Conn::new(Mock::new(b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n", 5));
        let h = c.read_head().unwrap();
        assert!(!h.close);
        assert_eq!(h.body(), Body::Done);
        assert_eq!(Head { status: 204, ..Head::default() }.body(), Body::Done);
        for bad in
            [&b"SSH-2.0\r\n\r\n"[..], b"HTTP/1.1 abc\r\n\r\n", b"HTTP/1.1 200 OK\r\nnocolon\r\n\r\n", b"HTTP/1.1 200"]
        {
            assert!(Conn::new(Mock::new(bad, 3)).read_head().is_err());
        }
        let conflicting = b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n";
        assert!(Conn::new(Mock::new(conflicting, 100)).read_head().is_err());
    }

    fn events(input: &[u8], step: usize) -> Vec<String> {
        let mut p = SseParser::default();
        let mut out = Vec::new();
        let mut cb = |d: &[u8]| out.push(String::from_utf8(d.to_vec()).unwrap());
        for piece in input.chunks(step) {
            p.feed(piece, &mut cb).unwrap();
        }
        p.finish(&mut cb);
        out
    }

    #[test]
    fn sse_events() {
        let input = b": comment\r\nevent: message\r\nid: 1\r\ndata: {\"a\":1}\r\n\r\nretry: 100\n\ndata:x\ndata: y\n\ndata\n\nevent: only-type\n\n\r\rdata: cr\r\r";
        for step in [1, 2, 5, 1000] {
            assert_eq!(events(input, step), ["{\"a\":1}", "x\ny", "", "cr"], "step {step}");
        }
        // A CR at the end of one piece and the LF at the start of the next: one line end.
        let mut p = SseParser::default();
        let mut got = Vec::new();
        let mut cb = |d: &[u8]| got.push(d.to_vec());
        p.feed(b"data: a\r", &mut cb).unwrap();
        p.feed(b"\n\r", &mut cb).unwrap();
        p.feed(b"\n", &mut cb).unwrap();
        assert_eq!(got, [b"a".to_vec()]);
        // A stream that ends right after the data line still yields its event.
        assert_eq!(events(b"event: message\ndata: {\"id\":1}", 4), ["{\"id\":1}"]);
        assert_eq!(events(b"event: message\ndata: {\"id\":1}\n", 4), ["{\"id\":1}"]);
    }

    fn run_exchange(input: &[u8], step: usize, expect: Expect) -> (Result<Answer, Failure>, Conn<Mock>) {
        let mut conn = Conn::new(Mock::new(input, step));
        let r = exchange(&mut conn, b"POST / HTTP/1.1\r\n\r\n", expect, &mut Scratch::default());
        (r, conn)
    }

    #[test]
    fn exchange_json_and_sse() {
        let json = br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello"}]}}"#;
        let mut input =
            format!("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n", json.len())
                .into_bytes();
        input.extend_from_slice(json);
        for step in STEPS {
            let (r, conn) = run_exchange(&input, step, Expect::Response(7));
            let a = r.unwrap();
            assert_eq!(a.message, json);
            assert_eq!(conn.get_ref().written, b"POST / HTTP/1.1\r\n\r\n");
            check_echo(&a.message, 7, "hello", "\"hello\"").unwrap();
        }

        // SSE, chunked, with a notification and a ping request before the response.
        let events = concat!(
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n",
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"ping\"}\n\n",
            "id: 3\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hello\"}]}}\r\n\r\n",
        );
        let mut input =
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
        for part in events.as_bytes().chunks(40) {
            input.extend_from_slice(format!("{:x}\r\n", part.len()).as_bytes());
            input.extend_from_slice(part);
            input.extend_from_slice(b"\r\n");
        }
        input.extend_from_slice(b"0\r\n\r\nHTTP/1.1");
        for step in STEPS {
            let (r, mut conn) = run_exchange(&input, step, Expect::Response(7));
            let a = r.unwrap();
            assert_eq!(a.skipped, 2);
            check_echo(&a.message, 7, "hello", "\"hello\"").unwrap();
            // The stream was drained: the next response's first bytes are next.
            let mut rest = Vec::new();
            conn.read_to_end(&mut Body::UntilClose, &mut rest).unwrap();
            assert_eq!(rest, b"HTTP/1.1");
        }

        // SSE with Content-Length and no blank line after the last event.
        let ev = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}\n";
        let input =
            format!("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\n\r\n{ev}", ev.len());
        let (r, _) = run_exchange(input.as_bytes(), 3, Expect::Response(0));
        assert_eq!(r.unwrap().message, br#"{"jsonrpc":"2.0","id":0,"result":{}}"#);
    }

    #[test]
    fn exchange_failures() {
        // HTTP error status: the body is drained and quoted.
        let input =
            b"HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n{\"e\":\"nope\"}";
        match run_exchange(input, 5, Expect::Response(1)).0 {
            Err(Failure::Bad(m)) => assert!(m.contains("404") && m.contains("nope"), "{m}"),
            other => panic!("{other:?}"),
        }
        // SSE stream that ends without our response.
        let sse = |body: &str| {
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
        };
        let input = sse("data: {\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n\n");
        match run_exchange(input.as_bytes(), 5, Expect::Response(1)).0 {
            Err(Failure::Bad(m)) => assert!(m.contains("ended without"), "{m}"),
            other => panic!("{other:?}"),
        }
        // A response to another id.
        let input = sse("data: {\"id\":2,\"result\":{}}\n\n");
        assert!(matches!(run_exchange(input.as_bytes(), 5, Expect::Response(1)).0, Err(Failure::Bad(_))));
        // The connection closes before any answer: retryable.
        match run_exchange(b"", 5, Expect::Response(1)).0 {
            Err(Failure::Io { nothing_received: true, .. }) => {}
            other => panic!("{other:?}"),
        }
        match run_exchange(b"HTTP/1.1 200 OK\r\nContent-Le", 5, Expect::Response(1)).0 {
            Err(Failure::Io { nothing_received: false, .. }) => {}
            other => panic!("{other:?}"),
        }
        // Notifications: 202 is fine, 400 is not.
        assert!(run_exchange(b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n", 5, Expect::Accepted).0.is_ok());
        assert!(matches!(
            run_exchange(b"HTTP/1.1 400 Bad\r\ncontent-length: 3\r\n\r\nbad", 5, Expect::Accepted).0,
            Err(Failure::Bad(_))
        ));
        // A body of an unexpected content type.
        assert!(matches!(
            run_exchange(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\n\r\nhi",
                5,
                Expect::Response(1)
            )
            .0,
            Err(Failure::Bad(_))
        ));
    }

    #[test]
    fn echo_checks() {
        let ok = br#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"hello"}],"isError":false}}"#;
        assert_eq!(check_echo(ok, 3, "hello", "\"hello\""), Ok(()));
        assert!(check_echo(ok, 4, "hello", "\"hello\"").is_err());
        assert!(check_echo(ok, 3, "bye", "\"bye\"").is_err());
        // Escaped text and escaped keys (slow path).
        let esc = br#"{"id":3,"result":{"content":[{"type":"text","text":"h\u0065llo"}]}}"#;
        assert_eq!(check_echo(esc, 3, "hello", "\"hello\""), Ok(()));
        let esc_key = br#"{"id":3,"result":{"cont\u0065nt":[{"type":"text","text":"hello"}]}}"#;
        assert_eq!(check_echo(esc_key, 3, "hello", "\"hello\""), Ok(()));
        for bad in [
            &br#"{"id":3,"result":{"content":[]}}"#[..],
            br#"{"id":3,"result":{"content":[{"type":"image","data":""}]}}"#,
            br#"{"id":3,"result":{"content":[{"type":"text","text":"hello"}],"isError":true}}"#,
            br#"{"id":3,"error":{"code":-32602,"message":"bad"}}"#,
            br#"{"jsonrpc":"2.0","method":"notifications/message"}"#,
        ] {
            assert!(check_echo(bad, 3, "hello", "\"hello\"").is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }
}
