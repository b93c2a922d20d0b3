//! tokio drivers: a session over any byte stream ([`driver`]), this process's stdin/stdout
//! ([`stdio`]), a spawned child process ([`child`]) and in-memory pairs ([`duplex`]).

pub mod child;
pub(crate) mod driver;
pub mod duplex;
pub mod stdio;
