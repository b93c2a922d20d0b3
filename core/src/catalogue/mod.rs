//! What a server offers, below the engine: the [`Registry`] of tools (with their compiled
//! argument and output validators), resources, resource templates and prompts, with list
//! pages cached as ready-to-send bytes per revision; RFC 6570 URI templates
//! ([`uri_template`]); JSON Schema validation; parameters mirrored into HTTP headers
//! ([`headers`]); skill directories served as `skill://` resources ([`skills`]); tags and
//! the enable/disable rules of who sees what ([`visibility`]).

pub mod headers;
mod registry;
pub mod skills;
pub mod uri_template;
pub(crate) use uri_template::percent_decode;
mod validate;
pub mod visibility;

pub use registry::*;
