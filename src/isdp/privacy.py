"""What a release promises the people in the table: record-level neighbouring relations, the
guarantee per person, and the calibration of each mechanism to it (docs/method.md §11).

Everything here is computed from the invariant matrix A and the request alone, never from the
counts: a privacy statement built here can be published and printed before any count is read
(``isdp release --dry-run``).

**Neighbouring relation.** Two tables are neighbours when they have the same invariants
(A x = A x') and differ in the records of k persons: each person is added, removed, or moves
from one cell to another. One person changes the table by at most 2 in ℓ1 (a move) and √2 in ℓ2;
k persons by at most 2k and √2·k. The guarantee is stated **per person** (k = 1) and, by group
privacy, for k = 2. Whether a change of k persons can keep the invariants at all depends on A:
one person can when two cells have the same invariant column (or a cell is in no invariant);
two persons can when two different pairs of moves have the same effect on A x (a 2 × 2 swap
under margins). A change the invariants cannot absorb is disclosed by them: the invariants are
published exactly, by design.

**Several tables.** Tables released together count the same persons, each person in at most one
cell of each table, so one person changes T tables by at most 2T in ℓ1 and √(2T) in ℓ2, where T
counts the tables whose cells enter the mechanism's norm (a table the invariants determine from
the others is derived from them: :func:`isdp.exact_sampling.norm_tables`).

**Calibration.** The user states the guarantee needed per person (ε, and δ where the route has
one); the mechanism's own parameter follows from it: ε per unit ℓ1 distance = ε/(2T), per unit
ℓ2 distance = ε/√(2T), and the Gaussian's σ the smallest (on a 10⁻⁶ grid, rounded up) whose
ρ = 2T/(2σ²) converts to at most ε at the stated δ (T = 1 for one table).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy import sparse

from .accounting import dp_to_zcdp, zcdp_to_dp

#: ℓ1 and ℓ2 distance of one person's change (a move between cells; added or removed is 1 in both)
PERSON_L1 = 2
PERSON_L2 = math.sqrt(2)
#: largest number of pairwise sums of distinct invariant columns examined for two-person changes
_PAIR_SUM_LIMIT = 20_000_000
#: grid on which the Gaussian's σ is rounded up (σ must be an exact fraction for the exact sampler)
_SIGMA_GRID = 10**6


@dataclass(frozen=True)
class Neighbours:
    """Which record-level changes keep the invariants A x = A x' (from A alone)."""

    one_person: bool | None  # one person added, removed or moved between cells; None: not determined
    two_persons: bool | None  # two persons; None: not determined (too many distinct columns)

    @classmethod
    def of(cls, A) -> Neighbours:
        """Realisable changes under the invariants A (rows: invariants, columns: cells).

        A person outside the table is a zero column: adding, removing or moving a person changes
        A x by the difference of two columns of A ∪ {0}. One person's change keeps A x iff two of
        these columns are equal; two persons' changes do iff two different pairs of columns have
        the same sum (c_a + c_b = c_c + c_d moves persons a→c and b→d, or the reverse).
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
        return cls(one_person=False, two_persons=len(np.unique(sums, axis=0)) < len(sums))

    def realisable(self, k: int) -> bool | None:
        """Whether some change of ``k`` (1 or 2) persons keeps the invariants (None: not determined)."""
        return {1: self.one_person, 2: self.two_persons}[k]

    def describe(self) -> str:
        """One sentence for the statement."""
        if self.one_person:
            return "a change of one person's record can keep the invariants: the per-person line covers everyone"
        if self.one_person is None:
            return ("whether a change of one person's record (in every table at once) can keep the invariants was "
                    "not determined; the per-person and two-person lines bound any such change")
        if self.two_persons:
            return ("no change of a single person's record keeps the invariants (the published invariants reveal it); "
                    "the smallest change they absorb involves two persons: see the two-person line")
        if self.two_persons is None:
            return ("no change of a single person's record keeps the invariants (the published invariants reveal it); "
                    "whether two persons' changes can was not determined (too many distinct invariant columns)")
        return ("no change of one or two persons keeps the invariants: the published invariants reveal any such "
                "change; the guarantee covers larger groups only")


def _repeated_column(A: sparse.csc_array) -> bool:
    """Whether two columns of A ∪ {0} are equal, in time and memory linear in A's non-zeros: columns
    are hashed by a fixed random projection (floats: equal columns, summed in the same order, hash
    alike), and equal hashes are confirmed exactly."""
    A.sort_indices()
    weights = np.random.default_rng(20230207).standard_normal(A.shape[0])
    h = np.append(A.T.astype(float) @ weights if A.shape[0] else np.zeros(A.shape[1]), 0.0)
    order = np.argsort(h, kind="stable")
    same = np.flatnonzero(h[order][1:] == h[order][:-1])
    n = A.shape[1]

    def column(j):
        if j == n:  # the person outside the table
            return (b"", b"")
        lo, hi = A.indptr[j], A.indptr[j + 1]
        return (A.indices[lo:hi].tobytes(), A.data[lo:hi].tobytes())

    # equal columns hash alike, so they are among the columns whose hash repeats: compare those exactly
    suspects = np.unique(np.concatenate([order[same], order[same + 1]]))
    return len({column(j) for j in suspects}) < len(suspects)


def unit_epsilon(epsilon_person: Fraction, norm: str, n_tables: int = 1) -> Fraction | float:
    """The mechanism's ε per unit distance that gives ``epsilon_person`` per person when a person's
    change reaches ``n_tables`` tables in the norm (exact for ℓ1)."""
    if norm == "l1":
        return Fraction(epsilon_person) / (PERSON_L1 * n_tables)
    if norm == "l2":
        return float(epsilon_person) / (PERSON_L2 * math.sqrt(n_tables))
    raise ValueError(f"no unit ε for the norm {norm!r}")


def gaussian_sigma(epsilon_person: float, delta: float, n_tables: int = 1) -> Fraction:
    """The Gaussian's σ (a fraction, rounded up on a 10⁻⁶ grid) that meets (ε, δ) per person.

    ρ per person is T·PERSON_L2²/(2σ²) = T/σ² over T tables; the largest ρ converting to ε at δ is
    :func:`isdp.accounting.dp_to_zcdp`; rounding σ up only lowers ρ.
    """
    rho = dp_to_zcdp(float(epsilon_person), delta)
    sigma = Fraction(math.ceil(PERSON_L2 * math.sqrt(n_tables) / math.sqrt(2 * rho) * _SIGMA_GRID), _SIGMA_GRID)
    while zcdp_to_dp(gaussian_rho(sigma, 1, n_tables), delta) > float(epsilon_person):  # float rounding of the bound
        sigma += Fraction(1, _SIGMA_GRID)
    return sigma


def gaussian_rho(sigma, k: int, n_tables: int = 1) -> float:
    """zCDP ρ of the generalized Gaussian for a change of ``k`` persons over ``n_tables`` tables in the
    norm: (√(2T)·k)²/(2σ²) = T k²/σ²."""
    return (PERSON_L2 * k) ** 2 * n_tables / (2 * float(sigma) ** 2)


@dataclass(frozen=True)
class Guarantee:
    """The guarantee of one mechanism and route, per group of k persons.

    ``norm``: l1, l2 or gaussian; ``unit``: ε per unit distance (Laplace) or σ (Gaussian);
    ``delta_conversion``: the Gaussian's zCDP → (ε, δ) δ; ``eta``: the chain's certified TV bound
    (None: an exact draw); ``n_tables``: the tables in the norm that one person's change reaches.
    """

    norm: str
    unit: Fraction | float
    delta_conversion: float | None = None
    eta: float | None = None
    confidence: float | None = None  # the certificate's level, with eta
    n_tables: int = 1
    released: int = 1  # tables released together (those derived from the others included)

    def at(self, k: int) -> dict:
        """ε, δ (and ρ for the Gaussian) for a change of ``k`` persons."""
        out: dict = {"persons": k}
        if self.norm == "gaussian":
            rho = gaussian_rho(self.unit, k, self.n_tables)
            eps = zcdp_to_dp(rho, self.delta_conversion)
            out.update(rho=rho, epsilon=eps, delta=self.delta_conversion)
        else:
            distance = (PERSON_L1 * k * self.n_tables if self.norm == "l1"
                        else PERSON_L2 * k * math.sqrt(self.n_tables))
            eps = float(self.unit) * distance
            out.update(epsilon=eps, delta=0.0)
        if self.eta is not None:
            out["delta"] += (1 + math.exp(out["epsilon"])) * self.eta
        return out

    @property
    def kind(self) -> str:
        """pure, zCDP, or statistical (a chain: δ from a 95 % confidence bound)."""
        if self.eta is not None:
            return "approximate, from a statistical certificate"
        return "zCDP" if self.norm == "gaussian" else "pure"

    def sentence(self, k: int) -> str:
        """The guarantee for ``k`` persons in words."""
        g = self.at(k)
        who = "one person's record" if k == 1 else "two persons' records"
        what = (f"rho-zCDP with rho = {g['rho']:.6g}, hence ({g['epsilon']:.6g}, {g['delta']:.3g})-DP"
                if self.norm == "gaussian" else
                f"{g['epsilon']:.6g}-DP" if g["delta"] == 0 else f"({g['epsilon']:.6g}, {g['delta']:.3g})-DP")
        if self.norm == "gaussian" and self.eta is not None:
            what = (f"({g['epsilon']:.6g}, {g['delta']:.3g})-DP (rho = {g['rho']:.6g} for the exact mechanism, "
                    "widened by the chain's certified TV bound)")
        if self.released > 1:
            return (f"{what} for any two inputs (the {self.released} tables together) with the same invariants that "
                    f"differ in {who} (added, removed, or moved between cells, in every table at once)")
        return (f"{what} for any two tables with the same invariants that differ in {who} "
                "(added, removed, or moved between cells)")

    def to_dict(self, neighbours: Neighbours) -> dict:
        """The per-group guarantees with whether each group's change is realisable under A."""
        return {"kind": self.kind,
                "per_person": {**self.at(1), "realisable": neighbours.realisable(1), "text": self.sentence(1)},
                "two_persons": {**self.at(2), "realisable": neighbours.realisable(2), "text": self.sentence(2)},
                "neighbours": neighbours.describe(),
                **({"tv_bound": self.eta, "confidence_level": self.confidence} if self.eta is not None else {})}

__all__ = [
    "Guarantee",
    "Neighbours",
    "PERSON_L1",
    "PERSON_L2",
    "gaussian_rho",
    "gaussian_sigma",
    "unit_epsilon",
]
