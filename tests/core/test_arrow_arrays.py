"""Numbers between numpy and Arrow through their buffers (isdp._arrow_arrays): the same values and dtypes as
pyarrow's own conversions, and a Parquet release that never loads pandas."""

import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from isdp._arrow_arrays import from_numpy, to_numpy

NUMBERS = st.sampled_from(["int8", "int16", "int32", "int64", "uint8", "uint32", "uint64", "float32", "float64"])


@given(
    st.lists(hnp.arrays(NUMBERS.map(np.dtype), st.integers(0, 20)), min_size=1, max_size=4).filter(
        lambda parts: len({p.dtype for p in parts}) == 1
    ),
    st.integers(0, 5),
    st.integers(0, 5),
)
def test_a_column_of_numbers_reads_as_pyarrow_reads_it(parts, start, stop):
    """Chunks, and a slice whose chunks begin and end inside their buffers (an offset): the values and dtype of
    pyarrow's ``to_numpy``, bit for bit (NaNs included)."""
    column = pa.chunked_array([from_numpy(p) for p in parts], type=pa.from_numpy_dtype(parts[0].dtype))
    column = column.slice(min(start, len(column)), max(0, len(column) - start - stop))
    mine, theirs = to_numpy(column), column.to_numpy()
    assert mine.dtype == theirs.dtype
    assert mine.tobytes() == theirs.tobytes()
    for chunk in column.chunks:
        assert to_numpy(chunk).tobytes() == chunk.to_numpy().tobytes()


@given(hnp.arrays(NUMBERS.map(np.dtype), st.integers(0, 50)))
def test_a_numpy_array_becomes_the_arrow_array_pyarrow_makes(values):
    assert from_numpy(values).equals(pa.array(values))
    assert from_numpy(values[::2]).equals(pa.array(values[::2]))  # not contiguous: copied


@pytest.mark.parametrize(
    "column",
    [pa.array([1, None, 3]), pa.array([True, False]), pa.array(["a", "b"]), pa.chunked_array([[1.5, None]])],
    ids=["nulls", "booleans", "text", "chunked-nulls"],
)
def test_other_columns_are_left_to_pyarrow(column):
    mine, theirs = to_numpy(column), column.to_numpy(zero_copy_only=False)
    assert mine.dtype == theirs.dtype and [str(v) for v in mine] == [str(v) for v in theirs]


@pytest.mark.parametrize("values", [np.zeros((2, 2)), np.array(["a"]), np.array([True])])
def test_from_numpy_takes_one_dimension_of_numbers(values):
    with pytest.raises(TypeError, match="one dimension of integers or floats"):
        from_numpy(values)


@pytest.mark.parametrize(
    "invariants",
    [["--invariant", "by:state"], ["--invariant", "by:state", "--norm", "gaussian", "--delta", "1e-6"]],
    ids=["l1", "gaussian"],
)
def test_a_parquet_release_never_loads_pandas(tmp_path, invariants):
    """pyarrow's own conversions import pandas (0.4 s of a command that never needs it)."""
    table = tmp_path / "counts.parquet"
    states = np.repeat(np.array(["A", "B", "C"]), 4)
    pq.write_table(pa.table({"state": states, "age": np.tile(np.arange(4), 3), "count": np.arange(12)}), table)
    args = ["release", str(table), *invariants, "--epsilon", "1", "-o", str(tmp_path / "out.parquet")]
    code = f"import sys\nfrom isdp.cli import main\nstatus = main({args!r})\nprint(status, 'pandas' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split()[-2:] == ["0", "False"], done.stdout + done.stderr
