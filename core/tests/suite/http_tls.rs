//! `https://` in the HTTP client: a TLS front (tokio-rustls, a certificate from a CA made
//! here with rcgen) before a hypermcp server. A client trusting the CA (the `ca_file`
//! option) calls a tool; without the CA the certificate is refused as untrusted, and a
//! certificate for another name is refused as not valid for the host, both in clear words.

use hypermcp::http::client::HttpClientOptions;
use hypermcp::http::server::{bind, serve_http, tls_acceptor};
use hypermcp::http::HttpOptions;
use hypermcp::{CallToolResult, Client, ClientOptions, Server, Tool};
use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use serde_json::json;
use std::sync::Arc;
use tokio::net::TcpListener;

struct Pki {
    ca_pem: String,
    cert_pem: String,
    key_pem: String,
    cert: CertificateDer<'static>,
    key: PrivateKeyDer<'static>,
}

/// A CA, and a server certificate it signs for `names`.
fn pki(names: &[&str]) -> Pki {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);
    let key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>())
        .unwrap()
        .signed_by(&key, &issuer)
        .unwrap();
    Pki {
        ca_pem: ca.pem(),
        cert_pem: leaf.pem(),
        key_pem: key.serialize_pem(),
        cert: leaf.der().clone(),
        key: PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
    }
}

/// A hypermcp server on loopback behind a TLS front with `pki`'s certificate; its port.
async fn serve_tls(pki: &Pki) -> u16 {
    let server = Server::new("tls-test", "1.0.0").tool(
        Tool::new("echo").input_schema(json!({"type": "object", "properties": {"text": {"type": "string"}}})),
        |args, _ctx| async move { CallToolResult::text(args.get("text").and_then(|t| t.as_str()).unwrap_or_default()) },
    );
    let inner = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let inner_addr = inner.local_addr().unwrap();
    drop(inner);
    tokio::spawn(async move {
        let _ = server.serve_http(inner_addr).await;
    });
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![pki.cert.clone()], pki.key.clone_key())
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let front = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = front.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = front.accept().await else { return };
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else { return };
                // The hypermcp server may still be binding: retry briefly.
                for _ in 0..50 {
                    if let Ok(mut plain) = tokio::net::TcpStream::connect(inner_addr).await {
                        let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
                        return;
                    }
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                }
            });
        }
    });
    port
}

fn ca_file(pki: &Pki) -> tempfile_path::Path {
    tempfile_path::Path::new(&pki.ca_pem)
}

/// A file in the temporary folder, removed when dropped.
mod tempfile_path {
    pub struct Path(pub std::path::PathBuf);
    impl Path {
        pub fn new(contents: &str) -> Path {
            let p = std::env::temp_dir().join(format!("hypermcp-ca-{}-{}.pem", std::process::id(), rand()));
            std::fs::write(&p, contents).unwrap();
            Path(p)
        }
    }
    impl Drop for Path {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
    fn rand() -> u64 {
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(7);
        h.finish()
    }
}

#[tokio::test]
async fn https_with_a_trusted_ca_then_untrusted_and_wrong_name() {
    let good = pki(&["localhost"]);
    let port = serve_tls(&good).await;
    let url = format!("https://localhost:{port}/mcp");
    let ca = ca_file(&good);

    let opts = HttpClientOptions { ca_file: Some(ca.0.clone()), ..Default::default() };
    let client = Client::http(&url, opts, ClientOptions::default()).await.expect("connects over TLS");
    let r = client.call_tool("echo", json!({"text": "over tls"})).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("over tls"));
    let _ = client.close().await;

    let e = Client::http(&url, HttpClientOptions::default(), ClientOptions::default()).await.unwrap_err().to_string();
    assert!(e.contains("not trusted") && e.contains("unknown issuer"), "{e}");

    let other = pki(&["example.com"]);
    let port = serve_tls(&other).await;
    let ca = ca_file(&other);
    let opts = HttpClientOptions { ca_file: Some(ca.0.clone()), ..Default::default() };
    let e = Client::http(&format!("https://localhost:{port}/mcp"), opts, ClientOptions::default())
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("not valid for \"localhost\""), "{e}");

    let opts = HttpClientOptions { ca_file: Some("/nonexistent/ca.pem".into()), ..Default::default() };
    let e = Client::http(&url, opts, ClientOptions::default()).await.unwrap_err().to_string();
    assert!(e.contains("cannot read the CA file"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_serves_https_from_a_certificate_and_key_file() {
    let p = pki(&["localhost", "127.0.0.1"]);
    let cert = tempfile_path::Path::new(&p.cert_pem);
    let key = tempfile_path::Path::new(&p.key_pem);
    let ca = ca_file(&p);
    let server = Server::new("https-test", "1.0.0").tool(
        Tool::new("echo").input_schema(json!({"type": "object", "properties": {"text": {"type": "string"}}})),
        |args, _ctx| async move { CallToolResult::text(args.get("text").and_then(|t| t.as_str()).unwrap_or_default()) },
    );
    let mut options =
        HttpOptions { tls_cert: Some(cert.0.clone()), tls_key: Some(key.0.clone()), ..Default::default() };
    let listener = bind("127.0.0.1:0", &mut options).await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(serve_http(server.http_service(options), listener, async {
        let _ = stopped.await;
    }));

    let opts = HttpClientOptions { ca_file: Some(ca.0.clone()), ..Default::default() };
    let client = Client::http(&format!("https://localhost:{port}/mcp"), opts, ClientOptions::default()).await.unwrap();
    let r = client.call_tool("echo", json!({"text": "served over tls"})).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("served over tls"));
    let _ = client.close().await;

    // Plain HTTP to the HTTPS port gets no MCP answer, and the server keeps serving.
    let plain =
        Client::http(&format!("http://127.0.0.1:{port}/mcp"), HttpClientOptions::default(), ClientOptions::default())
            .await;
    assert!(plain.is_err());
    let opts = HttpClientOptions { ca_file: Some(ca.0.clone()), ..Default::default() };
    let again = Client::http(&format!("https://127.0.0.1:{port}/mcp"), opts, ClientOptions::default()).await.unwrap();
    assert_eq!(again.call_tool("echo", json!({"text": "still"})).await.unwrap().content[0].as_text(), Some("still"));
    let _ = again.close().await;
    let _ = stop.send(());
    serving.await.unwrap().unwrap();

    // Bad files are explained before anything is served.
    let missing = HttpOptions {
        tls_cert: Some("/nonexistent/cert.pem".into()),
        tls_key: Some(key.0.clone()),
        ..Default::default()
    };
    let e = tls_acceptor(&missing).err().expect("a missing file fails").to_string();
    assert!(e.contains("cannot read the TLS file /nonexistent/cert.pem"), "{e}");
    let half = HttpOptions { tls_cert: Some(cert.0.clone()), ..Default::default() };
    assert!(tls_acceptor(&half).err().expect("half a pair fails").to_string().contains("both tls_cert and tls_key"));
    let swapped = HttpOptions { tls_cert: Some(key.0.clone()), tls_key: Some(cert.0.clone()), ..Default::default() };
    assert!(tls_acceptor(&swapped).is_err());
    let opts: HttpOptions = serde_json::from_value(json!({"tlsCert": "/a.pem", "tlsKey": "/b.pem"})).unwrap();
    assert_eq!(opts.tls_cert.as_deref(), Some(std::path::Path::new("/a.pem")));
}
