"""The release's exact sampler of a whole invariants matrix, block by block.

Each block of cells that share invariants drawn by its own sampler (docs/method.md §11).

A block is drawn by :class:`IntegerL1Sampler` (ℓ1 and, by a second rejection, the generalized
Gaussian), or on the Gaussian route by Klein's sampler (:func:`lattice_block`) where its invariants
are one total or a table's two margins; :class:`ExactSampler` assembles them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy import sparse

from .._sparse import as_sparse, segments
from ..errors import ArgumentError, UncertifiableError
from ..lattice import blocks
from ._integer_l1_sampler import IntegerL1Sampler
from ._integer_sources import IntegerSource
from ._lattice_blocks import lattice_block
from ._lattice_gaussian import LatticeBlock

#: the largest block, counted as rows × cells, that :class:`IntegerL1Sampler` solves: it holds the block's
#: invariants and its solve dense and finds them in O(rows² × cells), so a larger one is refused before that work
DENSE_BLOCK_LIMIT = 2 * 10**7


@dataclass(frozen=True)
class ExactSampler:
    """Exact noise on Λ(A), block by block, each by :class:`IntegerL1Sampler`.

    On the Gaussian route, Klein's sampler draws a block whose invariants are a total or a table's two margins.

    Cells whose invariants share no row are independent blocks (:func:`isdp.lattice.blocks`);
    each is drawn by its own sampler with its own attempt budget, and blocks with the same
    invariants share one sampler, which draws them all in one compiled call
    (:meth:`IntegerL1Sampler.draw_blocks`). Build one with :meth:`build`.

    Parameters
    ----------
    n : int
        The number of cells.
    parts : tuple of (numpy.ndarray, IntegerL1Sampler or isdp.exact.LatticeBlock)
        Per block, its cells (global positions) and its sampler, in the order of the cells.

    See Also
    --------
    IntegerL1Sampler : The sampler of one block.

    Examples
    --------
    Two separate totals, over cells 0–1 and 2–3, at ε = 1/2 per unit ℓ1 distance:

    >>> from fractions import Fraction
    >>> import numpy as np
    >>> from isdp.exact import ExactSampler, seeded_source
    >>> sampler = ExactSampler.build(np.array([[1, 1, 0, 0], [0, 0, 1, 1]]))
    >>> len(sampler.parts), sampler.solved.tolist(), sampler.n_free
    (2, [1, 3], 2)
    >>> noise, attempts = sampler.draw(Fraction(1, 2), seeded_source(3), max_attempts=100)
    >>> noise.tolist(), attempts  # a total of ones is drawn directly: one attempt per block
    ([-2, 2, 0, 0], 2)
    """

    n: int
    parts: tuple[tuple[np.ndarray, IntegerL1Sampler | LatticeBlock], ...]  # (the block's cells, its sampler)

    @classmethod
    def build(cls, A, vet=None, derived: np.ndarray | None = None, gaussian: bool = False) -> ExactSampler | None:
        """Return the sampler for Λ(A), or None when in some block the free cells are not the lattice's coordinates.

        Blocks with the same invariants (52 states' totals of a few sizes) share one sampler.

        Parameters
        ----------
        A : array_like or scipy.sparse array of int, shape (m, n)
            The invariants.
        vet : callable or None, default None
            Called with each distinct block's :class:`IntegerL1Sampler`, largest block first; it may
            raise (a plan's refusal then comes after the hardest block, not after all of them).
        derived : numpy.ndarray of bool, shape (n,), optional
            The cells outside the norm (:class:`IntegerL1Sampler`); None: none.
        gaussian : bool, default False
            For the Gaussian route: a block whose invariants are one total or a table's two
            margins (and whose cells are all in the norm) is drawn by Klein's sampler
            (:class:`isdp.exact.LatticeBlock`: exact, linear time, even noise) and
            not vetted; the others by :class:`IntegerL1Sampler`.

        Returns
        -------
        ExactSampler or None
            The sampler; None when some block has no integral solve.

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.exact import ExactSampler
        >>> margins = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1]])  # 2 x 2, both margins
        >>> sampler = ExactSampler.build(margins)
        >>> sampler.n_free, sampler.solved.tolist()
        (1, [1, 2, 3])
        >>> gaussian = ExactSampler.build(margins, gaussian=True)
        >>> type(gaussian.parts[0][1]).__name__, gaussian.n_free, gaussian.solved.tolist()
        ('LatticeBlock', 1, [])
        """
        A = as_sparse(A)
        derived = np.zeros(A.shape[1], dtype=bool) if derived is None else derived
        found = blocks(A)
        indptr, indices, data, first_row, row_sizes, cells_in_order, cell_sizes = _block_rows(A, found)
        alike = _first_alike(indptr, indices, data, derived[cells_in_order], first_row, row_sizes, cell_sizes)
        samplers: list[IntegerL1Sampler | LatticeBlock | None] = [None] * len(found)
        built: dict[tuple, IntegerL1Sampler | LatticeBlock | None] = {}
        # the first block of each key builds its sampler (largest first: a refusal comes after the hardest block);
        # blocks alike it (the usual many blocks of one shape) take it without a key of their own
        for k in sorted(np.flatnonzero(alike == np.arange(len(found))).tolist(), key=lambda k: -len(found[k][0])):
            (cells, rows), first, last = found[k], int(first_row[k]), int(first_row[k] + row_sizes[k])
            start, end = indptr[first], indptr[last]
            local_indptr = indptr[first : last + 1] - start
            key = (
                len(rows),
                len(cells),
                local_indptr.tobytes(),
                indices[start:end].tobytes(),
                data[start:end].tobytes(),
                derived[cells].tobytes(),
            )
            if key not in built:
                # kept sparse: a block of two margins has 2·cells non-zeros, and Klein's sampler needs no more
                sub = sparse.csr_array(
                    (data[start:end], indices[start:end], local_indptr), shape=(len(rows), len(cells))
                )
                if gaussian and not derived[cells].any():
                    built[key] = lattice_block(sub)  # a total or two margins: Klein's sampler, no proposal wasted
                if built.get(key) is None:
                    _refuse_dense(len(rows), len(cells))
                    built[key] = l1 = IntegerL1Sampler.build(sub.toarray(), derived[cells])
                    if l1 is not None and vet is not None:
                        vet(l1)
            samplers[k] = built[key]
            if samplers[k] is None:
                return None
        # in the order of the cells, as blocks() gives them
        parts = [(cells, samplers[j]) for (cells, _), j in zip(found, alike.tolist(), strict=True)]
        return cls(A.shape[1], tuple(parts))

    @property
    def solved(self) -> np.ndarray:
        """The cells solved for from the others (global positions, sorted).

        Returns
        -------
        numpy.ndarray of int64
            The solved cells of every block.

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.exact import ExactSampler
        >>> ExactSampler.build(np.array([[1, 1, 1]])).solved.tolist()
        [2]
        """
        solved = [cells[sub.solved] for cells, sub in self.parts if isinstance(sub, IntegerL1Sampler)]
        return np.sort(np.concatenate(solved or [np.zeros(0, np.int64)]))

    @property
    def n_free(self) -> int:
        """The lattice's dimension: the number of free cells.

        Returns
        -------
        int
            The free cells of every block together.

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.exact import ExactSampler
        >>> ExactSampler.build(np.array([[1, 1, 1]])).n_free
        2
        """
        return sum(len(sub.free) if isinstance(sub, IntegerL1Sampler) else sub.dim for _, sub in self.parts)

    def variances(self, epsilon: Fraction) -> np.ndarray:
        """Each cell's noise variance under the free-cell route (:meth:`IntegerL1Sampler.variances`).

        Parameters
        ----------
        epsilon : fractions.Fraction
            ε per unit ℓ1 distance.

        Returns
        -------
        numpy.ndarray of float, shape (n,)
            The variance of each cell's noise.

        Examples
        --------
        >>> from fractions import Fraction
        >>> import numpy as np
        >>> from isdp.exact import ExactSampler
        >>> v = ExactSampler.build(np.array([[1, 1, 1]])).variances(Fraction(1, 2))
        >>> [round(float(x), 3) for x in v]
        [7.835, 7.835, 15.671]
        """
        out = np.zeros(self.n)
        for cells, sub in self.parts:
            if not isinstance(sub, IntegerL1Sampler):
                raise ValueError("the free-cell route's variances: a Gaussian route's sampler has none")
            out[cells] = sub.variances(epsilon)
        return out

    def draw(
        self,
        epsilon: Fraction,
        rng: IntegerSource,
        *,
        max_attempts: int,
        sigma: Fraction | None = None,
        accept: bool = True,
        on_block: Callable[[int], object] | None = None,
    ) -> tuple[np.ndarray | None, int]:
        """One draw of the noise on every block.

        Parameters
        ----------
        epsilon : fractions.Fraction
            ε per unit ℓ1 distance (1/σ with ``sigma``).
        rng : IntegerSource
            The random source.
        max_attempts : int
            Proposals per block before giving up (each block has its own budget).
        sigma : fractions.Fraction or None, default None
            With a σ, the generalized Gaussian (:meth:`IntegerL1Sampler.draw`).
        accept : bool, default True
            False for the free-cell route's noise.
        on_block : callable or None, default None
            Called with the number of blocks drawn since the last call (progress that says nothing
            about the counts).

        Returns
        -------
        noise : numpy.ndarray of int64, shape (n,) or None
            A vector of Λ(A); None when a block accepts nothing within ``max_attempts``.
        attempts : int
            The proposals drawn in all blocks.

        Examples
        --------
        >>> from fractions import Fraction
        >>> import numpy as np
        >>> from isdp.exact import ExactSampler, seeded_source
        >>> sampler = ExactSampler.build(np.array([[1, 1, 1]]))
        >>> noise, attempts = sampler.draw(Fraction(1, 2), seeded_source(2024), max_attempts=100)
        >>> noise.tolist(), attempts
        ([0, 0, 0], 1)
        """
        if sigma is None or not accept:
            if any(not isinstance(sub, IntegerL1Sampler) for _, sub in self.parts):
                raise ArgumentError(
                    "sigma must be given, with accept, where a block is drawn by Klein's sampler "
                    "(the Gaussian route only)",
                    "sigma",
                )
        # blocks with one sampler are drawn in one call
        shared: dict[int, tuple[IntegerL1Sampler | LatticeBlock, list[np.ndarray]]] = {}
        for cells, sub in self.parts:
            shared.setdefault(id(sub), (sub, []))[1].append(cells)
        u = np.zeros(self.n, dtype=np.int64)
        total = 0
        for sub, group in shared.values():
            if isinstance(sub, IntegerL1Sampler):
                noise, attempts = sub.draw_blocks(
                    epsilon, len(group), rng, max_attempts=max_attempts, sigma=sigma, accept=accept
                )
                total += attempts
                if noise is None:
                    return None, total
                u[np.stack(group)] = noise
                if on_block is not None:
                    on_block(len(group))
                continue
            assert sigma is not None  # refused above where a block is Klein's
            noise, attempts = sub.draw_blocks(sigma * sigma, len(group), rng)
            total += attempts
            u[np.stack(group)] = noise
            if on_block is not None:
                on_block(len(group))
        return u, total


def _refuse_dense(rows: int, cells: int) -> None:
    """Refuse a block too large for :class:`IntegerL1Sampler`'s dense solve (:data:`DENSE_BLOCK_LIMIT`)."""
    if rows * cells > DENSE_BLOCK_LIMIT:
        raise UncertifiableError(
            f"a block of {cells:,} cells under {rows:,} invariants is beyond the exact sampler's limit of "
            f"{DENSE_BLOCK_LIMIT:,} rows x cells (it solves a block's invariants dense, in time rows² x cells): "
            "nothing is drawn. What would work: --norm gaussian --delta D where the block's invariants are one "
            "total or a table's two margins (Klein's sampler, linear time); fewer invariants, or invariants that "
            "split the table into smaller blocks"
        )


def _block_rows(A, found: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, ...]:
    """Every block's invariants at once: A's rows gathered block after block, each block's cells numbered within it.

    CSR arrays (indptr, indices, data) of the gathered rows; each block's first row in them and its number of rows;
    the blocks' cells one block after the other and each block's number of cells. A block's cells are ascending, so
    its rows' local cells stay ascending and each block's slice is canonical; blocks with equal slices, shape and
    derived cells share a sampler, so they are compared by these arrays instead of slicing A once per block.
    """
    A = as_sparse(A)  # canonical, as blocks() reads it: an explicit zero joins nothing
    sizes = np.array([len(cells) for cells, _ in found], dtype=np.int64)
    row_sizes = np.array([len(rows) for _, rows in found], dtype=np.int64)
    cells = np.concatenate([c for c, _ in found]) if found else np.zeros(0, np.int64)
    rows = np.concatenate([r for _, r in found]) if found else np.zeros(0, np.int64)
    local_cell = np.zeros(A.shape[1], dtype=np.int64)
    local_cell[cells] = np.arange(len(cells)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    widths = np.diff(A.indptr)[rows]
    indptr = np.concatenate([[0], np.cumsum(widths)]).astype(np.int64)
    gather = segments(A.indptr[rows], widths)
    first_row = np.cumsum(row_sizes) - row_sizes
    return indptr, local_cell[A.indices[gather]], A.data[gather].astype(np.int64), first_row, row_sizes, cells, sizes


def _first_alike(
    indptr: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
    derived: np.ndarray,
    first_row: np.ndarray,
    row_sizes: np.ndarray,
    cell_sizes: np.ndarray,
) -> np.ndarray:
    """Per block, the first block of its shape when the two are alike, else the block itself.

    Alike: the same rows, cells and non-zeros, and equal row widths, local cells, coefficients and derived cells
    (``derived``: per cell of the blocks one after the other, as :func:`_block_rows` lists them), so one sampler
    draws both. Every block is compared with the first of its shape in one pass over all their entries.
    """
    k = len(row_sizes)
    if k == 0:
        return np.zeros(0, dtype=np.int64)
    starts = indptr[first_row]
    nnz = indptr[first_row + row_sizes] - starts
    shapes = np.column_stack([row_sizes, cell_sizes, nnz])
    _, first, inverse = np.unique(shapes, axis=0, return_index=True, return_inverse=True)
    candidate = first[inverse.ravel()]
    alike = np.ones(k, dtype=bool)
    # the blocks' rows, entries and cells lie one block after the other: each array is compared as it is with its
    # candidates' entries gathered beside it
    cell_starts = np.cumsum(cell_sizes) - cell_sizes
    for values, begin, size in (
        (np.diff(indptr), first_row, row_sizes),
        (indices, starts, nnz),
        (data, starts, nnz),
        (derived, cell_starts, cell_sizes),
    ):
        differ = np.flatnonzero(values != values[segments(begin[candidate], size)])
        alike[np.searchsorted(np.cumsum(size), differ, side="right")] = False  # the blocks those entries are in
    return np.where(alike, candidate, np.arange(k))
