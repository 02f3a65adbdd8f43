//! The S3-compatible file store against a stub S3 on 127.0.0.1 (written here): every request
//! must carry a SigV4 `Authorization` header of the documented shape whose signature the stub
//! recomputes from the request it received (canonical request → string to sign → the
//! `AWS4<secret>` key chain), and the stub keeps what is put and returns it on get.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use canvasc_documents::store::{FileStore, S3Config, S3Store};
use hmac::{Hmac, Mac};
use regex::Regex;
use sha2::{Digest, Sha256};

const ACCESS: &str = "AKIDCANVASCTEST";
const SECRET: &str = "c2VjcmV0LWtleS1mb3ItdGhlLXN0dWI";
const REGION: &str = "eu-test-1";

/// A request the stub saw: method, path and its verdict on the signature.
type Seen = (String, String, Result<(), String>);

#[derive(Default)]
struct Stub {
    objects: Mutex<HashMap<String, Vec<u8>>>,
    /// Every request's method, path and verdict on its signature.
    seen: Mutex<Vec<Seen>>,
}

fn hmac(key: &[u8], data: &[u8]) -> Vec<u8> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("any key length");
    mac.update(data);
    mac.finalize().into_bytes().to_vec()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// AWS's SigV4 check of one request, from what arrived.
fn verify(method: &Method, path: &str, headers: &HeaderMap, body: &[u8]) -> Result<(), String> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .ok_or_else(|| format!("no {name} header"))
    };
    let authorization = header("authorization")?;
    let shape = Regex::new(
        r"^AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/s3/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$",
    )
    .expect("a pattern");
    let caps = shape
        .captures(authorization)
        .ok_or_else(|| format!("Authorization of the wrong shape: {authorization}"))?;
    let (access, date, region, signed, signature) =
        (&caps[1], &caps[2], &caps[3], &caps[4], &caps[5]);
    if access != ACCESS || region != REGION {
        return Err(format!("credential {access}/{region}"));
    }
    let amz_date = header("x-amz-date")?;
    let date_shape = Regex::new(r"^\d{8}T\d{6}Z$").expect("a pattern");
    if !date_shape.is_match(amz_date) || !amz_date.starts_with(date) {
        return Err(format!("x-amz-date {amz_date} for credential date {date}"));
    }
    let payload = header("x-amz-content-sha256")?;
    if payload != hex(&Sha256::digest(body)) {
        return Err("x-amz-content-sha256 is not the body's hash".into());
    }
    let names: Vec<&str> = signed.split(';').collect();
    if !names.contains(&"host") {
        return Err(format!("host is not signed: {signed}"));
    }
    let mut canonical_headers = String::new();
    for name in &names {
        canonical_headers.push_str(&format!("{name}:{}\n", header(name)?.trim()));
    }
    let canonical = format!("{method}\n{path}\n\n{canonical_headers}\n{signed}\n{payload}");
    let scope = format!("{date}/{region}/s3/aws4_request");
    let to_sign = format!(
        "AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{}",
        hex(&Sha256::digest(canonical.as_bytes()))
    );
    let mut key = hmac(format!("AWS4{SECRET}").as_bytes(), date.as_bytes());
    for part in [region.as_bytes(), b"s3", b"aws4_request"] {
        key = hmac(&key, part);
    }
    let expected = hex(&hmac(&key, to_sign.as_bytes()));
    if expected != signature {
        return Err("the signature does not verify".into());
    }
    Ok(())
}

async fn handle(State(stub): State<Arc<Stub>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body: Bytes = axum::body::to_bytes(body, 1 << 20)
        .await
        .unwrap_or_default();
    let path = parts.uri.path().to_string();
    let verdict = verify(&parts.method, &path, &parts.headers, &body);
    let ok = verdict.is_ok();
    stub.seen
        .lock()
        .expect("not poisoned")
        .push((parts.method.to_string(), path.clone(), verdict));
    if !ok {
        return (StatusCode::FORBIDDEN, "SignatureDoesNotMatch").into_response();
    }
    let mut objects = stub.objects.lock().expect("not poisoned");
    match parts.method {
        Method::PUT => {
            objects.insert(path, body.to_vec());
            StatusCode::OK.into_response()
        }
        Method::GET => match objects.get(&path) {
            Some(bytes) => bytes.clone().into_response(),
            None => (StatusCode::NOT_FOUND, "NoSuchKey").into_response(),
        },
        _ => StatusCode::METHOD_NOT_ALLOWED.into_response(),
    }
}

#[tokio::test]
async fn objects_round_trip_through_a_sigv4_checking_stub() {
    let stub = Arc::new(Stub::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let addr = listener.local_addr().expect("an address");
    let app = Router::new().fallback(handle).with_state(Arc::clone(&stub));
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    let config = S3Config {
        endpoint: format!("http://{addr}/"),
        region: REGION.into(),
        bucket: "canvasc-files".into(),
        prefix: "agents/".into(),
        access_key: ACCESS.into(),
        secret_key: SECRET.into(),
    };
    let store = S3Store::new(config.clone(), canvasc_engine::http::shared_client());
    let tenant = "0123456789abcdef0123456789abcdef";

    store
        .put(tenant, "doc-1", b"%PDF-1.7 report".to_vec())
        .await
        .expect("put");
    assert_eq!(
        store.get(tenant, "doc-1").await.expect("get"),
        Some(b"%PDF-1.7 report".to_vec())
    );
    assert_eq!(store.get(tenant, "doc-2").await.expect("get"), None);
    assert_eq!(
        store.get("another-tenant", "doc-1").await.expect("get"),
        None
    );
    // Names that could leave the bucket are refused before any request.
    assert!(store.put(tenant, "../x", Vec::new()).await.is_err());

    let seen = stub.seen.lock().expect("not poisoned").clone();
    let key = format!("/canvasc-files/agents/{tenant}/doc-1");
    assert_eq!(
        seen.iter()
            .map(|(m, p, v)| (m.as_str(), p.as_str(), v.clone()))
            .collect::<Vec<_>>(),
        vec![
            ("PUT", key.as_str(), Ok(())),
            ("GET", key.as_str(), Ok(())),
            (
                "GET",
                &*format!("/canvasc-files/agents/{tenant}/doc-2"),
                Ok(())
            ),
            ("GET", "/canvasc-files/agents/another-tenant/doc-1", Ok(())),
        ]
    );

    // A store holding the wrong secret is turned away by the stub and says so.
    let wrong = S3Store::new(
        S3Config {
            secret_key: "not-the-secret".into(),
            ..config
        },
        canvasc_engine::http::shared_client(),
    );
    let refused = wrong.get(tenant, "doc-1").await;
    assert!(
        refused.as_ref().is_err_and(|e| e.0.contains("403")),
        "{refused:?}"
    );
}
