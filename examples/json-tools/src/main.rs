//! An MCP server made only from a JSON file of tool definitions: no tool is written in Rust.
//!
//! Each definition has a `name`, an optional `title`, `description`, `annotations`, an
//! `inputSchema` (its constraints are checked before the tool runs) and `outputSchema`, and what
//! the tool does: an `answer` (a text, or a JSON value for structured output, whose `{argument}`
//! placeholders are filled in) or a `command` (a program and its arguments, run without a
//! shell, placeholders filled in; its standard output is the result, a failure a tool error).
//!
//! ```text
//! cargo run -p json-tools -- examples/json-tools/tools.json
//! ```

use mcp_runtime::{CallToolResult, Content, IntoToolResult, Json, ToolAnnotations, ToolDescriptor, ToolSet, server};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::path::PathBuf;

/// The file: `{"tools": [...]}`.
#[derive(Deserialize)]
struct Definitions {
    tools: Vec<Definition>,
}

/// One tool.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Definition {
    name: String,
    title: Option<String>,
    description: Option<String>,
    #[serde(default)]
    annotations: ToolAnnotations,
    input_schema: Option<Value>,
    output_schema: Option<Value>,
    #[serde(flatten)]
    action: Action,
}

/// What a call does.
#[derive(Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
enum Action {
    /// Answers this value, its placeholders filled in.
    Answer(Value),
    /// Runs this program with these arguments, placeholders filled in.
    Command(Vec<String>),
}

impl Definition {
    fn into_tool(self) -> mcp_runtime::Result<ToolDescriptor> {
        let mut tool = ToolDescriptor::builder(self.name).annotations(self.annotations);
        if let Some(title) = self.title {
            tool = tool.title(title);
        }
        if let Some(description) = self.description {
            tool = tool.description(description);
        }
        if let Some(schema) = self.input_schema {
            tool = tool.input_schema(schema);
        }
        let structured = self.output_schema.is_some();
        if let Some(schema) = self.output_schema {
            tool = tool.output_schema(schema);
        }
        let action = self.action;
        tool.handler(move |arguments, _ctx| {
            let action = action.clone();
            async move {
                match action {
                    Action::Answer(Value::String(text)) if !structured => {
                        CallToolResult::success([Content::text(fill_text(&text, &arguments))])
                    }
                    Action::Answer(value) => Json(fill(value, &arguments)).into_tool_result(),
                    Action::Command(argv) => run(&argv, &arguments).await,
                }
            }
        })
        .build()
    }
}

/// `value` with each string's placeholders filled in; a string that is one placeholder alone
/// (`"{quantity}"`) becomes the argument itself, keeping its type.
fn fill(value: Value, arguments: &Map<String, Value>) -> Value {
    match value {
        Value::String(text) => {
            let alone = text.strip_prefix('{').and_then(|t| t.strip_suffix('}')).and_then(|name| arguments.get(name));
            match alone {
                Some(argument) => argument.clone(),
                None => Value::String(fill_text(&text, arguments)),
            }
        }
        Value::Array(items) => Value::Array(items.into_iter().map(|item| fill(item, arguments)).collect()),
        Value::Object(map) => Value::Object(map.into_iter().map(|(key, item)| (key, fill(item, arguments))).collect()),
        other => other,
    }
}

/// `text` with each `{name}` of an argument replaced by its value (a string as it is, anything
/// else as JSON); other braces are left alone.
fn fill_text(text: &str, arguments: &Map<String, Value>) -> String {
    let mut filled = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        filled.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let argument = after.find('}').and_then(|close| Some((arguments.get(&after[..close])?, close)));
        let Some((value, close)) = argument else {
            filled.push('{');
            rest = after;
            continue;
        };
        match value {
            Value::String(value) => filled.push_str(value),
            value => filled.push_str(&value.to_string()),
        }
        rest = &after[close + 1..];
    }
    filled.push_str(rest);
    filled
}

/// Runs the command; its standard output is the result, a failure to start or a non-zero exit
/// a tool error with its standard error.
async fn run(argv: &[String], arguments: &Map<String, Value>) -> CallToolResult {
    let Some((program, args)) = argv.split_first() else {
        return CallToolResult::error("the tool's `command` is empty");
    };
    let output = tokio::process::Command::new(program)
        .args(args.iter().map(|arg| fill_text(arg, arguments)))
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output()
        .await;
    match output {
        Ok(output) if output.status.success() => {
            CallToolResult::success([Content::text(String::from_utf8_lossy(&output.stdout).trim_end())])
        }
        Ok(output) => CallToolResult::error(format!(
            "`{program}` failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim_end()
        )),
        Err(error) => CallToolResult::error(format!("cannot run `{program}`: {error}")),
    }
}

#[mcp_runtime::main]
async fn main() -> mcp_runtime::Result<()> {
    mcp_runtime::logging::init();
    let path = std::env::args_os().nth(1).map_or_else(|| PathBuf::from("tools.json"), PathBuf::from);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| mcp_runtime::Error::msg(format!("cannot read {}: {e}", path.display())))?;
    let definitions: Definitions = serde_json::from_str(&text)
        .map_err(|e| mcp_runtime::Error::msg(format!("{} is not a file of tool definitions: {e}", path.display())))?;
    let tools: ToolSet =
        definitions.tools.into_iter().map(Definition::into_tool).collect::<mcp_runtime::Result<_>>()?;
    server!().tools(tools).serve_stdio().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn placeholders_are_filled_and_a_lone_one_keeps_its_type() {
        let arguments = json!({"item": "tea", "quantity": 3}).as_object().cloned().unwrap();
        assert_eq!(fill_text("{quantity} x {item} {unknown} {", &arguments), "3 x tea {unknown} {");
        let filled = fill(json!({"line": "{quantity} x {item}", "quantity": "{quantity}"}), &arguments);
        assert_eq!(filled, json!({"line": "3 x tea", "quantity": 3}));
    }
}
