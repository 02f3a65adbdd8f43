//! An S3-compatible bucket (AWS S3, MinIO, …): objects at `<prefix><bucket>/<name>` in one
//! configured bucket, path-style URLs, signed with AWS Signature Version 4.
//!
//! The signing is written here (about sixty lines over `hmac` and `sha2`) instead of using an
//! SDK: aws-sdk-s3 brings its own HTTP and TLS stack and a large dependency tree, while canvasc
//! already has one HTTP client (built by the runtime's `exec::http`), which the host hands in.

use super::{check_name, FileStore, StoreError};
use futures::future::BoxFuture;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

/// Where and how to reach the bucket. `endpoint` is a base URL (`https://s3.amazonaws.com`,
/// `http://127.0.0.1:9000`).
#[derive(Clone)]
pub struct S3Config {
    pub endpoint: String,
    pub region: String,
    pub bucket: String,
    pub prefix: String,
    pub access_key: String,
    pub secret_key: String,
}

impl std::fmt::Debug for S3Config {
    // The secret key is never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Config")
            .field("endpoint", &self.endpoint)
            .field("region", &self.region)
            .field("bucket", &self.bucket)
            .field("prefix", &self.prefix)
            .field("access_key", &self.access_key)
            .finish_non_exhaustive()
    }
}

/// The S3-compatible store.
#[derive(Debug, Clone)]
pub struct S3Store {
    config: S3Config,
    client: reqwest::Client,
}

impl S3Store {
    pub fn new(config: S3Config, client: reqwest::Client) -> S3Store {
        S3Store { config, client }
    }

    fn key(&self, bucket: &str, name: &str) -> Result<String, StoreError> {
        check_name("bucket", bucket)?;
        check_name("object", name)?;
        Ok(format!("{}{bucket}/{name}", self.config.prefix))
    }

    /// A signed request for `method` on the object `key`.
    fn request(
        &self,
        method: reqwest::Method,
        key: &str,
        body: Vec<u8>,
    ) -> Result<reqwest::RequestBuilder, StoreError> {
        let base = self.config.endpoint.trim_end_matches('/');
        let url = reqwest::Url::parse(&format!("{base}/{}/{key}", self.config.bucket))
            .map_err(|e| StoreError(format!("invalid S3 endpoint {base:?}: {e}")))?;
        let host = match (url.host_str(), url.port()) {
            (Some(h), Some(p)) => format!("{h}:{p}"),
            (Some(h), None) => h.to_string(),
            _ => return Err(StoreError(format!("S3 endpoint {base:?} has no host"))),
        };
        let now = chrono::Utc::now();
        let amz_date = now.format("%Y%m%dT%H%M%SZ").to_string();
        let date = now.format("%Y%m%d").to_string();
        let payload_hash = hex(&Sha256::digest(&body));
        let canonical = format!(
            "{method}\n{}\n\nhost:{host}\nx-amz-content-sha256:{payload_hash}\nx-amz-date:{amz_date}\n\nhost;x-amz-content-sha256;x-amz-date\n{payload_hash}",
            url.path()
        );
        let scope = format!("{date}/{}/s3/aws4_request", self.config.region);
        let to_sign = format!(
            "AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{}",
            hex(&Sha256::digest(canonical.as_bytes()))
        );
        let mut key_bytes = hmac(
            format!("AWS4{}", self.config.secret_key).as_bytes(),
            date.as_bytes(),
        );
        for part in [self.config.region.as_bytes(), b"s3", b"aws4_request"] {
            key_bytes = hmac(&key_bytes, part);
        }
        let signature = hex(&hmac(&key_bytes, to_sign.as_bytes()));
        let authorization = format!(
            "AWS4-HMAC-SHA256 Credential={}/{scope}, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature={signature}",
            self.config.access_key
        );
        Ok(self
            .client
            .request(method, url)
            .header("x-amz-date", amz_date)
            .header("x-amz-content-sha256", payload_hash)
            .header("authorization", authorization)
            .body(body))
    }
}

fn hmac(key: &[u8], data: &[u8]) -> Vec<u8> {
    // HMAC accepts keys of any length; `new_from_slice` cannot fail for it.
    match Hmac::<Sha256>::new_from_slice(key) {
        Ok(mut mac) => {
            mac.update(data);
            mac.finalize().into_bytes().to_vec()
        }
        Err(_) => Vec::new(),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl FileStore for S3Store {
    fn put<'a>(
        &'a self,
        bucket: &'a str,
        name: &'a str,
        bytes: Vec<u8>,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let key = self.key(bucket, name)?;
            let response = self
                .request(reqwest::Method::PUT, &key, bytes)?
                .send()
                .await
                .map_err(|e| StoreError(format!("S3 put {key}: {e}")))?;
            if !response.status().is_success() {
                return Err(StoreError(format!(
                    "S3 put {key}: HTTP {}",
                    response.status()
                )));
            }
            Ok(())
        })
    }

    fn get<'a>(
        &'a self,
        bucket: &'a str,
        name: &'a str,
    ) -> BoxFuture<'a, Result<Option<Vec<u8>>, StoreError>> {
        Box::pin(async move {
            let key = self.key(bucket, name)?;
            let response = self
                .request(reqwest::Method::GET, &key, Vec::new())?
                .send()
                .await
                .map_err(|e| StoreError(format!("S3 get {key}: {e}")))?;
            if response.status() == reqwest::StatusCode::NOT_FOUND {
                return Ok(None);
            }
            if !response.status().is_success() {
                return Err(StoreError(format!(
                    "S3 get {key}: HTTP {}",
                    response.status()
                )));
            }
            let bytes = response
                .bytes()
                .await
                .map_err(|e| StoreError(format!("S3 get {key}: {e}")))?;
            Ok(Some(bytes.to_vec()))
        })
    }
}
