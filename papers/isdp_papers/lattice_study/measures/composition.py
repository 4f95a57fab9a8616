"""Composition and post-processing (ISDP Props 6–7), measured exactly.

Two releases together, deterministic and randomized post-processing, releases that keep different invariants, and what
such releases let one infer together (§2 after Prop 7).
"""

from __future__ import annotations

import itertools

import numpy as np

from isdp_papers.claims import Measurement, Run
from isdp_papers.measure_helpers import fmt_list

from .privacy_theorems import _neighbour_cases


def composition_post_processing(run: Run, paper, *, eps: list[float], radius: int) -> Measurement:
    """ISDP Props 6–7 measured exactly.

    On a total of 2 cells with one person moving, the largest privacy loss of two independent exact ℓ1 releases at ε₁
    and ε₂ together (composition) and of post-processings of one release (its first cell; its cells clamped at 0), each
    over its stated budget ε‖x − x'‖₁ — (ε₁ + ε₂) and ε₁. The value is the largest ratio.
    """
    from fractions import Fraction

    from isdp.exact import IntegerL1Sampler
    from isdp.privacy import exact_route_noise

    A, x, v = np.ones((1, 2), dtype=np.int64), np.array([1, 2]), np.array([1, -1])
    d = float(np.abs(v).sum())
    e1, e2 = (Fraction(str(e)) for e in eps)
    sampler = IntegerL1Sampler.build(A)
    n1, n2 = (exact_route_noise(sampler, e, radius) for e in (e1, e2))
    pairs = {
        "both releases": (
            n1.shifted(x).product(n2.shifted(x)),
            n1.shifted(x + v).product(n2.shifted(x + v)),
            float(e1 + e2),
        ),
        "the first's first cell": (
            n1.shifted(x).pushforward(lambda y: y[:1]),
            n1.shifted(x + v).pushforward(lambda y: y[:1]),
            float(e1),
        ),
        "the first clamped at 0": (
            n1.shifted(x).pushforward(lambda y: np.maximum(y, 0)),
            n1.shifted(x + v).pushforward(lambda y: np.maximum(y, 0)),
            float(e1),
        ),
    }
    ratios, parts = [], []
    for name, (p, q, budget) in pairs.items():
        loss = max(p.max_privacy_loss(q), q.max_privacy_loss(p))
        ratios.append(loss / (budget * d))
        parts.append(f"{name}: largest loss {loss:.6f} against {budget:g} × {d:g}")
    return Measurement(max(ratios), f"largest loss / budget = {max(ratios):.6f} ({'; '.join(parts)})", n=len(ratios))


def composition_relations(
    run: Run, paper, *, route: str, scales: list[float], radius: int, eps_grid: list[float], rule: str = "sum"
) -> Measurement:
    """ISDP Prop 6 across two different invariants.

    Release 1 keeps A₁ = (1, 1, 0), release 2 keeps A₂ = (0, 1, 1) (3 cells), and x, x' = x + (1, −1, 1) meet both (x ~₁
    x' and x ~₂ x'). Both releases' laws are enumerated from their construction (:func:`isdp.privacy.exact_route_noise`)
    and their product (run together on the same data) compared with the composition's guarantee. ``route`` "l1": the
    exact ℓ1 routes at ε = ``scales``; the value is the product's largest privacy loss over the composed budget — (ε₁ +
    ε₂)‖x − x'‖₁ (``rule`` "sum") or max(ε₁, ε₂)‖x − x'‖₁ ("max"). ``route`` "gaussian": the Gaussian routes at σ =
    ``scales``, each (εᵢ, δᵢ(εᵢ))-DP for every εᵢ with δᵢ its hockey-stick divergence; for each (ε₁, ε₂) on ``eps_grid``
    × ``eps_grid`` the value is the product's δ at ε₁ + ε₂ less δ₁ + δ₂ ("sum") or max(δ₁, δ₂) ("max"), less the boxes'
    truncation slack; the largest over the grid.
    """
    from fractions import Fraction

    from isdp.exact import IntegerL1Sampler
    from isdp.privacy import TruncatedLaw, exact_route_noise
    from isdp_papers.lattice_study.dp_audits import max_log_ratio, product_ratio_arrays

    combine = {"sum": lambda a, b: a + b, "max": max}[rule]
    x, v = np.array([2, 1, 3]), np.array([1, -1, 1])
    d = float(np.abs(v).sum())
    laws = []
    for A, scale in zip((np.array([[1, 1, 0]]), np.array([[0, 1, 1]])), scales, strict=True):
        sampler, s = IntegerL1Sampler.build(A), Fraction(str(scale))
        law = (
            exact_route_noise(sampler, s, radius)
            if route == "l1"
            else exact_route_noise(sampler, 1 / s, radius, sigma=s)
        )
        laws.append((law.shifted(x), law.shifted(x + v)))
    a, b = product_ratio_arrays(laws)
    if route == "l1":
        losses = [p.max_privacy_loss(q) for p, q in laws]
        loss = max_log_ratio(a, b)
        budget = combine(*scales) * d
        return Measurement(
            loss / budget,
            f"largest loss of the two releases together {loss:.9f} against "
            f"{rule}(ε₁, ε₂)‖v‖₁ = {budget:g} (ε = {scales[0]:g}, {scales[1]:g}; each "
            f"release alone {losses[0]:.6f}, {losses[1]:.6f}; ‖v‖₁ = {d:g})",
            n=2,
        )
    slack = laws[0][0].outside + laws[1][0].outside
    worst, at = -np.inf, None
    for e1, e2 in itertools.product(eps_grid, repeat=2):
        parts = [
            TruncatedLaw.hockey_stick_divergence(*p.aligned_with(q), e)
            for (p, q), e in zip(laws, (e1, e2), strict=True)
        ]
        joint = TruncatedLaw.hockey_stick_divergence(a, b, e1 + e2)
        excess = joint - combine(*parts) - slack * (1 + np.exp(e1 + e2))
        if excess > worst:
            worst, at = excess, (e1, e2, joint, parts)
    e1, e2, joint, parts = at
    return Measurement(
        worst,
        f"largest δ(ε₁ + ε₂) − {rule}(δ₁(ε₁), δ₂(ε₂)) = {worst:.2e} over a {len(eps_grid)}² grid "
        f"of (ε₁, ε₂) (σ = {scales[0]:g}, {scales[1]:g}); at ε₁ = {e1:g}, ε₂ = {e2:g}: product "
        f"{joint:.4f}, parts {parts[0]:.4f}, {parts[1]:.4f}; truncation allowance "
        f"{slack * (1 + np.exp(2 * max(eps_grid))):.1e} at the largest ε₁ + ε₂",
        n=len(eps_grid) ** 2,
    )


def post_processing_randomized(
    run: Run, paper, *, sigma: float, radius: int, eps_grid: list[float], reads_data: bool = False
) -> Measurement:
    """ISDP Prop 7 with a randomized map and δ > 0.

    The release's Gaussian route at σ on a total of 3 cells, one person moving (x = (1, 0, 2), x' = x + (−1, 1, 0)), its
    law enumerated from its construction; the release is (ε′, δ(ε′))-DP for every ε′, δ its hockey-stick divergence. Two
    randomized maps: the first cell plus independent double geometric noise (ε = 1); one cell chosen uniformly at
    random. ``reads_data`` makes the first map add the confidential first cell as well (a map that reads x: not a
    post-processing). The value is the largest δ_post(ε′) − δ(ε′) over the maps and ``eps_grid``, less the truncation
    slack.
    """
    from fractions import Fraction

    from isdp.exact import IntegerL1Sampler
    from isdp.mcmc import DoubleGeometric
    from isdp.privacy import TruncatedLaw, exact_route_noise
    from isdp_papers.lattice_study.dp_audits import add_noise, compact, randomized_map

    sig = Fraction(str(sigma))
    A, x, v = (np.asarray(c) for c in _neighbour_cases()["a total of 3 cells, one person moves"])
    law = exact_route_noise(IntegerL1Sampler.build(A), 1 / sig, radius, sigma=sig)
    support = np.arange(-40, 41)
    noise = DoubleGeometric(1.0).pmf(support)

    def first_cell_noisy(xs):
        shift = xs[0] if reads_data else 0
        return lambda p: add_noise(compact(randomized_map(p, [(lambda y: y[:, :1] + shift, 1.0)])), noise, support)

    maps = {
        "first cell + DG(1)": first_cell_noisy,
        "a random cell": lambda xs: (
            lambda p: randomized_map(p, [(lambda y, c=c: y[:, c : c + 1], 1 / 3) for c in range(3)])
        ),
    }
    p, q = law.shifted(x), law.shifted(x + v)
    base = [
        TruncatedLaw.hockey_stick_divergence(*p.aligned_with(q), e) for e in eps_grid
    ]  # the release's δ(ε′) on the box
    worst, parts = -np.inf, []
    for name, make in maps.items():
        fp, fq = make(x)(p), make(x + v)(q)
        a, b = fp.aligned_with(fq)
        excess = [
            TruncatedLaw.hockey_stick_divergence(a, b, e) - d - fp.truncation_slack(fq, e)
            for e, d in zip(eps_grid, base, strict=True)
        ]
        worst = max(worst, max(excess))
        parts.append(f"{name}: largest {max(excess):.2e}")
    return Measurement(
        worst,
        f"largest δ_post(ε′) − δ(ε′) = {worst:.2e} at σ = {sigma:g} over ε′ in "
        f"{fmt_list(eps_grid)} ({'; '.join(parts)}); the release's δ(ε′) "
        + ", ".join(f"{b:.3f}" for b in base)
        + (" (map reads x)" if reads_data else ""),
        n=len(maps) * len(eps_grid),
    )


def joint_invariant_inference(
    run: Run, paper, *, invariants: list[list[int]], quantity: list[int], box: int
) -> Measurement:
    """ISDP §2 after Prop 7.

    Mechanisms that keep different invariants, released together, let one infer what neither reveals. Each mechanism
    discloses its invariant A_i x exactly (A_i M_i(x) = A_i x); over every table x in {0, …, ``box``}^n, whether the
    disclosed values determine ``quantity``·x: from each invariant alone (some x shares its A_i x with an x' of another
    quantity) and from all together. The value: {alone, together}, true where the quantity is determined at every x.
    """
    A = [np.atleast_2d(np.asarray(a, dtype=np.int64)) for a in invariants]
    q = np.asarray(quantity, dtype=np.int64)
    xs = np.array(list(itertools.product(range(box + 1), repeat=q.size)), dtype=np.int64)

    def determined(rows) -> bool:
        keys = np.hstack([xs @ a.T for a in rows])
        seen: dict[bytes, set] = {}
        for key, value in zip(keys, xs @ q, strict=True):
            seen.setdefault(key.tobytes(), set()).add(int(value))
        return all(len(v) == 1 for v in seen.values())

    value = {"alone": [determined([a]) for a in A], "together": determined(A)}
    return Measurement(
        value,
        f"{len(xs):,} tables in {{0…{box}}}^{q.size}, quantity {q.tolist()}·x: determined by "
        + ", ".join(f"{a.tolist()} alone: {'yes' if d else 'no'}" for a, d in zip(A, value["alone"], strict=True))
        + f"; by all together: {'yes' if value['together'] else 'no'}",
    )
