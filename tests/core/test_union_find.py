"""The compiled union–find against SciPy's graph routines: components, and a breadth-first two-colouring."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse
from scipy.sparse.csgraph import breadth_first_order, connected_components

from isdp._union_find import cell_components, two_colouring


def _breadth_first(a: np.ndarray, b: np.ndarray, nodes: int) -> np.ndarray | None:
    """Each component coloured from its smallest node along a breadth-first order; None when an edge joins a colour."""
    graph = sparse.coo_array((np.ones(len(a)), (a, b)), shape=(nodes, nodes)).tocsr()
    graph = graph + graph.T
    _, component = connected_components(graph, directed=False)
    colour = np.full(nodes, -1)
    for root in np.unique(component, return_index=True)[1].tolist():
        visit, parent = breadth_first_order(graph, root, directed=False)
        colour[root] = 0
        for k in visit[1:].tolist():
            colour[k] = 1 - colour[parent[k]]
    return None if (colour[a] == colour[b]).any() else colour


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 12).flatmap(
        lambda m: st.tuples(st.just(m), st.lists(st.tuples(st.integers(0, m - 1), st.integers(0, m - 1)), max_size=30))
    )
)
def test_the_colouring_is_the_breadth_first_one_or_none_on_an_odd_cycle(graph):
    nodes, edges = graph
    a = np.array([e[0] for e in edges], dtype=np.int64)
    b = np.array([e[1] for e in edges], dtype=np.int64)
    expected = _breadth_first(a, b, nodes)
    got = two_colouring(a, b, nodes)
    if expected is None:
        assert got.size == 0
    else:
        assert got.tolist() == expected.tolist()


def test_a_grid_s_totals_are_rows_and_columns_and_a_triangle_has_no_colouring():
    # a 2 x 3 table: row totals 0-1, column totals 2-4; each cell joins its row's and its column's
    rows, cols = np.repeat([0, 1], 3), np.tile([2, 3, 4], 2)
    assert two_colouring(rows, cols, 5).tolist() == [0, 0, 1, 1, 1]
    assert two_colouring(np.array([0, 1, 2]), np.array([1, 2, 0]), 3).size == 0
    assert two_colouring(np.zeros(0, np.int64), np.zeros(0, np.int64), 3).tolist() == [0, 0, 0]


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 15).flatmap(
        lambda n: st.tuples(st.just(n), st.lists(st.lists(st.integers(0, n - 1), max_size=4), max_size=8))
    )
)
def test_the_components_are_scipy_s_each_labelled_by_its_smallest_cell(case):
    cells, rows = case
    A = sparse.csr_array(
        (
            np.ones(sum(len(set(r)) for r in rows)),
            ([i for i, r in enumerate(rows) for _ in set(r)], [c for r in rows for c in sorted(set(r))]),
        ),
        shape=(len(rows), cells),
    )
    graph = sparse.coo_array((np.ones(A.nnz), (A.nonzero()[1], cells + A.nonzero()[0])), shape=(cells + len(rows),) * 2)
    _, label = connected_components(graph, directed=False)
    got = cell_components(A.indptr.astype(np.int64), A.indices.astype(np.int64), np.arange(len(rows)), cells)
    smallest = {int(k): int(np.flatnonzero(label[:cells] == k)[0]) for k in np.unique(label[:cells])}
    assert got.tolist() == [smallest[int(k)] for k in label[:cells]]
