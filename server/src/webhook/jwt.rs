//! A webhook's JWT check as RAGFlow makes it with PyJWT (`jwt.decode(token, key=secret,
//! algorithms=[alg], audience=…, issuer=…)`): the token is split and validated here in PyJWT's
//! order and with its error texts, which the webhook's rejection shows; the signature itself
//! is verified by `jsonwebtoken`.

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::{Map, Value};

/// PyJWT's `base64url_decode`: padding optional.
const B64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::URL_SAFE,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// What the webhook's `security.jwt` asks of a token.
pub struct Expected<'a> {
    pub secret: &'a str,
    /// Upper-cased, as RAGFlow passes it.
    pub algorithm: String,
    /// Any of these (one configured name, or a list).
    pub audience: Option<Vec<String>>,
    pub issuer: Option<Vec<String>>,
}

/// The token's claims, or PyJWT's error text.
pub fn decode(token: &str, expected: &Expected, now: f64) -> Result<Map<String, Value>, String> {
    let (signing_input, crypto) = token.rsplit_once('.').ok_or("Not enough segments")?;
    let (header_b64, payload_b64) = signing_input.split_once('.').ok_or("Not enough segments")?;
    let header = B64
        .decode(header_b64)
        .map_err(|_| "Invalid header padding".to_string())?;
    let header: Value =
        serde_json::from_slice(&header).map_err(|e| format!("Invalid header string: {e}"))?;
    let Value::Object(header) = header else {
        return Err("Invalid header string: must be a json object".into());
    };
    let payload = B64
        .decode(payload_b64)
        .map_err(|_| "Invalid payload padding".to_string())?;
    B64.decode(crypto)
        .map_err(|_| "Invalid crypto padding".to_string())?;
    if let Some(kid) = header.get("kid") {
        if !kid.is_string() {
            return Err("Key ID header parameter must be a string".into());
        }
    }
    let alg = match header.get("alg") {
        None => return Err("Algorithm not specified".into()),
        Some(alg) => alg,
    };
    if alg.as_str() != Some(expected.algorithm.as_str()) || expected.algorithm.is_empty() {
        return Err("The specified alg value is not allowed".into());
    }
    let algorithm: Algorithm = expected
        .algorithm
        .parse()
        .map_err(|_| "Algorithm not supported".to_string())?;
    let key = decoding_key(algorithm, expected.secret)?;
    let verified = jsonwebtoken::crypto::verify(crypto, signing_input.as_bytes(), &key, algorithm)
        .unwrap_or(false);
    if !verified {
        return Err("Signature verification failed".into());
    }
    let payload: Value =
        serde_json::from_slice(&payload).map_err(|e| format!("Invalid payload string: {e}"))?;
    let Value::Object(claims) = payload else {
        return Err("Invalid payload string: must be a json object".into());
    };
    validate_claims(&claims, expected, now)?;
    Ok(claims)
}

/// PyJWT's `prepare_key`: the secret's bytes for HMAC, a PEM key otherwise.
fn decoding_key(algorithm: Algorithm, secret: &str) -> Result<DecodingKey, String> {
    use Algorithm::*;
    let bad = |_| "Could not parse the provided public key.".to_string();
    match algorithm {
        HS256 | HS384 | HS512 => Ok(DecodingKey::from_secret(secret.as_bytes())),
        RS256 | RS384 | RS512 | PS256 | PS384 | PS512 => {
            DecodingKey::from_rsa_pem(secret.as_bytes()).map_err(bad)
        }
        ES256 | ES384 => DecodingKey::from_ec_pem(secret.as_bytes()).map_err(bad),
        EdDSA => DecodingKey::from_ed_pem(secret.as_bytes()).map_err(bad),
    }
}

/// `_validate_claims` with RAGFlow's options: `iat`, `nbf`, `exp` when present, `iss` and
/// `aud` only when the webhook names them, `sub` and `jti` must be strings when present.
fn validate_claims(
    claims: &Map<String, Value>,
    expected: &Expected,
    now: f64,
) -> Result<(), String> {
    let int_claim = |name: &str, message: &str| -> Result<Option<f64>, String> {
        match claims.get(name) {
            None => Ok(None),
            Some(v) => canvasc_value::py::to_int(v)
                .map(|i| Some(i as f64))
                .map_err(|_| message.to_string()),
        }
    };
    if let Some(iat) = int_claim("iat", "Issued At claim (iat) must be an integer.")? {
        if iat > now {
            return Err("The token is not yet valid (iat)".into());
        }
    }
    if let Some(nbf) = int_claim("nbf", "Not Before claim (nbf) must be an integer.")? {
        if nbf > now {
            return Err("The token is not yet valid (nbf)".into());
        }
    }
    if let Some(exp) = int_claim("exp", "Expiration Time claim (exp) must be an integer.")? {
        if exp <= now {
            return Err("Signature has expired".into());
        }
    }
    if let Some(issuers) = &expected.issuer {
        match claims.get("iss") {
            None => return Err(missing("iss")),
            Some(Value::String(iss)) if issuers.contains(iss) => {}
            Some(Value::String(_)) => return Err("Invalid issuer".into()),
            Some(_) => return Err("Payload Issuer (iss) must be a string".into()),
        }
    }
    if let Some(wanted) = &expected.audience {
        let claim = claims.get("aud").filter(|a| canvasc_value::py::truthy(a));
        let audiences: Vec<&Value> = match claim {
            None => return Err(missing("aud")),
            Some(Value::Array(items)) => items.iter().collect(),
            Some(one @ Value::String(_)) => vec![one],
            Some(_) => return Err("Invalid claim format in token".into()),
        };
        if audiences.iter().any(|a| !a.is_string()) {
            return Err("Invalid claim format in token".into());
        }
        if !audiences
            .iter()
            .any(|a| a.as_str().is_some_and(|a| wanted.iter().any(|w| w == a)))
        {
            return Err("Audience doesn't match".into());
        }
    }
    if claims.get("sub").is_some_and(|s| !s.is_string()) {
        return Err("Subject must be a string".into());
    }
    if claims.get("jti").is_some_and(|s| !s.is_string()) {
        return Err("JWT ID must be a string".into());
    }
    Ok(())
}

/// PyJWT's `MissingRequiredClaimError` text.
fn missing(claim: &str) -> String {
    format!("Token is missing the \"{claim}\" claim")
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{encode, EncodingKey, Header};
    use serde_json::json;

    fn token(claims: Value, secret: &str) -> String {
        encode(
            &Header::new(Algorithm::HS256),
            &claims,
            &EncodingKey::from_secret(secret.as_bytes()),
        )
        .expect("token")
    }

    fn expected() -> Expected<'static> {
        Expected {
            secret: "s3cret",
            algorithm: "HS256".into(),
            audience: Some(vec!["hooks".into()]),
            issuer: Some(vec!["ci".into()]),
        }
    }

    #[test]
    fn a_valid_token_gives_its_claims_and_each_defect_pyjwts_text() {
        let now = 2_000_000_000.0;
        let ok = json!({"aud": "hooks", "iss": "ci", "exp": 4_102_444_800u64, "role": "x"});
        let claims = decode(&token(ok.clone(), "s3cret"), &expected(), now).expect("valid");
        assert_eq!(claims["role"], json!("x"));
        let err = |claims: Value, secret: &str| {
            decode(&token(claims, secret), &expected(), now).expect_err("refused")
        };
        assert_eq!(err(ok.clone(), "other"), "Signature verification failed");
        assert_eq!(
            err(json!({"aud": "hooks", "iss": "ci", "exp": 1}), "s3cret"),
            "Signature has expired"
        );
        assert_eq!(
            err(json!({"aud": "else", "iss": "ci"}), "s3cret"),
            "Audience doesn't match"
        );
        assert_eq!(
            err(json!({"iss": "ci"}), "s3cret"),
            "Token is missing the \"aud\" claim"
        );
        assert_eq!(
            err(json!({"aud": "hooks", "iss": "x"}), "s3cret"),
            "Invalid issuer"
        );
        assert_eq!(
            decode("abc", &expected(), now).expect_err("refused"),
            "Not enough segments"
        );
        // A list of audiences or issuers admits any of them.
        let listed = Expected {
            audience: Some(vec!["other".into(), "hooks".into()]),
            issuer: Some(vec!["cd".into(), "ci".into()]),
            ..expected()
        };
        assert!(decode(&token(ok, "s3cret"), &listed, now).is_ok());
    }
}
