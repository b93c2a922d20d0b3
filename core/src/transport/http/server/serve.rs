//! Running an [`HttpService`] on a socket: [`serve_http`] (with its graceful shutdown),
//! [`bind`] (adapting the DNS-rebinding defaults to the address), [`shutdown_signal`], and
//! what the `Server::serve_http*` shortcuts run.

use super::options::HttpOptions;
use super::HttpService;
use crate::error::{Error, Result};
use std::future::Future;
use std::time::Duration;

/// Serves `service` on `listener` until `shutdown` resolves; then stops accepting, lets
/// calls in progress finish (up to 10 s), closes every session and waits (up to 5 s) for
/// connections to end.
pub async fn serve_http(
    service: HttpService,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()>,
) -> Result<()> {
    let tls = serving_checks(service.options())?;
    service.connect_store().await?;
    serve_with(service, listener, tls, shutdown).await;
    Ok(())
}

/// What serving needs checked first: the `auth` options, and the TLS files read into the
/// acceptor (`None` for plain HTTP).
pub(crate) fn serving_checks(options: &HttpOptions) -> Result<Option<tokio_rustls::TlsAcceptor>> {
    if let Some(auth) = &options.auth {
        auth.validate().map_err(Error::msg)?;
    }
    tls_acceptor(options)
}

/// [`serve_http`] once [`serving_checks`] passed.
pub(crate) async fn serve_with(
    service: HttpService,
    listener: tokio::net::TcpListener,
    tls: Option<tokio_rustls::TlsAcceptor>,
    shutdown: impl Future<Output = ()>,
) {
    let handshake_timeout = service.options().header_read_timeout.unwrap_or(Duration::from_secs(30));
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut conns = tokio::task::JoinSet::new();
    let mut shutdown = std::pin::pin!(shutdown);
    // The connection cap: one permit per connection served; at the cap the next connection
    // waits in the listen queue until one ends.
    let max_connections = service.options().max_connections;
    let slots = (max_connections > 0).then(|| std::sync::Arc::new(tokio::sync::Semaphore::new(max_connections)));
    loop {
        let permit = match &slots {
            None => None,
            Some(slots) if slots.available_permits() == 0 => {
                crate::metrics::CONNECTIONS_LIMITED.inc();
                tracing::warn!(target: "hypermcp::http", max_connections,
                    "at max_connections: new connections wait in the listen queue until one ends");
                tokio::select! {
                    _ = &mut shutdown => break,
                    Some(_) = conns.join_next(), if !conns.is_empty() => continue,
                    p = slots.clone().acquire_owned() => match p {
                        Ok(p) => Some(p),
                        Err(_) => break,
                    },
                }
            }
            Some(slots) => tokio::select! {
                _ = &mut shutdown => break,
                Some(_) = conns.join_next(), if !conns.is_empty() => continue,
                p = slots.clone().acquire_owned() => match p {
                    Ok(p) => Some(p),
                    Err(_) => break,
                },
            },
        };
        tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => {
                let (tcp, peer) = match accepted {
                    Ok(x) => x,
                    Err(e) => {
                        // Out of file descriptors and the like: wait a little, keep serving.
                        tracing::warn!(target: "hypermcp::http", error = %e, "accept failed");
                        eprintln!("hypermcp: accept failed: {e}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let _ = tcp.set_nodelay(true);
                let svc = service.clone();
                let stop = stop_rx.clone();
                let config = super::h1::Config { half_close: false, client: Some(ClientAddr(peer.ip())) };
                match &tls {
                    None => {
                        conns.spawn(async move {
                            super::h1::serve(tcp, svc, stop, config).await;
                            drop(permit);
                        });
                    }
                    Some(acceptor) => {
                        let acceptor = acceptor.clone();
                        conns.spawn(async move {
                            // A client that never finishes the handshake is dropped like one
                            // that never sends its headers.
                            if let Ok(Ok(tls)) = tokio::time::timeout(handshake_timeout, acceptor.accept(tcp)).await {
                                super::h1::serve(tls, svc, stop, config).await;
                            }
                            drop(permit);
                        });
                    }
                }
            }
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
        }
    }
    drop(listener);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while service.in_flight() > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    service.close_all();
    let _ = stop_tx.send(true);
    let _ = tokio::time::timeout(Duration::from_secs(5), async { while conns.join_next().await.is_some() {} }).await;
}

/// The address of the client that sent a request: [`serve_http`] hands it to the service
/// with each request; an app serving [`HttpService`] with a stack of its own may insert it in
/// the request's extensions. The
/// session quota per client ([`HttpOptions::max_sessions_per_client`]) counts by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClientAddr(pub std::net::IpAddr);

/// The TLS acceptor of `options` (`tls_cert` and `tls_key`), or `None` for plain HTTP. Fails
/// with a message naming the file when one is missing, unreadable or holds no certificate or
/// key, or when only one of the two is set.
pub fn tls_acceptor(options: &HttpOptions) -> Result<Option<tokio_rustls::TlsAcceptor>> {
    let (cert, key) = match (&options.tls_cert, &options.tls_key) {
        (None, None) => return Ok(None),
        (Some(c), Some(k)) => (c, k),
        _ => return Err(Error::msg("HTTPS needs both tls_cert and tls_key (PEM files)")),
    };
    let read = |p: &std::path::Path| {
        std::fs::read(p).map_err(|e| Error::msg(format!("cannot read the TLS file {}: {e}", p.display())))
    };
    let cert_pem = read(cert)?;
    let certs: Vec<_> = rustls_pemfile::certs(&mut cert_pem.as_slice())
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| Error::msg(format!("{}: not a PEM certificate file: {e}", cert.display())))?;
    if certs.is_empty() {
        return Err(Error::msg(format!("{} holds no PEM certificate", cert.display())));
    }
    let key_pem = read(key)?;
    let key_der = rustls_pemfile::private_key(&mut key_pem.as_slice())
        .map_err(|e| Error::msg(format!("{}: not a PEM key file: {e}", key.display())))?
        .ok_or_else(|| Error::msg(format!("{} holds no PEM private key", key.display())))?;
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::msg(format!("TLS: {e}")))?
        .with_no_client_auth()
        .with_single_cert(certs, key_der)
        .map_err(|e| {
            Error::msg(format!(
                "the TLS certificate {} and key {} do not make a server identity: {e}",
                cert.display(),
                key.display()
            ))
        })?;
    Ok(Some(tokio_rustls::TlsAcceptor::from(std::sync::Arc::new(config))))
}

/// Resolves on SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match (signal(SignalKind::interrupt()), signal(SignalKind::terminate())) {
            (Ok(mut i), Ok(mut t)) => {
                tokio::select! { _ = i.recv() => {}, _ = t.recv() => {} }
            }
            _ => std::future::pending::<()>().await,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Binds `addr` and adapts the DNS-rebinding defaults: loopback keeps the localhost
/// allow-lists; any other address, left at the defaults, accepts any Host and same-origin
/// (or no) Origin.
pub async fn bind(addr: impl tokio::net::ToSocketAddrs, options: &mut HttpOptions) -> Result<tokio::net::TcpListener> {
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(Error::Io)?;
    let local = listener.local_addr().map_err(Error::Io)?;
    let defaults = HttpOptions::default();
    if !local.ip().is_loopback()
        && options.allowed_hosts == defaults.allowed_hosts
        && options.allowed_origins == defaults.allowed_origins
    {
        options.allowed_hosts.clear();
        options.allowed_origins.clear();
    }
    Ok(listener)
}
