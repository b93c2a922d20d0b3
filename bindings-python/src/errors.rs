//! Engine errors as Python exceptions of `hypermcp.errors` (`McpError(code, message, data)`),
//! and definition errors as `ValueError`.

use crate::bridge::to_py;
use hypermcp::RpcError;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// An `RpcError` as `hypermcp.errors.McpError` (or the subclass `error_for_code` picks).
pub fn rpc_err(py: Python<'_>, e: &RpcError) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let module = py.import("hypermcp.errors")?;
        let data = match &e.data {
            Some(d) => to_py(py, d)?,
            None => py.None().into_bound(py),
        };
        let exc = module.getattr("error_for_code")?.call1((e.code, e.message.as_str(), data))?;
        Ok(PyErr::from_value(exc))
    };
    build().unwrap_or_else(|err| err)
}

/// A refused definition as `ValueError`.
pub fn definition_err(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}
