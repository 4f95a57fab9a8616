"""Numbers between numpy and Arrow through their buffers, so that reading and writing a table never loads pandas.

pyarrow's own conversions (``to_numpy``, ``pyarrow.array``) start its pandas integration on their first call, which
imports pandas when it is installed: about 0.4 s of a command that otherwise never needs it. A fixed-width
number column without nulls is one contiguous buffer in both libraries, so these functions hand it over as it is,
and leave anything else (nulls, booleans, text) to pyarrow.
"""

from __future__ import annotations

import numpy as np


def to_numpy(values) -> np.ndarray:
    """Return an Arrow array or chunked array as a numpy array, through its buffers when it is one of numbers.

    Parameters
    ----------
    values : pyarrow.Array or pyarrow.ChunkedArray
        Any Arrow array; integers and floats without nulls are read from their buffers (one chunk without a
        copy), others by pyarrow's ``to_numpy``.

    Returns
    -------
    numpy.ndarray
        The values, of the dtype pyarrow's ``to_numpy`` gives them.

    Examples
    --------
    >>> import pyarrow as pa
    >>> from isdp._arrow_arrays import from_numpy, to_numpy
    >>> to_numpy(pa.chunked_array([from_numpy(np.array([1, 2])), from_numpy(np.array([3]))])).tolist()
    [1, 2, 3]
    """
    import pyarrow as pa  # deferred: only Parquet tables need it

    kind = values.type
    if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)) or values.null_count:
        return values.to_numpy(zero_copy_only=False)
    dtype = np.dtype(kind.to_pandas_dtype())
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    parts = [np.frombuffer(c.buffers()[1], dtype=dtype)[c.offset : c.offset + len(c)] for c in chunks]
    if len(parts) == 1:
        return parts[0]
    return np.concatenate(parts) if parts else np.empty(0, dtype=dtype)


def from_numpy(values: np.ndarray):
    """Return a one-dimensional numpy array of numbers as an Arrow array of the same type, sharing its buffer.

    Parameters
    ----------
    values : numpy.ndarray
        Integers or floats, one dimension; a non-contiguous array is copied first.

    Returns
    -------
    pyarrow.Array
        The values, no nulls; it keeps ``values`` alive.

    Examples
    --------
    >>> from isdp._arrow_arrays import from_numpy
    >>> array = from_numpy(np.array([3, 1, 2], dtype=np.int32))
    >>> str(array.type), array.to_pylist()
    ('int32', [3, 1, 2])
    """
    import pyarrow as pa  # deferred: as above

    values = np.ascontiguousarray(values)
    if values.ndim != 1 or values.dtype.kind not in "iuf":
        raise TypeError(f"from_numpy takes one dimension of integers or floats, got {values.dtype} {values.shape}")
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values), [None, pa.py_buffer(values)])
