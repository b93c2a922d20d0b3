//! The MCP wire model: one neutral set of types that is a superset of every revision
//! ([`types`]), the revisions themselves and what each allows ([`version`]), and the edge
//! conversions that shape a neutral value for one negotiated revision ([`edge`]).

pub mod edge;
pub mod types;
pub mod version;

pub use types::*;
pub use version::{Era, Feature, ProtocolVersion};
