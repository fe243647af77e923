//! Browser apps (CORS) in a real headless Chromium (`mcp_tests::browser`; `scripts/services.sh`
//! installs it). A page served from an allowed origin initializes a session with `fetch`, reads
//! the `Mcp-Session-Id` header, sends `notifications/initialized`, calls a tool (in a session
//! and as a 2026-07-28 stateless request with its mirrored headers), reads an error answer and
//! ends the session: every exchange needs the server's CORS answers (preflights, readable
//! headers). The same page from an origin the server does not allow gets nothing: its
//! preflight, like any request of that origin, is refused (DNS-rebinding protection).
//! Every message the page received is validated against the official schemas.
#![cfg(feature = "services")]

use hyper::{Method, StatusCode};
use mcp_runtime::http::HttpConfig;
use mcp_runtime::prelude::*;
use mcp_tests::browser::{PageServer, dump_dom, element_text};
use mcp_tests::{HttpClient, spec_2025_11_25, spec_2026_07_28};
use serde_json::{Value, json};
use std::net::SocketAddr;

/// Shouts a text back.
#[mcp_tool]
fn shout(text: String) -> String {
    format!("{}!", text.to_uppercase())
}

/// The page: its script talks to the MCP endpoint at `__MCP__` and writes what it got into
/// `#report` as JSON (or the error that stopped it).
const PAGE: &str = r#"<!doctype html>
<html><head><title>MCP from a browser</title></head><body><pre id="report">running</pre><script>
const MCP = "__MCP__";
async function post(message, headers) {
  const response = await fetch(MCP, {
    method: "POST",
    headers: Object.assign({"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}, headers),
    body: JSON.stringify(message),
  });
  const text = await response.text();
  return {status: response.status, session: response.headers.get("Mcp-Session-Id"), body: text ? JSON.parse(text) : null};
}
async function run() {
  const report = {};
  report.initialize = await post({jsonrpc: "2.0", id: 1, method: "initialize", params: {
    protocolVersion: "2025-11-25", capabilities: {}, clientInfo: {name: "a-web-page", version: "1.0"}}}, {});
  const session = {"Mcp-Session-Id": report.initialize.session, "MCP-Protocol-Version": "2025-11-25"};
  report.initialized = (await post({jsonrpc: "2.0", method: "notifications/initialized"}, session)).status;
  report.call = await post({jsonrpc: "2.0", id: 2, method: "tools/call",
    params: {name: "shout", arguments: {text: "hello from a page"}}}, session);
  report.stateless = await post({jsonrpc: "2.0", id: 3, method: "tools/call", params: {
      name: "shout", arguments: {text: "stateless"},
      _meta: {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}},
    {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "shout", "Mcp-Param-Note": "a page"});
  // An error answer is readable too: no session id.
  report.noSession = await post({jsonrpc: "2.0", id: 4, method: "tools/list"}, {"MCP-Protocol-Version": "2025-11-25"});
  report.deleted = (await fetch(MCP, {method: "DELETE", headers: session})).status;
  return report;
}
run().catch(error => ({error: String(error)})).then(report => {
  document.getElementById("report").textContent = JSON.stringify(report);
});
</script></body></html>
"#;

/// An MCP server allowing the origin `allowed`, on `listener`.
fn serve(listener: tokio::net::TcpListener, allowed: &str) {
    let config = HttpConfig::default().allow_origin(allowed);
    let service = server!().tools(tools![shout]).into_http_service(config).expect("a valid configuration");
    tokio::spawn(service.serve(listener, std::future::pending()));
}

/// What the page at `url` reported.
async fn report_of(url: &str) -> Value {
    let dom = dump_dom(url).await;
    let text = element_text(&dom, "report").unwrap_or_else(|| panic!("no #report in the page's DOM:\n{dom}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("the page's report is not JSON ({e}): {text}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_from_an_allowed_origin_uses_the_server_and_others_are_refused() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address: SocketAddr = listener.local_addr().unwrap();
    let pages = PageServer::start(PAGE.replace("__MCP__", &format!("http://{address}/mcp")));
    let allowed = pages.url("allowed.test");
    serve(listener, allowed.trim_end_matches('/'));

    let report = report_of(&allowed).await;
    assert_eq!(report.get("error"), None, "the page failed: {report}");
    let initialize = &report["initialize"];
    assert_eq!(initialize["status"], 200, "{report}");
    let session = initialize["session"].as_str().expect("the page read Mcp-Session-Id");
    assert_eq!(session.len(), 32, "{session}");
    assert_eq!(initialize["body"]["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(report["initialized"], 202);
    assert_eq!(report["call"]["status"], 200);
    assert_eq!(report["call"]["body"]["result"]["content"][0]["text"], "HELLO FROM A PAGE!");
    assert_eq!(report["stateless"]["status"], 200, "{report}");
    assert_eq!(report["stateless"]["body"]["result"]["content"][0]["text"], "STATELESS!");
    assert_eq!(report["noSession"]["status"], 400);
    assert_eq!(report["noSession"]["body"]["error"]["code"], -32000);
    assert_eq!(report["deleted"], 204, "{report}");
    let spec = spec_2025_11_25();
    for (message, answers) in [(&initialize["body"], "initialize"), (&report["call"]["body"], "tools/call")] {
        spec.check_message(message, Some(answers)).unwrap_or_else(|e| panic!("{message}: {e}"));
    }
    spec.check_message(&report["noSession"]["body"], None).unwrap();
    spec_2026_07_28().check_message(&report["stateless"]["body"], Some("tools/call")).unwrap();

    // The same page from another origin: the first preflight is refused, so is everything.
    let refused = pages.url("refused.test");
    let report = report_of(&refused).await;
    let error = report["error"].as_str().unwrap_or_else(|| panic!("the refused page got through: {report}"));
    assert!(error.contains("Failed to fetch"), "{error}");

    // What the browser was told, seen from a plain client.
    let client = HttpClient::new(address);
    let origin = refused.trim_end_matches('/');
    let preflight = [("origin", origin), ("access-control-request-method", "POST")];
    let reply = client.send(Method::OPTIONS, "/mcp", &preflight, Vec::new()).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    assert_eq!(reply.header("access-control-allow-origin"), None);
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}});
    let reply = client.post_with(&initialize, &[("origin", origin)]).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    assert_eq!(reply.header("access-control-allow-origin"), None);
}
