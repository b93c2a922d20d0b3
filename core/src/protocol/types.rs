//! The neutral wire model: every field of every legacy revision (and room for the modern
//! one). Field names follow the spec (camelCase on the wire); `_meta` is kept everywhere the
//! spec allows it. Use [`super::edge`] to shape a value for one negotiated revision.
//!
//! The types live in one file per spec area (`common`, `lifecycle`, `tools`, `resources`,
//! `prompts`, `content`, `completion`, `logging`, `roots`, `sampling`, `elicitation`); this
//! module gathers them into one namespace, which [`crate::protocol`] re-exports.

pub use super::apps::*;
pub use super::common::*;
pub use super::completion::*;
pub use super::content::*;
pub use super::elicitation::*;
pub use super::lifecycle::*;
pub use super::logging::*;
pub use super::modern::*;
pub use super::prompts::*;
pub use super::resources::*;
pub use super::roots::*;
pub use super::sampling::*;
pub use super::skills::*;
pub use super::tools::*;
