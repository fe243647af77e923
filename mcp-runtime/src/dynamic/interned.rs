//! The scope lists (and tag lists) of items built at run time, as the `&'static` slices descriptors hold (the
//! macros write them as literals). Each distinct list is kept once for the life of the process:
//! a server names a handful of scope lists, so what is kept is bounded by the lists its code
//! writes, not by how many items it adds and removes.

use crate::sync::lock;
use std::sync::Mutex;

/// `scopes` (or tags) as a `&'static` list, the same slice for equal lists.
pub(super) fn scopes(scopes: Vec<String>) -> &'static [&'static str] {
    if scopes.is_empty() {
        return &[];
    }
    static LISTS: Mutex<Vec<&'static [&'static str]>> = Mutex::new(Vec::new());
    let mut lists = lock(&LISTS);
    if let Some(list) = lists.iter().copied().find(|list| list.iter().eq(&scopes)) {
        return list;
    }
    let list: Vec<&'static str> = scopes.into_iter().map(|scope| &*Box::leak(scope.into_boxed_str())).collect();
    let list: &'static [&'static str] = Box::leak(list.into_boxed_slice());
    lists.push(list);
    list
}

#[cfg(test)]
mod tests {
    #[test]
    fn equal_lists_are_one_slice() {
        let a = super::scopes(vec!["notes:read".into(), "notes:write".into()]);
        let b = super::scopes(vec!["notes:read".into(), "notes:write".into()]);
        assert_eq!(a, ["notes:read", "notes:write"]);
        assert!(std::ptr::eq(a, b));
        assert!(super::scopes(Vec::new()).is_empty());
    }
}
