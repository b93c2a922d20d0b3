//! The HTTP client transport for Node: the engine's `HostStream` (Streamable HTTP, or the
//! legacy HTTP+SSE transport) on the I/O thread as a newline-delimited byte stream; JS feeds
//! what arrives to its `ClientSession` and writes what the session queues. JS is woken (one
//! thread-safe call) only when nothing was waiting, and takes everything at once. While the
//! stream is open it keeps Node alive, as a child process's pipes do for the stdio client.

use crate::bridge::{parse_json, Wake, WakeFn, UNIT};
use crate::errors::option_err;
use hypermcp::transport::host::HostStream;
use napi::bindgen_prelude::Buffer;
use napi::{Env, Status};
use napi_derive::napi;

/// An authorization the user must complete (`auth.onAuthorize`).
#[napi(object)]
pub struct HttpClientAuthorization {
    /// The id to answer with.
    pub id: u32,
    /// Where to send the user.
    pub url: String,
    /// The redirect URI the authorization server sends the user back to.
    pub redirect_uri: String,
}

/// A call into the app's token store (`auth.tokenStore` object).
#[napi(object)]
pub struct HttpClientStoreOp {
    /// The id to answer with.
    pub id: u32,
    /// `load_client`, `save_client`, `load_tokens` or `save_tokens`.
    pub op: String,
    /// The authorization server's issuer.
    pub issuer: String,
    /// The resource (tokens' calls).
    pub resource: Option<String>,
    /// What to save, as JSON text (`null` for `save_tokens`: forget them).
    pub value: Option<String>,
}

/// What `take` returns.
#[napi(object)]
pub struct HttpClientChunk {
    /// Authorizations the user must complete.
    pub authorizations: Vec<HttpClientAuthorization>,
    /// Calls into the app's token store.
    pub store_ops: Vec<HttpClientStoreOp>,
    /// The connection to the server is established.
    pub connected: bool,
    /// Bytes received since the last `take`.
    pub data: Buffer,
    /// The stream ended.
    pub ended: bool,
    /// Why, when it ended on an error.
    pub error: Option<String>,
}

/// One HTTP connection to an MCP server, as a byte stream JS drives.
#[napi]
pub struct HttpClientStream {
    stream: HostStream,
    wake: Wake,
}

#[napi]
impl HttpClientStream {
    /// A connection to `url`, not started yet; `options`: JSON text with `headers` (an
    /// object), `transport` ("auto", "http", "sse"), `connectTimeout` (ms),
    /// `legacyFallback`, `openGetStream`, `maxMessage`: an `OptionError` at once for one it
    /// cannot take. `wake` is called with no arguments when `take` has something.
    #[napi(constructor)]
    pub fn new(
        env: Env,
        url: String,
        options: String,
        // Spelled out: a type alias here would leak into the generated index.d.ts.
        wake: napi::threadsafe_function::ThreadsafeFunction<
            (),
            napi::bindgen_prelude::Unknown<'static>,
            (),
            Status,
            false,
            true,
        >,
    ) -> napi::Result<Self> {
        let (wake, signal): (Wake, _) = Wake::new(wake as WakeFn);
        let options = parse_json(&env, &options, "HTTP client options")?;
        let stream = HostStream::new(url, options, UNIT, signal).map_err(|e| option_err(&env, e))?;
        Ok(HttpClientStream { stream, wake })
    }

    /// Starts connecting; the stream keeps Node alive until it ends.
    #[napi]
    pub fn start(&self, env: Env) -> napi::Result<()> {
        self.wake.hold(&env, true)?;
        self.stream.start();
        Ok(())
    }

    /// Sends newline-terminated messages (each becomes a POST).
    #[napi]
    pub fn write(&self, data: Buffer) -> bool {
        self.stream.write(data.to_vec())
    }

    /// Ends the session (DELETE), or gives up connecting; the stream then ends.
    #[napi]
    pub fn close(&self) {
        self.stream.close();
    }

    /// Answers authorization `id`: the URL the authorization server redirected to, or (with
    /// `redirect` null) the reason the user could not authorize.
    #[napi]
    pub fn answer_authorization(&self, id: u32, redirect: Option<String>, error: Option<String>) -> bool {
        let outcome = match redirect {
            Some(r) => Ok(r),
            None => Err(error.unwrap_or_else(|| "the authorization was not completed".into())),
        };
        self.stream.answer_authorization(u64::from(id), outcome)
    }

    /// Answers token store call `id`: what was loaded as JSON text (null: nothing; null after
    /// a save), or `error`, why it failed.
    #[napi]
    pub fn answer_store(&self, id: u32, value: Option<String>, error: Option<String>) -> bool {
        let outcome = match (value, error) {
            (_, Some(e)) => Err(e),
            (Some(v), None) => serde_json::from_str(&v).map_err(|e| format!("not JSON: {e}")),
            (None, None) => Ok(serde_json::Value::Null),
        };
        self.stream.answer_store(u64::from(id), outcome)
    }

    /// Everything received so far, and whether (and why) the stream ended. Once it ended,
    /// the stream no longer keeps Node alive.
    #[napi]
    pub fn take(&self, env: Env) -> napi::Result<HttpClientChunk> {
        let c = self.stream.take();
        if c.end.is_some() {
            self.wake.hold(&env, false)?;
        }
        Ok(HttpClientChunk {
            authorizations: c
                .authorizations
                .into_iter()
                .map(|a| HttpClientAuthorization { id: a.id as u32, url: a.url, redirect_uri: a.redirect_uri })
                .collect(),
            store_ops: c
                .store_ops
                .into_iter()
                .map(|o| HttpClientStoreOp {
                    id: o.id as u32,
                    op: o.op.to_string(),
                    issuer: o.issuer,
                    resource: o.resource,
                    value: o.value.map(|v| v.to_string()),
                })
                .collect(),
            connected: c.connected,
            data: c.data.into(),
            ended: c.end.is_some(),
            error: c.end.flatten(),
        })
    }
}
