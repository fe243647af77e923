//! The extension's methods on a [`Library`]: `skills/list`, `skills/get`,
//! `resources/directory/read`, and `resources/read` of a skill's files.

use super::library::Library;
use crate::clip::clip;
use crate::content::ResourceContents;
use crate::jsonrpc::{ErrorObject, code};
use crate::protocol::ProtocolVersion;
use crate::resource::{ReadResourceResult, ResourceRequest};
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;

/// How many children a `resources/directory/read` page holds.
const DIRECTORY_PAGE: usize = 100;

#[derive(Deserialize, Default)]
#[serde(default)]
struct Params {
    uri: Option<String>,
    cursor: Option<String>,
}

fn params(value: Value) -> Result<Params, ErrorObject> {
    match value {
        Value::Null => Ok(Params::default()),
        value => serde_json::from_value(value).map_err(|e| ErrorObject::invalid_params(format!("Invalid params: {e}"))),
    }
}

fn required_uri(params: &Params) -> Result<&str, ErrorObject> {
    params.uri.as_deref().ok_or_else(|| ErrorObject::invalid_params("Invalid params: `uri` is missing"))
}

fn invalid_cursor(cursor: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("invalid cursor: {:?}", clip(cursor).to_string()))
}

/// `skills/list`: a page of whole entries.
pub(super) fn list(library: &Library, params: Value) -> Result<Value, ErrorObject> {
    let params = self::params(params)?;
    let cursor = params.cursor.as_deref();
    let (skills, next) = library.page(cursor).ok_or_else(|| invalid_cursor(cursor.unwrap_or_default()))?;
    let mut result = json!({ "skills": skills });
    if let Some(next) = next {
        result["nextCursor"] = next.into();
    }
    Ok(result)
}

/// `skills/get`: the entry of the skill whose `SKILL.md` is `uri`.
pub(super) fn get(library: &Library, params: Value) -> Result<Value, ErrorObject> {
    let params = self::params(params)?;
    let uri = required_uri(&params)?;
    let index = library
        .by_uri
        .get(uri)
        .ok_or_else(|| ErrorObject::invalid_params(format!("No skill is served at {}", clip(uri))))?;
    Ok(json!({ "skill": library.entries[*index] }))
}

/// `resources/directory/read`: a page of a directory resource's children.
pub(super) fn read_directory(library: &Library, params: Value) -> Result<Value, ErrorObject> {
    let params = self::params(params)?;
    let uri = required_uri(&params)?;
    let children = library
        .directories
        .get(uri)
        .ok_or_else(|| ErrorObject::invalid_params(format!("{} is not a directory resource", clip(uri))))?;
    let start = match params.cursor.as_deref() {
        None => 0,
        Some(cursor) => {
            cursor.parse::<usize>().ok().filter(|&i| i < children.len()).ok_or_else(|| invalid_cursor(cursor))?
        }
    };
    let end = (start + DIRECTORY_PAGE).min(children.len());
    let mut result = json!({ "resources": &children[start..end] });
    if end < children.len() {
        result["nextCursor"] = end.to_string().into();
    }
    Ok(result)
}

/// `resources/read` of a skill's file, read now on the blocking pool and checked against what
/// was listed.
pub(super) async fn read_file(
    library: Arc<Library>,
    request: ResourceRequest,
    version: Option<ProtocolVersion>,
) -> Result<ReadResourceResult, ErrorObject> {
    let uri = request.uri;
    if !library.files.contains_key(&uri) {
        return Err(crate::protocol::resource_not_found(&uri, version));
    }
    tokio::task::spawn_blocking(move || {
        let file = &library.files[&uri];
        let bytes = library.read(file).map_err(|why| {
            tracing::warn!("skills: {why}");
            ErrorObject::new(code::INTERNAL_ERROR, format!("Internal error: {why}"))
        })?;
        let contents = match String::from_utf8(bytes) {
            Ok(text) if file.text => ResourceContents::text(uri, file.mime_type, text),
            Ok(text) => ResourceContents::blob(uri, file.mime_type, text),
            Err(bytes) => ResourceContents::blob(uri, file.mime_type, bytes.into_bytes()),
        };
        Ok(ReadResourceResult { contents: vec![contents], meta: None })
    })
    .await
    .unwrap_or_else(|e| Err(ErrorObject::new(code::INTERNAL_ERROR, format!("Internal error: {e}"))))
}
