//! Whom to close when a connection is waiting for a place (the cap is reached, or `accept`
//! ran out of file descriptors): the connection whose client got least far. A body stalled
//! mid-way goes first, then a connection that never sent a whole request (each once silent
//! for a tick), then the newest connection of a client holding more than its share, then one
//! idle between requests; a connection serving a request whose body arrived (a live stream
//! included) is never shed while its client is within its share. Within a rank the oldest goes
//! first (so newcomers have their turn), except past a share, where the newest does.
//!
//! The scan reads every open connection under the list's lock, so it runs only under pressure,
//! once per connection that waits; the requests themselves only update their own counters.

use super::connections::{Activity, Connections};
use crate::sync::lock;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;

/// How far a connection's client got, from the first to be shed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Standing {
    /// A request's head is in, and its body stopped arriving.
    StalledBody,
    /// Not one whole request, and nothing in flight: silence, or a head trickling in.
    NoRequest,
    /// Its client holds more connections than its share, whatever this one does.
    OverShare,
    /// Requests answered, none in flight: a keep-alive connection waiting for the next.
    BetweenRequests,
}

/// Silent for this many ticks of the connections' clock (at least one whole tick, up to a
/// second with the default header timeout): a connection just accepted, or whose body is still
/// flowing, is not a candidate for how little it sent.
const QUIET_TICKS: u64 = 2;

impl Activity {
    /// Where this connection stands at tick `now`, by what it sent alone; `None`: not to be
    /// shed for it.
    fn standing(&self, now: u64) -> Option<Standing> {
        if now.saturating_sub(self.last_active.load(Relaxed)) < QUIET_TICKS {
            return None;
        }
        if self.reading_body.load(Relaxed) {
            Some(Standing::StalledBody)
        } else if self.in_flight.load(Relaxed) > 0 {
            None // being served
        } else if self.requests.load(Relaxed) == 0 {
            Some(Standing::NoRequest)
        } else {
            Some(Standing::BetweenRequests)
        }
    }
}

impl Connections {
    /// Closes the open connection whose client got least far, if any may be shed; whether one
    /// was.
    pub fn shed_one(&self) -> bool {
        let now = self.now.load(Relaxed);
        let mut victim: Option<(Standing, Arc<Activity>)> = None;
        {
            let open = lock(&self.open);
            for activity in open.served.iter().filter_map(std::sync::Weak::upgrade) {
                if activity.closed.load(Relaxed) {
                    continue;
                }
                let mut standing = activity.standing(now);
                if standing.is_none_or(|standing| standing > Standing::OverShare)
                    && open.over_share(&activity.client, self.share)
                {
                    standing = Some(Standing::OverShare);
                }
                let Some(standing) = standing else { continue };
                // Oldest first within a rank, but the newest of a client past its share.
                let better = victim.as_ref().is_none_or(|(least, _)| {
                    standing < *least || (standing == Standing::OverShare && *least == Standing::OverShare)
                });
                if better {
                    victim = Some((standing, activity));
                    if standing == Standing::StalledBody {
                        break;
                    }
                }
            }
        }
        let Some((standing, activity)) = victim else { return false };
        tracing::debug!(?standing, "shedding a connection to make room for a new one");
        activity.close();
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::connections::RequestBody;
    use super::*;
    use hyper::body::{Bytes, Frame};
    use std::sync::Arc;
    use std::time::Duration;

    #[test]
    fn the_connections_that_sent_least_go_first_and_live_streams_never() {
        let connections = Connections::new(Duration::from_secs(1), 100);
        let open = || {
            let activity = connections.open(None);
            connections.serve(&activity);
            activity
        };
        // Opened in this order, shed in the reverse one.
        let (between, silent, stalled, streaming): (Arc<_>, Arc<_>, Arc<_>, Arc<_>) = (open(), open(), open(), open());
        let answered = between.request();
        drop(RequestBody::new(http_body_util::Empty::<Bytes>::new(), &between));
        drop(answered);
        let _stalled = (stalled.request(), RequestBody::new(body_never_sent(), &stalled));
        let _streaming = (streaming.request(), RequestBody::new(http_body_util::Empty::<Bytes>::new(), &streaming));

        assert!(!connections.shed_one(), "nothing is shed before it has been quiet for a whole tick");
        connections.now.store(QUIET_TICKS, Relaxed);
        let closed = || [&between, &silent, &stalled, &streaming].map(|activity| activity.closed.load(Relaxed));
        assert!(connections.shed_one());
        assert_eq!(closed(), [false, false, true, false], "the stalled body first");
        assert!(connections.shed_one());
        assert_eq!(closed(), [false, true, true, false], "then the connection that never sent a request");
        assert!(connections.shed_one());
        assert_eq!(closed(), [true, true, true, false], "then the one between requests");
        assert!(!connections.shed_one(), "a request being served is never shed");
    }

    #[test]
    fn past_its_share_a_client_loses_its_newest_connection_even_a_live_stream() {
        let connections = Connections::new(Duration::from_secs(1), 2);
        let stream_from = |ip: [u8; 4]| {
            let activity = connections.open(Some(std::net::SocketAddr::from((ip, 4000))));
            connections.serve(&activity);
            let request = activity.request();
            drop(RequestBody::new(http_body_util::Empty::<Bytes>::new(), &activity));
            (activity, request)
        };
        let mut streams: Vec<_> = (0..3).map(|_| stream_from([127, 0, 0, 1])).collect();
        let other = stream_from([127, 0, 0, 2]);
        let closed = || streams.iter().map(|(activity, _)| activity.closed.load(Relaxed)).collect::<Vec<_>>();
        assert!(connections.shed_one(), "at once: no silence needed");
        assert_eq!(closed(), [false, false, true], "the newest");
        drop(streams.pop());
        assert!(!connections.shed_one(), "within its share again, its streams are kept");
        assert!(!other.0.closed.load(Relaxed));
    }

    /// A body whose data never comes.
    fn body_never_sent()
    -> http_body_util::StreamBody<futures_util::stream::Pending<Result<Frame<Bytes>, std::convert::Infallible>>> {
        http_body_util::StreamBody::new(futures_util::stream::pending())
    }
}
