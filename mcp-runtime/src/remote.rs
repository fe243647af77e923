//! Where the request being handled came from: the network address of an HTTP request's
//! client, set by the HTTP transport around each request and read by what counts per client
//! (rate limits, audit records), as the verified caller is.

use std::net::IpAddr;

tokio::task_local! {
    /// The client's address (`None`: the transport does not know it) while the HTTP transport
    /// handles one of its requests; unset elsewhere (stdio, in memory).
    static ADDRESS: Option<IpAddr>;
}

/// Where a request came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Remote {
    /// Over the network, from this host (see [`host`]).
    Host(IpAddr),
    /// Over the network, from an unknown address: an HTTP service mounted in an application
    /// that passed no peer address along.
    Unknown,
    /// Not over the network (stdio, in memory): the one client is the process at the other end.
    Local,
}

/// Runs `future` (the handling of one HTTP request) as a request from `address`.
#[cfg(feature = "http")]
pub(crate) async fn from<F: std::future::Future>(address: Option<IpAddr>, future: F) -> F::Output {
    ADDRESS.scope(address.map(host), future).await
}

/// Where the request being handled came from.
pub(crate) fn current() -> Remote {
    match ADDRESS.try_with(|address| *address) {
        Ok(Some(address)) => Remote::Host(address),
        Ok(None) => Remote::Unknown,
        Err(_) => Remote::Local,
    }
}

/// The host an address stands for: an IPv6 address by its /64 prefix, what one host is
/// usually given (so that it cannot pass for 2^64 clients); an IPv4-mapped one as IPv4.
#[cfg(feature = "http")]
pub(crate) fn host(address: IpAddr) -> IpAddr {
    match address.to_canonical() {
        IpAddr::V6(ip) if !ip.is_loopback() => IpAddr::V6(std::net::Ipv6Addr::from(u128::from(ip) & (u128::MAX << 64))),
        ip => ip,
    }
}

#[cfg(all(test, feature = "http"))]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_request_is_local_unless_the_transport_says_where_it_came_from() {
        assert_eq!(current(), Remote::Local);
        let v6: IpAddr = "2001:db8:1:2:3:4:5:6".parse().unwrap();
        assert_eq!(from(Some(v6), async { current() }).await, Remote::Host("2001:db8:1:2::".parse().unwrap()));
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        assert_eq!(from(Some(mapped), async { current() }).await, Remote::Host("10.0.0.1".parse().unwrap()));
        assert_eq!(from(None, async { current() }).await, Remote::Unknown);
    }
}
