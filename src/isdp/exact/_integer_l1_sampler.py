"""The release's exact ℓ1 sampler, in integer arithmetic, for any invariants.

The ℓ1 generalized Laplace on Λ(A) by rejection, and the generalized Gaussian by a second rejection from it.

Not :func:`isdp.exact.sample_sum_constraint_l1`, the compiled floating-point sampler of one sum
constraint that the MCMC experiments use. Here (docs/release.md, docs/method.md §11) the free
cells are drawn i.i.d. DG(ε) (:func:`double_geometric_array`), the invariants solved for the
other cells (:func:`integral_solve`), and the proposal kept with probability
exp(-ε Σ_{i solved} |u_i|) (:func:`bernoulli_exp`): every decision is made from uniform integers,
so the law is exact (:class:`IntegerL1Sampler`). A block under one total is drawn directly, its law
without proposals to reject (:mod:`isdp.exact._compiled_one_total`). Tables the others determine stay outside the norm
(:meth:`IntegerL1Sampler.norm_tables`). :class:`ExactSampler` serves a matrix block by block.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .. import _validate as check
from .._sparse import as_sparse
from ..errors import ArgumentError, InputError, UncertifiableError
from ..lattice import blocks
from ..mcmc import DoubleGeometric
from ._compiled_l1 import compiled_blocks
from ._compiled_one_total import one_total_blocks
from ._integer_sources import IntegerSource, seeded_source
from ._integral_solve import _exact_product, _exact_solve, independent_rows, integral_solve
from ._one_total_law import fits

#: the largest block, counted as rows² × cells, whose independent rows and solve are found again in exact
#: integer arithmetic when the floating-point ones fail their exact check (:meth:`IntegerL1Sampler.build`)
EXACT_SOLVE_LIMIT = 4_000_000

_PILOT_SEED = 20261124
#: the most proposal entries (proposals × free cells) the estimate holds at once
_PILOT_ENTRIES = 2**22
#: largest dense block (entries) examined for a derived table; a larger one keeps its table in the
#: norm (more noise, never a weaker guarantee)
_DERIVED_LIMIT = 50_000_000


@dataclass(frozen=True)
class IntegerL1Sampler:
    """Release mode's exact ℓ1 generalized Laplace noise on Λ(A), and the generalized Gaussian from it.

    Any invariants, in integer arithmetic (by rejection).

    The free cells are drawn i.i.d. DG(ε), the solved cells follow from the invariants, and the
    proposal is kept with probability exp(−ε Σ_{solved cells in the norm} |u_i|). Build one with
    :meth:`build`; :class:`ExactSampler` serves a matrix of several blocks.

    Parameters
    ----------
    A : numpy.ndarray of int, shape (m, n)
        The independent rows of the invariants.
    free : numpy.ndarray of int64, shape (n − m,)
        The free cells, sorted: the lattice's coordinates.
    solved : numpy.ndarray of int64, shape (m,)
        The solved cells, sorted.
    solve : numpy.ndarray of int64, shape (m, n − m)
        The integral map from the free cells' noise to the solved cells' (:func:`integral_solve`).
    in_norm : numpy.ndarray of bool, shape (m,)
        Per solved cell, whether its |u| enters the law (False for a derived table's cells).

    See Also
    --------
    ExactSampler : The sampler of a matrix of several blocks.
    isdp.privacy.exact_route_noise : This sampler's exact law on a box.
    sample_sum_constraint_l1 : The MCMC experiments' exact ℓ1 sampler: one sum constraint only, compiled,
        in floating point.

    Notes
    -----
    ``solve`` maps the free cells' noise to the solved cells' (integral: :func:`integral_solve`).
    Cells outside the norm (``derived``: a table the others determine, :meth:`norm_tables`) are
    always solved and never enter the acceptance: the law is ∝ exp(-ε Σ_{i not derived} |u_i|)
    on Λ(A), the generalized Laplace of ISDP Def. 9 in ℓ1, because the accepted law is
    ∏_{free} e^{−ε|u_i|} · ∏_{solved} e^{−ε|u_i|} (docs/method.md §11). The generalized Gaussian
    (ISDP Eq. 8) is a second rejection from the ℓ1 law with ε = 1/σ (:meth:`draw`). Every random
    decision is made from uniform integers (:func:`double_geometric_array`,
    :func:`bernoulli_exp`), so the law is exact.

    Examples
    --------
    A total over three cells at ε = 1/2 per unit ℓ1 distance:

    >>> from fractions import Fraction
    >>> import numpy as np
    >>> from isdp.exact import IntegerL1Sampler, seeded_source
    >>> sampler = IntegerL1Sampler.build(np.array([[1, 1, 1]]))
    >>> sampler.free.tolist(), sampler.solved.tolist(), sampler.solve.tolist()
    ([0, 1], [2], [[-1, -1]])
    >>> noise, attempts = sampler.draw(Fraction(1, 2), seeded_source(2024), max_attempts=100)
    >>> noise.tolist(), attempts, int(noise.sum())
    ([0, 0, 0], 1, 0)
    """

    A: np.ndarray  # independent rows of the invariants
    free: np.ndarray
    solved: np.ndarray
    solve: np.ndarray
    in_norm: np.ndarray  # bool per solved cell: whether its |u| enters the law

    #: proposals in the plan's estimate of the exact sampler's acceptance (fixed seed: the estimate,
    #: and so any refusal it leads to, depends on the invariants and ε only)
    PILOT_PROPOSALS = 1000

    @classmethod
    def build(cls, A: np.ndarray, derived: np.ndarray | None = None) -> IntegerL1Sampler | None:
        """Return the sampler for Λ(A), or None when the free cells are not the lattice's coordinates.

        Parameters
        ----------
        A : numpy.ndarray of int, shape (m, n)
            The invariants (dependent rows allowed: they are set aside, and checked to hold).
        derived : numpy.ndarray of bool, shape (n,), optional
            The cells outside the norm (a derived table's, :meth:`IntegerL1Sampler.norm_tables`); None: none.

        Returns
        -------
        IntegerL1Sampler or None
            The sampler; None when :func:`integral_solve` finds no integral solve.

        Raises
        ------
        isdp.errors.InputError
            When rows with large coefficients are so close to dependent that floating point
            decides their rank or solve wrongly, and the block is too large (rows² × cells above
            :data:`EXACT_SOLVE_LIMIT`) to decide in exact integer arithmetic.
        AssertionError
            When a derived cell would be free (a bug in isdp).

        Notes
        -----
        The rank (:func:`independent_rows`) and the solve
        (:func:`integral_solve`) are found in floating point and checked exactly: every row, also
        those set aside as dependent, must hold on (z, X z) in integers. Rows of about 2**31 that
        differ by one in each coefficient can fool floating point (it takes them for one row); when
        the check fails, the independent rows, the solved cells and X are found again by exact
        integer elimination, in the same order of preference.

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.exact import IntegerL1Sampler
        >>> IntegerL1Sampler.build(np.array([[1, 1, 1]])).solved.tolist()
        [2]
        >>> IntegerL1Sampler.build(np.array([[2, 4, 6]])) is None
        True

        Two rows that floating point takes for one (their coefficients differ by one, near 2**31):
        decided in exact arithmetic, Λ(A) is spanned by (1, −1, −1).

        >>> a = 2**31 - 1
        >>> sampler = IntegerL1Sampler.build(np.array([[a, a - 1, 1], [a - 1, a - 2, 1]]))
        >>> sampler.A.shape, sampler.free.tolist(), sampler.solve.tolist()
        ((2, 3), [0], [[-1], [-1]])
        """
        full = A
        A = A[independent_rows(A)]
        derived = np.zeros(A.shape[1], dtype=bool) if derived is None else np.asarray(derived, dtype=bool)
        if A.shape[0] == 0 and not full.any():  # no invariant: every cell free
            if derived.any():
                raise AssertionError("a derived cell in no invariant; this is a bug in isdp")
            return cls(
                A,
                np.arange(A.shape[1]),
                np.zeros(0, np.int64),
                np.zeros((0, A.shape[1]), np.int64),
                np.zeros(0, dtype=bool),
            )
        first = np.flatnonzero(derived)
        try:  # floating point decides the rank and the solve; both are checked exactly below
            found = integral_solve(A, first=first) if A.shape[0] else None
        except AssertionError:  # floats found fewer independent cells than independent rows
            found = None
        # every invariant (also the rows set aside as dependent) holds on (z, X z), exactly, so
        # Λ(A) has dimension at least |free|, and A_S is invertible (|det| an integer ≥ 1), so at
        # most |free|: z ↦ (z, X z) is onto Λ(A)
        spans = found is not None and (
            np.array_equal(
                _exact_product(full[:, found[0]], found[1]), -full[:, np.setdiff1d(np.arange(A.shape[1]), found[0])]
            )
            and np.linalg.slogdet(A[:, found[0]].astype(float))[1] >= math.log(0.5)
        )
        if found is None or not spans:
            # near-dependent rows with large coefficients can fool floating point (rows of about
            # 2**31 that differ by one): decide again in exact integer arithmetic, where it is affordable
            m, n = full.shape
            if m * m * n <= EXACT_SOLVE_LIMIT:
                exact = _exact_solve(full, first)
                if exact is None:
                    return None
                rows, solved, solve = exact
                A = full[rows]
            elif found is None:
                return None
            else:
                raise InputError(
                    f"the invariants of a block of {n} cells and {m} rows, with coefficients up to "
                    f"{int(np.abs(full).max()):,}, are too close to linearly dependent for floating-point "
                    f"arithmetic, and the block is too large ({m}² × {n} > {EXACT_SOLVE_LIMIT:,}) to decide "
                    "in exact arithmetic: use smaller coefficients, drop rows that are (nearly) combinations "
                    "of others, or split the block"
                )
        else:
            solved, solve = found
        free = np.setdiff1d(np.arange(A.shape[1]), solved)
        if derived[free].any():
            raise AssertionError("a derived table's cell is not determined by the others; this is a bug in isdp")
        return cls(A, free, solved, solve, ~derived[solved])

    def log_acceptance(self, epsilon: Fraction, sigma: Fraction | None = None) -> float:
        """Estimate ln P(a proposal is kept) from :attr:`PILOT_PROPOSALS` proposals of a fixed seed.

        In floats: a plan's forecast, never a release's noise.

        Parameters
        ----------
        epsilon : fractions.Fraction
            ε per unit ℓ1 distance of the proposal (1/σ for the Gaussian).
        sigma : fractions.Fraction or None, default None
            With a σ, the Gaussian's second rejection is included.

        Returns
        -------
        float
            The log of the estimated acceptance (0 without a σ when nothing is solved or the block is
            drawn directly). It depends on A and ε (and σ) only, never on a table.

        Examples
        --------
        >>> from fractions import Fraction
        >>> import numpy as np
        >>> from isdp.exact import IntegerL1Sampler
        >>> rate = lambda A, *eps: round(float(np.exp(IntegerL1Sampler.build(A).log_acceptance(*eps))), 3)
        >>> rate(np.array([[1, 2, 1]]), Fraction(1, 2))
        0.299
        >>> rate(np.array([[1, 1, 1]]), Fraction(1, 2)), rate(np.array([[1, 1, 1]]), Fraction(1, 3), Fraction(3))
        (1.0, 0.514)
        """
        direct = self.direct_signs(epsilon) is not None
        if (len(self.solved) == 0 or direct) and sigma is None:
            return 0.0  # every free cell's proposal kept, or the one-total block drawn directly
        if direct and sigma is not None:  # the second rejection's rate on exact ℓ1 draws
            u = np.abs(self.sample(epsilon, self.PILOT_PROPOSALS, seeded_source(_PILOT_SEED)).astype(float))
            log_keep = -((u - float(sigma)) ** 2).sum(axis=1) / (2 * float(sigma) ** 2)
            top = log_keep.max()
            return float(top + np.log(np.mean(np.exp(log_keep - top))))
        rng = np.random.default_rng(_PILOT_SEED)
        p = -math.expm1(-float(epsilon))
        # proposals a chunk at a time, so the memory is bounded whatever the block (one chunk up to 4,194 free cells)
        chunk = max(1, min(self.PILOT_PROPOSALS, _PILOT_ENTRIES // max(1, len(self.free))))
        X, keep = self.solve.T.astype(float), []
        for start in range(0, self.PILOT_PROPOSALS, chunk):
            shape = (min(chunk, self.PILOT_PROPOSALS - start), len(self.free))
            z = (rng.geometric(p, shape) - rng.geometric(p, shape)).astype(float)
            solved = (z @ X)[:, self.in_norm]  # floats: exact below 2**53, and BLAS-fast
            log_keep = -float(epsilon) * np.abs(solved).sum(axis=1)
            if sigma is not None:
                u = np.abs(np.hstack([z, solved]))
                log_keep = log_keep - ((u - float(sigma)) ** 2).sum(axis=1) / (2 * float(sigma) ** 2)
            keep.append(log_keep)
        log_keep = np.concatenate(keep)
        top = log_keep.max()
        return float(top + np.log(np.mean(np.exp(log_keep - top))))

    def direct_signs(self, epsilon) -> np.ndarray | None:
        """Return the total's coefficients when the block's ℓ1 law at ``epsilon`` is drawn directly, else None.

        A block whose only invariant is one total with coefficients ±1, every cell in the norm, is drawn
        without proposals to reject (:func:`~isdp.exact._compiled_one_total.one_total_blocks`) while K's law
        has at most :data:`~isdp.exact._one_total_law.MAX_WINDOW` thresholds: K's spread grows like √n/ε, so
        at a tiny ε the block is drawn by rejection (the same law).

        Parameters
        ----------
        epsilon : fractions.Fraction
            ε per unit ℓ1 distance.

        Returns
        -------
        numpy.ndarray of int64, shape (n,) or None
            The total's coefficients, each 1 or −1; None for a block drawn by rejection.

        Examples
        --------
        >>> from fractions import Fraction
        >>> import numpy as np
        >>> from isdp.exact import IntegerL1Sampler
        >>> IntegerL1Sampler.build(np.array([[1, -1, 1]])).direct_signs(Fraction(1, 2)).tolist()
        [1, -1, 1]
        >>> IntegerL1Sampler.build(np.array([[1, -1, 1]])).direct_signs(Fraction(1, 10**9)) is None
        True
        >>> IntegerL1Sampler.build(np.array([[1, 2, 1]])).direct_signs(Fraction(1, 2)) is None
        True
        """
        row = self.A[0] if self.A.shape[0] == 1 else None
        if row is None or row.size < 2 or not np.all(np.abs(row) == 1) or not self.in_norm.all():
            return None
        return row.astype(np.int64) if fits(row.size, Fraction(epsilon)) else None

    def variances(self, epsilon: Fraction) -> np.ndarray:
        """Each cell's noise variance under the free-cell route.

        DG(ε) on the free cells, v = 2r/(1−r)² with r = e^−ε, and v Σ_j X_ij² on solved cell i.

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
        >>> from isdp.exact import IntegerL1Sampler
        >>> v = IntegerL1Sampler.build(np.array([[1, 1, 1]])).variances(Fraction(1, 2))
        >>> [round(float(x), 3) for x in v]  # the solved cell carries the sum of two free cells
        [7.835, 7.835, 15.671]
        """
        v = DoubleGeometric(float(epsilon)).variance()
        out = np.full(self.A.shape[1], v)
        out[self.solved] = v * (self.solve.astype(float) ** 2).sum(axis=1)
        return out

    def draw(
        self,
        epsilon: Fraction,
        rng: IntegerSource,
        *,
        max_attempts: int,
        sigma: Fraction | None = None,
        accept: bool = True,
    ) -> tuple[np.ndarray | None, int]:
        """One draw of the noise, by rejection.

        Parameters
        ----------
        epsilon : fractions.Fraction, int, float or str
            ε > 0 per unit ℓ1 distance of the ℓ1 law (1/σ with ``sigma``), read as
            :func:`isdp._validate.positive` reads numbers.
        rng : IntegerSource
            The random source.
        max_attempts : int
            Proposals drawn before giving up, an integer ≥ 1.
        sigma : fractions.Fraction, int, float, str or None, default None
            With a σ > 0 (and ``epsilon`` = 1/σ), the generalized Gaussian's second rejection step.
        accept : bool, default True
            False for the free-cell route: the first proposal is the noise (``sigma`` is then not
            used).

        Returns
        -------
        noise : numpy.ndarray of int64, shape (n,) or None
            A vector of Λ(A); None when no proposal was accepted within ``max_attempts``.
        attempts : int
            The proposals drawn (``max_attempts`` when none was accepted; 1 without ``accept``).

        Raises
        ------
        isdp.errors.ArgumentError
            A ValueError, when ``epsilon`` or ``sigma`` is not a positive number in one of the number
            forms, ``epsilon`` is not 1/σ with a ``sigma``, or ``max_attempts`` is not an integer ≥ 1.

        Notes
        -----
        The noise, and so the attempt count, never depends on a table. With ``sigma`` (and ``epsilon`` =
        1/σ), an accepted ℓ1 draw is kept with probability exp(-Σ_i (|u_i| - σ)² / 2σ²)
        = exp(-‖u‖²/2σ² + ‖u‖₁/σ - n/2) ≤ 1, so the kept law is ∝ exp(-‖u‖₂²/2σ²) on Λ(A): the
        generalized Gaussian, exactly (rejection from the ℓ1 law). Sums and norms run over the cells
        in the norm only.

        Examples
        --------
        >>> from fractions import Fraction
        >>> import numpy as np
        >>> from isdp.exact import IntegerL1Sampler, seeded_source
        >>> sampler = IntegerL1Sampler.build(np.array([[1, 1, 1]]))
        >>> noise, attempts = sampler.draw(Fraction(1, 2), seeded_source(2024), max_attempts=100, accept=False)
        >>> noise.tolist(), attempts
        ([0, -1, 1], 1)
        >>> noise, attempts = sampler.draw(Fraction(1, 2), seeded_source(2024), max_attempts=100, sigma=Fraction(2))
        >>> noise.tolist(), attempts
        ([-2, 2, 0], 2)
        """
        noise, attempts = self.draw_blocks(epsilon, 1, rng, max_attempts=max_attempts, sigma=sigma, accept=accept)
        return (None if noise is None else noise[0]), attempts

    def draw_blocks(
        self,
        epsilon: Fraction,
        count: int,
        rng: IntegerSource,
        *,
        max_attempts: int,
        sigma: Fraction | None = None,
        accept: bool = True,
    ) -> tuple[np.ndarray | None, int]:
        """Draw ``count`` times from :meth:`draw`'s law, compiled.

        The noise of ``count`` blocks with these invariants.

        Parameters
        ----------
        epsilon, rng, sigma, accept
            As for :meth:`draw`.
        count : int
            The number of draws, ≥ 0.
        max_attempts : int
            Proposals per draw before giving up, ≥ 1.

        Returns
        -------
        noise : numpy.ndarray of int64, shape (count, n) or None
            One vector of Λ(A) per row; None when some draw accepted nothing within ``max_attempts``.
        attempts : int
            The proposals drawn in all.

        Raises
        ------
        isdp.errors.ArgumentError
            As :meth:`draw`, and when ``count`` is not an integer ≥ 0.

        Notes
        -----
        The rejection loop runs compiled (:mod:`isdp.exact._compiled_l1`) on words the source
        delivers in bulk, one attempt after another, in integer arithmetic; a block whose
        integers could reach 2**61 is drawn in Python integers from the same words. A block under
        one total is drawn directly (:meth:`direct_signs`), the same law without proposals to reject
        (:mod:`isdp.exact._compiled_one_total`): one attempt per ℓ1 draw.

        Examples
        --------
        >>> from fractions import Fraction
        >>> import numpy as np
        >>> from isdp.exact import IntegerL1Sampler, seeded_source
        >>> sampler = IntegerL1Sampler.build(np.array([[1, 1, 1]]))
        >>> noise, attempts = sampler.draw_blocks(Fraction(1, 2), 4, seeded_source(1), max_attempts=100)
        >>> noise.shape, noise.sum(axis=1).tolist()
        ((4, 3), [0, 0, 0, 0])
        """
        epsilon, count = check.positive("epsilon", epsilon), check.size("count", count)
        max_attempts = check.size("max_attempts", max_attempts, low=1)
        if sigma is not None:
            sigma = check.positive("sigma", sigma)
            if epsilon != 1 / sigma:  # the second rejection leaves the Gaussian from the ℓ1 law at 1/σ only
                raise ArgumentError(
                    f"epsilon must be 1/sigma = {1 / sigma} with sigma = {sigma}, got {epsilon}", "epsilon"
                )
        signs = self.direct_signs(epsilon) if accept else None
        if signs is not None:
            u, attempts = one_total_blocks(signs, epsilon, count, rng, max_attempts=max_attempts, sigma=sigma)
            if u is None:
                return None, attempts
        else:
            rows, attempts = compiled_blocks(
                self.solve, self.in_norm, epsilon, count, rng, max_attempts=max_attempts, sigma=sigma, accept=accept
            )
            if rows is None:
                return None, attempts
            u = np.empty((count, self.A.shape[1]), dtype=np.int64)
            u[:, self.free], u[:, self.solved] = rows[:, : len(self.free)], rows[:, len(self.free) :]
        if np.any(u @ self.A.T != 0):
            raise AssertionError("exact sampler left Λ(A); this is a bug in isdp")
        return u, attempts

    def sample(
        self,
        epsilon: Fraction,
        size: int,
        rng: IntegerSource,
        *,
        sigma: Fraction | None = None,
        max_attempts: int = 10**9,
    ) -> np.ndarray:
        """``size`` independent draws (rows) of the law :meth:`draw` draws; for studies and tests.

        Parameters
        ----------
        epsilon : fractions.Fraction
            ε per unit ℓ1 distance (1/σ with ``sigma``).
        size : int
            The number of draws.
        rng : IntegerSource
            The random source.
        sigma : fractions.Fraction or None, default None
            With a σ, the generalized Gaussian's draws.
        max_attempts : int, default 10**9
            Proposals per draw before giving up.

        Returns
        -------
        numpy.ndarray of int64, shape (size, n)
            One noise vector of Λ(A) per row.

        Raises
        ------
        isdp.errors.UncertifiableError
            When a draw accepts nothing within ``max_attempts`` proposals.

        Examples
        --------
        >>> from fractions import Fraction
        >>> import numpy as np
        >>> from isdp.exact import IntegerL1Sampler, seeded_source
        >>> draws = IntegerL1Sampler.build(np.array([[1, 1, 1]])).sample(Fraction(1, 2), 3, seeded_source(2024))
        >>> draws.tolist()
        [[0, 0, 0], [1, -1, 0], [1, 2, -3]]
        """
        noise, attempts = self.draw_blocks(epsilon, size, rng, max_attempts=max_attempts, sigma=sigma)
        if noise is None:
            raise UncertifiableError(
                f"a draw of {size} accepted none of its {max_attempts:,} proposals ({attempts:,} proposals in all)"
            )
        return noise

    @staticmethod
    def norm_tables(A, groups: list[np.ndarray]) -> np.ndarray:
        """Which of several tables released together enter the mechanism's norm.

        A table whose cells the invariants determine from the other tables' (its columns of A are
        independent: county totals tied to a county × sex table) is derived: its noise follows from
        theirs, so the law weighs the others only and one person's change costs 2 per table in the norm,
        not per table released.

        Parameters
        ----------
        A : array_like or scipy.sparse array of int, shape (m, n)
            The invariants and ties of the tables together, one column per cell of the joint vector.
        groups : list of numpy.ndarray of int
            The cells (column indices) of each table.

        Returns
        -------
        numpy.ndarray of bool, shape (len(groups),)
            True for a table in the norm, False for a derived one. Depends on A and the tables'
            cells only, never on the counts.

        Notes
        -----
        Tables are tried smallest first, each kept derived when the derived cells so far, with its
        own, still have independent columns; at least one table stays in the norm. Independence is
        decided block by block (:func:`isdp.lattice.blocks`: columns of different blocks share no
        row); a block too large to examine keeps its table in the norm (more noise, never a weaker
        guarantee). The law is then ∝ exp(−ε Σ_{tables in the norm} ‖u_t‖₁) and ε per unit ℓ1 is
        ε per person / (2T), T the tables in the norm (docs/method.md §11, "Several tables").

        Examples
        --------
        County totals (2 cells) tied to a county × sex table (4 cells) with the total kept: the
        county totals are derived.

        >>> import numpy as np
        >>> from isdp.exact import IntegerL1Sampler
        >>> A = np.array([[1, 1, 0, 0, 0, 0],      # the total
        ...               [1, 0, -1, -1, 0, 0],    # county A = its two sexes
        ...               [0, 1, 0, 0, -1, -1]])   # county B = its two sexes
        >>> IntegerL1Sampler.norm_tables(A, [np.arange(2), np.arange(2, 6)]).tolist()
        [False, True]

        Two tables without ties both stay in the norm:

        >>> A = np.array([[1, 1, 0, 0], [0, 0, 1, 1]])
        >>> IntegerL1Sampler.norm_tables(A, [np.arange(2), np.arange(2, 4)]).tolist()
        [True, True]
        """
        A = as_sparse(A)
        parts = blocks(A)
        derived = np.zeros(A.shape[1], dtype=bool)
        out = np.ones(len(groups), dtype=bool)

        def independent(cells: np.ndarray) -> bool:
            for block, rows in parts:
                mine = block[cells[block]]
                if not len(mine):
                    continue
                if len(mine) > len(rows) or len(rows) * len(mine) > _DERIVED_LIMIT:
                    return False
                if len(independent_rows(A[rows][:, mine].toarray().T)) < len(mine):
                    return False
            return True

        for k in sorted(range(len(groups)), key=lambda k: (len(groups[k]), k)):
            if out.sum() == 1:
                break
            candidate = derived.copy()
            candidate[groups[k]] = True
            if independent(candidate):
                derived, out[k] = candidate, False
        return out
