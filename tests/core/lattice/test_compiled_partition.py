"""Tests of :mod:`isdp.lattice._compiled_partition`: the compiled search for implied rows drops the rows the Python
loop of :func:`isdp.lattice.implied_by_partition` drops."""

from __future__ import annotations

import numpy as np
from scipy import sparse

from isdp._sparse import as_sparse
from isdp.lattice import implied_by_partition


def _random_invariants(rng: np.random.Generator) -> sparse.csr_array:
    """Nested geography (nation, states, counties, each state's age margin) on a random shape, with random extra
    rows: unions of counties (sometimes with another coefficient), repeated rows and rows over random cells."""
    states, counties, ages = rng.integers(1, 4), rng.integers(1, 4), rng.integers(1, 4)
    cell = np.arange(states * counties * ages).reshape(states, counties, ages)
    rows = [cell.ravel()] + [cell[s].ravel() for s in range(states)]
    rows += [cell[s, c] for s in range(states) for c in range(counties)]
    rows += [cell[s, :, a] for s in range(states) for a in range(ages)]
    coefficients = [np.ones(len(r), dtype=np.int64) for r in rows]
    for _ in range(rng.integers(0, 4)):
        pick = rng.choice(len(rows), size=rng.integers(1, 3), replace=False)
        union = np.unique(np.concatenate([rows[k] for k in pick]))
        rows.append(union)
        coefficients.append(np.full(len(union), rng.choice([1, 1, 2]), dtype=np.int64))
    for _ in range(rng.integers(0, 3)):
        k = rng.integers(len(rows))
        rows.append(rows[k])
        coefficients.append(coefficients[k])
    for _ in range(rng.integers(0, 3)):
        some = np.unique(rng.choice(cell.size, size=rng.integers(1, cell.size + 1)))
        rows.append(some)
        coefficients.append(np.ones(len(some), dtype=np.int64))
    order = rng.permutation(len(rows))
    data = np.concatenate([coefficients[k] for k in order])
    indices = np.concatenate([rows[k] for k in order])
    indptr = np.cumsum([0] + [len(rows[k]) for k in order])
    return as_sparse(sparse.csr_array((data, indices, indptr), shape=(len(rows), cell.size)))


def test_the_compiled_search_for_implied_rows_is_the_loop(monkeypatch):
    """The compiled search (large sets of invariants) drops the rows the Python loop (small ones) drops, on 300
    random nested sets; and it finds the nation's and the states' totals implied in a nested table."""
    import isdp.lattice._invariants as invariants

    rng = np.random.default_rng(11)
    cases = [_random_invariants(rng) for _ in range(300)]
    loop = [implied_by_partition(A).tolist() for A in cases]
    monkeypatch.setattr(invariants, "_PYTHON_ENTRIES", 0)
    assert [implied_by_partition(A).tolist() for A in cases] == loop
    assert sum(map(len, loop)) > 300  # most sets imply some row
    nested = [[1, 1, 1, 1], [1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 0, 0], [0, 1, 0, 0]]
    assert implied_by_partition(nested).tolist() == [0, 1]
