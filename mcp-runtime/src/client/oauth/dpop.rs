//! DPoP (RFC 9449): tokens bound to a key only this client holds, so a token that leaks is
//! useless to whoever took it. The key pair (P-256) is made for the client's life and never
//! leaves it; each request to the token endpoint or the server carries a fresh proof, a JWT
//! signed with it naming the method and URL (and, to the server, a hash of the token); a
//! server's `DPoP-Nonce` is remembered per origin and put in the next proofs.

use super::super::error::ClientError;
use super::clock::now;
use super::fetch::auth_error;
use super::pkce::random;
use crate::sync::lock;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use reqwest::Url;
use reqwest::header::HeaderMap;
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair as _};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use std::collections::HashMap;
use std::sync::Mutex;

/// The one algorithm this client signs proofs with.
pub(crate) const ALGORITHM: &str = "ES256";

pub(crate) struct Dpop {
    key: EcdsaKeyPair,
    random: SystemRandom,
    /// The public key, as the proofs' `jwk` header.
    jwk: Value,
    /// The last `DPoP-Nonce` of each origin.
    nonces: Mutex<HashMap<String, String>>,
}

impl Dpop {
    pub fn new() -> Result<Self, ClientError> {
        let random = SystemRandom::new();
        let failed = |_| auth_error("cannot make a DPoP key");
        let document = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &random).map_err(failed)?;
        let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, document.as_ref(), &random)
            .map_err(|_| auth_error("cannot read the DPoP key"))?;
        // An uncompressed point: 0x04, then x and y, 32 bytes each.
        let point = key.public_key().as_ref();
        let jwk = json!({
            "kty": "EC",
            "crv": "P-256",
            "x": URL_SAFE_NO_PAD.encode(&point[1..33]),
            "y": URL_SAFE_NO_PAD.encode(&point[33..65]),
        });
        Ok(Self { key, random, jwk, nonces: Mutex::default() })
    }

    /// A proof for a `method` request to `url`, for presenting `access_token` (to a resource
    /// server) or for obtaining one (to a token endpoint: no token).
    pub fn proof(&self, method: &str, url: &Url, access_token: Option<&str>) -> Result<String, ClientError> {
        let mut target = url.clone();
        target.set_query(None);
        target.set_fragment(None);
        let mut claims = json!({"jti": random()?, "htm": method, "htu": target.as_str(), "iat": now()});
        if let Some(nonce) = lock(&self.nonces).get(&origin(url)) {
            claims["nonce"] = nonce.clone().into();
        }
        if let Some(token) = access_token {
            claims["ath"] = URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes())).into();
        }
        let header = json!({"typ": "dpop+jwt", "alg": ALGORITHM, "jwk": self.jwk});
        let signed =
            format!("{}.{}", URL_SAFE_NO_PAD.encode(header.to_string()), URL_SAFE_NO_PAD.encode(claims.to_string()));
        let signature =
            self.key.sign(&self.random, signed.as_bytes()).map_err(|_| auth_error("cannot sign a DPoP proof"))?;
        Ok(format!("{signed}.{}", URL_SAFE_NO_PAD.encode(signature.as_ref())))
    }

    /// Remembers the `DPoP-Nonce` an answer from `url` carries; whether it brought a new one.
    pub fn remember_nonce(&self, url: &Url, headers: &HeaderMap) -> bool {
        let Some(nonce) = headers.get("dpop-nonce").and_then(|v| v.to_str().ok()) else { return false };
        // A nonce is an opaque token of visible ASCII (RFC 9449 §8.1); anything longer is not kept.
        if nonce.len() > 256 || !nonce.bytes().all(|b| b.is_ascii_graphic()) {
            return false;
        }
        lock(&self.nonces).insert(origin(url), nonce.to_owned()).as_deref() != Some(nonce)
    }
}

fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::signature::{ECDSA_P256_SHA256_FIXED, UnparsedPublicKey};

    #[test]
    fn a_proof_is_a_jwt_signed_by_the_key_in_its_header() {
        let dpop = Dpop::new().unwrap();
        let url = Url::parse("https://mcp.example/mcp?x=1#f").unwrap();
        let mut headers = HeaderMap::new();
        headers.insert("dpop-nonce", "n-1".parse().unwrap());
        assert!(dpop.remember_nonce(&url, &headers));
        assert!(!dpop.remember_nonce(&url, &headers));
        let proof = dpop.proof("POST", &url, Some("the-token")).unwrap();
        let parts: Vec<&str> = proof.split('.').collect();
        let decode = |part: &str| serde_json::from_slice::<Value>(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap();
        let (header, claims) = (decode(parts[0]), decode(parts[1]));
        assert_eq!(header["typ"], "dpop+jwt");
        assert!(header["jwk"].get("d").is_none(), "no private key in the header");
        assert_eq!(claims["htu"], "https://mcp.example/mcp");
        assert_eq!(claims["nonce"], "n-1");
        assert_eq!(claims["ath"], URL_SAFE_NO_PAD.encode(Sha256::digest(b"the-token")));
        let x = URL_SAFE_NO_PAD.decode(header["jwk"]["x"].as_str().unwrap()).unwrap();
        let y = URL_SAFE_NO_PAD.decode(header["jwk"]["y"].as_str().unwrap()).unwrap();
        let point = [&[4u8][..], &x, &y].concat();
        let signature = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
        let signed = format!("{}.{}", parts[0], parts[1]);
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, point).verify(signed.as_bytes(), &signature).unwrap();
        assert_ne!(dpop.proof("POST", &url, None).unwrap(), proof, "a fresh jti each time");
    }
}
