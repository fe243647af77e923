//! `date-time`, `date`, `time` (RFC 3339 section 5.6, leap seconds at 23:59:60 UTC only) and
//! `duration` (RFC 3339 appendix A).

/// `2024-02-29T23:59:60.5+01:00`: a date, `T`, a time with its offset.
pub(super) fn is_date_time(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() > 11 && matches!(bytes[10], b'T' | b't') && is_date(&text[..10]) && is_time(&text[11..])
}

/// `2024-02-29`.
pub(super) fn is_date(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) = (digits(&b[..4]), digits(&b[5..7]), digits(&b[8..])) else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// `23:59:60.5+01:00`: hours, minutes, seconds, an optional fraction, and `Z` or an offset.
pub(super) fn is_time(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return false;
    }
    let (Some(hour), Some(minute), Some(second)) = (digits(&b[..2]), digits(&b[3..5]), digits(&b[6..8])) else {
        return false;
    };
    let mut rest = &b[8..];
    if let Some(fraction) = rest.strip_prefix(b".") {
        let count = fraction.iter().take_while(|c| c.is_ascii_digit()).count();
        if count == 0 {
            return false;
        }
        rest = &fraction[count..];
    }
    let offset_minutes: i64 = match rest {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let (Some(hours), Some(minutes)) = (digits(&[*h1, *h2]), digits(&[*m1, *m2])) else { return false };
            if hours > 23 || minutes > 59 {
                return false;
            }
            let offset = (hours * 60 + minutes) as i64;
            if *sign == b'+' { offset } else { -offset }
        }
        _ => return false,
    };
    if hour > 23 || minute > 59 || second > 60 {
        return false;
    }
    // A leap second is the last second of a UTC day.
    let utc = (hour as i64 * 60 + minute as i64 - offset_minutes).rem_euclid(24 * 60);
    second < 60 || utc == 23 * 60 + 59
}

/// `P1Y2M3DT4H5M6S` or `P2W`: units in order, each run of them unbroken (no `P1Y2D`).
pub(super) fn is_duration(text: &str) -> bool {
    let Some(rest) = text.strip_prefix('P') else { return false };
    let (date, time) = match rest.split_once('T') {
        Some((date, time)) => (date, Some(time)),
        None => (rest, None),
    };
    if time.is_none() && date.len() > 1 && date.ends_with('W') {
        return date[..date.len() - 1].bytes().all(|c| c.is_ascii_digit());
    }
    let date_ok = date.is_empty() || units(date, b"YMD");
    let time_ok = time.is_none_or(|time| !time.is_empty() && units(time, b"HMS"));
    date_ok && time_ok && (!date.is_empty() || time.is_some())
}

/// Whether `text` is numbers each followed by a unit of `order`, the units a contiguous run of it.
fn units(text: &str, order: &[u8]) -> bool {
    let mut next = None::<usize>;
    let mut b = text.as_bytes();
    while !b.is_empty() {
        let count = b.iter().take_while(|c| c.is_ascii_digit()).count();
        let Some(unit) = b.get(count).and_then(|u| order.iter().position(|o| o == u)) else { return false };
        if count == 0 || next.is_some_and(|next| unit != next) {
            return false;
        }
        next = Some(unit + 1);
        b = &b[count + 1..];
    }
    next.is_some()
}

/// The value of ASCII digits.
fn digits(b: &[u8]) -> Option<u32> {
    b.iter().try_fold(0u32, |n, c| c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0')))
}
