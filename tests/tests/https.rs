//! HTTPS (feature `tls`): a self-signed certificate generated here, the server behind rustls,
//! and a rustls client that trusts that certificate alone.
#![cfg(feature = "tls")]

use hyper::StatusCode;
use mcp_runtime::http::{HttpConfig, TlsConfig};
use mcp_runtime::prelude::*;
use mcp_tests::{HttpClient, spec_2025_11_25};
use serde_json::json;
use std::sync::Arc;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};

/// Add two numbers.
#[mcp_tool]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// A certificate for `localhost` and `127.0.0.1`: (cert PEM, key PEM, cert DER).
fn self_signed() -> (String, String, CertificateDer<'static>) {
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".into(), "127.0.0.1".into()]).unwrap();
    (certified.cert.pem(), certified.signing_key.serialize_pem(), certified.cert.der().clone())
}

fn client_trusting(cert: CertificateDer<'static>) -> tokio_rustls::TlsConnector {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(cert).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    tokio_rustls::TlsConnector::from(Arc::new(config))
}

#[tokio::test]
async fn serves_mcp_over_https() {
    let (cert, key, der) = self_signed();
    let tls = TlsConfig::from_pem(cert.as_bytes(), key.as_bytes()).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let service = server!().tools(tools![add]).into_http_service(HttpConfig::default()).unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(service.serve_tls(listener, tls, async {
        let _ = stopped.await;
    }));

    let mut client = HttpClient::new(address);
    client.tls = Some((client_trusting(der), ServerName::try_from("localhost").unwrap()));
    client.initialize().await;
    let messages = client.request(1, "tools/call", json!({"name": "add", "arguments": {"a": 2, "b": 3}})).await;
    assert_eq!(messages[0]["result"]["content"][0]["text"], "5");
    spec_2025_11_25().assert_all_valid(&client.transcript());

    // A plain-HTTP request to the TLS port gets no MCP answer, and the server keeps serving.
    let plain = tokio::net::TcpStream::connect(address).await.unwrap();
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake::<_, http_body_util::Empty<hyper::body::Bytes>>(
            hyper_util::rt::TokioIo::new(plain),
        )
        .await
        .unwrap();
    tokio::spawn(connection);
    let request = hyper::Request::post("/mcp").header("host", address.to_string()).body(Default::default()).unwrap();
    assert!(sender.send_request(request).await.is_err());
    let reply = client.post(&json!({"jsonrpc": "2.0", "id": 2, "method": "ping"})).await;
    assert_eq!(reply.status, StatusCode::OK);

    // A client that does not trust the certificate cannot connect.
    let (_, _, other) = self_signed();
    let stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let refused = client_trusting(other).connect(ServerName::try_from("localhost").unwrap(), stream).await;
    assert!(refused.is_err());

    let _ = stop.send(());
    tokio::time::timeout(std::time::Duration::from_secs(5), task).await.unwrap().unwrap().unwrap();
}

#[test]
fn bad_pem_is_an_error() {
    let (cert, _, _) = self_signed();
    let (_, other_key, _) = self_signed();
    assert!(TlsConfig::from_pem(b"", b"").is_err());
    assert!(TlsConfig::from_pem(cert.as_bytes(), b"not a key").is_err());
    assert!(TlsConfig::from_pem(cert.as_bytes(), other_key.as_bytes()).is_err());
    assert!(TlsConfig::from_pem_files("/nonexistent/cert.pem", "/nonexistent/key.pem").is_err());
}
