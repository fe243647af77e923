//! JSON values as JSON Schema compares them: numbers by their value (`1 == 1.0`), objects
//! whatever the order of their members, arrays element by element.

use serde_json::{Number, Value};
use std::cmp::Ordering;
use std::hash::{Hash, Hasher};

/// Whether `a` and `b` are the same JSON value.
pub(super) fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => compare(a, b) == Some(Ordering::Equal),
        (Value::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(a, b)| equal(a, b)),
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len() && a.iter().all(|(name, a)| b.get(name).is_some_and(|b| equal(a, b)))
        }
        (a, b) => a == b,
    }
}

/// How two numbers compare: exactly when both are integers, else as floats.
pub(super) fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    if let (Some(a), Some(b)) = (a.as_i64(), b.as_i64()) {
        return Some(a.cmp(&b));
    }
    if let (Some(a), Some(b)) = (a.as_u64(), b.as_u64()) {
        return Some(a.cmp(&b));
    }
    // One is a negative i64 and the other a u64 beyond i64: their signs decide.
    if a.is_i64() && b.is_u64() {
        return Some(Ordering::Less);
    }
    if a.is_u64() && b.is_i64() {
        return Some(Ordering::Greater);
    }
    a.as_f64()?.partial_cmp(&b.as_f64()?)
}

/// Whether `n` is an integer, whatever its spelling (`1.0` is).
pub(super) fn is_integer(n: &Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

/// Whether `n` is a multiple of `of` (a positive number).
pub(super) fn is_multiple(n: &Number, of: &Number) -> bool {
    if let (Some(n), Some(of)) = (n.as_i64(), of.as_i64()) {
        return of != 0 && n % of == 0;
    }
    let (Some(n), Some(of)) = (n.as_f64(), of.as_f64()) else { return false };
    // The remainder is exact, and holds where the quotient overflows (1e308 of 0.5).
    if n % of == 0.0 {
        return true;
    }
    let quotient = n / of;
    if !quotient.is_finite() {
        return false;
    }
    // Decimal fractions are not exact in binary (0.0075 / 0.0001 is 74.99999999999999): a
    // quotient within a few ulps of an integer is one.
    (quotient - quotient.round()).abs() <= quotient.abs().max(1.0) * 4.0 * f64::EPSILON
}

/// A hash equal for values [`equal`] calls equal (numbers by their float value, members in any
/// order).
pub(super) fn hash(value: &Value) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    feed(value, &mut hasher);
    hasher.finish()
}

fn feed(value: &Value, hasher: &mut impl Hasher) {
    match value {
        Value::Null => 0u8.hash(hasher),
        Value::Bool(b) => (1u8, b).hash(hasher),
        Value::Number(n) => {
            // `+ 0.0` makes -0.0 hash as 0.0, which it equals.
            (2u8, (n.as_f64().unwrap_or(f64::NAN) + 0.0).to_bits()).hash(hasher)
        }
        Value::String(s) => (3u8, s).hash(hasher),
        Value::Array(items) => {
            (4u8, items.len()).hash(hasher);
            items.iter().for_each(|item| feed(item, hasher));
        }
        Value::Object(members) => {
            // Order-free: the members' hashes summed.
            let sum = members.iter().fold(0u64, |sum, (name, value)| {
                let mut member = std::collections::hash_map::DefaultHasher::new();
                (name, hash(value)).hash(&mut member);
                sum.wrapping_add(member.finish())
            });
            (5u8, members.len(), sum).hash(hasher)
        }
    }
}

/// Whether `items` holds two equal values: pairwise for a short array, by hash for a long one
/// (a client's array must not cost quadratic time).
pub(super) fn has_duplicates(items: &[Value]) -> bool {
    const PAIRWISE: usize = 16;
    if items.len() <= PAIRWISE {
        return items.iter().enumerate().any(|(i, a)| items[i + 1..].iter().any(|b| equal(a, b)));
    }
    let mut hashes: Vec<(u64, usize)> = items.iter().enumerate().map(|(i, item)| (hash(item), i)).collect();
    hashes.sort_unstable();
    hashes
        .chunk_by(|a, b| a.0 == b.0)
        .any(|same| same.iter().enumerate().any(|(i, a)| same[i + 1..].iter().any(|b| equal(&items[a.1], &items[b.1]))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_compare_by_value_and_objects_ignore_order() {
        assert!(equal(&json!(1), &json!(1.0)));
        assert!(equal(&json!({"a": [1, {"b": 2.0}], "c": null}), &json!({"c": null, "a": [1.0, {"b": 2}]})));
        assert!(!equal(&json!([1, 2]), &json!([2, 1])));
        assert!(!equal(&json!(0), &json!(false)));
        assert_eq!(compare(&(-1).into(), &u64::MAX.into()), Some(Ordering::Less));
        assert!(is_multiple(&json!(0.0075).as_number().unwrap().clone(), &json!(0.0001).as_number().unwrap().clone()));
        let long: Vec<Value> = (0..100).map(|i| json!({"n": i})).chain([json!({"n": 7.0})]).collect();
        assert!(has_duplicates(&long) && !has_duplicates(&long[..100]));
    }
}
