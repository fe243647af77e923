//! An OpenAPI service as MCP tools (feature `openapi`), against httpbin: a real service nobody
//! here wrote (PyPI `httpbin[mainapp]`, in the venv of scripts/python-env.sh), started by each
//! test under gunicorn. Its own Swagger 2.0 document becomes `examples/openapi`'s tools, listed
//! and called by the official Python SDK client in both eras; an OpenAPI 3.1 document written
//! here gives output schemas, checked arguments and a caller's header passed through over HTTP.
#![cfg(feature = "openapi")]

use mcp_runtime::Server;
use mcp_runtime::openapi::OpenApi;
use mcp_tests::external::{HttpProcess, example_binary, httpbin, python_sdk_report};
use mcp_tests::{HttpClient, spec_2025_11_25};
use serde_json::{Value, json};

/// How many operations httpbin's document holds (paths times their methods).
fn operations_of(document: &Value) -> usize {
    let paths = document["paths"].as_object().unwrap();
    paths.values().map(|item| item.as_object().unwrap().keys().filter(|key| *key != "parameters").count()).sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn httpbins_swagger_document_is_served_to_the_python_sdk_client_in_both_eras() {
    let service = httpbin();
    let spec_url = format!("{}/spec.json", service.origin());
    let document = OpenApi::load(&spec_url).await.unwrap();
    assert_eq!((document["swagger"].as_str(), document["paths"].as_object().unwrap().len()), (Some("2.0"), 52));

    let calls = json!([
        {"name": "get_get", "arguments": {}},
        {"name": "post_anything_anything", "arguments": {"anything": "a b?c=d"}},
        {"name": "get_status_codes", "arguments": {"codes": "418"}},
        {"name": "get_bearer", "arguments": {"Authorization": "Bearer from-the-model"}},
        {"name": "get_response-headers", "arguments": {"freeform": {"X-Chosen": "yes"}}},
        {"name": "get_base64_value", "arguments": {"value": "aGVsbG8gZnJvbSBodHRwYmlu"}},
        {"name": "get_image_png", "arguments": {}},
        {"name": "get_redirect_n", "arguments": {"n": "1"}},
        {"name": "get_drip", "arguments": {"numbytes": 3, "duration": 0, "delay": 0}},
    ]);
    let binary = example_binary("openapi");
    let report =
        python_sdk_report(&calls, &binary, &[], &[("OPENAPI_URL", &spec_url), ("BASE_URL", &service.origin())]);
    for mode in ["legacy", "2026-07-28"] {
        let tools = report[mode]["tools"].as_array().unwrap();
        assert_eq!(tools.len(), operations_of(&document), "{mode}: one tool per operation");
        let drip = tools.iter().find(|t| t["name"] == "get_drip").unwrap();
        assert_eq!(drip["inputSchema"]["properties"]["numbytes"]["type"], "integer", "{mode}");
        assert_eq!(drip["annotations"]["readOnlyHint"], true, "{mode}");
        let undeclared = tools.iter().find(|t| t["name"] == "post_anything_anything").unwrap();
        assert_eq!(
            undeclared["inputSchema"]["required"],
            json!(["anything"]),
            "{mode}: a path variable is an argument"
        );

        let results = report[mode]["calls"].as_array().unwrap();
        let structured = |i: usize| &results[i]["structuredContent"];
        let failed = |i: usize| results[i]["isError"] == json!(true);
        assert!(structured(0)["url"].as_str().unwrap().ends_with("/get"), "{mode}: {}", results[0]);
        // The path value is one segment, encoded: nothing of it became a query.
        assert!(structured(1)["url"].as_str().unwrap().ends_with("/anything/a%20b%3Fc=d"), "{mode}: {}", results[1]);
        assert_eq!(structured(1)["args"], json!({}), "{mode}");
        assert_eq!(structured(1)["method"], "POST", "{mode}");
        assert!(
            failed(2) && results[2]["content"][0]["text"].as_str().unwrap().contains("418"),
            "{mode}: {}",
            results[2]
        );
        assert_eq!(structured(3)["token"], "from-the-model", "{mode}");
        assert_eq!(structured(4)["X-Chosen"], "yes", "{mode}: an object query parameter is exploded");
        assert_eq!(results[5]["content"][0]["text"], "hello from httpbin", "{mode}");
        assert_eq!(results[6]["content"][0]["type"], "image", "{mode}");
        assert_eq!(results[6]["content"][0]["mimeType"], "image/png", "{mode}");
        assert!(!failed(7) && results[7]["content"][0]["text"].as_str().unwrap().contains("302"), "{mode}");
        // Query arguments reach the service: three bytes, as text (they are UTF-8).
        assert_eq!(results[8]["content"][0]["text"], "***", "{mode}: {}", results[8]);
    }
}

/// Two of httpbin's endpoints as an OpenAPI 3.1 document would describe them.
fn document_3_1() -> Value {
    json!({
        "openapi": "3.1.0",
        "info": {"title": "httpbin, in part", "version": "1"},
        "paths": {
            "/bearer": {"get": {
                "operationId": "whoami",
                "summary": "Who the bearer token says the caller is.",
                "responses": {"200": {"description": "ok", "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Token"}
                }}}}
            }},
            "/anything/{item}": {"post": {
                "operationId": "order",
                "parameters": [
                    {"name": "item", "in": "path", "required": true, "schema": {"type": "string"}},
                    {"name": "note", "in": "query", "schema": {"type": ["string", "null"]}}
                ],
                "requestBody": {"required": true, "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Order"}
                }}},
                "responses": {"200": {"description": "echoed", "content": {"application/json": {"schema": {
                    "type": "object",
                    "properties": {"json": {"$ref": "#/components/schemas/Order"}, "args": {"type": "object"}},
                    "required": ["json", "args"]
                }}}}}
            }},
            "/headers": {"get": {"operationId": "headers", "responses": {"200": {"description": "echoed"}}}}
        },
        "components": {"schemas": {
            "Token": {
                "type": "object",
                "properties": {"authenticated": {"type": "boolean"}, "token": {"type": "string"}},
                "required": ["authenticated", "token"]
            },
            "Order": {
                "type": "object",
                "properties": {"quantity": {"type": "integer", "minimum": 1}},
                "required": ["quantity"]
            }
        }}
    })
}

async fn serve(service: &HttpProcess) -> HttpClient {
    let tools = OpenApi::new(document_3_1(), service.origin())
        .header("X-Service-Key", "configured")
        .forward_header("authorization")
        .tools()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(Server::new("httpbin", "1").tools(tools).serve_http_on(listener, std::future::pending()));
    HttpClient::new(address)
}

fn result(messages: &[Value]) -> &Value {
    &messages.last().expect("an answer")["result"]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_3_1_document_gives_output_schemas_checked_arguments_and_the_callers_header() {
    let service = httpbin();
    let mut client = serve(&service).await.with_bearer("the-callers-token");
    client.initialize().await;

    let listed = client.request(1, "tools/list", json!({})).await;
    let tools = result(&listed)["tools"].as_array().unwrap().clone();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["order", "whoami", "headers"], "sorted by path");
    assert_eq!(tools[1]["outputSchema"]["required"], json!(["authenticated", "token"]));
    assert_eq!(tools[0]["inputSchema"]["properties"]["body"]["properties"]["quantity"]["minimum"], 1);
    assert_eq!(tools[0]["inputSchema"]["required"], json!(["item", "body"]));

    // The MCP client's own bearer token reaches the service.
    let whoami = client.request(2, "tools/call", json!({"name": "whoami", "arguments": {}})).await;
    assert_eq!(result(&whoami)["structuredContent"], json!({"authenticated": true, "token": "the-callers-token"}));

    let arguments = json!({"item": "tea", "note": "green", "body": {"quantity": 2}});
    let ordered = client.request(3, "tools/call", json!({"name": "order", "arguments": arguments})).await;
    let ordered = &result(&ordered)["structuredContent"];
    assert_eq!((&ordered["json"], &ordered["args"]), (&json!({"quantity": 2}), &json!({"note": "green"})));

    // The body's schema is checked before anything is sent.
    let arguments = json!({"item": "tea", "body": {"quantity": 0}});
    let refused = client.request(4, "tools/call", json!({"name": "order", "arguments": arguments})).await;
    assert_eq!(result(&refused)["isError"], true, "{refused:?}");
    assert!(result(&refused)["content"][0]["text"].as_str().unwrap().contains("quantity"));

    let headers = client.request(5, "tools/call", json!({"name": "headers", "arguments": {}})).await;
    let seen = &result(&headers)["structuredContent"]["headers"];
    assert_eq!(
        (&seen["X-Service-Key"], &seen["Authorization"]),
        (&json!("configured"), &json!("Bearer the-callers-token"))
    );
    spec_2025_11_25().assert_all_valid(&client.transcript());
}

#[test]
fn what_is_not_an_openapi_document_is_refused() {
    let error = OpenApi::new(json!({"paths": {}}), "http://127.0.0.1:1").tools().err().unwrap();
    assert!(error.to_string().contains("not an OpenAPI document"), "{error}");
}
