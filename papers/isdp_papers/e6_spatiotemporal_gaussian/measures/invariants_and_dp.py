"""Measures of what Subspace DP says about invariants and DP (§1, §2, §3.1, §6).

Which invariants defeat DP, which mechanisms can keep them, and what composed invariants reveal.

Statements: Example 2.4's event, on which no ε bounds the ratio (``example_24_ratio``); nontrivial invariants force
δ = 1 (``invariant_dp_incompatibility``, §1); no data-independent additive noise keeps binary records' invariant
(``binary_invariant_additive_noise``, §6); the exponential mechanism is not additive
(``exponential_not_additive``, §3.1); two margins identify tables one does not (``margins_linkage``, §2.3);
independent rows give the same invariant (``independent_rows_equivalence``, footnote 1).
"""

from __future__ import annotations

import numpy as np

from isdp_papers.claims import Measurement, Run


def example_24_ratio(run: Run, paper, *, domain, invariant, x, x_prime, value: int) -> Measurement:
    """Subspace DP Example 2.4.

    P[M(x) ∈ S] / P[M(x') ∈ S] for S = {y : C y = value} under any mechanism that keeps the invariant C. Named values:
    ``neighbours`` (x and x' have the same size and differ in exactly one row, Def 2.1), ``ratio_unbounded`` (C hist(x)
    = value ≠ C hist(x')) and ``smallest_delta``, inf over ε > 0 of max(0, P[M(x) ∈ S] − e^ε P[M(x') ∈ S]): the δ below
    which no ε makes the DP inequality hold on S.
    """

    def c_hist(db):
        hist = np.array([sum(1 for r in db if r == z) for z in domain])
        return int(np.dot(invariant, hist))

    rows_differ = sum(a != b for a, b in zip(x, x_prime, strict=False))
    neighbours = len(x) == len(x_prime) and rows_differ == 1
    cx, cxp = c_hist(x), c_hist(x_prime)
    p, p_prime = float(cx == value), float(cxp == value)
    unbounded = p > 0 and p_prime == 0
    smallest_delta = p if p_prime == 0 else 0.0  # e^ε P[M(x') ∈ S] grows without bound unless it is 0
    ratio = "∞" if unbounded else (p / p_prime if p_prime else "undefined")
    return Measurement(
        {"neighbours": neighbours, "ratio_unbounded": unbounded, "smallest_delta": smallest_delta},
        f"sizes {len(x)}, {len(x_prime)}, {rows_differ} row(s) differ; C hist(x) = {cx}, C hist(x') = "
        f"{cxp}: P[M(x) ∈ S] = {p:g}, P[M(x') ∈ S] = {p_prime:g}, ratio {ratio}; (ε, δ)-DP on S needs "
        f"δ ≥ {smallest_delta:g} at every ε",
    )


def invariant_dp_incompatibility(run: Run, paper, *, eps: float, sizes: list[int], entries: list[int]) -> Measurement:
    """Measure §1 and §2.2: the smallest δ DP can reach beside a nontrivial linear invariant.

    §1 and §2.2: DP and a linear invariant on databases over X = {1, 2, 3, 4}, A = hist, Def 2.1's neighbours (one row
    changes, the size stays). For every one-row C with entries in ``entries`` (not all 0): C is *nontrivial* when C
    hist(x) is not constant over the databases of the sizes in ``sizes``; its *forced δ* is 1 when some neighbour pair
    has C hist(x) ≠ C hist(x') — Example 2.4's event {y : C y = C hist(x)} then has probability 1 under x and 0 under x'
    for every mechanism that keeps C, so no ε makes δ < 1 — else 0 (no bound). Value: the smallest forced δ over the
    nontrivial invariants. Beside it, Thm 3.1's release for 1ᵀ on ℝ⁴ (exact level).
    """
    import itertools

    from isdp_papers.e6_spatiotemporal_gaussian import subspace_exact as se

    hists = np.array([h for n in sizes for h in se.histograms(n)])
    steps = np.array([np.subtract(h, hp) for n in sizes for h, hp in se.neighbours(n)]).reshape(-1, 4)
    forced, nontrivial = {}, []
    for C in itertools.product(entries, repeat=4):
        if any(C) and np.ptp(hists @ C) > 0:
            nontrivial.append(C)
            forced[C] = float((steps @ C != 0).any())
    worst = min(forced.values())
    free = [C for C in nontrivial if forced[C] == 0]
    level_total = se.projection_privacy(eps)["C = 1ᵀ"][2]
    return Measurement(
        worst,
        f"{len(nontrivial)} nontrivial invariants (databases of {', '.join(map(str, sizes))} "
        f"rows): smallest forced δ {worst:g}"
        + (f"; not forced for {len(free)}, e.g. {free[:3]}" if free else "")
        + f"; Thm 3.1's release for 1ᵀ (constant on neighbours) is {level_total / eps:.6f} ε-DP "
        f"on ℝ⁴ at ε = {eps:g}",
        note=f"{(len(entries) ** 4) - 1} one-row invariants C ∈ {{{', '.join(map(str, entries))}}}⁴ "
        "\\ {0}; on databases of every size the total 1ᵀ hist is nontrivial but constant on "
        "Def 2.1's neighbours, and DP with it is possible",
        n=len(nontrivial),
    )


def binary_invariant_additive_noise(run: Run, paper, *, sizes: list[int], outputs: str = "binary") -> Measurement:
    """§6: binary records x ∈ {0, 1}ⁿ with the invariant Σ x = k.

    An additive mechanism x + e whose noise e does not depend on x must put every x of the invariant's fibre {x : Σ x =
    k} on an allowed output (``binary``: {0, 1}ⁿ; ``integer``: ℤⁿ, the linear case) with Σ e = 0. Value: the number of
    nonzero such e over every n in ``sizes`` and every k (brute force over e ∈ {−2, …, 2}ⁿ, which holds every candidate
    for binary outputs, where |e_i| ≤ 1; for ``integer`` outputs every zero-sum e qualifies, and the value only counts
    those in that box).
    """
    import itertools

    found, parts = 0, []
    for n in sizes:
        noises = np.array([e for e in itertools.product(range(-2, 3), repeat=n) if any(e) and sum(e) == 0])
        for k in range(n + 1):
            fibre = np.array([x for x in itertools.product((0, 1), repeat=n) if sum(x) == k])
            out = fibre[None, :, :] + noises[:, None, :]  # (noises, fibre, n)
            ok = ((out == 0) | (out == 1)).all(axis=(1, 2)) if outputs == "binary" else np.ones(len(noises), bool)
            found += int(ok.sum())
            parts.append(f"n = {n}, k = {k}: {int(ok.sum())}")
    return Measurement(
        found,
        f"{found} nonzero data-independent noise vectors keep {outputs} outputs and Σ = k (" + "; ".join(parts) + ")",
        note="the only one left, e = 0, releases x itself",
    )


def margins_linkage(
    run: Run, paper, *, shapes: list[list[int]], max_total: int, second: str = "columns"
) -> Measurement:
    """§2.3 after Prop 2.9: an age × zip table with C₁ its row (age) margins and C₂ its column (zip) margins.

    Every table of each shape in ``shapes`` with 1 to ``max_total`` individuals is grouped by C₁ alone and by (C₁, C₂)
    (``second = "rows"``: C₂ = C₁ again, no new information). Value: the number of tables whose cells, hence every
    individual's age and zip, the two invariants fix (a fibre of one table) while C₁ alone does not.
    """
    import itertools
    from collections import Counter

    linked, parts = 0, []
    for r, c in shapes:
        tables = np.array(
            [t for t in itertools.product(range(max_total + 1), repeat=r * c) if 1 <= sum(t) <= max_total]
        ).reshape(-1, r, c)
        rows = [tuple(t) for t in tables.sum(axis=2)]
        both = [
            (a, tuple(t))
            for a, t in zip(rows, tables.sum(axis=1) if second == "columns" else tables.sum(axis=2), strict=True)
        ]
        fibre_one, fibre_both = Counter(rows), Counter(both)
        fixed = np.array([fibre_both[k] == 1 and fibre_one[a] > 1 for a, k in zip(rows, both, strict=True)])
        degenerate = np.array([(t > 0).any(axis=1).sum() == 1 or (t > 0).any(axis=0).sum() == 1 for t in tables])
        linked += int(fixed.sum())
        parts.append(
            f"{r} × {c}: {int(fixed.sum())} of {len(tables)} tables fixed by both margins, not by the "
            f"age margin alone ({int((fixed & degenerate).sum())} of them with every individual in one row "
            f"or one column); mean fibre {np.mean([fibre_one[a] for a in rows]):.1f} tables under the age "
            f"margin, {np.mean([fibre_both[k] for k in both]):.1f} under both"
        )
    return Measurement(
        linked,
        f"{linked} tables identified by composing the margins — " + "; ".join(parts),
        note=f"tables of 1 to {max_total} individuals; C₂ = {second} margins",
    )


def independent_rows_equivalence(
    run: Run, paper, *, groups: int, hours: int, buildings: int, drop: int = 0
) -> Measurement:
    """Footnote 1 on §5.2's invariants.

    Per building (the constraints of different buildings share no cell), C′ = the rows of C that QR with column pivoting
    of Cᵀ picks as independent (rank-many, minus ``drop``). Value: the largest of ‖C − T C′‖_max with T = C C′⁺ (C from
    C′ by a linear map) and ‖Π_N(C) − Π_N(C′)‖_max (the same null space, so the same mechanisms) over the buildings.
    """
    import scipy.linalg

    from isdp_papers.e6_spatiotemporal_gaussian.problem import group_hour_building_constraints

    A, _ = group_hour_building_constraints(groups, hours, buildings)
    cells = np.arange(A.shape[1])
    worst, ranks, seen = 0.0, [], {}
    for b in range(buildings):
        block = A[:, cells % buildings == b]
        block = block[np.abs(block).sum(axis=1) > 0].astype(float)
        if block.tobytes() not in seen:  # identical blocks (every building here) give identical results
            q, r, piv = scipy.linalg.qr(block.T, mode="economic", pivoting=True)
            rank = int((np.abs(np.diag(r)) > np.abs(r[0, 0]) * 1e-10).sum())
            sub = block[np.sort(piv[: rank - drop])]
            q_sub, r_sub = np.linalg.qr(sub.T)  # sub has full row rank: sub = r_subᵀ q_subᵀ
            T = block @ q_sub @ np.linalg.inv(r_sub).T  # T C′ = C Q_sub Q_subᵀ, C itself when C′ spans C's rows
            gap = max(
                float(np.abs(block - T @ sub).max()),  # and Π_N = I − QQᵀ: compare the row-space projectors
                float(np.abs(q[:, :rank] @ q[:, :rank].T - q_sub @ q_sub.T).max()),
            )
            seen[block.tobytes()] = (gap, (block.shape[0], rank, sub.shape[0]))
        gap, shape = seen[block.tobytes()]
        worst = max(worst, gap)
        ranks.append(shape)
    rows, rank, kept = (sum(x[i] for x in ranks) for i in range(3))
    return Measurement(
        worst,
        f"{rows} rows of rank {rank}; C′ keeps {kept} rows ({buildings} building blocks): "
        f"largest |C − T C′| or projector gap {worst:.1e} ({len(seen)} distinct block(s))",
        n=buildings,
    )


def exponential_not_additive(
    run: Run, paper, *, eps: float, n_max: int, counts: list[int], bounded: bool = True
) -> Measurement:
    """Subspace DP §3.1: the exponential mechanism is in general not additive.

    For a count released on the range {0, …, ``n_max``} (``bounded``) with utility −|y − x| (sensitivity 1), P(y | x) ∝
    exp(−ε|y − x|/2), the exact law of the error y − x at each count in ``counts``; the value is the largest total
    variation distance between two of them (0 for an additive mechanism, whose error law is the same at every x).
    Without ``bounded`` the range is every integer (a box of half-width 60/ε around x, the rest below e^-30), where the
    mechanism is a double geometric one: additive.
    """

    def error_law(x):
        lo, hi = (0, n_max) if bounded else (x - int(60 / eps), x + int(60 / eps))
        y = np.arange(lo, hi + 1)
        w = np.exp(-eps * np.abs(y - x) / 2)
        return dict(zip((y - x).tolist(), w / w.sum(), strict=True))

    laws = {x: error_law(x) for x in counts}
    tv = 0.0
    for a in counts:
        for b in counts:
            keys = set(laws[a]) | set(laws[b])
            tv = max(tv, 0.5 * sum(abs(laws[a].get(k, 0.0) - laws[b].get(k, 0.0)) for k in keys))
    return Measurement(
        tv,
        f"{'range {0, …, ' + str(n_max) + '}' if bounded else 'every integer'}, ε = {eps:g}, "
        f"counts {counts}: the error laws are up to {tv:.3f} apart in total variation "
        f"(mean error at x = {counts[0]}: {sum(k * p for k, p in laws[counts[0]].items()):.2f}, at "
        f"x = {counts[-1]}: {sum(k * p for k, p in laws[counts[-1]].items()):.2f})",
    )
