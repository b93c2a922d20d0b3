//! The legacy HTTP+SSE transport (2024-11-05): opening its event stream, waiting for the
//! `endpoint` event that names where to POST, then reading the server's messages from the
//! stream. The messages are POSTed by [`Shared::post`].

use super::ends::Item;
use super::response::{media_type, snippet, status_text};
use super::state::{Req, Shared};
use super::streamable::{Pump, StreamKind};
use super::url::Target;
use crate::transport::http::sse::SseParser;
use bytes::Bytes;
use http::Method;
use http_body_util::BodyExt;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// How long the legacy SSE stream may take to name its POST endpoint.
const ENDPOINT_WAIT: Duration = Duration::from_secs(10);

impl Shared {
    /// Opens the legacy event stream at the base URL and waits for its `endpoint` event;
    /// the stream is then read by a task. Returns where to POST.
    pub(super) async fn open_legacy(self: &Arc<Self>, tx: &mpsc::Sender<Item>) -> std::result::Result<Target, String> {
        let req = self.request(Method::GET, &self.base, Bytes::new(), Req { fresh: true, ..Req::default() });
        let (resp, lease) = self.pool.send(req).await.map_err(|e| format!("GET {} failed: {e}", self.base.url))?;
        let status = resp.status();
        if !status.is_success() {
            let detail = snippet(resp.into_body()).await;
            return Err(format!("GET {} answered {}: {detail}", self.base.url, status_text(status)));
        }
        let ct = media_type(&resp);
        if ct != "text/event-stream" {
            return Err(format!("GET {} answered with {ct:?}, not an event stream", self.base.url));
        }
        let mut body = resp.into_body();
        let mut parser = SseParser::new(self.max_message);
        let wait = async {
            loop {
                let Some(frame) = body.frame().await else {
                    return Err("the event stream ended before naming the endpoint".to_string());
                };
                let frame = frame.map_err(|e| format!("reading the event stream failed: {e}"))?;
                let Ok(data) = frame.into_data() else { continue };
                parser.feed(&data).map_err(|e| e.to_string())?;
                while let Some(ev) = parser.next_event() {
                    match ev.event.as_str() {
                        "endpoint" => return self.base.resolve(&ev.data),
                        "message" => {
                            self.deliver(tx, ev.data.as_bytes()).await;
                        }
                        _ => {}
                    }
                }
            }
        };
        let target = match tokio::time::timeout(ENDPOINT_WAIT, wait).await {
            Ok(r) => r?,
            Err(_) => return Err(format!("no `endpoint` event within {ENDPOINT_WAIT:?}")),
        };
        let this = self.clone();
        let tx = tx.clone();
        self.spawn(async move {
            if let Pump::ReaderGone = this.pump(&StreamKind::Legacy, body, lease, &mut parser, &tx).await {
                return;
            }
            let m = format!("the server closed the HTTP+SSE event stream {}", this.base.url);
            this.closed(&tx, m).await;
        });
        Ok(target)
    }
}
