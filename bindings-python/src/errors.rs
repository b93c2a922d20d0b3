//! Engine errors as the exceptions of `hypermcp.errors`: a JSON-RPC error as `McpError` (the
//! subclass its code names), a refused definition as `DefinitionError`, an option the engine
//! cannot take as `OptionError`; anything else as `RuntimeError` or `OSError`.

use crate::bridge::to_py;
use hypermcp::RpcError;
use pyo3::exceptions::{PyOSError, PyRuntimeError};
use pyo3::prelude::*;

/// An exception of `hypermcp.errors`, built by calling `name(*args)` there.
fn hypermcp_error<'py>(py: Python<'py>, name: &str, args: impl pyo3::call::PyCallArgs<'py>) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let exc = py.import("hypermcp.errors")?.getattr(name)?.call1(args)?;
        Ok(PyErr::from_value(exc))
    };
    build().unwrap_or_else(|err| err)
}

/// An `RpcError` as `hypermcp.errors.McpError` (or the subclass `error_for_code` picks).
pub fn rpc_err(py: Python<'_>, e: &RpcError) -> PyErr {
    let data = match &e.data {
        Some(d) => match to_py(py, d) {
            Ok(d) => d,
            Err(err) => return err,
        },
        None => py.None().into_bound(py),
    };
    hypermcp_error(py, "error_for_code", (e.code, e.message.as_str(), data))
}

/// A refused definition as `hypermcp.errors.DefinitionError` (a `ValueError`).
pub fn definition_err(py: Python<'_>, e: impl std::fmt::Display) -> PyErr {
    hypermcp_error(py, "DefinitionError", (e.to_string(),))
}

/// A refused option as `hypermcp.errors.OptionError` (a `TypeError` and a `ValueError`).
pub fn option_err(py: Python<'_>, e: impl std::fmt::Display) -> PyErr {
    hypermcp_error(py, "OptionError", (e.to_string(),))
}

/// A skill file that failed verification as `hypermcp.errors.SkillVerificationError`.
pub fn skill_err(py: Python<'_>, e: &hypermcp::catalogue::skills::SkillVerificationError) -> PyErr {
    hypermcp_error(py, "SkillVerificationError", (e.message.as_str(), e.reason.as_str(), e.uri.as_str()))
}

/// Something the host asked at the wrong time, or of the wrong kind of session.
pub fn state_err(e: impl std::fmt::Display) -> PyErr {
    PyRuntimeError::new_err(e.to_string())
}

/// A failure of the operating system (a socket, a port).
pub fn os_err(e: impl std::fmt::Display) -> PyErr {
    PyOSError::new_err(e.to_string())
}
