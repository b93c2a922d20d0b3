//! The bridge to Python: protocol payloads across the boundary (`serde_json::Value` <->
//! Python objects: dict, list, str, int, float, bool, None, built directly on the native
//! side), durations in seconds, and the wake-up the asyncio loop watches.

use crate::errors::rpc_err;
use hypermcp::engine::Event;
use hypermcp::transport::host::events::{kind, visit, Field, LAYOUTS, MAX_FIELDS};
use hypermcp::transport::host::TimeUnit;
use hypermcp::RequestId;
use pyo3::exceptions::{PyOSError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;

/// Python speaks seconds: every duration crosses in them.
pub const UNIT: TimeUnit = TimeUnit::Seconds;

/// A wake-up for the asyncio loop: the I/O thread writes one byte to a socket pair whose
/// other end the loop watches (`loop.add_reader(fileno)`); the loop clears it and takes
/// everything queued meanwhile.
pub struct WakeSocket {
    rx: UnixStream,
}

impl WakeSocket {
    /// The loop's end, and the function that wakes it (callable from any thread).
    pub fn new() -> PyResult<(WakeSocket, impl Fn() + Send + Sync + 'static)> {
        let os = |e: std::io::Error| PyOSError::new_err(e.to_string());
        let (tx, rx) = UnixStream::pair().map_err(os)?;
        tx.set_nonblocking(true).map_err(os)?;
        rx.set_nonblocking(true).map_err(os)?;
        // A full socket buffer means a wake-up is already pending.
        let wake = move || drop((&tx).write(&[1]));
        Ok((WakeSocket { rx }, wake))
    }

    /// The descriptor the loop watches.
    pub fn fileno(&self) -> i32 {
        self.rx.as_raw_fd()
    }

    /// Clears the wake-up before the loop takes what is queued. One read: a wake-up is one
    /// byte, written only while the queue was empty; a byte left over (a rare second one)
    /// just makes the loop look once more.
    pub fn clear(&self) {
        let _ = (&self.rx).read(&mut [0u8; 256]);
    }
}

/// A JSON value as a Python object.
pub fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => map_to_py(py, map)?.into_any(),
    })
}

/// A JSON object as a Python dict.
pub fn map_to_py<'py>(py: Python<'py>, map: &Map<String, Value>) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (k, v) in map {
        dict.set_item(k, to_py(py, v)?)?;
    }
    Ok(dict)
}

/// A Python object (JSON-compatible) as a JSON value. Tuples count as lists; dict keys must
/// be strings.
pub fn from_py(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    from_py_depth(obj, 0)
}

fn from_py_depth(obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    if depth > 128 {
        return Err(PyTypeError::new_err("value nests deeper than 128 levels"));
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_str()?.to_owned()));
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.cast::<PyInt>().is_ok() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::Number(i.into()));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Value::Number(u.into()));
        }
        let f: f64 = obj.extract()?;
        return Ok(Number::from_f64(f).map(Value::Number).unwrap_or(Value::Null));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        let f = f.value();
        return Number::from_f64(f)
            .map(Value::Number)
            .ok_or_else(|| PyTypeError::new_err(format!("{f} is not representable in JSON")));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut map = Map::with_capacity(d.len());
        for (k, v) in d.iter() {
            let key = match k.cast::<PyString>() {
                Ok(s) => s.to_str()?.to_owned(),
                Err(_) => {
                    return Err(PyTypeError::new_err(format!(
                        "JSON object keys must be str, not {}",
                        k.get_type().name()?
                    )))
                }
            };
            map.insert(key, from_py_depth(&v, depth + 1)?);
        }
        return Ok(Value::Object(map));
    }
    if let Ok(l) = obj.cast::<PyList>() {
        return l.iter().map(|v| from_py_depth(&v, depth + 1)).collect::<PyResult<Vec<_>>>().map(Value::Array);
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return t.iter().map(|v| from_py_depth(&v, depth + 1)).collect::<PyResult<Vec<_>>>().map(Value::Array);
    }
    Err(PyTypeError::new_err(format!("{} is not JSON-serialisable", obj.get_type().name()?)))
}

/// A Python object as a typed protocol value.
pub fn from_py_as<T: serde::de::DeserializeOwned>(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<T> {
    let v = from_py(obj)?;
    serde_json::from_value(v).map_err(|e| PyTypeError::new_err(format!("invalid {what}: {e}")))
}

/// An optional Python object (`None` counting as absent) as a JSON value.
pub fn from_py_opt(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Value>> {
    match obj {
        Some(o) if !o.is_none() => from_py(o).map(Some),
        _ => Ok(None),
    }
}

/// A JSON-serialisable Rust value (a protocol type) as a Python object.
pub fn to_py_as<'py, T: serde::Serialize>(py: Python<'py>, v: &T) -> PyResult<Bound<'py, PyAny>> {
    to_py(py, &serde_json::to_value(v).unwrap_or_default())
}

/// The kinds of events as Python strings, made once.
static KINDS: PyOnceLock<Vec<Py<PyString>>> = PyOnceLock::new();

/// An event as the tuple `hypermcp._events` names the fields of: `(kind, field, ...)`.
pub fn event_tuple<'py>(py: Python<'py>, ev: &Event) -> PyResult<Bound<'py, PyTuple>> {
    let kinds = KINDS.get_or_init(py, || LAYOUTS.iter().map(|(k, _)| PyString::intern(py, k).unbind()).collect());
    let mut items = Vec::with_capacity(MAX_FIELDS + 1);
    items.push(kinds[kind(ev).index()].bind(py).clone().into_any());
    let mut failed = None;
    visit(ev, |f| match field(py, f) {
        Ok(v) => items.push(v),
        Err(e) => failed = failed.take().or(Some(e)),
    });
    match failed {
        Some(e) => Err(e),
        None => PyTuple::new(py, items),
    }
}

/// Every pending event of a session as a list of tuples.
pub fn event_list<'py>(py: Python<'py>, mut next: impl FnMut() -> Option<Event>) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    while let Some(ev) = next() {
        list.append(event_tuple(py, &ev)?)?;
    }
    Ok(list)
}

/// What a session queued for the peer, as bytes (empty when nothing is); `buf` is reused.
pub fn output<'py>(py: Python<'py>, buf: &mut Vec<u8>, take: impl FnOnce(&mut Vec<u8>)) -> Bound<'py, PyBytes> {
    buf.clear();
    take(buf);
    PyBytes::new(py, buf)
}

fn field<'py>(py: Python<'py>, f: Field<'_>) -> PyResult<Bound<'py, PyAny>> {
    let none = || py.None().into_bound(py);
    Ok(match f {
        Field::Int(n) => n.into_pyobject(py)?.into_any(),
        Field::Id(RequestId::Number(n)) => n.into_pyobject(py)?.into_any(),
        Field::Id(RequestId::String(s)) => PyString::new(py, s).into_any(),
        Field::Str(s) => PyString::new(py, s).into_any(),
        Field::OptStr(s) => s.map_or_else(none, |s| PyString::new(py, s).into_any()),
        Field::Float(x) => x.into_pyobject(py)?.into_any(),
        Field::OptFloat(x) => x.map_or_else(|| Ok(none()), |x| x.into_pyobject(py).map(Bound::into_any))?,
        Field::OptInt(x) => x.map_or_else(|| Ok(none()), |x| x.into_pyobject(py).map(Bound::into_any))?,
        Field::Bool(b) => PyBool::new(py, b).to_owned().into_any(),
        Field::Object(Some(m)) => map_to_py(py, m)?.into_any(),
        Field::Object(None) | Field::Json(None) => none(),
        Field::Strings(m) => {
            let d = PyDict::new(py);
            for (k, v) in m {
                d.set_item(k, v)?;
            }
            d.into_any()
        }
        Field::Json(Some(v)) => to_py(py, v)?,
        Field::Owned(v) => to_py(py, &v)?,
        Field::Values(items) => {
            let list = PyList::empty(py);
            for v in items {
                list.append(to_py(py, v)?)?;
            }
            list.into_any()
        }
        Field::Error(e) => rpc_err(py, e).into_value(py).into_bound(py).into_any(),
        Field::Context(c) => Bound::new(py, Deferred::new(Source::Context(c.clone())))?.into_any(),
        Field::Origin(o) => Bound::new(py, Deferred::new(Source::Origin(o.clone())))?.into_any(),
    })
}

enum Source {
    Context(std::sync::Arc<hypermcp::engine::RequestContext>),
    Origin(std::sync::Arc<hypermcp::engine::Origin>),
}

/// A request's context or origin, read as a dict only when a handler asks (most never do;
/// made for every call, the dicts were a tenth of a 2026-07-28 call's cost). `get(key,
/// default=None)` and `d[key]`, as the dict would answer.
#[pyclass(frozen, module = "hypermcp._core")]
pub struct Deferred {
    source: Source,
    dict: PyOnceLock<Py<PyDict>>,
}

impl Deferred {
    fn new(source: Source) -> Self {
        Deferred { source, dict: PyOnceLock::new() }
    }

    fn dict<'py>(&self, py: Python<'py>) -> PyResult<&Bound<'py, PyDict>> {
        let d = self.dict.get_or_try_init(py, || {
            let value = match &self.source {
                Source::Context(c) => serde_json::to_value(&**c),
                Source::Origin(o) => serde_json::to_value(&**o),
            }
            .unwrap_or_default();
            let map = match &value {
                Value::Object(m) => map_to_py(py, m)?,
                _ => PyDict::new(py),
            };
            Ok::<_, PyErr>(map.unbind())
        })?;
        Ok(d.bind(py))
    }
}

#[pymethods]
impl Deferred {
    #[pyo3(signature = (key, default=None))]
    fn get<'py>(&self, py: Python<'py>, key: &str, default: Option<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        Ok(match self.dict(py)?.get_item(key)? {
            Some(v) => v,
            None => default.unwrap_or_else(|| py.None().into_bound(py)),
        })
    }

    fn __getitem__<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        self.dict(py)?.get_item(key)?.ok_or_else(|| pyo3::exceptions::PyKeyError::new_err(key.to_string()))
    }

    fn __contains__(&self, py: Python<'_>, key: &str) -> PyResult<bool> {
        self.dict(py)?.contains(key)
    }

    /// The whole dict (a copy).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.dict(py)?.copy()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("Deferred({})", self.dict(py)?.repr()?))
    }
}
