//! Whether a new surface still serves the clients of an old one: [`compare`] lists each change,
//! breaking or compatible.
//!
//! Input schemas are read as a client sending arguments sees them: a change is breaking when a
//! call that was valid may no longer be (an argument removed or newly required, a type narrowed,
//! an enum value removed). Output schemas are read the other way round, as a client reading
//! results: a field removed or no longer required, a type widened or an enum value added may
//! surprise it. Local `$ref`s (`#/$defs/...`, `#/definitions/...`) are followed, so a schema
//! with `$defs` compares the same as its inlined form.

use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::fmt;

/// Whether a change can break an existing client.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// A client that worked before may fail now.
    Breaking,
    /// Existing clients keep working.
    Compatible,
}

/// What changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    /// A tool is gone.
    ToolRemoved,
    /// A new tool.
    ToolAdded,
    /// An argument (or a nested property of one) is gone.
    ArgumentRemoved,
    /// A new optional argument.
    ArgumentAdded,
    /// An argument became required, or a new argument is required.
    ArgumentNewlyRequired,
    /// A required argument became optional.
    ArgumentNoLongerRequired,
    /// A schema accepts fewer types than before (`number` -> `integer`, a union shrunk, values
    /// now limited to an enum).
    TypeNarrowed,
    /// A schema accepts more types than before.
    TypeWidened,
    /// An enum lost a value.
    EnumValueRemoved,
    /// An enum gained a value.
    EnumValueAdded,
    /// A tool no longer declares an output schema (its structured content is no longer promised).
    OutputSchemaRemoved,
    /// A tool now declares an output schema.
    OutputSchemaAdded,
    /// A field of the structured output is gone.
    OutputFieldRemoved,
    /// A new field in the structured output.
    OutputFieldAdded,
    /// A field of the structured output may now be missing.
    OutputFieldNoLongerRequired,
    /// A tool annotation (`readOnlyHint`, `destructiveHint`...) changed.
    AnnotationChanged,
    /// A direct resource is gone.
    ResourceRemoved,
    /// A new direct resource.
    ResourceAdded,
    /// A resource template is gone.
    TemplateRemoved,
    /// A new resource template.
    TemplateAdded,
    /// A prompt is gone.
    PromptRemoved,
    /// A new prompt.
    PromptAdded,
    /// A prompt argument is gone.
    PromptArgumentRemoved,
    /// A new optional prompt argument.
    PromptArgumentAdded,
    /// A prompt argument became required, or a new one is required.
    PromptArgumentNewlyRequired,
    /// A required prompt argument became optional.
    PromptArgumentNoLongerRequired,
}

/// One difference between two surfaces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// What changed.
    pub kind: ChangeKind,
    /// Whether it can break a client.
    pub severity: Severity,
    /// Where: ``tool `add` ``, ``prompt `review` ``, ``resource `docs://readme` ``.
    pub location: String,
    /// What, in words: ``argument `b` is now required``.
    pub detail: String,
}

impl Change {
    /// Whether the change can break a client.
    pub fn is_breaking(&self) -> bool {
        self.severity == Severity::Breaking
    }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let severity = match self.severity {
            Severity::Breaking => "breaking",
            Severity::Compatible => "compatible",
        };
        write!(f, "{severity}: {}: {}", self.location, self.detail)
    }
}

/// Every change from `old` to `new`, breaking ones first, each group in the surfaces' order.
pub fn compare(old: &crate::Surface, new: &crate::Surface) -> Vec<Change> {
    let mut changes = Changes::default();
    compare_items(&mut changes, &old.tools, &new.tools, "name", Item::Tool);
    compare_items(&mut changes, &old.resources, &new.resources, "uri", Item::Resource);
    compare_items(&mut changes, &old.resource_templates, &new.resource_templates, "uriTemplate", Item::Template);
    compare_items(&mut changes, &old.prompts, &new.prompts, "name", Item::Prompt);
    let mut list = changes.0;
    list.sort_by_key(|c| c.severity);
    list
}

#[derive(Default)]
struct Changes(Vec<Change>);

impl Changes {
    fn push(&mut self, kind: ChangeKind, severity: Severity, location: &str, detail: String) {
        self.0.push(Change { kind, severity, location: location.to_owned(), detail });
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Item {
    Tool,
    Resource,
    Template,
    Prompt,
}

impl Item {
    fn noun(self) -> &'static str {
        match self {
            Item::Tool => "tool",
            Item::Resource => "resource",
            Item::Template => "resource template",
            Item::Prompt => "prompt",
        }
    }

    fn removed_added(self) -> (ChangeKind, ChangeKind) {
        match self {
            Item::Tool => (ChangeKind::ToolRemoved, ChangeKind::ToolAdded),
            Item::Resource => (ChangeKind::ResourceRemoved, ChangeKind::ResourceAdded),
            Item::Template => (ChangeKind::TemplateRemoved, ChangeKind::TemplateAdded),
            Item::Prompt => (ChangeKind::PromptRemoved, ChangeKind::PromptAdded),
        }
    }
}

fn key_of<'a>(item: &'a Value, key: &str) -> &'a str {
    item.get(key).and_then(Value::as_str).unwrap_or("")
}

fn compare_items(changes: &mut Changes, old: &[Value], new: &[Value], key: &str, item: Item) {
    let (removed, added) = item.removed_added();
    for old_item in old {
        let id = key_of(old_item, key);
        let location = format!("{} `{id}`", item.noun());
        match new.iter().find(|n| key_of(n, key) == id) {
            None => changes.push(removed, Severity::Breaking, &location, "removed".into()),
            Some(new_item) => match item {
                Item::Tool => compare_tool(changes, &location, old_item, new_item),
                Item::Prompt => compare_prompt(changes, &location, old_item, new_item),
                Item::Resource | Item::Template => {}
            },
        }
    }
    for new_item in new {
        let id = key_of(new_item, key);
        if !old.iter().any(|o| key_of(o, key) == id) {
            changes.push(added, Severity::Compatible, &format!("{} `{id}`", item.noun()), "added".into());
        }
    }
}

fn compare_tool(changes: &mut Changes, location: &str, old: &Value, new: &Value) {
    let empty = Value::Object(Map::new());
    let old_input = old.get("inputSchema").unwrap_or(&empty);
    let new_input = new.get("inputSchema").unwrap_or(&empty);
    let input = Schemas { old_root: old_input, new_root: new_input, side: Side::Input, location };
    input.compare(changes, old_input, new_input, &Path::root(), 0);

    match (old.get("outputSchema"), new.get("outputSchema")) {
        (Some(_), None) => changes.push(
            ChangeKind::OutputSchemaRemoved,
            Severity::Breaking,
            location,
            "no longer declares an output schema".into(),
        ),
        (None, Some(_)) => changes.push(
            ChangeKind::OutputSchemaAdded,
            Severity::Compatible,
            location,
            "declares an output schema".into(),
        ),
        (Some(old_output), Some(new_output)) => {
            let output = Schemas { old_root: old_output, new_root: new_output, side: Side::Output, location };
            output.compare(changes, old_output, new_output, &Path::root(), 0);
        }
        (None, None) => {}
    }

    let old_hints = old.get("annotations").and_then(Value::as_object);
    let new_hints = new.get("annotations").and_then(Value::as_object);
    let keys: BTreeSet<&String> = old_hints.into_iter().chain(new_hints).flat_map(|m| m.keys()).collect();
    for key in keys {
        let before = old_hints.and_then(|m| m.get(key));
        let after = new_hints.and_then(|m| m.get(key));
        if before != after {
            let show = |v: Option<&Value>| v.map_or_else(|| "unset".to_owned(), Value::to_string);
            changes.push(
                ChangeKind::AnnotationChanged,
                Severity::Compatible,
                location,
                format!("annotation `{key}` changed from {} to {}", show(before), show(after)),
            );
        }
    }
}

fn compare_prompt(changes: &mut Changes, location: &str, old: &Value, new: &Value) {
    let arguments = |prompt: &Value| -> Vec<(String, bool)> {
        prompt
            .get("arguments")
            .and_then(Value::as_array)
            .map(|args| {
                args.iter()
                    .map(|a| {
                        (key_of(a, "name").to_owned(), a.get("required").and_then(Value::as_bool).unwrap_or(false))
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let (old_args, new_args) = (arguments(old), arguments(new));
    for (name, was_required) in &old_args {
        match new_args.iter().find(|(n, _)| n == name) {
            None => changes.push(
                ChangeKind::PromptArgumentRemoved,
                Severity::Breaking,
                location,
                format!("argument `{name}` removed"),
            ),
            Some((_, true)) if !was_required => changes.push(
                ChangeKind::PromptArgumentNewlyRequired,
                Severity::Breaking,
                location,
                format!("argument `{name}` is now required"),
            ),
            Some((_, false)) if *was_required => changes.push(
                ChangeKind::PromptArgumentNoLongerRequired,
                Severity::Compatible,
                location,
                format!("argument `{name}` is now optional"),
            ),
            Some(_) => {}
        }
    }
    for (name, required) in &new_args {
        if !old_args.iter().any(|(n, _)| n == name) {
            if *required {
                changes.push(
                    ChangeKind::PromptArgumentNewlyRequired,
                    Severity::Breaking,
                    location,
                    format!("new required argument `{name}`"),
                );
            } else {
                changes.push(
                    ChangeKind::PromptArgumentAdded,
                    Severity::Compatible,
                    location,
                    format!("new optional argument `{name}`"),
                );
            }
        }
    }
}

/// Which way values flow through a schema: a client writes inputs and reads outputs.
#[derive(Clone, Copy, PartialEq)]
enum Side {
    Input,
    Output,
}

/// A property's path inside a schema: `filter.since`, `tags[]`.
#[derive(Clone)]
struct Path(String);

impl Path {
    fn root() -> Self {
        Path(String::new())
    }

    fn property(&self, name: &str) -> Self {
        if self.0.is_empty() { Path(name.to_owned()) } else { Path(format!("{}.{name}", self.0)) }
    }

    fn items(&self) -> Self {
        Path(format!("{}[]", self.0))
    }

    /// How the schema at this path is named in a message.
    fn describe(&self, side: Side) -> String {
        match (side, self.0.is_empty()) {
            (Side::Input, true) => "the arguments".into(),
            (Side::Output, true) => "the output".into(),
            (Side::Input, false) => format!("argument `{}`", self.0),
            (Side::Output, false) => format!("output field `{}`", self.0),
        }
    }
}

/// Deep enough for any schema a tool declares; a recursive type stops here.
const MAX_DEPTH: usize = 32;

struct Schemas<'a> {
    old_root: &'a Value,
    new_root: &'a Value,
    side: Side,
    location: &'a str,
}

impl Schemas<'_> {
    /// The severity of a change that lets a schema accept less (`narrower`) or more.
    fn severity(&self, narrower: bool) -> Severity {
        match (self.side, narrower) {
            (Side::Input, true) | (Side::Output, false) => Severity::Breaking,
            _ => Severity::Compatible,
        }
    }

    fn compare(&self, changes: &mut Changes, old: &Value, new: &Value, path: &Path, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let old = resolve(self.old_root, old);
        let new = resolve(self.new_root, new);
        self.compare_types(changes, old, new, path);
        self.compare_enums(changes, old, new, path);
        self.compare_properties(changes, old, new, path, depth);
        if let (Some(old_items), Some(new_items)) = (old.get("items"), new.get("items"))
            && old_items.is_object()
            && new_items.is_object()
        {
            self.compare(changes, old_items, new_items, &path.items(), depth + 1);
        }
    }

    fn compare_types(&self, changes: &mut Changes, old: &Value, new: &Value, path: &Path) {
        let old_types = types(self.old_root, old, 0);
        let new_types = types(self.new_root, new, 0);
        let show = |t: &Option<BTreeSet<String>>| match t {
            None => "any type".to_owned(),
            Some(set) => set.iter().cloned().collect::<Vec<_>>().join(" | "),
        };
        let (lost, gained) = match (&old_types, &new_types) {
            (None, None) => (false, false),
            (None, Some(_)) => (true, false),
            (Some(_), None) => (false, true),
            (Some(before), Some(after)) => {
                (before.iter().any(|t| !accepts(after, t)), after.iter().any(|t| !accepts(before, t)))
            }
        };
        if lost {
            changes.push(
                ChangeKind::TypeNarrowed,
                self.severity(true),
                self.location,
                format!("{} narrowed from {} to {}", path.describe(self.side), show(&old_types), show(&new_types)),
            );
        }
        if gained {
            changes.push(
                ChangeKind::TypeWidened,
                self.severity(false),
                self.location,
                format!("{} widened from {} to {}", path.describe(self.side), show(&old_types), show(&new_types)),
            );
        }
    }

    fn compare_enums(&self, changes: &mut Changes, old: &Value, new: &Value, path: &Path) {
        let what = path.describe(self.side);
        match (enum_values(self.old_root, old), enum_values(self.new_root, new)) {
            (None, None) => {}
            (None, Some(values)) => changes.push(
                ChangeKind::TypeNarrowed,
                self.severity(true),
                self.location,
                format!("{what} is now limited to {}", show_values(&values)),
            ),
            (Some(_), None) => changes.push(
                ChangeKind::TypeWidened,
                self.severity(false),
                self.location,
                format!("{what} is no longer limited to a list of values"),
            ),
            (Some(before), Some(after)) => {
                for value in before.iter().filter(|v| !after.contains(v)) {
                    changes.push(
                        ChangeKind::EnumValueRemoved,
                        self.severity(true),
                        self.location,
                        format!("{what} no longer allows {value}"),
                    );
                }
                for value in after.iter().filter(|v| !before.contains(v)) {
                    changes.push(
                        ChangeKind::EnumValueAdded,
                        self.severity(false),
                        self.location,
                        format!("{what} now allows {value}"),
                    );
                }
            }
        }
    }

    fn compare_properties(&self, changes: &mut Changes, old: &Value, new: &Value, path: &Path, depth: usize) {
        let empty = Map::new();
        let old_props = old.get("properties").and_then(Value::as_object).unwrap_or(&empty);
        let new_props = new.get("properties").and_then(Value::as_object).unwrap_or(&empty);
        let old_required = required(old);
        let new_required = required(new);
        for (name, old_prop) in old_props {
            let at = path.property(name);
            let what = at.describe(self.side);
            let Some(new_prop) = new_props.get(name) else {
                let kind = match self.side {
                    Side::Input => ChangeKind::ArgumentRemoved,
                    Side::Output => ChangeKind::OutputFieldRemoved,
                };
                changes.push(kind, Severity::Breaking, self.location, format!("{what} removed"));
                continue;
            };
            let (was, is) = (old_required.contains(name.as_str()), new_required.contains(name.as_str()));
            match self.side {
                Side::Input if !was && is => changes.push(
                    ChangeKind::ArgumentNewlyRequired,
                    Severity::Breaking,
                    self.location,
                    format!("{what} is now required"),
                ),
                Side::Input if was && !is => changes.push(
                    ChangeKind::ArgumentNoLongerRequired,
                    Severity::Compatible,
                    self.location,
                    format!("{what} is now optional"),
                ),
                Side::Output if was && !is => changes.push(
                    ChangeKind::OutputFieldNoLongerRequired,
                    Severity::Breaking,
                    self.location,
                    format!("{what} may now be missing"),
                ),
                _ => {}
            }
            self.compare(changes, old_prop, new_prop, &at, depth + 1);
        }
        for name in new_props.keys().filter(|n| !old_props.contains_key(*n)) {
            let what = path.property(name).describe(self.side);
            match self.side {
                Side::Input if new_required.contains(name.as_str()) => changes.push(
                    ChangeKind::ArgumentNewlyRequired,
                    Severity::Breaking,
                    self.location,
                    format!("new required {what}"),
                ),
                Side::Input => changes.push(
                    ChangeKind::ArgumentAdded,
                    Severity::Compatible,
                    self.location,
                    format!("new optional {what}"),
                ),
                Side::Output => changes.push(
                    ChangeKind::OutputFieldAdded,
                    Severity::Compatible,
                    self.location,
                    format!("new {what}"),
                ),
            }
        }
    }
}

/// Follows local `$ref`s (`#/$defs/Name`, `#/definitions/Name`, any JSON pointer into the root).
fn resolve<'a>(root: &'a Value, mut schema: &'a Value) -> &'a Value {
    for _ in 0..MAX_DEPTH {
        let Some(target) = schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#')) else {
            break;
        };
        match root.pointer(target) {
            Some(found) => schema = found,
            None => break,
        }
    }
    schema
}

fn required(schema: &Value) -> BTreeSet<&str> {
    schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect()
}

/// The JSON types a schema accepts, `None` when it does not say (anything goes).
fn types(root: &Value, schema: &Value, depth: usize) -> Option<BTreeSet<String>> {
    let schema = resolve(root, schema);
    match schema.get("type") {
        Some(Value::String(t)) => return Some(BTreeSet::from([t.clone()])),
        Some(Value::Array(ts)) => return Some(ts.iter().filter_map(Value::as_str).map(str::to_owned).collect()),
        _ => {}
    }
    if depth < MAX_DEPTH {
        for union in ["anyOf", "oneOf"] {
            if let Some(variants) = schema.get(union).and_then(Value::as_array) {
                let mut all = BTreeSet::new();
                for variant in variants {
                    all.extend(types(root, variant, depth + 1)?);
                }
                return Some(all);
            }
        }
    }
    if let Some(value) = schema.get("const") {
        return Some(BTreeSet::from([json_type(value).to_owned()]));
    }
    None
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Whether a schema accepting `set` accepts every value of type `t` (`number` covers `integer`).
fn accepts(set: &BTreeSet<String>, t: &str) -> bool {
    set.contains(t) || (t == "integer" && set.contains("number"))
}

/// The values a schema is limited to: `enum`, `const`, or a union of those (schemars writes a
/// documented enum as `oneOf` of `const`s). `None` when it is not limited to a list.
fn enum_values(root: &Value, schema: &Value) -> Option<Vec<Value>> {
    let schema = resolve(root, schema);
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return Some(values.clone());
    }
    if let Some(value) = schema.get("const") {
        return Some(vec![value.clone()]);
    }
    for union in ["anyOf", "oneOf"] {
        if let Some(variants) = schema.get(union).and_then(Value::as_array) {
            let mut all = Vec::new();
            for variant in variants {
                let variant = resolve(root, variant);
                if variant.get("type") == Some(&Value::String("null".into())) {
                    all.push(Value::Null);
                    continue;
                }
                all.extend(enum_values(root, variant)?);
            }
            return Some(all);
        }
    }
    None
}

fn show_values(values: &[Value]) -> String {
    values.iter().map(Value::to_string).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Surface;
    use serde_json::json;

    fn tool(name: &str, input: Value) -> Value {
        json!({"name": name, "inputSchema": input})
    }

    fn tools(list: Vec<Value>) -> Surface {
        Surface::from_lists(&list, &[], &[], &[])
    }

    fn adder() -> Value {
        tool(
            "add",
            json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}),
        )
    }

    fn changes_between(old: Value, new: Value) -> Vec<(ChangeKind, Severity)> {
        compare(&tools(vec![tool("t", old)]), &tools(vec![tool("t", new)]))
            .iter()
            .map(|c| (c.kind, c.severity))
            .collect()
    }

    use ChangeKind::*;
    use Severity::*;

    #[test]
    fn the_same_surface_has_no_changes() {
        assert!(compare(&tools(vec![adder()]), &tools(vec![adder()])).is_empty());
    }

    #[test]
    fn a_removed_tool_breaks_and_an_added_one_does_not() {
        let changes = compare(&tools(vec![adder()]), &tools(vec![tool("sum", json!({"type": "object"}))]));
        let kinds: Vec<_> = changes.iter().map(|c| (c.kind, c.severity, c.location.as_str())).collect();
        assert_eq!(kinds, [(ToolRemoved, Breaking, "tool `add`"), (ToolAdded, Compatible, "tool `sum`")]);
        assert_eq!(changes[0].to_string(), "breaking: tool `add`: removed");
    }

    #[test]
    fn arguments_removed_added_and_required() {
        let old = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "string"}}, "required": ["a"]});
        let new = json!({"type": "object", "properties": {"a": {"type": "string"}, "c": {"type": "string"}, "d": {"type": "string"}, "e": {"type": "string"}}, "required": ["c", "e"]});
        assert_eq!(
            changes_between(old, new),
            [
                (ArgumentRemoved, Breaking),       // b
                (ArgumentNewlyRequired, Breaking), // c
                (ArgumentNewlyRequired, Breaking), // e, new and required
                (ArgumentNoLongerRequired, Compatible),
                (ArgumentAdded, Compatible), // d
            ]
        );
    }

    #[test]
    fn the_messages_name_the_argument() {
        let old = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        let new = json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});
        let changes = compare(&tools(vec![tool("t", old)]), &tools(vec![tool("t", new)]));
        assert_eq!(changes[0].to_string(), "breaking: tool `t`: argument `a` is now required");
    }

    #[test]
    fn types_narrowed_and_widened() {
        let schema = |t: Value| json!({"type": "object", "properties": {"x": {"type": t}}});
        assert_eq!(changes_between(schema(json!("number")), schema(json!("integer"))), [(TypeNarrowed, Breaking)]);
        assert_eq!(changes_between(schema(json!("integer")), schema(json!("number"))), [(TypeWidened, Compatible)]);
        assert_eq!(
            changes_between(schema(json!(["string", "null"])), schema(json!("string"))),
            [(TypeNarrowed, Breaking)]
        );
        assert_eq!(
            changes_between(schema(json!("string")), schema(json!(["string", "null"]))),
            [(TypeWidened, Compatible)]
        );
        // integer -> number | string: widened only.
        assert_eq!(
            changes_between(schema(json!("integer")), schema(json!(["number", "string"]))),
            [(TypeWidened, Compatible)]
        );
        // A swap is both.
        assert_eq!(
            changes_between(schema(json!("string")), schema(json!("boolean"))),
            [(TypeNarrowed, Breaking), (TypeWidened, Compatible)]
        );
    }

    #[test]
    fn a_union_written_with_any_of_shrinks() {
        let old = json!({"type": "object", "properties": {"x": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}});
        let new = json!({"type": "object", "properties": {"x": {"anyOf": [{"type": "string"}]}}});
        assert_eq!(changes_between(old, new), [(TypeNarrowed, Breaking)]);
    }

    #[test]
    fn enum_values_removed_and_added() {
        let schema =
            |values: Value| json!({"type": "object", "properties": {"unit": {"type": "string", "enum": values}}});
        assert_eq!(
            changes_between(schema(json!(["c", "f", "k"])), schema(json!(["c", "f"]))),
            [(EnumValueRemoved, Breaking)]
        );
        assert_eq!(changes_between(schema(json!(["c"])), schema(json!(["c", "f"]))), [(EnumValueAdded, Compatible)]);
        let free = json!({"type": "object", "properties": {"unit": {"type": "string"}}});
        assert_eq!(changes_between(free.clone(), schema(json!(["c"]))), [(TypeNarrowed, Breaking)]);
        assert_eq!(changes_between(schema(json!(["c"])), free), [(TypeWidened, Compatible)]);
    }

    #[test]
    fn a_one_of_const_enum_is_an_enum() {
        let schema = |values: &[&str]| {
            let variants: Vec<Value> = values.iter().map(|v| json!({"type": "string", "const": v})).collect();
            json!({"type": "object", "properties": {"unit": {"oneOf": variants}}})
        };
        let changes = compare(&tools(vec![tool("t", schema(&["c", "f"]))]), &tools(vec![tool("t", schema(&["c"]))]));
        assert_eq!(changes.len(), 1, "{changes:?}");
        assert_eq!(changes[0].kind, EnumValueRemoved);
        assert_eq!(changes[0].detail, "argument `unit` no longer allows \"f\"");
    }

    #[test]
    fn nested_properties_are_compared() {
        let old = json!({"type": "object", "properties": {"filter": {"type": "object", "properties": {
            "since": {"type": "string"}, "limit": {"type": "number"}}}}});
        let new = json!({"type": "object", "properties": {"filter": {"type": "object", "properties": {
            "limit": {"type": "integer"}, "tag": {"type": "string"}}, "required": ["tag"]}}});
        let changes = compare(&tools(vec![tool("t", old)]), &tools(vec![tool("t", new)]));
        let details: Vec<String> = changes.iter().map(ToString::to_string).collect();
        assert_eq!(
            details,
            [
                "breaking: tool `t`: argument `filter.limit` narrowed from number to integer",
                "breaking: tool `t`: argument `filter.since` removed",
                "breaking: tool `t`: new required argument `filter.tag`",
            ]
        );
    }

    #[test]
    fn array_items_are_compared() {
        let schema =
            |t: &str| json!({"type": "object", "properties": {"ids": {"type": "array", "items": {"type": t}}}});
        let changes = compare(&tools(vec![tool("t", schema("number"))]), &tools(vec![tool("t", schema("integer"))]));
        assert_eq!(changes[0].detail, "argument `ids[]` narrowed from number to integer");
    }

    #[test]
    fn defs_are_followed_and_compare_like_their_inlined_form() {
        let inlined = json!({"type": "object", "properties": {"where": {"type": "object",
            "properties": {"city": {"type": "string"}, "units": {"type": "string", "enum": ["c", "f"]}}, "required": ["city"]}}});
        let with_defs = json!({"type": "object", "properties": {"where": {"$ref": "#/$defs/Place"}},
            "$defs": {"Place": {"type": "object", "properties": {"city": {"type": "string"}, "units": {"$ref": "#/$defs/Units"}}, "required": ["city"]},
                      "Units": {"type": "string", "enum": ["c", "f"]}}});
        assert_eq!(changes_between(inlined.clone(), with_defs.clone()), []);
        assert_eq!(changes_between(with_defs.clone(), inlined), []);

        let mut narrowed = with_defs.clone();
        narrowed["$defs"]["Units"]["enum"] = json!(["c"]);
        narrowed["$defs"]["Place"]["required"] = json!(["city", "units"]);
        let changes = compare(&tools(vec![tool("t", with_defs)]), &tools(vec![tool("t", narrowed)]));
        let details: Vec<&str> = changes.iter().map(|c| c.detail.as_str()).collect();
        assert_eq!(
            details,
            ["argument `where.units` is now required", "argument `where.units` no longer allows \"f\""]
        );
    }

    #[test]
    fn recursive_defs_end() {
        let tree = json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}});
        assert_eq!(changes_between(tree.clone(), tree), []);
    }

    #[test]
    fn output_fields_read_the_other_way() {
        let with_output =
            |output: Value| json!({"name": "t", "inputSchema": {"type": "object"}, "outputSchema": output});
        let old = with_output(json!({"type": "object", "properties": {
            "total": {"type": "integer"}, "unit": {"type": "string", "enum": ["c"]}, "note": {"type": "string"}}, "required": ["total", "note"]}));
        let new = with_output(json!({"type": "object", "properties": {
            "total": {"type": "number"}, "unit": {"type": "string", "enum": ["c", "f"]}, "note": {"type": "string"}, "extra": {"type": "string"}},
            "required": ["total"]}));
        let changes = compare(&tools(vec![old.clone()]), &tools(vec![new]));
        let kinds: Vec<_> = changes.iter().map(|c| (c.kind, c.severity)).collect();
        assert_eq!(
            kinds,
            [
                (OutputFieldNoLongerRequired, Breaking), // note
                (TypeWidened, Breaking),                 // total: integer -> number
                (EnumValueAdded, Breaking),              // unit
                (OutputFieldAdded, Compatible),          // extra
            ]
        );
        let removed =
            with_output(json!({"type": "object", "properties": {"total": {"type": "integer"}}, "required": ["total"]}));
        let changes = compare(&tools(vec![old.clone()]), &tools(vec![removed]));
        assert!(changes.iter().any(|c| c.kind == OutputFieldRemoved && c.detail == "output field `unit` removed"));
        let without = json!({"name": "t", "inputSchema": {"type": "object"}});
        assert_eq!(compare(&tools(vec![old.clone()]), &tools(vec![without.clone()]))[0].kind, OutputSchemaRemoved);
        let added = compare(&tools(vec![without]), &tools(vec![old]));
        assert_eq!((added[0].kind, added[0].severity), (OutputSchemaAdded, Compatible));
    }

    #[test]
    fn annotation_changes_are_reported_as_compatible() {
        let mut old = adder();
        old["annotations"] = json!({"readOnlyHint": true});
        let mut new = adder();
        new["annotations"] = json!({"readOnlyHint": false, "destructiveHint": true});
        let changes = compare(&tools(vec![old]), &tools(vec![new]));
        assert_eq!(changes.len(), 2);
        assert!(changes.iter().all(|c| c.kind == AnnotationChanged && c.severity == Compatible));
        assert!(changes.iter().any(|c| c.detail == "annotation `readOnlyHint` changed from true to false"));
    }

    #[test]
    fn resources_templates_and_prompts() {
        let old = Surface::from_lists(
            &[],
            &[json!({"uri": "docs://a", "name": "a"}), json!({"uri": "docs://b", "name": "b"})],
            &[json!({"uriTemplate": "notes://{id}", "name": "note"})],
            &[json!({"name": "review", "arguments": [
                {"name": "code", "required": true}, {"name": "language"}, {"name": "style", "required": true}, {"name": "old"}]})],
        );
        let new = Surface::from_lists(
            &[],
            &[json!({"uri": "docs://a", "name": "a"}), json!({"uri": "docs://c", "name": "c"})],
            &[json!({"uriTemplate": "notes://{id}/v2", "name": "note"})],
            &[
                json!({"name": "review", "arguments": [
                {"name": "code", "required": true}, {"name": "language", "required": true}, {"name": "style"},
                {"name": "tone"}, {"name": "focus", "required": true}]}),
                json!({"name": "summarize"}),
            ],
        );
        let changes: Vec<String> = compare(&old, &new).iter().map(ToString::to_string).collect();
        assert_eq!(
            changes,
            [
                "breaking: resource `docs://b`: removed",
                "breaking: resource template `notes://{id}`: removed",
                "breaking: prompt `review`: argument `language` is now required",
                "breaking: prompt `review`: argument `old` removed",
                "breaking: prompt `review`: new required argument `focus`",
                "compatible: resource `docs://c`: added",
                "compatible: resource template `notes://{id}/v2`: added",
                "compatible: prompt `review`: argument `style` is now optional",
                "compatible: prompt `review`: new optional argument `tone`",
                "compatible: prompt `summarize`: added",
            ]
        );
    }

    #[test]
    fn a_schema_that_said_nothing_and_now_says_a_type_is_narrowed() {
        let old = json!({"type": "object", "properties": {"x": {}}});
        let new = json!({"type": "object", "properties": {"x": {"type": "string"}}});
        assert_eq!(changes_between(old.clone(), new.clone()), [(TypeNarrowed, Breaking)]);
        assert_eq!(changes_between(new, old), [(TypeWidened, Compatible)]);
    }
}
