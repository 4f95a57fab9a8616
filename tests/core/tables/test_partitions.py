"""The partition key of a request's families and the cutting of a Parquet table into parts of whole partitions."""

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from isdp.errors import NotPartitionable
from isdp.tables import PartitionLayout, _partitions, constraint_matrix, load_table
from isdp.tables._partitions import partition_key

NESTED = ["total", "by:state", "by:state,county", "by:state,age"]


def test_the_key_is_what_every_family_not_summed_from_another_includes():
    key, within, spanning = partition_key(NESTED, ["state", "county", "age"])
    assert key == ("state",) and within == (1, 2, 3) and spanning == ((0, ()),)
    assert partition_key(["by:group"], ["group", "cell"]) == (("group",), (0,), ())
    # names as the header writes them, whatever the family's case; a spanning family's in its own order
    key, _, spanning = partition_key(["by:County,STATE", "by:state"], ["State", "county"])
    assert key == ("State", "county") and spanning == ((1, ("State",)),)
    key, _, spanning = partition_key(["by:County,State,age", "by:county,state"], ["State", "county", "age"])
    assert key == ("State", "county", "age") and spanning == ((1, ("county", "State")),)


@pytest.mark.parametrize(
    "families, reason",
    [
        (["by:row", "by:col"], "no key column"),  # both margins of one table: no partition
        (["all-margins"], "not a total by key columns"),
        (["by:state,county", "by:state,age", "by:age"], "not on a subset"),  # a national age margin
        (["by:nowhere"], "does not name key columns"),
    ],
)
def test_families_without_a_partition_are_refused(families, reason):
    with pytest.raises(NotPartitionable, match=reason):
        partition_key(families, ["state", "county", "age", "row", "col"])


def _write(path, columns, counts=None):
    n = len(next(iter(columns.values())))
    pq.write_table(
        pa.table({**columns, "count": np.ones(n, dtype=np.int64) if counts is None else counts}), path, row_group_size=7
    )
    return path


def test_parts_are_whole_runs_of_the_key_until_they_reach_part_cells(tmp_path):
    groups = np.repeat(np.arange(5), [3, 4, 2, 6, 1])
    path = _write(tmp_path / "t.parquet", {"group": groups, "cell": np.arange(16)})
    layout = PartitionLayout.of(path, ["by:group"], part_cells=5)
    assert layout.parts == ((0, 7, 0, 2), (7, 15, 2, 4), (15, 16, 4, 5))
    assert layout.cells == 16 and layout.runs == 5 and layout.spanning == ()


def test_a_directory_s_files_are_one_table_and_a_run_may_cross_them(tmp_path):
    folder = tmp_path / "t"
    folder.mkdir()
    _write(folder / "a.parquet", {"group": np.array([0, 0, 1]), "cell": np.arange(3)})
    _write(folder / "b.parquet", {"group": np.array([1, 2]), "cell": np.arange(3, 5)})
    layout = PartitionLayout.of(folder, ["total", "by:group"], part_cells=1)
    assert layout.file_rows == (3, 2) and layout.parts == ((0, 2, 0, 1), (2, 4, 1, 2), (4, 5, 2, 3))
    ((position, total),) = layout.spanning
    assert position == 0 and total.labels == ("total",) and total.members.tolist() == [0, 0, 0]


def test_spanning_totals_are_labelled_and_ordered_as_the_whole_table_s(tmp_path):
    region = np.array(["North", "North", "South", "South", "North", "North", "South", "South"])
    state = np.array(["a", "a", "b", "b", "c", "c", "d", "d"])
    path = _write(tmp_path / "t.parquet", {"Region": region, "State": state, "age": np.arange(8) % 2})
    layout = PartitionLayout.of(path, ["by:state,region", "by:region"], part_cells=1)
    ((_, family),) = layout.spanning
    table = load_table(path)
    _, labels = constraint_matrix(table, ["by:region"])
    assert list(family.labels) == labels == ["by Region=North", "by Region=South"]
    assert family.members.tolist() == [0, 1, 0, 1]
    # a region of one state would repeat that state's total: the whole table drops such a row
    path = _write(tmp_path / "u.parquet", {"Region": region[:6], "State": state[:6], "age": np.arange(6) % 2})
    with pytest.raises(NotPartitionable, match="single partition"):
        PartitionLayout.of(path, ["by:state,region", "by:region"])


@pytest.mark.parametrize(
    "state, reason",
    [
        (["A", "A", "B", "B", "A", "A"], "not contiguous"),
        (["A", "A", "B", "B", "a", "a"], "look alike"),
    ],
)
def test_keys_seen_twice_or_alike_are_not_partitioned(tmp_path, state, reason):
    path = _write(tmp_path / "t.parquet", {"state": np.array(state), "age": np.arange(6)})
    with pytest.raises(NotPartitionable, match=reason):
        PartitionLayout.of(path, ["by:state"])


def _layout_or_reason(path, monkeypatch, batch):
    monkeypatch.setattr(_partitions, "_BATCH_ROWS", batch)
    try:
        layout = PartitionLayout.of(path, ["total", "by:state"], part_cells=3)
    except NotPartitionable as err:
        return str(err)
    return layout.parts, layout.runs, layout.spanning[0][1].labels


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.sampled_from(["A", "A ", " A", "B", "B  ", "b", "C", "7", "07"]), min_size=1, max_size=14),
    st.integers(1, 5),
)
def test_a_dictionary_key_is_cut_as_its_text_is(tmp_path, monkeypatch, words, batch):
    """Runs found from a dictionary's codes (words that trim alike share a run) are the text's runs, batch by batch;
    an integer key's, its text's."""
    text = _write(tmp_path / "text.parquet", {"state": np.array(words), "age": np.arange(len(words))})
    coded = tmp_path / "coded.parquet"
    pq.write_table(
        pa.table(
            {"state": pa.array(words).dictionary_encode(), "age": np.arange(len(words)), "count": np.ones(len(words))}
        ),
        coded,
        row_group_size=7,
    )
    assert pa.types.is_dictionary(pq.read_table(coded).column("state").type)
    assert _layout_or_reason(coded, monkeypatch, batch) == _layout_or_reason(text, monkeypatch, batch)
    numbers = [int(w) for w in words if w.strip().isdigit()] or [1]
    integers = _write(tmp_path / "integers.parquet", {"state": np.array(numbers), "age": np.arange(len(numbers))})
    as_text = _write(
        tmp_path / "as_text.parquet", {"state": np.array([str(v) for v in numbers]), "age": np.arange(len(numbers))}
    )
    assert _layout_or_reason(integers, monkeypatch, batch) == _layout_or_reason(as_text, monkeypatch, batch)
