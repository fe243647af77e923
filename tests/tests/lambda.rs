//! `examples/lambda` (`Server::serve_lambda`, feature `lambda`) as a Lambda function emulated by
//! `cargo lambda watch`, reached through its function URL by the official Python SDK client
//! (`tests/python/lambda_client.py`): in its 2025-era mode, session-free (`initialize`, then each
//! request alone), and in 2026-07-28 mode, listing and calling the tools, with a call's progress
//! and logs arriving in its own stream.

use mcp_tests::external::{LambdaWatch, python, repo_root};
use serde_json::{Value, json};

#[test]
fn the_python_sdk_client_uses_the_lambda_example_through_cargo_lambda_watch() {
    let watch = LambdaWatch::start("lambda");
    let output = std::process::Command::new(python())
        .arg(repo_root().join("tests/python/lambda_client.py"))
        .arg(watch.url("/mcp"))
        .output()
        .expect("python runs the client");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "the client failed: {}\n{stdout}", String::from_utf8_lossy(&output.stderr));
    let runs: Vec<Value> =
        stdout.lines().map(|line| serde_json::from_str(line).expect("one JSON object a line")).collect();
    let [legacy, modern] = &runs[..] else { panic!("one line per mode: {stdout}") };
    for (run, version) in [(legacy, "2025-11-25"), (modern, "2026-07-28")] {
        assert_eq!(run["protocol_version"], version, "{run}");
        assert_eq!(run["tools"], json!(["add", "count"]), "{run}");
        assert_eq!(run["add"], json!(["5"]), "{run}");
        assert_eq!(run["count"], json!(["counted to 3"]), "{run}");
        assert_eq!(run["progress"], json!([1.0, 2.0, 3.0]), "{run}");
    }
    // The 2025-era client gets the tool's logs at the default level; a 2026-07-28 one only when
    // its request names a level.
    assert_eq!(legacy["logs"], json!(["step 1 of 3", "step 2 of 3", "step 3 of 3"]));
    assert_eq!(modern["logs"], json!([]));
}
