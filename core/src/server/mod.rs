//! Server side: the registry of tools, resources, templates and prompts with cached list
//! pages, URI templates, argument validation, and the async Rust [`Server`] API.

mod api;
pub mod registry;
pub mod uri_template;
pub mod validate;

pub use api::*;
