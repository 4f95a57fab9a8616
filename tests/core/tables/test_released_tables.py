"""A released table read back: signed values, the labels checked as a table's, the columns a release added."""

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from isdp.errors import InputError
from isdp.tables import load_table, read_released

EXTRA = ["noise_sd", "lower", "upper"]


def test_a_long_csv_release_reads_its_signed_values_without_the_added_columns(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("county,sex,count,noise_sd,lower,upper\nA,F,-2,2.8,-7,3\nA,M,5,2.8,0,10\n")
    table, values, added = read_released(path, extra_columns=EXTRA)
    assert table.key_names == ("county", "sex") and table.cell_labels == ["A|F", "A|M"]
    assert values.tolist() == [-2, 5] and values.dtype == np.int64 and table.x is None
    assert added == {"noise_sd": ["2.8", "2.8"], "lower": ["-7", "0"], "upper": ["3", "10"]}


def test_a_wide_release_reads_its_cells_and_checks_its_margins(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("sex,young,old,Total\nFemale,-1,9,8\nMale,4,2,6\n")
    table, values, _ = read_released(path)
    assert table.cell_labels == load_table(path, labels_only=True).cell_labels
    assert values.tolist() == [-1, 9, 4, 2]
    path.write_text("sex,young,old,Total\nFemale,-1,9,9\nMale,4,2,6\n")
    with pytest.raises(InputError, match="margin column"):
        read_released(path)


def test_a_parquet_dataset_release_reads_by_column(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    for k in range(2):
        cells = pa.table({"g": [f"g{k}", f"g{k}"], "a": ["x", "y"], "count": pa.array([-3 + k, 4], pa.int64())})
        pq.write_table(cells, out / f"part-{k:06d}.parquet")
    table, values, _ = read_released(out)
    assert list(table.cell_labels) == ["g0|x", "g0|y", "g1|x", "g1|y"] and values.tolist() == [-3, 4, -2, 4]


@pytest.mark.parametrize(
    ("text", "extra", "message"),
    [
        ("county,count\nA,1.5\n", [], "not an integer"),
        ("county,count\nA,1\nA,2\n", [], "A"),
        ("county,count,lower,upper\nA,1,0,2\n", EXTRA, "last columns"),
        ("county,count\nA|B,1\n", [], "contains '|'"),
    ],
)
def test_what_a_table_reader_refuses_is_refused(tmp_path, text, extra, message):
    path = tmp_path / "r.csv"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        read_released(path, extra_columns=extra)
    with pytest.raises(InputError, match="no such file"):
        read_released(tmp_path / "none.csv")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-(2**53), 2**53), min_size=1, max_size=8))
def test_any_signed_values_within_the_limit_read_back_exactly(tmp_path_factory, values):
    path = tmp_path_factory.mktemp("r") / "r.csv"
    path.write_text("cell,count\n" + "".join(f"c{i},{v}\n" for i, v in enumerate(values)))
    assert read_released(path)[1].tolist() == values
