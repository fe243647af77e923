//! Doc comments, which become descriptions.

use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// The text of the `///` comments (`#[doc = "..."]`) among `attrs`, or `None` if there are none.
/// Lines are trimmed of the one space rustdoc convention puts after `///`.
pub(crate) fn collect(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter_map(|attr| match &attr.meta {
            Meta::NameValue(nv) if nv.path.is_ident("doc") => match &nv.value {
                Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .flat_map(|text| text.lines().map(str::to_owned).collect::<Vec<_>>())
        .collect();
    let lines: Vec<&str> = lines.iter().map(|l| l.strip_prefix(' ').unwrap_or(l).trim_end()).collect();
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}

pub(crate) fn is_doc(attr: &Attribute) -> bool {
    attr.path().is_ident("doc")
}
