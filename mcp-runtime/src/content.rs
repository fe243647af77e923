//! Content blocks: what tool results and prompt messages are made of.

use base64::Engine as _;
use serde::{Deserialize, Serialize};

/// One block of a tool result or prompt message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Content {
    /// Plain text.
    Text(Text),
    /// A base64-encoded image.
    Image(Image),
    /// A base64-encoded audio clip.
    Audio(Audio),
    /// A link to a resource the client may read.
    ResourceLink(ResourceLink),
    /// A resource's contents, embedded.
    #[serde(rename = "resource")]
    Resource(EmbeddedResource),
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(Text::new(text))
    }

    /// The text of a text block, `None` for other kinds.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

/// Hints for the client about how to use a block.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Who the block is meant for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0 (optional) to 1 (required).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// ISO 8601 time of the last change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

/// A participant in a conversation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The human side.
    User,
    /// The model side.
    Assistant,
}

/// A text block.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Text {
    /// The text.
    pub text: String,
    /// Optional hints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
}

impl Text {
    /// A text block without annotations.
    pub fn new(text: impl Into<String>) -> Self {
        Self { text: text.into(), annotations: None }
    }
}

macro_rules! media_block {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct $name {
            /// The base64-encoded bytes.
            pub data: String,
            /// The MIME type, e.g. `image/png` or `audio/wav`.
            pub mime_type: String,
            /// Optional hints.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub annotations: Option<Annotations>,
        }

        impl $name {
            /// A block from raw bytes, base64-encoded here.
            pub fn from_bytes(bytes: impl AsRef<[u8]>, mime_type: impl Into<String>) -> Self {
                Self::from_base64(base64::engine::general_purpose::STANDARD.encode(bytes), mime_type)
            }

            /// A block from data that is already base64-encoded.
            pub fn from_base64(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
                Self { data: data.into(), mime_type: mime_type.into(), annotations: None }
            }
        }
    };
}

media_block!(
    /// An image block.
    Image
);
media_block!(
    /// An audio block.
    Audio
);

/// A link to a resource.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLink {
    /// The resource's URI.
    pub uri: String,
    /// The resource's name.
    pub name: String,
    /// A display title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resource is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Optional hints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
}

impl ResourceLink {
    /// A link with a URI and a name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
        }
    }

    /// With a MIME type.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// With a description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
}

/// A resource's contents embedded in a result or message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedResource {
    /// The contents.
    pub resource: ResourceContents,
    /// Optional hints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
}

impl EmbeddedResource {
    /// Embeds `resource`.
    pub fn new(resource: ResourceContents) -> Self {
        Self { resource, annotations: None }
    }
}

/// The contents of a resource: text or a base64 blob.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ResourceContents {
    /// Text contents.
    #[serde(rename_all = "camelCase")]
    Text {
        /// The resource's URI.
        uri: String,
        /// The MIME type.
        #[serde(skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The text.
        text: String,
    },
    /// Binary contents.
    #[serde(rename_all = "camelCase")]
    Blob {
        /// The resource's URI.
        uri: String,
        /// The MIME type.
        #[serde(skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The base64-encoded bytes.
        blob: String,
    },
}

impl ResourceContents {
    /// Text contents with a MIME type.
    pub fn text(uri: impl Into<String>, mime_type: impl Into<String>, text: impl Into<String>) -> Self {
        Self::Text { uri: uri.into(), mime_type: Some(mime_type.into()), text: text.into() }
    }

    /// Binary contents with a MIME type, base64-encoded here.
    pub fn blob(uri: impl Into<String>, mime_type: impl Into<String>, bytes: impl AsRef<[u8]>) -> Self {
        Self::Blob {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            blob: base64::engine::general_purpose::STANDARD.encode(bytes),
        }
    }
}

macro_rules! into_content {
    ($($ty:ident => $variant:ident),*) => {$(
        impl From<$ty> for Content {
            fn from(block: $ty) -> Self {
                Self::$variant(block)
            }
        }
    )*};
}
into_content!(Text => Text, Image => Image, Audio => Audio, ResourceLink => ResourceLink, EmbeddedResource => Resource);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_serialize_to_the_wire_shapes() {
        let image = Content::from(Image::from_bytes([1, 2, 3], "image/png"));
        assert_eq!(
            serde_json::to_value(&image).unwrap(),
            json!({"type": "image", "data": "AQID", "mimeType": "image/png"})
        );
        let embedded = Content::from(EmbeddedResource::new(ResourceContents::text("test://x", "text/plain", "hi")));
        assert_eq!(
            serde_json::to_value(&embedded).unwrap(),
            json!({"type": "resource", "resource": {"uri": "test://x", "mimeType": "text/plain", "text": "hi"}})
        );
        let link = Content::from(ResourceLink::new("file:///a", "a"));
        assert_eq!(
            serde_json::to_value(&link).unwrap(),
            json!({"type": "resource_link", "uri": "file:///a", "name": "a"})
        );
    }
}
