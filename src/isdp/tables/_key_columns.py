"""A large table's keys and cell labels held a column at a time, not as one Python tuple and one string per cell.

A Parquet table read a column at a time (:func:`isdp.tables._parquet_tables.plain_columns`) keeps,
per key column, its distinct labels (an Arrow string array) and each cell's code into them (int32,
in the order of first appearance). :class:`KeyColumns` and :class:`CellLabels` read as the lists
they stand for (``keys[i]`` a tuple of text, ``labels[i]`` the key joined by ``|``), so the code
that names a few cells (the statement's solved cells, each group's first cell) reads them
unchanged; grouping cells by key columns (:func:`isdp.tables.constraint_matrix`) reads the codes.
A cell costs a 32-bit code per key column, not a tuple of strings.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._arrow_arrays import from_numpy

#: cells turned into tuples at a time when the whole sequence is read
_CHUNK = 1 << 16


class KeyColumns(Sequence):
    """Each cell's key, a column at a time: per key column its distinct labels and every cell's code.

    Parameters
    ----------
    labels : list of pyarrow.Array
        Per key column, its distinct labels: strings, or integers (a column of integers), made text when read
        (a column of 10⁶ distinct integers costs no string of each until its labels are read).
    codes : list of numpy.ndarray
        Per key column, each cell's position in its labels (integers, in the order of first
        appearance: the first cell's code is 0, and a new label gets the next code).

    Examples
    --------
    >>> import numpy as np
    >>> import pyarrow as pa
    >>> from isdp.tables._key_columns import KeyColumns
    >>> keys = KeyColumns([pa.array(["A", "B"]), pa.array(["F", "M"])],
    ...                   [np.array([0, 0, 1]), np.array([0, 1, 0])])
    >>> len(keys), keys[1], list(keys)
    (3, ('A', 'M'), [('A', 'F'), ('A', 'M'), ('B', 'F')])
    >>> keys == [("A", "F"), ("A", "M"), ("B", "F")]
    True
    """

    def __init__(self, labels: list, codes: list[np.ndarray]) -> None:
        self.labels, self.codes = labels, codes
        self._text: list[tuple[np.ndarray, memoryview] | None] = [None] * len(labels)

    def __len__(self) -> int:
        return len(self.codes[0])

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        out = []
        for a, codes in enumerate(self.codes):
            offsets, data = self._buffers(a)
            code = codes[i]
            out.append(str(data[offsets[code] : offsets[code + 1]], "utf-8"))
        return tuple(out)

    def __iter__(self):
        for start in range(0, len(self), _CHUNK):
            columns = [
                _as_text(labels.take(codes[start : start + _CHUNK])).to_pylist()
                for labels, codes in zip(self.labels, self.codes, strict=True)
            ]
            yield from zip(*columns, strict=True)

    def _buffers(self, a: int) -> tuple[np.ndarray, memoryview]:
        """Column ``a``'s labels as text, their offsets and bytes: one label read costs a slice, not an Arrow scalar."""
        text = self._text[a]
        if text is None:
            text = self._text[a] = _offsets_and_data(_as_text(self.labels[a]))
        return text

    # Unhashable, as the list it stands for: a class that defines __eq__ alone has __hash__ None.
    def __eq__(self, other) -> bool:
        return _same(self, other, tuple)

    def take(self, cells: np.ndarray, axes: list[int]) -> list[tuple[str, ...]]:
        """Return the keys of ``cells`` in the key columns ``axes``, a column at a time (no per-cell slicing).

        Parameters
        ----------
        cells : numpy.ndarray of int
            Cell positions.
        axes : list of int
            Key columns' positions among the key columns.

        Returns
        -------
        list of tuple of str
            Per cell, its labels in ``axes``.
        """
        if not axes:
            return [()] * len(cells)
        columns = [
            _as_text(self.labels[a].take(from_numpy(np.asarray(self.codes[a])[cells]))).to_pylist() for a in axes
        ]
        return list(zip(*columns, strict=True))

    def column(self, a: int) -> tuple[np.ndarray, int]:
        """Column ``a``'s codes (first-appearance order) and its number of distinct labels.

        Parameters
        ----------
        a : int
            The key column's position among the key columns.

        Returns
        -------
        tuple
            (codes as int64, the number of labels).
        """
        return np.asarray(self.codes[a], dtype=np.int64), len(self.labels[a])


def _same(ours: Sequence, other, kind=None) -> bool:
    """Return whether ``other`` is a sequence of the same items as ``ours``, as a list compares.

    Each item is made a ``kind`` first, if given.
    """
    return (
        isinstance(other, Sequence)
        and len(other) == len(ours)
        and all(a == (b if kind is None else kind(b)) for a, b in zip(ours, other, strict=True))
    )


def _as_text(labels):
    """Return labels as text: a string array as it is, integers cast (as Arrow writes them: ``-5``, ``12``)."""
    import pyarrow as pa  # deferred: only a table held a column at a time comes here, and it has loaded pyarrow

    if pa.types.is_string(labels.type) or pa.types.is_large_string(labels.type):
        return labels
    import pyarrow.compute as pc  # deferred, as pyarrow above

    return pc.cast(labels, pa.string())


def _offsets_and_data(column) -> tuple[np.ndarray, memoryview]:
    """Return a string array's offsets (from its first label) and the bytes they index."""
    import pyarrow as pa  # deferred: only a table held a column at a time comes here, and it has loaded pyarrow

    width = np.int64 if pa.types.is_large_string(column.type) else np.int32
    offsets = np.frombuffer(column.buffers()[1], dtype=width)[column.offset : column.offset + len(column) + 1]
    data = column.buffers()[2]
    return offsets, memoryview(data) if data is not None else memoryview(b"")


class CellLabels(Sequence):
    """Each cell's label, its key fields joined by ``|``, made when read.

    Parameters
    ----------
    keys : KeyColumns
        The cells' keys.

    Examples
    --------
    >>> import numpy as np
    >>> import pyarrow as pa
    >>> from isdp.tables._key_columns import CellLabels, KeyColumns
    >>> labels = CellLabels(KeyColumns([pa.array(["A", "B"])], [np.array([1, 0])]))
    >>> labels[0], list(labels), labels == ["B", "A"]
    ('B', ['B', 'A'], True)
    """

    def __init__(self, keys: KeyColumns) -> None:
        self.keys = keys

    def __len__(self) -> int:
        return len(self.keys)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return ["|".join(k) for k in self.keys[i]]
        return "|".join(self.keys[i])

    def __iter__(self):
        return ("|".join(k) for k in self.keys)

    def __eq__(self, other) -> bool:  # unhashable too (no __hash__ beside __eq__)
        return _same(self, other)

    def take(self, cells: np.ndarray) -> list[str]:
        """Return the labels of ``cells``, read a key column at a time (no per-cell slicing).

        Parameters
        ----------
        cells : numpy.ndarray of int
            Cell positions.

        Returns
        -------
        list of str
            Per cell, its label.

        Examples
        --------
        >>> import numpy as np
        >>> import pyarrow as pa
        >>> from isdp.tables._key_columns import CellLabels, KeyColumns
        >>> keys = KeyColumns([pa.array(["A", "B"]), pa.array(["F", "M"])], [np.array([0, 0, 1]), np.array([0, 1, 0])])
        >>> CellLabels(keys).take(np.array([2, 0]))
        ['B|F', 'A|F']
        """
        return ["|".join(key) for key in self.keys.take(cells, list(range(len(self.keys.codes))))]
