//! Words of the JSON Schema 2020-12 vocabulary that both the schema shaping (`profile/`) and
//! the argument checks (`constraints.rs`) need to know.

/// Keywords that describe a value without constraining it.
pub(crate) const ANNOTATIONS: [&str; 8] =
    ["description", "title", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment"];

/// The formats JSON Schema 2020-12 defines (section 7.3 of its validation vocabulary): the
/// ones a validator checks. Others (schemars' `int32`, `uint8`, `double`...) only annotate.
pub(crate) const STANDARD_FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];
