//! Form bodies and query strings: parameters by name, each at most once (RFC 6749 §3.1).

use std::collections::HashMap;

/// The parameters of `encoded`, or the name of one that appears twice.
pub(super) fn parse(encoded: &[u8]) -> Result<HashMap<String, String>, String> {
    let mut params = HashMap::new();
    for (name, value) in form_urlencoded::parse(encoded) {
        if params.insert(name.to_string(), value.into_owned()).is_some() {
            return Err(format!("the parameter `{name}` appears more than once"));
        }
    }
    Ok(params)
}
