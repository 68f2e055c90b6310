//! JSON values to Python objects and back: every view, move, event and
//! report crosses as the protocol's JSON shape, built from the engine's
//! own serde types, so a Python caller sees the same keys a server sends.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

/// A JSON value as Python objects: dicts, lists, str, int, float, bool, None.
pub fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => PyFloat::new(py, n.as_f64().unwrap_or(f64::NAN)).into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, to_py(py, v)?)?;
            }
            dict.into_any()
        }
    })
}

/// A Python object of JSON's types (dict with str keys, list or tuple,
/// str, int, float, bool, None) as a JSON value.
pub fn from_py(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::Number(i.into()));
        }
        return Ok(Value::Number(obj.extract::<u64>()?.into()));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        let n = Number::from_f64(f.value()).ok_or_else(|| PyTypeError::new_err("NaN and infinities are not JSON"))?;
        return Ok(Value::Number(n));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut map = Map::new();
        for (k, v) in d.iter() {
            let key = k.cast::<PyString>().map_err(|_| PyTypeError::new_err("dict keys must be str"))?;
            map.insert(key.to_cow()?.into_owned(), from_py(&v)?);
        }
        return Ok(Value::Object(map));
    }
    if let Ok(l) = obj.cast::<PyList>() {
        return l.iter().map(|v| from_py(&v)).collect::<PyResult<Vec<_>>>().map(Value::Array);
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return t.iter().map(|v| from_py(&v)).collect::<PyResult<Vec<_>>>().map(Value::Array);
    }
    Err(PyTypeError::new_err(format!("{} is not a JSON value", obj.get_type().name()?)))
}

/// An engine or protocol value straight into Python objects (no JSON
/// value in between: a view is built every move a Python strategy plays).
/// Fixed-length arrays (a tile's faces) come out as tuples, other
/// sequences as lists; `json.dumps` writes both as the protocol does.
pub fn py_of<'py, T: serde::Serialize + ?Sized>(py: Python<'py>, value: &T) -> PyResult<Bound<'py, PyAny>> {
    pythonize::pythonize(py, value).map_err(PyErr::from)
}
