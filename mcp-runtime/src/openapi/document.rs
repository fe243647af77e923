//! The operations of an OpenAPI document (Swagger 2.0, OpenAPI 3.0 and 3.1), each read into
//! what a tool needs: its parameters with their places, its body, its response's schema.

use super::schema::{follow, resolve};
use crate::error::{Error, ErrorKind, Result};
use serde_json::{Map, Value, json};

/// The HTTP methods an OpenAPI path item may hold operations under.
const METHODS: [&str; 8] = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/// One operation of the document: what [`OpenApi::select`](super::OpenApi::select) sees to pick
/// the operations served and name their tools.
#[derive(Clone, Debug)]
pub struct Operation {
    /// The HTTP method, in lower case: `get`.
    pub method: String,
    /// The path template: `/pets/{id}`.
    pub path: String,
    /// Its `operationId`, if the document gives one.
    pub operation_id: Option<String>,
    /// Its `summary`.
    pub summary: Option<String>,
    /// Its `tags`.
    pub tags: Vec<String>,
    /// The tool's name unless the selection gives another: the `operationId`, else the method
    /// and the path (`get_pets_id`), in the characters a tool name may have.
    pub name: String,
    pub(super) description: Option<String>,
    pub(super) parameters: Vec<Parameter>,
    pub(super) body: Option<Body>,
    pub(super) response_schema: Option<Value>,
}

/// Where a parameter goes in the HTTP request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Place {
    Path,
    Query,
    Header,
    Cookie,
    /// A field of a form-encoded body (Swagger's `formData`, a 3.x form body's properties).
    Form,
}

/// One argument of the tool: a property of its input schema, sent as the parameter `name`.
#[derive(Clone, Debug)]
pub(super) struct Parameter {
    /// The input schema's property.
    pub property: String,
    /// The name on the wire.
    pub name: String,
    pub place: Place,
    pub required: bool,
    pub schema: Value,
}

/// A JSON request body, given as the argument `body`.
#[derive(Clone, Debug)]
pub(super) struct Body {
    pub property: String,
    pub required: bool,
    pub schema: Value,
}

/// The operations of `document`, by path (sorted: a JSON object keeps no order here), then method.
pub(super) fn operations(document: &Value) -> Result<Vec<Operation>> {
    let swagger = document.get("swagger").and_then(Value::as_str).is_some_and(|v| v.starts_with('2'));
    let openapi = document.get("openapi").and_then(Value::as_str).is_some_and(|v| v.starts_with('3'));
    if !swagger && !openapi {
        return Err(Error::new(
            ErrorKind::Config,
            "not an OpenAPI document: it says neither `\"swagger\": \"2.0\"` nor `\"openapi\": \"3.x\"`",
        ));
    }
    let Some(paths) = document.get("paths").and_then(Value::as_object) else {
        return Err(Error::new(ErrorKind::Config, "the OpenAPI document has no `paths`"));
    };
    let mut operations = Vec::new();
    for (path, item) in paths {
        let item = follow(item, document);
        let shared = item.get("parameters").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        for method in METHODS {
            if let Some(operation) = item.get(method).and_then(Value::as_object) {
                operations.push(read(document, path, method, operation, shared));
            }
        }
    }
    Ok(operations)
}

fn read(document: &Value, path: &str, method: &str, operation: &Map<String, Value>, shared: &[Value]) -> Operation {
    let text = |key: &str| operation.get(key).and_then(Value::as_str).map(str::to_owned);
    let own = operation.get("parameters").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let declared: Vec<&Value> = own.iter().map(|p| follow(p, document)).collect();
    // A path-level parameter applies unless the operation redefines it (same name and place).
    let inherited = shared
        .iter()
        .map(|p| follow(p, document))
        .filter(|p| !declared.iter().any(|d| d.get("name") == p.get("name") && d.get("in") == p.get("in")));
    let mut parameters = Vec::new();
    let mut body = None;
    for parameter in inherited.chain(declared.iter().copied()) {
        match parameter.get("in").and_then(Value::as_str) {
            // Swagger 2.0's body parameter.
            Some("body") => {
                let required = parameter.get("required") == Some(&Value::Bool(true));
                let schema = parameter.get("schema").map_or_else(|| json!({}), |s| resolve(s, document));
                body = Some(Body { property: "body".into(), required, schema });
            }
            Some(place) => parameters.extend(self::parameter(document, place, parameter)),
            None => {}
        }
    }
    if let Some(request_body) = operation.get("requestBody") {
        read_request_body(document, follow(request_body, document), &mut parameters, &mut body);
    }
    // Template variables the document forgot to declare are still needed to make the URL.
    for variable in path_variables(path) {
        if !parameters.iter().any(|p| p.place == Place::Path && p.name == variable) {
            let schema = json!({ "type": "string" });
            parameters.push(Parameter {
                property: variable.clone(),
                name: variable,
                place: Place::Path,
                required: true,
                schema,
            });
        }
    }
    unique_properties(&mut parameters, body.as_mut());
    let operation_id = text("operationId");
    let name = tool_name(operation_id.as_deref().unwrap_or(&format!("{method}_{path}")));
    Operation {
        method: method.to_owned(),
        path: path.to_owned(),
        summary: text("summary"),
        description: text("description"),
        tags: operation
            .get("tags")
            .and_then(Value::as_array)
            .map(|tags| tags.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default(),
        operation_id,
        name,
        parameters,
        body,
        response_schema: response_schema(document, operation),
    }
}

/// A path, query, header, cookie or form parameter, with its schema (3.x `schema`, or 2.0's
/// keywords on the parameter itself).
fn parameter(document: &Value, place: &str, parameter: &Value) -> Option<Parameter> {
    let place = match place {
        "path" => Place::Path,
        "query" => Place::Query,
        "header" => Place::Header,
        "cookie" => Place::Cookie,
        "formData" => Place::Form,
        _ => return None,
    };
    let name = parameter.get("name")?.as_str()?.to_owned();
    let mut schema = match parameter.get("schema") {
        Some(schema) => resolve(schema, document),
        None => swagger_schema(parameter, document),
    };
    if let (Some(schema), Some(description)) = (schema.as_object_mut(), parameter.get("description")) {
        schema.entry("description").or_insert_with(|| description.clone());
    }
    let required = place == Place::Path || parameter.get("required") == Some(&Value::Bool(true));
    Some(Parameter { property: name.clone(), name, place, required, schema })
}

/// A Swagger 2.0 parameter's schema, from the JSON Schema keywords it carries itself (a path
/// parameter without a type is a string).
fn swagger_schema(parameter: &Value, document: &Value) -> Value {
    const KEYWORDS: [&str; 16] = [
        "type",
        "format",
        "items",
        "enum",
        "default",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "pattern",
        "minItems",
        "maxItems",
        "uniqueItems",
        "multipleOf",
    ];
    let mut schema: Map<String, Value> =
        KEYWORDS.iter().filter_map(|key| Some(((*key).to_owned(), parameter.get(*key)?.clone()))).collect();
    match schema.get("type").and_then(Value::as_str) {
        None => {
            schema.insert("type".into(), "string".into());
        }
        // A file upload: its content, as text.
        Some("file") => {
            schema.insert("type".into(), "string".into());
        }
        Some(_) => {}
    }
    resolve(&Value::Object(schema), document)
}

/// A 3.x `requestBody`: JSON as the argument `body`; a form's properties as arguments of their own.
fn read_request_body(document: &Value, request_body: &Value, parameters: &mut Vec<Parameter>, body: &mut Option<Body>) {
    let required = request_body.get("required") == Some(&Value::Bool(true));
    let Some(content) = request_body.get("content").and_then(Value::as_object) else { return };
    let json = content.iter().find(|(mime, _)| mime.contains("json"));
    if let Some((_, media)) = json {
        let schema = media.get("schema").map_or_else(|| json!({}), |s| resolve(s, document));
        *body = Some(Body { property: "body".into(), required, schema });
        return;
    }
    let Some(form) = content.get("application/x-www-form-urlencoded").or_else(|| content.get("multipart/form-data"))
    else {
        return;
    };
    let schema = form.get("schema").map_or_else(|| json!({}), |s| resolve(s, document));
    let fields_required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (name, field) in schema.get("properties").and_then(Value::as_object).into_iter().flatten() {
        parameters.push(Parameter {
            property: name.clone(),
            name: name.clone(),
            place: Place::Form,
            required: required && fields_required.contains(&name.as_str()),
            schema: field.clone(),
        });
    }
}

/// The schema of the first successful response that has one (2.0 `schema`, 3.x JSON content).
fn response_schema(document: &Value, operation: &Map<String, Value>) -> Option<Value> {
    let responses = operation.get("responses")?.as_object()?;
    let mut successes: Vec<(&String, &Value)> = responses.iter().filter(|(code, _)| code.starts_with('2')).collect();
    successes.sort_by_key(|(code, _)| code.as_str());
    successes.into_iter().find_map(|(_, response)| {
        let response = follow(response, document);
        let schema = response.get("schema").or_else(|| {
            let content = response.get("content")?.as_object()?;
            content.iter().find(|(mime, _)| mime.contains("json"))?.1.get("schema")
        })?;
        Some(resolve(schema, document))
    })
}

/// The `{variables}` of a path template.
fn path_variables(path: &str) -> Vec<String> {
    path.split('{').skip(1).filter_map(|rest| Some(rest.split_once('}')?.0.to_owned())).collect()
}

/// Gives each argument its own property: a name that two places share (`id` in the path and a
/// header), or the body's `body`, takes its place as a suffix (`id_header`).
fn unique_properties(parameters: &mut [Parameter], body: Option<&mut Body>) {
    let place_name = |place: Place| match place {
        Place::Path => "path",
        Place::Query => "query",
        Place::Header => "header",
        Place::Cookie => "cookie",
        Place::Form => "form",
    };
    for i in 0..parameters.len() {
        if parameters[..i].iter().any(|earlier| earlier.property == parameters[i].property) {
            parameters[i].property = format!("{}_{}", parameters[i].name, place_name(parameters[i].place));
        }
    }
    if let Some(body) = body
        && parameters.iter().any(|p| p.property == body.property)
    {
        body.property = "request_body".into();
    }
}

/// `text` in the characters a tool name may have (others become `_`, runs of them one), at most
/// 128 of them.
fn tool_name(text: &str) -> String {
    let mut name = String::with_capacity(text.len());
    for c in text.chars() {
        let c = if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' };
        if !(c == '_' && (name.is_empty() || name.ends_with('_'))) {
            name.push(c);
        }
    }
    while name.ends_with('_') {
        name.pop();
    }
    name.truncate(128);
    if name.is_empty() { "operation".into() } else { name }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_the_operation_id_else_the_method_and_path() {
        assert_eq!(tool_name("get_/status/{codes}"), "get_status_codes");
        assert_eq!(tool_name("listPets"), "listPets");
        assert_eq!(tool_name("get_/"), "get");
    }

    #[test]
    fn a_3_0_operation_reads_its_parameters_body_and_response() {
        let document = json!({
            "openapi": "3.0.3",
            "paths": {"/pets/{id}": {
                "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}],
                "put": {
                    "operationId": "updatePet",
                    "parameters": [{"name": "id", "in": "header", "schema": {"type": "string"}}],
                    "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}},
                    "responses": {"200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}}}
                }
            }},
            "components": {"schemas": {"Pet": {"type": "object", "properties": {"name": {"type": "string", "nullable": true}}}}}
        });
        let operations = operations(&document).unwrap();
        let update = &operations[0];
        assert_eq!((update.name.as_str(), update.method.as_str()), ("updatePet", "put"));
        let places: Vec<(&str, Place)> = update.parameters.iter().map(|p| (p.property.as_str(), p.place)).collect();
        assert_eq!(places, [("id", Place::Path), ("id_header", Place::Header)]);
        let body = update.body.as_ref().unwrap();
        assert!(body.required);
        assert_eq!(body.schema["properties"]["name"]["type"], json!(["string", "null"]));
        assert_eq!(update.response_schema.as_ref().unwrap()["type"], "object");
    }
}
