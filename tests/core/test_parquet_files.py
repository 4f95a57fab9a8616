"""Parquet files and datasets as files (isdp._parquet_files): what names one, its files and rows, a released file."""

import re
import stat

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from isdp._parquet_files import (
    DATASET_FILE,
    DATASET_FILE_PATTERN,
    is_dataset,
    is_parquet,
    table_files,
    table_rows,
    write_parquet,
)
from isdp.errors import InvariantError


def test_a_name_says_file_or_dataset_and_an_existing_directory_is_a_dataset(tmp_path):
    assert is_parquet(tmp_path / "t.Parquet") and is_parquet(tmp_path) and not is_parquet(tmp_path / "t.csv")
    assert is_dataset("out/") and is_dataset(tmp_path) and not is_dataset(tmp_path / "new")
    assert all(re.fullmatch(DATASET_FILE_PATTERN, DATASET_FILE.format(k)) for k in (0, 999_999, 1_000_000))


@pytest.mark.parametrize("inside", ["sub/", ".hidden.parquet", "notes.txt"])
def test_a_dataset_is_its_parquet_files_or_refused_naming_what_it_would_leave_out(tmp_path, inside):
    write_parquet(tmp_path / "b.parquet", pa.table({"count": [1]}), 0, np.array([1]))
    write_parquet(tmp_path / "a.parquet", pa.table({"count": [2]}), 0, np.array([2]))
    (tmp_path / "_SUCCESS").write_text("")  # a writer's marker: passed over
    assert [f.name for f in table_files(tmp_path)] == ["a.parquet", "b.parquet"] and table_rows(tmp_path) == 2
    (tmp_path / inside.rstrip("/")).mkdir() if inside.endswith("/") else (tmp_path / inside).write_text("")
    with pytest.raises(InvariantError, match=re.escape(inside.rstrip("/"))):
        table_files(tmp_path)
    assert table_rows(tmp_path) == 0  # the reading says why


def test_an_empty_directory_is_refused(tmp_path):
    with pytest.raises(InvariantError, match="without .parquet files"):
        table_files(tmp_path)


def test_a_released_file_is_new_follows_the_umask_and_keeps_no_metadata(tmp_path, umask):
    field = pa.field("count", pa.int32(), metadata={b"note": b"the true counts"})
    source = pa.table({"cell": ["a", "b"], "count": [3, 4]}).cast(
        pa.schema([pa.field("cell", pa.string()), field], metadata={b"about": b"secret"})
    )
    path = tmp_path / "out.parquet"
    write_parquet(path, source, 1, np.array([2, 5]), {"noise_sd": np.array([1.5, 1.5])})
    back = pq.read_table(path)
    assert back.column_names == ["cell", "count", "noise_sd"] and back["count"].to_pylist() == [2, 5]
    assert back.schema.field("count").type == pa.int64() and not back.schema.metadata
    assert not back.schema.field("count").metadata
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    umask(0o077)
    write_parquet(tmp_path / "strict.parquet", source, 1, np.array([2, 5]))
    assert stat.S_IMODE((tmp_path / "strict.parquet").stat().st_mode) == 0o600
    with pytest.raises(FileExistsError):
        write_parquet(path, source, 1, np.array([2, 5]))


def test_a_scratch_part_is_the_same_rows_without_statistics(tmp_path):
    source = pa.table({"cell": pa.array(["a", "b", "a"]).dictionary_encode(), "count": [3, 4, 5]})
    for name, scratch in (("kept.parquet", False), ("scratch.parquet", True)):
        write_parquet(tmp_path / name, source, 1, np.array([2, 5, 1]), scratch=scratch)
    kept, scratch = (pq.ParquetFile(tmp_path / n) for n in ("kept.parquet", "scratch.parquet"))
    assert kept.read().equals(scratch.read())
    columns = range(kept.metadata.num_columns)
    assert all(kept.metadata.row_group(0).column(c).is_stats_set for c in columns)  # readers skip row groups by them
    assert not any(scratch.metadata.row_group(0).column(c).is_stats_set for c in columns)
