//! The reshaping itself: a schemars schema rewritten into a profile's form, once per tool and
//! profile. Every pass walks subschemas only (the values of `properties`, `items`, `anyOf`...),
//! never data such as `enum`, `const` or `default`.

use super::SchemaProfile;
use crate::tool::vocabulary::{ANNOTATIONS, STANDARD_FORMATS};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// A tool's input schema in `profile`'s form. Input schemas tell a model what to send: a
/// profile may narrow them (Gemini's `nullable`, strict mode's `required`), since the server
/// still reads and checks the arguments against the full schema.
pub(crate) fn input(profile: SchemaProfile, schema: Map<String, Value>) -> Map<String, Value> {
    match profile {
        SchemaProfile::Full => schema,
        SchemaProfile::Portable => {
            let mut shaped = Value::Object(portable(schema, Cycles::Keep));
            // Two walks: a property's `null` is gone before any union is spelled out.
            walk(&mut shaped, &mut optional_without_null);
            walk(&mut shaped, &mut nullable_as_any_of);
            into_map(shaped)
        }
        SchemaProfile::Gemini => {
            let mut shaped = Value::Object(portable(schema, Cycles::Cut));
            walk(&mut shaped, &mut gemini);
            into_map(shaped)
        }
        SchemaProfile::OpenAiStrict => {
            let mut shaped = Value::Object(portable(schema, Cycles::Keep));
            walk(&mut shaped, &mut strict);
            into_map(shaped)
        }
    }
}

/// A tool's output schema in `profile`'s form. Clients validate `structuredContent` against
/// it, so it is never narrowed: every profile but [`Full`](SchemaProfile::Full) sends the
/// portable form.
pub(crate) fn output(profile: SchemaProfile, schema: Map<String, Value>) -> Map<String, Value> {
    match profile {
        SchemaProfile::Full => schema,
        _ => {
            let mut shaped = Value::Object(portable(schema, Cycles::Keep));
            walk(&mut shaped, &mut nullable_as_any_of);
            into_map(shaped)
        }
    }
}

fn into_map(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// Subschemas by keyword: a schema, an array of schemas, or a map of names to schemas.
const ONE: [&str; 11] = [
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalItems",
];
const MANY: [&str; 4] = ["anyOf", "oneOf", "allOf", "prefixItems"];
const NAMED: [&str; 4] = ["properties", "patternProperties", "$defs", "dependentSchemas"];

/// Calls `visit` on every subschema of `schema`, innermost first, then on `schema`.
fn walk(schema: &mut Value, visit: &mut dyn FnMut(&mut Map<String, Value>)) {
    let Value::Object(map) = schema else { return };
    for_each_child(map, &mut |child| walk(child, visit));
    visit(map);
}

fn for_each_child(map: &mut Map<String, Value>, f: &mut dyn FnMut(&mut Value)) {
    for (key, value) in map.iter_mut() {
        let key = key.as_str();
        if ONE.contains(&key) {
            match value {
                // draft-07's tuple form of `items`
                Value::Array(items) => items.iter_mut().for_each(&mut *f),
                value => f(value),
            }
        } else if MANY.contains(&key) {
            if let Value::Array(items) = value {
                items.iter_mut().for_each(&mut *f);
            }
        } else if NAMED.contains(&key)
            && let Value::Object(named) = value
        {
            named.values_mut().for_each(&mut *f);
        }
    }
}

/// [`for_each_child`], reading.
fn for_each_child_ref(map: &Map<String, Value>, f: &mut dyn FnMut(&Value)) {
    for (key, value) in map {
        let key = key.as_str();
        if ONE.contains(&key) {
            match value {
                Value::Array(items) => items.iter().for_each(&mut *f),
                value => f(value),
            }
        } else if MANY.contains(&key) {
            if let Value::Array(items) = value {
                items.iter().for_each(&mut *f);
            }
        } else if NAMED.contains(&key)
            && let Value::Object(named) = value
        {
            named.values().for_each(&mut *f);
        }
    }
}

/// What to do with a `$ref` to a recursive type's definition, which cannot be inlined.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cycles {
    /// Keep the reference and the definition (in `$defs`).
    Keep,
    /// Inline one level of the type, and put an object of any shape (with the reference's
    /// annotations) where it repeats.
    Cut,
}

const DEFS_PREFIX: &str = "#/$defs/";

/// The portable form (see [`SchemaProfile::Portable`]).
fn portable(schema: Map<String, Value>, cycles: Cycles) -> Map<String, Value> {
    let mut root = schema;
    let defs = match root.remove("$defs") {
        Some(Value::Object(defs)) => defs,
        Some(other) => {
            // Not a map of definitions: left as it was.
            root.insert("$defs".into(), other);
            Map::new()
        }
        None => Map::new(),
    };
    let recursive = recursive_definitions(&defs);
    let mut inliner =
        Inliner { defs: &defs, recursive: &recursive, cycles, kept: BTreeSet::new(), expanding: Vec::new() };
    let mut shaped = Value::Object(root);
    inliner.inline(&mut shaped);
    // The definitions of recursive types still referenced, shaped the same way (they may
    // reference others, which are inlined or kept in turn).
    let mut kept = BTreeMap::new();
    loop {
        let next = inliner.kept.iter().find(|name| !kept.contains_key(*name)).cloned();
        let Some(name) = next else { break };
        let mut definition = defs.get(&name).cloned().unwrap_or(Value::Bool(true));
        inliner.inline_within(&mut definition);
        kept.insert(name, definition);
    }
    let mut root = into_map(shaped);
    if !kept.is_empty() {
        root.insert("$defs".into(), Value::Object(kept.into_iter().collect()));
    }
    let mut shaped = Value::Object(root);
    walk(&mut shaped, &mut |schema| {
        simplify_nullable(schema);
        standard_format(schema);
    });
    into_map(shaped)
}

/// The definitions that reach themselves through references.
fn recursive_definitions(defs: &Map<String, Value>) -> BTreeSet<String> {
    let edges: BTreeMap<&str, BTreeSet<String>> = defs
        .iter()
        .map(|(name, definition)| {
            let mut refs = BTreeSet::new();
            collect_refs(definition, &mut refs);
            (name.as_str(), refs)
        })
        .collect();
    let reaches_itself = |start: &str| {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<&str> = edges.get(start).map(|e| e.iter().map(String::as_str).collect()).unwrap_or_default();
        while let Some(name) = stack.pop() {
            if name == start {
                return true;
            }
            if seen.insert(name) {
                stack.extend(edges.get(name).into_iter().flatten().map(String::as_str));
            }
        }
        false
    };
    defs.keys().filter(|name| reaches_itself(name)).cloned().collect()
}

/// The names of the definitions `schema` references.
fn collect_refs(schema: &Value, refs: &mut BTreeSet<String>) {
    let Value::Object(map) = schema else { return };
    if let Some(name) = map.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix(DEFS_PREFIX)) {
        refs.insert(unescape_pointer(name));
    }
    for_each_child_ref(map, &mut |child| collect_refs(child, refs));
}

/// A JSON Pointer token as the key it names (`~1` is `/`, `~0` is `~`).
fn unescape_pointer(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

struct Inliner<'a> {
    defs: &'a Map<String, Value>,
    recursive: &'a BTreeSet<String>,
    cycles: Cycles,
    /// Recursive definitions referenced by what was shaped so far.
    kept: BTreeSet<String>,
    /// With [`Cycles::Cut`], the recursive definitions being inlined around the current
    /// schema: one level of a recursive type is shown, and cut where it repeats.
    expanding: Vec<String>,
}

impl Inliner<'_> {
    /// Replaces every `$ref` in `schema` (and below) by what it names, except those to
    /// recursive definitions.
    fn inline(&mut self, schema: &mut Value) {
        let Value::Object(map) = schema else { return };
        let entered = self.resolve(map);
        for_each_child(map, &mut |child| self.inline(child));
        self.expanding.truncate(self.expanding.len() - entered);
    }

    /// Like [`inline`](Self::inline), for a kept definition: its own references to recursive
    /// definitions (itself included) stay.
    fn inline_within(&mut self, definition: &mut Value) {
        let Value::Object(map) = definition else { return };
        for_each_child(map, &mut |child| self.inline(child));
    }

    /// Resolves `map`'s own `$ref`, repeatedly (a definition may be a reference itself); says
    /// how many recursive definitions it entered (see `expanding`).
    fn resolve(&mut self, map: &mut Map<String, Value>) -> usize {
        let mut entered = 0;
        while let Some(reference) = map.get("$ref").and_then(Value::as_str).map(str::to_owned) {
            let name = reference.strip_prefix(DEFS_PREFIX).map(unescape_pointer);
            let target = name.as_ref().and_then(|name| self.defs.get(name).map(|definition| (name, definition)));
            match target {
                Some((name, _)) if self.recursive.contains(name) && self.cycles == Cycles::Keep => {
                    self.kept.insert(name.clone());
                    return entered;
                }
                Some((name, _)) if self.recursive.contains(name) && self.expanding.contains(name) => {
                    map.remove("$ref");
                    cut(map);
                    return entered;
                }
                Some((name, definition)) => {
                    if self.recursive.contains(name) {
                        self.expanding.push(name.clone());
                        entered += 1;
                    }
                    map.remove("$ref");
                    let siblings = std::mem::take(map);
                    match definition {
                        Value::Object(definition) => map.extend(definition.clone()),
                        // `true` accepts anything; `false` nothing: `{"not": {}}`.
                        Value::Bool(false) => {
                            map.insert("not".into(), Value::Object(Map::new()));
                        }
                        _ => {}
                    }
                    // The reference's annotations (a field's description) win over the type's.
                    map.extend(siblings);
                }
                // `#` (the root) and references elsewhere cannot be inlined.
                None if self.cycles == Cycles::Cut => {
                    map.remove("$ref");
                    cut(map);
                    return entered;
                }
                None => return entered,
            }
        }
        entered
    }
}

/// Where a recursive type repeats, in a profile without references: an object of any shape.
fn cut(map: &mut Map<String, Value>) {
    map.entry("type").or_insert_with(|| Value::String("object".into()));
}

/// Keywords that may reject `null` whatever the instance's type: a schema with one of them is
/// not made nullable by adding `"null"` to its `type`.
const REJECTS_NULL: [&str; 7] = ["anyOf", "oneOf", "allOf", "not", "if", "$ref", "const"];

/// `anyOf: [X, {"type": "null"}]` (or `oneOf`) as X with `"null"` in its `type` (and `enum`),
/// when X has a `type` and nothing else that could reject `null`.
fn simplify_nullable(schema: &mut Map<String, Value>) {
    for keyword in ["anyOf", "oneOf"] {
        let Some(Value::Array(members)) = schema.get(keyword) else { continue };
        let [first, second] = members.as_slice() else { continue };
        let other = match (is_null_type(first), is_null_type(second)) {
            (true, false) => second,
            (false, true) => first,
            _ => continue,
        };
        let Some(other) = other.as_object() else { continue };
        let Some(types) = other.get("type").and_then(type_names) else { continue };
        if REJECTS_NULL.iter().any(|k| other.contains_key(*k)) {
            continue;
        }
        // Keywords beside the `anyOf` that X also has would be one schema's two values (the
        // annotations beside it, a field's description, win over the type's).
        if schema.keys().any(|k| k != keyword && !ANNOTATIONS.contains(&k.as_str()) && other.contains_key(k)) {
            continue;
        }
        let mut merged = other.clone();
        let mut types = types;
        if !types.iter().any(|t| t == "null") {
            types.push("null".into());
        }
        merged.insert("type".into(), Value::Array(types.into_iter().map(Value::String).collect()));
        if let Some(Value::Array(values)) = merged.get_mut("enum")
            && !values.contains(&Value::Null)
        {
            values.push(Value::Null);
        }
        schema.remove(keyword);
        let siblings = std::mem::take(schema);
        *schema = merged;
        schema.extend(siblings);
        return;
    }
}

/// An optional property (one its object does not list in `required`) no longer offers `null`:
/// leaving it out says the same (serde reads both as `None`), and a single `type` is what every
/// client takes (the Inspector's `--strict`, single-type dialects). The server still accepts
/// `null`: it checks arguments against the full schema.
fn optional_without_null(schema: &mut Map<String, Value>) {
    let required = schema_required(schema).unwrap_or_default();
    let Some(Value::Object(properties)) = schema.get_mut("properties") else { return };
    for (name, property) in properties.iter_mut() {
        if required.contains(name) {
            continue;
        }
        let Some(property) = property.as_object_mut() else { continue };
        without_null(property);
    }
}

/// `schema` without the `null` of its `type` (and `enum`), or without the `{"type": "null"}`
/// member of its `anyOf`/`oneOf` (a member left alone folded in, where its keywords are not
/// already there).
fn without_null(schema: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = schema.get_mut("type")
        && types.len() > 1
        && types.iter().any(|t| t == "null")
    {
        types.retain(|t| t != "null");
        if let [single] = types.as_slice() {
            let single = single.clone();
            schema.insert("type".into(), single);
        }
        if let Some(Value::Array(values)) = schema.get_mut("enum") {
            values.retain(|v| !v.is_null());
        }
        return;
    }
    for keyword in ["anyOf", "oneOf"] {
        let Some(Value::Array(members)) = schema.get_mut(keyword) else { continue };
        if members.len() < 2 || !members.iter().any(is_null_type) {
            continue;
        }
        members.retain(|member| !is_null_type(member));
        let single = match members.as_slice() {
            [Value::Object(member)] => Some(member.clone()),
            _ => None,
        };
        if let Some(member) = single
            && !member.keys().any(|k| schema.contains_key(k))
        {
            schema.remove(keyword);
            schema.extend(member);
        }
        return;
    }
}

/// `"type": [X, "null"]` as `anyOf: [{"type": X, ...}, {"type": "null"}]`, the annotations kept
/// beside it: the same values, in the form the Inspector's `--strict` asks for (a type array is
/// its `type-union` warning). Left as it is when another keyword could refuse `null` (or an
/// `enum` without it): those belong to both branches.
fn nullable_as_any_of(schema: &mut Map<String, Value>) {
    let Some(types) = schema.get("type").and_then(Value::as_array) else { return };
    let others: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
    let ([other], true) = (others.as_slice(), others.len() < types.len()) else { return };
    let enum_allows_null = match schema.get("enum") {
        Some(Value::Array(values)) => values.contains(&Value::Null),
        Some(_) => false,
        None => true,
    };
    if !enum_allows_null || REJECTS_NULL.iter().any(|k| schema.contains_key(*k)) {
        return;
    }
    let other = other.clone();
    let (annotations, mut branch): (Map<String, Value>, Map<String, Value>) =
        std::mem::take(schema).into_iter().partition(|(k, _)| ANNOTATIONS.contains(&k.as_str()));
    branch.insert("type".into(), other);
    if let Some(Value::Array(values)) = branch.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    schema.insert("anyOf".into(), Value::Array(vec![Value::Object(branch), serde_json::json!({ "type": "null" })]));
    schema.extend(annotations);
}

/// Whether `schema` is exactly `{"type": "null"}`.
fn is_null_type(schema: &Value) -> bool {
    schema.as_object().is_some_and(|m| m.len() == 1 && m.get("type").and_then(Value::as_str) == Some("null"))
}

/// A `type` keyword's names (a string or an array of strings).
fn type_names(value: &Value) -> Option<Vec<String>> {
    match value {
        Value::String(name) => Some(vec![name.clone()]),
        Value::Array(names) => names.iter().map(|n| n.as_str().map(str::to_owned)).collect(),
        _ => None,
    }
}

/// Drops a format JSON Schema does not define; an integer width becomes bounds where they say
/// more than `"type": "integer"` (64-bit and wider ones only their sign: their limits are not
/// exact as JSON numbers in most clients).
fn standard_format(schema: &mut Map<String, Value>) {
    let Some(format) = schema.get("format").and_then(Value::as_str) else { return };
    if STANDARD_FORMATS.contains(&format) {
        return;
    }
    let bounds: (Option<i64>, Option<i64>) = match format {
        "uint8" => (Some(0), Some(u8::MAX.into())),
        "uint16" => (Some(0), Some(u16::MAX.into())),
        "uint32" => (Some(0), Some(u32::MAX.into())),
        "uint64" | "uint" | "uint128" | "usize" => (Some(0), None),
        "int8" => (Some(i8::MIN.into()), Some(i8::MAX.into())),
        "int16" => (Some(i16::MIN.into()), Some(i16::MAX.into())),
        "int32" => (Some(i32::MIN.into()), Some(i32::MAX.into())),
        _ => (None, None),
    };
    let integer = schema.get("type").and_then(type_names).is_some_and(|t| t.iter().any(|t| t == "integer"));
    if integer {
        let (low, high) = bounds;
        if let Some(low) = low {
            tighten(schema, "minimum", low, |existing, bound| existing >= bound);
        }
        if let Some(high) = high {
            tighten(schema, "maximum", high, |existing, bound| existing <= bound);
        }
    }
    schema.remove("format");
}

/// Sets `keyword` to `bound` unless it already holds a value `kept(existing, bound)` prefers.
fn tighten(schema: &mut Map<String, Value>, keyword: &str, bound: i64, kept: fn(f64, f64) -> bool) {
    if schema.get(keyword).and_then(Value::as_f64).is_some_and(|existing| kept(existing, bound as f64)) {
        return;
    }
    schema.insert(keyword.into(), bound.into());
}

/// The keywords of Gemini's `Schema` object (an OpenAPI 3.0 subset), and `x-mcp-header`, which
/// the protocol needs.
const GEMINI_KEYWORDS: [&str; 23] = [
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

/// One schema of the Gemini form (its subschemas are already).
fn gemini(schema: &mut Map<String, Value>) {
    merge_all_of(schema);
    if let Some(one_of) = schema.remove("oneOf") {
        schema.entry("anyOf").or_insert(one_of);
    }
    if let Some(value) = schema.remove("const") {
        schema.insert("enum".into(), Value::Array(vec![value]));
    }
    let mut nullable = false;
    // An `anyOf` member that was `{"type": "null"}` (now `{"nullable": true}`) makes the schema
    // nullable; a single member left is folded in.
    if let Some(Value::Array(members)) = schema.get_mut("anyOf") {
        let null = serde_json::json!({ "nullable": true });
        let before = members.len();
        members.retain(|member| member != &null);
        nullable = members.len() < before;
        if let [Value::Object(_)] = members.as_slice()
            && let Some(Value::Array(mut members)) = schema.remove("anyOf")
            && let Some(Value::Object(member)) = members.pop()
        {
            for (key, value) in member {
                if key == "nullable" {
                    nullable = true;
                } else {
                    schema.entry(key).or_insert(value);
                }
            }
        }
    }
    if let Some(types) = schema.get("type").and_then(type_names) {
        nullable |= types.iter().any(|t| t == "null");
        let kinds: Vec<String> = types.into_iter().filter(|t| t != "null").collect();
        match kinds.as_slice() {
            [] => {
                schema.remove("type");
            }
            [one] => {
                schema.insert("type".into(), Value::String(one.clone()));
            }
            several => {
                schema.remove("type");
                let members = several.iter().map(|t| serde_json::json!({ "type": t })).collect();
                schema.entry("anyOf").or_insert(Value::Array(members));
            }
        }
    }
    if let Some(Value::Array(values)) = schema.get_mut("enum")
        && values.contains(&Value::Null)
    {
        values.retain(|v| !v.is_null());
        nullable = true;
    }
    if nullable {
        schema.insert("nullable".into(), Value::Bool(true));
    }
    // Gemini's `format` names its own set; the string one JSON Schema shares is `date-time`.
    if schema.get("format").and_then(Value::as_str).is_some_and(|f| f != "date-time") {
        schema.remove("format");
    }
    schema.retain(|key, _| GEMINI_KEYWORDS.contains(&key.as_str()));
}

/// Folds an `allOf`'s object members into the schema (keywords it already has, or an earlier
/// member gave, win); what cannot be folded is dropped, which accepts more (the server checks
/// the full schema).
fn merge_all_of(schema: &mut Map<String, Value>) {
    let Some(Value::Array(members)) = schema.remove("allOf") else { return };
    for member in members {
        if let Value::Object(member) = member {
            for (key, value) in member {
                schema.entry(key).or_insert(value);
            }
        }
    }
}

/// Keywords OpenAI's strict mode refuses.
const STRICT_REFUSES: [&str; 16] = [
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
];

/// The string formats strict mode accepts.
const STRICT_FORMATS: [&str; 9] =
    ["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];

/// One schema of the strict form (its subschemas are already).
fn strict(schema: &mut Map<String, Value>) {
    merge_all_of(schema);
    if let Some(one_of) = schema.remove("oneOf") {
        schema.entry("anyOf").or_insert(one_of);
    }
    for keyword in STRICT_REFUSES.iter().chain(&["dependentRequired", "dependentSchemas"]) {
        schema.remove(*keyword);
    }
    if schema.get("format").and_then(Value::as_str).is_some_and(|f| !STRICT_FORMATS.contains(&f)) {
        schema.remove("format");
    }
    if !matches!(schema.get("properties"), Some(Value::Object(_))) {
        return;
    }
    let required = schema_required(schema).unwrap_or_default();
    let Some(Value::Object(properties)) = schema.get_mut("properties") else { return };
    for (name, property) in properties.iter_mut() {
        // A property mirrored in a header keeps its one type (the protocol allows no other):
        // required here, the model sends it.
        let mirrored = property.get("x-mcp-header").is_some();
        if !required.contains(name) && !mirrored {
            make_nullable(property);
        }
    }
    let all: Vec<Value> = properties.keys().cloned().map(Value::String).collect();
    schema.insert("required".into(), Value::Array(all));
    match schema.get("additionalProperties") {
        Some(Value::Object(_)) => {} // a map: strict mode has no form for it
        _ => {
            schema.insert("additionalProperties".into(), Value::Bool(false));
        }
    }
}

fn schema_required(schema: &Map<String, Value>) -> Option<BTreeSet<String>> {
    let Value::Array(names) = schema.get("required")? else { return None };
    Some(names.iter().filter_map(Value::as_str).map(str::to_owned).collect())
}

/// A property made to accept `null` as well, for strict mode's "required but nullable".
fn make_nullable(property: &mut Value) {
    let Value::Object(map) = property else { return };
    let blocked = REJECTS_NULL.iter().any(|k| *k != "anyOf" && map.contains_key(*k));
    match map.get("type").and_then(type_names) {
        Some(mut types) if !blocked => {
            if !types.iter().any(|t| t == "null") {
                types.push("null".into());
            }
            map.insert("type".into(), Value::Array(types.into_iter().map(Value::String).collect()));
            if let Some(Value::Array(values)) = map.get_mut("enum")
                && !values.contains(&Value::Null)
            {
                values.push(Value::Null);
            }
            if map.contains_key("anyOf")
                && let Some(Value::Array(members)) = map.get_mut("anyOf")
                && !members.iter().any(is_null_type)
            {
                members.push(serde_json::json!({ "type": "null" }));
            }
        }
        _ => {
            if let Some(Value::Array(members)) = map.get_mut("anyOf") {
                if !members.iter().any(is_null_type) {
                    members.push(serde_json::json!({ "type": "null" }));
                }
                return;
            }
            let description = map.remove("description");
            let inner = Value::Object(std::mem::take(map));
            map.insert("anyOf".into(), Value::Array(vec![inner, serde_json::json!({ "type": "null" })]));
            if let Some(description) = description {
                map.insert("description".into(), description);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(value: Value) -> Map<String, Value> {
        into_map(value)
    }

    #[test]
    fn references_are_inlined_and_cycles_kept() {
        let schema = map(json!({
            "type": "object",
            "properties": {
                "inner": {"$ref": "#/$defs/Inner", "description": "the field"},
                "tree": {"$ref": "#/$defs/Tree"},
            },
            "$defs": {
                "Inner": {"type": "object", "description": "the type", "properties": {"n": {"type": "integer", "format": "uint32", "minimum": 0}}},
                "Tree": {"type": "object", "properties": {"inner": {"$ref": "#/$defs/Inner"}, "children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}},
            },
        }));
        let shaped = Value::Object(portable(schema.clone(), Cycles::Keep));
        assert_eq!(shaped["properties"]["inner"]["description"], "the field");
        assert_eq!(
            shaped["properties"]["inner"]["properties"]["n"],
            json!({"type": "integer", "minimum": 0, "maximum": 4294967295u32})
        );
        assert_eq!(shaped["properties"]["tree"], json!({"$ref": "#/$defs/Tree"}));
        assert_eq!(shaped["$defs"]["Tree"]["properties"]["children"]["items"], json!({"$ref": "#/$defs/Tree"}));
        assert_eq!(shaped["$defs"].as_object().unwrap().keys().collect::<Vec<_>>(), ["Tree"]);
        assert_eq!(shaped["$defs"]["Tree"]["properties"]["inner"]["type"], "object");
        let cut = Value::Object(portable(schema.clone(), Cycles::Cut));
        assert!(cut.get("$defs").is_none());
        assert_eq!(cut["properties"]["tree"]["properties"]["inner"]["type"], "object");
        assert_eq!(cut["properties"]["tree"]["properties"]["children"]["items"], json!({"type": "object"}));
    }

    #[test]
    fn nullable_unions_become_type_arrays_where_equivalent() {
        let schema = map(json!({
            "type": "object",
            "properties": {
                "kind": {"anyOf": [{"$ref": "#/$defs/Kind"}, {"type": "null"}], "description": "d"},
                "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "guarded": {"anyOf": [{"type": "string", "not": {"const": "x"}}, {"type": "null"}]},
            },
            "$defs": {"Kind": {"type": "string", "enum": ["a", "b"]}},
        }));
        let shaped = Value::Object(portable(schema.clone(), Cycles::Keep));
        assert_eq!(
            shaped["properties"]["kind"],
            json!({"type": ["string", "null"], "enum": ["a", "b", null], "description": "d"})
        );
        assert!(shaped["properties"]["either"]["anyOf"].is_array());
        assert!(shaped["properties"]["guarded"]["anyOf"].is_array());
    }

    #[test]
    fn portable_inputs_leave_null_out_of_optional_properties_and_spell_other_nulls_as_any_of() {
        let schema = map(json!({
            "type": "object",
            "properties": {
                "note": {"type": ["string", "null"], "minLength": 1, "description": "d"},
                "kind": {"anyOf": [{"$ref": "#/$defs/Kind"}, {"type": "null"}]},
                "scores": {"type": "array", "items": {"type": ["integer", "null"], "format": "int32"}},
                "cleared": {"type": ["string", "null"]},
            },
            "required": ["scores", "cleared"],
            "$defs": {"Kind": {"type": "string", "enum": ["a", "b"]}},
        }));
        let shaped = Value::Object(input(SchemaProfile::Portable, schema.clone()));
        let properties = &shaped["properties"];
        assert_eq!(properties["note"], json!({"type": "string", "minLength": 1, "description": "d"}));
        assert_eq!(properties["kind"], json!({"type": "string", "enum": ["a", "b"]}));
        assert_eq!(
            properties["scores"]["items"],
            json!({"anyOf": [{"type": "integer", "minimum": -2147483648, "maximum": 2147483647}, {"type": "null"}]})
        );
        assert_eq!(properties["cleared"], json!({"anyOf": [{"type": "string"}, {"type": "null"}]}));
        // An output keeps every `null` (results carry them), spelled as a union.
        let output = Value::Object(output(SchemaProfile::Portable, schema));
        assert_eq!(
            output["properties"]["note"],
            json!({"anyOf": [{"type": "string", "minLength": 1}, {"type": "null"}], "description": "d"})
        );
        assert_eq!(
            output["properties"]["kind"],
            json!({"anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "null"}]})
        );
    }

    #[test]
    fn gemini_and_strict_forms() {
        let schema = map(json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1},
                "count": {"type": ["integer", "null"], "format": "uint8", "minimum": 0, "maximum": 255},
                "mode": {"const": "fast"},
            },
            "required": ["name"],
        }));
        let gemini = Value::Object(input(SchemaProfile::Gemini, schema.clone()));
        assert_eq!(
            gemini["properties"]["count"],
            json!({"type": "integer", "minimum": 0, "maximum": 255, "nullable": true})
        );
        assert_eq!(gemini["properties"]["mode"], json!({"enum": ["fast"]}));
        let strict = Value::Object(input(SchemaProfile::OpenAiStrict, schema));
        let mut required: Vec<&str> = strict["required"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        required.sort_unstable();
        assert_eq!(required, ["count", "mode", "name"]);
        assert_eq!(strict["additionalProperties"], json!(false));
        assert_eq!(strict["properties"]["name"], json!({"type": "string"}));
        assert_eq!(strict["properties"]["mode"], json!({"anyOf": [{"const": "fast"}, {"type": "null"}]}));
    }

    #[test]
    fn strict_keeps_mirrored_arguments_single_typed() {
        let schema = map(json!({
            "type": "object",
            "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
        }));
        let strict = Value::Object(input(SchemaProfile::OpenAiStrict, schema));
        assert_eq!(strict["properties"]["region"]["type"], "string");
        assert_eq!(strict["required"], json!(["region"]));
    }
}
