"""Which changes of persons' records keep a release's invariants A x = A x'.

Decided from A alone, never from the counts, with the smallest change they absorb when no change of one or two
persons does (docs/method.md §11).

Two tables are neighbours when they have the same invariants and differ in the records of k
persons: each person is added, removed, or moves from one cell to another. Whether a change of k
persons can keep the invariants at all depends on A: one person can when two cells have the same
invariant column (or a cell is in no invariant); two persons can when two different pairs of moves
have the same effect on A x (a 2 × 2 swap under margins). A change the invariants cannot absorb is
disclosed by them: the invariants are published exactly, by design.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from scipy import sparse

#: squared ℓ2 distance of two persons' change to a table when one person's change keeps the invariants
#: (both make the same move: 2(e_b − e_a)); :meth:`Neighbours.two_person_shift` gives it for given invariants
TWO_PERSON_SHIFT = 8
#: largest number of pairwise sums of distinct invariant columns examined for two-person changes
_PAIR_SUM_LIMIT = 20_000_000
#: the largest group searched for the smallest change the invariants absorb when no one or two persons' does
LARGEST_GROUP = 8
#: largest number of multisets of effects (each a group's cells before or after) compared in that search
_GROUP_LIMIT = 2_000_000


@dataclass(frozen=True)
class SmallestChange:
    """The smallest change of persons' records that keeps the invariants, when no one or two persons' does.

    Parameters
    ----------
    persons : int or None
        The fewest persons whose change keeps the invariants; None when none of up to ``searched`` does.
    l1 : int or None
        The largest ‖v‖₁ of such a change v = x' − x (None with ``persons``).
    l2_squared : int or None
        The largest ‖v‖₂² of such a change (None with ``persons``).
    searched : int
        The largest group size examined (groups of 3 … ``searched`` persons).

    See Also
    --------
    Neighbours.of : Computes it, as ``Neighbours.smallest``.

    Examples
    --------
    One weighted invariant 3·x₀ + x₁: one person moving from cell 1 to cell 0 and two leaving cell 1
    keep it (v = (1, −3)); no change of fewer persons does.

    >>> from isdp.privacy import Neighbours
    >>> Neighbours.of([[3, 1]]).smallest
    SmallestChange(persons=3, l1=4, l2_squared=10, searched=3)
    """

    persons: int | None
    l1: int | None
    l2_squared: int | None
    searched: int


@dataclass(frozen=True)
class Neighbours:
    """Which record-level changes keep the invariants A x = A x' (from A alone).

    Whether some change of one person's record, and some change of two persons' records, leaves
    every invariant unchanged is a property of the invariant matrix A only, never of the counts.
    A change the invariants cannot absorb is disclosed by them (they are published exactly, by
    design), so a privacy statement says which of its per-person and two-person lines are
    realisable. Build one with :meth:`of`.

    Parameters
    ----------
    one_person : bool or None
        Whether some change of one person's record (added, removed, or moved between cells) keeps
        the invariants; None when not determined (several tables, where one person's change
        touches every table at once).
    two_persons : bool or None
        Whether some change of two persons' records keeps the invariants; None when not
        determined (too many distinct invariant columns to compare all their pairwise sums).
    smallest : SmallestChange or None, default None
        Where neither is realisable, the smallest change that keeps the invariants (its persons,
        largest ‖v‖₁ and ‖v‖₂²); None otherwise. Left out of the repr.

    Attributes
    ----------
    TWO_PERSON_SHIFT : int
        8, the squared ℓ2 distance of two persons' change when one person's change keeps the invariants (both
        make the same move: 2(e_b − e_a)); :meth:`two_person_shift` gives it for given invariants (a class
        attribute).

    See Also
    --------
    Guarantee.to_dict : The guarantee with these flags, as the privacy statement carries it.

    Notes
    -----
    With the columns of A and a zero column (a person outside the table) as the cells'
    "effects", one person's change keeps A x iff two effects are equal, and two persons' changes
    iff two different multisets {a, b} ≠ {c, d} of effects have c_a + c_b = c_c + c_d (persons
    moving a → c and b → d); docs/method.md §11. A total over several cells lets one person move
    between them; both margins of a two-way table never do, but two persons swapping in a
    2 × 2 sub-table do.

    Examples
    --------
    One total over three cells: one person moving between cells keeps it.

    >>> import numpy as np
    >>> from isdp.privacy import Neighbours
    >>> Neighbours.of(np.array([[1, 1, 1]]))
    Neighbours(one_person=True, two_persons=True)

    Both margins of a 2 × 2 table: no single person's change keeps them, a swap of two does.

    >>> margins = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1]])
    >>> n = Neighbours.of(margins)
    >>> n.realisable(1), n.realisable(2)
    (False, True)
    >>> print(n.describe())  # doctest: +NORMALIZE_WHITESPACE
    no change of a single person's record keeps the invariants (the published invariants reveal it);
    the smallest change they absorb involves two persons: the guarantee per two persons applies
    """

    one_person: bool | None  # one person added, removed or moved between cells; None: not determined
    two_persons: bool | None  # two persons; None: not determined (too many distinct columns)
    #: when no change of one or two persons keeps the invariants, the smallest one that does (else None)
    smallest: SmallestChange | None = field(default=None, repr=False)

    TWO_PERSON_SHIFT: ClassVar[int] = TWO_PERSON_SHIFT

    @classmethod
    def of(cls, A) -> Neighbours:
        """Realisable changes under the invariants A (rows: invariants, columns: cells).

        A person outside the table is a zero column: adding, removing or moving a person changes
        A x by the difference of two columns of A ∪ {0}. One person's change keeps A x iff two of
        these columns are equal; two persons' changes do iff two different pairs of columns have
        the same sum (c_a + c_b = c_c + c_d moves persons a→c and b→d, or the reverse).

        Parameters
        ----------
        A : array_like or scipy.sparse array of int, shape (m, n)
            The invariant matrix: one row per invariant, one column per cell (integer
            coefficients; dense or sparse).

        Returns
        -------
        Neighbours
            ``one_person`` and ``two_persons`` decided from A. Two equal columns (or a cell in no
            invariant) settle both as True, in time linear in A's non-zeros; otherwise the
            pairwise sums of the columns are compared, and ``two_persons`` is None (not
            determined) when the (n + 1)(n + 2)/2 sums of m entries each exceed 2·10⁷ entries.
            When neither is realisable, ``smallest`` holds the smallest change that is
            (:class:`SmallestChange`): the sums of every multiset of 3, 4, … effects are compared
            the same way, up to :data:`LARGEST_GROUP` persons or 2·10⁶ multisets.

        Examples
        --------
        >>> from isdp.privacy import Neighbours
        >>> Neighbours.of([[1, 0, 0], [0, 1, 0], [0, 0, 1]])  # every cell fixed
        Neighbours(one_person=False, two_persons=False)
        >>> Neighbours.of([[1, 1, 0]])  # the third cell is in no invariant: a person may be added to it
        Neighbours(one_person=True, two_persons=True)
        """
        A = sparse.csc_array(A, dtype=np.int64)
        A.sum_duplicates()
        A.eliminate_zeros()
        if _repeated_column(A):
            return cls(one_person=True, two_persons=True)
        m = A.shape[1] + 1
        if m * (m + 1) // 2 * max(A.shape[0], 1) > _PAIR_SUM_LIMIT:
            return cls(one_person=False, two_persons=None)
        distinct = np.vstack([A.toarray().T, np.zeros((1, A.shape[0]), dtype=np.int64)])
        i, j = np.triu_indices(m)
        sums = distinct[i] + distinct[j]
        if len(np.unique(sums, axis=0)) < len(sums):
            return cls(one_person=False, two_persons=True)
        return cls(one_person=False, two_persons=False, smallest=_smallest_change(distinct))

    def realisable(self, k: int) -> bool | None:
        """Whether some change of ``k`` persons keeps the invariants.

        Parameters
        ----------
        k : int
            The number of persons whose records change: 1 or 2.

        Returns
        -------
        bool or None
            :attr:`one_person` for ``k = 1``, :attr:`two_persons` for ``k = 2``; None when not
            determined.

        Raises
        ------
        KeyError
            When ``k`` is neither 1 nor 2.

        Examples
        --------
        >>> from isdp.privacy import Neighbours
        >>> Neighbours.of([[1, 1, 1]]).realisable(1)
        True
        """
        return {1: self.one_person, 2: self.two_persons}[k]

    def describe(self) -> str:
        """One sentence for the privacy statement: which of its lines the invariants let happen.

        Returns
        -------
        str
            The sentence the statement carries under ``neighbours``.

        Examples
        --------
        >>> from isdp.privacy import Neighbours
        >>> print(Neighbours.of([[1, 1, 1]]).describe())
        a change of one person's record can keep the invariants: the per-person line covers everyone
        """
        if self.one_person:
            return "a change of one person's record can keep the invariants: the per-person line covers everyone"
        if self.one_person is None:
            return (
                "whether a change of one person's record (in every table at once) can keep the invariants was "
                "not determined; the per-person and two-person lines bound any such change"
            )
        if self.two_persons:
            return (
                "no change of a single person's record keeps the invariants (the published invariants reveal it); "
                "the smallest change they absorb involves two persons: the guarantee per two persons applies"
            )
        if self.two_persons is None:
            return (
                "no change of a single person's record keeps the invariants (the published invariants reveal it); "
                "whether two persons' changes can was not determined (too many distinct invariant columns)"
            )
        found = self.smallest
        if found is not None and found.persons is not None:
            return (
                f"no change of fewer than {found.persons} persons keeps the invariants (the published invariants "
                f"reveal any such change); the smallest change they absorb involves {found.persons} persons "
                f"(‖v‖₁ ≤ {found.l1}, ‖v‖₂² ≤ {found.l2_squared}): the guarantee per {found.persons} persons "
                "applies"
            )
        searched = found.searched if found is not None else 2
        return (
            f"no change of up to {searched} persons keeps the invariants: the published invariants reveal any "
            "such change; the per-person line bounds larger groups by group privacy"
        )

    def two_person_shift(self, A) -> int:
        """Return the largest squared ℓ2 distance of a change of two persons that keeps the invariants A.

        Parameters
        ----------
        A : array_like or scipy.sparse array of int, shape (m, n)
            The invariants of one table (rows: invariants, columns: cells) these neighbours were found for
            (:meth:`of`).

        Returns
        -------
        int
            :attr:`TWO_PERSON_SHIFT`, 8, when one person's change keeps A or that is undetermined (two persons
            making the same move: ‖2(e_b − e_a)‖² = 8); else 4 when every coefficient of A is 0 or 1 (counting
            invariants: only a swap of four distinct cells, ‖v‖² = 4, keeps them); else 6 (a cell
            shared by both persons' changes, as under the coefficients 1, 2, 3).

        Notes
        -----
        Two persons change the table by v = e_b − e_a + e_d − e_c (a cell index for a person outside
        the table gives a zero column). With no single change kept, a, b, c, d cannot make v a
        doubled move; a shared cell (b = d, say) needs 2·A e_b = A e_a + A e_c with A e_a ≠ A e_c,
        impossible when the columns are 0/1 vectors, so then only the swap of four distinct cells
        (‖v‖² = 4) remains (docs/method.md §11).

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.privacy import Neighbours
        >>> total = np.array([[1, 1, 1]])
        >>> Neighbours.of(total).two_person_shift(total)
        8
        >>> margins = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1]])
        >>> Neighbours.of(margins).two_person_shift(margins)
        4
        >>> weights = np.array([[1, 2, 3]])  # 2·(cell 1) = (cell 0) + (cell 2): a cell shared by both changes
        >>> Neighbours.of(weights).two_person_shift(weights)
        6
        """
        if self.one_person is not False:
            return TWO_PERSON_SHIFT
        data = A.data if sparse.issparse(A) else np.asarray(A)
        return 4 if np.all((data == 0) | (data == 1)) else 6


def _repeated_column(A: sparse.csc_array) -> bool:
    """Whether two columns of A ∪ {0} are equal, in time and memory linear in A's non-zeros.

    Columns are hashed (:func:`isdp._first_seen.row_hashes` of Aᵀ: equal columns hash alike); where a hash repeats,
    the columns are grouped by it (:func:`isdp._first_seen.first_seen`) and those sharing one compared exactly.
    """
    from .._first_seen import first_seen, row_hashes  # deferred: numba, which a small table's release need not load

    A.sort_indices()
    n = A.shape[1]
    widths = np.diff(A.indptr)
    if (widths == 0).any():  # a cell in no invariant: its column is the zero column, a person outside the table's
        return True
    if _repeated_single_entry(A, np.flatnonzero(widths == 1)):  # cells under one total: found without hashing
        return True
    # Aᵀ on A's own arrays, and the zero column (the person outside the table) as one more, empty row
    indptr = np.append(A.indptr, A.indptr[-1])
    hashes = row_hashes(sparse.csr_array((A.data, A.indices, indptr), shape=(n + 1, A.shape[0])))
    ordered = np.sort(hashes)  # no hash repeats (the usual answer): decided by one sort, a few ms per million
    if not (ordered[1:] == ordered[:-1]).any():
        return False
    group, first = first_seen(hashes)

    def column(j):
        lo, hi = indptr[j], indptr[j + 1]
        return (A.indices[lo:hi].tobytes(), A.data[lo:hi].tobytes())

    # equal columns hash alike, so they are among the columns whose hash repeats: compare each with its group's
    # first, a chunk at a time (cells under one total are found at the first pair)
    suspects = np.flatnonzero(np.bincount(group)[group] > 1)
    for start in range(0, suspects.size, 1024):
        chunk = suspects[start : start + 1024]
        for a, b in zip(first[group[chunk]].tolist(), chunk.tolist(), strict=True):
            if a != b and column(a) == column(b):
                return True
    return len({column(j) for j in suspects.tolist()}) < suspects.size  # a hash shared by unequal columns


def _repeated_single_entry(A: sparse.csc_array, single: np.ndarray) -> bool:
    """Whether two of the columns ``single`` (one non-zero each) are equal: the same row and coefficient.

    Their (row, coefficient) pairs as one integer each, grouped by :func:`isdp._first_seen.first_seen` (a table
    of the range, linear, where the coefficients are few).
    """
    from .._first_seen import first_seen  # deferred: numba, which a small table's release need not load

    if single.size < 2:
        return False
    rows, values = A.indices[A.indptr[single]].astype(np.int64), A.data[A.indptr[single]]
    low, span = int(values.min()), int(values.max()) - int(values.min()) + 1
    if A.shape[0] * span >= 2**62:  # the pairs do not fit in one integer: left to the hashes
        return False
    _, first = first_seen(rows * span + (values - low))
    return len(first) < single.size


def _smallest_change(effects: np.ndarray) -> SmallestChange:
    """Return the fewest persons whose change keeps A, and the largest ‖v‖₁ and ‖v‖₂² of such a change.

    ``effects``: the distinct columns of A with a zero row last (a person outside the table), one per
    row. k persons keep A x iff two different multisets of k effects have equal sums (each person's
    cell before, and after); at the smallest such k the two multisets share no effect (else k − 1
    persons would do), and v is the difference of their cell counts. k runs from 3 up to
    :data:`LARGEST_GROUP` while the multisets number at most 2·10⁶ and their sums 2·10⁷ entries.
    """
    m, rows = effects.shape
    k = 3
    while k <= LARGEST_GROUP:
        count = math.comb(m + k - 1, k)
        if count > _GROUP_LIMIT or count * max(rows, 1) > _PAIR_SUM_LIMIT:
            break
        groups = np.fromiter(
            itertools.chain.from_iterable(itertools.combinations_with_replacement(range(m), k)),
            dtype=np.int64,
            count=count * k,
        ).reshape(count, k)
        _, inverse, sizes = np.unique(effects[groups].sum(axis=1), axis=0, return_inverse=True, return_counts=True)
        inverse = inverse.reshape(-1)
        if (sizes > 1).any():
            l1 = l2 = 0
            for g in np.flatnonzero(sizes > 1):
                members = groups[inverse == g]
                cells = np.zeros((len(members), m), dtype=np.int64)
                np.add.at(cells, (np.arange(len(members))[:, None], members), 1)
                v = (cells[:, None, :] - cells[None, :, :])[..., :-1]  # the zero effect is no cell
                l1, l2 = max(l1, int(np.abs(v).sum(-1).max())), max(l2, int((v * v).sum(-1).max()))
            return SmallestChange(k, l1, l2, k)
        k += 1
    return SmallestChange(None, None, None, k - 1)
