//! [`LoopbackBrowser`]: the authorization handler of native apps. It listens on the loopback
//! redirect URI, opens the system browser at the authorization URL (printing it too, for
//! machines without one), and hands back the redirect it receives.

use crate::auth::client::url::Url;
use crate::auth::client::{AuthorizationHandler, AuthorizationRequest};
use futures_util::future::BoxFuture;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// How long the user has to authorize.
const USER_WAIT: Duration = Duration::from_secs(300);
/// The largest request head read on the redirect listener.
const MAX_HEAD: usize = 16 * 1024;

/// Opens the system browser and receives the redirect on the loopback redirect URI (which
/// must be `http://127.0.0.1:PORT/...`, `http://localhost:PORT/...` or `http://[::1]:PORT/...`).
#[derive(Debug, Clone, Default)]
pub struct LoopbackBrowser {
    /// Only print the URL (do not launch a browser).
    pub print_only: bool,
}

impl LoopbackBrowser {
    /// A handler that launches the system browser.
    pub fn new() -> LoopbackBrowser {
        LoopbackBrowser::default()
    }
}

fn open_browser(url: &str) -> bool {
    let cmd = if cfg!(target_os = "macos") {
        std::process::Command::new("open").arg(url).spawn()
    } else if cfg!(windows) {
        std::process::Command::new("cmd").args(["/C", "start", "", url]).spawn()
    } else {
        std::process::Command::new("xdg-open").arg(url).spawn()
    };
    cmd.is_ok()
}

impl AuthorizationHandler for LoopbackBrowser {
    fn authorize(&self, request: AuthorizationRequest) -> BoxFuture<'_, Result<String, String>> {
        Box::pin(async move {
            let r = Url::parse(&request.redirect_uri)?;
            if r.scheme != "http" || !r.is_loopback() {
                return Err(format!(
                    "the browser handler receives the redirect on a loopback http:// redirect URI, not {}",
                    request.redirect_uri
                ));
            }
            let Some(port) = r.port else {
                return Err(format!("the redirect URI {} needs an explicit port", request.redirect_uri));
            };
            let host = r.host.trim_start_matches('[').trim_end_matches(']');
            let host = if host == "localhost" { "127.0.0.1" } else { host };
            let listener = tokio::net::TcpListener::bind((host, port))
                .await
                .map_err(|e| format!("cannot listen on the redirect URI {}: {e}", request.redirect_uri))?;
            eprintln!("hypermcp: to authorize, open this URL in a browser:\n  {}", request.url);
            if !self.print_only && !open_browser(&request.url) {
                eprintln!("hypermcp: (no browser could be launched)");
            }
            let path = if r.path.is_empty() { "/" } else { r.path.as_str() };
            let wait = async {
                loop {
                    let (mut sock, _) = listener.accept().await.map_err(|e| e.to_string())?;
                    let mut head = Vec::new();
                    let mut buf = [0u8; 2048];
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_HEAD {
                        match tokio::time::timeout(Duration::from_secs(10), sock.read(&mut buf)).await {
                            Ok(Ok(n)) if n > 0 => head.extend_from_slice(&buf[..n]),
                            _ => break,
                        }
                    }
                    let line = String::from_utf8_lossy(&head).lines().next().unwrap_or_default().to_string();
                    let target = line.split(' ').nth(1).unwrap_or_default().to_string();
                    let on_path = target.split('?').next() == Some(path);
                    let (status, text) = if on_path {
                        ("200 OK", "Authorization complete: you can close this window and return to the app.")
                    } else {
                        ("404 Not Found", "Not the redirect URI.")
                    };
                    let page = format!(
                        "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{text}",
                        text.len()
                    );
                    let _ = sock.write_all(page.as_bytes()).await;
                    if on_path {
                        return Ok::<String, String>(format!("{}{target}", r.origin()));
                    }
                }
            };
            match tokio::time::timeout(USER_WAIT, wait).await {
                Ok(r) => r,
                Err(_) => Err(format!("no authorization arrived at {} within {USER_WAIT:?}", request.redirect_uri)),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    #[tokio::test]
    async fn the_redirect_is_received_on_the_loopback_uri() {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let redirect_uri = format!("http://127.0.0.1:{port}/callback");
        let handler = LoopbackBrowser { print_only: true };
        let request = AuthorizationRequest { url: "https://as.example/authorize?x=1".into(), redirect_uri };
        let browser = async {
            // The user's browser: first a stray request, then the redirect.
            for (target, want) in [("/favicon.ico", "404"), ("/callback?code=c1&state=s1", "200")] {
                let mut sock = loop {
                    match tokio::net::TcpStream::connect(("127.0.0.1", port)).await {
                        Ok(s) => break s,
                        Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
                    }
                };
                sock.write_all(format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").as_bytes()).await.unwrap();
                let mut page = String::new();
                sock.read_to_string(&mut page).await.unwrap();
                assert!(page.starts_with(&format!("HTTP/1.1 {want}")), "{page}");
            }
        };
        let (got, ()) = tokio::join!(handler.authorize(request), browser);
        assert_eq!(got.unwrap(), format!("http://127.0.0.1:{port}/callback?code=c1&state=s1"));
        let bad =
            AuthorizationRequest { url: "https://as.example/a".into(), redirect_uri: "https://app.example/cb".into() };
        assert!(handler.authorize(bad).await.unwrap_err().contains("loopback"));
    }
}
