//! `elicitation/create`: ask the user for input through the client, in a form (typed by a
//! Rust struct) or by sending them to a URL.

use super::ClientError;
use super::Input;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;

/// What the user did with an elicitation.
#[derive(Clone, Debug, PartialEq)]
pub enum Elicitation<T> {
    /// They submitted the form (or completed the URL flow).
    Accept(T),
    /// They explicitly said no.
    Decline,
    /// They dismissed it without choosing.
    Cancel,
}

impl<T> Elicitation<T> {
    /// The accepted value, if any.
    pub fn accepted(self) -> Option<T> {
        match self {
            Self::Accept(value) => Some(value),
            _ => None,
        }
    }

    /// The same answer with the accepted value changed by `f`.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Elicitation<U> {
        match self {
            Self::Accept(value) => Elicitation::Accept(f(value)),
            Self::Decline => Elicitation::Decline,
            Self::Cancel => Elicitation::Cancel,
        }
    }
}

/// A schema that elicitation does not allow: only a flat object of strings, numbers, integers,
/// booleans and enums (single or multi-select) may be requested.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElicitationSchemaError(String);

impl fmt::Display for ElicitationSchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not an elicitation schema: {}", self.0)
    }
}

impl std::error::Error for ElicitationSchemaError {}

/// The elicitation schema of `T`: its JSON Schema, flattened (`Option<T>` becomes an optional
/// `T`, enum variant docs become titles) and checked against what the spec allows.
pub fn elicitation_schema_for<T: JsonSchema>() -> Result<Map<String, Value>, ElicitationSchemaError> {
    let mut settings = schemars::generate::SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    let schema = settings.into_generator().into_root_schema_for::<T>().to_value();
    let Value::Object(mut schema) = schema else { return Err(ElicitationSchemaError("not an object".into())) };
    schema.remove("$schema");
    schema.remove("title");
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        properties.values_mut().for_each(simplify_property);
    }
    check(&schema)?;
    Ok(schema)
}

/// Rewrites what schemars emits into the restricted forms elicitation clients understand.
fn simplify_property(property: &mut Value) {
    let Some(map) = property.as_object_mut() else { return };
    if let Some(Value::Array(types)) = map.get("type") {
        let non_null: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        if let [single] = non_null.as_slice() {
            map.insert("type".into(), single.clone());
        }
    }
    if map.get("type").is_some_and(|t| t == "number" || t == "integer") {
        map.remove("format");
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(options)) = map.get_mut(key) {
            for option in options.iter_mut().filter_map(Value::as_object_mut) {
                if let Some(description) = option.remove("description") {
                    option.entry("title").or_insert(description);
                }
                option.remove("type");
            }
            map.entry("type").or_insert("string".into());
        }
    }
    if let Some(items) = map.get_mut("items") {
        simplify_property(items);
        if let Some(items) = items.as_object_mut() {
            items.remove("type").filter(|_| items.contains_key("anyOf")).map(|t| items.insert("type".into(), t));
        }
    }
}

fn check(schema: &Map<String, Value>) -> Result<(), ElicitationSchemaError> {
    let fail = |why: String| Err(ElicitationSchemaError(why));
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return fail("the root must be an object".into());
    }
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return Ok(()) };
    for (name, property) in properties {
        let kind = property.get("type").and_then(Value::as_str).unwrap_or("");
        let allowed = match kind {
            "string" | "number" | "integer" | "boolean" => true,
            "array" => {
                property.get("items").is_some_and(|items| items.get("enum").is_some() || items.get("anyOf").is_some())
            }
            _ => false,
        };
        if !allowed {
            return fail(format!(
                "property `{name}` must be a string, number, integer, boolean, enum or array of enum values (nested objects and other arrays are not allowed)"
            ));
        }
    }
    Ok(())
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum Action {
    Accept,
    Decline,
    Cancel,
}

#[derive(Deserialize)]
struct ElicitAnswer {
    action: Action,
    #[serde(default)]
    content: Option<Map<String, Value>>,
}

impl Input<'_> {
    /// Asks the user to fill in a form shaped like `T` (a flat struct of strings, numbers,
    /// booleans and enums; doc comments become field descriptions). Needs the client's
    /// `elicitation` capability.
    ///
    /// ```no_run
    /// # use mcp_runtime::prelude::*;
    /// # use mcp_runtime::Elicitation;
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Booking {
    ///     /// How many guests
    ///     guests: u32,
    /// }
    /// # async fn f(ctx: Context) -> Result<(), mcp_runtime::ClientError> {
    /// match ctx.elicit::<Booking>("How many guests?").await? {
    ///     Elicitation::Accept(booking) => println!("{} guests", booking.guests),
    ///     Elicitation::Decline | Elicitation::Cancel => println!("no booking"),
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn elicit<T: DeserializeOwned + JsonSchema>(
        self,
        message: impl Into<String>,
    ) -> Result<Elicitation<T>, ClientError> {
        let schema = elicitation_schema_for::<T>().map_err(|e| ClientError::InvalidRequest(e.to_string()))?;
        match self.elicit_with_schema(message, schema).await? {
            Elicitation::Accept(content) => serde_json::from_value(Value::Object(content))
                .map(Elicitation::Accept)
                .map_err(|e| ClientError::InvalidResponse(format!("the form's content does not match: {e}"))),
            Elicitation::Decline => Ok(Elicitation::Decline),
            Elicitation::Cancel => Ok(Elicitation::Cancel),
        }
    }

    /// Like [`elicit`](Self::elicit) with a hand-written `requestedSchema` (checked against
    /// what elicitation allows); the accepted content comes back as JSON.
    pub async fn elicit_with_schema(
        self,
        message: impl Into<String>,
        requested_schema: Map<String, Value>,
    ) -> Result<Elicitation<Map<String, Value>>, ClientError> {
        check(&requested_schema).map_err(|e| ClientError::InvalidRequest(e.to_string()))?;
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Params {
            message: String,
            requested_schema: Map<String, Value>,
        }
        let params = Params { message: message.into(), requested_schema };
        let answer: ElicitAnswer =
            self.ask(("elicitation", &["elicitation"]), "elicitation/create", &params, None).await?;
        Ok(match answer.action {
            Action::Accept => Elicitation::Accept(answer.content.unwrap_or_default()),
            Action::Decline => Elicitation::Decline,
            Action::Cancel => Elicitation::Cancel,
        })
    }

    /// Sends the user to `url` (URL-mode elicitation, for anything sensitive such as credentials
    /// or payments, which must not pass through the client). Needs `elicitation.url`.
    pub async fn elicit_url(
        self,
        message: impl Into<String>,
        url: impl Into<String>,
        elicitation_id: impl Into<String>,
    ) -> Result<Elicitation<()>, ClientError> {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Params {
            mode: &'static str,
            message: String,
            url: String,
            elicitation_id: String,
        }
        let params =
            Params { mode: "url", message: message.into(), url: url.into(), elicitation_id: elicitation_id.into() };
        let answer: ElicitAnswer =
            self.ask(("elicitation.url", &["elicitation", "url"]), "elicitation/create", &params, None).await?;
        Ok(match answer.action {
            Action::Accept => Elicitation::Accept(()),
            Action::Decline => Elicitation::Decline,
            Action::Cancel => Elicitation::Cancel,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    enum Status {
        /// Active
        Active,
        /// Inactive
        Inactive,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Form {
        /// Your name
        name: String,
        age: Option<u32>,
        score: f64,
        verified: bool,
        status: Status,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Nested {
        inner: Form,
    }

    #[test]
    fn flat_structs_make_restricted_schemas() {
        let schema = elicitation_schema_for::<Form>().unwrap();
        let properties = &schema["properties"];
        assert_eq!(properties["name"], json!({"type": "string", "description": "Your name"}));
        assert_eq!(properties["age"]["type"], "integer");
        assert!(properties["age"].get("format").is_none());
        assert_eq!(properties["score"], json!({"type": "number"}));
        assert_eq!(properties["status"]["type"], "string");
        assert_eq!(properties["status"]["oneOf"][0], json!({"const": "Active", "title": "Active"}));
        assert_eq!(schema["required"], json!(["name", "score", "verified", "status"]));
    }

    #[test]
    fn nested_objects_are_refused() {
        let err = elicitation_schema_for::<Nested>().unwrap_err();
        assert!(err.to_string().contains("`inner`"), "{err}");
    }
}
