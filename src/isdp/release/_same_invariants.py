"""A plan's structural pieces, built once per process while part after part has the same invariants.

A part's exact sampler (its blocks, their samplers and acceptance forecasts) and its neighbours are functions
of the invariants ``A``, the request and the noise unit alone, never of the counts: :meth:`Plan.make` builds them
before any count is read. A table cut into parts of one shape (states with the same counties and ages, blocks of
100 cells under their totals) has the same ``A`` in every part, so a worker process builds them for its first part
and takes them again while the next part's ``A`` equals the last one's, entry by entry (no digest: equal
matrices only). The samplers are frozen and never written after they are built, so a draw is the same whether its
sampler was built for this part or an earlier one. Parts of different shapes (a nation's states, each with its own
counties) build their own; a comparison costs one pass over ``A``'s arrays, made once per part (the pieces of
every kind were built for one matrix, and the last pair found equal is remembered). Whether a part's plan
was taken again (its time) depends on the table's keys, which the released table lists, never on a count.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import TypeVar

import numpy as np
from scipy import sparse

_T = TypeVar("_T")

_lock = threading.Lock()
#: per kind of piece, the last one built: the matrix, the other inputs' key and the piece
_last: dict[str, tuple[sparse.csr_array, Hashable, object]] = {}
#: the last pair of matrices found equal (at most one): the pieces of every kind were built for one matrix, so a
#: part compares its matrix with theirs once
_equal: list[tuple[sparse.csr_array, sparse.csr_array]] = []


def _same(A: sparse.csr_array, B: sparse.csr_array) -> bool:
    """Whether two canonical CSR matrices are equal: shape, pointers, cells and coefficients."""
    with _lock:
        if A is B or any(A is a and B is b for a, b in _equal):
            return True
    equal = (
        A.shape == B.shape
        and np.array_equal(A.indptr, B.indptr)
        and np.array_equal(A.indices, B.indices)
        and np.array_equal(A.data, B.data)
    )
    if equal:
        with _lock:
            _equal[:] = [(A, B)]
    return equal


def built_once(kind: str, A: sparse.csr_array, key: Hashable, build: Callable[[], _T], remember: bool = True) -> _T:
    """Return ``build()``, or the piece of ``kind`` built last when it was built for an equal ``A`` and ``key``.

    Parameters
    ----------
    kind : str
        What is built (one remembered per kind).
    A : scipy.sparse.csr_array
        The invariants, canonical (:func:`isdp._sparse.as_sparse`).
    key : hashable
        Every other input of ``build``, compared with ``==``.
    build : callable
        Builds the piece from ``A`` and the inputs ``key`` stands for; an exception it raises is raised and nothing
        is remembered.
    remember : bool, default True
        False: build, neither looking up nor keeping (a whole table's release, whose pieces may be large, keeps none).

    Returns
    -------
    object
        The piece.

    Examples
    --------
    >>> from isdp._sparse import as_sparse
    >>> from isdp.release._same_invariants import built_once
    >>> calls = []
    >>> def build():
    ...     calls.append(1)
    ...     return "sampler"
    >>> A = as_sparse([[1, 1, 0], [0, 1, 1]])
    >>> built_once("doc", A, "req", build), built_once("doc", as_sparse(A.toarray()), "req", build)
    ('sampler', 'sampler')
    >>> len(calls)  # the second part's invariants were the same
    1
    """
    if not remember:
        return build()
    with _lock:
        last = _last.get(kind)
    if last is not None and last[1] == key and _same(last[0], A):
        return last[2]  # type: ignore[return-value]
    piece = build()
    with _lock:
        _last[kind] = (A, key, piece)
    return piece
