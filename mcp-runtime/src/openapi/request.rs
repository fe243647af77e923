//! One call of an operation: the tool's arguments as an HTTP request to the service, and the
//! service's answer as the tool's result (JSON as structured content, an image as an image,
//! other bytes as text or a blob; a 4xx or 5xx status, or no answer, a tool error).

use super::document::{Operation, Place};
use crate::content::{Content, EmbeddedResource, Image, ResourceContents};
use crate::tool::{CallToolResult, IntoToolResult, Json};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Map, Value};

/// The most of a response a call reads: a larger one is a tool error, not memory spent.
const MAX_RESPONSE_BYTES: usize = 8 << 20;

/// The service the operations are called on, shared by the tools of one document.
pub(super) struct Service {
    pub client: reqwest::Client,
    /// The base URL, without a trailing `/`: the operations' paths follow it.
    pub base_url: String,
    /// Sent with every call (an API key), replacing an argument of the same name.
    pub headers: HeaderMap,
}

/// Calls `operation` with `arguments`; `caller_headers` (the MCP client's own, when forwarded)
/// replace the arguments' and the service's headers of the same name.
pub(super) async fn call(
    service: &Service,
    operation: &Operation,
    arguments: &Map<String, Value>,
    caller_headers: HeaderMap,
) -> CallToolResult {
    let request = match build(service, operation, arguments, caller_headers) {
        Ok(request) => request,
        Err(problem) => return CallToolResult::error(problem),
    };
    let what = format!("{} {}", operation.method.to_uppercase(), operation.path);
    let response = match service.client.execute(request).await {
        Ok(response) => response,
        Err(error) => return CallToolResult::error(format!("{what}: the service did not answer: {error}")),
    };
    let status = response.status();
    let mime = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .map(|value| value.split(';').next().unwrap_or_default().trim().to_ascii_lowercase())
        .unwrap_or_default();
    let location = response.headers().get(reqwest::header::LOCATION).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let url = response.url().to_string();
    let bytes = match read_bounded(response).await {
        Ok(bytes) => bytes,
        Err(problem) => return CallToolResult::error(format!("{what}: {problem}")),
    };
    if status.is_client_error() || status.is_server_error() {
        let body = String::from_utf8_lossy(&bytes);
        return CallToolResult::error(format!("{what} answered {status}: {}", crate::clip::clip_problem(&body)));
    }
    if status.is_redirection() {
        let to = location.map_or_else(String::new, |location| format!(" to {location}"));
        return CallToolResult::success([Content::text(format!("{what} answered {status}: redirected{to}"))]);
    }
    answer(&mime, &url, bytes)
}

/// A successful answer's body as the tool's result.
fn answer(mime: &str, url: &str, bytes: Vec<u8>) -> CallToolResult {
    if mime.contains("json")
        && let Ok(value) = serde_json::from_slice::<Value>(&bytes)
    {
        return Json(value).into_tool_result();
    }
    if mime.starts_with("image/") {
        return CallToolResult::success([Content::from(Image::from_bytes(&bytes, mime))]);
    }
    match String::from_utf8(bytes) {
        Ok(text) => CallToolResult::success([Content::text(text)]),
        Err(binary) => {
            let mime = if mime.is_empty() { "application/octet-stream" } else { mime };
            let blob = ResourceContents::blob(url, mime, binary.into_bytes());
            CallToolResult::success([Content::from(EmbeddedResource::new(blob))])
        }
    }
}

async fn read_bounded(mut response: reqwest::Response) -> Result<Vec<u8>, String> {
    let too_large = || format!("the response is larger than {MAX_RESPONSE_BYTES} bytes");
    if response.content_length().is_some_and(|length| length > MAX_RESPONSE_BYTES as u64) {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| format!("the response broke off: {e}"))? {
        if bytes.len() + chunk.len() > MAX_RESPONSE_BYTES {
            return Err(too_large());
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// The HTTP request: the path's variables filled in (percent-encoded), the query, headers,
/// cookies, and a JSON or form body.
fn build(
    service: &Service,
    operation: &Operation,
    arguments: &Map<String, Value>,
    caller_headers: HeaderMap,
) -> Result<reqwest::Request, String> {
    let mut path = operation.path.clone();
    let mut query = Vec::new();
    let mut form = Vec::new();
    let mut cookies = Vec::new();
    let mut headers = HeaderMap::new();
    for parameter in &operation.parameters {
        let Some(value) = arguments.get(&parameter.property).filter(|v| !v.is_null()) else { continue };
        match parameter.place {
            Place::Path => {
                let value = joined(value);
                // A URL parser reads `..` (even encoded) as "the folder above".
                if value == "." || value == ".." {
                    return Err(format!("`{}` cannot be `{value}`", parameter.property));
                }
                path = path.replace(&format!("{{{}}}", parameter.name), &encode_segment(&value));
            }
            Place::Query => pairs(&parameter.name, value, &mut query),
            Place::Form => pairs(&parameter.name, value, &mut form),
            Place::Cookie => cookies.push(format!("{}={}", parameter.name, joined(value))),
            Place::Header => {
                let name =
                    HeaderName::try_from(&parameter.name).map_err(|e| format!("header `{}`: {e}", parameter.name))?;
                let value =
                    HeaderValue::try_from(joined(value)).map_err(|e| format!("header `{}`: {e}", parameter.name))?;
                headers.insert(name, value);
            }
        }
    }
    if !cookies.is_empty() {
        let cookie = HeaderValue::try_from(cookies.join("; ")).map_err(|e| format!("cookies: {e}"))?;
        headers.insert(reqwest::header::COOKIE, cookie);
    }
    for (name, value) in service.headers.iter().chain(caller_headers.iter()) {
        headers.insert(name, value.clone());
    }
    let mut url = reqwest::Url::parse(&format!("{}{path}", service.base_url))
        .map_err(|e| format!("cannot make a URL of {}{path}: {e}", service.base_url))?;
    if !query.is_empty() {
        url.query_pairs_mut().extend_pairs(&query);
    }
    let method = reqwest::Method::from_bytes(operation.method.to_uppercase().as_bytes()).map_err(|e| e.to_string())?;
    let mut request = service.client.request(method, url).headers(headers);
    if let Some(body) = &operation.body
        && let Some(value) = arguments.get(&body.property)
    {
        request = request
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(serde_json::to_vec(value).map_err(|e| e.to_string())?);
    } else if !form.is_empty() {
        request = request.form(&form);
    }
    request.build().map_err(|e| format!("cannot make the request: {e}"))
}

/// A query or form value: an array repeats the name, an object gives one pair per member
/// (OpenAPI's default `form` style, exploded).
fn pairs(name: &str, value: &Value, into: &mut Vec<(String, String)>) {
    match value {
        Value::Array(items) => into.extend(items.iter().map(|item| (name.to_owned(), scalar(item)))),
        Value::Object(members) => into.extend(members.iter().map(|(key, item)| (key.clone(), scalar(item)))),
        value => into.push((name.to_owned(), scalar(value))),
    }
}

/// A path, header or cookie value: an array joined by commas (OpenAPI's `simple` style).
fn joined(value: &Value) -> String {
    match value {
        Value::Array(items) => items.iter().map(scalar).collect::<Vec<_>>().join(","),
        value => scalar(value),
    }
}

fn scalar(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        value => value.to_string(),
    }
}

/// `text` as one path segment: everything but RFC 3986's unreserved characters percent-encoded,
/// so a value cannot add segments (`../admin`) or a query.
fn encode_segment(text: &str) -> String {
    let mut encoded = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            encoded.push(byte as char);
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    encoded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_value_stays_one_segment() {
        assert_eq!(encode_segment("../admin?x=1"), "..%2Fadmin%3Fx%3D1");
        assert_eq!(encode_segment("200,418"), "200%2C418");
    }
}
