//! An incremental parser of `text/event-stream` bodies (the WHATWG "event stream
//! interpretation" algorithm): fields `event`, `data` (several lines joined with `\n`), `id`
//! and `retry`, comments, LF / CRLF / CR line ends (also split across chunks), a leading
//! UTF-8 BOM, and bounded line and event sizes.

use std::collections::VecDeque;
use std::fmt;
use std::time::Duration;

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The event type (`message` when the event named none).
    pub event: String,
    /// The data lines, joined with `\n`.
    pub data: String,
    /// The stream's last event ID when the event was dispatched (if non-empty).
    pub id: Option<String>,
}

/// A stream that broke a size limit; the stream must be abandoned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SseError {
    /// A line longer than the limit (in bytes).
    LineTooLong(usize),
    /// An event whose data is larger than the limit (in bytes).
    EventTooLarge(usize),
}

impl fmt::Display for SseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SseError::LineTooLong(n) => write!(f, "an SSE line is longer than {n} bytes"),
            SseError::EventTooLarge(n) => write!(f, "an SSE event carries more than {n} bytes of data"),
        }
    }
}

impl std::error::Error for SseError {}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bom {
    /// This many bytes of a BOM matched at the start of the stream so far.
    Pending(usize),
    Done,
}

/// The parser. Feed it body chunks, then take the complete events with [`SseParser::next_event`].
/// The last event ID and the reconnection delay survive [`SseParser::reset`] (a reconnection).
#[derive(Debug)]
pub(crate) struct SseParser {
    line: Vec<u8>,
    skip_lf: bool,
    bom: Bom,
    event: String,
    data: String,
    last_id: String,
    retry: Option<Duration>,
    ready: VecDeque<SseEvent>,
    max_line: usize,
    max_event: usize,
}

impl SseParser {
    /// A parser accepting events of up to `max_event` bytes of data (lines may be slightly
    /// longer, for the field name).
    pub fn new(max_event: usize) -> Self {
        SseParser {
            line: Vec::new(),
            skip_lf: false,
            bom: Bom::Pending(0),
            event: String::new(),
            data: String::new(),
            last_id: String::new(),
            retry: None,
            ready: VecDeque::new(),
            max_line: max_event.saturating_add(1024),
            max_event,
        }
    }

    /// Starts a new connection: drops a partial line and a partial event (and expects a BOM
    /// again) but keeps the last event ID and the reconnection delay.
    pub fn reset(&mut self) {
        self.line.clear();
        self.skip_lf = false;
        self.bom = Bom::Pending(0);
        self.event.clear();
        self.data.clear();
        self.ready.clear();
    }

    /// The last event ID the stream set (`None` when unset or empty).
    pub fn last_event_id(&self) -> Option<&str> {
        (!self.last_id.is_empty()).then_some(self.last_id.as_str())
    }

    /// The reconnection delay the stream set with `retry:`.
    pub fn retry(&self) -> Option<Duration> {
        self.retry
    }

    /// The next complete event, if any.
    pub fn next_event(&mut self) -> Option<SseEvent> {
        self.ready.pop_front()
    }

    /// Parses one chunk of the body.
    pub fn feed(&mut self, mut chunk: &[u8]) -> Result<(), SseError> {
        while let Bom::Pending(n) = self.bom {
            let Some(&b) = chunk.first() else { return Ok(()) };
            if b == BOM[n] {
                chunk = &chunk[1..];
                self.bom = if n + 1 == BOM.len() { Bom::Done } else { Bom::Pending(n + 1) };
            } else {
                // Not a BOM: the bytes matched so far were data.
                self.bom = Bom::Done;
                self.feed_lines(&BOM[..n])?;
            }
        }
        self.feed_lines(chunk)
    }

    fn feed_lines(&mut self, mut chunk: &[u8]) -> Result<(), SseError> {
        while !chunk.is_empty() {
            if self.skip_lf {
                self.skip_lf = false;
                if chunk[0] == b'\n' {
                    chunk = &chunk[1..];
                    continue;
                }
            }
            match memchr::memchr2(b'\n', b'\r', chunk) {
                Some(i) => {
                    if self.line.is_empty() {
                        self.check_line(i)?;
                        self.process_line(&chunk[..i])?;
                    } else {
                        self.check_line(self.line.len() + i)?;
                        let mut line = std::mem::take(&mut self.line);
                        line.extend_from_slice(&chunk[..i]);
                        let r = self.process_line(&line);
                        line.clear();
                        self.line = line;
                        r?;
                    }
                    self.skip_lf = chunk[i] == b'\r';
                    chunk = &chunk[i + 1..];
                }
                None => {
                    self.check_line(self.line.len() + chunk.len())?;
                    self.line.extend_from_slice(chunk);
                    break;
                }
            }
        }
        Ok(())
    }

    fn check_line(&self, len: usize) -> Result<(), SseError> {
        if len > self.max_line {
            return Err(SseError::LineTooLong(self.max_line));
        }
        Ok(())
    }

    fn process_line(&mut self, line: &[u8]) -> Result<(), SseError> {
        if line.is_empty() {
            self.dispatch();
            return Ok(());
        }
        if line[0] == b':' {
            return Ok(());
        }
        let (field, value) = match memchr::memchr(b':', line) {
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
            }
            None => (line, &b""[..]),
        };
        match field {
            b"event" => self.event = String::from_utf8_lossy(value).into_owned(),
            b"data" => {
                // Counted as stored: an invalid byte becomes U+FFFD, three bytes (found by
                // fuzzing: invalid UTF-8 passed the limit).
                let text = String::from_utf8_lossy(value);
                if self.data.len() + text.len() > self.max_event {
                    return Err(SseError::EventTooLarge(self.max_event));
                }
                self.data.push_str(&text);
                self.data.push('\n');
            }
            b"id" if !value.contains(&0) => self.last_id = String::from_utf8_lossy(value).into_owned(),
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                if let Ok(ms) = std::str::from_utf8(value).unwrap_or_default().parse::<u64>() {
                    self.retry = Some(Duration::from_millis(ms));
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn dispatch(&mut self) {
        if self.data.is_empty() {
            self.event.clear();
            return;
        }
        self.data.pop(); // the trailing '\n'
        let event = if self.event.is_empty() { "message".to_string() } else { std::mem::take(&mut self.event) };
        self.ready.push_back(SseEvent {
            event,
            data: std::mem::take(&mut self.data),
            id: self.last_event_id().map(str::to_string),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(event: &str, data: &str, id: Option<&str>) -> SseEvent {
        SseEvent { event: event.into(), data: data.into(), id: id.map(Into::into) }
    }

    fn parse(chunks: &[&[u8]]) -> (Vec<SseEvent>, SseParser) {
        let mut p = SseParser::new(1 << 20);
        let mut out = Vec::new();
        for c in chunks {
            p.feed(c).expect("within limits");
            while let Some(e) = p.next_event() {
                out.push(e);
            }
        }
        (out, p)
    }

    /// Every way of splitting `input` into two chunks gives the same events.
    fn parse_all_splits(input: &[u8]) -> Vec<SseEvent> {
        let (whole, _) = parse(&[input]);
        for i in 0..=input.len() {
            let (split, _) = parse(&[&input[..i], &input[i..]]);
            assert_eq!(split, whole, "split at {i}");
        }
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        assert_eq!(parse(&bytes).0, whole, "byte by byte");
        whole
    }

    #[test]
    fn message_events_with_lf_crlf_and_cr() {
        for input in [
            &b"data: {\"a\":1}\n\nevent: endpoint\ndata: /m?x=1\n\n"[..],
            &b"data: {\"a\":1}\r\n\r\nevent: endpoint\r\ndata: /m?x=1\r\n\r\n"[..],
            &b"data: {\"a\":1}\r\revent: endpoint\rdata: /m?x=1\r\r"[..],
        ] {
            assert_eq!(
                parse_all_splits(input),
                vec![ev("message", "{\"a\":1}", None), ev("endpoint", "/m?x=1", None)],
                "{:?}",
                String::from_utf8_lossy(input)
            );
        }
    }

    #[test]
    fn multi_line_data_and_field_forms() {
        let input = b"data:first\ndata: second\ndata\ndata:  two spaces\n\n";
        assert_eq!(parse_all_splits(input), vec![ev("message", "first\nsecond\n\n two spaces", None)]);
    }

    #[test]
    fn comments_and_unknown_fields_are_ignored() {
        let input = b": keep-alive\nfoo: bar\ndata: x\n: another\n\n:\n\n";
        assert_eq!(parse_all_splits(input), vec![ev("message", "x", None)]);
    }

    #[test]
    fn bom_is_stripped_once() {
        let input = b"\xEF\xBB\xBFdata: a\n\n";
        assert_eq!(parse_all_splits(input), vec![ev("message", "a", None)]);
        // A partial BOM is data (here: an unknown field name).
        let (events, _) = parse(&[b"\xEF\xBBdata: a\n\ndata: b\n\n"]);
        assert_eq!(events, vec![ev("message", "b", None)]);
        // Only at the start of the stream.
        let (events, _) = parse(&[b"data: a\n\n\xEF\xBB\xBFdata: b\n\n"]);
        assert_eq!(events, vec![ev("message", "a", None)]);
    }

    #[test]
    fn ids_and_retry() {
        // A priming event: an id and a retry with empty data is dispatched with empty data.
        let input = b"id: e-1\nretry: 500\ndata: \n\nid: e-2\ndata: {}\n\n";
        let (events, p) = parse(&[input]);
        assert_eq!(events, vec![ev("message", "", Some("e-1")), ev("message", "{}", Some("e-2"))]);
        assert_eq!(p.last_event_id(), Some("e-2"));
        assert_eq!(p.retry(), Some(Duration::from_millis(500)));
        // An id without data sets the last event id without dispatching.
        let (events, p) = parse(&[b"id: only\n\n"]);
        assert!(events.is_empty());
        assert_eq!(p.last_event_id(), Some("only"));
        // An id with NUL is ignored; an empty id clears it.
        let (_, p) = parse(&[b"id: a\n\nid: b\0c\n\n"]);
        assert_eq!(p.last_event_id(), Some("a"));
        let (_, p) = parse(&[b"id: a\n\nid\n\n"]);
        assert_eq!(p.last_event_id(), None);
        // Invalid retry values are ignored.
        let (_, p) = parse(&[b"retry: 12x\n\nretry: -5\n\nretry:\n\nretry: 99999999999999999999999\n\n"]);
        assert_eq!(p.retry(), None);
    }

    #[test]
    fn incomplete_event_at_end_is_not_dispatched_and_reset_keeps_id() {
        let mut p = SseParser::new(1024);
        p.feed(b"id: 7\nretry: 10\n\ndata: partial").unwrap();
        assert!(p.next_event().is_none());
        p.reset();
        p.feed(b"\xEF\xBB\xBFdata: next\n\n").unwrap();
        assert_eq!(p.next_event(), Some(ev("message", "next", Some("7"))));
        assert_eq!(p.retry(), Some(Duration::from_millis(10)));
    }

    #[test]
    fn event_type_resets_after_dispatch() {
        let input = b"event: ping\n\nevent: custom\ndata: 1\n\ndata: 2\n\n";
        assert_eq!(parse_all_splits(input), vec![ev("custom", "1", None), ev("message", "2", None)]);
    }

    #[test]
    fn limits() {
        let mut p = SseParser::new(16);
        assert_eq!(p.feed(b"data: 0123456789\ndata: 0123456789\n"), Err(SseError::EventTooLarge(16)));
        // Invalid UTF-8 is stored as U+FFFD (three bytes each): counted as stored.
        let mut p = SseParser::new(16);
        assert_eq!(p.feed(b"data: \xff\xff\xff\xff\xff\xff\n"), Err(SseError::EventTooLarge(16)));
        let mut p = SseParser::new(18);
        p.feed(b"data: \xff\xff\xff\xff\xff\xff\n\n").unwrap();
        assert_eq!(p.next_event().map(|e| e.data.len()), Some(18));
        let mut p = SseParser::new(16);
        let long = vec![b'x'; 2000];
        assert_eq!(p.feed(&long), Err(SseError::LineTooLong(16 + 1024)));
        let mut p = SseParser::new(16);
        for _ in 0..100 {
            if let Err(e) = p.feed(&[b'y'; 20]) {
                assert_eq!(e, SseError::LineTooLong(16 + 1024));
                return;
            }
        }
        panic!("a line split over many chunks was not bounded");
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        let (events, _) = parse(&[b"data: a\xFFb\n\n"]);
        assert_eq!(events, vec![ev("message", "a\u{FFFD}b", None)]);
    }
}
