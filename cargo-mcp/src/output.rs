//! What `list`, `call`, `read` and `get` print: the results in words for a person, or the
//! protocol's JSON with `--json`.

use crate::arguments::signature;
use serde_json::Value;
use std::fmt::Write as _;

/// A tool call's content as text: each text block on its own, other blocks summarized, and the
/// structured content (pretty JSON) when there is no content to show.
pub fn call_result(result: &Value) -> String {
    let mut out = String::new();
    for block in result.get("content").and_then(Value::as_array).into_iter().flatten() {
        push_line(&mut out, &content_block(block));
    }
    if out.is_empty()
        && let Some(structured) = result.get("structuredContent")
    {
        push_line(&mut out, &pretty(structured));
    }
    out
}

/// `resources/read`'s contents: text as it is, binary ones summarized.
pub fn read_result(result: &Value) -> String {
    let mut out = String::new();
    for contents in result.get("contents").and_then(Value::as_array).into_iter().flatten() {
        push_line(&mut out, &resource_contents(contents));
    }
    out
}

/// `prompts/get`'s messages, one `role: text` block each.
pub fn prompt_result(result: &Value) -> String {
    let mut out = String::new();
    if let Some(description) = result.get("description").and_then(Value::as_str) {
        push_line(&mut out, &format!("# {description}"));
    }
    for message in result.get("messages").and_then(Value::as_array).into_iter().flatten() {
        let role = message.get("role").and_then(Value::as_str).unwrap_or("?");
        let content = message.get("content").map(content_block).unwrap_or_default();
        push_line(&mut out, &format!("{role}: {content}"));
    }
    out
}

/// The lists, one line per item: `add(a: number, b: number)  Add two numbers.`
pub fn lists(tools: &[Value], resources: &[Value], templates: &[Value], prompts: &[Value]) -> String {
    let mut out = String::new();
    let mut section = |title: &str, lines: Vec<(String, String)>| {
        if lines.is_empty() {
            return;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        let _ = writeln!(out, "{title}:");
        let width = lines.iter().map(|(head, _)| head.chars().count()).max().unwrap_or(0);
        for (head, description) in lines {
            let line = format!("  {head:width$}  {description}");
            let _ = writeln!(out, "{}", line.trim_end());
        }
    };
    let describe = |item: &Value| first_line(item.get("description").and_then(Value::as_str).unwrap_or(""));
    let name = |item: &Value, key: &str| item.get(key).and_then(Value::as_str).unwrap_or("?").to_owned();
    section(
        "tools",
        tools
            .iter()
            .map(|t| {
                let args = t.get("inputSchema").map(signature).unwrap_or_default();
                (format!("{}({args})", name(t, "name")), describe(t))
            })
            .collect(),
    );
    section("resources", resources.iter().map(|r| (name(r, "uri"), describe(r))).collect());
    section("resource templates", templates.iter().map(|r| (name(r, "uriTemplate"), describe(r))).collect());
    section(
        "prompts",
        prompts
            .iter()
            .map(|p| {
                let args: Vec<String> = p
                    .get("arguments")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(|a| {
                        let optional = if a.get("required") == Some(&Value::Bool(true)) { "" } else { "?" };
                        format!("{}{optional}", name(a, "name"))
                    })
                    .collect();
                (format!("{}({})", name(p, "name"), args.join(", ")), describe(p))
            })
            .collect(),
    );
    if out.is_empty() {
        out.push_str("the server offers no tools, resources or prompts\n");
    }
    out
}

/// Pretty JSON with a trailing newline, for `--json`.
pub fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("a JSON value always serializes");
    text.push('\n');
    text
}

fn content_block(block: &Value) -> String {
    let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
    let str_of = |key: &str| block.get(key).and_then(Value::as_str).unwrap_or("");
    match kind {
        "text" => str_of("text").to_owned(),
        "image" | "audio" => {
            format!("[{kind} {}, {} bytes of base64]", str_of("mimeType"), str_of("data").len())
        }
        "resource_link" => format!("[link {}]", str_of("uri")),
        "resource" => block.get("resource").map(resource_contents).unwrap_or_default(),
        _ => pretty(block).trim_end().to_owned(),
    }
}

fn resource_contents(contents: &Value) -> String {
    match (contents.get("text").and_then(Value::as_str), contents.get("blob").and_then(Value::as_str)) {
        (Some(text), _) => text.to_owned(),
        (None, Some(blob)) => format!(
            "[{} {}, {} bytes of base64]",
            contents.get("uri").and_then(Value::as_str).unwrap_or(""),
            contents.get("mimeType").and_then(Value::as_str).unwrap_or("binary"),
            blob.len()
        ),
        (None, None) => pretty(contents).trim_end().to_owned(),
    }
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").trim().to_owned()
}

fn push_line(out: &mut String, line: &str) {
    out.push_str(line);
    if !line.ends_with('\n') {
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_call_prints_its_text() {
        assert_eq!(call_result(&json!({"content": [{"type": "text", "text": "5"}]})), "5\n");
        let mixed = json!({"content": [{"type": "text", "text": "a"}, {"type": "image", "mimeType": "image/png", "data": "AAAA"},
            {"type": "resource_link", "uri": "file:///x", "name": "x"}]});
        assert_eq!(call_result(&mixed), "a\n[image image/png, 4 bytes of base64]\n[link file:///x]\n");
        assert_eq!(call_result(&json!({"content": [], "structuredContent": {"x": 1}})), "{\n  \"x\": 1\n}\n");
    }

    #[test]
    fn lists_align_and_skip_empty_sections() {
        let tools = [
            json!({"name": "add", "description": "Add two numbers.\nMore.", "inputSchema": {"type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}}),
            json!({"name": "pi", "inputSchema": {"type": "object"}}),
        ];
        let prompts = [json!({"name": "review", "arguments": [{"name": "code", "required": true}, {"name": "lang"}]})];
        assert_eq!(
            lists(&tools, &[], &[], &prompts),
            "tools:\n  add(a: number, b: number)  Add two numbers.\n  pi()\n\nprompts:\n  review(code, lang?)\n"
        );
    }

    #[test]
    fn prompts_and_resources_print_their_text() {
        let prompt = json!({"description": "Review", "messages": [{"role": "user", "content": {"type": "text", "text": "look"}}]});
        assert_eq!(prompt_result(&prompt), "# Review\nuser: look\n");
        let read = json!({"contents": [{"uri": "a://b", "text": "hello"}, {"uri": "a://c", "mimeType": "image/png", "blob": "AA=="}]});
        assert_eq!(read_result(&read), "hello\n[a://c image/png, 4 bytes of base64]\n");
    }
}
