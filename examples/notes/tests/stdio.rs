//! The notes server as a client process sees it, every message checked against the schema.

use mcp_tests::StdioServer;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_notes");

/// A fresh, empty folder under the target directory for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("notes-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn spawn(folder: &Path) -> StdioServer {
    StdioServer::spawn_with(BIN, |command| {
        command.arg(folder);
    })
}

/// `initialize` declaring `capabilities`, then `notifications/initialized`.
async fn initialize(server: &mut StdioServer, capabilities: Value) -> Value {
    let params = json!({"protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": {"name": "t", "version": "0"}});
    let (response, _) = server.request(0, "initialize", params).await;
    server.notify("notifications/initialized", json!({})).await;
    response["result"].clone()
}

fn uris(list: &Value) -> Vec<&str> {
    list["result"]["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap()).collect()
}

#[tokio::test]
async fn creates_sample_notes_and_serves_resources_prompts_and_completion() {
    let folder = scratch("serves");
    let mut server = spawn(&folder);
    let init = initialize(&mut server, json!({})).await;
    assert_eq!(init["serverInfo"]["name"], "notes");
    assert_eq!(init["capabilities"]["resources"], json!({"subscribe": true, "listChanged": true}));
    assert_eq!(init["capabilities"]["completions"], json!({}));
    assert!(folder.join("welcome.md").is_file(), "the sample notes are written under the folder");

    let (list, _) = server.request(1, "resources/list", json!({})).await;
    assert_eq!(uris(&list), ["notes://index", "notes://groceries", "notes://welcome"]);
    let (templates, _) = server.request(2, "resources/templates/list", json!({})).await;
    assert_eq!(templates["result"]["resourceTemplates"][0]["uriTemplate"], "notes://{name}");
    assert_eq!(templates["result"]["resourceTemplates"][0]["description"], "A note, by name.");

    let (index, _) = server.request(3, "resources/read", json!({"uri": "notes://index"})).await;
    let text = index["result"]["contents"][0]["text"].as_str().unwrap();
    assert!(text.contains("- [groceries](notes://groceries)"), "{text}");
    let (note, _) = server.request(4, "resources/read", json!({"uri": "notes://groceries"})).await;
    assert_eq!(
        note["result"]["contents"][0],
        json!({"uri": "notes://groceries", "mimeType": "text/markdown", "text": "# Groceries\n\n- milk\n- bread\n- coffee\n"})
    );
    let (missing, _) = server.request(5, "resources/read", json!({"uri": "notes://nope"})).await;
    assert_eq!(missing["error"]["code"], -32002);
    let (escape, _) = server.request(6, "resources/read", json!({"uri": "notes://..%2Fsecret"})).await;
    assert!(escape.get("error").is_some(), "{escape}");

    let (prompt, _) =
        server.request(7, "prompts/get", json!({"name": "summarize_note", "arguments": {"name": "welcome"}})).await;
    let messages = &prompt["result"]["messages"];
    assert_eq!(messages[1]["content"]["type"], "resource");
    assert_eq!(messages[1]["content"]["resource"]["uri"], "notes://welcome");
    let (no_arg, _) = server.request(8, "prompts/get", json!({"name": "summarize_note", "arguments": {}})).await;
    assert_eq!(no_arg["error"]["code"], -32602);

    let params =
        json!({"ref": {"type": "ref/prompt", "name": "summarize_note"}, "argument": {"name": "name", "value": "g"}});
    let (completion, _) = server.request(9, "completion/complete", params).await;
    assert_eq!(completion["result"]["completion"]["values"], json!(["groceries"]));
    let params =
        json!({"ref": {"type": "ref/resource", "uri": "notes://{name}"}, "argument": {"name": "name", "value": "W"}});
    let (completion, _) = server.request(10, "completion/complete", params).await;
    assert_eq!(completion["result"]["completion"]["values"], json!(["welcome"]));

    server.close_stdin();
    assert!(server.wait(Duration::from_secs(2)).await.success());
    server.assert_schema_valid();
}

#[tokio::test]
async fn adding_a_note_notifies_subscribers_and_announces_the_new_list() {
    let folder = scratch("add");
    let mut server = spawn(&folder);
    initialize(&mut server, json!({})).await;
    let (subscribed, _) = server.request(1, "resources/subscribe", json!({"uri": "notes://ideas"})).await;
    assert_eq!(subscribed["result"], json!({}));

    let call = json!({"name": "add_note", "arguments": {"name": "ideas", "text": "# Ideas\n"}});
    let (added, mut notifications) = server.request(2, "tools/call", call).await;
    assert_eq!(added["result"]["content"][0]["text"], "created notes://ideas");
    // The announcements go out as the session sees the change, not in step with answers: the
    // call's answer may come first. Wait for both, then for anything else sent meanwhile.
    let announced = |notifications: &[Value], method: &str| notifications.iter().any(|n| n["method"] == method);
    while !announced(&notifications, "notifications/resources/list_changed")
        || !announced(&notifications, "notifications/resources/updated")
    {
        notifications.push(server.recv().await.expect("the server announced the change"));
    }
    let (_, more) = server.request(3, "ping", json!({})).await;
    notifications.extend(more);
    let updated: Vec<&Value> =
        notifications.iter().filter(|n| n["method"] == "notifications/resources/updated").collect();
    assert_eq!(updated.len(), 1, "only the subscribed URI is announced: {notifications:?}");
    assert_eq!(updated[0]["params"]["uri"], "notes://ideas");
    assert_eq!(std::fs::read_to_string(folder.join("ideas.md")).unwrap(), "# Ideas\n");

    let (list, _) = server.request(4, "resources/list", json!({})).await;
    assert!(uris(&list).contains(&"notes://ideas"));

    let bad = json!({"name": "add_note", "arguments": {"name": "../escape", "text": "x"}});
    let (refused, _) = server.request(5, "tools/call", bad).await;
    assert_eq!(refused["result"]["isError"], true);
    assert!(refused["result"]["content"][0]["text"].as_str().unwrap().contains("not a note name"));
    assert!(!folder.join("../escape.md").exists());

    server.close_stdin();
    assert!(server.wait(Duration::from_secs(2)).await.success());
    server.assert_schema_valid();
}

#[tokio::test]
async fn deleting_asks_for_confirmation_and_refuses_without_elicitation() {
    let folder = scratch("delete");
    let mut server = spawn(&folder);
    initialize(&mut server, json!({"elicitation": {"form": {}}})).await;

    let call = json!({"name": "delete_note", "arguments": {"name": "welcome"}});
    server.send_request(json!(1), "tools/call", call.clone()).await;
    let ask = server.recv().await.unwrap();
    assert_eq!(ask["method"], "elicitation/create");
    assert!(ask["params"]["message"].as_str().unwrap().contains("delete_note"), "{ask}");
    let answer = json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "decline"}});
    server.send_line(answer.to_string().as_bytes()).await;
    let declined = server.recv().await.unwrap();
    assert_eq!(declined["result"]["isError"], true);
    assert!(folder.join("welcome.md").exists(), "declined: not deleted");

    server.send_request(json!(2), "tools/call", call.clone()).await;
    let ask = server.recv().await.unwrap();
    let answer =
        json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"confirm": true}}});
    server.send_line(answer.to_string().as_bytes()).await;
    let mut deleted = server.recv().await.unwrap();
    while deleted.get("method").is_some() {
        deleted = server.recv().await.unwrap(); // list_changed
    }
    assert_eq!(deleted["result"]["content"][0]["text"], "deleted notes://welcome");
    assert!(!folder.join("welcome.md").exists());
    server.close_stdin();
    assert!(server.wait(Duration::from_secs(2)).await.success());
    server.assert_schema_valid();

    let mut server = spawn(&folder);
    initialize(&mut server, json!({})).await;
    let call = json!({"name": "delete_note", "arguments": {"name": "groceries"}});
    let (refused, _) = server.request(1, "tools/call", call).await;
    assert_eq!(refused["result"]["isError"], true);
    assert!(folder.join("groceries.md").exists(), "no elicitation: not deleted");
    server.close_stdin();
    assert!(server.wait(Duration::from_secs(2)).await.success());
    server.assert_schema_valid();
}
