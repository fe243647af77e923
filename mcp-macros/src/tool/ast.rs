//! A typed model of the function under `#[mcp_tool]`.

use super::attr::ParamOptions;
use crate::diagnostics::Errors;
use crate::docs;
use syn::{FnArg, Ident, ItemFn, Pat, Type};

pub(crate) struct ToolFn {
    pub item: ItemFn,
    pub docs: Option<String>,
    pub params: Vec<Param>,
}

pub(crate) struct Param {
    /// The binding, e.g. `city`, also the argument's field name.
    pub ident: Ident,
    pub ty: Type,
    pub docs: Option<String>,
    pub options: ParamOptions,
    /// Provided by the runtime (e.g. `Context`) rather than read from the arguments.
    pub injected: bool,
}

/// Types the runtime injects, recognised by the last segment of their path.
const INJECTED_TYPES: &[&str] = &["Context", "CancellationToken", "State", "SessionState"];

impl ToolFn {
    /// Reads the function. Parameter shapes that cannot be modelled are reported to `errors`
    /// and left out; the attributes the macro consumes are stripped from the item it re-emits.
    pub fn parse(mut item: ItemFn, errors: &mut Errors) -> Self {
        let docs = docs::collect(&item.attrs);
        let mut params = Vec::new();
        for input in &mut item.sig.inputs {
            let FnArg::Typed(arg) = input else { continue }; // `self`: reported by `valid`
            let mut options = ParamOptions::default();
            let docs = docs::collect(&arg.attrs);
            for attr in arg.attrs.iter().filter(|a| a.path().is_ident("mcp")) {
                if let Err(err) = options.parse_into(attr) {
                    errors.push(err);
                }
            }
            arg.attrs.retain(|a| !a.path().is_ident("mcp") && !docs::is_doc(a));
            let ident = match &*arg.pat {
                Pat::Ident(pat) if pat.subpat.is_none() => pat.ident.clone(),
                other => {
                    errors.error(
                        other,
                        "tool parameters must be plain names, they become argument names: write `name: Type`",
                    );
                    continue;
                }
            };
            let injected = options.inject.is_some() || is_injected_type(&arg.ty);
            params.push(Param { ident, ty: (*arg.ty).clone(), docs, options, injected });
        }
        Self { item, docs, params }
    }

    pub fn ident(&self) -> &Ident {
        &self.item.sig.ident
    }

    pub fn is_async(&self) -> bool {
        self.item.sig.asyncness.is_some()
    }
}

fn is_injected_type(ty: &Type) -> bool {
    match ty {
        Type::Path(path) => {
            path.path.segments.last().is_some_and(|segment| INJECTED_TYPES.iter().any(|name| segment.ident == name))
        }
        _ => false,
    }
}
