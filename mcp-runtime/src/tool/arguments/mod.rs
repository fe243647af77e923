//! A tool's arguments decoded one parameter at a time: what `#[mcp_tool]` expands to.
//!
//! The tool hands [`decode`] a slot per parameter (an [`Argument`] of its type, as a `&mut dyn`
//! [`Slot`]), and one pass over the object decodes each member where it stands into the slot its
//! name picks ([`object`]), then each absent one is filled as a derived struct would (its
//! default, `None` for an `Option`, else "missing field"). The pass is compiled once for every
//! tool, and each type's decoder once for every parameter of that type: a hundred tools taking a
//! `String` and a `u32` share two decoders, where a derived `Deserialize` per tool gave each its
//! own visitor, twice (once more under `serde_path_to_error` for the message of a failure):
//! two-thirds of a 103-tool server's LLVM IR (bench/NOTES.md, issue 37). The tool's code then
//! takes each parameter out of its slot ([`Argument::into_value`]), with no error left to handle.
//!
//! The answers are the derived struct's: unknown members are ignored, a member given twice is an
//! error, an absent one is `None` for an `Option` and "missing field" otherwise, and a failure
//! names the path to the value (`count`, `filter.range[1]`). Only an object the pass cannot finish
//! is read a second time ([`members`]), to word the error or to read keys written with escapes.

mod failure;
mod members;
mod missing;
mod object;
mod slot;

use crate::tool::result::CallToolResult;
use serde_json::value::RawValue;

pub use slot::{Argument, Slot};

/// Fills each slot from the member of `arguments` its name in `names` (same order) picks, or as
/// an absent member ([`Slot::fill_absent`]): once this returns `Ok`, every slot is filled.
pub fn decode(
    tool: &str,
    arguments: Option<&RawValue>,
    names: &[&str],
    slots: &mut [&mut dyn Slot],
) -> Result<(), CallToolResult> {
    debug_assert_eq!(names.len(), slots.len());
    let filled = match arguments {
        None => 0,
        Some(arguments) => match object::fill(arguments.get(), names, slots) {
            Some(filled) => filled,
            None => decode_members(tool, arguments.get(), names, slots)?,
        },
    };
    if filled < slots.len() {
        for (slot, name) in slots.iter_mut().zip(names) {
            if !slot.is_filled() && !slot.fill_absent() {
                return Err(failure::missing(tool, name));
            }
        }
    }
    Ok(())
}

/// [`decode`] for an object the one pass did not finish: split into its raw members first, which
/// words serde's error for an object it refuses, then each member decoded into its slot, in the
/// order of `names`, a failure naming the path to the bad value; how many it filled.
#[cold]
fn decode_members(
    tool: &str,
    object: &str,
    names: &[&str],
    slots: &mut [&mut dyn Slot],
) -> Result<usize, CallToolResult> {
    let members = members::split(object, names).map_err(|error| failure::invalid(tool, ".", &error))?;
    let mut filled = 0;
    for ((slot, name), member) in slots.iter_mut().zip(names).zip(members) {
        slot.clear();
        let Some(member) = member.map(RawValue::get) else { continue };
        if slot.fill(member).is_none() {
            return Err(slot.failure(tool, name, member));
        }
        filled += 1;
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::DeserializeOwned;

    fn raw(json: &str) -> Box<RawValue> {
        RawValue::from_string(json.to_owned()).unwrap()
    }

    fn error_text(result: CallToolResult) -> String {
        assert!(result.is_error);
        result.text().unwrap().to_owned()
    }

    /// `decode` into a slot of type `T` for the member `name`: the value, or the error's text.
    fn one<T: DeserializeOwned>(name: &str, arguments: &str) -> Result<T, String> {
        let mut slot = Argument::new();
        decode("t", Some(&raw(arguments)), &[name], &mut [&mut slot]).map_err(error_text)?;
        Ok(slot.into_value())
    }

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Range {
        min: u32,
        max: u32,
    }

    #[test]
    fn members_fill_their_slots_by_name_and_others_are_ignored() {
        let arguments = raw(r#"{"count": 3, "extra": {"deep": ["}", "\"", 2]}, "text": "hi"}"#);
        let (mut text, mut count, mut absent) = (Argument::new(), Argument::new(), Argument::<Option<bool>>::new());
        decode("t", Some(&arguments), &["text", "count", "absent"], &mut [&mut text, &mut count, &mut absent]).unwrap();
        assert_eq!((text.into_value(), count.into_value()), ("hi".to_owned(), 3u32));
        assert_eq!(absent.into_value(), None);
    }

    /// The common objects are read in one pass, each member decoded where it stands; only what
    /// the pass does not take is read again (as `members` splits it), to the same answers.
    #[test]
    fn one_pass_decodes_each_member_where_it_stands() {
        let names = ["text", "range"];
        let pass = |json: &str| {
            let (mut text, mut range) = (Argument::<String>::new(), Argument::<Range>::new());
            let finished = object::fill(json, &names, &mut [&mut text, &mut range]).is_some();
            (finished, text.value, range.value)
        };
        for json in [
            r#"{"text":"a","range":{"min":1,"max":2}}"#,
            " {\n \"range\" : { \"max\" : 2 , \"min\" : 1 } ,\t\"text\"\r: \"a\" } ",
            r#"{"other": [{"text": "b"}, "\\\"{"], "range": {"min": 1, "max": 2}, "text": "a", "é": 1e3}"#,
        ] {
            assert_eq!(pass(json), (true, Some("a".to_owned()), Some(Range { min: 1, max: 2 })), "{json}");
        }
        assert!(pass("{}").0 && pass(" { } ").0);
        for json in [r#"{"te\u0078t": "a"}"#, r#"{"text": "a", "text": "b"}"#, r#"{"text": 1}"#, "[1]", "null"] {
            assert!(!pass(json).0, "left to the second reading: {json}");
        }
        assert_eq!(one::<String>("text", r#"{"te\u0078t": "a"}"#), Ok("a".to_owned()), "an escaped key");
        let (mut count, mut text) = (Argument::new(), Argument::new());
        decode("t", Some(&raw(r#"{"count":2,"te\u0078t":"a"}"#)), &["count", "text"], &mut [&mut count, &mut text])
            .unwrap();
        assert_eq!((count.into_value(), text.into_value()), (2u32, "a".to_owned()), "filled again");
    }

    #[test]
    fn an_object_the_pass_refuses_gets_serdes_answer() {
        let error = one::<String>("text", r#"{"text": "a", "text": "b"}"#).unwrap_err();
        assert_eq!(error, "invalid arguments for tool `t`: duplicate field `text`");
        let error = one::<u32>("count", r#"{"count": "x", "count": 1}"#).unwrap_err();
        assert_eq!(error, "invalid arguments for tool `t`: duplicate field `count`", "before the bad value");
        let error = one::<u32>("count", "[1]").unwrap_err();
        assert_eq!(error, "invalid arguments for tool `t`: invalid type: sequence, expected an object of arguments");
    }

    #[test]
    fn an_absent_member_is_its_default_none_for_an_option_and_missing_otherwise() {
        assert_eq!(one::<Option<u32>>("count", "{}"), Ok(None));
        assert_eq!(one::<Option<u32>>("count", r#"{"count": null}"#), Ok(None));
        assert_eq!(one::<u32>("count", "{}"), Err("invalid arguments for tool `t`: missing field `count`".into()));
        let mut count = Argument::with_default(|| 7u32);
        decode("t", None, &["count"], &mut [&mut count]).unwrap();
        assert_eq!(count.into_value(), 7, "no arguments at all");
        let mut count = Argument::with_default(|| 7u32);
        decode("t", Some(&raw(r#"{"count":2}"#)), &["count"], &mut [&mut count]).unwrap();
        assert_eq!(count.into_value(), 2);
        let (mut count, mut text) = (Argument::<u32>::new(), Argument::<u32>::new());
        let error = decode("t", Some(&raw(r#"{"text": "x"}"#)), &["count", "text"], &mut [&mut count, &mut text]);
        assert!(error_text(error.unwrap_err()).contains("`text`: invalid type"), "a bad value before a missing one");
    }

    #[test]
    fn a_failure_names_the_path_to_the_bad_value() {
        let error = one::<u32>("count", r#"{"count": "x"}"#).unwrap_err();
        assert_eq!(error, "invalid arguments for tool `t`: `count`: invalid type: string \"x\", expected u32");
        let error = one::<Range>("range", r#"{"range": {"min": 1, "max": -1}}"#).unwrap_err();
        assert_eq!(error, "invalid arguments for tool `t`: `range.max`: invalid value: integer `-1`, expected u32");
        let error = one::<Vec<Range>>("ranges", r#"{"ranges": [{"min": 1, "max": 2}, {"min": 1}]}"#);
        assert_eq!(error.unwrap_err(), "invalid arguments for tool `t`: `ranges[1]`: missing field `max`");
        let decoded = one::<Vec<Range>>("ranges", r#"{"ranges": [{"min": 1, "max": 2}]}"#).unwrap();
        assert_eq!(decoded, [Range { min: 1, max: 2 }]);
    }

    #[test]
    fn a_parameter_the_server_provides_needs_no_member() {
        let shape = std::marker::PhantomData::<crate::param::NotAnArgument>;
        let (mut sent, mut left_out) = (Argument::shaped(shape), Argument::shaped(shape));
        decode(
            "t",
            Some(&raw(r#"{"context": {"any": "thing"}}"#)),
            &["context", "other"],
            &mut [&mut sent, &mut left_out],
        )
        .unwrap();
        assert!(sent.is_filled() && left_out.is_filled());
    }
}
