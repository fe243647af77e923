//! Choosing the protocol era when connecting, as the official Python SDK's `auto` mode does:
//! probe `server/discover` at 2026-07-28; anything short of positive evidence that the server
//! speaks it falls back to the `initialize` handshake of the 2025-11-25 family. A probe refused
//! with -32022 is sent once more at a stateless version the error names, if the client speaks
//! one. A session is connected once the server answered its `GET` stream.

use super::error::ClientError;
use super::peer::{Peer, RequestOptions};
use super::types::{Negotiation, ServerDetails};
use crate::protocol::{Implementation, ProtocolVersion, meta_key};
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::Duration;

/// How long the `server/discover` probe may take before the handshake is tried instead.
const DISCOVER_TIMEOUT: Duration = Duration::from_secs(10);
/// How long `connect` waits for the server to answer the session's `GET` before going on.
const STREAM_TIMEOUT: Duration = Duration::from_secs(10);
/// The stateless version the probe asks for first.
const NEWEST_STATELESS: ProtocolVersion = ProtocolVersion::V2026_07_28;
/// `-32022`: the server does not speak the version asked for (its versions in `data.supported`).
const UNSUPPORTED_VERSION: i32 = -32022;

pub(crate) async fn negotiate(peer: &Arc<Peer>, mode: Negotiation) -> Result<ServerDetails, ClientError> {
    let details = match mode {
        Negotiation::Handshake => initialize(peer).await?,
        Negotiation::Stateless => match discover(peer).await? {
            Discovered::Modern(details) => details,
            Discovered::Legacy(supported) => return Err(ClientError::Incompatible { supported }),
        },
        Negotiation::Auto => match discover(peer).await {
            Ok(Discovered::Modern(details)) => details,
            Ok(Discovered::Legacy(_)) => initialize(peer).await?,
            Err(ClientError::Server(error)) if error.code == UNSUPPORTED_VERSION => {
                let supported = supported_versions(error.data.as_ref());
                let handshake = |v: &String| ProtocolVersion::ALL.iter().any(|ours| ours.as_str() == v);
                match supported {
                    Some(supported) if !supported.iter().any(handshake) => {
                        return Err(ClientError::Incompatible { supported });
                    }
                    _ => initialize(peer).await?,
                }
            }
            // Every other error answer, a 4xx bounce (but a refused token), or silence: a legacy server.
            Err(error @ ClientError::Http { status: 401 | 403, .. }) => return Err(error),
            Err(ClientError::Server(_) | ClientError::Http { status: 400..=499, .. } | ClientError::Timeout(_)) => {
                initialize(peer).await?
            }
            Err(other) => return Err(other),
        },
    };
    peer.set_details(details.clone());
    Ok(details)
}

enum Discovered {
    Modern(ServerDetails),
    /// The server answered, naming only these versions, none of them stateless.
    Legacy(Vec<String>),
}

/// `server/discover` at our newest stateless version; refused with -32022, once more at a
/// stateless version the error names that we speak too (the spec's version negotiation).
async fn discover(peer: &Arc<Peer>) -> Result<Discovered, ClientError> {
    let result = match probe(peer, NEWEST_STATELESS).await {
        Err(ClientError::Server(error)) if error.code == UNSUPPORTED_VERSION => {
            let supported = supported_versions(error.data.as_ref()).unwrap_or_default();
            let shared =
                ProtocolVersion::STATELESS.into_iter().rev().find(|ours| supported.iter().any(|v| v == ours.as_str()));
            match shared {
                Some(version) => probe(peer, version).await,
                None => Err(ClientError::Server(error)),
            }
        }
        other => other,
    };
    let (version, result) = match result {
        Ok(answered) => answered,
        Err(error) => {
            peer.link.set_version(None);
            return Err(error);
        }
    };
    let supported = supported_versions(Some(&result)).unwrap_or_default();
    if !supported.iter().any(|v| v == version.as_str()) {
        peer.link.set_version(None);
        return Ok(Discovered::Legacy(supported));
    }
    let server_info = result
        .get("serverInfo")
        .or_else(|| result.get("_meta").and_then(|meta| meta.get(meta_key::SERVER_INFO)))
        .and_then(|info| serde_json::from_value::<Implementation>(info.clone()).ok());
    Ok(Discovered::Modern(ServerDetails {
        protocol_version: version,
        server_info,
        capabilities: object(result.get("capabilities")),
        instructions: result.get("instructions").and_then(Value::as_str).map(str::to_owned),
    }))
}

/// One `server/discover` at `version`, and the version with its result.
async fn probe(peer: &Arc<Peer>, version: ProtocolVersion) -> Result<(ProtocolVersion, Value), ClientError> {
    peer.link.set_version(Some(version));
    let mut params = Map::new();
    peer.stamp(&mut params, version);
    let options = RequestOptions { timeout: Some(DISCOVER_TIMEOUT), ..RequestOptions::default() };
    Ok((version, peer.request("server/discover", params, &options).await?))
}

async fn initialize(peer: &Arc<Peer>) -> Result<ServerDetails, ClientError> {
    peer.link.set_version(None);
    let params = json!({
        "protocolVersion": ProtocolVersion::LATEST.as_str(),
        "capabilities": peer.handlers.capabilities(),
        "clientInfo": peer.client_info,
    });
    let Value::Object(params) = params else { unreachable!("a JSON object literal") };
    let result = peer.request("initialize", params, &RequestOptions::default()).await?;
    let version = result.get("protocolVersion").and_then(Value::as_str).unwrap_or_default();
    let Some(protocol_version) = ProtocolVersion::parse(version) else {
        return Err(ClientError::Incompatible { supported: vec![version.to_owned()] });
    };
    let details = ServerDetails {
        protocol_version,
        server_info: result.get("serverInfo").and_then(|info| serde_json::from_value(info.clone()).ok()),
        capabilities: object(result.get("capabilities")),
        instructions: result.get("instructions").and_then(Value::as_str).map(str::to_owned),
    };
    peer.link.set_version(Some(protocol_version));
    peer.notify("notifications/initialized", json!({})).await?;
    // Connected once the session's stream is open (or refused): a request the server sends on
    // it right after the handshake would otherwise find no stream and be lost.
    if tokio::time::timeout(STREAM_TIMEOUT, peer.link.listen()).await.is_err() {
        tracing::warn!("mcp client: the server did not answer the session's GET within {STREAM_TIMEOUT:?}; going on");
    }
    Ok(details)
}

/// `supportedVersions` of a discover result, or `supported` of a -32022 error's data.
fn supported_versions(value: Option<&Value>) -> Option<Vec<String>> {
    let list = value?.get("supportedVersions").or_else(|| value?.get("supported"))?;
    serde_json::from_value(list.clone()).ok()
}

fn object(value: Option<&Value>) -> Map<String, Value> {
    value.and_then(Value::as_object).cloned().unwrap_or_default()
}
