"""Union–find over integer nodes, compiled: the components of a set of invariants and the two-colouring of totals.

Two questions about large sets of invariants are answered by joining nodes along edges in one pass, linear in the
edges, where SciPy's graph routines first build a graph of every edge and then walk it:

- :func:`cell_components`: the cells that share invariants, the blocks a sampler draws independently
  (:func:`isdp.lattice.blocks`), each labelled by its smallest cell;
- :func:`two_colouring`: totals that share cells coloured in two families, the rows and the columns of a table
  whose two margins they are (:func:`isdp.exact.lattice_block`), each node's parity to its root kept.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _smallest(parent, node):
    """Return the root of ``node`` (its component's smallest node so far), halving the path on the way."""
    while parent[node] != node:
        parent[node] = parent[parent[node]]
        node = parent[node]
    return node


@njit(cache=True, nogil=True)
def cell_components(indptr: np.ndarray, indices: np.ndarray, rows: np.ndarray, cells: int) -> np.ndarray:
    """Return each cell's component under the invariants ``rows`` of a CSR matrix: the smallest cell it is joined to.

    Two cells are joined when some row of ``rows`` holds both. A cell in no row is its own component.

    Parameters
    ----------
    indptr, indices : numpy.ndarray of int64
        The CSR arrays of the invariants (rows × cells).
    rows : numpy.ndarray of int64
        The rows that join cells.
    cells : int
        The number of cells.

    Returns
    -------
    numpy.ndarray of int64
        Per cell, the smallest cell of its component.
    """
    parent = np.arange(cells)
    for row in rows:
        if indptr[row] == indptr[row + 1]:
            continue
        root = _smallest(parent, indices[indptr[row]])
        for p in range(indptr[row] + 1, indptr[row + 1]):
            other = _smallest(parent, indices[p])
            if other < root:
                parent[root] = other
                root = other
            elif other > root:
                parent[other] = root
    label = np.empty(cells, dtype=np.int64)
    for cell in range(cells):
        label[cell] = _smallest(parent, cell)
    return label


@njit(cache=True, nogil=True)
def _root(parent, parity, node):
    """Return the root of ``node`` and ``node``'s parity to it, the path to it compressed."""
    root, flip = node, 0
    while parent[root] != root:
        flip ^= parity[root]
        root = parent[root]
    # compress: each node on the path points at the root, with its own parity to it
    walk, rest = node, flip
    while walk != root and parent[walk] != root:
        up = parent[walk]
        own = parity[walk]
        parent[walk], parity[walk] = root, rest
        rest ^= own
        walk = up
    return root, flip


@njit(cache=True, nogil=True)
def two_colouring(a: np.ndarray, b: np.ndarray, nodes: int) -> np.ndarray:
    """Return a colour (0 or 1) per node such that each edge ``a[k]``–``b[k]`` joins two colours, or an empty array.

    Each component's smallest node has colour 0, as a breadth-first colouring from it gives: a two-colourable
    graph's colouring is each node's parity to it. An empty array when some cycle is odd: no two-colouring exists.

    Parameters
    ----------
    a, b : numpy.ndarray of int64
        The edges' ends.
    nodes : int
        The number of nodes.

    Returns
    -------
    numpy.ndarray of int64
        One colour per node, or an empty array.
    """
    parent = np.arange(nodes)
    parity = np.zeros(nodes, dtype=np.int64)  # a node's parity to its parent
    for k in range(a.size):
        ra, pa = _root(parent, parity, a[k])
        rb, pb = _root(parent, parity, b[k])
        if ra == rb:
            if pa == pb:
                return np.zeros(0, dtype=np.int64)
        else:
            parent[ra], parity[ra] = rb, pa ^ pb ^ 1
    first = np.full(nodes, nodes, dtype=np.int64)  # per root, its component's smallest node
    flips = np.zeros(nodes, dtype=np.int64)
    roots = np.zeros(nodes, dtype=np.int64)
    for node in range(nodes):
        roots[node], flips[node] = _root(parent, parity, node)
        if first[roots[node]] == nodes:
            first[roots[node]] = node
    colour = np.zeros(nodes, dtype=np.int64)
    for node in range(nodes):
        colour[node] = flips[node] ^ flips[first[roots[node]]]
    return colour
