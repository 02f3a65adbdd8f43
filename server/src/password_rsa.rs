//! RAGFlow's web client never sends a password in the clear: it sends
//! `base64(RSA-PKCS#1-v1.5(base64(password)))` under the public key built into its bundle,
//! and RAGFlow's server decrypts that to `base64(password)`, which it hashes and checks. With
//! `--rsa-private-key` the server does the same; a field that is not that form (what API
//! clients send, RAGFlow's own clients sending `base64(password)`) is used as it is, so both
//! kinds of clients log in to the same account.

use std::path::Path;
use std::sync::Arc;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use rsa::pkcs1::DecodeRsaPrivateKey;
use rsa::pkcs8::DecodePrivateKey;
use rsa::traits::PublicKeyParts;
use rsa::{Pkcs1v15Encrypt, RsaPrivateKey};

/// The operator's private key (PKCS#1 or PKCS#8 PEM, unencrypted).
#[derive(Clone)]
pub(crate) struct PasswordKey(Arc<RsaPrivateKey>);

impl PasswordKey {
    /// Reads the key; the error names the file and, for RAGFlow's own passphrase-protected
    /// `conf/private.pem`, how to convert it.
    pub(crate) fn from_pem_file(path: &Path) -> Result<PasswordKey, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("--rsa-private-key {}: {e}", path.display()))?;
        if text.contains("ENCRYPTED") {
            return Err(format!(
                "--rsa-private-key {}: the key is encrypted with a passphrase; write it \
                 unencrypted first (RAGFlow's conf/private.pem: `openssl rsa -in private.pem \
                 -passin pass:Welcome -out key.pem`)",
                path.display()
            ));
        }
        let key = RsaPrivateKey::from_pkcs1_pem(&text)
            .or_else(|_| RsaPrivateKey::from_pkcs8_pem(&text))
            .map_err(|e| {
                format!(
                    "--rsa-private-key {}: not an RSA private key in PEM form (PKCS#1 or PKCS#8): {e}",
                    path.display()
                )
            })?;
        Ok(PasswordKey(Arc::new(key)))
    }

    /// The text the web form encrypted, when `field` is that form under this key: base64 of
    /// exactly one RSA block that decrypts, with valid PKCS#1 v1.5 padding, to UTF-8.
    pub(crate) fn decrypt(&self, field: &str) -> Option<String> {
        let block = STANDARD.decode(field.trim()).ok()?;
        if block.len() != self.0.size() {
            return None;
        }
        let text = self.0.decrypt(Pkcs1v15Encrypt, &block).ok()?;
        String::from_utf8(text).ok()
    }
}
