"""Exact laws for Subspace DP §2.3 and the privacy half of Thm 3.1, on a small discrete example.

§2.3's statements are nestedness, Cor 2.8, composition, post-processing and mixtures.

Databases of ``RECORDS`` rows over Example 2.4's domain X = {1, 2, 3, 4}, query A = hist, bounded
neighbours (Def 2.1: one row changes, h' = h − e_i + e_j, so Δ₁(hist) = 2). The base mechanism
releases every cell as clamp(h_i + DG(ε/Δ₁), low, high): the truncated geometric mechanism, a
post-processing of the additive double geometric mechanism at scale Δ₁/ε, hence (ε, 0)-DP. Its
support is finite, so every law below is exact (nothing is cut off) and each privacy statement is a
finite sum.

Laws are :class:`isdp.privacy.TruncatedLaw` of integer vectors. The projection onto V = span(B) (B an
integer matrix of full column rank) is kept as the law of Bᵀy, which determines Π_V y and is
determined by it. Thm 3.1's invariant-respecting mechanism h + Π_N(y − h) for a one-row integer C is
kept as D times itself, D = C·C, an integer vector. A pure (ε, 0) statement on V holds when the
hockey-stick divergence of the projected laws at ε is 0 for every ordered pair of neighbours: the
smallest δ of Def 2.5 at that ε.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from functools import lru_cache

import numpy as np

from isdp.mcmc import DoubleGeometric
from isdp.privacy import TruncatedLaw

RECORDS = 3  # Example 2.4's database size
SENSITIVITY = 2  # Δ₁(hist) under bounded neighbours
C_ODD = np.array([1, 0, 1, 0], dtype=np.int64)  # Example 2.4: records with an odd feature
C_TOTAL = np.ones(4, dtype=np.int64)  # Example 2.3: the total
#: integer bases (columns) of the subspaces: ℝ⁴ ⊃ N(C) ⊃ N(C) ∩ N(1ᵀ) ⊃ a line, with C = C_ODD; and N(1ᵀ) ⊄ N(C)
SUBSPACES = {
    "ℝ⁴": np.eye(4, dtype=np.int64),
    "N(C)": np.array([[1, 0, -1, 0], [0, 1, 0, 0], [0, 0, 0, 1]], dtype=np.int64).T,
    "N(C) ∩ N(1ᵀ)": np.array([[1, 0, -1, 0], [0, 1, 0, -1]], dtype=np.int64).T,
    "span(1,1,−1,−1)": np.array([[1, 1, -1, -1]], dtype=np.int64).T,
    "N(1ᵀ)": np.array([[1, -1, 0, 0], [0, 1, -1, 0], [0, 0, 1, -1]], dtype=np.int64).T,
}
NESTED = (("ℝ⁴", "N(C)"), ("N(C)", "N(C) ∩ N(1ᵀ)"), ("N(C) ∩ N(1ᵀ)", "span(1,1,−1,−1)"))
#: e^SUPPORT_EPS times any probability here exceeds 1: the hockey-stick at it is the mass where the other law is 0
SUPPORT_EPS = 700.0


def histograms(records: int = RECORDS) -> list[tuple[int, ...]]:
    """Every histogram of ``records`` rows over 4 values."""
    return [h for h in itertools.product(range(records + 1), repeat=4) if sum(h) == records]


def neighbours(records: int = RECORDS) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every ordered pair (h, h') of bounded neighbours: one row moves from value i to value j ≠ i."""
    pairs = []
    for h in histograms(records):
        for i, j in itertools.permutations(range(4), 2):
            if h[i]:
                other = list(h)
                other[i] -= 1
                other[j] += 1
                pairs.append((h, tuple(other)))
    return pairs


@lru_cache(maxsize=256)
def truncated_geometric(
    h: tuple[int, ...], eps: float, low: int, high: int, sensitivity: int = SENSITIVITY
) -> TruncatedLaw:
    """Return the law of clamp(h_i + DG(ε/sensitivity), low, high), independent over the 4 cells."""
    k = np.arange(low, high + 1)
    cells = []
    for hi in h:
        law = DoubleGeometric(eps / sensitivity)
        p = law.pmf(k - hi)
        p[0], p[-1] = law.cdf(low - hi), law.cdf(hi - high)  # P(e ≤ m) = P(e ≥ −m)
        cells.append(p)
    index = np.array(list(itertools.product(range(k.size), repeat=4)))
    probs = np.prod([cells[c][index[:, c]] for c in range(4)], axis=0)
    return TruncatedLaw(index + low, probs, 0.0)


def project(law: TruncatedLaw, basis) -> TruncatedLaw:
    """Return the law of Bᵀy for y ~ ``law``: the projection onto span(B), B = ``basis``."""
    return TruncatedLaw(law.points @ np.asarray(basis, dtype=np.int64), law.probs, law.outside)


def invariant_respecting(law: TruncatedLaw, h, C, along=None) -> TruncatedLaw:
    """Thm 3.1's h + P(y − h) for y ~ ``law``, scaled by D = C·along to stay integer.

    P = I − along C / (C·along) projects onto N = null(C) along ``along``; the theorem's orthogonal
    projection Π_N is ``along = C`` (the default). Every point meets C·(scaled release) = D C h.
    """
    C = np.asarray(C, dtype=np.int64)
    along = C if along is None else np.asarray(along, dtype=np.int64)
    D = int(C @ along)
    scaled = D * np.eye(C.size, dtype=np.int64) - np.outer(along, C)
    h = np.asarray(h, dtype=np.int64)
    return TruncatedLaw(D * h + (law.points - h) @ scaled.T, law.probs, law.outside)


def aligned(laws: Mapping) -> dict:
    """Return the laws' probabilities on one common index (the union of their supports, repeated points added).

    Aligning a family once lets every neighbour pair be compared by vector arithmetic:
    :meth:`isdp.privacy.TruncatedLaw.hockey_stick_bound` aligns each pair anew (38 s against 0.4 s on the composition's
    laws).
    """
    keys = list(laws)
    _, index = np.unique(np.vstack([laws[k].points for k in keys]), axis=0, return_inverse=True)
    index = index.ravel()
    size, out, start = index.max() + 1, {}, 0
    for k in keys:
        n = len(laws[k].points)
        out[k] = np.bincount(index[start : start + n], weights=laws[k].probs, minlength=size)
        start += n
    return out


def level(p: np.ndarray, q: np.ndarray) -> float:
    """Max ln p/q on an aligned index (∞ when p has mass where q has none)."""
    if TruncatedLaw.hockey_stick_divergence(p, q, SUPPORT_EPS) > 0:
        return float("inf")
    both = p > 0
    return float(np.max(np.log(p[both]) - np.log(q[both])))


def worst(vectors: Mapping, pairs, eps: float | None = None) -> float:
    """Over ordered neighbour pairs: the largest hockey-stick at ``eps``, or without ``eps`` the largest level."""
    if eps is None:
        return max(level(vectors[a], vectors[b]) for a, b in pairs)
    return max(TruncatedLaw.hockey_stick_divergence(vectors[a], vectors[b], eps) for a, b in pairs)


def _base(eps: float, records: int, sensitivity: int = SENSITIVITY, widen: int = 0) -> dict:
    """Return the base mechanism's law for every histogram, cells clamped to [−widen, records + widen]."""
    return {h: truncated_geometric(h, float(eps), -widen, records + widen, sensitivity) for h in histograms(records)}


def _projected(laws: Mapping, name: str, C=None, along=None) -> dict:
    """Each law (or its Thm 3.1 mechanism for ``C``) projected onto ``SUBSPACES[name]``, aligned."""
    if C is not None:
        laws = {h: invariant_respecting(law, h, C, along) for h, law in laws.items()}
    return aligned({h: project(law, SUBSPACES[name]) for h, law in laws.items()})


def dp_implies_subspace_dp(eps: float, records: int = RECORDS, sensitivity: int = SENSITIVITY) -> dict:
    """Cor 2.8: the base mechanism (DG scale ``sensitivity``/ε) on every subspace: name → (level, δ at ε)."""
    laws, pairs = _base(eps, records, sensitivity), neighbours(records)
    out = {}
    for name in SUBSPACES:
        v = _projected(laws, name)
        out[name] = (worst(v, pairs), worst(v, pairs, eps))
    return out


def projection_privacy(eps: float, records: int = RECORDS, along: Mapping | None = None) -> dict:
    """Thm 3.1 for Examples 2.4 (C = (1, 0, 1, 0)) and 2.3 (C = 1ᵀ).

    Name → (level on N, δ at ε on N, level on ℝ⁴, largest |C·release − D C h|). ``along``: name → direction of an
    oblique projection instead of Π_N.
    """
    laws, pairs = _base(eps, records), neighbours(records)
    out = {}
    for name, C, null in (("C = (1,0,1,0)", C_ODD, "N(C)"), ("C = 1ᵀ", C_TOTAL, "N(1ᵀ)")):
        d = (along or {}).get(name)
        released = {h: invariant_respecting(law, h, C, d) for h, law in laws.items()}
        D = int(C @ (C if d is None else np.asarray(d)))
        residual = max(int(np.abs(law.points @ C - D * (C @ h)).max()) for h, law in released.items())
        v_null = aligned({h: project(law, SUBSPACES[null]) for h, law in released.items()})
        v_full = aligned({h: project(law, SUBSPACES["ℝ⁴"]) for h, law in released.items()})
        out[name] = (worst(v_null, pairs), worst(v_null, pairs, eps), worst(v_full, pairs), residual)
    return out


def nestedness(eps: float, records: int = RECORDS, nested=NESTED) -> dict:
    """Prop 2.7 for the base mechanism and for its Thm 3.1 mechanism with C = (1, 0, 1, 0) (not DP on ℝ⁴).

    Mechanism → {"levels": name → level, "delta": largest δ on the smaller space at the larger one's level}.
    """
    laws, pairs = _base(eps, records), neighbours(records)
    out = {}
    for mechanism, C in (("base", None), ("Thm 3.1", C_ODD)):
        names = list(dict.fromkeys(n for pair in nested for n in pair))
        vectors = {n: _projected(laws, n, C) for n in names}
        levels = {n: worst(vectors[n], pairs) for n in names}
        finite = [(big, small) for big, small in nested if np.isfinite(levels[big])]
        out[mechanism] = {
            "levels": levels,
            "pairs": finite,
            "delta": max(worst(vectors[small], pairs, levels[big]) for big, small in finite),
        }
    return out


def composition(eps1: float, eps2: float, records: int = RECORDS) -> dict:
    """Return the joint law of Prop 2.9's two Thm 3.1 mechanisms on N(C₁) × N(C₂), run on the same data.

    The mechanisms are (hist, C = (1, 0, 1, 0)) at ε₁ and (hist, 1ᵀ) at ε₂, run independently. Returns the joint level
    and its δ at ε₁ + ε₂ and at max(ε₁, ε₂).
    """
    pairs = neighbours(records)
    first = _projected(_base(eps1, records), "N(C)", C_ODD)
    second = _projected(_base(eps2, records), "N(1ᵀ)", C_TOTAL)
    joint = {h: np.outer(first[h], second[h]).ravel() for h in first}
    return {
        "level": worst(joint, pairs),
        "delta_sum": worst(joint, pairs, eps1 + eps2),
        "delta_max": worst(joint, pairs, max(eps1, eps2)),
        "levels": (worst(first, pairs), worst(second, pairs)),
    }


#: post-processings acting on N(C) only: maps of the N-coordinates a (w = B a, B = SUBSPACES["N(C)"]); the
#: second argument, C·release, is the invariant component, which they ignore
ON_NULL_SPACE: dict[str, Callable] = {
    "each N-coordinate clipped at 0": lambda a, c: np.maximum(a, 0),
    "N-coordinates coarsened (floor a/3)": lambda a, c: a // 3,
}


def post_processing(eps: float, records: int = RECORDS, maps: Mapping[str, Callable] | None = None) -> dict:
    """Return the level and δ at ε on N(C) of L114's maps of Thm 3.1's release z, C = (1, 0, 1, 0).

    The maps are f(z) = Π_R z + B g(a, C z), a the coordinates of Π_N z in B = SUBSPACES["N(C)"]; name → (level, δ at ε)
    of f's output projected onto N(C).
    """
    laws, pairs = _base(eps, records), neighbours(records)
    B = SUBSPACES["N(C)"]
    D = int(C_ODD @ C_ODD)
    out = {}
    for name, g in (maps or ON_NULL_SPACE).items():
        projected = {}
        for h, law in laws.items():
            z = invariant_respecting(law, h, C_ODD).points
            c = z @ C_ODD  # = D C h: the invariant component, exactly
            w = z - np.outer(c // D, C_ODD)  # Π_N z (integer: C·z is divisible by D)
            a = w[:, [0, 1, 3]]  # w = B a on N(C), whose vectors have w_3 = −w_1
            released = (z - w) + g(a, c[:, None]) @ B.T
            projected[h] = project(TruncatedLaw(released, law.probs, law.outside), B)
        v = aligned(projected)
        out[name] = (worst(v, pairs), worst(v, pairs, eps))
    return out


def mixture(eps: float, weight, records: int = RECORDS) -> tuple[float, float]:
    """Return (level, δ at ε) on N(C) of L116's mixture of two Thm 3.1 releases.

    With probability λ Thm 3.1's release from cells clamped to [0, records], else from cells clamped to [−1, records +
    1] (both (ε, 0) on N(C), C = (1, 0, 1, 0)); ``weight``: λ, or h → λ.
    """
    pairs = neighbours(records)
    both = aligned(
        {
            (k, h): project(invariant_respecting(law, h, C_ODD), SUBSPACES["N(C)"])
            for k, widen in enumerate((0, 1))
            for h, law in _base(eps, records, widen=widen).items()
        }
    )
    lam = weight if callable(weight) else (lambda h: weight)
    mixed = {h: lam(h) * both[(0, h)] + (1 - lam(h)) * both[(1, h)] for h in histograms(records)}
    return worst(mixed, pairs), worst(mixed, pairs, eps)


def extension_converse(eps: float, records: int = RECORDS, translate: str = "row space") -> dict:
    """Return Thm 3.3's "only if" check of M̂(x) = 𝓜(x) − Π_R A(x) for Thm 3.1's release 𝓜.

    Thm 3.3 "only if": for Thm 3.1's release 𝓜 (induced subspace DP) with Examples 2.4's and 2.3's C, the mechanism
    M̂(x) = 𝓜(x) − Π_R A(x), kept as D M̂ = D 𝓜 − C (C·h) (integer, D = C·C). ``translate``: what is subtracted, ``row
    space`` (Π_R A(x), the theorem's), ``query`` (A(x)) or ``none``. Returns name → (largest |C·D M̂| over support
    points, level of M̂ on ℝ⁴, δ at ε on ℝ⁴ over every ordered neighbour pair).
    """
    laws, pairs = _base(eps, records), neighbours(records)
    out = {}
    for name, C in (("C = (1,0,1,0)", C_ODD), ("C = 1ᵀ", C_TOTAL)):
        D = int(C @ C)
        hat = {}
        for h, law in laws.items():
            released = invariant_respecting(law, h, C)
            shift = {"row space": C * int(C @ h), "query": D * np.asarray(h), "none": 0}[translate]
            hat[h] = TruncatedLaw(released.points - shift, released.probs, released.outside)
        residual = max(int(np.abs(law.points @ C).max()) for law in hat.values())
        v = aligned(hat)
        out[name] = (residual, worst(v, pairs), worst(v, pairs, eps))
    return out


def consistent_release(eps: float, records: int = RECORDS, total_from: str = "release") -> float:
    """§1 (internal consistency).

    The base release y (cells clamped to [0, records]: non-negative) together with a relational total, the 'school'
    count of records with an odd feature, y₁ + y₃ of the released cells (``total_from = "release"``) or C_ODD·h of the
    confidential histogram (``"data"``, an invariant). Returns the largest hockey-stick δ at ε of the joint release (y,
    total) on ℝ⁵ over every ordered neighbour pair.
    """
    laws = _base(eps, records)
    joint = {}
    for h, law in laws.items():
        total = law.points @ C_ODD if total_from == "release" else np.full(len(law.points), C_ODD @ np.asarray(h))
        joint[h] = TruncatedLaw(np.column_stack([law.points, total]), law.probs, law.outside)
    return worst(aligned(joint), neighbours(records), eps)
