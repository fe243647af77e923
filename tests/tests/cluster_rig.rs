//! The multi-replica rig itself (`mcp_tests::cluster`), with what needs no state shared between
//! replicas: nginx spreads requests round robin over every replica and skips a dead one, brings
//! a restarted one back, streams SSE as it comes, passes `Last-Event-ID` and the client's
//! `Host` and `Origin` on; Redis keeps its data across `stop` and `restart` and loses it when
//! killed. `tests/tests/replicas.rs` relies on all of it.
#![cfg(feature = "services")]

use hyper::StatusCode;
use mcp_tests::HttpClient;
use mcp_tests::cluster::{Cluster, Redis};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "rig-test", "version": "0"},
    }})
}

/// The `upstream=` field of each `POST` the access log holds from line `from` on: the replicas
/// nginx tried for it, in order.
fn upstreams(log: &str, from: usize) -> Vec<Vec<String>> {
    log.lines()
        .skip(from)
        .filter(|line| line.contains("\"POST "))
        .map(|line| {
            let field = line.split(" upstream=").nth(1).unwrap_or_default();
            let field = field.split(" upstream_status=").next().unwrap_or_default();
            field.split(", ").map(str::to_owned).collect()
        })
        .collect()
}

/// `initialize`s through the load balancer; each must succeed (it needs no shared state).
async fn initialize_times(cluster: &Cluster, n: usize, when: &str) {
    for i in 0..n {
        let reply = HttpClient::new(cluster.address()).post(&initialize()).await;
        assert_eq!(reply.status, StatusCode::OK, "initialize {i} {when}");
        let messages = reply.messages().await;
        assert!(messages[0].get("result").is_some(), "initialize {i} {when}: {messages:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nginx_spreads_requests_round_robin_skips_a_dead_replica_and_takes_it_back() {
    let mut cluster = Cluster::start(3);
    let ports: Vec<String> = cluster.replicas().iter().map(|r| format!("127.0.0.1:{}", r.port())).collect();

    initialize_times(&cluster, 6, "with every replica up").await;
    let tried = upstreams(&cluster.nginx().access_log(), 0);
    let served: BTreeSet<&String> = tried.iter().filter_map(|t| t.last()).collect();
    assert_eq!(served, ports.iter().collect(), "round robin over every replica: {tried:?}");

    cluster.kill9(1);
    let from = cluster.nginx().access_log().lines().count();
    initialize_times(&cluster, 6, "with replica 1 killed").await;
    let tried = upstreams(&cluster.nginx().access_log(), from);
    assert!(tried.iter().all(|t| t.last() != Some(&ports[1])), "the dead replica served nothing: {tried:?}");
    assert!(
        tried.iter().any(|t| t.len() == 2 && t[0] == ports[1]),
        "a request refused by the dead replica went on to the next one: {tried:?}"
    );

    // nginx counts fail_timeout (1 s) in whole seconds of its clock: back within 2 s.
    cluster.restart(1);
    let from = cluster.nginx().access_log().lines().count();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        initialize_times(&cluster, 1, "after replica 1 restarted").await;
        let tried = upstreams(&cluster.nginx().access_log(), from);
        if tried.iter().any(|t| t == std::slice::from_ref(&ports[1])) {
            break;
        }
        assert!(Instant::now() < deadline, "the restarted replica serves again within 5 s: {tried:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sse_passes_nginx_as_it_comes_and_resumes_with_last_event_id() {
    let cluster = Cluster::start(1);
    let mut client = HttpClient::new(cluster.address());
    client.initialize().await;
    let uris: Vec<String> = (0..3).map(|i| format!("test://template/rig-{i}/data")).collect();
    for (i, uri) in uris.iter().enumerate() {
        let messages = client.request(i as i64 + 1, "resources/subscribe", json!({"uri": uri})).await;
        assert!(messages[0].get("result").is_some(), "{messages:?}");
    }
    let trigger = |id: i64, uri: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "test_trigger_resource_update", "arguments": {"uri": uri}}})
    };

    // A notification reaches the client while the GET stream stays open (nothing buffers it).
    let reply = client.get(None).await;
    assert_eq!(reply.status, StatusCode::OK);
    let mut events = reply.events();
    assert_eq!(client.post(&trigger(10, &uris[0])).await.status, StatusCode::OK);
    let mut last_id = None;
    let first = loop {
        let event = events.next().await.expect("the GET stream ended");
        last_id = event.id.clone().or(last_id);
        if !event.data.is_empty() {
            break event.json();
        }
    };
    assert_eq!(first["params"]["uri"], uris[0].as_str(), "{first}");
    drop(events);

    // Sent while no stream is connected, replayed after `Last-Event-ID`.
    for (i, uri) in uris[1..].iter().enumerate() {
        assert_eq!(client.post(&trigger(11 + i as i64, uri)).await.status, StatusCode::OK);
    }
    let last_id = last_id.expect("the events have ids");
    let reply = client.get(Some(&last_id)).await;
    assert_eq!(reply.status, StatusCode::OK);
    let mut events = reply.events();
    let mut replayed = Vec::new();
    while replayed.len() < 2 {
        let message = events.next_message().await.expect("the resumed stream ended");
        replayed.push(message["params"]["uri"].as_str().unwrap_or_default().to_owned());
    }
    assert_eq!(replayed, uris[1..]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_replicas_still_judge_the_clients_host_and_origin() {
    let cluster = Cluster::start(1);
    let client = HttpClient::new(cluster.address());
    assert_eq!(client.post(&initialize()).await.status, StatusCode::OK);
    let reply = client.post_with(&initialize(), &[("host", "evil.example.com")]).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN, "a foreign Host");
    let reply = client.post_with(&initialize(), &[("origin", "http://evil.example.com")]).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN, "a foreign Origin");
    let reply = client.post_with(&initialize(), &[("origin", "http://localhost:1234")]).await;
    assert_eq!(reply.status, StatusCode::OK, "a loopback Origin");
}

#[test]
fn redis_keeps_its_data_across_stop_and_restart_and_loses_it_when_killed() {
    let mut redis = Redis::start();
    assert_eq!(redis.command("SET rig-key kept").as_deref(), Some("+OK\r\n"));
    redis.stop();
    assert!(!redis.ping(), "stopped");
    redis.restart();
    assert_eq!(redis.command("GET rig-key").as_deref(), Some("$4\r\nkept\r\n"), "back with its data");
    redis.kill9();
    assert!(!redis.ping(), "killed");
    redis.restart();
    assert_eq!(redis.command("GET rig-key").as_deref(), Some("$-1\r\n"), "a crash lost what it held");
}
