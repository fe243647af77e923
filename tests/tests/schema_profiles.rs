//! Tool schemas in the form each client accepts (`SchemaProfile`): one test per profile, with
//! the client named in `initialize` (2025-11-25) and in `_meta` (2026-07-28). Each checks the
//! profile's rules on every schema the server lists (written below as checkers), that the
//! shapes still accept and refuse the same sample arguments as what schemars derived (validated
//! with `jsonschema`, where a profile documents no difference), and that results validate
//! against the output schemas. Every message is validated against the official schemas.

// `place_order` takes one argument of each kind a schema shapes; the lint fires on the code
// `#[mcp_tool]` generates for it, where an `allow` on the function does not reach.
#![allow(clippy::too_many_arguments)]

use mcp_runtime::prelude::*;
use mcp_runtime::testing::{TestClient, TestServer};
use mcp_runtime::{ProtocolVersion, SchemaProfile};
use mcp_tests::{spec_2025_11_25, spec_2026_07_28};
use serde_json::{Map, Value, json};

/// Where to send a parcel.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Address {
    /// Street and number
    street: String,
    /// Postal code
    zip: Option<String>,
    /// Floor (0 for the ground floor)
    floor: u8,
}

/// How soon.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Priority {
    Low,
    High,
}

/// What an order costs.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Receipt {
    id: u64,
    total: f32,
    discount: Option<u16>,
    priority: Priority,
    shipping: Address,
}

/// Places an order.
#[mcp_tool]
fn place_order(
    /// Who orders
    customer: String,
    /// How many
    quantity: u32,
    /// Kilograms
    weight: f64,
    priority: Priority,
    /// Where to ship
    shipping: Address,
    /// Where to bill, if not the shipping address
    billing: Option<Address>,
    rush: Option<Priority>,
    tags: Vec<String>,
    offset: i32,
) -> Json<Receipt> {
    let _ = (customer, weight, billing, rush, tags, offset);
    Json(Receipt { id: 7, total: quantity as f32 * 2.5, discount: None, priority, shipping })
}

/// A section of a document, with its subsections: a recursive type.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Section {
    title: String,
    children: Vec<Section>,
}

/// Returns the outline it is given.
#[mcp_tool]
fn outline(root: Section) -> Json<Section> {
    Json(root)
}

/// Hand-written schema: sent as written to every client.
#[mcp_tool(
    input_schema = r##"{"type": "object", "properties": {"p": {"$ref": "#/$defs/P"}}, "$defs": {"P": {"type": "string", "format": "uint32"}}}"##
)]
fn by_hand(p: String) -> String {
    p
}

fn server() -> Server {
    server!().tools(tools![place_order, outline, by_hand])
}

/// The tools a client named `name` is listed, in both eras; the two lists must agree.
async fn listed(server: Server, name: &str) -> Vec<Value> {
    let server = TestServer::start(server);
    let session = TestClient::options().client_name(name).connect_to(&server).await;
    let tools = session.list_tools().await.unwrap();
    spec_2025_11_25().assert_all_valid(&session.transcript());

    let stateless = server.connect_uninitialized();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": ProtocolVersion::V2026_07_28.as_str(),
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": name, "version": "1"},
    });
    let result = stateless.request("tools/list", json!({"_meta": meta})).await.unwrap();
    spec_2026_07_28().assert_all_valid(&stateless.transcript());
    assert_eq!(result["tools"].as_array().unwrap(), &tools, "both eras list the same schemas for {name}");
    tools
}

fn tool<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools.iter().find(|t| t["name"] == name).unwrap_or_else(|| panic!("no tool {name}"))
}

/// What schemars derived, for comparison: a server forcing `Full`.
async fn originals() -> Vec<Value> {
    listed(server().schema_profile(SchemaProfile::Full), "anyone").await
}

// ---- the profiles' rules, as checkers ------------------------------------------------------

/// Calls `visit` with the path and each subschema of `schema` (the values of `properties`,
/// `items`, `anyOf`...), never data such as `enum` or `default`.
fn each_schema(schema: &Value, path: &str, visit: &mut dyn FnMut(&str, &Map<String, Value>)) {
    let Value::Object(map) = schema else { return };
    visit(path, map);
    for (key, value) in map {
        let at = format!("{path}/{key}");
        match key.as_str() {
            "items" | "additionalProperties" | "not" | "if" | "then" | "else" | "contains" | "propertyNames" => {
                each_schema(value, &at, visit)
            }
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                for (i, member) in value.as_array().into_iter().flatten().enumerate() {
                    each_schema(member, &format!("{at}/{i}"), visit);
                }
            }
            "properties" | "$defs" | "patternProperties" => {
                for (name, member) in value.as_object().into_iter().flatten() {
                    each_schema(member, &format!("{at}/{name}"), visit);
                }
            }
            _ => {}
        }
    }
}

/// The rule violations `rule` finds in every schema of every tool.
fn violations(tools: &[Value], rule: fn(&str, &Map<String, Value>, &mut Vec<String>)) -> Vec<String> {
    let mut found = Vec::new();
    for tool in tools {
        if tool["name"] == "by_hand" {
            continue; // written by hand: as written
        }
        for key in ["inputSchema", "outputSchema"] {
            if let Some(schema) = tool.get(key) {
                let path = format!("{}.{key}", tool["name"].as_str().unwrap());
                each_schema(schema, &path, &mut |at, map| rule(at, map, &mut found));
            }
        }
    }
    found
}

fn input_violations(tools: &[Value], rule: fn(&str, &Map<String, Value>, &mut Vec<String>)) -> Vec<String> {
    let inputs: Vec<Value> =
        tools.iter().map(|t| json!({"name": t["name"], "inputSchema": t["inputSchema"]})).collect();
    violations(&inputs, rule)
}

const STANDARD_FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

fn types(map: &Map<String, Value>) -> Vec<&str> {
    match map.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    }
}

/// Cursor, opencode, Kiro: no `$ref` they must resolve, but where a recursive type repeats
/// (into `$defs` of the same schema, which keeps that definition only).
fn cursor_rules(at: &str, map: &Map<String, Value>, found: &mut Vec<String>) {
    if let Some(reference) = map.get("$ref").and_then(Value::as_str)
        && reference != "#/$defs/Section"
        && reference != "#"
    {
        found.push(format!("{at}: $ref {reference}"));
    }
    if let Some(Value::Object(defs)) = map.get("$defs")
        && defs.keys().any(|k| k != "Section")
    {
        found.push(format!("{at}: $defs beyond the recursive type: {:?}", defs.keys().collect::<Vec<_>>()));
    }
}

/// The MCP Inspector (Ajv, `--strict`): no format JSON Schema does not define, no `type` array
/// (its `type-union` warning: a union is spelled `anyOf`).
fn inspector_rules(at: &str, map: &Map<String, Value>, found: &mut Vec<String>) {
    if let Some(format) = map.get("format").and_then(Value::as_str)
        && !STANDARD_FORMATS.contains(&format)
    {
        found.push(format!("{at}: format {format}"));
    }
    if let Some(Value::Array(kinds)) = map.get("type") {
        found.push(format!("{at}: type {kinds:?}"));
    }
}

/// VS Code's validator: no `$schema` (it refuses 2020-12's meta-schema), arrays with `items`.
fn vscode_rules(at: &str, map: &Map<String, Value>, found: &mut Vec<String>) {
    if map.contains_key("$schema") {
        found.push(format!("{at}: $schema"));
    }
    if types(map).contains(&"array") && !map.contains_key("items") && !map.contains_key("prefixItems") {
        found.push(format!("{at}: an array without items"));
    }
}

/// Anthropic's API (Claude Desktop, Claude Code): no `oneOf`/`anyOf`/`allOf` at an input
/// schema's root, which must be an object.
fn claude_root(tools: &[Value]) -> Vec<String> {
    let mut found = Vec::new();
    for tool in tools {
        let root = &tool["inputSchema"];
        if root["type"] != "object" || !root["properties"].is_object() {
            found.push(format!("{}: root is not an object with properties", tool["name"]));
        }
        for keyword in ["oneOf", "anyOf", "allOf"] {
            if root.get(keyword).is_some() {
                found.push(format!("{}: {keyword} at the root", tool["name"]));
            }
        }
    }
    found
}

/// Whether `schema` offers `null`: in its `type`, or as a member of its `anyOf`/`oneOf`.
fn offers_null(schema: &Value) -> bool {
    let in_type = match schema.get("type") {
        Some(Value::Array(kinds)) => kinds.contains(&json!("null")),
        kind => kind == Some(&json!("null")),
    };
    let in_union = ["anyOf", "oneOf"].iter().any(|keyword| {
        schema.get(keyword).and_then(Value::as_array).is_some_and(|members| members.iter().any(offers_null))
    });
    in_type || in_union
}

/// The portable form of an input: an optional property (an `Option`) has one type, without
/// `null` (leaving it out says the same).
fn optional_rules(at: &str, map: &Map<String, Value>, found: &mut Vec<String>) {
    let required: Vec<&Value> = map.get("required").and_then(Value::as_array).into_iter().flatten().collect();
    for (name, property) in map.get("properties").and_then(Value::as_object).into_iter().flatten() {
        if !required.contains(&&json!(name)) && offers_null(property) {
            found.push(format!("{at}/properties/{name}: an optional property offers null: {property}"));
        }
    }
}

fn portable_rules(at: &str, map: &Map<String, Value>, found: &mut Vec<String>) {
    cursor_rules(at, map, found);
    inspector_rules(at, map, found);
    vscode_rules(at, map, found);
}

/// Gemini's OpenAPI 3.0 subset (input schemas): its `Schema` object's keywords only (and
/// `x-mcp-header`), one `type`, no references.
fn gemini_rules(at: &str, map: &Map<String, Value>, found: &mut Vec<String>) {
    const KEYWORDS: [&str; 23] = [
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "maxItems",
        "minItems",
        "properties",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "example",
        "anyOf",
        "propertyOrdering",
        "default",
        "items",
        "minimum",
        "maximum",
        "x-mcp-header",
    ];
    for key in map.keys() {
        if !KEYWORDS.contains(&key.as_str()) {
            found.push(format!("{at}: {key}"));
        }
    }
    if let Some(kind) = map.get("type")
        && (!kind.is_string() || kind == "null")
    {
        found.push(format!("{at}: type {kind}"));
    }
    if let Some(format) = map.get("format").and_then(Value::as_str)
        && format != "date-time"
    {
        found.push(format!("{at}: format {format}"));
    }
    if let Some(Value::Array(values)) = map.get("enum")
        && values.contains(&Value::Null)
    {
        found.push(format!("{at}: null in enum"));
    }
}

/// OpenAI's strict mode (input schemas): every object closed and listing all its properties
/// as required, none of the keywords it refuses, only its formats.
fn strict_rules(at: &str, map: &Map<String, Value>, found: &mut Vec<String>) {
    const REFUSED: [&str; 20] = [
        "minLength",
        "maxLength",
        "patternProperties",
        "unevaluatedProperties",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "unevaluatedItems",
        "contains",
        "minContains",
        "maxContains",
        "uniqueItems",
        "not",
        "if",
        "then",
        "else",
        "oneOf",
        "allOf",
        "dependentRequired",
        "dependentSchemas",
    ];
    const FORMATS: [&str; 9] = ["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];
    for key in REFUSED {
        if map.contains_key(key) {
            found.push(format!("{at}: {key}"));
        }
    }
    if let Some(format) = map.get("format").and_then(Value::as_str)
        && !FORMATS.contains(&format)
    {
        found.push(format!("{at}: format {format}"));
    }
    if let Some(Value::Object(properties)) = map.get("properties") {
        if map.get("additionalProperties") != Some(&Value::Bool(false)) {
            found.push(format!("{at}: not closed with additionalProperties: false"));
        }
        let mut required: Vec<&str> =
            map.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        let mut all: Vec<&str> = properties.keys().map(String::as_str).collect();
        required.sort_unstable();
        all.sort_unstable();
        if required != all {
            found.push(format!("{at}: required {required:?}, properties {all:?}"));
        }
    }
}

// ---- samples -------------------------------------------------------------------------------

fn order(changes: Value) -> Value {
    let mut order = json!({
        "customer": "ada", "quantity": 3, "weight": 1.5, "priority": "high",
        "shipping": {"street": "Main 1", "zip": "12345", "floor": 2},
        "billing": {"street": "Side 2", "zip": "99999", "floor": 0},
        "rush": "low", "tags": ["gift"], "offset": -5,
    });
    for (key, value) in changes.as_object().unwrap() {
        match value {
            Value::String(s) if s == "<absent>" => {
                order.as_object_mut().unwrap().remove(key);
            }
            value => order[key] = value.clone(),
        }
    }
    order
}

/// Arguments every form accepts: each argument given.
fn complete() -> Vec<(&'static str, Value)> {
    vec![
        ("place_order", order(json!({}))),
        ("outline", json!({"root": {"title": "a", "children": [{"title": "b", "children": []}]}})),
    ]
}

/// Optional arguments left out.
fn without_optionals() -> Vec<(&'static str, Value)> {
    vec![(
        "place_order",
        order(json!({"billing": "<absent>", "rush": "<absent>", "shipping": {"street": "Main 1", "floor": 2}})),
    )]
}

/// Optional arguments given as `null`.
fn with_nulls() -> Vec<(&'static str, Value)> {
    vec![(
        "place_order",
        order(json!({"billing": null, "rush": null, "shipping": {"street": "Main 1", "zip": null, "floor": 2}})),
    )]
}

/// Arguments every form refuses.
fn refused() -> Vec<(&'static str, Value)> {
    vec![
        ("place_order", order(json!({"quantity": -1}))),
        ("place_order", order(json!({"customer": 5}))),
        ("place_order", order(json!({"priority": "urgent"}))),
        ("place_order", order(json!({"rush": "urgent"}))),
        ("place_order", order(json!({"shipping": {"street": "Main 1", "zip": null, "floor": 256}}))),
        ("place_order", order(json!({"shipping": {"zip": null, "floor": 1}}))),
        ("place_order", order(json!({"billing": {"street": 3, "zip": null, "floor": 1}}))),
        ("place_order", order(json!({"tags": "gift"}))),
        ("place_order", order(json!({"customer": "<absent>"}))),
        ("outline", json!({"root": {"title": 5, "children": []}})),
        ("outline", json!({"root": {"children": []}})),
    ]
}

/// Refused only beyond the first level of the recursive type (Gemini cuts it there).
fn refused_deep() -> Vec<(&'static str, Value)> {
    vec![("outline", json!({"root": {"title": "a", "children": [{"title": 5, "children": []}]}}))]
}

/// Integers beyond their Rust type: the derived schema says so only in its `format` (which a
/// validator does not check), the shapes in `minimum`/`maximum`; serde refuses them.
fn beyond_width() -> Vec<(&'static str, Value)> {
    vec![
        ("place_order", order(json!({"quantity": 4294967296u64}))),
        ("place_order", order(json!({"offset": 2147483648u64}))),
    ]
}

fn accepts(tools: &[Value], name: &str, arguments: &Value) -> bool {
    let schema = &tool(tools, name)["inputSchema"];
    let validator = jsonschema::validator_for(schema).unwrap_or_else(|e| panic!("{name}: not a valid schema: {e}"));
    validator.is_valid(arguments)
}

/// `shaped` gives each sample the same verdict as `original`.
fn same_verdicts(original: &[Value], shaped: &[Value], samples: &[(&str, Value)], profile: &str) {
    for (name, arguments) in samples {
        assert_eq!(
            accepts(original, name, arguments),
            accepts(shaped, name, arguments),
            "{profile}: {name} {arguments} is judged differently\noriginal: {}\nshaped: {}",
            tool(original, name)["inputSchema"],
            tool(shaped, name)["inputSchema"],
        );
    }
}

fn verdicts(tools: &[Value], samples: &[(&str, Value)], expected: bool, profile: &str) {
    for (name, arguments) in samples {
        assert_eq!(
            accepts(tools, name, arguments),
            expected,
            "{profile}: {name} {arguments}: {}",
            tool(tools, name)["inputSchema"]
        );
    }
}

/// What the tools return validates against their output schemas (never narrowed), and the
/// server takes every sample the shapes accept, in `profile`'s session.
async fn results_fit(tools: &[Value], name: &str) {
    let client = TestClient::options().client_name(name).connect(server()).await;
    for (tool_name, arguments) in complete().into_iter().chain(without_optionals()).chain(with_nulls()) {
        let result = client.call_tool(tool_name, arguments.clone()).await.unwrap();
        assert!(!result.is_error, "{tool_name} {arguments}: {result:?}");
        let structured = result.structured_content.expect("structured content");
        let schema = &tool(tools, tool_name)["outputSchema"];
        let validator = jsonschema::validator_for(schema).unwrap();
        assert!(validator.is_valid(&structured), "{name}: {tool_name}'s result {structured} against {schema}");
    }
    for (tool_name, arguments) in beyond_width() {
        let result = client.call_tool(tool_name, arguments).await.unwrap();
        assert!(result.is_error, "serde refuses integers beyond their type");
    }
}

fn assert_none(found: Vec<String>, what: &str) {
    assert!(found.is_empty(), "{what}:\n{}", found.join("\n"));
}

/// The hand-written schema is sent as written, whatever the profile.
fn by_hand_is_verbatim(tools: &[Value]) {
    assert_eq!(tool(tools, "by_hand")["inputSchema"]["$defs"]["P"]["format"], "uint32");
}

// ---- one test per profile ------------------------------------------------------------------

#[tokio::test]
async fn full_sends_what_schemars_derived() {
    let tools = originals().await;
    let order = tool(&tools, "place_order");
    let text = order.to_string();
    for derived in ["\"$ref\"", "\"$defs\"", "\"uint32\"", "\"uint8\"", "\"double\"", "\"int32\"", "\"type\":\"null\""]
    {
        assert!(text.contains(derived), "schemars' {derived} is kept: {text}");
    }
    assert!(!violations(&tools, portable_rules).is_empty(), "the fixture exercises every portable rule");
    by_hand_is_verbatim(&tools);
    verdicts(&tools, &complete(), true, "full");
    verdicts(&tools, &refused(), false, "full");
    verdicts(&tools, &beyond_width(), true, "full (formats are not checked)");
    results_fit(&tools, "anyone").await;
}

#[tokio::test]
async fn the_portable_default_suits_claude_vs_code_cursor_and_the_inspector() {
    let original = originals().await;
    for name in [
        "claude-ai",
        "claude-code",
        "Visual Studio Code",
        "cursor-vscode",
        "inspector-client",
        "mcp-inspector",
        "some-new-client",
    ] {
        let tools = listed(server(), name).await;
        assert_none(violations(&tools, portable_rules), name);
        assert_none(claude_root(&tools), name);
        assert_none(violations(&tools, cursor_rules), name);
        assert_none(violations(&tools, inspector_rules), name);
        assert_none(violations(&tools, vscode_rules), name);
        assert_none(input_violations(&tools, optional_rules), name);
        by_hand_is_verbatim(&tools);
        let all = [complete(), without_optionals(), refused(), refused_deep()].concat();
        same_verdicts(&original, &tools, &all, name);
        // Documented: an optional argument is left out rather than sent as null (the server
        // still accepts null: `results_fit` sends them).
        verdicts(&tools, &with_nulls(), false, name);
        verdicts(&tools, &beyond_width(), false, name);
        results_fit(&tools, name).await;
    }
    // The widths where they say something.
    let tools = listed(server(), "claude-ai").await;
    let properties = &tool(&tools, "place_order")["inputSchema"]["properties"];
    assert_eq!(
        (&properties["quantity"]["minimum"], &properties["quantity"]["maximum"]),
        (&json!(0), &json!(4294967295u32))
    );
    assert_eq!(properties["shipping"]["properties"]["floor"]["maximum"], 255);
    assert_eq!(properties["rush"], json!({"type": "string", "enum": ["low", "high"], "description": "How soon."}));
    assert_eq!(properties["billing"]["type"], "object");
    // An output keeps its nulls (a result carries them), as a union the Inspector's --strict takes.
    let receipt = &tool(&tools, "place_order")["outputSchema"]["properties"];
    assert_eq!(
        receipt["discount"],
        json!({"anyOf": [{"type": "integer", "minimum": 0, "maximum": 65535}, {"type": "null"}]})
    );
    assert_eq!(properties["billing"]["description"], "Where to bill, if not the shipping address");
    let outline = &tool(&tools, "outline")["inputSchema"];
    assert_eq!(outline["$defs"].as_object().unwrap().keys().collect::<Vec<_>>(), ["Section"]);
}

#[tokio::test]
async fn gemini_gets_its_openapi_subset() {
    let original = originals().await;
    let tools = listed(server(), "gemini-cli-mcp-client").await;
    assert_none(input_violations(&tools, gemini_rules), "gemini");
    assert_none(claude_root(&tools), "gemini");
    // Outputs are for validators: the portable form, never narrowed.
    let outputs: Vec<Value> =
        tools.iter().map(|t| json!({"name": t["name"], "outputSchema": t["outputSchema"]})).collect();
    assert_none(violations(&outputs, portable_rules), "gemini outputs");
    by_hand_is_verbatim(&tools);
    let same = [complete(), without_optionals(), refused()].concat();
    same_verdicts(&original, &tools, &same, "gemini");
    // Documented: an optional argument is left out rather than sent as null, and a recursive
    // type is cut below its first level (the server still checks both).
    verdicts(&tools, &with_nulls(), false, "gemini");
    verdicts(&tools, &refused_deep(), true, "gemini");
    verdicts(&tools, &beyond_width(), false, "gemini");
    let properties = &tool(&tools, "place_order")["inputSchema"]["properties"];
    assert_eq!(
        properties["rush"],
        json!({"type": "string", "enum": ["low", "high"], "nullable": true, "description": "How soon."})
    );
    results_fit(&tools, "gemini-cli-mcp-client").await;
}

#[tokio::test]
async fn openai_strict_is_given_to_the_clients_named_for_it() {
    let original = originals().await;
    let strict = || server().schema_profile_for("my-gateway", SchemaProfile::OpenAiStrict);
    let tools = listed(strict(), "My-Gateway").await;
    assert_none(input_violations(&tools, strict_rules), "strict");
    assert_none(claude_root(&tools), "strict");
    let outputs: Vec<Value> =
        tools.iter().map(|t| json!({"name": t["name"], "outputSchema": t["outputSchema"]})).collect();
    assert_none(violations(&outputs, portable_rules), "strict outputs");
    by_hand_is_verbatim(&tools);
    let same = [complete(), with_nulls(), refused(), refused_deep()].concat();
    same_verdicts(&original, &tools, &same, "strict");
    // Documented: every property is required (nullable where optional).
    verdicts(&tools, &without_optionals(), false, "strict");
    verdicts(&tools, &beyond_width(), false, "strict");
    // Other clients of that server still get the default.
    let others = listed(strict(), "claude-ai").await;
    assert_none(violations(&others, portable_rules), "claude-ai beside a strict client");
    assert_eq!(SchemaProfile::for_client("openai-mcp"), SchemaProfile::Portable, "not given unless named");
    results_fit(&tools, "my-gateway").await;
}

#[tokio::test]
async fn the_builder_override_wins() {
    let original = originals().await;
    // Forced for everyone, over the table and over a name given for a client.
    let forced = || server().schema_profile_for("claude-ai", SchemaProfile::Gemini).schema_profile(SchemaProfile::Full);
    for name in ["gemini-cli-mcp-client", "claude-ai", "cursor-vscode"] {
        assert_eq!(listed(forced(), name).await, original, "{name} gets the forced profile");
    }
    // A name given for a client wins over the table.
    let named = listed(server().schema_profile_for("claude-ai", SchemaProfile::Gemini), "claude-ai").await;
    assert_eq!(named, listed(server(), "gemini-cli-mcp-client").await);
    let unnamed =
        listed(server().schema_profile_for("gemini-cli-mcp-client", SchemaProfile::Portable), "gemini-cli-mcp-client")
            .await;
    assert_eq!(unnamed, listed(server(), "cursor-vscode").await);
    // A client that says nothing about itself gets the default, or the forced profile.
    let server = TestServer::start(server().schema_profile(SchemaProfile::Gemini));
    let stateless = server.connect_uninitialized();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let result = stateless.request("tools/list", json!({"_meta": meta})).await.unwrap();
    assert_eq!(result["tools"].as_array().unwrap(), &listed(self::server(), "gemini-cli-mcp-client").await);
}
