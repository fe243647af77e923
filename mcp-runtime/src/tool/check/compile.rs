//! A schema document compiled into [`Schema`]'s tree, once per tool. What this validator cannot
//! check (a `$ref` outside the document, `$dynamicRef`, a pattern `regex-lite` does not
//! support) is an [`Unchecked`], so the tool fails closed: its author meant a constraint. A
//! keyword whose value is malformed (`"type": "int"`, as httpbin's Swagger document says, a
//! `maximum` written as a string) means nothing a validator could check: it is ignored and
//! reported, and the rest of the schema is enforced.

use super::format::Format;
use super::pattern;
use super::resources::{Resources, escape};
use super::schema::{Bound, Keyword, Keywords, Members, Node, NodeId, Schema, Types};
use regex_lite::Regex;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// A part of a schema this build cannot check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Unchecked {
    /// Its JSON pointer in the schema (`/properties/name/pattern`).
    pub at: String,
    /// The keyword.
    pub keyword: String,
    /// Why.
    pub why: String,
}

/// Keywords with a meaning this validator does not implement: a schema using one is not
/// checked as its author meant, so it fails closed.
const UNSUPPORTED: [&str; 4] = ["$dynamicRef", "$recursiveRef", "$recursiveAnchor", "$vocabulary"];

/// A schema compiled, and the keywords it ignores for their malformed values.
pub(super) struct Compilation {
    pub schema: Schema,
    pub ignored: Vec<Unchecked>,
}

/// `document` compiled, or every part of it that cannot be checked.
pub(super) fn compile(document: &Value) -> Result<Compilation, Vec<Unchecked>> {
    let mut compiler = Compiler {
        document,
        resources: Resources::of(document),
        nodes: Vec::new(),
        compiled: HashMap::new(),
        unchecked: Vec::new(),
        ignored: Vec::new(),
    };
    compiler.node("");
    if compiler.unchecked.is_empty() {
        compiler.refuse_loops();
    }
    match compiler.unchecked.is_empty() {
        true => Ok(Compilation { schema: Schema { nodes: compiler.nodes }, ignored: compiler.ignored }),
        false => Err(compiler.unchecked),
    }
}

struct Compiler<'d> {
    document: &'d Value,
    resources: Resources,
    nodes: Vec<Node>,
    /// Subschemas compiled (or being compiled) by their JSON pointer: a `$ref` back to one
    /// is an edge to its node.
    compiled: HashMap<String, NodeId>,
    unchecked: Vec<Unchecked>,
    /// Keywords whose values are malformed.
    ignored: Vec<Unchecked>,
}

impl Compiler<'_> {
    /// The node of the subschema at `pointer`, compiled once.
    fn node(&mut self, pointer: &str) -> NodeId {
        if let Some(id) = self.compiled.get(pointer) {
            return *id;
        }
        let id = self.nodes.len();
        self.nodes.push(Node::Bool(true));
        self.compiled.insert(pointer.to_owned(), id);
        let node = match self.document.pointer(pointer) {
            Some(Value::Bool(accepts)) => Node::Bool(*accepts),
            Some(Value::Object(keywords)) => Node::Keywords(self.keywords(keywords, pointer)),
            _ => {
                self.refuse(pointer, "$ref", "it does not lead to a schema");
                Node::Bool(false)
            }
        };
        self.nodes[id] = node;
        id
    }

    fn refuse(&mut self, at: &str, keyword: &str, why: impl Into<String>) {
        self.unchecked.push(Unchecked { at: at.to_owned(), keyword: keyword.to_owned(), why: why.into() });
    }

    fn ignore(&mut self, at: &str, keyword: &str) {
        let why = "its value is malformed".to_owned();
        self.ignored.push(Unchecked { at: at.to_owned(), keyword: keyword.to_owned(), why });
    }

    fn keywords(&mut self, schema: &Map<String, Value>, pointer: &str) -> Keywords {
        let mut out = Keywords::default();
        let at = |keyword: &str| format!("{pointer}/{}", escape(keyword));
        for (keyword, value) in schema {
            let k = keyword.as_str();
            if UNSUPPORTED.contains(&k) {
                self.refuse(&at(k), k, "this validator does not implement it");
                continue;
            }
            let check = match k {
                "type" => self.types(value).map(Keyword::Type),
                "enum" => value.as_array().map(|options| Keyword::Enum(options.clone().into())),
                "const" => Some(Keyword::Const(value.clone())),
                "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
                    let bound = match k {
                        "minimum" => Bound::Minimum,
                        "maximum" => Bound::Maximum,
                        "exclusiveMinimum" => Bound::ExclusiveMinimum,
                        _ => Bound::ExclusiveMaximum,
                    };
                    value.as_number().map(|n| Keyword::Number(bound, n.clone()))
                }
                "multipleOf" => {
                    value.as_number().filter(|n| n.as_f64().is_some_and(|f| f > 0.0)).cloned().map(Keyword::MultipleOf)
                }
                "minLength" => count(value).map(|n| Keyword::Length(Bound::Minimum, n)),
                "maxLength" => count(value).map(|n| Keyword::Length(Bound::Maximum, n)),
                "minItems" => count(value).map(|n| Keyword::Items(Bound::Minimum, n)),
                "maxItems" => count(value).map(|n| Keyword::Items(Bound::Maximum, n)),
                "minProperties" => count(value).map(|n| Keyword::Properties(Bound::Minimum, n)),
                "maxProperties" => count(value).map(|n| Keyword::Properties(Bound::Maximum, n)),
                "uniqueItems" => match value {
                    Value::Bool(true) => Some(Keyword::UniqueItems),
                    Value::Bool(false) => continue,
                    _ => None,
                },
                "pattern" => match value.as_str() {
                    Some(pattern) => match self.regex(pattern, &at(k), k) {
                        Some(regex) => Some(Keyword::Pattern(regex, pattern.into())),
                        None => continue,
                    },
                    None => None,
                },
                "format" => match value.as_str() {
                    // An unknown format annotates.
                    Some(name) => match Format::named(name) {
                        Some(format) => Some(Keyword::Format(format)),
                        None => continue,
                    },
                    None => None,
                },
                "required" => names(value).map(Keyword::Required),
                "dependentRequired" => self.dependent_required(value),
                "dependentSchemas" => self.schema_map(value, &at(k)).map(Keyword::DependentSchemas),
                // Draft 7's `dependencies`: a list of names or a schema, per name.
                "dependencies" => self.dependencies(value, &at(k)),
                "contains" => {
                    let min = match schema.get("minContains") {
                        Some(min) => count(min),
                        None => Some(1),
                    };
                    let max = schema.get("maxContains").map(count);
                    match (min, max) {
                        (Some(min), None) => Some(Keyword::Contains { schema: self.node(&at(k)), min, max: None }),
                        (Some(min), Some(Some(max))) => {
                            Some(Keyword::Contains { schema: self.node(&at(k)), min, max: Some(max) })
                        }
                        _ => {
                            self.refuse(&at(k), "minContains", "`minContains` or `maxContains` is not a count");
                            continue;
                        }
                    }
                }
                "properties" | "additionalProperties" if schema.contains_key("patternProperties") => continue,
                "properties" if schema.contains_key("additionalProperties") => continue,
                "properties" | "patternProperties" | "additionalProperties" => self.members(schema, pointer),
                "propertyNames" => Some(Keyword::PropertyNames(self.node(&at(k)))),
                "prefixItems" if schema.contains_key("items") => continue,
                "prefixItems" | "items" => self.elements(schema, pointer),
                "allOf" => self.schema_list(value, &at(k)).map(Keyword::AllOf),
                "anyOf" => self.schema_list(value, &at(k)).map(Keyword::AnyOf),
                "oneOf" => self.schema_list(value, &at(k)).map(Keyword::OneOf),
                "not" => Some(Keyword::Not(self.node(&at(k)))),
                "if" => {
                    let then = schema.contains_key("then").then(|| self.node(&at("then")));
                    let otherwise = schema.contains_key("else").then(|| self.node(&at("else")));
                    Some(Keyword::IfThenElse { condition: self.node(&at(k)), then, otherwise })
                }
                "$ref" => match value.as_str() {
                    Some(reference) => {
                        let base = self.resources.base_at(pointer).to_owned();
                        match self.resources.locate(&base, reference) {
                            Some(target) => Some(Keyword::Ref(self.node(&target))),
                            None => {
                                self.refuse(
                                    &at(k),
                                    k,
                                    format!("`{reference}` is outside the schema, and is not fetched"),
                                );
                                continue;
                            }
                        }
                    }
                    None => None,
                },
                "unevaluatedProperties" => {
                    out.unevaluated_properties = Some(self.node(&at(k)));
                    continue;
                }
                "unevaluatedItems" => {
                    out.unevaluated_items = Some(self.node(&at(k)));
                    continue;
                }
                // Annotations, keywords read with another (`then`, `minContains`...), and
                // keywords no vocabulary defines.
                _ => continue,
            };
            match check {
                Some(check) => out.checks.push(check),
                None => self.ignore(&at(k), k),
            }
        }
        out
    }

    fn types(&self, value: &Value) -> Option<Types> {
        let bit = |name: &Value| name.as_str().and_then(Types::bit);
        match value {
            Value::Array(names) => names.iter().try_fold(0, |bits, name| Some(bits | bit(name)?)).map(Types),
            name => bit(name).map(Types),
        }
    }

    fn regex(&mut self, pattern: &str, at: &str, keyword: &str) -> Option<Regex> {
        match pattern::compile(pattern) {
            Ok(regex) => Some(regex),
            Err(err) => {
                self.refuse(at, keyword, format!("regex-lite cannot compile `{pattern}`: {err}"));
                None
            }
        }
    }

    fn schema_list(&mut self, value: &Value, at: &str) -> Option<Box<[NodeId]>> {
        let list = value.as_array().filter(|list| !list.is_empty())?;
        Some((0..list.len()).map(|i| self.node(&format!("{at}/{i}"))).collect())
    }

    fn schema_map(&mut self, value: &Value, at: &str) -> Option<Box<[(String, NodeId)]>> {
        let map = value.as_object()?;
        Some(map.keys().map(|name| (name.clone(), self.node(&format!("{at}/{}", escape(name))))).collect())
    }

    fn dependent_required(&self, value: &Value) -> Option<Keyword> {
        let map = value.as_object()?;
        let pairs = map.iter().map(|(name, required)| Some((name.clone(), names(required)?)));
        pairs.collect::<Option<Box<[_]>>>().map(Keyword::DependentRequired)
    }

    fn dependencies(&mut self, value: &Value, at: &str) -> Option<Keyword> {
        let map = value.as_object()?;
        let (mut required, mut schemas) = (Vec::new(), Vec::new());
        for (name, dependency) in map {
            match dependency {
                Value::Array(_) => required.push((name.clone(), names(dependency)?)),
                _ => schemas.push((name.clone(), self.node(&format!("{at}/{}", escape(name))))),
            }
        }
        // Both kinds in one keyword: the schemas' check wraps the names' as an `allOf` would.
        let required = Keyword::DependentRequired(required.into());
        match schemas.is_empty() {
            true => Some(required),
            false => {
                let id = self.nodes.len();
                self.nodes.push(Node::Keywords(Keywords {
                    checks: vec![required, Keyword::DependentSchemas(schemas.into())],
                    ..Keywords::default()
                }));
                Some(Keyword::AllOf(Box::new([id])))
            }
        }
    }

    fn members(&mut self, schema: &Map<String, Value>, pointer: &str) -> Option<Keyword> {
        let at = |keyword: &str| format!("{pointer}/{keyword}");
        let properties = match schema.get("properties") {
            Some(value) => self.schema_map(value, &at("properties"))?,
            None => Box::default(),
        };
        let mut patterns = Vec::new();
        for name in
            schema.get("patternProperties").map(Value::as_object).unwrap_or_default().into_iter().flat_map(|m| m.keys())
        {
            let subschema = format!("{}/{}", at("patternProperties"), escape(name));
            if let Some(regex) = self.regex(name, &subschema, "patternProperties") {
                patterns.push((regex, self.node(&subschema)));
            }
        }
        if schema.get("patternProperties").is_some_and(|p| !p.is_object()) {
            return None;
        }
        let additional = schema.contains_key("additionalProperties").then(|| self.node(&at("additionalProperties")));
        Some(Keyword::Members(Members { properties, patterns: patterns.into(), additional }))
    }

    fn elements(&mut self, schema: &Map<String, Value>, pointer: &str) -> Option<Keyword> {
        let at = |keyword: &str| format!("{pointer}/{keyword}");
        let (prefix, rest) = match (schema.get("prefixItems"), schema.get("items")) {
            // Draft 7's array form: the prefix, and `additionalItems` for the rest.
            (None, Some(Value::Array(_))) => {
                let rest = schema.contains_key("additionalItems").then(|| self.node(&at("additionalItems")));
                (self.schema_list(schema.get("items")?, &at("items"))?, rest)
            }
            (prefix, items) => {
                let prefix = match prefix {
                    Some(prefix) => self.schema_list(prefix, &at("prefixItems"))?,
                    None => Box::default(),
                };
                (prefix, items.map(|_| self.node(&at("items"))))
            }
        };
        Some(Keyword::Elements { prefix, rest })
    }

    /// Refuses a loop of subschemas applied to the same value (`{"$ref": "#"}` at the root):
    /// validating it would never end.
    fn refuse_loops(&mut self) {
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            New,
            Open,
            Done,
        }
        fn visit(nodes: &[Node], id: NodeId, marks: &mut [Mark]) -> bool {
            match marks[id] {
                Mark::Open => return true,
                Mark::Done => return false,
                Mark::New => {}
            }
            marks[id] = Mark::Open;
            let looped = in_place(&nodes[id]).any(|next| visit(nodes, next, marks));
            marks[id] = Mark::Done;
            looped
        }
        let mut marks = vec![Mark::New; self.nodes.len()];
        for id in 0..self.nodes.len() {
            if visit(&self.nodes, id, &mut marks) {
                let at = self.compiled.iter().find(|(_, n)| **n == id).map(|(p, _)| p.clone()).unwrap_or_default();
                self.refuse(&at, "$ref", "it leads back to itself without descending into the value");
                return;
            }
        }
    }
}

/// The subschemas a node applies to the value it is given (not to its members or items).
fn in_place(node: &Node) -> impl Iterator<Item = NodeId> + '_ {
    let checks = match node {
        Node::Keywords(keywords) => keywords.checks.as_slice(),
        Node::Bool(_) => &[],
    };
    checks.iter().flat_map(|check| -> Box<dyn Iterator<Item = NodeId> + '_> {
        match check {
            Keyword::Ref(id) | Keyword::Not(id) => Box::new(std::iter::once(*id)),
            Keyword::AllOf(ids) | Keyword::AnyOf(ids) | Keyword::OneOf(ids) => Box::new(ids.iter().copied()),
            Keyword::DependentSchemas(pairs) => Box::new(pairs.iter().map(|(_, id)| *id)),
            Keyword::IfThenElse { condition, then, otherwise } => {
                Box::new(std::iter::once(*condition).chain(*then).chain(*otherwise))
            }
            _ => Box::new(std::iter::empty()),
        }
    })
}

/// A non-negative integer (`5`, `5.0`).
fn count(value: &Value) -> Option<u64> {
    value.as_u64().or_else(|| value.as_f64().filter(|f| *f >= 0.0 && f.fract() == 0.0).map(|f| f as u64))
}

fn names(value: &Value) -> Option<Box<[String]>> {
    value.as_array()?.iter().map(|name| name.as_str().map(str::to_owned)).collect()
}
