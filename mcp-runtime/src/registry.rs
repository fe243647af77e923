//! The tables the macros describe, built once when the server starts: tools by name, and the
//! `tools/list` pages serialized ahead of time.

use crate::error::Error;
use crate::jsonrpc::ErrorObject;
use crate::tool::descriptor::ToolDescriptor;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::collections::HashMap;

pub(crate) struct ToolRegistry {
    tools: Vec<ToolDescriptor>,
    by_name: HashMap<&'static str, usize>,
    /// `tools/list` results, one per page, ready to send.
    pages: Vec<Box<RawValue>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ListedTool<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    input_schema: Map<String, Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_schema: Option<Map<String, Value>>,
    #[serde(skip_serializing_if = "crate::tool::ToolAnnotations::is_empty")]
    annotations: crate::tool::ToolAnnotations,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    icons: &'a [crate::tool::Icon],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ListPage<'a> {
    tools: &'a [&'a RawValue],
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
}

impl ToolRegistry {
    /// `page_size` of `None` lists every tool on one page.
    pub fn new(tools: Vec<ToolDescriptor>, page_size: Option<usize>) -> Result<Self, Error> {
        let mut by_name = HashMap::with_capacity(tools.len());
        for (index, tool) in tools.iter().enumerate() {
            if by_name.insert(tool.name, index).is_some() {
                return Err(Error::msg(format!("two tools are named `{}`: tool names must be unique", tool.name)));
            }
        }
        let listed: Vec<Box<RawValue>> = tools.iter().map(serialize_tool).collect::<Result<_, _>>()?;
        let listed: Vec<&RawValue> = listed.iter().map(|b| &**b).collect();
        let page_size = page_size.unwrap_or(usize::MAX).max(1);
        let chunks: Vec<&[&RawValue]> = if listed.is_empty() { vec![&[]] } else { listed.chunks(page_size).collect() };
        let pages = chunks
            .iter()
            .enumerate()
            .map(|(i, chunk)| {
                let next_cursor = (i + 1 < chunks.len()).then(|| (i + 1).to_string());
                to_raw(&ListPage { tools: chunk, next_cursor })
            })
            .collect::<Result<_, _>>()?;
        Ok(Self { tools, by_name, pages })
    }

    pub fn get(&self, name: &str) -> Option<&ToolDescriptor> {
        self.by_name.get(name).map(|&i| &self.tools[i])
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The `tools/list` page a cursor points at (cursors are page numbers, opaque to clients).
    pub fn page(&self, cursor: Option<&str>) -> Result<&RawValue, ErrorObject> {
        let index = match cursor {
            None => 0,
            Some(cursor) => cursor
                .parse::<usize>()
                .ok()
                .filter(|&i| i < self.pages.len())
                .ok_or_else(|| ErrorObject::invalid_params(format!("invalid cursor: {cursor:?}")))?,
        };
        Ok(&self.pages[index])
    }
}

fn serialize_tool(tool: &ToolDescriptor) -> Result<Box<RawValue>, Error> {
    to_raw(&ListedTool {
        name: tool.name,
        title: tool.title,
        description: tool.description,
        input_schema: (tool.input_schema)(),
        output_schema: (tool.output_schema)(),
        annotations: tool.annotations,
        icons: tool.icons,
    })
}

fn to_raw(value: &impl Serialize) -> Result<Box<RawValue>, Error> {
    serde_json::value::to_raw_value(value).map_err(|err| Error::msg(format!("cannot serialize the tool list: {err}")))
}
