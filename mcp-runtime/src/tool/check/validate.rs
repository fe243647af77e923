//! A compiled [`Schema`] run on a value: each keyword's check, a problem for each broken rule
//! (built only then), branches of `anyOf`, `oneOf`, `not`, `if` and `contains` tried quietly,
//! stopping at their first failure.

use super::json::{compare, equal, has_duplicates, is_integer, is_multiple};
use super::messages::{Path, Problem, count, not_of_type, not_one_of, quote};
use super::schema::{Bound, Keyword, Keywords, Members, Node, NodeId, Schema, Types};
use serde_json::{Map, Value};
use std::cmp::Ordering;

/// How deep subschemas may nest on one value's path: beyond, a value is refused rather than
/// the stack risked. A compiled schema has no loop that stays on one value (`compile.rs`), and
/// serde_json nests values 128 deep at most, so only a contrived schema comes near.
const MAX_DEPTH: usize = 1024;

/// Whether `value` is valid under `schema`.
pub(super) fn is_valid(schema: &Schema, value: &Value) -> bool {
    Walk { nodes: &schema.nodes, report: None }.node(Schema::ROOT, value, &Path::Root, "$ref", 0)
}

/// The problems of `value` under `schema`: the first `limit`, and one more if there are more.
pub(super) fn problems(schema: &Schema, value: &Value, limit: usize) -> Vec<Problem> {
    let mut report = Report { problems: Vec::new(), limit };
    Walk { nodes: &schema.nodes, report: Some(&mut report) }.node(Schema::ROOT, value, &Path::Root, "$ref", 0);
    report.problems
}

struct Report {
    problems: Vec<Problem>,
    limit: usize,
}

struct Walk<'s, 'r> {
    nodes: &'s [Node],
    /// Where problems go; `None` when a branch is tried quietly.
    report: Option<&'r mut Report>,
}

impl Walk<'_, '_> {
    /// Whether to go on after a failure: only when collecting and not yet past the limit.
    fn collecting(&self) -> bool {
        self.report.as_ref().is_some_and(|report| report.problems.len() <= report.limit)
    }

    /// Records a problem (when collecting); always `false`, the result of the check.
    fn fail(&mut self, at: &Path<'_>, keyword: &'static str, what: impl FnOnce() -> String) -> bool {
        if let Some(report) = self.report.as_deref_mut()
            && report.problems.len() <= report.limit
        {
            report.problems.push(Problem::new(at, keyword, what()));
        }
        false
    }

    /// `n`, a count of `value`'s characters, items or properties, against its `bound`.
    fn counted(&mut self, at: &Path<'_>, value: &Value, n: u64, bound: &Bound, limit: u64, counted: &Counted) -> bool {
        let (ok, side) = match bound {
            Bound::Minimum => (n >= limit, 0),
            _ => (n <= limit, 1),
        };
        ok || self.fail(at, counted.keywords[side], || {
            format!("{} {} {}", quote(value), counted.words[side], count(limit, counted.noun))
        })
    }

    /// Whether `value` is valid under node `id`, tried quietly.
    fn valid(&self, id: NodeId, value: &Value, depth: usize) -> bool {
        Walk { nodes: self.nodes, report: None }.node(id, value, &Path::Root, "$ref", depth)
    }

    /// Checks `value` against node `id`, reached through keyword `via` (which a `false`
    /// schema's problem names).
    fn node(&mut self, id: NodeId, value: &Value, at: &Path<'_>, via: &'static str, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return self.fail(at, via, || "is nested too deeply to check".to_owned());
        }
        let keywords = match &self.nodes[id] {
            Node::Bool(true) => return true,
            Node::Bool(false) => return self.fail(at, via, || "not allowed".to_owned()),
            Node::Keywords(keywords) => keywords,
        };
        let mut valid = true;
        for check in &keywords.checks {
            if !self.check(check, value, at, depth + 1) {
                valid = false;
                if !self.collecting() {
                    return false;
                }
            }
        }
        if keywords.unevaluated_properties.is_some() || keywords.unevaluated_items.is_some() {
            valid &= self.unevaluated(id, keywords, value, at, depth + 1);
        }
        valid
    }

    fn check(&mut self, check: &Keyword, value: &Value, at: &Path<'_>, depth: usize) -> bool {
        match (check, value) {
            (Keyword::Type(types), value) => {
                types_match(*types, value)
                    || self.fail(at, "type", || {
                        let names: Vec<&str> =
                            (0..7).filter(|bit| types.0 & (1 << bit) != 0).map(|bit| Types::NAMES[bit]).collect();
                        not_of_type(value, &names)
                    })
            }
            (Keyword::Enum(options), value) => {
                options.iter().any(|option| equal(option, value))
                    || self.fail(at, "enum", || not_one_of(value, options))
            }
            (Keyword::Const(expected), value) => {
                equal(expected, value) || self.fail(at, "const", || format!("{} was expected", quote(expected)))
            }
            (Keyword::Number(bound, limit), Value::Number(n)) => {
                let order = compare(n, limit);
                let (ok, keyword, what) = match bound {
                    Bound::Minimum => (order != Some(Ordering::Less), "minimum", "less than the minimum of"),
                    Bound::Maximum => (order != Some(Ordering::Greater), "maximum", "greater than the maximum of"),
                    Bound::ExclusiveMinimum => {
                        (order == Some(Ordering::Greater), "exclusiveMinimum", "less than or equal to the minimum of")
                    }
                    Bound::ExclusiveMaximum => {
                        (order == Some(Ordering::Less), "exclusiveMaximum", "greater than or equal to the maximum of")
                    }
                };
                ok || self.fail(at, keyword, || format!("{n} is {what} {limit}"))
            }
            (Keyword::MultipleOf(of), Value::Number(n)) => {
                is_multiple(n, of) || self.fail(at, "multipleOf", || format!("{n} is not a multiple of {of}"))
            }
            (Keyword::Length(bound, limit), Value::String(text)) => {
                // Counted only as far as the limit needs: a long string costs no more than its bound.
                let length = text.chars().take(*limit as usize + 1).count() as u64;
                self.counted(at, value, length, bound, *limit, &LENGTH)
            }
            (Keyword::Pattern(regex, pattern), Value::String(text)) => {
                regex.is_match(text)
                    || self.fail(at, "pattern", || format!("{} does not match \"{pattern}\"", quote(value)))
            }
            (Keyword::Format(format), Value::String(text)) => {
                format.accepts(text)
                    || self.fail(at, "format", || format!("{} is not a \"{}\"", quote(value), format.name()))
            }
            (Keyword::Items(bound, limit), Value::Array(items)) => {
                self.counted(at, value, items.len() as u64, bound, *limit, &ITEMS)
            }
            (Keyword::UniqueItems, Value::Array(items)) => {
                !has_duplicates(items)
                    || self.fail(at, "uniqueItems", || format!("{} has non-unique elements", quote(value)))
            }
            (Keyword::Contains { schema, min, max }, Value::Array(items)) => {
                let mut matching = 0u64;
                for item in items {
                    if self.valid(*schema, item, depth) {
                        matching += 1;
                        if max.is_none() && matching >= *min {
                            return true;
                        }
                    }
                }
                if matching < *min {
                    return self.fail(at, if *min == 1 { "contains" } else { "minContains" }, || match min {
                        1 => format!("{} does not contain items matching the given schema", quote(value)),
                        min => format!("{} contains fewer than {min} matching items", quote(value)),
                    });
                }
                max.is_none_or(|max| matching <= max)
                    || self.fail(at, "maxContains", || {
                        format!("{} contains more than {} matching items", quote(value), max.unwrap_or_default())
                    })
            }
            (Keyword::Properties(bound, limit), Value::Object(members)) => {
                self.counted(at, value, members.len() as u64, bound, *limit, &PROPERTIES)
            }
            (Keyword::Required(names), Value::Object(members)) => self.required(names, members, at, "required", None),
            (Keyword::DependentRequired(dependencies), Value::Object(members)) => {
                let mut valid = true;
                for (name, required) in dependencies.iter().filter(|(name, _)| members.contains_key(name)) {
                    valid &= self.required(required, members, at, "dependentRequired", Some(name));
                    if !valid && !self.collecting() {
                        return false;
                    }
                }
                valid
            }
            (Keyword::DependentSchemas(schemas), Value::Object(members)) => {
                let mut valid = true;
                for (_, id) in schemas.iter().filter(|(name, _)| members.contains_key(name)) {
                    valid &= self.node(*id, value, at, "dependentSchemas", depth);
                    if !valid && !self.collecting() {
                        return false;
                    }
                }
                valid
            }
            (Keyword::Members(schemas), Value::Object(members)) => self.members(schemas, members, at, depth),
            (Keyword::PropertyNames(id), Value::Object(members)) => {
                for name in members.keys() {
                    // A name is checked as a string value: the one copy this keyword makes.
                    let name_value = Value::String(name.clone());
                    if !self.valid(*id, &name_value, depth) {
                        return self.fail(at, "propertyNames", || {
                            format!("{} is not a valid property name", quote(&name_value))
                        });
                    }
                }
                true
            }
            (Keyword::Elements { prefix, rest }, Value::Array(items)) => {
                let mut valid = true;
                for (i, item) in items.iter().enumerate() {
                    let (id, via) = match prefix.get(i) {
                        Some(id) => (*id, "prefixItems"),
                        None => match rest {
                            Some(id) => (*id, "items"),
                            None => break,
                        },
                    };
                    valid &= self.node(id, item, &Path::Item(at, i), via, depth);
                    if !valid && !self.collecting() {
                        return false;
                    }
                }
                valid
            }
            (Keyword::AllOf(ids), value) => {
                let mut valid = true;
                for id in ids {
                    valid &= self.node(*id, value, at, "allOf", depth);
                    if !valid && !self.collecting() {
                        return false;
                    }
                }
                valid
            }
            (Keyword::AnyOf(ids), value) => {
                ids.iter().any(|id| self.valid(*id, value, depth))
                    || self.fail(at, "anyOf", || {
                        format!("{} is not valid under any of the schemas listed in the 'anyOf' keyword", quote(value))
                    })
            }
            (Keyword::OneOf(ids), value) => {
                let mut valid = ids.iter().filter(|id| self.valid(**id, value, depth));
                match (valid.next(), valid.next()) {
                    (Some(_), None) => true,
                    (None, _) => self.fail(at, "oneOf", || {
                        format!("{} is not valid under any of the schemas listed in the 'oneOf' keyword", quote(value))
                    }),
                    (Some(_), Some(_)) => self.fail(at, "oneOf", || {
                        format!(
                            "{} is valid under more than one of the schemas listed in the 'oneOf' keyword",
                            quote(value)
                        )
                    }),
                }
            }
            (Keyword::Not(id), value) => {
                !self.valid(*id, value, depth)
                    || self
                        .fail(at, "not", || format!("{} should not be valid under the schema of 'not'", quote(value)))
            }
            (Keyword::IfThenElse { condition, then, otherwise }, value) => {
                let (branch, via) = match self.valid(*condition, value, depth) {
                    true => (then, "then"),
                    false => (otherwise, "else"),
                };
                branch.is_none_or(|id| self.node(id, value, at, via, depth))
            }
            (Keyword::Ref(id), value) => self.node(*id, value, at, "$ref", depth),
            // A keyword about another type of value.
            _ => true,
        }
    }

    /// Each of `names` missing from `members` is a problem naming it.
    fn required(
        &mut self,
        names: &[String],
        members: &Map<String, Value>,
        at: &Path<'_>,
        keyword: &'static str,
        because: Option<&str>,
    ) -> bool {
        let mut valid = true;
        for name in names.iter().filter(|name| !members.contains_key(*name)) {
            valid = self.fail(&Path::Member(at, name), keyword, || match because {
                Some(present) => format!("missing, required when `{present}` is given"),
                None => "missing".to_owned(),
            });
            if !self.collecting() {
                return false;
            }
        }
        valid
    }

    fn members(&mut self, schemas: &Members, members: &Map<String, Value>, at: &Path<'_>, depth: usize) -> bool {
        let mut valid = true;
        if schemas.patterns.is_empty() && schemas.additional.is_none() {
            // Only `properties`: looked up by name, whatever else the object holds.
            for (name, id) in schemas.properties.iter() {
                if let Some(member) = members.get(name) {
                    valid &= self.node(*id, member, &Path::Member(at, name), "properties", depth);
                    if !valid && !self.collecting() {
                        return false;
                    }
                }
            }
            return valid;
        }
        for (name, member) in members {
            let here = Path::Member(at, name);
            let mut named = false;
            for (_, id) in schemas.properties.iter().filter(|(known, _)| known == name) {
                named = true;
                valid &= self.node(*id, member, &here, "properties", depth);
            }
            for (_, id) in schemas.patterns.iter().filter(|(regex, _)| regex.is_match(name)) {
                named = true;
                valid &= self.node(*id, member, &here, "patternProperties", depth);
            }
            if let Some(id) = schemas.additional.filter(|_| !named) {
                valid &= self.node(id, member, &here, "additionalProperties", depth);
            }
            if !valid && !self.collecting() {
                return false;
            }
        }
        valid
    }

    /// `unevaluatedProperties` and `unevaluatedItems` of node `id`: applied to the members and
    /// items none of its other keywords evaluated, counting only subschemas that held.
    fn unevaluated(&mut self, id: NodeId, keywords: &Keywords, value: &Value, at: &Path<'_>, depth: usize) -> bool {
        let mut valid = true;
        if let (Some(schema), Value::Object(members)) = (keywords.unevaluated_properties, value) {
            let mut evaluated = Vec::new();
            self.evaluated_members(id, value, &mut evaluated, true, depth);
            for (name, member) in members.iter().filter(|(name, _)| !evaluated.contains(&name.as_str())) {
                valid &= self.node(schema, member, &Path::Member(at, name), "unevaluatedProperties", depth);
                if !valid && !self.collecting() {
                    return false;
                }
            }
        }
        if let (Some(schema), Value::Array(items)) = (keywords.unevaluated_items, value) {
            let mut evaluated = vec![false; items.len()];
            self.evaluated_items(id, value, &mut evaluated, true, depth);
            for (i, item) in items.iter().enumerate().filter(|(i, _)| !evaluated[*i]) {
                valid &= self.node(schema, item, &Path::Item(at, i), "unevaluatedItems", depth);
                if !valid && !self.collecting() {
                    return false;
                }
            }
        }
        valid
    }

    /// The subschemas node `id` applies in place to `value` that hold there, after `id` itself.
    fn holding(&self, id: NodeId, value: &Value, depth: usize) -> Vec<NodeId> {
        let Node::Keywords(keywords) = &self.nodes[id] else { return Vec::new() };
        let mut holding = Vec::new();
        for check in &keywords.checks {
            match check {
                Keyword::Ref(next) => holding.push(*next),
                Keyword::AllOf(ids) | Keyword::AnyOf(ids) | Keyword::OneOf(ids) => holding.extend(ids.iter().copied()),
                Keyword::DependentSchemas(pairs) => {
                    let present = |name: &String| value.as_object().is_some_and(|m| m.contains_key(name));
                    holding.extend(pairs.iter().filter(|(name, _)| present(name)).map(|(_, id)| *id));
                }
                Keyword::IfThenElse { condition, then, otherwise } => match self.valid(*condition, value, depth) {
                    true => holding.extend([Some(*condition), *then].into_iter().flatten()),
                    false => holding.extend(*otherwise),
                },
                _ => {}
            }
        }
        holding.retain(|next| self.valid(*next, value, depth));
        holding
    }

    /// The names of `value`'s members that node `id` (and the subschemas of it that hold)
    /// evaluated; `own`: `id` is the node asking, whose own `unevaluatedProperties` is not counted.
    fn evaluated_members<'v>(&self, id: NodeId, value: &'v Value, out: &mut Vec<&'v str>, own: bool, depth: usize) {
        let (Node::Keywords(keywords), Value::Object(members)) = (&self.nodes[id], value) else { return };
        if depth > MAX_DEPTH {
            return;
        }
        if !own && keywords.unevaluated_properties.is_some() {
            out.extend(members.keys().map(String::as_str));
            return;
        }
        for check in &keywords.checks {
            if let Keyword::Members(schemas) = check {
                let all = schemas.additional.is_some();
                out.extend(members.keys().filter(|name| all || schemas.names(name)).map(String::as_str));
            }
        }
        for next in self.holding(id, value, depth) {
            self.evaluated_members(next, value, out, false, depth + 1);
        }
    }

    /// Which of `value`'s items node `id` evaluated, likewise.
    fn evaluated_items(&self, id: NodeId, value: &Value, out: &mut [bool], own: bool, depth: usize) {
        let (Node::Keywords(keywords), Value::Array(items)) = (&self.nodes[id], value) else { return };
        if depth > MAX_DEPTH {
            return;
        }
        if !own && keywords.unevaluated_items.is_some() {
            out.fill(true);
            return;
        }
        for check in &keywords.checks {
            match check {
                Keyword::Elements { prefix, rest } => {
                    let end = if rest.is_some() { items.len() } else { prefix.len().min(items.len()) };
                    out[..end].fill(true);
                }
                Keyword::Contains { schema, .. } => {
                    for (i, item) in items.iter().enumerate() {
                        out[i] |= self.valid(*schema, item, depth);
                    }
                }
                _ => {}
            }
        }
        for next in self.holding(id, value, depth) {
            self.evaluated_items(next, value, out, false, depth + 1);
        }
    }
}

fn types_match(types: Types, value: &Value) -> bool {
    let bit = match value {
        Value::Null => Types::NULL,
        Value::Bool(_) => Types::BOOLEAN,
        Value::Object(_) => Types::OBJECT,
        Value::Array(_) => Types::ARRAY,
        Value::String(_) => Types::STRING,
        Value::Number(n) => {
            let integer = if is_integer(n) { Types::INTEGER } else { 0 };
            return types.0 & (Types::NUMBER | integer) != 0;
        }
    };
    types.0 & bit != 0
}

/// How a count's bounds are named: their keywords and what a value breaking each is (the
/// minimum's, then the maximum's), and what is counted.
struct Counted {
    keywords: [&'static str; 2],
    words: [&'static str; 2],
    noun: &'static str,
}

const LENGTH: Counted =
    Counted { keywords: ["minLength", "maxLength"], words: ["is shorter than", "is longer than"], noun: "character" };
const ITEMS: Counted =
    Counted { keywords: ["minItems", "maxItems"], words: ["has less than", "has more than"], noun: "item" };
const PROPERTIES: Counted = Counted {
    keywords: ["minProperties", "maxProperties"],
    words: ["has less than", "has more than"],
    noun: "property",
};
