//! An OpenAPI service as MCP tools (feature `openapi`): [`OpenApi`] reads a Swagger 2.0 or
//! OpenAPI 3.0/3.1 document (`document.rs`, its schemas made JSON Schema 2020-12 by
//! `schema.rs`) and makes each operation a tool built with [`ToolBuilder`](crate::ToolBuilder),
//! whose calls are HTTP requests to the service (`request.rs`).

mod document;
mod forward;
mod request;
mod schema;

pub use document::Operation;

use crate::error::{Error, ErrorKind, Result};
use crate::server::Server;
use crate::tool::{ToolAnnotations, ToolDescriptor, ToolSet};
use document::Body;
use forward::Forwarded;
use request::Service;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Map, Value, json};
use std::collections::HashSet;
use std::sync::Arc;

type Select = Arc<dyn Fn(&Operation) -> Option<String> + Send + Sync>;

/// The operations of an OpenAPI document as tools: one per operation, its path, query, header,
/// cookie and form parameters and its JSON body (the argument `body`) in one input schema with
/// every `$ref` resolved; its successful response as the result (JSON as structured content,
/// with the response's schema as the output schema when the document gives one); a 4xx or 5xx
/// status, or no answer, as a tool error. Swagger 2.0 and OpenAPI 3.0 and 3.1 are read.
///
/// ```no_run
/// use mcp_runtime::Server;
/// use mcp_runtime::openapi::OpenApi;
///
/// # async fn run() -> mcp_runtime::Result<()> {
/// let document = OpenApi::load("https://petstore3.swagger.io/api/v3/openapi.json").await?;
/// let pets = OpenApi::new(document, "https://petstore3.swagger.io/api/v3")
///     .header("api_key", std::env::var("PETSTORE_KEY").unwrap_or_default())
///     .select(|operation| (operation.method == "get").then(|| operation.name.clone()))
///     .tools()?;
/// Server::new("petstore", "1.0").tools(pets).serve_stdio().await
/// # }
/// ```
///
/// Redirects are not followed: a 3xx is a result that says where it points. A response larger
/// than 8 MiB is a tool error.
#[must_use = "an OpenApi does nothing until `tools` is called"]
pub struct OpenApi {
    document: Value,
    base_url: String,
    headers: Vec<(String, String)>,
    forwarded: Vec<String>,
    select: Option<Select>,
}

impl OpenApi {
    /// The operations of `document`, called at `base_url` (`https://api.example.com/v1`: each
    /// operation's path follows it; the document's own `servers` or `host` are not used).
    pub fn new(document: Value, base_url: impl Into<String>) -> Self {
        let base_url = base_url.into().trim_end_matches('/').to_owned();
        Self { document, base_url, headers: Vec::new(), forwarded: Vec::new(), select: None }
    }

    /// Reads a document from `source`: an `http://` or `https://` URL, else a file's path (JSON).
    pub async fn load(source: &str) -> Result<Value> {
        let failed =
            |why: String| Error::new(ErrorKind::Config, format!("cannot read the OpenAPI document {source}: {why}"));
        let text = if source.starts_with("http://") || source.starts_with("https://") {
            let response = http_client()?.get(source).send().await.map_err(|e| failed(e.to_string()))?;
            let response = response.error_for_status().map_err(|e| failed(e.to_string()))?;
            response.text().await.map_err(|e| failed(e.to_string()))?
        } else {
            std::fs::read_to_string(source).map_err(|e| failed(e.to_string()))?
        };
        serde_json::from_str(&text).map_err(|e| failed(format!("not JSON: {e}")))
    }

    /// Sends this header with every call (an API key, a service token); it replaces an argument
    /// of the same name.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Passes this header of the MCP client's HTTP request (`authorization`, say) on to the
    /// service, replacing an argument or [`header`](Self::header) of the same name, when the call
    /// came over Streamable HTTP (feature `http`) with it.
    pub fn forward_header(mut self, name: impl Into<String>) -> Self {
        self.forwarded.push(name.into());
        self
    }

    /// Which operations become tools, and their names: `select` returns the tool's name (usually
    /// [`Operation::name`]) or `None` to leave the operation out. Without it, every operation is
    /// a tool named [`Operation::name`] (a name two operations share gets `_2`, `_3`...).
    pub fn select(mut self, select: impl Fn(&Operation) -> Option<String> + Send + Sync + 'static) -> Self {
        self.select = Some(Arc::new(select));
        self
    }

    /// The tools; an error of kind [`Config`](ErrorKind::Config) when the document is not an
    /// OpenAPI document, a header is not a valid header, or a chosen name is not a tool name.
    pub fn tools(self) -> Result<ToolSet> {
        let invalid = |what: String| Error::new(ErrorKind::Config, what);
        let mut headers = HeaderMap::new();
        for (name, value) in &self.headers {
            let name = HeaderName::try_from(name).map_err(|e| invalid(format!("header `{name}`: {e}")))?;
            let value = HeaderValue::try_from(value).map_err(|e| invalid(format!("header `{name}`: {e}")))?;
            headers.insert(name, value);
        }
        let forwarded = self
            .forwarded
            .iter()
            .map(|name| HeaderName::try_from(name).map_err(|e| invalid(format!("header `{name}`: {e}"))))
            .collect::<Result<Vec<_>>>()?;
        let service = Arc::new(Service { client: http_client()?, base_url: self.base_url, headers });
        let forwarded = Forwarded::new(forwarded);
        let mut taken = HashSet::new();
        let mut tools = Vec::new();
        for operation in document::operations(&self.document)? {
            let name = match &self.select {
                Some(select) => match select(&operation) {
                    Some(name) => name,
                    None => continue,
                },
                None => unique(&operation.name, &taken),
            };
            taken.insert(name.clone());
            tools.push(tool(name, operation, &service, &forwarded)?);
        }
        Ok(tools.into_iter().collect())
    }
}

impl Server {
    /// Serves each operation of an OpenAPI document (Swagger 2.0, OpenAPI 3.0 or 3.1) as a tool
    /// calling the service at `base_url` (feature `openapi`); [`OpenApi`] chooses the operations,
    /// their names and the headers sent.
    pub fn openapi(self, document: Value, base_url: &str) -> Result<Self> {
        Ok(self.tools(OpenApi::new(document, base_url).tools()?))
    }
}

/// `name`, or `name_2`, `name_3`... when taken.
fn unique(name: &str, taken: &HashSet<String>) -> String {
    let mut candidate = name.to_owned();
    let mut n = 2;
    while taken.contains(&candidate) {
        candidate = format!("{name}_{n}");
        n += 1;
    }
    candidate
}

/// The tool of one operation.
fn tool(name: String, operation: Operation, service: &Arc<Service>, forwarded: &Forwarded) -> Result<ToolDescriptor> {
    let method = operation.method.as_str();
    let annotations = ToolAnnotations {
        read_only: Some(matches!(method, "get" | "head" | "options")),
        destructive: Some(method == "delete"),
        idempotent: Some(matches!(method, "get" | "head" | "options" | "put" | "delete")),
        open_world: Some(true),
    };
    let description = match (&operation.summary, &operation.description) {
        (Some(summary), Some(description)) if summary != description => format!("{summary}\n\n{description}"),
        (Some(text), _) | (None, Some(text)) => text.clone(),
        (None, None) => format!("{} {}", method.to_uppercase(), operation.path),
    };
    let mut builder = ToolDescriptor::builder(name)
        .description(description)
        .annotations(annotations)
        .input_schema(input_schema(&operation));
    if let Some(schema) = &operation.response_schema {
        builder = builder.output_schema(output_schema(schema.clone()));
    }
    let (operation, service, forwarding) = (Arc::new(operation), Arc::clone(service), forwarded.clone());
    let mut tool = builder
        .handler(move |arguments, ctx| {
            let (operation, service) = (Arc::clone(&operation), Arc::clone(&service));
            let caller = forwarding.headers(&ctx);
            async move { request::call(&service, &operation, &arguments, caller).await }
        })
        .build()?;
    forwarded.mark(&mut tool);
    Ok(tool)
}

/// The operation's arguments as one object schema.
fn input_schema(operation: &Operation) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for parameter in &operation.parameters {
        properties.insert(parameter.property.clone(), parameter.schema.clone());
        if parameter.required {
            required.push(Value::from(parameter.property.clone()));
        }
    }
    if let Some(Body { property, required: body_required, schema }) = &operation.body {
        let mut schema = schema.clone();
        if let Some(schema) = schema.as_object_mut() {
            schema.entry("description").or_insert_with(|| "The request's JSON body".into());
        }
        properties.insert(property.clone(), schema);
        if *body_required {
            required.push(Value::from(property.clone()));
        }
    }
    let mut schema = json!({ "type": "object", "properties": properties });
    if !required.is_empty() {
        schema["required"] = Value::Array(required);
    }
    schema
}

/// The response's schema as an output schema, which must be an object's: another is wrapped as
/// `{"result": ...}`, as [`Json`](crate::Json) wraps the value.
fn output_schema(schema: Value) -> Value {
    if schema.get("type").and_then(Value::as_str) == Some("object") {
        return schema;
    }
    json!({ "type": "object", "properties": { "result": schema }, "required": ["result"] })
}

/// The HTTP client of the calls: the runtime's outgoing TLS, no redirects followed.
fn http_client() -> Result<reqwest::Client> {
    let tls = crate::outbound_tls::client_config()
        .map_err(|e| Error::new(ErrorKind::Tls, "cannot set up TLS for the OpenAPI service").with_source(e))?;
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("mcp-runtime/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| Error::new(ErrorKind::Config, "cannot build the OpenAPI service's HTTP client").with_source(e))
}
