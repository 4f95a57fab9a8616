"""What a release promises the people in the table.

The guarantee per person and per group of persons, and the calibration of each mechanism to it (docs/method.md §11).

Everything here is computed from the invariant matrix A and the request alone, never from the
counts: a privacy statement built here can be published and printed before any count is read
(``isdp release --dry-run``).

**Neighbouring relation.** Two tables are neighbours when they have the same invariants
(A x = A x') and differ in the records of k persons: each person is added, removed, or moves
from one cell to another. One person changes the table by at most 2 in ℓ1 (a move) and √2 in ℓ2;
k persons by at most 2k and √2·k. The guarantee is stated **per person** (k = 1) and, by group
privacy, for k = 2. Which of these changes the invariants can absorb is decided from A
(:class:`~isdp.privacy.Neighbours`); a change they cannot absorb is disclosed by them.

**Several tables.** Tables released together count the same persons, each person in at most one
cell of each table, so one person changes T tables by at most 2T in ℓ1 and √(2T) in ℓ2, where T
counts the tables whose cells enter the mechanism's norm (a table the invariants determine from
the others is derived from them: :meth:`isdp.exact.IntegerL1Sampler.norm_tables`).

**Calibration.** The user states the guarantee needed per person (ε, and δ where the route has
one); the mechanism's own parameter follows from it: ε per unit ℓ1 distance = ε/(2T), per unit
ℓ2 distance = ε/√(2T), and the Gaussian's σ the smallest (on a 10⁻⁶ grid, rounded up) whose
exact privacy profile meets (ε, δ) for every change of squared ℓ2 norm up to 2T
(:mod:`isdp.exact`; T = 1 for one table).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal
from fractions import Fraction
from typing import Literal, overload

from ._gaussian_profile import SIGMA_GRID, calibrate_sigma, profile_epsilon
from ._neighbours import TWO_PERSON_SHIFT, Neighbours, SmallestChange

#: ℓ1 distance of one person's change to a table: 2 for a move between cells (one cell down by one,
#: another up by one), 1 for a person added or removed. The ℓ1 route's unit ε is ε per person / (2T).
PERSON_L1 = 2
#: ℓ2 distance of one person's change to a table: √2 for a move between cells, 1 for a person added
#: or removed. The ℓ2 route's unit ε is ε per person / (√2·√T); the Gaussian's ρ per person is T/σ².
PERSON_L2 = math.sqrt(2)
#: squared ℓ2 distance of one person's change to a table (a move): the Gaussian's profile is taken up to 2T
PERSON_SHIFT = 2


@overload
def unit_epsilon(epsilon_person: Fraction, norm: Literal["l1"], n_tables: int = 1) -> Fraction: ...
@overload
def unit_epsilon(epsilon_person: Fraction, norm: Literal["l2"], n_tables: int = 1) -> float: ...
@overload
def unit_epsilon(epsilon_person: Fraction, norm: str, n_tables: int = 1) -> Fraction | float: ...
def unit_epsilon(epsilon_person: Fraction, norm: str, n_tables: int = 1) -> Fraction | float:
    """Return the mechanism's ε per unit distance that gives ``epsilon_person`` per person.

    A person's change moves a table by at most :data:`PERSON_L1` in ℓ1 and :data:`PERSON_L2` in
    ℓ2, and reaches every one of the ``n_tables`` tables in the mechanism's norm, so the
    generalized Laplace's own ε is ε per person / (2T) for ℓ1 and ε per person / (√2·√T) for ℓ2.

    Parameters
    ----------
    epsilon_person : fractions.Fraction
        ε needed per person (> 0); any value :class:`fractions.Fraction` accepts (an int, a
        ``Fraction``, a string such as ``"1/3"``) for ℓ1, any real number for ℓ2.
    norm : {"l1", "l2"}
        The generalized Laplace's norm.
    n_tables : int, default 1
        T, the tables released together whose cells enter the norm (tables the invariants
        determine from the others do not: :meth:`isdp.exact.IntegerL1Sampler.norm_tables`).

    Returns
    -------
    fractions.Fraction or float
        The ε per unit ℓ1 distance as an exact ``Fraction`` (the exact sampler needs a rational ε),
        or ε per unit ℓ2 distance as a float.

    Raises
    ------
    ValueError
        For any other ``norm`` (the Gaussian is calibrated by :func:`gaussian_sigma`).

    See Also
    --------
    gaussian_sigma : The Gaussian's σ for a guarantee per person.
    Guarantee.at : The guarantee of a unit ε for a group of persons.

    Notes
    -----
    For neighbours x' = x + v with v ∈ Λ(A) the generalized Laplace exp(−ε‖u‖) on Λ(A) has
    privacy loss at most ε‖v‖ (ISDP Thm 10), and k persons have ‖v‖₁ ≤ 2kT, ‖v‖₂ ≤ √2·k·√T
    (docs/method.md §11).

    Examples
    --------
    >>> from fractions import Fraction
    >>> from isdp.privacy import unit_epsilon
    >>> unit_epsilon(Fraction(1), "l1")
    Fraction(1, 2)
    >>> unit_epsilon(Fraction(1), "l1", n_tables=2)
    Fraction(1, 4)
    >>> round(unit_epsilon(1, "l2"), 6)
    0.707107
    """
    if norm == "l1":
        return Fraction(epsilon_person) / (PERSON_L1 * n_tables)
    if norm == "l2":
        return float(epsilon_person) / (PERSON_L2 * math.sqrt(n_tables))
    raise ValueError(f"no unit ε for the norm {norm!r}")


def gaussian_sigma(epsilon_person: float, delta: float, n_tables: int = 1) -> Fraction:
    """Return the generalized Gaussian's σ that meets (ε, δ) per person.

    The smallest σ on a 10⁻⁶ grid whose exact privacy profile on the lattice meets
    (``epsilon_person``, ``delta``) for one person's change (:func:`._gaussian_profile.calibrate_sigma`), stepped
    up where needed so that the ε the statement states for it (:meth:`Guarantee.at`) is at most
    ``epsilon_person``: the release's own check can never find it weaker than the request.

    Parameters
    ----------
    epsilon_person : float
        ε needed per person (> 0).
    delta : float
        δ needed per person, in (0, 1).
    n_tables : int, default 1
        T, the tables released together whose cells enter the norm.

    Returns
    -------
    fractions.Fraction
        The σ, an exact fraction whose denominator divides 10⁶ (the exact sampler needs a rational σ), with
        ``profile_epsilon(delta, σ, 2·n_tables) <= epsilon_person``.

    See Also
    --------
    Guarantee.at : The ε, δ and zCDP ρ of a σ for a group of persons.
    isdp.privacy._gaussian_profile.profile_delta : The profile the σ is calibrated on.

    Notes
    -----
    One person changes each of the T tables in the norm by a vector of squared ℓ2 norm at most 2
    (a move between cells), so the profile is taken over every shift of squared norm up to 2T.
    The profile is an upper bound for every lattice (docs/method.md §11), so σ meets the request on
    any invariants, and a close one: the audited ε at this σ is within 1 % of the request on the
    audit's lattices (``tests/core/release/test_release_privacy.py``).

    Examples
    --------
    >>> from isdp.privacy import Guarantee, gaussian_sigma
    >>> sigma = gaussian_sigma(1.0, 1e-6)
    >>> sigma, float(sigma)
    (Fraction(239329, 40000), 5.983225)
    >>> round(Guarantee("gaussian", sigma, delta_conversion=1e-6).at(1)["rho"], 6)  # 1/σ²
    0.027934
    """
    shift = PERSON_SHIFT * n_tables
    sigma, step = calibrate_sigma(float(epsilon_person), delta, shift), Fraction(1, SIGMA_GRID)
    # the statement states the ε that profile_epsilon reads off at this σ; where the profile is flat in ε (ε of
    # 1e-8) its root-finding tolerance can put that a hair above the request, so σ steps up until it is not
    while profile_epsilon(delta, sigma, shift) > epsilon_person:
        sigma, step = sigma + step, 2 * step
    return sigma


def gaussian_rho(sigma, k: int, n_tables: int = 1) -> float:
    """Return the zCDP ρ of the generalized Gaussian for a change of ``k`` persons.

    Parameters
    ----------
    sigma : fractions.Fraction or float
        The Gaussian's σ (> 0).
    k : int
        The number of persons whose records change.
    n_tables : int, default 1
        T, the tables released together whose cells enter the norm.

    Returns
    -------
    float
        The ρ = (√(2T)·k)²/(2σ²) = T k²/σ².

    See Also
    --------
    gaussian_sigma : The σ whose ρ per person meets a requested (ε, δ).

    Notes
    -----
    k persons change the noise by v with ‖v‖₂ ≤ √2·k in each of the T tables in the norm, and the
    generalized Gaussian on Λ(A) is ρ-zCDP with ρ = ‖v‖₂²/2σ² (docs/method.md §11): the Rényi
    divergence of order α between neighbours is at most α‖v‖₂²/2σ².

    Examples
    --------
    >>> from isdp.privacy._guarantee import gaussian_rho
    >>> round(gaussian_rho(2, 1), 6), round(gaussian_rho(2, 2), 6), round(gaussian_rho(2, 1, n_tables=2), 6)
    (0.25, 1.0, 0.5)
    """
    return (PERSON_L2 * k) ** 2 * n_tables / (2 * float(sigma) ** 2)


def _loss_text(x: float) -> str:
    """Return an ε or ρ for a sentence.

    6 significant digits, rounded up unless they give ``x`` to within floating-point noise (a relative 1e-12, the
    tolerance of the release's own check), so that a printed loss is never below the one it states (1.0000001 prints as
    1.00001, 0.25000000000000006 as 0.25).
    """
    text = f"{x:.6g}"
    if not math.isfinite(x) or float(text) >= x * (1 - 1e-12):
        return text
    digits = Decimal(x)
    step = Decimal(1).scaleb(digits.adjusted() - 5)  # the 6th significant digit's unit
    return f"{float(digits.quantize(step, rounding=ROUND_CEILING)):.6g}"


def _delta_text(x: float) -> str:
    """Return a δ for a sentence, exactly.

    6 significant digits when they give ``x`` back, else its shortest exact decimal (0.999999 stays 0.999999 and 1/3
    prints as 0.3333333333333333, never as 1 or 0.333).
    """
    text = f"{x:.6g}"
    return text if float(text) == x else repr(float(x))


@dataclass(frozen=True)
class Guarantee:
    """The guarantee of one mechanism and route, per group of k persons.

    Holds the mechanism's own parameter and computes from it the guarantee for a change of k
    persons' records (:meth:`at`), in words (:meth:`sentence`) and as the privacy statement's
    ``guarantee`` entry (:meth:`to_dict`).

    Parameters
    ----------
    norm : {"l1", "l2", "gaussian"}
        The mechanism: generalized Laplace in ℓ1 or ℓ2, or the generalized Gaussian.
    unit : fractions.Fraction or float
        ε per unit distance for the Laplace (:func:`unit_epsilon`), σ for the Gaussian
        (:func:`gaussian_sigma`).
    delta_conversion : float or None, default None
        The Gaussian's δ, at which its ε is read off the exact privacy profile; None for the Laplace.
    eta : float or None, default None
        The chain's certified total variation bound from the exact mechanism; None for an exact draw.
    confidence : float or None, default None
        The confidence level of the certificate that gives ``eta`` (0.95); None for an exact draw.
    n_tables : int, default 1
        T, the tables in the norm that one person's change reaches.
    released : int, default 1
        The tables released together, those derived from the others included (only the wording
        of :meth:`sentence` depends on it).
    two_person_shift : int, default 8
        The Gaussian's largest squared ℓ2 distance of a two-person change per table that keeps the
        invariants (:meth:`Neighbours.two_person_shift`: 4 under counting invariants no single person's change
        keeps, such as both margins).

    Raises
    ------
    ValueError
        A Gaussian guarantee without ``delta_conversion``: its ε exists only at a δ.

    See Also
    --------
    Neighbours : Which of the guarantee's lines the invariants make realisable.

    Notes
    -----
    A change of k persons moves the table by at most 2kT in ℓ1 and √2·k·√T in ℓ2, so the Laplace's
    ε for k persons is ``unit`` times that distance (ISDP Thm 10; group privacy). The Gaussian's
    change of k persons has squared ℓ2 norm at most S_k (2T per person, ``two_person_shift``·T for
    two persons): its ρ is S_k/2σ², and its ε the smallest whose exact privacy profile
    (:func:`isdp.privacy._gaussian_profile.profile_epsilon`) is at most ``delta_conversion``. A chain within
    total variation η of the exact mechanism adds (1 + e^ε)·η to δ (docs/method.md §11, "From a TV bound to δ").

    Examples
    --------
    The exact ℓ1 route at ε = 1 per person (ε = 1/2 per unit ℓ1 distance):

    >>> from fractions import Fraction
    >>> from isdp.privacy import Guarantee, unit_epsilon
    >>> g = Guarantee("l1", unit_epsilon(Fraction(1), "l1"))
    >>> g.at(1), g.at(2)
    ({'persons': 1, 'epsilon': 1.0, 'delta': 0.0}, {'persons': 2, 'epsilon': 2.0, 'delta': 0.0})
    >>> g.kind
    'pure'

    The generalized Gaussian calibrated to (1, 10⁻⁶) per person:

    >>> from isdp.privacy import gaussian_sigma
    >>> gauss = Guarantee("gaussian", gaussian_sigma(1.0, 1e-6), delta_conversion=1e-6)
    >>> line = gauss.at(1)
    >>> round(line["rho"], 6), round(line["epsilon"], 6), line["delta"]
    (0.027934, 1.0, 1e-06)
    >>> print(gauss.sentence(1))  # doctest: +NORMALIZE_WHITESPACE
    (1, 1e-06)-DP (the exact privacy profile), and rho-zCDP with rho = 0.0279338, for any two tables
    with the same invariants that differ in one person's record (added, removed, or moved between cells)

    ε and ρ are printed to 6 significant digits rounded up, δ exactly (never as 1):

    >>> print(Guarantee("gaussian", 2, delta_conversion=0.999999).sentence(1))  # doctest: +ELLIPSIS
    (0, 0.999999)-DP (the exact privacy profile), and rho-zCDP with rho = 0.25, for any two tables ...
    """

    norm: str
    unit: Fraction | float
    delta_conversion: float | None = None
    eta: float | None = None
    confidence: float | None = None  # the certificate's level, with eta
    n_tables: int = 1
    released: int = 1  # tables released together (those derived from the others included)
    two_person_shift: int = TWO_PERSON_SHIFT  # the Gaussian's largest ‖v‖² of two persons' change, per table

    def __post_init__(self) -> None:
        # the Gaussian's ε exists only at a δ: without one, every line of the guarantee would fail when asked
        if self.norm == "gaussian" and self.delta_conversion is None:
            raise ValueError("the Gaussian's guarantee needs delta_conversion, the δ its ε is read off the profile at")

    def _gaussian(self, shift: int) -> dict:
        """Return the Gaussian's ρ, ε and δ for a change of squared ℓ2 norm ``shift``."""
        delta = self.delta_conversion
        assert delta is not None  # __post_init__ refuses a Gaussian without it
        return {
            "rho": shift / (2 * float(self.unit) ** 2),
            "epsilon": profile_epsilon(delta, self.unit, shift),
            "delta": delta,
        }

    def at(self, k: int) -> dict:
        """Return the ε, δ (and ρ for the Gaussian) of a change of ``k`` persons.

        Parameters
        ----------
        k : int
            The number of persons whose records change (1 per person, 2 for two persons).

        Returns
        -------
        dict
            ``persons`` (``k``), ``epsilon`` and ``delta`` (floats), and ``rho`` for the Gaussian.
            δ is 0 for the exact Laplace, the conversion's δ for the exact Gaussian, plus
            (1 + e^ε)·η for a chain.

        Examples
        --------
        >>> from isdp.privacy import Guarantee
        >>> g = Guarantee("l1", 0.25, eta=1e-4, confidence=0.95)
        >>> line = g.at(1)
        >>> line["epsilon"], round(line["delta"], 8)
        (0.5, 0.00026487)
        """
        out: dict = {"persons": k}
        if self.norm == "gaussian":
            out.update(self._gaussian(self.n_tables * (PERSON_SHIFT if k == 1 else self.two_person_shift)))
        else:
            distance = PERSON_L1 * k * self.n_tables if self.norm == "l1" else PERSON_L2 * k * math.sqrt(self.n_tables)
            eps = float(self.unit) * distance
            out.update(epsilon=eps, delta=0.0)
        if self.eta is not None:
            out["delta"] += (1 + math.exp(out["epsilon"])) * self.eta
        return out

    @property
    def kind(self) -> str:
        """The kind of guarantee: pure, zCDP, or statistical (a chain: δ from a 95 % confidence bound).

        Returns
        -------
        str
            ``"pure"`` (exact Laplace), ``"zCDP"`` (exact Gaussian) or ``"approximate, from a
            statistical certificate"`` (a chain, ``eta`` set).

        Examples
        --------
        >>> from isdp.privacy import Guarantee
        >>> Guarantee("l1", 0.5).kind, Guarantee("gaussian", 8, delta_conversion=1e-6).kind
        ('pure', 'zCDP')
        """
        if self.eta is not None:
            return "approximate, from a statistical certificate"
        return "zCDP" if self.norm == "gaussian" else "pure"

    def sentence(self, k: int) -> str:
        """Return the guarantee for ``k`` persons in words.

        Parameters
        ----------
        k : int
            The number of persons: 1 (the per-person line) or 2 (the two-person line).

        Returns
        -------
        str
            The guarantee and the neighbouring relation it covers. ε and ρ are printed to 6
            significant digits, rounded up unless exact (a printed loss is never below the
            stated one); δ exactly (6 significant digits when they are exact, else its
            shortest exact decimal), so that no δ is printed as a rounder value.

        Examples
        --------
        >>> from isdp.privacy import Guarantee
        >>> print(Guarantee("l1", 0.5).sentence(2))  # doctest: +NORMALIZE_WHITESPACE
        2-DP for any two tables with the same invariants that differ in two persons' records
        (added, removed, or moved between cells)
        """
        return self._sentence(self.at(k))

    def at_change(self, change: SmallestChange) -> dict | None:
        """Return the ε, δ (and ρ) of the smallest change the invariants absorb, when no one or two persons' does.

        Parameters
        ----------
        change : SmallestChange
            The change (:attr:`Neighbours.smallest`): its persons and its largest ‖v‖₁ and ‖v‖₂².

        Returns
        -------
        dict or None
            As :meth:`at`, with ``l1`` and ``l2_squared``: the Laplace's ε is its unit ε times ‖v‖ (the
            change's own distance, below the group bound 2k), the Gaussian's read off the exact profile at
            ‖v‖₂². None when the change was not found (a change of at most :data:`LARGEST_GROUP` = 8
            persons has ‖v‖₂² ≤ 2·8², within the profile's range).

        Examples
        --------
        3·x₀ + x₁ kept: three persons' change v = (1, −3) at ε = 1/2 per unit ℓ1 distance.

        >>> from isdp.privacy import Guarantee, Neighbours
        >>> Guarantee("l1", 0.5).at_change(Neighbours.of([[3, 1]]).smallest)
        {'persons': 3, 'epsilon': 2.0, 'delta': 0.0, 'l1': 4, 'l2_squared': 10}
        """
        if change.persons is None or change.l1 is None or change.l2_squared is None:  # all three or none are set
            return None
        out: dict = {"persons": change.persons}
        if self.norm == "gaussian":
            out.update(self._gaussian(change.l2_squared))
        else:
            eps = float(self.unit) * (change.l1 if self.norm == "l1" else math.sqrt(change.l2_squared))
            out.update(epsilon=eps, delta=0.0)
        if self.eta is not None:
            out["delta"] += (1 + math.exp(out["epsilon"])) * self.eta
        return {**out, "l1": change.l1, "l2_squared": change.l2_squared}

    def _sentence(self, g: dict) -> str:
        """Return the guarantee line ``g`` (:meth:`at`, :meth:`at_change`) in words."""
        k = g["persons"]
        who = {1: "one person's record", 2: "two persons' records"}.get(k, f"{k} persons' records")
        eps, delta = _loss_text(g["epsilon"]), _delta_text(g["delta"])
        rho = _loss_text(g["rho"]) if "rho" in g else None
        what = (
            f"({eps}, {delta})-DP (the exact privacy profile), and rho-zCDP with rho = {rho},"
            if self.norm == "gaussian"
            else f"{eps}-DP"
            if g["delta"] == 0
            else f"({eps}, {delta})-DP"
        )
        if self.norm == "gaussian" and self.eta is not None:
            what = (
                f"({eps}, {delta})-DP (rho = {rho} for the exact mechanism, widened by the chain's certified TV bound)"
            )
        if self.released > 1:
            return (
                f"{what} for any two inputs (the {self.released} tables together) with the same invariants that "
                f"differ in {who} (added, removed, or moved between cells, in every table at once)"
            )
        return (
            f"{what} for any two tables with the same invariants that differ in {who} "
            "(added, removed, or moved between cells)"
        )

    def to_dict(self, neighbours: Neighbours) -> dict:
        """Return the per-group guarantees with whether each group's change is realisable under A.

        Parameters
        ----------
        neighbours : Neighbours
            The changes the invariants can absorb (:meth:`Neighbours.of`).

        Returns
        -------
        dict
            ``kind``; ``headline``, the guarantee to state first: per person where a single
            person's change can keep the invariants (or that is undetermined), per two persons where
            only a swap can, per k persons where the smallest change the invariants absorb involves
            k ≥ 3 (``persons``, ``text``, ``applies_to``); ``per_person`` and ``two_persons``, each
            :meth:`at` with ``realisable`` and ``text`` (:meth:`sentence`); then ``smallest_change``
            (:meth:`at_change`, with ``realisable`` and ``text``) when that k was found;
            ``neighbours`` (:meth:`Neighbours.describe`); and, for a chain, ``tv_bound`` and
            ``confidence_level``.

        Examples
        --------
        >>> from isdp.privacy import Guarantee, Neighbours
        >>> d = Guarantee("l1", 0.5).to_dict(Neighbours.of([[1, 1, 1]]))
        >>> sorted(d)
        ['headline', 'kind', 'neighbours', 'per_person', 'two_persons']
        >>> d["per_person"]["epsilon"], d["per_person"]["realisable"], d["headline"]["persons"]
        (1.0, True, 1)

        Under both margins of a table no single person's change keeps the invariants; a swap does:

        >>> margins = [[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1]]
        >>> headline = Guarantee("l1", 0.5).to_dict(Neighbours.of(margins))["headline"]
        >>> headline["persons"], headline["text"][:4]
        (2, '2-DP')

        Under 3·x₀ + x₁ no change of one or two persons keeps the invariant; one of three persons does:

        >>> d = Guarantee("l1", 0.5).to_dict(Neighbours.of([[3, 1]]))
        >>> d["headline"]["persons"], d["smallest_change"]["epsilon"], d["smallest_change"]["l1"]
        (3, 2.0, 4)
        """
        one, two = neighbours.realisable(1), neighbours.realisable(2)
        larger = self.at_change(neighbours.smallest) if one is False and two is False and neighbours.smallest else None
        # the headline: the strongest guarantee for a change the invariants can absorb (a change they
        # cannot absorb is revealed by them, so a line that covers none would mislead)
        if larger is not None:
            headline = {
                "persons": larger["persons"],
                "text": self._sentence(larger),
                "applies_to": f"{larger['persons']} persons' changes (the smallest change the invariants "
                "absorb; no change of fewer persons keeps them)",
            }
        elif one is False and two is False:
            headline = {
                "persons": 1,
                "text": self.sentence(1),
                "applies_to": "one person's change, as a bound: no change of one or two persons keeps the "
                "invariants, and the smallest that does was not determined (group privacy "
                "bounds it from this line)",
            }
        elif one is False:
            swap = (
                "a swap between cells: the smallest change the invariants absorb; no single person's change keeps them"
                if two
                else "no single person's change keeps the invariants; whether two persons' changes "
                "can was not determined: the line bounds any that does"
            )
            headline = {"persons": 2, "text": self.sentence(2), "applies_to": f"two persons' changes ({swap})"}
        else:
            headline = {"persons": 1, "text": self.sentence(1), "applies_to": "one person's change"}
        return {
            "kind": self.kind,
            "headline": headline,
            "per_person": {**self.at(1), "realisable": one, "text": self.sentence(1)},
            "two_persons": {**self.at(2), "realisable": two, "text": self.sentence(2)},
            **(
                {"smallest_change": {**larger, "realisable": True, "text": self._sentence(larger)}}
                if larger is not None
                else {}
            ),
            "neighbours": neighbours.describe(),
            **({"tv_bound": self.eta, "confidence_level": self.confidence} if self.eta is not None else {}),
        }
