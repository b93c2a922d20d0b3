//! The Streamable HTTP client transport, with the legacy HTTP+SSE fallback.
//!
//! [`connect`] returns a newline-delimited byte stream pair: write one JSON-RPC message (or
//! batch) per line to the [`HttpWriter`], read the server's messages, one per line, from the
//! [`HttpReader`]. [`Client::connect`](crate::Client::connect) and the host-driven client
//! sessions of the bindings therefore run over HTTP unchanged;
//! [`Client::http`](crate::Client::http) is the shortcut.
//!
//! What the adapter does on the wire (spec 2025-11-25, "Transports"):
//!
//! - each written line is POSTed to the MCP endpoint (`Accept: application/json,
//!   text/event-stream`), with the custom headers, `Mcp-Session-Id` once the server issued
//!   one and `MCP-Protocol-Version` once `initialize` was answered. POSTs run concurrently: a
//!   tool call that waits for a sampling answer does not hold back the POST of that answer.
//!   Notifications and responses wait (briefly) for their `202` before the next line goes, so
//!   the server sees `notifications/initialized` before the requests that follow it;
//! - an `application/json` answer is read as one line; a `text/event-stream` answer is parsed
//!   and each `message` event becomes a line. A stream that ends before it answered its
//!   requests is resumed with `GET` + `Last-Event-ID` after the server's `retry:` delay (or
//!   the [`ReconnectPolicy`] backoff);
//! - once `notifications/initialized` is accepted, the standalone `GET` stream is opened
//!   (`405` means the server offers none) and reconnected when it drops;
//! - an HTTP error on a POST that carried requests answers those requests with a JSON-RPC
//!   error ([`HTTP_TRANSPORT_ERROR`]) naming the status and the server's explanation, so calls
//!   fail instead of hanging; `404` on a request carrying a session id means the session
//!   expired: pending requests fail and the reader ends with an error (no silent re-initialize);
//! - a refused connection (a POST, or resuming a stream) means nothing listens at the server's
//!   address any more, and the closing of the legacy event stream ends its session: either
//!   way pending requests fail with `CONNECTION_CLOSED` and the reader ends with an error;
//! - shutting the writer down sends `DELETE` with the session id, then ends the reader;
//! - legacy fallback: when the `initialize` POST gets `400`, `404` or `405`, the URL is opened
//!   with `GET` as an HTTP+SSE stream; its `endpoint` event names where to POST, and the
//!   server's messages arrive as `message` events on that stream.

// The files: `options` (HttpClientOptions and its parts), `ends` (HttpReader, HttpWriter),
// `dispatcher` (the task taking the written lines in order; shutdown), `streamable` (POSTs,
// the GET stream, reading and resuming SSE streams), `legacy` (the HTTP+SSE event stream),
// `state` (what the tasks share), `url` (Target), `pool` (connections), `response`
// (reading responses).
mod authorize;
mod dispatcher;
mod ends;
mod fetch;
mod legacy;
mod options;
mod pool;
mod response;
mod state;
mod streamable;
mod tls;
mod url;

pub use authorize::LoopbackBrowser;
pub use ends::{HttpReader, HttpWriter};
pub use fetch::HttpFetch;
pub use options::{HttpClientOptions, HttpTransport, ReconnectPolicy};

use crate::auth::client::{AuthorizationHandler, AuthorizeMode, Authorizer, Fetch, Headless};
use crate::error::{Error, Result};
use http::header::{HeaderMap, HeaderName, HeaderValue};
use pool::Pool;
use state::{Mode, Shared, State};
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, watch};
use url::Target;

/// The JSON-RPC error code of the answers this transport makes up for requests the server
/// could not answer (an HTTP error status, a broken stream, an expired session...).
pub const HTTP_TRANSPORT_ERROR: i32 = -32010;

/// Lines queued for the reader.
const READER_QUEUE: usize = 32;
/// Lines queued from the writer to the dispatcher.
const WRITER_QUEUE: usize = 64;

/// Opens an HTTP transport to `url` (an `http://` URL: the MCP endpoint, or with
/// [`HttpTransport::Sse`] the SSE endpoint). Fails when the server cannot be reached.
pub async fn connect(url: &str, options: HttpClientOptions) -> Result<(HttpReader, HttpWriter)> {
    let base = Target::parse(url).map_err(Error::Message)?;
    let mut headers = HeaderMap::new();
    for (name, value) in &options.headers {
        let n = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| Error::Message(format!("invalid HTTP header name {name:?}")))?;
        let v = HeaderValue::from_str(value)
            .map_err(|_| Error::Message(format!("invalid value of the HTTP header {name:?}")))?;
        headers.append(n, v);
    }
    let tls = match base.tls {
        true => Some(
            tls::Tls::new(&base.host, options.ca_file.as_deref())
                .map_err(|e| Error::Message(format!("cannot connect to {url}: {e}")))?,
        ),
        false => None,
    };
    let auth = authorizer(url, &options)?;
    let pool = Arc::new(Pool::new(base.host.clone(), base.port, options.connect_timeout, tls));
    let sender = pool.open().await.map_err(|e| Error::Message(format!("cannot connect to {url}: {e}")))?;
    pool.put(sender);
    let mode = match options.transport {
        HttpTransport::Auto => Mode::Undecided,
        HttpTransport::Streamable => Mode::Streamable,
        HttpTransport::Sse => Mode::Undecided, // set below, once the endpoint is known
    };
    let (item_tx, item_rx) = mpsc::channel(READER_QUEUE);
    let (cmd_tx, cmd_rx) = mpsc::channel(WRITER_QUEUE);
    let shared = Arc::new(Shared {
        base,
        max_message: options.max_message,
        opts: options,
        headers,
        pool,
        auth,
        state: Mutex::new(State { mode, ..State::default() }),
        stop: watch::Sender::new(false),
        closing: watch::Sender::new(false),
        cancelled: tokio::sync::Notify::new(),
    });
    if shared.opts.transport == HttpTransport::Sse {
        match shared.open_legacy(&item_tx).await {
            Ok(target) => shared.state().mode = Mode::Legacy(target),
            Err(e) => {
                shared.stop.send_replace(true);
                return Err(Error::Message(format!("{url}: {e}")));
            }
        }
    }
    tokio::spawn(dispatcher::dispatch(shared.clone(), cmd_rx, item_tx));
    Ok((HttpReader::new(item_rx), HttpWriter::new(cmd_tx, shared)))
}

/// The OAuth client of this connection, when the options ask for one.
fn authorizer(url: &str, options: &HttpClientOptions) -> Result<Option<Arc<Authorizer>>> {
    let Some(o) = options.auth.clone() else { return Ok(None) };
    let fetch: Arc<dyn Fetch> = Arc::new(HttpFetch::new(options.ca_file.clone(), options.connect_timeout));
    let handler: Arc<dyn AuthorizationHandler> = match (&o.handler, o.authorize) {
        (Some(h), _) => h.clone(),
        (None, AuthorizeMode::Headless) => Arc::new(Headless::new(fetch.clone())),
        (None, AuthorizeMode::Browser) => Arc::new(LoopbackBrowser::new()),
        (None, AuthorizeMode::Host) => {
            return Err(Error::Message("auth.authorize = \"host\" needs a handler from the host language".into()))
        }
    };
    Authorizer::new(url, o, fetch, handler).map(|a| Some(Arc::new(a))).map_err(|e| Error::Message(format!("auth: {e}")))
}
