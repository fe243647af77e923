//! Collects every error of one macro invocation, so the user sees all mistakes in one build.

use proc_macro2::TokenStream;
use quote::ToTokens;
use std::fmt::Display;

#[derive(Default)]
pub(crate) struct Errors {
    errors: Vec<syn::Error>,
}

impl Errors {
    pub fn error(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.errors.push(syn::Error::new_spanned(tokens, message));
    }

    pub fn push(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    pub fn extend(&mut self, errors: impl IntoIterator<Item = syn::Error>) {
        self.errors.extend(errors);
    }

    /// All errors as one, or `Ok` if there were none.
    pub fn finish(self) -> syn::Result<()> {
        let mut errors = self.errors.into_iter();
        let Some(mut first) = errors.next() else { return Ok(()) };
        first.extend(errors);
        Err(first)
    }
}

/// The errors, followed by the item unchanged so the rest of the crate still sees it (and the
/// user is not buried under "cannot find function" errors that follow from the first).
pub(crate) fn with_item(error: syn::Error, item: TokenStream) -> TokenStream {
    let errors = error.to_compile_error();
    quote::quote!(#errors #item)
}
