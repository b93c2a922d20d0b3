//! The MCP wire model: one neutral set of types that is a superset of every revision
//! ([`types`], one file per spec area), the revisions themselves and what each allows
//! ([`version`]), and the edge conversions that shape a neutral value for one negotiated
//! revision ([`edge`]).

mod apps;
mod common;
mod completion;
mod content;
mod elicitation;
mod lifecycle;
mod logging;
pub mod methods;
mod modern;
mod prompts;
mod resources;
mod roots;
mod sampling;
mod skills;
pub mod tasks;
mod tools;

pub mod edge;
pub mod types;
pub mod version;

pub use types::*;
pub use version::{Era, Feature, ProtocolVersion};
