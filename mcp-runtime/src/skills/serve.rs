//! A [`Library`] put on a server: the extension declared (`directoryRead`), its methods
//! registered as vendor requests (the lists cacheable), each `SKILL.md` a listed resource named
//! by its front matter, and every other file read through one `skill://{+path}` template.

use super::library::Library;
use super::methods;
use crate::custom::{CustomMethods, RequestHandler};
use crate::jsonrpc::ErrorObject;
use crate::registry::Definitions;
use crate::resource::{ReadFn, ResourceDescriptor, ResourceRequest};
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// The extension's identifier.
pub(crate) const EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The extension's methods, each with whether its 2026-07-28 result is cacheable.
type Method = fn(&Library, Value) -> Result<Value, ErrorObject>;
const METHODS: [(&str, Method, bool); 3] = [
    ("skills/list", methods::list, true),
    ("skills/get", methods::get, true),
    ("resources/directory/read", methods::read_directory, false),
];

/// Adds what `library` serves to a server under construction.
pub(crate) fn install(
    library: Library,
    definitions: &mut Definitions,
    custom: &mut CustomMethods,
    extensions: &mut Map<String, Value>,
) {
    let library = Arc::new(library);
    extensions.insert(EXTENSION.into(), json!({ "directoryRead": true }));
    for (name, method, cacheable) in METHODS {
        let library = Arc::clone(&library);
        let handler: RequestHandler =
            Arc::new(move |params, _ctx| Box::pin(std::future::ready(method(&library, params))));
        custom.add_request(name.into(), handler);
        if cacheable {
            custom.set_cacheable(name);
        }
    }
    let read = {
        let library = Arc::clone(&library);
        ReadFn::Arc(Arc::new(move |request: ResourceRequest, ctx: crate::Context| {
            Box::pin(methods::read_file(Arc::clone(&library), request, ctx.protocol_version()))
        }))
    };
    let mut resources: Vec<ResourceDescriptor> = library
        .manifests()
        .map(|(uri, name, description, size)| ResourceDescriptor {
            description: Some(description.to_owned().into()),
            mime_type: Some("text/markdown".into()),
            size: Some(size),
            ..ResourceDescriptor::new(uri.to_owned(), name.to_owned(), read.clone())
        })
        .collect();
    resources.push(ResourceDescriptor {
        description: Some("A file of one of the skills this server serves (`skills/list` names each).".into()),
        ..ResourceDescriptor::new("skill://{+path}".into(), "skill-file".into(), read)
    });
    definitions.append(Definitions { resources, ..Definitions::default() });
}
