//! The filesystem server as a client process sees it: the client shares one folder as its
//! root, and nothing outside it is reachable. Every message is checked against the schema.

use mcp_tests::StdioServer;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_filesystem");

/// `<tmp>/fs-<test>/root` holding `hello.txt` and `sub/`, next to `<tmp>/fs-<test>/secret.txt`.
fn layout(test: &str) -> (PathBuf, PathBuf) {
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("fs-{test}"));
    let _ = std::fs::remove_dir_all(&base);
    let root = base.join("root");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(root.join("hello.txt"), "hello").unwrap();
    std::fs::write(base.join("secret.txt"), "secret").unwrap();
    (root.canonicalize().unwrap(), base.canonicalize().unwrap())
}

/// A server whose client declares `roots` (and elicitation when `elicit`).
async fn connect(elicit: bool) -> StdioServer {
    let mut server = StdioServer::spawn(BIN);
    let capabilities = if elicit { json!({"roots": {}, "elicitation": {}}) } else { json!({"roots": {}}) };
    let params = json!({"protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": {"name": "t", "version": "0"}});
    server.request(0, "initialize", params).await;
    server.notify("notifications/initialized", json!({})).await;
    server
}

/// Calls a tool, answering the server's requests (`roots/list`, `elicitation/create`) from
/// `answers` by method; returns the result.
async fn call(server: &mut StdioServer, id: i64, tool: &str, arguments: Value, answers: &Value) -> Value {
    server.send_request(json!(id), "tools/call", json!({"name": tool, "arguments": arguments})).await;
    loop {
        let message = server.recv().await.expect("an answer");
        match message["method"].as_str() {
            Some(method) => {
                let result = answers.get(method).unwrap_or_else(|| panic!("unexpected request {message}"));
                let reply = json!({"jsonrpc": "2.0", "id": message["id"], "result": result});
                server.send_line(reply.to_string().as_bytes()).await;
            }
            None => return message["result"].clone(),
        }
    }
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap()
}

#[tokio::test]
async fn reads_lists_and_writes_inside_the_roots_only() {
    let (root, base) = layout("inside");
    std::os::unix::fs::symlink(base.join("secret.txt"), root.join("link")).unwrap();
    let roots = json!({"roots/list": {"roots": [{"uri": format!("file://{}", root.display()), "name": "root"}]}});
    let mut server = connect(false).await;

    let read = call(&mut server, 1, "read_file", json!({"path": "hello.txt"}), &roots).await;
    assert_ne!(read["isError"], true, "{read}");
    assert_eq!(text(&read), "hello");
    let list = call(&mut server, 2, "list_directory", json!({"path": "."}), &roots).await;
    assert_eq!(text(&list), "hello.txt\nlink\nsub/");
    let wrote = call(&mut server, 3, "write_file", json!({"path": "sub/new.txt", "content": "new"}), &roots).await;
    assert_ne!(wrote["isError"], true, "{wrote}");
    assert_eq!(std::fs::read_to_string(root.join("sub/new.txt")).unwrap(), "new");

    let absolute = base.join("secret.txt").display().to_string();
    for (id, path) in [(4, "../secret.txt"), (5, "sub/../../secret.txt"), (6, "link"), (7, absolute.as_str())] {
        let refused = call(&mut server, id, "read_file", json!({"path": path}), &roots).await;
        assert_eq!(refused["isError"], true, "{path}: {refused}");
        assert!(text(&refused).contains("outside the folders the client shared"), "{path}: {refused}");
    }
    let refused = call(&mut server, 8, "write_file", json!({"path": "../evil.txt", "content": "x"}), &roots).await;
    assert_eq!(refused["isError"], true);
    assert!(!base.join("evil.txt").exists());
    let missing = call(&mut server, 9, "read_file", json!({"path": "nope/none.txt"}), &roots).await;
    assert_eq!(missing["isError"], true);

    server.close_stdin();
    assert!(server.wait(Duration::from_secs(2)).await.success());
    server.assert_schema_valid();
}

#[tokio::test]
async fn symlinks_lead_nowhere_outside_the_root() {
    let (root, base) = layout("symlinks");
    std::fs::create_dir(base.join("outside")).unwrap();
    std::fs::write(base.join("outside/secret.txt"), "secret").unwrap();
    std::os::unix::fs::symlink(base.join("outside/new.txt"), root.join("dangling")).unwrap();
    std::os::unix::fs::symlink(base.join("outside"), root.join("out")).unwrap();
    std::os::unix::fs::symlink("hello.txt", root.join("greeting")).unwrap();
    std::os::unix::fs::symlink("sub", root.join("sub-link")).unwrap();
    std::fs::write(root.join("big.txt"), vec![b'x'; 1024 * 1024 + 1]).unwrap();
    let roots = json!({"roots/list": {"roots": [{"uri": format!("file://{}", root.display())}]}});
    let mut server = connect(false).await;

    let planted = call(&mut server, 1, "write_file", json!({"path": "dangling", "content": "x"}), &roots).await;
    assert_eq!(planted["isError"], true, "{planted}");
    assert!(text(&planted).contains("outside the folders the client shared"), "{planted}");
    assert!(!base.join("outside/new.txt").exists(), "the dangling link's target was created outside the root");
    for (id, (tool, path)) in [("read_file", "out/secret.txt"), ("list_directory", "out")].into_iter().enumerate() {
        let refused = call(&mut server, 2 + id as i64, tool, json!({"path": path}), &roots).await;
        assert_eq!(refused["isError"], true, "{path}: {refused}");
        assert!(text(&refused).contains("outside the folders the client shared"), "{path}: {refused}");
    }

    let inside = call(&mut server, 4, "read_file", json!({"path": "greeting"}), &roots).await;
    assert_eq!((inside["isError"].as_bool(), text(&inside)), (None, "hello"), "{inside}");
    let wrote = call(&mut server, 5, "write_file", json!({"path": "sub-link/new.txt", "content": "n"}), &roots).await;
    assert_ne!(wrote["isError"], true, "{wrote}");
    assert_eq!(std::fs::read_to_string(root.join("sub/new.txt")).unwrap(), "n");

    let big = call(&mut server, 6, "read_file", json!({"path": "big.txt"}), &roots).await;
    assert_eq!(big["isError"], true, "{big}");
    assert!(text(&big).contains("larger than 1048576 bytes"), "{big}");
    server.close_stdin();
    assert!(server.wait(Duration::from_secs(2)).await.success());
    server.assert_schema_valid();
}

#[tokio::test]
async fn deleting_needs_the_users_confirmation() {
    let (root, _) = layout("delete");
    let roots = json!({"roots/list": {"roots": [{"uri": format!("file://{}", root.display())}]}});
    let mut server = connect(true).await;
    let mut answers = roots.clone();
    answers["elicitation/create"] = json!({"action": "cancel"});
    let kept = call(&mut server, 1, "delete_file", json!({"path": "hello.txt"}), &answers).await;
    assert_eq!(kept["isError"], true);
    assert!(root.join("hello.txt").exists());
    answers["elicitation/create"] = json!({"action": "accept", "content": {"confirm": true}});
    let deleted = call(&mut server, 2, "delete_file", json!({"path": "hello.txt"}), &answers).await;
    assert_ne!(deleted["isError"], true, "{deleted}");
    assert!(!root.join("hello.txt").exists());
    server.close_stdin();
    assert!(server.wait(Duration::from_secs(2)).await.success());
    server.assert_schema_valid();
}

#[tokio::test]
async fn a_client_without_roots_gets_a_readable_error() {
    let mut server = StdioServer::spawn(BIN);
    server.initialize("2025-11-25").await;
    let result = call(&mut server, 1, "read_file", json!({"path": "x"}), &json!({})).await;
    assert_eq!(result["isError"], true);
    assert_eq!(text(&result), "cannot list the client's roots: the client does not support `roots`");
    server.close_stdin();
    assert!(server.wait(Duration::from_secs(2)).await.success());
    server.assert_schema_valid();
}

/// Issue 31, row 15: a file's name is any bytes but `/` and NUL; one holding a newline, an
/// escape sequence or a bidi override is listed escaped, as one entry that looks like no other,
/// and echoed escaped after a write.
#[tokio::test]
async fn names_with_control_characters_are_listed_escaped() {
    let (root, _) = layout("names");
    for name in ["evil\nfake_dir/", "red\x1b[31m", "back\\slash", "txt.\u{202e}exe"] {
        let name = name.trim_end_matches('/');
        std::fs::write(root.join(name), "x").unwrap();
    }
    let roots = json!({"roots/list": {"roots": [{"uri": format!("file://{}", root.display())}]}});
    let mut server = connect(false).await;

    let list = call(&mut server, 1, "list_directory", json!({"path": "."}), &roots).await;
    let entries: Vec<&str> = text(&list).lines().collect();
    assert_eq!(
        entries,
        ["back\\\\slash", "evil\\nfake_dir", "hello.txt", "red\\u{1b}[31m", "sub/", "txt.\\u{202e}exe"],
        "{list}"
    );
    let wrote = call(&mut server, 2, "write_file", json!({"path": "new\nfake", "content": "x"}), &roots).await;
    assert_ne!(wrote["isError"], true, "{wrote}");
    assert!(text(&wrote).ends_with("/new\\nfake"), "{wrote}");
    assert!(!text(&wrote).contains('\n'), "{wrote}");
    server.close_stdin();
    assert!(server.wait(Duration::from_secs(2)).await.success());
    server.assert_schema_valid();
}
