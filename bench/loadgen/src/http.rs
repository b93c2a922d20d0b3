//! A minimal HTTP/1.1 keep-alive client for `httpload`: just enough of the
//! protocol to POST JSON-RPC messages to a Streamable HTTP MCP endpoint and read
//! the answers, with no runtime and no dependency beyond `serde_json`.
//!
//! The parsing is sans I/O, fed whatever pieces of bytes arrive, so that the
//! blocking client here and the event-driven one (`async_http`) share it:
//!
//! - [`Url`]: `http://host[:port]/path` only (loopback benchmarks, no TLS).
//! - [`HeadParser`]: the status line and the headers that matter ([`Head`]);
//!   [`Body::decode`]: a body delimited by `Content-Length`,
//!   `Transfer-Encoding: chunked` or the end of the connection.
//! - [`SseParser`]: incremental `text/event-stream` parsing (the `data` lines of
//!   each event).
//! - [`ResponseParser`]: the answer to one request, JSON or SSE; with SSE the
//!   events are parsed until the JSON-RPC response with the request's id
//!   arrives (its arrival time is what a latency is measured to), then the rest
//!   of the stream is drained so the connection can carry the next request.
//! - [`Conn`] and [`exchange`]: a blocking connection and one request and its
//!   answer over it.
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

/// A parsed `http://` or `https://` URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    /// `https://`: the connection speaks TLS.
    pub tls: bool,
    /// Host as written (an IPv6 address keeps its brackets).
    pub host: String,
    /// Port (80, or 443 for https, when absent).
    pub port: u16,
    /// Path and query, at least `/`.
    pub path: String,
}

impl Url {
    /// Parses `http://host[:port][/path]` or `https://…`.
    pub fn parse(s: &str) -> Result<Url, String> {
        let (tls, rest) = match (s.strip_prefix("http://"), s.strip_prefix("https://")) {
            (Some(rest), _) => (false, rest),
            (None, Some(rest)) => (true, rest),
            (None, None) => return Err(format!("{s:?}: only http:// and https:// URLs are supported")),
        };
        let default_port = if tls { 443 } else { 80 };
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
                "" => (host, default_port),
                p => {
                    let p = p.strip_prefix(':').ok_or_else(|| bad_port(p))?;
                    (host, p.parse().map_err(|_| bad_port(p))?)
                }
            }
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h, p.parse().map_err(|_| bad_port(p))?),
                None => (authority, default_port),
            }
        };
        if host.is_empty() || host.contains('@') {
            return Err(format!("{s:?}: bad host"));
        }
        Ok(Url { tls, host: host.to_owned(), port, path })
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

fn closed(where_: &str) -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, format!("connection closed {where_}"))
}

/// Appends `input` up to the next LF to `line`. Returns the bytes consumed and
/// whether the line is complete; then `line` holds it without its LF and an
/// optional CR (the caller clears it once handled).
fn take_line(line: &mut Vec<u8>, input: &[u8]) -> io::Result<(usize, bool)> {
    match input.iter().position(|&b| b == b'\n') {
        Some(i) => {
            line.extend_from_slice(&input[..i]);
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            Ok((i + 1, true))
        }
        None => {
            line.extend_from_slice(input);
            if line.len() > MAX_LINE {
                return Err(bad_data("line too long"));
            }
            Ok((input.len(), false))
        }
    }
}

/// Incremental parser of a response head: a status line and headers (interim
/// 1xx responses are skipped), fed any pieces of bytes.
#[derive(Debug, Default)]
pub struct HeadParser {
    line: Vec<u8>,
    /// The head being parsed, once its status line is in.
    head: Option<Head>,
    http10: bool,
}

impl HeadParser {
    /// Forgets any partial head.
    pub fn reset(&mut self) {
        self.line.clear();
        self.head = None;
    }

    /// Parses bytes of `input`. Returns the bytes consumed and the head once
    /// complete (the bytes after it, not consumed, start the body); without a
    /// head, all of `input` was consumed.
    pub fn feed(&mut self, input: &[u8]) -> io::Result<(usize, Option<Head>)> {
        let mut pos = 0;
        loop {
            let (n, complete) = take_line(&mut self.line, &input[pos..])?;
            pos += n;
            if !complete {
                return Ok((pos, None));
            }
            let head = self.end_line();
            self.line.clear();
            if let Some(head) = head? {
                return Ok((pos, Some(head)));
            }
        }
    }

    fn end_line(&mut self) -> io::Result<Option<Head>> {
        let Some(head) = &mut self.head else {
            let status_line = String::from_utf8_lossy(&self.line);
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
            self.http10 = version == "HTTP/1.0";
            self.head = Some(Head { status, close: self.http10, ..Head::default() });
            return Ok(None);
        };
        if self.line.is_empty() {
            let mut head = self.head.take().expect("checked above");
            if head.body() == Body::UntilClose {
                head.close = true;
            }
            if (100..200).contains(&head.status) && head.status != 101 {
                return Ok(None); // an interim response: the real head follows
            }
            return Ok(Some(head));
        }
        let line = &self.line;
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            return Err(bad_data(format!("bad header line: {:?}", String::from_utf8_lossy(line))));
        };
        let name = line[..colon].trim_ascii();
        let value = String::from_utf8_lossy(line[colon + 1..].trim_ascii()).into_owned();
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
                } else if token.eq_ignore_ascii_case("keep-alive") && self.http10 {
                    head.close = false;
                }
            }
        }
        Ok(None)
    }
}

impl Body {
    /// Decodes the body bytes at the start of `input`, appending the data to
    /// `out` (`line` holds a partial chunk-size or trailer line between calls).
    /// Returns the bytes consumed: up to the end of the body (the bytes after
    /// it belong to the next response) or all of `input`.
    pub fn decode(&mut self, line: &mut Vec<u8>, input: &[u8], out: &mut Vec<u8>) -> io::Result<usize> {
        let mut pos = 0;
        loop {
            let rest = &input[pos..];
            match *self {
                Body::Done => return Ok(pos),
                Body::Length(0) => *self = Body::Done,
                Body::UntilClose => {
                    out.extend_from_slice(rest);
                    return Ok(input.len());
                }
                Body::Length(n) | Body::ChunkData(n) => {
                    if rest.is_empty() {
                        return Ok(pos);
                    }
                    let take = n.min(rest.len() as u64) as usize;
                    out.extend_from_slice(&rest[..take]);
                    pos += take;
                    let left = n - take as u64;
                    *self = match *self {
                        Body::Length(_) if left == 0 => Body::Done,
                        Body::Length(_) => Body::Length(left),
                        _ if left == 0 => Body::ChunkEnd,
                        _ => Body::ChunkData(left),
                    };
                }
                Body::ChunkSize | Body::ChunkEnd | Body::Trailers => {
                    if rest.is_empty() {
                        return Ok(pos);
                    }
                    let (n, complete) = take_line(line, rest)?;
                    pos += n;
                    if !complete {
                        return Ok(pos);
                    }
                    match *self {
                        Body::ChunkSize => {
                            let text = String::from_utf8_lossy(line);
                            let size = text.split(';').next().unwrap_or_default().trim();
                            let n = u64::from_str_radix(size, 16)
                                .map_err(|_| bad_data(format!("bad chunk size line {:?}", text.as_ref())))?;
                            *self = if n == 0 { Body::Trailers } else { Body::ChunkData(n) };
                        }
                        Body::ChunkEnd if !line.is_empty() => return Err(bad_data("chunk data longer than its size")),
                        Body::ChunkEnd => *self = Body::ChunkSize,
                        _ if line.is_empty() => *self = Body::Done,
                        _ => {} // a trailer
                    }
                    line.clear();
                }
            }
        }
    }

    /// The connection closed here: fine if the body is complete or runs until
    /// the end of the connection (then it is [`Body::Done`]).
    pub fn eof(&mut self) -> io::Result<()> {
        match *self {
            Body::Done | Body::UntilClose | Body::Length(0) => {
                *self = Body::Done;
                Ok(())
            }
            Body::Length(_) | Body::ChunkData(_) => Err(closed("inside a body")),
            Body::ChunkSize | Body::ChunkEnd | Body::Trailers => Err(closed("in the middle of a line")),
        }
    }
}

/// A buffered HTTP/1.1 connection over any blocking byte stream.
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

    /// Reads a status line and headers (interim 1xx responses are skipped).
    pub fn read_head(&mut self) -> io::Result<Head> {
        let mut parser = HeadParser::default();
        loop {
            let (n, head) = parser.feed(&self.buf[self.pos..self.end])?;
            self.pos += n;
            if let Some(head) = head {
                return Ok(head);
            }
            if !self.fill()? {
                return Err(closed("in the middle of a line"));
            }
        }
    }

    /// Appends the next piece of the body to `out` (what one read brought) and
    /// returns whether the body is complete.
    pub fn read_body(&mut self, state: &mut Body, out: &mut Vec<u8>) -> io::Result<bool> {
        if matches!(*state, Body::Done | Body::Length(0)) {
            *state = Body::Done;
            return Ok(true);
        }
        if !self.fill()? {
            state.eof()?;
            return Ok(true);
        }
        let n = state.decode(&mut self.line, &self.buf[self.pos..self.end], out)?;
        self.pos += n;
        Ok(*state == Body::Done)
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
                // An event whose data is empty is not dispatched (the SSE rules): rmcp opens
                // each answer with one (`data: ` plus an id and `retry`) to prime resumption.
                if !self.data.is_empty() {
                    on_event(&self.data);
                }
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

/// What [`ResponseParser::feed`] found.
#[derive(Debug)]
pub enum Progress {
    /// All the bytes were consumed; the answer is not complete yet.
    NeedMore,
    /// The answer is complete (or broken): the outcome of the exchange.
    Done(Result<Answer, Failure>),
}

/// What the body of the answer is read for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Answer to a notification: drained, then the status is checked.
    Accepted,
    /// Not a 200 with a JSON or SSE body: drained and quoted.
    Error,
    /// A JSON body: the response.
    Json,
    /// An SSE stream: events until the response with this id, then drained.
    Sse(u64),
}

/// The answer to one request, parsed incrementally from any pieces of bytes
/// (sans I/O: [`exchange`] drives it over a blocking [`Conn`],
/// `async_http::AsyncConn` over a tokio socket). A JSON body is complete at
/// its end; with SSE the events are parsed as they arrive until the JSON-RPC
/// response with the request's id (its arrival time is what a latency is
/// measured to), then the rest of the stream is drained so the connection can
/// carry the next request. Reusable: [`ResponseParser::start`] before each
/// request.
#[derive(Debug)]
pub struct ResponseParser {
    expect: Expect,
    head_parser: HeadParser,
    /// The head, once parsed, and what its body is read for.
    head: Option<(Head, Kind)>,
    body: Body,
    line: Vec<u8>,
    /// The body (JSON, error text) or the latest piece of an SSE stream.
    chunk: Vec<u8>,
    sse: SseParser,
    /// SSE: when the response event was parsed, and its data.
    found: Option<(Instant, Vec<u8>)>,
    skipped: u64,
    problem: Option<String>,
    /// Bytes consumed since [`ResponseParser::start`].
    fed: u64,
}

impl Default for ResponseParser {
    fn default() -> Self {
        ResponseParser {
            expect: Expect::Accepted,
            head_parser: HeadParser::default(),
            head: None,
            body: Body::Done,
            line: Vec::new(),
            chunk: Vec::new(),
            sse: SseParser::default(),
            found: None,
            skipped: 0,
            problem: None,
            fed: 0,
        }
    }
}

/// The former name of [`ResponseParser`] (the reusable buffers of [`exchange`]).
pub type Scratch = ResponseParser;

impl ResponseParser {
    /// Gets ready for the answer to a new request.
    pub fn start(&mut self, expect: Expect) {
        self.expect = expect;
        self.head_parser.reset();
        self.head = None;
        self.body = Body::Done;
        self.line.clear();
        self.chunk.clear();
        self.sse.reset();
        self.found = None;
        self.skipped = 0;
        self.problem = None;
        self.fed = 0;
    }

    /// An I/O error of the connection as a failure of this exchange (retryable
    /// when not a byte of the answer had arrived).
    pub fn io_failure(&self, err: io::Error) -> Failure {
        Failure::Io { err, nothing_received: self.fed == 0 }
    }

    /// Parses bytes of `input`. Returns the bytes consumed (all of them
    /// unless the answer is complete: bytes after it are not consumed) and
    /// whether the exchange is over.
    pub fn feed(&mut self, input: &[u8]) -> (usize, Progress) {
        let (n, progress) = match self.feed_inner(input) {
            Ok(r) => r,
            Err(e) => (input.len(), Some(Err(self.io_failure(e)))),
        };
        self.fed += n as u64;
        (n, progress.map_or(Progress::NeedMore, Progress::Done))
    }

    /// The connection was closed by the server: the outcome of the exchange.
    pub fn eof(&mut self) -> Result<Answer, Failure> {
        if self.head.is_none() {
            return Err(self.io_failure(closed("in the middle of a line")));
        }
        if let Err(e) = self.body.eof() {
            return Err(self.io_failure(e));
        }
        self.finish()
    }

    fn feed_inner(&mut self, input: &[u8]) -> io::Result<(usize, Option<Result<Answer, Failure>>)> {
        let mut pos = 0;
        if self.head.is_none() {
            let (n, head) = self.head_parser.feed(input)?;
            pos = n;
            let Some(head) = head else { return Ok((pos, None)) };
            let kind = match self.expect {
                Expect::Accepted => Kind::Accepted,
                Expect::Response(_) if head.status != 200 => Kind::Error,
                Expect::Response(id) if head.is_sse() => Kind::Sse(id),
                Expect::Response(_) if head.content_type == "application/json" => Kind::Json,
                Expect::Response(_) => Kind::Error,
            };
            self.body = head.body();
            self.head = Some((head, kind));
        }
        let kind = self.head.as_ref().map(|h| h.1).expect("parsed above");
        if let Kind::Sse(want_id) = kind {
            self.chunk.clear();
            pos += self.body.decode(&mut self.line, &input[pos..], &mut self.chunk)?;
            let (found, skipped, problem) = (&mut self.found, &mut self.skipped, &mut self.problem);
            let mut on_event = |data: &[u8]| on_sse_event(data, want_id, found, skipped, problem);
            self.sse.feed(&self.chunk, &mut on_event)?;
            if self.body != Body::Done {
                return Ok((pos, None));
            }
            self.sse.finish(&mut on_event);
        } else {
            pos += self.body.decode(&mut self.line, &input[pos..], &mut self.chunk)?;
            if self.chunk.len() > MAX_BODY {
                return Err(bad_data("body too large"));
            }
            if self.body != Body::Done {
                return Ok((pos, None));
            }
        }
        Ok((pos, Some(self.finish())))
    }

    /// The body is complete: the outcome.
    fn finish(&mut self) -> Result<Answer, Failure> {
        let (head, kind) = self.head.take().expect("a head before the end of its body");
        let buf = &mut self.chunk;
        match kind {
            Kind::Accepted if (200..300).contains(&head.status) => {
                Ok(Answer { head, at: Instant::now(), message: Vec::new(), skipped: 0 })
            }
            Kind::Accepted => Err(Failure::Bad(format!("HTTP {} to a notification: {}", head.status, shorten(buf)))),
            Kind::Error => Err(Failure::Bad(format!(
                "HTTP {} ({}): {}",
                head.status,
                if head.content_type.is_empty() { "no content type" } else { &head.content_type },
                shorten(buf)
            ))),
            Kind::Json => Ok(Answer { head, at: Instant::now(), message: std::mem::take(buf), skipped: 0 }),
            Kind::Sse(want_id) => {
                if let Some(p) = self.problem.take() {
                    return Err(Failure::Bad(p));
                }
                match self.found.take() {
                    Some((at, message)) => Ok(Answer { head, at, message, skipped: self.skipped }),
                    None => Err(Failure::Bad(format!(
                        "the SSE stream ended without the response to id {want_id} ({} other message(s))",
                        self.skipped
                    ))),
                }
            }
        }
    }
}

/// One SSE event of the answer to request `want_id`.
fn on_sse_event(
    data: &[u8],
    want_id: u64,
    found: &mut Option<(Instant, Vec<u8>)>,
    skipped: &mut u64,
    problem: &mut Option<String>,
) {
    if found.is_some() || problem.is_some() {
        return;
    }
    match classify(data, false) {
        Reply::Message => *skipped += 1,
        Reply::Ok(id) | Reply::Bad(Some(id), _) if id == want_id => *found = Some((Instant::now(), data.to_vec())),
        Reply::Ok(id) | Reply::Bad(Some(id), _) => {
            *problem = Some(format!("SSE event answers id {id}, expected {want_id}: {}", shorten(data)))
        }
        Reply::Bad(None, msg) => *problem = Some(format!("bad SSE event: {msg}")),
    }
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

/// Sends one complete request (head and body) over a blocking connection and
/// reads its answer with `parser`.
pub fn exchange<S: Read + Write>(
    conn: &mut Conn<S>,
    request: &[u8],
    expect: Expect,
    parser: &mut ResponseParser,
) -> Result<Answer, Failure> {
    parser.start(expect);
    conn.reset_received();
    conn.write_all(request).map_err(|e| parser.io_failure(e))?;
    loop {
        if conn.pos < conn.end {
            let (n, progress) = parser.feed(&conn.buf[conn.pos..conn.end]);
            conn.pos += n;
            if let Progress::Done(outcome) = progress {
                return outcome;
            }
        }
        match conn.fill() {
            Ok(true) => {}
            Ok(false) => return parser.eof(),
            Err(e) => return Err(parser.io_failure(e)),
        }
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

/// The answer a connection last checked in full, for checking the next ones with one
/// comparison: a server answers the same call the same way save for the id, so an answer
/// that is, byte for byte, one already checked with this call's id in place of that one's
/// is right, exactly as strictly as [`check_echo`] would find it (any other answer gets
/// the full check). The load generator's own work per call is then a fraction of what
/// parsing every answer twice cost it, and what the benchmark measures is the server.
#[derive(Debug, Default)]
pub struct KnownAnswer {
    /// The answer's bytes before and after its id (empty: none known yet).
    before: Vec<u8>,
    after: Vec<u8>,
    /// The text it echoed.
    text: String,
}

impl KnownAnswer {
    /// Checks `message` as the answer to call `id` echoing `text` (see [`check_echo`]).
    pub fn check(&mut self, message: &[u8], id: u64, text: &str, text_json: &str) -> Result<(), String> {
        if self.matches(message, id, text) {
            return Ok(());
        }
        check_echo(message, id, text, text_json)?;
        self.learn(message, text);
        Ok(())
    }

    fn matches(&self, message: &[u8], id: u64, text: &str) -> bool {
        if self.before.is_empty() || self.text != text {
            return false;
        }
        let Some(digits) = message.strip_prefix(&self.before[..]).and_then(|m| m.strip_suffix(&self.after[..])) else {
            return false;
        };
        // A JSON integer, in decimal, with no sign and no leading zero: the id's own text.
        let plain =
            !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) && (digits[0] != b'0' || digits.len() == 1);
        plain && std::str::from_utf8(digits).ok().and_then(|d| d.parse::<u64>().ok()) == Some(id)
    }

    /// Remembers a checked answer (its id's place found by parsing it once more).
    fn learn(&mut self, message: &[u8], text: &str) {
        let Ok(obj) = serde_json::from_slice::<Borrowed<'_>>(message) else { return };
        let Some(id) = obj.get("id").map(|r| r.get().as_bytes()) else { return };
        let start = (id.as_ptr() as usize).wrapping_sub(message.as_ptr() as usize);
        let Some(end) = start.checked_add(id.len()).filter(|&e| e <= message.len()) else { return };
        self.before = message[..start].to_vec();
        self.after = message[end..].to_vec();
        self.text = text.to_string();
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
        assert_eq!(u, Url { tls: false, host: "127.0.0.1".into(), port: 8080, path: "/mcp".into() });
        assert_eq!(u.authority(), "127.0.0.1:8080");
        assert_eq!(Url::parse("http://localhost").unwrap().path, "/");
        assert_eq!(Url::parse("http://localhost").unwrap().port, 80);
        assert_eq!(Url::parse("http://h:1?x=1").unwrap().path, "/?x=1");
        let v6 = Url::parse("http://[::1]:3000/a/b").unwrap();
        assert_eq!((v6.host.as_str(), v6.port, v6.path.as_str()), ("[::1]", 3000, "/a/b"));
        let s = Url::parse("https://h/x").unwrap();
        assert_eq!((s.tls, s.host.as_str(), s.port, s.path.as_str()), (true, "h", 443, "/x"));
        assert_eq!(Url::parse("https://[::1]:8443").unwrap().port, 8443);
        assert!(Url::parse("ftp://h/").is_err());
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
            assert_eq!(events(input, step), ["{\"a\":1}", "x\ny", "cr"], "step {step}");
            // rmcp's priming event (empty data, an id, retry) is not an event to hand on.
            let primed = b"data: \nid: 0\nretry: 3000\n\nevent: message\ndata: {\"id\":1}\n\n";
            assert_eq!(events(primed, step), ["{\"id\":1}"], "step {step}");
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

    /// The outcome of an exchange, comparable.
    fn outcome(r: Result<Answer, Failure>) -> String {
        match r {
            Ok(a) => format!(
                "ok {} close={} sid={:?} skipped={} {}",
                a.head.status,
                a.head.close,
                a.head.session_id,
                a.skipped,
                String::from_utf8_lossy(&a.message)
            ),
            Err(f) => format!("err {f}"),
        }
    }

    /// Feeds `input` cut at `cuts` to a fresh parser; the outcome and the bytes
    /// consumed (the end of the stream after the last piece).
    fn parse_pieces(input: &[u8], cuts: &[usize], expect: Expect) -> (String, usize) {
        let mut p = ResponseParser::default();
        p.start(expect);
        let mut consumed = 0;
        let mut start = 0;
        for &end in cuts.iter().chain([input.len()].iter()) {
            let piece = &input[start..end];
            start = end;
            let (n, progress) = p.feed(piece);
            consumed += n;
            if let Progress::Done(r) = progress {
                return (outcome(r), consumed);
            }
            assert_eq!(n, piece.len(), "a parser that needs more consumes everything");
        }
        (outcome(p.eof()), consumed)
    }

    fn chunked(head: &str, body: &str, size: usize) -> Vec<u8> {
        let mut out = head.as_bytes().to_vec();
        for part in body.as_bytes().chunks(size) {
            out.extend_from_slice(format!("{:x}\r\n", part.len()).as_bytes());
            out.extend_from_slice(part);
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"0\r\n\r\n");
        out
    }

    #[test]
    fn response_parser_split_everywhere() {
        let json = r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello"}]}}"#;
        let sse_events = concat!(
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n",
            "id: 3\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hello\"}]}}\r\n\r\n",
        );
        let sse_head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nMcp-Session-Id: s-1\r\nTransfer-Encoding: chunked\r\n\r\n";
        let cases: Vec<(Vec<u8>, Expect, &str)> = vec![
            (
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{json}HTTP/1.1",
                    json.len()
                )
                .into_bytes(),
                Expect::Response(7),
                "ok 200 close=false",
            ),
            (
                format!("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n{json}")
                    .into_bytes(),
                Expect::Response(7),
                "ok 200 close=true",
            ),
            (
                chunked(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
                    json,
                    9,
                ),
                Expect::Response(7),
                "ok 200",
            ),
            (chunked(sse_head, sse_events, 40), Expect::Response(7), "ok 200 close=false sid=Some(\"s-1\") skipped=1"),
            (
                chunked(sse_head, sse_events, 1000),
                Expect::Response(7),
                "ok 200 close=false sid=Some(\"s-1\") skipped=1",
            ),
            (
                chunked(sse_head, "data: {\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n\n", 7),
                Expect::Response(7),
                "err the SSE stream ended",
            ),
            (b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\nHTTP".to_vec(), Expect::Accepted, "ok 202"),
            (
                b"HTTP/1.1 400 Bad\r\ncontent-length: 3\r\n\r\nbad".to_vec(),
                Expect::Accepted,
                "err HTTP 400 to a notification: bad",
            ),
            (
                b"HTTP/1.1 404 Not Found\r\ncontent-length: 4\r\n\r\nnope".to_vec(),
                Expect::Response(1),
                "err HTTP 404 (no content type): nope",
            ),
            (
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 9\r\n\r\n{}".to_vec(),
                Expect::Response(1),
                "err I/O error: connection closed inside a body",
            ),
        ];
        for (input, expect, want) in cases {
            let whole = parse_pieces(&input, &[], expect);
            assert!(whole.0.starts_with(want), "{:?}: {}", String::from_utf8_lossy(&input), whole.0);
            if whole.0.starts_with("ok") && expect != Expect::Accepted {
                assert!(whole.0.ends_with(json), "{}", whole.0);
            }
            for cut in 0..=input.len() {
                assert_eq!(parse_pieces(&input, &[cut], expect), whole, "cut at {cut}");
            }
            let bytes: Vec<usize> = (1..input.len()).collect();
            assert_eq!(parse_pieces(&input, &bytes, expect), whole, "byte by byte");
        }
        // A parser is reusable, and a complete answer leaves the next one's bytes.
        let mut p = ResponseParser::default();
        let two =
            b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\nHTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n";
        p.start(Expect::Accepted);
        let (n, progress) = p.feed(two);
        assert!(matches!(progress, Progress::Done(Ok(_))));
        assert_eq!(n, two.len() / 2);
        p.start(Expect::Accepted);
        assert!(matches!(p.feed(&two[n..]), (m, Progress::Done(Ok(_))) if m == n));
        // Nothing at all: retryable.
        p.start(Expect::Response(1));
        assert!(matches!(p.eof(), Err(Failure::Io { nothing_received: true, .. })));
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

    /// An answer checked in full lets the next ones with other ids pass on one comparison;
    /// anything else still gets the full check, and fails it as before.
    #[test]
    fn known_answers_are_checked_as_strictly() {
        let answer = |id: &str, text: &str| {
            format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"{text}"}}]}}}}"#)
        };
        let mut known = KnownAnswer::default();
        known.check(answer("7", "hello").as_bytes(), 7, "hello", "\"hello\"").unwrap();
        assert!(known.matches(answer("8", "hello").as_bytes(), 8, "hello"));
        assert!(known.matches(answer("12345", "hello").as_bytes(), 12345, "hello"));
        known.check(answer("9", "hello").as_bytes(), 9, "hello", "\"hello\"").unwrap();
        // Not the same bytes around the id, another id, not a plain integer: the full check.
        for (message, id) in [
            (answer("10", "hellO"), 10),
            (answer("11", "hello"), 12),
            (answer("013", "hello"), 13),
            (answer("+14", "hello"), 14),
            (answer("", "hello"), 0),
            (answer("\"15\"", "hello"), 15),
        ] {
            assert!(!known.matches(message.as_bytes(), id, "hello"), "{message}");
            assert!(known.check(message.as_bytes(), id, "hello", "\"hello\"").is_err(), "{message}");
        }
        // Another text: the known answer does not apply.
        assert!(!known.matches(answer("16", "hello").as_bytes(), 16, "bye"));
        assert!(known.check(answer("16", "hello").as_bytes(), 16, "bye", "\"bye\"").is_err());
        assert!(KnownAnswer::default().check(b"{}", 1, "hello", "\"hello\"").is_err());
    }
}
