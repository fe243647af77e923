//! The connections [`serve`](super::McpHttpService::serve) accepted: how many each client holds
//! (against its share of the cap), what each is doing (a request in flight, a body still arriving, how
//! many requests its client sent whole), and the coarse clock they are timed by. `idle.rs`
//! closes those that send nothing; `shed.rs` chooses whom to close under pressure.
//!
//! A request costs a few relaxed atomic updates of its own connection's `Activity`, which
//! only the sweeper and a shed scan ever read: no lock, no allocation.

use super::client::Client;
use crate::sync::lock;
use futures_util::task::AtomicWaker;
use hyper::body::{Body, Frame, SizeHint};
use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll};
use std::time::Duration;

/// The open connections, their count per client, and the coarse clock they are timed by.
pub(super) struct Connections {
    /// [`HttpConfig::header_timeout`](super::HttpConfig::header_timeout).
    pub(super) timeout: Duration,
    /// The most connections one client may hold once the cap is reached.
    pub(super) share: usize,
    /// The sweeper's ticks since the server started: the connections' clock.
    pub(super) now: AtomicU64,
    pub(super) open: Mutex<Open>,
}

/// What [`Connections`] keeps under its lock.
#[derive(Default)]
pub(super) struct Open {
    /// The connections being served, in the order they were accepted (closed ones are
    /// dropped by the sweeper).
    pub(super) served: Vec<Weak<Activity>>,
    /// How many connections each client holds, those waiting for a place included.
    per_client: HashMap<Client, usize>,
}

impl Open {
    /// Whether `client` holds more than `share` connections.
    pub(super) fn over_share(&self, client: &Client, share: usize) -> bool {
        self.per_client.get(client).is_some_and(|&held| held > share)
    }
}

/// What a connection is doing, as its requests and answers report it.
pub(super) struct Activity {
    connections: Arc<Connections>,
    pub(super) client: Client,
    pub(super) in_flight: AtomicU32,
    /// A request's head is in and its body is still arriving.
    pub(super) reading_body: AtomicBool,
    /// The requests whose body arrived whole: how far the client got.
    pub(super) requests: AtomicU32,
    /// The tick of the last sign of life: the connection's opening, a request's head or a
    /// piece of its body, an answer's end.
    pub(super) last_active: AtomicU64,
    pub(super) closed: AtomicBool,
    waker: AtomicWaker,
}

impl Connections {
    /// `share`: the most connections one client may hold once the cap is reached.
    pub fn new(timeout: Duration, share: usize) -> Arc<Self> {
        Arc::new(Self { timeout, share: share.max(1), now: AtomicU64::new(0), open: Mutex::default() })
    }

    /// A newly accepted connection from `peer`, counted against its client's share.
    pub fn open(self: &Arc<Self>, peer: Option<SocketAddr>) -> Arc<Activity> {
        let client = Client::at(peer.map(|peer| peer.ip()));
        if client != Client::Unknown {
            *lock(&self.open).per_client.entry(client.clone()).or_default() += 1;
        }
        Arc::new(Activity {
            connections: Arc::clone(self),
            client,
            in_flight: AtomicU32::new(0),
            reading_body: AtomicBool::new(false),
            requests: AtomicU32::new(0),
            last_active: AtomicU64::new(self.now.load(Relaxed)),
            closed: AtomicBool::new(false),
            waker: AtomicWaker::new(),
        })
    }

    /// Whether `activity`'s client holds more connections than its share.
    pub fn over_share(&self, activity: &Activity) -> bool {
        lock(&self.open).over_share(&activity.client, self.share)
    }

    /// `activity`'s connection has its place and is being served, active as of now: the
    /// sweeper and a shed scan see it from here on.
    pub fn serve(&self, activity: &Arc<Activity>) {
        activity.touch();
        lock(&self.open).served.push(Arc::downgrade(activity));
    }

    /// How many connections `client` holds.
    #[cfg(test)]
    pub(super) fn held_by(&self, client: &Client) -> usize {
        lock(&self.open).per_client.get(client).copied().unwrap_or(0)
    }
}

impl Activity {
    /// A request whose head is in: the connection is busy until the returned guard (kept by the
    /// answer's body) drops.
    pub fn request(self: &Arc<Self>) -> InFlight {
        self.in_flight.fetch_add(1, Relaxed);
        self.touch();
        InFlight(Arc::clone(self))
    }

    /// The client showed a sign of life.
    fn touch(&self) {
        self.last_active.store(self.connections.now.load(Relaxed), Relaxed);
    }

    /// Closes the connection: its future ends at its next poll, which this wakes.
    pub(super) fn close(&self) {
        self.closed.store(true, Relaxed);
        self.waker.wake();
    }

    /// A request's body arrived whole (`whole`), or was left unread by its answer.
    fn body_ended(&self, whole: bool) {
        self.reading_body.store(false, Relaxed);
        if whole {
            // Only this connection's requests write it, one at a time (HTTP/1.1).
            self.requests.store(self.requests.load(Relaxed).saturating_add(1), Relaxed);
        }
    }
}

impl Drop for Activity {
    fn drop(&mut self) {
        if self.client == Client::Unknown {
            return;
        }
        let mut open = lock(&self.connections.open);
        if let Some(held) = open.per_client.get_mut(&self.client) {
            *held -= 1;
            if *held == 0 {
                open.per_client.remove(&self.client);
            }
        }
    }
}

/// A request of a connection, in flight until its answer's body is dropped (sent, or the
/// connection gone).
pub(super) struct InFlight(Arc<Activity>);

impl Drop for InFlight {
    fn drop(&mut self) {
        let activity = &self.0;
        activity.touch();
        activity.in_flight.fetch_sub(1, Relaxed);
    }
}

/// A request's body, telling its connection's [`Activity`] as it arrives: a connection waiting
/// for the rest of a body is told apart from one being served, and each piece is a sign of
/// life.
pub(super) struct RequestBody<B> {
    body: B,
    /// Until the body ends.
    activity: Option<Arc<Activity>>,
}

impl<B: Body> RequestBody<B> {
    pub fn new(body: B, activity: &Arc<Activity>) -> Self {
        if body.is_end_stream() {
            activity.body_ended(true); // `GET`, `DELETE`: the head was the whole request
            return Self { body, activity: None };
        }
        activity.reading_body.store(true, Relaxed);
        Self { body, activity: Some(Arc::clone(activity)) }
    }
}

impl<B: Body + Unpin> Body for RequestBody<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        let polled = Pin::new(&mut self.body).poll_frame(cx);
        if let Some(activity) = &self.activity {
            match &polled {
                Poll::Pending => {}
                Poll::Ready(Some(Ok(_))) => activity.touch(),
                Poll::Ready(ended) => {
                    activity.body_ended(ended.is_none());
                    self.activity = None;
                }
            }
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

impl<B> Drop for RequestBody<B> {
    fn drop(&mut self) {
        if let Some(activity) = self.activity.take() {
            activity.body_ended(false); // answered without it (413, 415...)
        }
    }
}

/// A connection's future, ended (which closes the connection) once the sweeper finds it idle
/// or a shed scan chooses it.
pub(super) struct Watched<F> {
    connection: Pin<Box<F>>,
    activity: Arc<Activity>,
}

impl<F> Watched<F> {
    pub fn new(connection: F, activity: Arc<Activity>) -> Self {
        Self { connection: Box::pin(connection), activity }
    }
}

impl<F: Future> Future for Watched<F> {
    /// `None`: closed by the server.
    type Output = Option<F::Output>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if let Poll::Ready(output) = self.connection.as_mut().poll(cx) {
            return Poll::Ready(Some(output));
        }
        self.activity.waker.register(cx.waker());
        if self.activity.closed.load(Relaxed) {
            return Poll::Ready(None);
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_client_is_counted_and_a_closed_connection_is_no_longer() {
        let connections = Connections::new(Duration::from_secs(1), 2);
        let from = |ip| connections.open(Some(SocketAddr::from((ip, 4000))));
        let (first, second, third) = (from([127, 0, 0, 1]), from([127, 0, 0, 1]), from([127, 0, 0, 1]));
        let other = from([127, 0, 0, 2]);
        assert!(connections.over_share(&third) && connections.over_share(&first), "a client past its share");
        assert!(!connections.over_share(&other), "another client");
        assert!(!connections.over_share(&connections.open(None)), "an unknown peer counts against no share");
        drop(third);
        assert!(!connections.over_share(&first), "within its share again");
        let client = Client::at(Some([127, 0, 0, 1].into()));
        assert_eq!(connections.held_by(&client), 2);
        drop((first, second));
        assert_eq!(connections.held_by(&client), 0, "a client with none leaves the table");
    }

    #[test]
    fn a_body_is_read_while_it_arrives_and_counted_once_whole() {
        use http_body_util::BodyExt as _;
        let connections = Connections::new(Duration::from_secs(1), 10);
        let activity = connections.open(None);
        let body = RequestBody::new(http_body_util::Full::new(hyper::body::Bytes::from_static(b"{}")), &activity);
        assert!(activity.reading_body.load(Relaxed));
        let collected = futures_util::FutureExt::now_or_never(body.collect()).unwrap().unwrap();
        assert_eq!(&collected.to_bytes()[..], b"{}");
        assert!(!activity.reading_body.load(Relaxed));
        assert_eq!(activity.requests.load(Relaxed), 1);

        let unread = RequestBody::new(http_body_util::Full::new(hyper::body::Bytes::from_static(b"{}")), &activity);
        drop(unread);
        assert!(!activity.reading_body.load(Relaxed), "an answer that leaves the body unread ends it");
        assert_eq!(activity.requests.load(Relaxed), 1, "but it is not a request sent whole");
        drop(RequestBody::new(http_body_util::Empty::<hyper::body::Bytes>::new(), &activity));
        assert_eq!(activity.requests.load(Relaxed), 2, "an empty body is whole with its head");
    }
}
