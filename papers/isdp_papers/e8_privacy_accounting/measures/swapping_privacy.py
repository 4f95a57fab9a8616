"""Measures of the Swapping slides' privacy statements about permutation swapping, and of their definitions.

The statements are checked by exact enumeration on small strata (:mod:`isdp_papers.e8_privacy_accounting.swap_audit`).

Statements: swapping satisfies DP subject to its invariants with ε = ln(b + 1) − ln o (``swap_privacy_audit``) and
the proof sketch's steps (``swap_proof_sketch``); invariants and common support (``swap_invariant_support``); the
restricted data universe's (1) and (3) (``invariant_release``, ``swap_varies_needs_budget``); the total PLB of
derived products (``swap_derived_products``); the swapping visualisation (``swap_visualisation``); the shortest-path
extension of neighbours, d_HAM^u (``hamming_extension``, ``slides_distances``).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

from isdp_papers.claims import Measurement, Run
from isdp_papers.e8_privacy_accounting.measures._common import _strata


def swap_privacy_audit(run: Run, paper, *, strata: list, rates: list[float]) -> Measurement:
    """Measure the slides' budget ε(p, b) against the exact worst privacy loss of permutation swapping.

    The loss is per unit of Hamming distance, enumerated on small strata
    (:mod:`isdp_papers.e8_privacy_accounting.swap_audit`): the largest ratio loss / ε(p, b) over the strata and swap
    rates, where the bound is attained, and how loose it is on the branch p ≤ 1/2 (the one every printed table uses).
    """
    from isdp_papers.e8_privacy_accounting.accounting import swapping_epsilon
    from isdp_papers.e8_privacy_accounting.swap_audit import worst_loss_per_unit

    ratios, slack = {}, {}
    for h, k in strata:
        for p in rates:
            loss, eps = worst_loss_per_unit(h, k, p), swapping_epsilon(p, len(h))
            ratios[(tuple(h), tuple(k), p)] = loss / eps
            if p <= 0.5:
                slack[(tuple(h), p)] = eps - loss
    worst = max(ratios.values())
    attained = [f"p = {p:g} (h {list(h)})" for (h, _, p), r in ratios.items() if r > 1 - 1e-9]
    (h_min, p_min), least = min(slack.items(), key=lambda kv: kv[1])
    sizes = sorted({len(h) for h, _ in strata})
    return Measurement(
        worst,
        f"largest exact loss / ε(p, b) = {worst:.6f} over {len(strata)} strata (b = "
        f"{', '.join(map(str, sizes))}) × {len(rates)} rates; attained at "
        + (", ".join(attained) if attained else "none")
        + f"; smallest ratio {min(ratios.values()):.3f}. On p ≤ 1/2 never attained: ε(p, b) "
        f"exceeds the exact loss by {least:.3f} to {max(slack.values()):.3f} (least at b = "
        f"{len(h_min)}, p = {p_min:g})",
        n=len(ratios),
        note=f"on p ≤ 1/2 the formula is tested as an upper bound only: a formula up to {least:.3f} "
        "smaller there would pass too",
    )


def swap_proof_sketch(run: Run, paper, *, strata: list, rates: list[float]) -> Measurement:
    """Measure the steps of the slides' proof sketch that permutation swapping is DP, exactly on small strata.

    The steps are enumerated by :func:`isdp_papers.e8_privacy_accounting.swap_audit.proof_sketch_audit`: x = ρ(x') for a
    derangement ρ of m = d_HAM^u(x, x') records; m_σ − m ≤ m_σ' ≤ m_σ + m for σ' = σ ∘ ρ; Pr(σ)/Pr(σ') = o^(m_σ − m_σ')
    times the ratio of the derangement numbers of m_σ' and m_σ records; that ratio at most o^−m (b + 1)^m at the
    ``rates``.
    """
    from isdp_papers.e8_privacy_accounting.swap_audit import proof_sketch_audit

    audits = [proof_sketch_audit(h, k, rates) for h, k in strata]
    total = {
        key: sum(a[key] for a in audits)
        for key in ("pairs", "distance_mismatches", "unreachable", "rhos", "support_violations")
    }
    worst = {key: max(a[key] for a in audits) for key in ("identity_deviation", "bound_ratio", "law_deviation")}
    value = {
        "derangement_of_m_records": total["distance_mismatches"] + total["unreachable"] == 0,
        "m_sigma_within_m": total["support_violations"] == 0,
        "ratio_in_derangement_numbers": worst["identity_deviation"] < 1e-9,
        "ratio_within_bound": worst["bound_ratio"] <= 1 + 1e-9,
    }
    bounds = ", ".join(f"b = {len(h)}: {a['bound_ratio']:.3f}" for (h, _), a in zip(strata, audits, strict=True))
    return Measurement(
        value,
        f"{len(strata)} strata (b = {', '.join(str(len(h)) for h, _ in strata)}), "
        f"{total['pairs']:,} ordered pairs of one universe: the fewest records a permutation "
        f"moves to turn x' into x differs from d_HAM^u(x, x') at {total['distance_mismatches']} "
        f"(unreachable datasets {total['unreachable']}); over the {total['rhos']} such ρ and "
        f"every σ, m_σ − m ≤ m_σ' ≤ m_σ + m fails {total['support_violations']} times; "
        f"Pr(σ)/Pr(σ') against o^(m_σ − m_σ') D(m_σ')/D(m_σ): largest relative gap "
        f"{worst['identity_deviation']:.1e}; largest Pr(σ)/Pr(σ') / (o^−m (b + 1)^m) at p = "
        f"{', '.join(f'{p:g}' for p in rates)}: {bounds}",
        n=total["pairs"],
        note=f"the permutation law's image on a dataset agrees with the output law "
        f"SWAP-E8-permutation-dp audits to {worst['law_deviation']:.0e}",
    )


def swap_invariant_support(run: Run, paper, *, strata: list, rates: list[float]) -> Measurement:
    """Permutation swapping's outputs against its invariants, exactly on small strata.

    Whether every output keeps the multisets of h and k, whether the datasets of one universe share their support
    (finite loss), and whether a dataset one record away with another k value (other invariants) shares any output with
    it (a value of k outside the stratum's included).
    """
    from isdp_papers.e8_privacy_accounting.swap_audit import support_audit

    totals: dict[str, int] = {}
    for h, k in strata:
        for p in rates:
            for key, v in support_audit(h, k, p, sorted(set(k)) + [max(k) + 1]).items():
                totals[key] = totals.get(key, 0) + v
    value = {
        "invariants_kept": totals["outputs_breaking_invariants"] == 0,
        "common_support_within": totals["support_mismatches_within"] == 0,
        "common_support_across": totals["shared_support_across"] > 0,
    }
    return Measurement(
        value,
        f"{len(strata)} strata × {len(rates)} rates, {totals['datasets']} datasets: "
        f"{totals['outputs_breaking_invariants']} outputs break an invariant; "
        f"{totals['support_mismatches_within']} pairs of one universe differ in support; "
        f"{totals['shared_support_across']} of {totals['pairs_across']} pairs one record apart "
        "with different invariants share an output (none: total variation 1, so "
        "d_MULT = D_nor = ∞)",
        n=totals["datasets"],
    )


def invariant_release(run: Run, paper, *, strata: list, release: str, rate: float) -> Measurement:
    """'T(x) = c(x), releasing the invariants exactly, has budget 0'.

    The exact worst loss per unit of distance of T over the universes of small strata of permutation swapping (c the
    multisets of h and k). ``release``: ``invariants`` (T = c) or ``swapped`` (the stratum swapped at ``rate``, beside
    it).
    """
    from isdp_papers.e8_privacy_accounting.swap_audit import invariants, worst_loss_per_unit

    law = {"invariants": lambda x, _: {invariants(x): 1.0}, "swapped": None}[release]
    losses = {len(h): worst_loss_per_unit(h, k, rate, law) for h, k in _strata(strata)}
    worst = max(losses.values())
    return Measurement(
        worst,
        f"T releases the {release}: worst loss per unit over the universes of "
        + ", ".join(f"b = {b}: {v:.4f}" for b, v in losses.items()),
        n=len(losses),
    )


def swap_varies_needs_budget(
    run: Run, paper, *, strata: list, rates: list[float], compare: str = "dataset"
) -> Measurement:
    """Return the slides' statement (3) applied to permutation swapping.

    A mechanism that varies within a universe (some x, x' of it at finite distance with P_x ≠ P_x') has a budget ε > 0
    when d_Pr is a metric. Exactly, on every (stratum, rate) case of the registry's set, whether swapping varies (the
    largest total variation between datasets of the universe) and its exact budget, the worst loss per unit of distance;
    the value is the smallest budget over every case, so a case where the mechanism does not vary reads 0. ``compare``:
    what d_Pr compares, the swapped stratum (``dataset``: d_MULT, a metric) or only its invariants (``invariants``: a
    pseudometric, which the statement excludes).
    """
    from isdp_papers.e8_privacy_accounting.swap_audit import invariants, loss_per_unit, universe_log_laws

    cases = []  # (budget, total variation, b, repeated values, p)
    for h, k in _strata(strata):
        for p in rates:
            log_p, distance = universe_log_laws(h, k, p)
            prob = np.exp(log_p)
            tv = 0.5 * float(np.max(np.abs(prob[:, None, :] - prob[None, :, :]).sum(axis=2)))
            if compare == "invariants":
                log_p = universe_log_laws(h, k, p, lambda x, _: {invariants(x): 1.0})[0]
            cases.append((loss_per_unit(log_p, distance), tv, len(h), len(set(k)) < len(k), p))

    def label(case):
        return f"b = {case[2]}{' (repeated values)' if case[3] else ''}, p = {case[4]:g}"

    least = min(cases)
    constant = [f"{label(c)} (budget {c[0]:.1e})" for c in cases if c[1] <= 1e-12]
    return Measurement(
        least[0],
        f"{len(cases) - len(constant)} of {len(cases)} (stratum, rate) cases vary within "
        f"their universe; smallest exact budget {least[0]:.4f} ({label(least)}, largest "
        f"total variation {least[1]:.3f}); d_Pr compares the {compare}",
        note="cases that do not vary (every dataset of the universe has the same law, so ε = 0 is "
        "allowed and the premise of (3) fails): " + ("; ".join(constant) or "none"),
        n=len(cases),
    )


def swap_derived_products(
    run: Run, paper, *, strata: list, rates: list[float], products: list[str], leak: float = 0.0
) -> Measurement:
    """Return 'The total PLB for all data products derived from the swapped dataset'.

    The exact worst loss per unit of distance of products computed from the swapped stratum (records h = (a, c),
    swapping variable k) over the slides' ε(p, b), the value the largest ratio. ``products``: ``dataset`` (the swapped
    stratum itself), ``a_by_k`` and ``c_by_k`` (the two-way counts with one of h's variables dropped), ``k`` (the k
    margin). ``leak``: the share of releases computed from the unswapped stratum instead (a product not derived from the
    swapped dataset alone).
    """
    from collections import Counter

    from isdp_papers.e8_privacy_accounting.accounting import swapping_epsilon
    from isdp_papers.e8_privacy_accounting.swap_audit import worst_loss_per_unit

    derive = {
        "dataset": lambda w: w,
        "a_by_k": lambda w: tuple(sorted(Counter((h[0], k) for h, k in w).items())),
        "c_by_k": lambda w: tuple(sorted(Counter((h[1], k) for h, k in w).items())),
        "k": lambda w: tuple(sorted(k for _, k in w)),
    }

    def release(f):
        def law_of(x, law):
            out: dict = {}
            for w, q in law.items():
                out[f(w)] = out.get(f(w), 0.0) + (1 - leak) * q
            out[f(x)] = out.get(f(x), 0.0) + leak
            return out

        return law_of

    ratios = {
        (len(h), p, name): worst_loss_per_unit(h, k, p, release(derive[name])) / swapping_epsilon(p, len(h))
        for h, k in _strata(strata)
        for p in rates
        for name in products
    }
    worst = max(ratios.values())
    per_product = "; ".join(f"{name} {max(r for (_, _, n), r in ratios.items() if n == name):.4f}" for name in products)
    leaked = f" (a share {leak:g} from the unswapped data)" if leak else ""
    return Measurement(
        worst,
        f"largest exact loss / ε(p, b) per product over {len(strata)} strata × {len(rates)} "
        f"rates: {per_product}{leaked}",
        n=len(ratios),
    )


def swap_visualisation(
    run: Run,
    paper,
    *,
    columns: list[str],
    before: list,
    after: list,
    v_match: list[str],
    v_swap: list[str],
    table: list[str],
) -> Measurement:
    """Return the slides' swapping visualisation, from its printed records (row i before the swap is row i after).

    Whether the records that changed share their swap key ``v_match`` and changed only in ``v_swap`` (their values
    permuted), whether both invariants (the multisets of V_Hold = every column but ``v_swap``, and of V_Match × V_Swap)
    are kept, and the change of the ``table`` contingency table the records give, in every cell that changed or for
    which ``paper["changes"]`` prints a change.
    """
    b, a = (pd.DataFrame(rows, columns=columns) for rows in (before, after))
    changed = (b != a).any(axis=1)
    hold = [c for c in columns if c not in v_swap]
    only_swap = bool((b.loc[changed, hold] == a.loc[changed, hold]).all(axis=None))
    permuted = sorted(map(tuple, b.loc[changed, v_swap].values)) == sorted(map(tuple, a.loc[changed, v_swap].values))
    share_key = bool(changed.sum() >= 2 and len(b.loc[changed, v_match].drop_duplicates()) == 1)

    def multiset(df, cols):
        return sorted(map(tuple, df[cols].astype(str).values))

    kept = multiset(b, hold) == multiset(a, hold) and multiset(b, v_match + v_swap) == multiset(a, v_match + v_swap)
    counts = [df.groupby(table).size() for df in (b, a)]
    diff = counts[1].sub(counts[0], fill_value=0).astype(int)
    # every cell that changed or that the slides print a change for (0 where the records give none)
    cells = set(diff[diff != 0].index) | {(r, c) for r, cs in paper["changes"].items() for c in cs}
    changes: dict = {}
    for row, col in sorted(cells):
        changes.setdefault(row, {})[col] = int(diff.get((row, col), 0))
    value = {
        "changes": changes,
        "swapped_records_share_match_key": share_key,
        "only_swap_variable_changes": only_swap and permuted,
        "invariants_kept": kept,
    }
    return Measurement(
        value,
        f"{int(changed.sum())} of {len(b)} records changed, sharing "
        f"{'their' if share_key else 'NOT their'} {' × '.join(v_match)}; "
        f"{'only' if value['only_swap_variable_changes'] else 'NOT only'} {', '.join(v_swap)} "
        f"changed (permuted); invariants {'kept' if kept else 'BROKEN'}; {' × '.join(table)} "
        "changes: " + "; ".join(f"{r} {c} {d:+d}" for r, cs in changes.items() for c, d in cs.items()),
    )


def slides_distances(c, c2) -> tuple[float, float]:
    """Return the slides' distances between unordered datasets given as count vectors.

    D_HAM^u = ½|x ⊖ x'| (∞ across sizes) and d_SymDiff^u = |X ⊖ X'|.
    """
    sym = float(np.abs(np.subtract(c, c2)).sum())
    return (sym / 2 if sum(c) == sum(c2) else math.inf), sym


def hamming_extension(run: Run, paper, *, values: int, max_size: int) -> Measurement:
    """Measure the shortest-path extensions of the bounded and unbounded neighbour relations.

    Bounded: replace one record; unbounded: add or remove one record. They are found by breadth-first search over every
    unordered dataset of at most ``max_size`` records over ``values`` values, against the slides' closed forms
    (:func:`slides_distances`); beside them, the distance the swapping audit uses (records of x not in x', same size).
    """
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import shortest_path

    data = [c for n in range(max_size + 1) for c in itertools.product(range(n + 1), repeat=values) if sum(c) == n]
    index = {c: i for i, c in enumerate(data)}
    edges = {"bounded": [], "unbounded": []}
    for c in data:
        for v in range(values):
            up = c[:v] + (c[v] + 1,) + c[v + 1 :]
            if up in index:
                edges["unbounded"].append((index[c], index[up]))
            for w in range(values):
                moved = tuple(x - (i == v) + (i == w) for i, x in enumerate(c))
                if v != w and c[v] > 0:
                    edges["bounded"].append((index[c], index[moved]))
    n = len(data)
    paths = {}
    for name, e in edges.items():
        rows, cols = np.array(e).T
        paths[name] = shortest_path(
            csr_array((np.ones(len(e)), (rows, cols)), shape=(n, n)), unweighted=True, directed=False
        )
    closed = np.array([[slides_distances(c, c2) for c2 in data] for c in data])
    mismatches = {name: int(np.sum(paths[name] != closed[:, :, i])) for i, name in enumerate(("bounded", "unbounded"))}
    counts = np.array(data)
    same = counts.sum(axis=1)[:, None] == counts.sum(axis=1)[None, :]
    audit = counts.sum(axis=1)[:, None] - np.minimum(counts[:, None, :], counts[None, :, :]).sum(axis=2)
    audit_mismatches = int(np.sum(audit[same] != paths["bounded"][same]))
    value = {
        "bounded_is_half_symmetric_difference": mismatches["bounded"] == 0,
        "unbounded_is_symmetric_difference": mismatches["unbounded"] == 0,
    }
    return Measurement(
        value,
        f"{n} unordered datasets of 0 to {max_size} records over {values} values, {n * n:,} "
        f"ordered pairs: shortest paths over bounded neighbours differ from ½|x ⊖ x'| (∞ across "
        f"sizes) at {mismatches['bounded']} pairs, over unbounded neighbours from |X ⊖ X'| at "
        f"{mismatches['unbounded']}; the swapping audit's distance (records of x not in x') "
        f"differs from the bounded path length at {audit_mismatches} same-size pairs",
        n=n * n,
    )
