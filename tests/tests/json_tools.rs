//! `examples/json-tools`: a server made only from a JSON file of tool definitions (templated
//! answers, structured output, commands), listed and called by the official Python SDK client
//! (`mcp==2.3.0`, the venv of scripts/python-env.sh) in both eras.

use mcp_tests::external::{example_binary, python_sdk_report, repo_root};
use serde_json::{Value, json};

#[test]
fn a_server_made_from_a_json_file_is_listed_and_called_by_the_python_sdk() {
    let tools = repo_root().join("examples/json-tools/tools.json");
    let calls = json!([
        {"name": "greet", "arguments": {"name": "Ada"}},
        {"name": "order_summary", "arguments": {"item": "tea", "quantity": 3}},
        {"name": "count_words", "arguments": {"text": "one two; three $(four)"}},
        {"name": "list_folder", "arguments": {"path": "/no/such/folder"}},
        {"name": "greet", "arguments": {"name": ""}},
    ]);
    let report = python_sdk_report(&calls, &example_binary("json-tools"), &[tools.to_str().unwrap()], &[]);
    for mode in ["legacy", "2026-07-28"] {
        let seen = &report[mode];
        let names: Vec<&str> = seen["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["greet", "order_summary", "count_words", "list_folder"], "{mode}");
        assert_eq!(seen["tools"][0]["inputSchema"]["properties"]["name"]["minLength"], 1, "{mode}");
        assert_eq!(seen["tools"][1]["outputSchema"]["required"], json!(["line", "quantity"]), "{mode}");
        assert_eq!(seen["tools"][2]["annotations"]["readOnlyHint"], true, "{mode}");

        let calls = seen["calls"].as_array().unwrap();
        let text = |i: usize| calls[i]["content"][0]["text"].as_str().unwrap_or_default().to_owned();
        let failed = |i: usize| calls[i]["isError"] == Value::Bool(true);
        assert_eq!((text(0), failed(0)), ("Hello, Ada!".to_owned(), false), "{mode}");
        // The SDK checks structured content against the output schema itself.
        assert_eq!(calls[1]["structuredContent"], json!({"line": "3 x tea", "quantity": 3}), "{mode}");
        // The argument reaches the command as one argument: nothing in it is run.
        assert_eq!(text(2).trim(), "4", "{mode}");
        assert!(failed(3) && text(3).contains("`ls` failed"), "{mode}: {}", calls[3]);
        // The input schema's `minLength` is checked before the tool runs.
        assert!(failed(4) && text(4).contains("name"), "{mode}: {}", calls[4]);
    }
}
