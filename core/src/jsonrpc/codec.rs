//! Newline-delimited framing with a size cap: a line longer than the cap is discarded as it
//! streams in (never buffered whole) and reported once as [`Frame::Oversize`].

/// The default cap on one message: 16 MiB.
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 16 * 1024 * 1024;

/// Splits a byte stream into lines.
#[derive(Debug)]
pub struct LineCodec {
    buf: Vec<u8>,
    start: usize,
    scanned: usize,
    max: usize,
    discarding: bool,
}

/// One unit the codec yields.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame<'a> {
    /// A complete line, without its `\n` (and without a trailing `\r`).
    Line(&'a [u8]),
    /// A line exceeded the cap; its bytes were dropped.
    Oversize,
}

impl LineCodec {
    /// A codec with a cap of `max` bytes per line.
    pub fn new(max: usize) -> Self {
        LineCodec { buf: Vec::new(), start: 0, scanned: 0, max, discarding: false }
    }

    /// The cap in bytes.
    pub fn max(&self) -> usize {
        self.max
    }

    /// Bytes buffered but not yet returned as a line.
    pub fn buffered(&self) -> usize {
        self.buf.len() - self.start
    }

    /// Appends input.
    pub fn feed(&mut self, data: &[u8]) {
        if self.start > 0 && self.start == self.buf.len() {
            self.buf.clear();
            self.start = 0;
            self.scanned = 0;
        } else if self.start > 64 * 1024 && self.start * 2 > self.buf.len() {
            self.buf.drain(..self.start);
            self.scanned -= self.start;
            self.start = 0;
        }
        self.buf.extend_from_slice(data);
    }

    /// The next complete frame, if any. Blank lines are skipped.
    pub fn next_frame(&mut self) -> Option<Frame<'_>> {
        loop {
            let from = self.scanned.max(self.start);
            match memchr::memchr(b'\n', &self.buf[from..]) {
                Some(pos) => {
                    let end = from + pos;
                    let line_start = self.start;
                    self.start = end + 1;
                    self.scanned = self.start;
                    if self.discarding {
                        self.discarding = false;
                        continue;
                    }
                    if end - line_start > self.max {
                        return Some(Frame::Oversize);
                    }
                    let mut line = &self.buf[line_start..end];
                    if let [rest @ .., b'\r'] = line {
                        line = rest;
                    }
                    if line.iter().all(|b| b.is_ascii_whitespace()) {
                        continue;
                    }
                    return Some(Frame::Line(&self.buf[line_start..line_start + line.len()]));
                }
                None => {
                    self.scanned = self.buf.len();
                    if !self.discarding && self.buf.len() - self.start > self.max {
                        // Too long and still no newline: drop what we have and skip to the
                        // end of this line.
                        self.buf.clear();
                        self.start = 0;
                        self.scanned = 0;
                        self.discarding = true;
                        return Some(Frame::Oversize);
                    }
                    if self.discarding {
                        self.buf.clear();
                        self.start = 0;
                        self.scanned = 0;
                    }
                    return None;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(c: &mut LineCodec) -> Vec<String> {
        let mut v = Vec::new();
        while let Some(f) = c.next_frame() {
            v.push(match f {
                Frame::Line(l) => String::from_utf8_lossy(l).into_owned(),
                Frame::Oversize => "<oversize>".into(),
            });
        }
        v
    }

    #[test]
    fn splits_lines_across_feeds() {
        let mut c = LineCodec::new(100);
        c.feed(b"{\"a\":1}\n{\"b\"");
        assert_eq!(lines(&mut c), vec!["{\"a\":1}"]);
        c.feed(b":2}\r\n\n  \n{\"c\":3}\n");
        assert_eq!(lines(&mut c), vec!["{\"b\":2}", "{\"c\":3}"]);
        assert_eq!(c.buffered(), 0);
    }

    #[test]
    fn oversize_line_is_dropped_without_buffering() {
        let mut c = LineCodec::new(10);
        c.feed(b"0123456789ABC");
        assert_eq!(lines(&mut c), vec!["<oversize>"]);
        assert_eq!(c.buffered(), 0);
        c.feed(b"more junk");
        assert_eq!(lines(&mut c), Vec::<String>::new());
        assert_eq!(c.buffered(), 0);
        c.feed(b"end\nok\n");
        assert_eq!(lines(&mut c), vec!["ok"]);
        // Oversize within one feed, newline present.
        c.feed(b"0123456789ABCDEF\nfine\n");
        assert_eq!(lines(&mut c), vec!["<oversize>", "fine"]);
    }
}
