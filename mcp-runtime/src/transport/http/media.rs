//! Media types (RFC 9110 §8.3, §12.5.1): the ranges of an `Accept` header with their
//! q-values, and a `Content-Type` with its charset.

/// One `type/subtype` and its parameters, as written in `Accept` or `Content-Type`.
struct MediaType<'a> {
    /// `type/subtype`, still in the client's case.
    essence: &'a str,
    /// `name=value` pairs; a quoted value keeps its quotes.
    parameters: &'a str,
}

impl<'a> MediaType<'a> {
    /// `None` when `text` is not `token/token` followed by `;`-separated parameters.
    fn parse(text: &'a str) -> Option<Self> {
        let (essence, parameters) = text.split_once(';').unwrap_or((text, ""));
        let essence = essence.trim();
        let (kind, subtype) = essence.split_once('/')?;
        (is_token(kind) && is_token(subtype)).then_some(Self { essence, parameters })
    }

    /// The value of parameter `name` (case-insensitive), unquoted; `Some(Err(()))` when a
    /// parameter is malformed.
    fn parameter(&self, name: &str) -> Option<Result<&'a str, ()>> {
        for parameter in self.parameters.split(';') {
            let parameter = parameter.trim();
            if parameter.is_empty() {
                continue;
            }
            let Some((key, value)) = parameter.split_once('=') else { return Some(Err(())) };
            if key.trim().eq_ignore_ascii_case(name) {
                let value = value.trim();
                let unquoted = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')).unwrap_or(value);
                return Some(Ok(unquoted));
            }
        }
        None
    }

    fn is(&self, essence: &str) -> bool {
        self.essence.eq_ignore_ascii_case(essence)
    }
}

fn is_token(text: &str) -> bool {
    !text.is_empty()
        && text.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'!' | b'#'
                        | b'$'
                        | b'%'
                        | b'&'
                        | b'\''
                        | b'*'
                        | b'+'
                        | b'-'
                        | b'.'
                        | b'^'
                        | b'_'
                        | b'`'
                        | b'|'
                        | b'~'
                )
        })
}

/// A q-value (`0` to `1`, at most three decimals) in thousandths; `None` when malformed.
fn quality(text: &str) -> Option<u16> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if fraction.len() > 3 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let thousandths = format!("{fraction:0<3}").parse::<u16>().ok()?;
    match whole {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

/// Which of `media` (each `type/subtype`, lower case) the `Accept` values (each a
/// comma-separated list of media ranges) accept, in one pass over the ranges. For each, the
/// most specific range that matches decides (an exact type before `type/*` before `*/*`, RFC
/// 9110 §12.5.1), and `q=0` means "not acceptable". Malformed ranges are ignored.
pub(super) fn accepted<'a, const N: usize>(values: impl IntoIterator<Item = &'a str>, media: [&str; N]) -> [bool; N] {
    let mut best: [Option<(u8, u16)>; N] = [None; N]; // (specificity, quality)
    for range in values.into_iter().flat_map(|value| value.split(',')) {
        let Some(range) = MediaType::parse(range) else { continue };
        let (kind, subtype) = range.essence.split_once('/').unwrap_or_default();
        let mut quality = None;
        for (wanted, best) in media.iter().zip(&mut best) {
            let specificity = if range.is(wanted) {
                3
            } else if subtype == "*" && wanted.split('/').next().is_some_and(|k| k.eq_ignore_ascii_case(kind)) {
                2
            } else if range.is("*/*") {
                1
            } else {
                continue;
            };
            if best.is_some_and(|(most_specific, _)| most_specific >= specificity) {
                continue;
            }
            // Read once per range, and only for a range that matters.
            let q = *quality.get_or_insert_with(|| match range.parameter("q") {
                None => Some(1000),
                Some(Ok(q)) => self::quality(q),
                Some(Err(())) => None,
            });
            if let Some(q) = q {
                *best = Some((specificity, q));
            }
        }
    }
    best.map(|best| best.is_some_and(|(_, quality)| quality > 0))
}

/// Why a `Content-Type` is not one JSON-RPC body can have.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum NotJson {
    /// Not `application/json` (or no media type at all).
    OtherType,
    /// `application/json` in a charset other than UTF-8.
    Charset,
}

/// Checks that `content_type` is `application/json`, in UTF-8 if it names a charset.
pub(super) fn check_json(content_type: &str) -> Result<(), NotJson> {
    let media = MediaType::parse(content_type).ok_or(NotJson::OtherType)?;
    if !media.is("application/json") {
        return Err(NotJson::OtherType);
    }
    match media.parameter("charset") {
        None => Ok(()),
        Some(Ok(charset)) if charset.eq_ignore_ascii_case("utf-8") || charset.eq_ignore_ascii_case("utf8") => Ok(()),
        Some(_) => Err(NotJson::Charset),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(accept: &str) -> bool {
        accepted([accept], ["application/json"])[0]
    }

    #[test]
    fn ranges_and_q_values() {
        for accept in ["application/json", "APPLICATION/JSON", "application/*", "*/*", "application/json;q=0.001"] {
            assert!(json(accept), "{accept}");
        }
        for accept in [
            "application/json;q=0",
            "application/json; q=0.000",
            "application/json;Q=0",
            "*/*, application/json;q=0",
            "application/*;q=0, */*",
            "text/event-stream",
            "application/jsonx",
            "application/json;q=2",
            "application/json;q=0.0001",
            "application/json;q",
            "",
            "json",
        ] {
            assert!(!json(accept), "{accept}");
        }
        assert!(json("application/*;q=0, application/json"));
        assert_eq!(
            accepted(["text/html", "text/event-stream"], ["application/json", "text/event-stream"]),
            [false, true]
        );
        assert_eq!(accepted(["text/*;q=0, */*"], ["application/json", "text/event-stream"]), [true, false]);
    }

    #[test]
    fn content_types() {
        for ok in ["application/json", "Application/JSON ; charset=UTF-8", "application/json; charset=\"utf-8\""] {
            assert_eq!(check_json(ok), Ok(()), "{ok}");
        }
        for charset in
            ["application/json; charset=utf-16", "application/json;charset=\"latin1\"", "application/json;charset"]
        {
            assert_eq!(check_json(charset), Err(NotJson::Charset), "{charset}");
        }
        for other in ["text/plain", "application/jsonx", "", "application/json/x"] {
            assert_eq!(check_json(other), Err(NotJson::OtherType), "{other}");
        }
    }
}
