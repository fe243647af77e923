//! What the client tests share (feature `client`): a client builder whose handlers answer the
//! server's requests predictably and record every notification.

use mcp_runtime::client::{ClientBuilder, ElicitationRequest, Negotiation, Notification};
use mcp_runtime::{Elicitation, Role, Root, Sampled};
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The notifications a client received, in order.
#[derive(Clone, Default)]
pub struct Received(Arc<Mutex<Vec<Notification>>>);

impl Received {
    /// A copy of what arrived so far.
    pub fn all(&self) -> Vec<Notification> {
        self.0.lock().unwrap().clone()
    }

    /// Waits (up to 10 s) for a notification that `wanted` accepts.
    pub async fn wait_for(&self, what: &str, wanted: impl Fn(&Notification) -> bool) -> Notification {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(found) = self.all().into_iter().find(|n| wanted(n)) {
                return found;
            }
            assert!(Instant::now() < deadline, "no {what} within 10 s; received: {:?}", self.all());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// The root the test client offers.
pub const ROOT: &str = "file:///tmp/mcp-client-test-root";

/// A client that answers sampling with `echo: <last user text>` (model `test-model`),
/// accepts every form with `{"name": "Ada"}` (and every URL), offers [`ROOT`], and records
/// notifications in the returned [`Received`].
pub fn answering_client(negotiation: Negotiation) -> (ClientBuilder, Received) {
    let received = Received::default();
    let sink = received.clone();
    let builder = mcp_runtime::client::Client::builder()
        .name("mcp-runtime-client-tests", "0.0.0")
        .negotiation(negotiation)
        .timeout(Duration::from_secs(20))
        .on_sampling(|request| async move {
            let asked = request.messages.last().and_then(|m| m.content.as_text()).unwrap_or_default().to_owned();
            Ok(Sampled {
                role: Role::Assistant,
                content: json!({"type": "text", "text": format!("echo: {asked}")}),
                model: "test-model".into(),
                stop_reason: Some("endTurn".into()),
            })
        })
        .on_elicitation(|request| async move {
            Ok(match request {
                ElicitationRequest::Form { .. } => {
                    let mut content = serde_json::Map::new();
                    content.insert("name".into(), json!("Ada"));
                    Elicitation::Accept(content)
                }
                _ => Elicitation::Accept(serde_json::Map::new()),
            })
        })
        .roots(vec![Root { uri: ROOT.into(), name: Some("test root".into()) }])
        .on_notification(move |notification| sink.0.lock().unwrap().push(notification));
    (builder, received)
}
