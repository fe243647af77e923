//! Who a client is to the HTTP layer's per-client shares: the peer's address, or the verified
//! caller. The session table and the connection tracker both count by it.

use std::net::IpAddr;

/// Whom a session or a connection counts against, for the per-client shares
/// ([`HttpConfig::max_sessions_per_client`](super::HttpConfig::max_sessions_per_client),
/// [`HttpConfig::max_connections_per_client`](super::HttpConfig::max_connections_per_client)).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Client {
    /// The peer's IP address (IPv6 by its /64 prefix, what one host is usually given).
    Address(IpAddr),
    /// Whom the caller's token was issued for, by whom (feature `auth`).
    #[cfg(feature = "auth")]
    User(crate::auth::SessionOwner),
    /// Neither is known (a mounted service whose requests carry no peer address): only the
    /// table's cap applies.
    Unknown,
}

impl Client {
    /// The client at `peer`, or [`Client::Unknown`].
    pub fn at(peer: Option<IpAddr>) -> Self {
        match peer {
            Some(ip) => Self::Address(crate::remote::host(ip)),
            None => Self::Unknown,
        }
    }

    /// The client as a session store names it, for a share that holds across replicas;
    /// `None` for [`Client::Unknown`].
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    pub fn store_key(&self) -> Option<String> {
        match self {
            Self::Address(ip) => Some(format!("ip:{ip}")),
            #[cfg(feature = "auth")]
            Self::User(owner) => serde_json::to_string(owner).ok().map(|owner| format!("user:{owner}")),
            Self::Unknown => None,
        }
    }
}
