"""A plan's structural pieces built once per process while part after part has the same invariants."""

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from isdp._sparse import as_sparse
from isdp.release import Request, _partitioned_release, _plan, _same_invariants
from isdp.release._partitioned_release import release_partitioned
from isdp.release._same_invariants import built_once

A = [[1, 1, 0, 0], [0, 0, 1, 1]]


@pytest.fixture(autouse=True)
def _nothing_remembered(monkeypatch):
    monkeypatch.setattr(_same_invariants, "_last", {})
    monkeypatch.setattr(_same_invariants, "_equal", [])


def _counted():
    calls = []

    def build():
        calls.append(1)
        return object()

    return calls, build


def test_an_equal_matrix_and_key_take_the_piece_built_last():
    calls, build = _counted()
    first = built_once("piece", as_sparse(A), ("request", 1), build)
    assert built_once("piece", as_sparse(np.array(A)), ("request", 1), build) is first  # equal, not the same object
    assert len(calls) == 1
    assert built_once("other piece", as_sparse(A), ("request", 1), build) is not first  # one remembered per kind
    assert len(calls) == 2


def test_pieces_built_for_one_matrix_compare_the_next_part_s_once(monkeypatch):
    """Two kinds built for one part's matrix, then a next part's equal matrix: compared entry by entry once."""
    calls, build = _counted()
    compared, array_equal = [], np.array_equal
    monkeypatch.setattr(np, "array_equal", lambda a, b: compared.append(1) or array_equal(a, b))
    first = as_sparse(A)
    built = [built_once(kind, first, 1, build) for kind in ("sampler", "neighbours")]
    following = as_sparse(np.array(A))
    assert [built_once(kind, following, 1, build) for kind in ("sampler", "neighbours")] == built
    assert len(compared) == 3 and len(calls) == 2  # pointers, cells, coefficients: once
    changed = as_sparse([[1, 2, 0, 0], [0, 0, 1, 1]])  # and a matrix that differs is compared anew
    assert built_once("neighbours", changed, 1, build) is not built[1]


@pytest.mark.parametrize(
    "B, key",
    [
        ([[1, 2, 0, 0], [0, 0, 1, 1]], 1),  # a coefficient
        ([[1, 0, 1, 0], [0, 1, 0, 1]], 1),  # the cells of the rows
        ([[1, 1, 0, 0], [0, 0, 1, 1], [1, 1, 1, 1]], 1),  # a row more
        ([[1, 1, 0, 0, 0], [0, 0, 1, 1, 0]], 1),  # a cell more, in no row
        (A, 2),  # another request
    ],
)
def test_any_difference_builds_anew(B, key):
    calls, build = _counted()
    first = built_once("piece", as_sparse(A), 1, build)
    assert built_once("piece", as_sparse(B), key, build) is not first
    assert len(calls) == 2


def test_a_failed_build_is_raised_and_remembers_nothing_and_a_whole_table_keeps_nothing():
    calls, build = _counted()

    def fails():
        raise ValueError("refused")

    with pytest.raises(ValueError, match="refused"):
        built_once("piece", as_sparse(A), 1, fails)
    built_once("piece", as_sparse(A), 1, build, remember=False)
    built_once("piece", as_sparse(A), 1, build)
    assert len(calls) == 2  # neither the failure nor the unremembered build was taken again


@pytest.mark.parametrize("norm", [{}, {"norm": "gaussian", "delta": 1e-6}])
def test_parts_of_one_shape_build_one_sampler_and_release_what_each_building_its_own_releases(
    tmp_path, monkeypatch, norm
):
    """Blocks of 100 in parts of 2,500 cells: four equal parts and a last of 2,000 build two samplers and search
    twice for the nation's total among the parts' own, and the seeded release is byte for byte the one whose every
    part builds its own."""
    path = tmp_path / "t.parquet"
    cells = np.arange(12_000)
    counts = np.random.default_rng(0).poisson(5, cells.size)
    pq.write_table(pa.table({"group": cells // 100, "cell": cells, "count": counts}), path)
    req = Request(epsilon="1", rules=("total", "by:group"), seed=4, progress=False, **norm)
    built = []
    exact_sampler = _plan.exact_sampler
    monkeypatch.setattr(_plan, "exact_sampler", lambda *args: built.append(1) or exact_sampler(*args))
    searched = []
    totals_implied = _partitioned_release._totals_implied
    monkeypatch.setattr(_partitioned_release, "_totals_implied", lambda *a: searched.append(1) or totals_implied(*a))

    def release(name):
        files = [tmp_path / f"{name}{suffix}" for suffix in (".parquet", ".json", ".audit.json")]
        release_partitioned(path, req.rules, req, *files, part_cells=2_500)
        return files[0].read_bytes(), files[1].read_bytes()

    once = release("once")
    assert len(built) == len(searched) == 2
    everything = lambda kind, A, key, build, remember=True: build()  # noqa: E731
    monkeypatch.setattr(_plan, "built_once", everything)
    monkeypatch.setattr(_partitioned_release, "built_once", everything)
    assert release("each") == once
    assert len(built) == len(searched) == 2 + 5
