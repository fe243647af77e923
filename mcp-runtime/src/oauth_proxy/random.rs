//! Unguessable values (codes, tokens, `state`, CSRF tokens) and the digests stored instead of them.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest as _, Sha256};

/// 32 random bytes, base64url: 256 bits nobody can guess.
pub(super) fn token() -> String {
    let mut bytes = [0u8; 32];
    // The OS source failing is not something a sign-in can work around.
    getrandom::fill(&mut bytes).expect("no OS random source");
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The SHA-256 of `value`, base64url: what a store keeps of a secret, so a leaked store holds
/// no usable code or token.
pub(super) fn digest(value: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(value.as_bytes()))
}

/// The PKCE S256 challenge of `verifier` (RFC 7636 §4.2).
pub(super) fn s256(verifier: &str) -> String {
    digest(verifier)
}

/// Equality that takes as long whatever the first difference (for secrets compared to input).
pub(super) fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
