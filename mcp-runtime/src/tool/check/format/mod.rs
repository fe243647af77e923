//! The formats JSON Schema 2020-12 defines (`vocabulary.rs`'s `STANDARD_FORMATS`), checked by
//! hand: no Unicode tables, `std::net` for IP addresses. Other formats only annotate.

mod host;
mod idna;
mod text;
mod time;
mod uri;

/// A format the validator checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Format {
    DateTime,
    Date,
    Time,
    Duration,
    Email,
    IdnEmail,
    Hostname,
    IdnHostname,
    Ipv4,
    Ipv6,
    Uri,
    UriReference,
    Iri,
    IriReference,
    Uuid,
    UriTemplate,
    JsonPointer,
    RelativeJsonPointer,
    Regex,
}

impl Format {
    /// The format `name` names, if it is one of the standard ones.
    pub fn named(name: &str) -> Option<Self> {
        Some(match name {
            "date-time" => Self::DateTime,
            "date" => Self::Date,
            "time" => Self::Time,
            "duration" => Self::Duration,
            "email" => Self::Email,
            "idn-email" => Self::IdnEmail,
            "hostname" => Self::Hostname,
            "idn-hostname" => Self::IdnHostname,
            "ipv4" => Self::Ipv4,
            "ipv6" => Self::Ipv6,
            "uri" => Self::Uri,
            "uri-reference" => Self::UriReference,
            "iri" => Self::Iri,
            "iri-reference" => Self::IriReference,
            "uuid" => Self::Uuid,
            "uri-template" => Self::UriTemplate,
            "json-pointer" => Self::JsonPointer,
            "relative-json-pointer" => Self::RelativeJsonPointer,
            "regex" => Self::Regex,
            _ => return None,
        })
    }

    /// The format's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::DateTime => "date-time",
            Self::Date => "date",
            Self::Time => "time",
            Self::Duration => "duration",
            Self::Email => "email",
            Self::IdnEmail => "idn-email",
            Self::Hostname => "hostname",
            Self::IdnHostname => "idn-hostname",
            Self::Ipv4 => "ipv4",
            Self::Ipv6 => "ipv6",
            Self::Uri => "uri",
            Self::UriReference => "uri-reference",
            Self::Iri => "iri",
            Self::IriReference => "iri-reference",
            Self::Uuid => "uuid",
            Self::UriTemplate => "uri-template",
            Self::JsonPointer => "json-pointer",
            Self::RelativeJsonPointer => "relative-json-pointer",
            Self::Regex => "regex",
        }
    }

    /// Whether `text` is in this format.
    pub fn accepts(self, text: &str) -> bool {
        match self {
            Self::DateTime => time::is_date_time(text),
            Self::Date => time::is_date(text),
            Self::Time => time::is_time(text),
            Self::Duration => time::is_duration(text),
            Self::Email => host::is_email(text, false),
            Self::IdnEmail => host::is_email(text, true),
            Self::Hostname => host::is_hostname(text),
            Self::IdnHostname => host::is_idn_hostname(text),
            Self::Ipv4 => text.parse::<std::net::Ipv4Addr>().is_ok(),
            Self::Ipv6 => text.parse::<std::net::Ipv6Addr>().is_ok(),
            Self::Uri => uri::is_uri(text, uri::Kind::ABSOLUTE),
            Self::UriReference => uri::is_uri(text, uri::Kind::REFERENCE),
            Self::Iri => uri::is_uri(text, uri::Kind::IRI),
            Self::IriReference => uri::is_uri(text, uri::Kind::IRI_REFERENCE),
            Self::Uuid => text::is_uuid(text),
            Self::UriTemplate => uri::is_template(text),
            Self::JsonPointer => text::is_json_pointer(text),
            Self::RelativeJsonPointer => text::is_relative_json_pointer(text),
            Self::Regex => text::is_regex(text),
        }
    }
}

/// Every standard format has a checker: `vocabulary.rs`'s list and this file agree.
#[cfg(test)]
#[test]
fn every_standard_format_is_known() {
    for name in crate::tool::vocabulary::STANDARD_FORMATS {
        assert_eq!(Format::named(name).map(Format::name), Some(name));
    }
}
