//! What the request's caller may see of a listing: with feature `auth`, the items whose
//! `scopes` its token holds (`auth::scopes::Viewer`); without it, or without a verified
//! caller, everything. Decided while the request is routed, when its caller is current.

use super::reply::Reply;
use crate::jsonrpc::{ErrorObject, code};
use crate::registry::{ListItem, Listing};
use serde_json::Value;
use serde_json::value::RawValue;

#[cfg(feature = "auth")]
pub(crate) use crate::auth::scopes::Viewer;

/// Without feature `auth` no caller is verified, so there is never a viewer to hide from.
#[cfg(not(feature = "auth"))]
pub(crate) enum Viewer {}

#[cfg(not(feature = "auth"))]
impl Viewer {
    pub fn current() -> Option<Self> {
        None
    }

    pub fn sees(&self, _: &[&str]) -> bool {
        match *self {}
    }
}

/// Whether `viewer` (`None`: no verified caller) may see an item needing `scopes`.
pub(crate) fn sees(viewer: Option<&Viewer>, scopes: &[&str]) -> bool {
    viewer.is_none_or(|viewer| viewer.sees(scopes))
}

/// A list page as the current caller sees it: the shared page when it may see every item.
pub(crate) fn seen<'a, T: ListItem>(listing: &'a Listing<T>, page: &'a RawValue) -> Result<Reply<'a>, ErrorObject> {
    match Viewer::current() {
        None => Ok(Reply::Shared(page)),
        Some(viewer) => keeping(listing, page, |item| viewer.sees(item.scopes())),
    }
}

/// `page` without the items `keep` refuses: shared as it is when it keeps them all, else
/// re-serialized (a filtered page may be shorter than the page size; cursors stay page
/// numbers).
pub(crate) fn keeping<'a, T: ListItem>(
    listing: &'a Listing<T>,
    page: &'a RawValue,
    keep: impl Fn(&T) -> bool,
) -> Result<Reply<'a>, ErrorObject> {
    if listing.items().all(&keep) {
        return Ok(Reply::Shared(page));
    }
    let mut page: Value = serde_json::from_str(page.get())
        .map_err(|e| ErrorObject::new(code::INTERNAL_ERROR, format!("cannot filter a list page: {e}")))?;
    if let Some(items) = page.get_mut(listing.field()).and_then(Value::as_array_mut) {
        items.retain(|item| {
            let key = item.get(T::KEY_MEMBER).and_then(Value::as_str);
            key.and_then(|key| listing.get(key)).is_none_or(&keep)
        });
    }
    Ok(Reply::Value(page))
}
