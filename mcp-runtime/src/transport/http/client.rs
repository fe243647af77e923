//! Who a client is to the HTTP layer's per-client shares: the peer's address (its host), or
//! the verified caller. The session table, the connection tracker and the engine's per-client
//! work (rate limits, audit records: `Request::peer`) all count by it.

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
            Some(ip) => Self::Address(host(ip)),
            None => Self::Unknown,
        }
    }

    /// The client as a session store names it, for a share that holds across replicas;
    /// `None` for [`Client::Unknown`].
    pub fn store_key(&self) -> Option<String> {
        match self {
            Self::Address(ip) => Some(format!("ip:{ip}")),
            #[cfg(feature = "auth")]
            Self::User(owner) => serde_json::to_string(owner).ok().map(|owner| format!("user:{owner}")),
            Self::Unknown => None,
        }
    }
}

/// The host an address stands for: an IPv6 address by its /64 prefix, what one host is
/// usually given (so that it cannot pass for 2^64 clients); an IPv4-mapped one as IPv4.
pub(crate) fn host(address: IpAddr) -> IpAddr {
    match address.to_canonical() {
        IpAddr::V6(ip) if !ip.is_loopback() => IpAddr::V6(std::net::Ipv6Addr::from(u128::from(ip) & (u128::MAX << 64))),
        ip => ip,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_network_client_is_its_host() {
        let v6: IpAddr = "2001:db8:1:2:3:4:5:6".parse().unwrap();
        assert_eq!(host(v6), "2001:db8:1:2::".parse::<IpAddr>().unwrap());
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        assert_eq!(host(mapped), "10.0.0.1".parse::<IpAddr>().unwrap());
        let loopback: IpAddr = "::1".parse().unwrap();
        assert_eq!(host(loopback), loopback);
    }
}
