"""Release mode: privatise one confidential integer table, keep its invariants exactly, and state
the guarantee the release meets per person (docs/release.md; the derivations are in
docs/method.md §11; the neighbouring relation and the calibration in :mod:`isdp.release`).

This module plans and runs a release; the pieces it runs live where their idea does:

- the tables (:class:`~isdp.release.Table`, :class:`~isdp.release.TableSet`,
  :func:`~isdp.release.load_table`) in :mod:`isdp.release`;
- the invariants A (:func:`~isdp.release.constraint_matrix`, :func:`~isdp.lattice.blocks`)
  in :mod:`isdp.release`;
- the exact sampler (:class:`~isdp.exact.ExactSampler`, :func:`~isdp.exact.norm_tables`)
  in :mod:`isdp.exact`;
- the chain's certificate (:func:`~isdp.convergence._certification.certify_chain`, a
  :class:`~isdp.convergence.Certificate`) in :mod:`isdp.convergence`;
- the refusals (:class:`~isdp.errors.ReleaseError` and its kinds, each with an exit status) in
  :mod:`isdp.errors`.

The user states the guarantee needed per person (ε, and δ where the route has one); the routes:

- **exact** (ℓ1, and the Gaussian): noise from the ℓ1 generalized Laplace on Λ(A) drawn exactly,
  in integer arithmetic, by rejection: draw the free cells I i.i.d. DG(ε), solve the invariants
  for the other cells Iᶜ (:func:`~isdp.exact.integral_solve`) and accept with probability
  exp(-ε Σ_{i∈Iᶜ} |u_i|) — the accepted law is ∝ exp(-ε‖u‖₁) on Λ(A). The generalized Gaussian
  is drawn by a second rejection from the ℓ1 law with ε = 1/σ
  (:meth:`~isdp.exact.ExactL1Sampler.draw`). Pure ε (ρ-zCDP for the Gaussian),
  operating-system entropy. Block by block (:func:`~isdp.lattice.blocks`); the plan forecasts
  the acceptance from A and ε and refuses a block it cannot serve before any count is used.
- **free cells** (ℓ1, ``free_cells``): the proposal without the rejection — the free cells are
  the lattice's coordinates, so the guarantee is the ℓ1 route's; exact, linear time, uneven
  variances (stated).
- **certified chain** (ℓ2, or ℓ1 and the Gaussian when asked with ``allow_chain``): the compiled
  Gibbs-within-Metropolis sampler run for t iterations from u = 0, t from coupled pairs started
  like the chain (:func:`~isdp.convergence._certification.certify_chain`: t is where the 95 % upper confidence
  bound on the TV bound reaches the target); the release is within total variation η of the
  exact mechanism, which turns ε into (ε, δ) with δ = (1 + e^ε)η. Its random numbers are not
  cryptographic, so it is refused for publication (study runs only, seeded).

Several tables of the same persons (:class:`~isdp.release.TableSet`) are one vector under their
invariants and the ties between them; a table the others determine is derived (outside the norm,
:func:`~isdp.exact.norm_tables`), and ε per person counts every table in the norm
(docs/method.md §11).

With ``nonnegative`` the release is post-processed onto the non-negative tables with the same
invariants (the integer ℓ1 projection): no privacy cost, no refusal and no run time that depends
on the counts. The noise never depends on the counts, so neither does any refusal, progress
line or attempt count; the counts enter only as x + u.

Three files: the released table, its **privacy statement** (publishable: nothing in it is
derived from the counts beyond the invariants' values, which the release discloses anyway; it is
written from the plan by :func:`isdp.release.privacy_statement`) and an **audit record** (confidential:
the input's path and hash, attempt counts, timings). Nothing is written unless the release is
integer, meets every invariant exactly, has the input's shape and labels and its guarantee is at
least as strong as the one asked for; a failure leaves none of the three (:func:`isdp.release.write_release`).
"""

from __future__ import annotations

import hashlib
import math
import sys
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np
from scipy import sparse

from ..errors import InfeasibleError, InputError, InvariantError, UncertifiableError, UsageError
from ..exact._exact_sampling import (
    NUMBER_FORMS,
    PILOT_PROPOSALS,
    ExactL1Sampler,
    ExactSampler,
    _read_number,
    as_fraction,
    norm_tables,
    seeded_source,
    system_source,
)
from ..exact._gaussian_profile import MAX_SHIFT
from ..lattice._integer_lattice import COUNT_LIMIT, IntegerLattice
from ..lattice._invariants import as_sparse, blocks, row_values
from ..lattice._targets import generalized_gaussian, generalized_laplace
from ..mcmc._double_geometric import dg_variance
from ._privacy import TWO_PERSON_SHIFT, Guarantee, Neighbours, gaussian_sigma, two_person_shift, unit_epsilon
from ._statement import privacy_statement, route_record
from ._tables import Table, TableSet

#: the norms of ``Request.norm`` (``--norm``): ``l1`` the generalized Laplace in ℓ1 (exact),
#: ``l2`` the generalized Laplace in ℓ2 (certified chain), ``gaussian`` the generalized Gaussian (exact)
NORMS = ("l1", "l2", "gaussian")
#: most coupled pairs a chain certificate may ask for (each costs a coupled run)
MAX_PAIRS = 100_000


class Progress:
    """Progress on stderr: a bar on a terminal, else a plain line about every 5 s with the time left.

    Nothing is shown when not ``enabled``. Callers count only data-independent work (the exact
    sampler's blocks, a chain certificate's stages), so what it prints says nothing about the
    counts. On a terminal the bar is :mod:`tqdm`'s; otherwise a line when it starts, then one
    about every 5 s.

    Parameters
    ----------
    total : int
        The number of steps.
    desc : str
        What is counted, the start of every line.
    enabled : bool
        Whether to show anything (``Request.progress``; ``isdp release --quiet`` turns it off).

    Examples
    --------
    >>> import contextlib
    >>> import io
    >>> from isdp.release import Progress
    >>> stderr = io.StringIO()
    >>> with contextlib.redirect_stderr(stderr):
    ...     bar = Progress(3, "exact sampler (blocks)", enabled=True)
    ...     bar.update()
    ...     bar.update(2)
    ...     bar.close()
    >>> print(stderr.getvalue(), end="")
    exact sampler (blocks): started, 3 steps
    >>> bar.done
    3
    """

    def __init__(self, total: int, desc: str, enabled: bool):
        self.total, self.desc, self.enabled, self.done = total, desc, enabled, 0
        self.start = self.last = time.perf_counter()
        self.bar = None
        if enabled and sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=desc, leave=False)
        elif enabled:
            print(f"{desc}: started, {total} steps", file=sys.stderr, flush=True)

    def update(self, k: int = 1) -> None:
        """Count ``k`` more steps done (a line at most every 5 s when not on a terminal).

        Parameters
        ----------
        k : int, default 1
            Steps done since the last call.
        """
        if not self.enabled:
            return
        self.done += k
        if self.bar is not None:
            self.bar.update(k)
            return
        now = time.perf_counter()
        if now - self.last >= 5 and self.done < self.total:
            left = (self.total - self.done) * (now - self.start) / self.done
            print(f"{self.desc}: {self.done}/{self.total} after {now - self.start:.0f} s, about {left:.0f} s left",
                  file=sys.stderr, flush=True)
            self.last = now

    def close(self) -> None:
        """Remove the bar from the terminal (nothing otherwise)."""
        if self.bar is not None:
            self.bar.close()


# --------------------------------------------------------------------------- the request and its plan


@dataclass
class Request:
    """What to release and how (the command's options).

    ``epsilon`` and ``delta`` are the guarantee needed **per person** (:mod:`isdp.release`); the
    mechanism's own parameters follow from them (:class:`Plan`). Nothing is checked until
    :meth:`check`, which :meth:`Plan.make` calls.

    Parameters
    ----------
    norm : {"l1", "l2", "gaussian"}, default "l1"
        The mechanism (:data:`NORMS`): the generalized Laplace in ℓ1 drawn exactly, the
        generalized Laplace in ℓ2 by a certified chain (study runs only), or the generalized
        Gaussian drawn exactly.
    epsilon : str or None, default None
        The ε needed per person, > 0, read exactly as typed (``"0.1"`` is 1/10, ``"1/3"`` works);
        required. Written as :data:`NUMBER_FORMS` (an int or a ``Fraction`` works too); other
        forms Python reads (``"1_0"``, other scripts' digits) are refused.
    delta : float or None, default None
        The δ needed per person, in (0, 1): required by ``norm="gaussian"`` and by the chain
        (``norm="l2"``, ``allow_chain``), refused elsewhere.
    allow_chain : bool, default False
        ``l1``, ``gaussian``: run the certified chain when the exact sampler cannot serve.
    free_cells : bool, default False
        ``l1`` only: release the exact sampler's proposal, without its rejection step.
    nonnegative : bool, default False
        Post-process the release onto the non-negative tables with the same invariants.
    pairs : int or None, default None
        The chain's coupled pairs, in [2, :data:`MAX_PAIRS`]; None is twice the least that can
        certify the TV bound ``delta`` needs (at least 200).
    max_iter : int, default 200_000
        Iterations a coupled pair may take to meet before the request is refused.
    max_attempts : int, default 20_000
        Proposals of the exact sampler per block before it gives up; the plan refuses at once
        when its forecast exceeds this.
    seed : int or None, default None
        A non-negative seed for a reproducible run, not for publication (the statement says
        ``"publishable": false``); None draws from operating-system entropy.
    progress : bool, default False
        Show progress on stderr (:class:`Progress`).
    rules : tuple of str, default ()
        The invariant families the invariants were built from (``--invariant``: ``total``,
        ``by:state,county``, …), so the statement states those invariants by rule rather than by
        coefficients (:func:`isdp.release.privacy_statement`).
    ties : tuple of str, default ()
        Likewise the ties between tables (``--tie``).

    See Also
    --------
    Plan.make : Checks the request and chooses the route.
    make_release : Draws the release.

    Examples
    --------
    >>> from isdp.release import Request
    >>> req = Request(epsilon="1/3")
    >>> req.epsilon_person, req.chain_possible
    (Fraction(1, 3), False)
    >>> req.check()  # consistent: nothing raised
    >>> from isdp.errors import UsageError
    >>> try:
    ...     Request(epsilon="1", delta=1e-6).check()
    ... except UsageError as err:
    ...     print(err)  # doctest: +NORMALIZE_WHITESPACE
    --delta is used only by --norm gaussian and the certified chain (--norm l2, --allow-chain):
    the l1 exact release is pure epsilon
    """

    norm: str = "l1"
    epsilon: str | None = None  # per person; exact decimal or fraction as typed
    delta: float | None = None  # per person: the Gaussian's and the certified chain's δ
    allow_chain: bool = False  # l1, Gaussian: a certified chain when the exact route cannot serve
    free_cells: bool = False  # l1: the exact route's proposal, released without rejection
    nonnegative: bool = False
    pairs: int | None = None  # chain: coupled pairs (None: twice the least that resolves its target)
    max_iter: int = 200_000
    max_attempts: int = 20_000
    seed: int | None = None  # None: operating-system entropy
    progress: bool = False
    rules: tuple[str, ...] = ()  # the --invariant families: the statement states their rows by rule
    ties: tuple[str, ...] = ()  # the --tie rules, likewise

    @property
    def chain_possible(self) -> bool:
        """Whether this request may run the certified chain (``norm="l2"``, or ``allow_chain``)."""
        return self.norm == "l2" or self.allow_chain

    @property
    def epsilon_person(self) -> Fraction:
        """The ε per person as an exact fraction (``"0.1"`` is 1/10); ValueError if it is not positive."""
        return as_fraction(self.epsilon)

    def check(self) -> None:
        """Refuse an inconsistent request before anything is read.

        Raises
        ------
        isdp.errors.UsageError
            An unknown norm; ε missing, not a number or outside [1e-9, 700]; a negative seed; δ
            missing or outside (0, 1) for the Gaussian or the chain, or given to the pure ℓ1
            route; ``free_cells`` with another norm or with ``allow_chain``; ``pairs`` outside
            [2, :data:`MAX_PAIRS`]; ``max_iter`` or ``max_attempts`` below 2.
        isdp.errors.UncertifiableError
            A run without a seed that may need the chain: its random numbers are not
            cryptographic, so it is refused for publication.
        """
        if self.norm not in NORMS:
            raise UsageError(f"unknown norm {self.norm!r}: choose from {', '.join(NORMS)}")
        if self.epsilon is None:
            raise UsageError("give --epsilon: the guarantee needed per person")
        try:
            eps = self.epsilon if isinstance(self.epsilon, Fraction) else _read_number(self.epsilon)
        except ValueError:
            raise UsageError(f"--epsilon must be a positive number written as {NUMBER_FORMS}, "
                             f"got {str(self.epsilon)!r}") from None
        if eps <= 0:
            raise UsageError(f"--epsilon must be a positive number, got {self.epsilon!r}")
        if not Fraction(1, 10**9) <= eps <= 700:
            raise UsageError(f"--epsilon {self.epsilon} is outside [1e-9, 700]")
        if self.seed is not None and self.seed < 0:
            raise UsageError(f"--seed must be a non-negative integer, got {self.seed}")
        if self.norm == "gaussian" or self.chain_possible:
            if self.delta is None:
                raise UsageError(f"the {'Gaussian' if self.norm == 'gaussian' else 'certified chain'}'s guarantee "
                                 "has a delta: give --delta (per person, in (0, 1))")
            if not 0 < self.delta < 1:
                raise UsageError(f"--delta must lie in (0, 1), got {self.delta}")
        elif self.delta is not None:
            raise UsageError("--delta is used only by --norm gaussian and the certified chain (--norm l2, "
                             "--allow-chain): the l1 exact release is pure epsilon")
        if self.free_cells and (self.norm != "l1" or self.allow_chain):
            raise UsageError("--free-cells is an l1 route of its own: not with --norm l2 or gaussian, nor with "
                             "--allow-chain")
        if self.pairs is not None and not 2 <= self.pairs <= MAX_PAIRS:
            raise UsageError(f"--pairs must lie in [2, {MAX_PAIRS:,}], got {self.pairs}")
        for name in ("max_iter", "max_attempts"):
            if getattr(self, name) < 2:
                raise UsageError(f"--{name.replace('_', '-')} must be at least 2")
        if self.chain_possible and self.seed is None:
            raise UncertifiableError(
                "the certified chain is refused for publication: its random numbers come from xoshiro256** "
                "(fast, not cryptographic) and its delta rests on a statistical certificate; "
                + ("use --norm l1 or gaussian (exact, operating-system entropy), or " if self.norm == "l2" else
                   "drop --allow-chain (the exact route draws from operating-system entropy), or ")
                + "run a study with --seed N --reproducible-not-for-publication")

    def delta_split(self) -> tuple[float | None, float | None]:
        """How δ per person is spent: the Gaussian's zCDP → (ε, δ) conversion, and a chain's TV bound.

        Returns
        -------
        delta_conversion : float or None
            The Gaussian's δ (None for the Laplace routes).
        delta_chain : float or None
            The δ left for a chain (None when no chain can run). Halves of ``delta`` when both
            apply (a Gaussian with ``allow_chain``).

        Examples
        --------
        >>> from isdp.release import Request
        >>> Request(norm="gaussian", epsilon="1", delta=1e-6).delta_split()
        (1e-06, None)
        >>> Request(norm="gaussian", epsilon="1", delta=1e-6, allow_chain=True).delta_split()
        (5e-07, 5e-07)
        """
        if self.delta is None:
            return None, None
        if self.norm == "gaussian":
            return (self.delta / 2, self.delta / 2) if self.allow_chain else (self.delta, None)
        return None, self.delta


def _exact_refusal(req: Request, unit, log_acceptance: float, block: ExactL1Sampler) -> str:
    """Why the exact route cannot serve this request (its hardest block), and what would."""
    need = ("more than 10^300" if -log_acceptance > 690 else f"about 10^{-log_acceptance / math.log(10):.0f}"
            if -log_acceptance > math.log(1e6) else f"about {math.exp(-log_acceptance):,.0f}")
    from ..exact._lattice_gaussian import lattice_block

    options = []
    if -log_acceptance < math.log(1e9):  # within reach of a larger budget
        options.append(f"--max-attempts {math.ceil(3 * math.exp(-log_acceptance)):,} (three times the forecast; "
                       "more time, the same law)")
    if req.norm == "l1":
        ratio = block.variances(unit).max() / dg_variance(float(unit))
        options.append(f"--free-cells (exact, the same epsilon per person, in linear time; its noise is not spread "
                       f"evenly: a solved cell's variance is up to {ratio:,.0f} times a free cell's here)")
        if lattice_block(block.A) is not None:
            options.append("--norm gaussian --delta D (this block's invariants are a total or a table's two margins, "
                           "which Klein's exact sampler draws in linear time with even noise; the guarantee becomes "
                           "(epsilon, delta) per person)")
    else:
        options += ["--norm l1 (its exact sampler accepts far more often than the Gaussian's), or --norm l1 "
                    "--free-cells"]
    options += ["fewer invariants (one margin, or totals over blocks of cells)", "a larger --epsilon",
                "a smaller table",
                "a study run with --allow-chain --delta D --seed N --reproducible-not-for-publication (a certified "
                "chain; about 6 x 6 cells with both margins at most)"]
    return (f"the exact sampler would need {need} proposals for one draw of a block of {block.A.shape[1]:,} cells "
            f"(estimated from {PILOT_PROPOSALS:,} proposals: a function of the invariants and epsilon, never of the "
            f"counts), beyond --max-attempts {req.max_attempts:,}: nothing is released. What would work: "
            + "; ".join(options))


#: the mechanism's name in the statement, by route: the norms of :data:`NORMS` and ``free-cells``
MECHANISMS = {"l1": "generalized Laplace, l1 norm (ISDP Def. 9)", "l2": "generalized Laplace, l2 norm (ISDP Def. 9)",
              "gaussian": "generalized Gaussian (ISDP Eq. 8)",
              "free-cells": "free-cell double geometric: i.i.d. noise on the lattice's coordinates "
                            "(docs/method.md §11)"}


@dataclass(frozen=True)
class Plan:
    """What a request does under invariants A, decided from A and the options alone (no count).

    Made by :meth:`make`, which checks the request, calibrates the mechanism to the guarantee
    per person, builds the exact sampler block by block and forecasts its acceptance, and
    refuses what it cannot serve — all before any count is read, so neither the plan nor a
    refusal depends on the table's counts.

    Parameters
    ----------
    req : Request
        The request.
    A : scipy.sparse.csr_array
        The invariants, int64, rows × cells, canonical (:func:`isdp.lattice.as_sparse`).
    labels : list of str
        One label per row of ``A``.
    neighbours : isdp.release.Neighbours
        Whether a change of one or two persons can keep the invariants.
    exact : isdp.exact.ExactSampler or None
        The exact sampler, block by block; None on the ℓ2 route (the chain only).
    unit : fractions.Fraction or float
        The mechanism's own parameter: ε per unit ℓ1 distance (a fraction) or ℓ2 distance (a
        float), or the Gaussian's σ (a fraction).
    expected_attempts : float
        The exact sampler's forecast proposals per draw for its hardest block (1 where nothing
        is forecast: the free-cell and ℓ2 routes; ``inf`` beyond e^700).
    tables_in_norm : tuple of bool, default (True,)
        Per table released: whether it enters the mechanism's norm
        (:func:`isdp.exact.norm_tables`; False for a table derived from the others).

    See Also
    --------
    dry_run : The statement a plan would carry.
    make_release : Draws a release under a plan.

    Notes
    -----
    The calibration is that of docs/method.md §11: one person changes a table by at most 2 in
    ℓ1 and √2 in ℓ2, so ε per unit ℓ1 distance is ε/2 (ε/(2T) over T tables in the norm), per
    unit ℓ2 distance ε/√2, and the Gaussian's σ is the smallest on a 10⁻⁶ grid whose exact
    privacy profile meets (ε, δ) for one person's change (:func:`isdp.release.gaussian_sigma`).

    Examples
    --------
    Both margins of a 2 × 2 table: no single person's change keeps them, a swap of two does.

    >>> from isdp.release import Plan, Request
    >>> A = [[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1]]
    >>> plan = Plan.make(A, ["row Female", "row Male", "column young", "column old"], Request(epsilon="1"))
    >>> plan.unit, plan.exact_feasible, round(plan.expected_attempts, 1)
    (Fraction(1, 2), True, 3.1)
    >>> plan.neighbours
    Neighbours(one_person=False, two_persons=True)
    >>> plan.mechanism()
    {'name': 'generalized Laplace, l1 norm (ISDP Def. 9)', 'epsilon_per_unit_l1_distance': '1/2'}
    >>> print(plan.guarantee().sentence(1))  # doctest: +NORMALIZE_WHITESPACE
    1-DP for any two tables with the same invariants that differ in one person's record
    (added, removed, or moved between cells)
    """

    req: Request
    A: np.ndarray
    labels: list[str]
    neighbours: Neighbours
    exact: ExactSampler | None
    unit: Fraction | float  # ε per unit distance (Laplace) or σ (Gaussian)
    expected_attempts: float  # the exact sampler's forecast proposals per draw (hardest block)
    tables_in_norm: tuple[bool, ...] = (True,)  # per table released: whether it enters the norm (norm_tables)

    @classmethod
    def make(cls, A: np.ndarray, labels: list[str], req: Request, groups: list[np.ndarray] | None = None) -> Plan:
        """Check the request and choose the route, before any count is read.

        Parameters
        ----------
        A : array_like or scipy.sparse array
            The invariants, rows × cells (:func:`isdp.release.constraint_matrix`).
        labels : list of str
            One label per row of ``A``.
        req : Request
            The request (checked here: :meth:`Request.check`).
        groups : list of numpy.ndarray, optional
            Each table's cells, when several tables are released together
            (:attr:`isdp.release.TableSet.groups`).

        Returns
        -------
        Plan
            The route and its parameters.

        Raises
        ------
        isdp.errors.UsageError
            As :meth:`Request.check`, or several tables with a route that may run the chain.
        isdp.errors.InfeasibleError
            Invariants that fix every cell.
        isdp.errors.UncertifiableError
            As :meth:`Request.check`; the exact sampler's forecast needs more than
            ``req.max_attempts`` proposals for some block (without ``allow_chain``); no exact
            sampler applies and no chain is allowed; or a chain that cannot be certified at
            ``req.delta`` (:meth:`pairs`).
        """
        req.check()
        A = as_sparse(A)
        if groups is not None and len(groups) > 1 and req.chain_possible:
            raise UsageError("several tables are released by the exact routes only (--norm l1, --norm gaussian, "
                             "--free-cells): the certified chain takes one table")
        if (req.norm == "l2" and A.shape[0] >= A.shape[1]
                and np.linalg.matrix_rank(A.toarray().astype(float)) >= A.shape[1]):
            raise InfeasibleError("infeasible invariants: they fix every cell, so no noise can be added")
        tables_in_norm = norm_tables(A, groups) if groups is not None and len(groups) > 1 else np.ones(1, dtype=bool)
        derived = np.zeros(A.shape[1], dtype=bool)
        for k in np.flatnonzero(~tables_in_norm):
            derived[groups[k]] = True
        n_in_norm = int(tables_in_norm.sum())
        if req.norm == "gaussian" and n_in_norm * TWO_PERSON_SHIFT > MAX_SHIFT:
            raise UsageError(f"--norm gaussian: {n_in_norm} tables enter the norm, and the exact privacy profile "
                             f"serves at most {MAX_SHIFT // TWO_PERSON_SHIFT} (two persons' change has ‖v‖² up to "
                             f"{TWO_PERSON_SHIFT} in each, {MAX_SHIFT} in all): release them in groups, or with "
                             "--norm l1")
        delta_conversion, _ = req.delta_split()
        unit = (gaussian_sigma(float(req.epsilon_person), delta_conversion, n_in_norm) if req.norm == "gaussian"
                else unit_epsilon(req.epsilon_person, req.norm, n_in_norm))
        gaussian = req.norm == "gaussian"
        worst = [0.0]  # the lowest log acceptance forecast in any block

        def vet(sub: ExactL1Sampler) -> None:
            if req.free_cells:
                return
            worst[0] = min(worst[0], sub.log_acceptance(1 / unit if gaussian else unit, unit if gaussian else None))
            if -worst[0] > math.log(req.max_attempts) and not req.allow_chain:
                raise UncertifiableError(_exact_refusal(req, unit, worst[0], sub))

        exact = ExactSampler.build(A, vet, derived, gaussian=gaussian) if req.norm != "l2" else None
        if exact is not None and exact.n_free == 0:
            raise InfeasibleError("infeasible invariants: they fix every cell, so no noise can be added")
        if exact is None and not req.chain_possible:
            raise UncertifiableError("the free cells are not the lattice's coordinates (no set of cells whose values "
                                     "the invariants give in integers from the others), so the exact sampler does not "
                                     "apply: change the invariants, or run a study with --allow-chain --delta D --seed "
                                     "N --reproducible-not-for-publication")
        attempts = math.exp(-worst[0]) if -worst[0] < 700 else math.inf
        neighbours = Neighbours.of(A)
        if len(tables_in_norm) > 1 and not neighbours.one_person:
            # one person's change may touch every table at once: single-cell moves do not settle it
            neighbours = Neighbours(one_person=None, two_persons=None)
        plan = cls(req, A, labels, neighbours, exact, unit, attempts, tuple(bool(b) for b in tables_in_norm))
        if req.chain_possible:
            plan.pairs()  # a chain that cannot be certified is refused before anything runs
        return plan

    @property
    def exact_feasible(self) -> bool | None:
        """Whether the exact sampler is expected to accept within ``max_attempts`` per block.

        A forecast from the invariants and ε only
        (:meth:`isdp.exact.ExactL1Sampler.log_acceptance`); None when there is no exact
        sampler (the ℓ2 route).
        """
        if self.exact is None:
            return None
        return self.expected_attempts <= self.req.max_attempts

    def guarantee(self, eta: float | None = None, confidence: float | None = None) -> Guarantee:
        """The guarantee of the exact mechanism, or of the chain within TV ``eta`` of it.

        Parameters
        ----------
        eta : float, optional
            The chain's certified TV bound; None for an exact draw.
        confidence : float, optional
            The certificate's confidence level, with ``eta``.

        Returns
        -------
        isdp.release.Guarantee
            Its ε, δ (and ρ) per person and for two persons (:meth:`~isdp.release.Guarantee.at`).
        """
        return Guarantee(self.req.norm, self.unit, self.req.delta_split()[0], eta, confidence,
                         n_tables=sum(self.tables_in_norm), released=len(self.tables_in_norm),
                         two_person_shift=two_person_shift(self.A, self.neighbours))

    def eta_target(self) -> float:
        """The TV bound a chain must certify so that δ per person stays within the request.

        Returns
        -------
        float
            The target η* = δ_chain/(1 + e^ε), ε the exact mechanism's per person (docs/method.md §11,
            "From a TV bound to δ").
        """
        return self.req.delta_split()[1] / (1 + math.exp(self.guarantee().at(1)["epsilon"]))

    def pairs(self) -> int:
        """The coupled pairs behind the chain's certificate.

        Returns
        -------
        int
            ``req.pairs``, or twice the least that can certify :meth:`eta_target` at 95 %
            (at least 200, at most :data:`MAX_PAIRS`).

        Raises
        ------
        isdp.errors.UncertifiableError
            When more than :data:`MAX_PAIRS` pairs, or more than ``req.pairs``, would be needed.
        """
        from ..convergence._certification import (  # the chain's machinery loads only for a chain (numba)
            LEVEL,
            pairs_needed,
        )

        eta, req = self.eta_target(), self.req
        needed = pairs_needed(eta)
        if needed > MAX_PAIRS:
            floor = (1 + math.exp(self.guarantee().at(1)["epsilon"])) * (1 - (1 - LEVEL) ** (1 / MAX_PAIRS))
            raise UncertifiableError(f"--delta {req.delta:g} needs the chain within TV {eta:.3g} of the exact "
                                     f"mechanism, which {needed:,} coupled pairs would be needed to certify at 95 % "
                                     f"(at most {MAX_PAIRS:,}): a certified chain cannot state a delta below about "
                                     f"{floor:.2g} here; raise --delta or use an exact route")
        if req.pairs is None:
            return min(max(200, 2 * needed), MAX_PAIRS)
        if req.pairs < needed:
            raise UncertifiableError(f"--pairs {req.pairs} cannot certify TV {eta:.3g} (needed for --delta "
                                     f"{req.delta:g}) at 95 %: {needed} pairs are needed")
        return req.pairs

    def chain_target(self):
        """The chain's target law on Λ(A).

        Returns
        -------
        isdp.lattice.Target
            The generalized Gaussian with σ, or the generalized Laplace with ε per unit distance
            in the request's norm.
        """
        if self.req.norm == "gaussian":
            return generalized_gaussian(float(self.unit))
        return generalized_laplace(float(self.unit), self.req.norm)

    def mechanism(self) -> dict:
        """The mechanism and its own parameter, for the statement.

        Returns
        -------
        dict
            ``name`` (:data:`MECHANISMS`) and ``sigma`` (the Gaussian) or
            ``epsilon_per_unit_<norm>_distance``; exact fractions as strings.
        """
        out = {"name": MECHANISMS["free-cells" if self.req.free_cells else self.req.norm]}
        if self.req.norm == "gaussian":
            out["sigma"] = str(self.unit)
        else:
            key = f"epsilon_per_unit_{self.req.norm}_distance"
            out[key] = str(self.unit) if isinstance(self.unit, Fraction) else float(self.unit)
        return out

    def check_not_weaker(self, g: Guarantee) -> None:
        """Refuse a guarantee weaker than the request (ε, δ per person), or a δ of 1 or more.

        Parameters
        ----------
        g : isdp.release.Guarantee
            The guarantee a release would meet.

        Raises
        ------
        isdp.errors.UncertifiableError
            Its ε or δ per person exceeds the request's (ε with a relative slack of 1e-12).
        """
        got, req = g.at(1), self.req
        eps_ok = got["epsilon"] <= float(req.epsilon_person) * (1 + 1e-12)
        delta_ok = got["delta"] <= (req.delta or 0.0) and got["delta"] < 1
        if not (eps_ok and delta_ok):
            raise UncertifiableError(f"the release would meet ({got['epsilon']:.6g}, {got['delta']:.3g}) per person, "
                                     f"weaker than the ({req.epsilon}, {req.delta or 0:g}) asked: nothing is released")


# --------------------------------------------------------------------------- the statement


def dry_run(table: Table | TableSet, A: np.ndarray, labels: list[str], req: Request) -> dict:
    r"""The statement a run with these options would carry, from the labels and the options only.

    What ``isdp release --dry-run`` prints. The route is the one that would be tried first; on
    the chain route the δ stated is the most a run may reach (its certificate is computed at run
    time, from the invariants and fresh random numbers only). No count is used: the table may be
    one read with ``labels_only``, and the invariants carry no value.

    Parameters
    ----------
    table : Table or TableSet
        The table, its labels at least (:func:`isdp.release.load_table`).
    A : array_like or scipy.sparse array
        The invariants, rows × cells.
    labels : list of str
        One label per row of ``A``.
    req : Request
        The request.

    Returns
    -------
    dict
        The privacy statement (:func:`isdp.release.privacy_statement`) without the
        invariants' values, with ``"dry_run": True``.

    Raises
    ------
    isdp.errors.ReleaseError
        As :meth:`Plan.make`.

    See Also
    --------
    make_release : The release itself.

    Examples
    --------
    A table whose counts are ``?``: only its labels are read.

    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.release import constraint_matrix
    >>> from isdp.release import Request, dry_run
    >>> from isdp.release import load_table
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "sex_by_age.csv")
    ...     _ = path.write_text("sex,young,old\nFemale,?,?\nMale,?,?\n")
    ...     table = load_table(path, labels_only=True)
    >>> A, labels = constraint_matrix(table, ["total"])
    >>> statement = dry_run(table, A, labels, Request(epsilon="1"))
    >>> statement["dry_run"], statement["route"]["name"], statement["mechanism"]["name"]
    (True, 'exact', 'generalized Laplace, l1 norm (ISDP Def. 9)')
    >>> print(statement["guarantee"]["per_person"]["text"])  # doctest: +NORMALIZE_WHITESPACE
    1-DP for any two tables with the same invariants that differ in one person's record
    (added, removed, or moved between cells)
    >>> statement["invariants"]  # no value: no count is read
    [{'label': 'total', 'coefficients': {'Female|young': 1, 'Female|old': 1, 'Male|young': 1, 'Male|old': 1}}]
    """
    plan = Plan.make(A, labels, req, getattr(table, "groups", None))
    if plan.exact is not None and plan.exact_feasible:
        route = route_record(plan, table)
        g = plan.guarantee()
    else:
        route = {"name": "certified chain", "pairs": plan.pairs(), "tv_target": plan.eta_target(),
                 "certificate": "computed at run time from the invariants and fresh random numbers"}
        from ..convergence._certification import LEVEL

        g = plan.guarantee(plan.eta_target(), LEVEL)
    return {**privacy_statement(plan, table, g, route, None), "dry_run": True}


# --------------------------------------------------------------------------- the release


@dataclass
class Release:
    r"""A checked release, its publishable statement and its confidential audit record (not yet written).

    Made by :func:`make_release`; written by :func:`isdp.release.write_release`.

    Parameters
    ----------
    table : Table or TableSet
        The confidential table (or tables) released.
    values : numpy.ndarray
        The released cells, int64, shape (n,), in the order of ``table.x``: integer, with every
        invariant exactly as in the table.
    statement : dict
        The publishable privacy statement (:func:`isdp.release.privacy_statement`).
    audit : dict
        The confidential audit record: the input's path, SHA-256 and cells, the exact
        sampler's attempts, the route, the run time.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.release import constraint_matrix
    >>> from isdp.release import Request, make_release
    >>> from isdp.release import load_table
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "sex_by_age.csv")
    ...     _ = path.write_text("sex,young,old\nFemale,3,5\nMale,4,2\n")
    ...     table = load_table(path)
    ...     A, labels = constraint_matrix(table, ["total"])
    ...     release = make_release(table, A, labels, Request(epsilon="1", seed=4))
    >>> release.values.tolist(), release.statement["publishable"]
    ([4, 8, 2, 0], False)
    >>> sorted(release.audit), release.audit["input"]["cells"]
    (['exact_sampler', 'input', 'route', 'seconds'], 4)
    """

    table: Table | TableSet
    values: np.ndarray  # int64 (n,)
    statement: dict
    audit: dict


def make_release(table: Table | TableSet, A: np.ndarray, labels: list[str], req: Request) -> Release:
    r"""Draw and check one release of ``table`` keeping ``A x``.

    The plan (:meth:`Plan.make`) is made first, from ``A`` and the request alone; then the noise
    is drawn on the route it chose — exact (ℓ1, Gaussian), free cells, or the certified chain —
    added to the counts, post-processed onto non-negative tables if asked, and checked: the
    release is integer, meets every invariant exactly (A·release = A·x, in exact integers) and
    its guarantee is at least as strong as the one asked. Nothing is written
    (:func:`isdp.release.write_release` does that).

    Parameters
    ----------
    table : Table or TableSet
        The confidential table, counts included (:func:`isdp.release.load_table`), or tables
        released together (:class:`isdp.release.TableSet`).
    A : array_like or scipy.sparse array
        The invariants, rows × cells (:func:`isdp.release.constraint_matrix`).
    labels : list of str
        One label per row of ``A``.
    req : Request
        What to release and how; ``req.seed`` None draws from operating-system entropy.

    Returns
    -------
    Release
        The released values (int64, the order of ``table.x``), the publishable statement and
        the confidential audit record.

    Raises
    ------
    isdp.errors.UsageError
        Bad options (:meth:`Request.check`, :meth:`Plan.make`).
    isdp.errors.InputError
        An invariant's value beyond ±2**53.
    isdp.errors.InfeasibleError
        Invariants that fix every cell, or from which the chain's lattice cannot be built.
    isdp.errors.UncertifiableError
        A request no route can serve: the forecast, no accepted proposal within
        ``req.max_attempts``, a chain that cannot be certified or is asked without a seed.

    See Also
    --------
    dry_run : The statement a run would carry, before any count is read.
    isdp.release.write_release : Writes the three files, all or none.
    isdp.cli.main : ``isdp release``.

    Notes
    -----
    The guarantee is per person (docs/method.md §11). The generalized Laplace
    π(u) ∝ exp(−ε‖u‖) on Λ(A) is ε-integer subspace DP per unit distance (ISDP Thm 10), drawn
    exactly by rejection from double geometric proposals on the free cells in integer arithmetic
    (Canonne, Kamath & Steinke's samplers) from operating-system entropy: pure ε per person. The
    free-cell route has the same ε (its free cells are the lattice's coordinates). The
    generalized Gaussian (ISDP Eq. 8) is ρ-zCDP with ρ = 1/σ² per person, stated as (ε, δ). The
    certified chain (ISDP Algorithm 1, certified by L-lag coupling: Biswas, Jacob & Vanetti 2019)
    is within TV η of the exact mechanism at 95 % confidence, which gives δ = (1 + e^ε)η. The
    non-negative projection is a function of the noisy table and the invariants only, so the
    guarantee is unchanged. The invariants are disclosed exactly, by design.

    Examples
    --------
    Both margins of a 2 × 2 table kept exactly, ε = 1 per person (seeded to show a result: a
    seeded release is not for publication):

    >>> import tempfile
    >>> from pathlib import Path
    >>> from isdp.lattice import row_values
    >>> from isdp.release import constraint_matrix
    >>> from isdp.release import Request, make_release
    >>> from isdp.release import load_table
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = Path(tmp.name, "sex_by_age.csv")
    >>> _ = path.write_text("sex,young,old\nFemale,3,5\nMale,4,2\n")
    >>> table = load_table(path)
    >>> A, labels = constraint_matrix(table, ["all-margins"])
    >>> release = make_release(table, A, labels, Request(epsilon="1", seed=6))
    >>> release.values.tolist(), release.values.dtype.name
    ([2, 6, 5, 1], 'int64')
    >>> row_values(A, release.values) == row_values(A, table.x)
    True
    >>> print(release.statement["guarantee"]["per_person"]["text"])  # doctest: +NORMALIZE_WHITESPACE
    1-DP for any two tables with the same invariants that differ in one person's record
    (added, removed, or moved between cells)
    >>> table.with_cells(release.values)
    [['sex', 'young', 'old'], ['Female', '2', '6'], ['Male', '5', '1']]

    Under the total only, unbiased noise on small counts can go below zero; ``nonnegative``
    projects it away without changing the guarantee (the cell raised to 0, the excess taken back
    evenly from the others: :func:`isdp.baselines.l1_total_projection`):

    >>> A, labels = constraint_matrix(table, ["total"])
    >>> make_release(table, A, labels, Request(epsilon="1", seed=1)).values.tolist()
    [4, 8, 5, -3]
    >>> make_release(table, A, labels, Request(epsilon="1", seed=1, nonnegative=True)).values.tolist()
    [3, 7, 4, 0]
    >>> tmp.cleanup()
    """
    started = time.perf_counter()
    plan = Plan.make(A, labels, req, getattr(table, "groups", None))
    A = plan.A
    x = table.x
    kept = row_values(A, x)
    for label, value in zip(labels, kept, strict=True):
        if abs(value) > COUNT_LIMIT:
            raise InputError(f"{table.path}: the invariant {label!r} is {value}, beyond ±2**53: counts and every "
                             "invariant's value must lie within ±2**53 (exact in int64 and float arithmetic)")
    invariants = np.array(kept, dtype=np.int64)
    rng = seeded_source(req.seed) if req.seed is not None else system_source()
    audit: dict = {}
    noise, certificate, proposal_eps, lattice = None, None, None, None
    if plan.exact is not None and plan.exact_feasible:
        sigma = plan.unit if req.norm == "gaussian" else None
        bar = Progress(len(plan.exact.parts), "exact sampler (blocks)", req.progress)
        try:
            noise, attempts = plan.exact.draw(1 / sigma if sigma is not None else plan.unit, rng,
                                              max_attempts=req.max_attempts, sigma=sigma, accept=not req.free_cells,
                                              on_block=bar.update)
        finally:
            bar.close()
        audit["exact_sampler"] = {"attempts": attempts, "accepted": noise is not None}
        if noise is None and not req.allow_chain:
            advice = ("its Gaussian step accepts a share that falls geometrically with the number of cells: raise "
                      "--max-attempts, use --norm l1, or fewer cells" if req.norm == "gaussian" else
                      "raise --max-attempts or --epsilon, or use --free-cells")
            raise UncertifiableError(f"the exact sampler accepted none of --max-attempts {req.max_attempts} proposals "
                                     f"(its acceptance depends on the invariants and epsilon, never on the counts): "
                                     f"{advice}")
    if noise is None:
        from ..convergence._certification import LEVEL, certify_chain
        from ..lattice._bases import with_mixing_basis  # the chain's machinery loads only when a chain runs
        from ..mcmc._samplers import sample

        try:
            # the chain runs on the basis chosen for mixing (isdp.lattice): the same lattice, a chain
            # whose coupled pairs meet (path moves for sums, adjacent 2x2 moves for two-way tables)
            lattice = with_mixing_basis(IntegerLattice.from_constraints(A.toarray()))
        except InvariantError as err:
            raise InfeasibleError(f"infeasible invariants: {err}") from None
        seed = rng.randbelow(2**62)
        bar = Progress(2, f"certifying the chain ({plan.pairs()} coupled pairs)", req.progress)
        try:
            proposal_eps, certificate = certify_chain(lattice, plan.chain_target(), threshold=plan.eta_target(),
                                                      n_pairs=plan.pairs(), max_iter=req.max_iter, seed=seed,
                                                      on_step=bar.update)
        finally:
            bar.close()
        iterations = certificate.burn_in(floor=1)  # the certified iteration, at least one
        res = sample(lattice, plan.chain_target(), n_chains=1, n_draws=1, burn_in=iterations - 1, thin=1,
                     proposal_eps=proposal_eps, seed=seed + 3, progress=False)
        noise = res.draws[0, -1]
        audit["certificate_seconds"] = round(certificate.seconds, 3)
    values = x + noise
    if req.nonnegative:
        values = _nonnegative(values, A)
    if values.dtype != np.int64 or values.shape != x.shape or row_values(A, values) != kept:
        raise AssertionError("release failed its checks (integer, every invariant exact); this is a bug in isdp")
    if certificate is None:
        guarantee = plan.guarantee()
    else:  # the chain is within TV η of the exact mechanism: η the certificate's bound at its run length
        guarantee = plan.guarantee(float(certificate.bound(iterations)[0]), LEVEL)
    plan.check_not_weaker(guarantee)
    statement = privacy_statement(plan, table, guarantee,
                                  route_record(plan, table, lattice, certificate, proposal_eps), invariants)
    inputs = [{"path": str(t.path), "sha256": _sha256(t.path), "cells": len(t.keys)}
              for t in (table.tables if isinstance(table, TableSet) else [table])]
    audit.update(
        input=inputs[0] if len(inputs) == 1 else inputs,
        seconds=round(time.perf_counter() - started, 3),
        route=statement["route"]["name"],
    )
    return Release(table, values, statement, audit)


def _nonnegative(values: np.ndarray, A: sparse.csr_array) -> np.ndarray:
    """The integer ℓ1 projection onto {z ≥ 0, A z = A values}, block by block (the objective and the
    constraints separate over :func:`blocks`); a block already non-negative is left as it is. A block
    that is one total gets the ℓ2-nearest of the ℓ1 optima, whatever the solver
    (:func:`isdp.baselines.l1_total_projection`); other blocks HiGHS' optimum."""
    from ..baselines._projections import l1_projection_milp

    out = values.copy()
    for cells, rows in blocks(A):
        if out[cells].min() >= 0:
            continue
        if not len(rows):  # a cell in no invariant
            out[cells] = np.maximum(out[cells], 0)
            continue
        sub = A[rows][:, cells].toarray()
        out[cells] = l1_projection_milp(out[cells].astype(float), sub, sub @ out[cells], nonnegative=True)
    if np.any(out < 0):
        raise AssertionError("release has a negative cell despite --nonnegative; this is a bug in isdp")
    return out


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
