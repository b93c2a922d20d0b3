//! The tests of HTTP/1.1 on one connection (`h1.rs`).
use super::*;

/// The head parsed from `text`, with the bytes it took.
fn head(text: &str) -> std::result::Result<Option<(usize, Head)>, StatusCode> {
    let mut buf = BytesMut::from(text);
    let h = parse_head(&mut buf, &mut None)?;
    Ok(h.map(|h| (text.len() - buf.len(), h)))
}

#[test]
fn heads_parse_with_their_framing() {
    let (len, h) = head("POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello").unwrap().unwrap();
    assert_eq!(len, 50);
    assert_eq!(h.framing, Framing::Length(5));
    assert!(h.keep_alive);
    assert_eq!(h.req.uri().path(), "/mcp");
    let (_, h) = head("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n").unwrap().unwrap();
    assert_eq!(h.framing, Framing::Chunked);
    assert!(!h.keep_alive);
    let (_, h) = head("GET / HTTP/1.0\r\n\r\n").unwrap().unwrap();
    assert_eq!(h.framing, Framing::None);
    assert!(!h.keep_alive);
    let (_, h) = head("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").unwrap().unwrap();
    assert!(h.keep_alive);
    let (_, h) = head("POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n").unwrap().unwrap();
    assert!(h.expect_continue);
    assert!(head("POST / HTTP/1.1\r\nContent-Le").unwrap().is_none());
}

#[test]
fn mcp_header_names_in_any_case() {
    let (_, h) = head("POST / HTTP/1.1\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nmcp-name: echo\r\nX-Other: 1\r\n\r\n").unwrap().unwrap();
    let headers = h.req.headers();
    assert_eq!(headers["mcp-protocol-version"], "2026-07-28");
    assert_eq!(headers["mcp-method"], "tools/call");
    assert_eq!(headers["mcp-name"], "echo");
    assert_eq!(headers["x-other"], "1");
    assert_eq!(header_name(b"Last-Event-ID").unwrap(), "last-event-id");
    assert!(header_name(b"bad name").is_err());
}

#[test]
fn smuggling_shapes_are_refused() {
    let bad = |t: &str| head(t).err();
    assert_eq!(
        bad("POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"),
        Some(StatusCode::BAD_REQUEST)
    );
    assert_eq!(bad("POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n"), Some(StatusCode::BAD_REQUEST));
    assert_eq!(bad("POST / HTTP/1.1\r\nContent-Length: +5\r\n\r\n"), Some(StatusCode::BAD_REQUEST));
    assert_eq!(bad("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"), Some(StatusCode::NOT_IMPLEMENTED));
    assert_eq!(bad("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n"), Some(StatusCode::BAD_REQUEST));
    assert_eq!(bad("GARBAGE\r\n\r\n"), Some(StatusCode::BAD_REQUEST));
    assert_eq!(bad("GET / HTTP/2.0\r\n\r\n"), Some(StatusCode::BAD_REQUEST));
    let many: String = (0..=MAX_HEADERS).map(|i| format!("X-{i}: v\r\n")).collect();
    assert_eq!(bad(&format!("GET / HTTP/1.1\r\n{many}\r\n")), Some(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE));
    // The same length twice is one length.
    let (_, h) = head("POST / HTTP/1.1\r\nContent-Length: 5, 5\r\n\r\n").unwrap().unwrap();
    assert_eq!(h.framing, Framing::Length(5));
}

#[test]
fn chunk_sizes() {
    assert_eq!(chunk_size(b"1a"), Some(26));
    assert_eq!(chunk_size(b"0;ext=1"), Some(0));
    assert_eq!(chunk_size(b"FF "), Some(255));
    assert_eq!(chunk_size(b""), None);
    assert_eq!(chunk_size(b"xyz"), None);
    assert_eq!(chunk_size(b"1234567890abcdef0"), None);
    let mut out = Vec::new();
    status_line(&mut out, StatusCode::NOT_FOUND);
    assert_eq!(out, b"HTTP/1.1 404 Not Found\r\n");
}

/// A connection served by a fresh test server: the client's end, the serving task and
/// the graceful-stop switch.
fn connect(
    options: super::super::HttpOptions,
    half_close: bool,
) -> (tokio::io::DuplexStream, tokio::task::JoinHandle<()>, tokio::sync::watch::Sender<bool>) {
    let runtime =
        std::sync::Arc::new(crate::runtime::Runtime::new(crate::protocol::Implementation::new("h1-test", "1.0.0")));
    let svc = HttpService::new(&runtime, options);
    let (client, conn) = tokio::io::duplex(1 << 16);
    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    let served = tokio::spawn(serve(conn, svc, stop, Config { half_close, client: None }));
    (client, served, stop_tx)
}

/// Writes `input` on one connection to a served [`HttpService`], shuts the write side
/// and returns all the server wrote.
async fn exchange(options: super::super::HttpOptions, input: &[u8]) -> String {
    let (mut client, served, _stop) = connect(options, true);
    // The server may answer and close before it all went (a head past the limit).
    let _ = client.write_all(input).await;
    let _ = client.shutdown().await;
    let mut out = Vec::new();
    client.read_to_end(&mut out).await.unwrap();
    served.await.unwrap();
    String::from_utf8_lossy(&out).into_owned()
}

fn initialize(id: u32) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
    )
}

fn post(body: &str, extra: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{extra}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

fn statuses(out: &str) -> Vec<&str> {
    out.match_indices("HTTP/1.1 ").map(|(i, _)| &out[i + 9..i + 12]).collect()
}

#[tokio::test]
async fn pipelined_requests_are_answered_in_order_on_one_connection() {
    let input = format!(
        "{}GET /elsewhere HTTP/1.1\r\nHost: localhost\r\n\r\n{}",
        post(&initialize(1), ""),
        post(&initialize(2), "")
    );
    let out = exchange(Default::default(), input.as_bytes()).await;
    assert_eq!(statuses(&out), ["200", "404", "200"], "{out}");
    let first = out.find(r#""id":1"#).unwrap();
    let second = out.find(r#""id":2"#).unwrap();
    assert!(first < second);
    assert!(out.contains("content-length: "), "{out}");
    assert!(out.contains("date: "), "{out}");
    assert!(!out.contains("connection: close"), "kept alive: {out}");
}

#[tokio::test]
async fn a_kept_header_map_carries_nothing_into_the_next_request() {
    // The first request names a session that does not exist (404); the second names none,
    // and is read into the map the first answer left: it must not see the first's header.
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let input = format!("{}{}", post(ping, "Mcp-Session-Id: nope\r\n"), post(&initialize(2), ""));
    let out = exchange(Default::default(), input.as_bytes()).await;
    assert_eq!(statuses(&out), ["404", "200"], "{out}");
    assert!(out.contains(r#""id":2"#), "{out}");
}

#[tokio::test]
async fn chunked_bodies_and_expect_continue() {
    let body = initialize(7);
    let (a, b) = body.split_at(10);
    let head = "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n";
    let chunks = format!("{:x};ext=1\r\n{a}\r\n{:X}\r\n{b}\r\n0\r\nTrailer: x\r\n\r\n", a.len(), b.len());
    // Sent together: the body is there, no 100 Continue is owed.
    let out = exchange(Default::default(), format!("{head}{chunks}").as_bytes()).await;
    assert!(out.starts_with("HTTP/1.1 200 OK\r\n"), "{out}");
    assert!(out.contains(r#""id":7"#), "{out}");
    // The head alone: 100 Continue, then the body, then the answer.
    let (mut client, served, _stop) = connect(Default::default(), true);
    client.write_all(head.as_bytes()).await.unwrap();
    let mut buf = [0u8; 64];
    let n = client.read(&mut buf).await.unwrap();
    assert_eq!(&buf[..n], b"HTTP/1.1 100 Continue\r\n\r\n");
    client.write_all(chunks.as_bytes()).await.unwrap();
    client.shutdown().await.unwrap();
    let mut out = Vec::new();
    client.read_to_end(&mut out).await.unwrap();
    served.await.unwrap();
    let out = String::from_utf8_lossy(&out);
    assert!(out.starts_with("HTTP/1.1 200 OK\r\n"), "{out}");
    assert!(out.contains(r#""id":7"#), "{out}");
    // A chunk that does not end where its size says is bad framing.
    let bad = "POST /mcp HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcdef\r\n0\r\n\r\n";
    let out = exchange(Default::default(), bad.as_bytes()).await;
    assert_eq!(statuses(&out), ["400"], "{out}");
    assert!(out.contains("connection: close"));
}

#[tokio::test]
async fn bodies_past_the_limit_get_413_and_the_connection_closes() {
    let options = super::super::HttpOptions { max_body: 100, ..Default::default() };
    let big = "x".repeat(500);
    // By its length: the body is never read, the second request never served.
    let input = format!("{}{}", post(&big, ""), post(&initialize(1), ""));
    let out = exchange(options.clone(), input.as_bytes()).await;
    assert_eq!(statuses(&out), ["413"], "{out}");
    assert!(out.contains("connection: close"), "{out}");
    // Chunked: read up to the limit only.
    let input = format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{big}\r\n0\r\n\r\n",
        big.len()
    );
    let out = exchange(options, input.as_bytes()).await;
    assert_eq!(statuses(&out), ["413"], "{out}");
    assert!(out.contains("Payload Too Large"), "{out}");
}

#[tokio::test]
async fn bad_heads_head_requests_and_http_1_0() {
    let out = exchange(Default::default(), b"NOT HTTP AT ALL\r\n\r\n").await;
    assert!(out.starts_with("HTTP/1.1 400 Bad Request\r\n"), "{out}");
    let huge = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(MAX_HEAD));
    let out = exchange(Default::default(), huge.as_bytes()).await;
    assert!(out.starts_with("HTTP/1.1 431 "), "{out}");
    let out = exchange(Default::default(), b"HEAD /elsewhere HTTP/1.1\r\nHost: localhost\r\n\r\n").await;
    assert!(out.starts_with("HTTP/1.1 404 Not Found\r\n"), "{out}");
    assert!(out.contains("content-length: 9\r\n"), "{out}");
    assert!(out.ends_with("\r\n\r\n"), "no body after the head: {out}");
    let kept = b"GET /elsewhere HTTP/1.0\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\nGET /elsewhere HTTP/1.0\r\nHost: localhost\r\n\r\n";
    let out = exchange(Default::default(), kept).await;
    assert_eq!(statuses(&out), ["404", "404"], "{out}");
    assert!(out.contains("connection: keep-alive\r\n"), "{out}");
    let out =
        exchange(Default::default(), b"GET /elsewhere HTTP/1.0\r\nHost: localhost\r\n\r\nGET / HTTP/1.0\r\n\r\n").await;
    assert_eq!(statuses(&out), ["404"], "HTTP/1.0 closes after one answer: {out}");
    assert!(out.contains("connection: close"), "{out}");
    assert!(out.ends_with("Not Found"), "{out}");
}

#[tokio::test(start_paused = true)]
async fn a_body_that_does_not_come_gets_408() {
    let options = super::super::HttpOptions { body_read_timeout: Some(Duration::from_secs(2)), ..Default::default() };
    let (mut client, served, _stop) = connect(options, false);
    client.write_all(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Length: 10\r\n\r\nabc").await.unwrap();
    let mut out = Vec::new();
    client.read_to_end(&mut out).await.unwrap();
    let out = String::from_utf8_lossy(&out);
    assert!(out.starts_with("HTTP/1.1 408 "), "{out}");
    assert!(out.contains("connection: close"), "{out}");
    served.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn idle_connections_close_at_the_header_timeout_and_on_stop() {
    let options = super::super::HttpOptions { header_read_timeout: Some(Duration::from_secs(5)), ..Default::default() };
    let (mut client, served, _stop) = connect(options.clone(), false);
    client.write_all(b"GET / HTTP/1.1\r\nHo").await.unwrap();
    let mut out = Vec::new();
    client.read_to_end(&mut out).await.unwrap();
    assert!(out.is_empty(), "a half-sent head is dropped without an answer");
    served.await.unwrap();

    let (mut client, served, stop_tx) = connect(options, false);
    client.write_all(b"GET /elsewhere HTTP/1.1\r\nHost: localhost\r\n\r\n").await.unwrap();
    let mut buf = [0u8; 512];
    let n = client.read(&mut buf).await.unwrap();
    assert!(buf[..n].starts_with(b"HTTP/1.1 404"));
    stop_tx.send(true).unwrap();
    served.await.unwrap();
    assert_eq!(client.read(&mut buf).await.unwrap(), 0, "closed between requests on stop");
}

/// One timer serves a kept-alive connection's requests: each wait for a head still gets
/// the whole timeout (and at most an eighth more), however many requests came before.
#[tokio::test(start_paused = true)]
async fn the_header_timeout_counts_from_each_wait() {
    let t = Duration::from_secs(8);
    let options = super::super::HttpOptions { header_read_timeout: Some(t), ..Default::default() };
    let (mut client, served, _stop) = connect(options, false);
    let mut buf = [0u8; 512];
    for _ in 0..3 {
        client.write_all(b"GET /elsewhere HTTP/1.1\r\nHost: localhost\r\n\r\n").await.unwrap();
        let n = client.read(&mut buf).await.unwrap();
        assert!(buf[..n].starts_with(b"HTTP/1.1 404"), "{}", String::from_utf8_lossy(&buf[..n]));
        // Just short of the timeout since the last answer: the connection is still open.
        tokio::time::sleep(t - Duration::from_millis(100)).await;
    }
    client.write_all(b"GET /elsewhere HTTP/1.1\r\nHost: localhost\r\n\r\n").await.unwrap();
    let n = client.read(&mut buf).await.unwrap();
    assert!(buf[..n].starts_with(b"HTTP/1.1 404"));
    let idle = tokio::time::Instant::now();
    assert_eq!(client.read(&mut buf).await.unwrap(), 0, "closed when idle past the timeout");
    let waited = idle.elapsed();
    assert!(waited >= t && waited <= t + t / 8 + Duration::from_millis(10), "{waited:?}");
    served.await.unwrap();
}
