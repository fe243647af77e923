//! What a handler parameter is, decided by its type (never its name): injected by the runtime
//! (its type implements [`FromContext`]) or an argument read from the request.
//!
//! Generated code asks `(&&Probe::<T>::new()).method(..)` for each parameter. Method resolution
//! tries the receiver types `&Probe<T>`, `&&Probe<T>`, then `Probe<T>` (autoref specialization,
//! as in `text_value.rs`, resolved at compile time for each concrete `T`), skipping impls whose
//! bounds `T` does not meet:
//!
//! 1. [`ProbeInjected`] on `&Probe<T>` for `T: FromContext`: the runtime provides it;
//! 2. [`ProbeArgument`] (tools: `T: Deserialize + JsonSchema`) and [`ProbeOther`] (prompts and
//!    resources: any other `T`, parsed from text) on `&&Probe<T>`;
//! 3. [`ProbeUnsupported`] on `Probe<T>` for a tool parameter that is neither: its method
//!    requires [`ToolParameter`], so it fails to compile with one message, on the user's type
//!    ([`ProbeUnsupportedOldSchemars`] in a crate on schemars 0.x, whose message names it).
//!
//! A tool's generated argument struct is generic over each such parameter's field type, which
//! [`ProbeArgument::slot`] (`T` itself) or [`ProbeInjected::slot`] ([`NotAnArgument`]) picks: the
//! derived `Deserialize` decodes a call in one pass, and the derived schema is the input schema
//! once `tool::schema` has removed the injected parameters' properties.

use crate::context::{Context, FromContext};
use crate::jsonrpc::ErrorObject;
use crate::required_state::RequiredState;
use crate::tool::CallToolResult;
use crate::tool::schema::NOT_AN_ARGUMENT;
use serde::de::DeserializeOwned;
use std::marker::PhantomData;

/// A tool parameter's type, when it is an argument: deserialized from the call's arguments and
/// described in the input schema. Reached only for a type that is not, so never implemented
/// where it is asked for: the message is the error.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter: it is neither an argument nor injected",
    label = "derive `Deserialize` and `JsonSchema` for this type, or implement `FromContext` to have it injected",
    note = "an argument's type is deserialized and described in the input schema: `#[derive(serde::Deserialize, schemars::JsonSchema)]`; a type that implements `mcp_runtime::FromContext` is provided by the runtime instead",
    note = "`SessionState<T>` is injected when `T: Serialize + Deserialize + Default` (a session store keeps it, and it moves with the session between replicas); for a value that does not serialize, use `LocalSessionState<T>`"
)]
pub trait ToolParameter {}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + schemars::JsonSchema> ToolParameter for T {}

/// [`ToolParameter`] in a crate whose `Cargo.toml` depends on schemars 0.x (the macros read
/// it): a `JsonSchema` derived there is schemars 0.x's trait, not the 1.x one the runtime reads,
/// so the message names the version instead of asking for a derive that is already written.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter: mcp-runtime reads schemars 1's `JsonSchema`, and this crate depends on schemars 0.x",
    label = "a `JsonSchema` derived with schemars 0.x is another trait: this type does not implement schemars 1's",
    note = "in Cargo.toml, write `schemars = \"1\"` (its derive is written the same way; a `#[schemars(..)]` attribute may need the 1.x spelling), or derive `mcp_runtime::prelude::JsonSchema`",
    note = "an argument's type derives `Deserialize` (serde 1) and `JsonSchema` (schemars 1); a type that implements `mcp_runtime::FromContext` is provided by the runtime instead"
)]
pub trait ToolParameterOldSchemars {}

#[diagnostic::do_not_recommend]
impl<T: ToolParameter> ToolParameterOldSchemars for T {}

/// A resource parameter that is not a variable of its URI template: only the runtime can
/// provide it. Reached only for a type that is not injected, so the message is the error.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is neither a variable of the resource's URI template nor provided by the runtime",
    label = "not a URI template variable, and not injected",
    note = "a resource's arguments are the variables of its URI template (name the parameter after one, e.g. `{{id}}`); other parameters are injected, and need a type that implements `mcp_runtime::FromContext` (`Context`, `State<T>`, ...)"
)]
pub trait ResourceInjected {}

#[diagnostic::do_not_recommend]
impl<T: FromContext> ResourceInjected for T {}

/// A parameter bound by a pattern (`(a, b): (i32, i32)`): only an injected one can be, as an
/// argument is named by its binding. Reached only for a type that is not injected.
#[diagnostic::on_unimplemented(
    message = "parameters must be plain names, they become argument names: `{Self}` is not injected",
    label = "write `name: Type` for an argument",
    note = "a pattern (`State(docs): State<Docs>`) binds only a parameter the runtime injects: a type that implements `mcp_runtime::FromContext`"
)]
pub trait PatternParameter {}

#[diagnostic::do_not_recommend]
impl<T: FromContext> PatternParameter for T {}

/// Whether a prompt argument's type parses from text, as the marker of
/// `TextValue::support` says. Implemented only by [`Parses`](crate::text_value::Parses).
#[diagnostic::on_unimplemented(
    message = "`{T}` cannot be a prompt or resource argument: it neither parses from text nor is injected",
    label = "implement `FromStr` or `Deserialize` for this type, or `FromContext` to have it injected",
    note = "arguments arrive as text: implement `std::str::FromStr` (with an `Err: Display`), or derive `serde::Deserialize` (the text is read as a JSON string, else as JSON); a type that implements `mcp_runtime::FromContext` is provided by the runtime instead"
)]
pub trait TextArgument<T> {}

#[diagnostic::do_not_recommend]
impl<T> TextArgument<T> for crate::text_value::Parses {}

/// The field of an injected parameter in a tool's argument struct: absent from the request
/// (a value sent anyway is ignored, as unknown arguments are), and dropped from the schema.
pub struct NotAnArgument;

impl<'de> serde::Deserialize<'de> for NotAnArgument {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // An absent field reaches `visit_none` (serde's missing-field deserializer supports only
        // `deserialize_option`).
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = NotAnArgument;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("nothing: the server provides this parameter")
            }
            fn visit_none<E>(self) -> Result<NotAnArgument, E> {
                Ok(NotAnArgument)
            }
            fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<NotAnArgument, D::Error> {
                <serde::de::IgnoredAny as serde::Deserialize>::deserialize(d).map(|_| NotAnArgument)
            }
        }
        deserializer.deserialize_option(Visitor)
    }
}

impl schemars::JsonSchema for NotAnArgument {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "NotAnArgument".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ NOT_AN_ARGUMENT: true })
    }
}

/// The probe of one parameter type (see the module documentation).
pub struct Probe<T>(PhantomData<T>);

impl<T> Probe<T> {
    /// A probe for `T`.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Self(PhantomData)
    }
}

/// The answers for a type the runtime injects.
pub trait ProbeInjected<T> {
    /// A tool's argument field for it: [`NotAnArgument`].
    fn slot(&self) -> PhantomData<NotAnArgument>;
    /// The parameter, from the context.
    fn bind(&self, field: NotAnArgument, ctx: &Context) -> Result<T, CallToolResult>;
    /// The parameter of a prompt, from the context (the parser is not used).
    fn bind_text<S, F>(&self, ctx: &Context, support: S, parse: F) -> Result<T, ErrorObject>;
    /// The parameter of a resource that is not a template variable, from the context.
    fn inject(&self, ctx: &Context) -> Result<T, ErrorObject>;
    /// A parameter bound by a pattern (`State(docs): State<Docs>`), from the context.
    fn inject_pattern(&self, ctx: &Context) -> Result<T, CallToolResult>;
    /// Whether it is read from the request: no.
    fn is_argument(&self) -> bool;
    /// The server state it needs.
    fn required_state(&self) -> Option<RequiredState>;
    /// What a typed call does with it: leaves it out.
    fn typed_call(&self) -> InjectedParameter<T>;
}

impl<T: FromContext> ProbeInjected<T> for &Probe<T> {
    fn slot(&self) -> PhantomData<NotAnArgument> {
        PhantomData
    }
    #[inline]
    fn bind(&self, _: NotAnArgument, ctx: &Context) -> Result<T, CallToolResult> {
        T::from_context(ctx)
    }
    fn bind_text<S, F>(&self, ctx: &Context, _: S, _: F) -> Result<T, ErrorObject> {
        self.inject(ctx)
    }
    fn inject(&self, ctx: &Context) -> Result<T, ErrorObject> {
        T::from_context(ctx).map_err(injection_failed)
    }
    fn inject_pattern(&self, ctx: &Context) -> Result<T, CallToolResult> {
        T::from_context(ctx)
    }
    fn is_argument(&self) -> bool {
        false
    }
    fn required_state(&self) -> Option<RequiredState> {
        T::required_state()
    }
    fn typed_call(&self) -> InjectedParameter<T> {
        InjectedParameter(PhantomData)
    }
}

/// The answers for a tool argument: a `Deserialize + JsonSchema` type that is not injected.
pub trait ProbeArgument<T> {
    /// A tool's argument field for it: `T` itself.
    fn slot(&self) -> PhantomData<T>;
    /// The parameter: the field.
    fn bind(&self, field: T, ctx: &Context) -> Result<T, CallToolResult>;
    /// What a typed call does with it: sends it.
    fn typed_call(&self) -> SentParameter;
}

impl<T: DeserializeOwned + schemars::JsonSchema> ProbeArgument<T> for &&Probe<T> {
    fn slot(&self) -> PhantomData<T> {
        PhantomData
    }
    #[inline]
    fn bind(&self, field: T, _: &Context) -> Result<T, CallToolResult> {
        Ok(field)
    }
    fn typed_call(&self) -> SentParameter {
        SentParameter
    }
}

/// A tool parameter that is neither injected nor an argument, for its typed call: the
/// handler's own error says what is wrong, so the typed call's check says nothing.
pub trait ProbeUndecided<T> {
    /// [`UndecidedParameter`].
    fn typed_call(&self) -> UndecidedParameter;
}

impl<T> ProbeUndecided<T> for Probe<T> {
    fn typed_call(&self) -> UndecidedParameter {
        UndecidedParameter
    }
}

/// The answers for any type that is not injected, outside tools: a text argument of a prompt.
pub trait ProbeOther<T> {
    /// The parameter of a prompt, parsed from text by `parse`; `support` says whether `T`
    /// parses from text at all (else this does not compile, with [`TextArgument`]'s message).
    fn bind_text<S: TextArgument<T>, F: FnOnce() -> Result<T, ErrorObject>>(
        &self,
        ctx: &Context,
        support: S,
        parse: F,
    ) -> Result<T, ErrorObject>;
    /// The parameter of a resource that is not a template variable: does not compile, with
    /// [`ResourceInjected`]'s message, as `T` is not injected.
    fn inject(&self, ctx: &Context) -> Result<T, ErrorObject>
    where
        T: ResourceInjected;
    /// A parameter bound by a pattern: does not compile, with [`PatternParameter`]'s message,
    /// as `T` is not injected.
    fn inject_pattern(&self, ctx: &Context) -> Result<T, CallToolResult>
    where
        T: PatternParameter;
    /// Whether it is read from the request: yes.
    fn is_argument(&self) -> bool;
    /// The server state it needs: none.
    fn required_state(&self) -> Option<RequiredState>;
    /// What a typed call does with it: sends it.
    fn typed_call(&self) -> SentParameter;
}

impl<T> ProbeOther<T> for &&Probe<T> {
    fn bind_text<S: TextArgument<T>, F: FnOnce() -> Result<T, ErrorObject>>(
        &self,
        _: &Context,
        _: S,
        parse: F,
    ) -> Result<T, ErrorObject> {
        parse()
    }
    fn inject(&self, _: &Context) -> Result<T, ErrorObject>
    where
        T: ResourceInjected,
    {
        unreachable!("`ResourceInjected` types are `FromContext`, injected by `ProbeInjected`")
    }
    fn inject_pattern(&self, _: &Context) -> Result<T, CallToolResult>
    where
        T: PatternParameter,
    {
        unreachable!("`PatternParameter` types are `FromContext`, injected by `ProbeInjected`")
    }
    fn is_argument(&self) -> bool {
        true
    }
    fn required_state(&self) -> Option<RequiredState> {
        None
    }
    fn typed_call(&self) -> SentParameter {
        SentParameter
    }
}

/// The last resort for a tool parameter that is neither injected nor an argument: does not
/// compile, with [`ToolParameter`]'s message, on the parameter's type.
pub trait ProbeUnsupported<T> {
    /// Never returns: requires [`ToolParameter`].
    fn slot(&self) -> PhantomData<NotAnArgument>
    where
        T: ToolParameter;
    /// Never called.
    fn bind(&self, field: NotAnArgument, ctx: &Context) -> Result<T, CallToolResult>;
}

impl<T> ProbeUnsupported<T> for Probe<T> {
    fn slot(&self) -> PhantomData<NotAnArgument>
    where
        T: ToolParameter,
    {
        PhantomData
    }
    fn bind(&self, _: NotAnArgument, _: &Context) -> Result<T, CallToolResult> {
        unreachable!("a tool parameter that is not `ToolParameter` does not compile")
    }
}

/// [`ProbeUnsupported`] in a crate that depends on schemars 0.x: fails with
/// [`ToolParameterOldSchemars`]'s message.
pub trait ProbeUnsupportedOldSchemars<T> {
    /// Never returns: requires [`ToolParameterOldSchemars`].
    fn slot(&self) -> PhantomData<NotAnArgument>
    where
        T: ToolParameterOldSchemars;
    /// Never called.
    fn bind(&self, field: NotAnArgument, ctx: &Context) -> Result<T, CallToolResult>;
}

impl<T> ProbeUnsupportedOldSchemars<T> for Probe<T> {
    fn slot(&self) -> PhantomData<NotAnArgument>
    where
        T: ToolParameterOldSchemars,
    {
        PhantomData
    }
    fn bind(&self, _: NotAnArgument, _: &Context) -> Result<T, CallToolResult> {
        unreachable!("a tool parameter that is not `ToolParameter` does not compile")
    }
}

/// An injected parameter that could not be provided, outside a tool.
pub fn injection_failed(result: CallToolResult) -> ErrorObject {
    let message = result.text().unwrap_or("a handler parameter could not be provided").to_owned();
    ErrorObject::new(crate::jsonrpc::code::INTERNAL_ERROR, message)
}

/// The server states `required` names, without repeats: a descriptor's `required_state`.
pub fn required_states(required: &[Option<RequiredState>]) -> Vec<RequiredState> {
    let mut states: Vec<RequiredState> = Vec::new();
    for state in required.iter().flatten() {
        if !states.contains(state) {
            states.push(*state);
        }
    }
    states
}

/// A parameter whose type is injected ([`ProbeInjected::typed_call`]).
pub struct InjectedParameter<T>(PhantomData<T>);

/// A parameter whose type is read from the request ([`ProbeArgument::typed_call`],
/// [`ProbeOther::typed_call`]).
pub struct SentParameter;

/// A tool parameter that does not compile ([`ProbeUndecided::typed_call`]).
pub struct UndecidedParameter;

// What a typed call (`name::call(&client, ..)`) takes: the macros write its signature before the
// compiler knows the types' traits, so they leave out the runtime's own injected types by name
// and the parameters marked `#[mcp(inject)]`. The generated stub then asks the probe for each
// parameter's marker and calls the method named after its guess: on the marker that disagrees,
// it is deprecated, so a wrong guess is a warning on the parameter saying what to write. Not an
// error: features add, and a server that builds without `client` must build with it.

impl<T> InjectedParameter<T> {
    /// The stub leaves this parameter out, as it should.
    pub fn left_out_of_typed_calls(&self) {}

    /// The stub sends this injected parameter.
    #[deprecated(
        note = "this parameter is injected (its type implements `FromContext`), but its typed call (`name::call(&client, ..)`, feature `client`) takes it as an argument: mark the parameter `#[mcp(inject)]`"
    )]
    pub fn sent_by_typed_calls(&self) {}
}

impl SentParameter {
    /// The stub sends this parameter, as it should.
    pub fn sent_by_typed_calls(&self) {}

    /// The stub leaves out this argument.
    #[deprecated(
        note = "this parameter is an argument (its type does not implement `FromContext`), but its type is named like one the runtime injects, so its typed call (`name::call(&client, ..)`, feature `client`) leaves it out: name the type differently, or give the parameter `#[mcp(rename = \"..\")]`"
    )]
    pub fn left_out_of_typed_calls(&self) {}
}

impl UndecidedParameter {
    /// Nothing to say: the handler does not compile.
    pub fn sent_by_typed_calls(&self) {}

    /// Nothing to say: the handler does not compile.
    pub fn left_out_of_typed_calls(&self) {}
}
