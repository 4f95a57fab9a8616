"""Group numbers in the order of first appearance: the key columns' codes and the invariants' groups.

A table's key columns, the groups of ``by:NAME`` invariants and of ``--by`` queries, and the patterns
of query terms are all numbered this way. On integers the pass is a compiled open-addressing hash
table (linear: a sort of 10⁷ values takes seconds), which grows as groups appear, so its memory is
in the number of groups, not of values; ascending integers (cell ids, sorted keys) need no table, a
group beginning where a value changes; integers within a short range (codes, a dictionary's indices)
index a table of that range directly, without hashing; on text a dictionary. The cells of each
group, in order, are listed by a counting sort (:func:`cells_by_group`). Every pass gives the same numbers, which
``tests/core/test_first_seen.py`` checks against a plain dictionary.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: below this many values a dictionary's pass is faster than loading the compiled one
_COMPILED_FROM = 2**15

#: integers spanning at most this many times as many values as they number (or 2**16) take a direct table: a slot
#: per value of their range, so its memory is at most a few times the values'
_DIRECT_SPAN = 2


@njit(cache=True, nogil=True)
def _mixed(value):
    """Return :func:`mix64` of one value, compiled."""
    x = np.uint64(value)
    x ^= x >> np.uint64(30)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    return x


@njit(cache=True, nogil=True)
def _slot(value, mask):
    """Return a value's first slot in a table of ``mask + 1`` slots."""
    return np.int64(_mixed(value) & np.uint64(mask))


@njit(cache=True, nogil=True)
def _row_hashes(indptr, indices, data):
    """Return each CSR row's hash: its length's mix plus the mixes of its (cell, coefficient) pairs."""
    rows = indptr.size - 1
    out = np.empty(rows, dtype=np.uint64)
    for i in range(rows):
        h = _mixed(indptr[i + 1] - indptr[i] + 1)
        for p in range(indptr[i], indptr[i + 1]):
            h += _mixed(_mixed(indices[p]) ^ np.uint64(data[p]))
        out[i] = h
    return out


def row_hashes(A) -> np.ndarray:
    """Return a hash of each row of a canonical CSR matrix: equal rows hash alike (a row's order is its cells').

    Parameters
    ----------
    A : scipy.sparse.csr_array
        Canonical (:func:`isdp._sparse.as_sparse`), int64.

    Returns
    -------
    numpy.ndarray of uint64
        One hash per row.

    Examples
    --------
    >>> from isdp._sparse import as_sparse
    >>> h = row_hashes(as_sparse([[1, 0, 2], [0, 0, 0], [1, 0, 2]]))
    >>> bool(h[0] == h[2]), bool(h[0] == h[1])
    (True, False)
    """
    return _row_hashes(A.indptr.astype(np.int64, copy=False), A.indices.astype(np.int64, copy=False), A.data)


@njit(cache=True, nogil=True)
def _codes(values):
    """Return each value's group (groups in first-appearance order) and each group's first position."""
    n = values.size
    size = 1024
    slots = np.full(size, -1, dtype=np.int64)  # a group's number, or −1 for an empty slot
    first = np.empty(64, dtype=np.int64)
    codes = np.empty(n, dtype=np.int64)
    groups = 0
    for i in range(n):
        v = values[i]
        h = _slot(v, size - 1)
        while True:
            g = slots[h]
            if g < 0:
                if groups == first.size:
                    grown = np.empty(2 * first.size, dtype=np.int64)
                    grown[:groups] = first[:groups]
                    first = grown
                first[groups] = i
                slots[h] = groups
                codes[i] = groups
                groups += 1
                if 2 * groups > size:  # half full at most: short probes
                    size *= 2
                    slots = np.full(size, -1, dtype=np.int64)
                    for k in range(groups):
                        s = _slot(values[first[k]], size - 1)
                        while slots[s] >= 0:
                            s = (s + 1) & (size - 1)
                        slots[s] = k
                break
            if values[first[g]] == v:
                codes[i] = g
                break
            h = (h + 1) & (size - 1)
    return codes, first[:groups].copy()


@njit(cache=True, nogil=True)
def _direct_codes(values, low, span):
    """Return :func:`_codes` of integers within ``low … low + span − 1``: a slot per value of the range, no hash."""
    n = values.size
    slots = np.full(span, -1, dtype=np.int64)  # a group's number, or −1 for a value not seen yet
    first = np.empty(min(span, n), dtype=np.int64)
    codes = np.empty(n, dtype=np.int64)
    groups = 0
    for i in range(n):
        k = values[i] - low
        g = slots[k]
        if g < 0:
            g = groups
            slots[k] = g
            first[g] = i
            groups += 1
        codes[i] = g
    return codes, first[:groups].copy()


@njit(cache=True, nogil=True)
def _scatter(member, starts):
    """Return the positions ``0 … n − 1`` ordered by group, stably: group g's from ``starts[g]`` on."""
    at = starts.copy()
    cells = np.empty(member.size, dtype=np.int64)
    for i in range(member.size):
        g = member[i]
        cells[at[g]] = i
        at[g] += 1
    return cells


def cells_by_group(member: np.ndarray, groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Return the positions of each group's values in order, groups in order, and where each group's begin.

    A counting sort (one pass to count, one to place): what a stable argsort of ``member`` gives, without sorting.

    Parameters
    ----------
    member : numpy.ndarray of int64
        Each position's group, in ``0 … groups − 1``.
    groups : int
        The number of groups.

    Returns
    -------
    cells : numpy.ndarray of int64
        The positions, group 0's first, each group's ascending.
    indptr : numpy.ndarray of int64
        ``groups + 1`` offsets: group g's positions are ``cells[indptr[g]:indptr[g + 1]]``.

    Examples
    --------
    >>> import numpy as np
    >>> cells, indptr = cells_by_group(np.array([1, 0, 1, 2]), 3)
    >>> cells.tolist(), indptr.tolist()
    ([1, 0, 2, 3], [0, 1, 3, 4])
    """
    indptr = np.zeros(groups + 1, dtype=np.int64)
    np.cumsum(np.bincount(member, minlength=groups), out=indptr[1:])
    return _scatter(member, indptr[:-1]), indptr


def mix64(x: np.ndarray) -> np.ndarray:
    """Return SplitMix64's finaliser of each value, elementwise (wrapping uint64 arithmetic): a hash's mixing step.

    Parameters
    ----------
    x : numpy.ndarray of uint64
        The values.

    Returns
    -------
    numpy.ndarray of uint64
        Each value mixed: every bit of a value moves every bit of its result.

    Examples
    --------
    >>> import numpy as np
    >>> mix64(np.array([0, 1], dtype=np.uint64)).tolist()
    [0, 6238072747940578789]
    """
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


def first_seen(values) -> tuple[np.ndarray, np.ndarray]:
    """Return each value's group number, groups numbered in the order of their first value, and each group's first.

    Parameters
    ----------
    values : numpy.ndarray or list
        One-dimensional: integers (any integer dtype) or hashable objects (text).

    Returns
    -------
    codes : numpy.ndarray of int64
        The group of each value: 0 for the first value's, then 1 for the next value not seen before, and so on.
    first : numpy.ndarray of int64
        Each group's first position in ``values`` (so ``values[first]`` are the distinct values in order).

    Examples
    --------
    >>> import numpy as np
    >>> codes, first = first_seen(np.array([7, 3, 7, 9, 3]))
    >>> codes.tolist(), first.tolist()
    ([0, 1, 0, 2, 1], [0, 1, 3])
    >>> first_seen(["b", "a", "b"])[0].tolist()
    [0, 1, 0]
    """
    array = values if isinstance(values, np.ndarray) else None
    if array is not None and array.dtype.kind in "iu" and array.size >= _COMPILED_FROM:
        wide = array.view(np.int64) if array.dtype == np.uint64 else array.astype(np.int64, copy=False)
        low, high = int(wide.min()), int(wide.max())
        if high - low < max(_DIRECT_SPAN * wide.size, 2**16):  # Python integers: the span cannot wrap
            return _direct_codes(np.ascontiguousarray(wide), low, high - low + 1)
        if (array[1:] >= array[:-1]).all():  # ascending (cell ids, sorted keys): a group begins where a value does
            new = np.empty(array.size, dtype=bool)
            new[0] = True
            np.not_equal(array[1:], array[:-1], out=new[1:])
            return np.cumsum(new, dtype=np.int64) - 1, np.flatnonzero(new).astype(np.int64)
        return _codes(np.ascontiguousarray(wide))
    seen: dict = {}
    items = values.tolist() if array is not None else values
    codes = np.fromiter((seen.setdefault(v, len(seen)) for v in items), dtype=np.int64, count=len(items))
    first = np.empty(len(seen), dtype=np.int64)
    first[codes[::-1]] = np.arange(len(codes) - 1, -1, -1)  # the last write per group is its first position
    return codes, first
