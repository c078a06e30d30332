//! retro's errors as Python exceptions, and JSON answers as Python objects.

use crate::*;

create_exception!(
    retro,
    TableError,
    PyException,
    "A table file that is damaged, truncated, foreign or of another version."
);

/// retro's error as the Python exception a caller expects, with the command line's
/// one-line message: a damaged or foreign table is a `TableError`, bad input (a position,
/// a board, an option) a `ValueError`, an operating-system failure an `OSError` of its
/// kind, anything else a `RuntimeError`.
pub(crate) fn py_err(e: Error) -> PyErr {
    let message = e.to_string();
    match e.kind() {
        Kind::Input => PyValueError::new_err(message),
        Kind::Corrupt => TableError::new_err(message),
        Kind::Io(std::io::ErrorKind::NotFound) => PyFileNotFoundError::new_err(message),
        Kind::Io(std::io::ErrorKind::PermissionDenied) => PyPermissionError::new_err(message),
        Kind::Io(_) => PyOSError::new_err(message),
        Kind::TooLarge | Kind::Other => PyRuntimeError::new_err(message),
    }
}

/// A JSON value as the Python object `json.loads` would give for it.
pub(crate) fn to_py<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value;
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
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
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (key, value) in map {
                dict.set_item(key, to_py(py, value)?)?;
            }
            dict.into_any()
        }
    })
}
