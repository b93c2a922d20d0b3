//! [`Client::http`]: a client over the HTTP transports.

use super::{Client, ClientOptions};
use crate::error::{Error, Result};
use crate::http::client::{connect, HttpClientOptions};
use std::sync::Arc;

impl Client {
    /// Connects to an MCP server over HTTP (Streamable HTTP, or the legacy HTTP+SSE
    /// transport; see [`HttpClientOptions::transport`]) and performs the handshake.
    ///
    /// With [`ClientOptions::reconnect`], a session that ends (the server restarted, its
    /// session expired, nothing listens any more) is replaced by a new one under the policy.
    pub async fn http(url: &str, http: HttpClientOptions, options: ClientOptions) -> Result<Client> {
        let mut options = options;
        options.over_http = true;
        if let Some(policy) = options.reconnect_policy() {
            let target = url.to_string();
            let connector: super::Connector = Arc::new(move || {
                let (url, http) = (target.clone(), http.clone());
                Box::pin(async move {
                    let (reader, writer) = connect(&url, http).await?;
                    Ok(super::Conn { reader: Box::new(reader), writer: Box::new(writer), child: None })
                })
            });
            return super::connect_reconnecting(connector, options, policy).await;
        }
        let (reader, writer) = connect(url, http).await?;
        let fatal = writer.fatal();
        match Client::connect(reader, writer, options).await {
            Err(Error::Closed) => match fatal() {
                Some(m) => Err(Error::Message(m)),
                None => Err(Error::Message(format!("{url}: the connection closed during the handshake"))),
            },
            other => other,
        }
    }
}
