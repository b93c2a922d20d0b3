//! What crosses replicas: the records a server keeps beyond one request, behind traits with
//! in-memory implementations ([`tasks`]: the durable state of the Tasks extension).

pub mod tasks;
