"""Measures of Congenial DP §4 Example 4.1 and Table 2.

The two-bin histogram with its total kept, released by M*, f_L2 and f_L1
(:mod:`isdp_papers.e7_congenial_histogram.releases`), read from E7's exact and simulated tables.

Statements: Table 2's expectations (``expectation``) and ε² Var(m1) (``variance_coefficient``), the simulation
against the exact formulas (``simulation_zscores``), M* ahead of every post-processed release (``variance_order``),
and the density of the base release M as printed (``example41_density_gap``).
"""

from __future__ import annotations

import numpy as np

from isdp_papers import evidence_checks as ec
from isdp_papers.claims import Measurement, Run


def _symbols(run: Run) -> dict[str, float]:
    """Return the values of Table 2's symbols at the configured histogram: s1, s2 and their average s̄."""
    x1, x2 = run.config["e7"]["x"]
    sym = {"s1": float(x1), "s2": float(x2), "sbar": (x1 + x2) / 2.0}
    if len(set(sym.values())) < len(sym):
        raise ValueError(f"e7.x = {[x1, x2]} makes two of s1, s2, s̄ equal: Table 2's expectations cannot be told apart")
    return sym


#: the columns of ``e7_simulation`` that name a setting (β is empty for M* and f_L2)
SETTING = ["mechanism", "beta", "eps"]


def _simulation(run: Run, **checks):
    """``e7_simulation``.

    A mechanism named on every row, no setting twice, and ``checks`` (of
    :func:`~isdp_papers.evidence_checks.check_frame`) on the columns a measure reads.
    """
    sim = ec.table(run, "e7_simulation", filled=["mechanism"], **checks)
    setting = [c for c in SETTING if c in sim.columns]
    if sim.duplicated(setting).any():
        raise ec.EvidenceError(f"{run.path('tables/e7_simulation.csv')}: a setting {setting} repeated")
    return sim


def _rows(run: Run, mechanism: str, **checks):
    """Return the rows of ``mechanism`` in ``e7_simulation`` (at least one), their ``checks`` applied."""
    sim = _simulation(run)
    rows = sim[sim["mechanism"] == mechanism]
    if rows.empty:
        raise ec.EvidenceError(f"{run.path('tables/e7_simulation.csv')}: no row of mechanism {mechanism!r}")
    return ec.check_frame(rows, str(run.path("tables/e7_simulation.csv")), **checks)


def _table2(run: Run, *mechanisms: str, **checks):
    """``e7_table2`` indexed by mechanism: each once, ``mechanisms`` among them, ``checks`` on its columns."""
    t2 = ec.table(run, "e7_table2", key="mechanism", **checks).set_index("mechanism")
    missing = [m for m in mechanisms if m not in t2.index]
    if missing:
        raise ec.EvidenceError(f"{run.path('tables/e7_table2.csv')}: no row of {missing}")
    return t2


def expectation(run: Run, paper, *, mechanism: str) -> Measurement:
    """Which of s1, s2, s̄ each exact E(m_i) equals, and the simulation's distance from the paper's expression."""
    sym = _symbols(run)
    t2 = _table2(run, mechanism, finite=["mean_m1", "mean_m2"]).loc[mechanism]
    exact = {"m1": float(t2["mean_m1"]), "m2": float(t2["mean_m2"])}
    value = {
        k: next((s for s, v in sym.items() if np.isclose(v, exact[k], rtol=0, atol=1e-9)), f"{exact[k]:g}")
        for k in exact
    }
    rows = _rows(run, mechanism, finite=["mean_m1", "z_mean"], positive=["se_mean_m1"])
    z_paper = np.abs(rows["mean_m1"] - sym[paper["m1"]]) / rows["se_mean_m1"]
    return Measurement(
        value,
        f"exact E(m1, m2) = ({exact['m1']:g}, {exact['m2']:g}) = ({value['m1']}, {value['m2']}) "
        f"at x = ({sym['s1']:g}, {sym['s2']:g}); simulated E(m1) vs exact: max |z| = "
        f"{rows['z_mean'].abs().max():.1f}, vs the paper's {paper['m1']}: max |z| = "
        f"{z_paper.max():.1f} ({len(rows)} settings)",
    )


def variance_coefficient(run: Run, paper, *, mechanism: str) -> Measurement:
    """ε² Var(m1) from the exact formula (f_L1: its range over β ∈ [0, 1]), with the simulated values."""
    t2 = _table2(run, mechanism, nonnegative=["var_coef_low", "var_coef_high"]).loc[mechanism]
    lo, hi = float(t2["var_coef_low"]), float(t2["var_coef_high"])
    if lo > hi:
        raise ec.EvidenceError(f"{run.path('tables/e7_table2.csv')}: {mechanism}: var_coef_low > var_coef_high")
    value = lo if np.isclose(lo, hi) else [lo, hi]
    rows = _rows(
        run,
        mechanism,
        nonnegative=["var_coef"],
        finite=["z_var"],
        count=["n_draws"],
        probability=["beta"],
        allow_missing=["beta"],
    )
    sims = []
    for b, g in rows.groupby(rows["beta"].fillna(-1.0), sort=True):  # β is empty for M* and f_L2
        span = f"{g['var_coef'].min():.3f}–{g['var_coef'].max():.3f}"
        sims.append(f"{f'β = {b:g}' if b >= 0 else 'all ε'}: {span}")
    exact = f"{lo:g}" if value == lo else f"[{lo:g}, {hi:g}] (β = 1/2 and β ∈ {{0, 1}})"
    return Measurement(
        value,
        f"exact ε² Var(m1) = {exact}; simulated over ε ({rows['n_draws'].iloc[0]:,} draws "
        f"each): " + "; ".join(sims) + f"; max |z| vs exact {rows['z_var'].abs().max():.1f}",
    )


def simulation_zscores(run: Run, paper) -> Measurement:
    """z-scores of the simulated mean and variance of m1 against the exact formulas, every setting."""
    sim = _simulation(
        run,
        finite=["mean_m1", "exact_mean_m1", "var_m1", "exact_var_m1", "z_mean", "z_var"],
        positive=["se_mean_m1", "se_var_m1"],
        nonnegative=["max_total_error", "max_optimality_gap"],
        allow_missing=["max_optimality_gap"],
    )
    where = str(run.path("tables/e7_simulation.csv"))
    ec.check_consistent(
        sim["z_mean"],
        (sim["mean_m1"] - sim["exact_mean_m1"]) / sim["se_mean_m1"],
        where,
        "z_mean = (mean_m1 − exact_mean_m1) / se_mean_m1",
        rtol=1e-6,
        atol=1e-9,
    )
    ec.check_consistent(
        sim["z_var"],
        (sim["var_m1"] - sim["exact_var_m1"]) / sim["se_var_m1"],
        where,
        "z_var = (var_m1 − exact_var_m1) / se_var_m1",
        rtol=1e-6,
        atol=1e-9,
    )
    e7 = run.config.get("e7", {})
    if "eps_grid" in e7 and "betas" in e7:  # every configured setting once
        expected = {(m, -1.0, float(e)) for m in ("conditional", "l2") for e in e7["eps_grid"]} | {
            ("l1", float(b), float(e)) for b in e7["betas"] for e in e7["eps_grid"]
        }
        found = set(
            zip(sim["mechanism"], sim["beta"].fillna(-1.0).astype(float), sim["eps"].astype(float), strict=True)
        )
        if found != expected:
            raise ec.EvidenceError(f"{where}: settings {sorted(found ^ expected)[:5]} missing or not configured")
    z = np.concatenate([sim["z_mean"], sim["z_var"]])
    exact_ok = (sim["max_total_error"] < 1e-9).all() and (sim["max_optimality_gap"].fillna(0) < 1e-9).all()
    return Measurement(
        z,
        f"max |z| = {np.abs(z).max():.2f} over {len(sim)} (mechanism, β, ε) settings × (mean, "
        f"variance); every release sums to n and every projection is optimal: {bool(exact_ok)}",
        note="" if exact_ok else "SOME RELEASES BREAK THE TOTAL OR ARE NOT NEAREST POINTS",
    )


def variance_order(run: Run, paper) -> Measurement:
    """Exact ε² Var(m1) of M* and the smallest of the post-processed releases (any β)."""
    t2 = _table2(run, "conditional", "l2", "l1", nonnegative=["var_coef_low"])
    post = float(min(t2.loc["l2", "var_coef_low"], t2.loc["l1", "var_coef_low"]))
    value = {"conditional": float(t2.loc["conditional", "var_coef_low"]), "post_processing_smallest": post}
    gaps = []  # simulated: smallest post-processed variance minus M*'s, in SE, per ε
    sim = _simulation(run, finite=["eps"], positive=["var_m1", "se_var_m1"])
    for _, g in sim.groupby("eps"):
        if (g["mechanism"] == "conditional").sum() != 1 or len(g) < 2:
            raise ec.EvidenceError(
                f"{run.path('tables/e7_simulation.csv')}: at ε = {g['eps'].iloc[0]:g} not one "
                "M* row beside the post-processed ones"
            )
        c = g[g["mechanism"] == "conditional"].iloc[0]
        o = g.loc[g.loc[g["mechanism"] != "conditional", "var_m1"].idxmin()]
        gaps.append((o["var_m1"] - c["var_m1"]) / np.hypot(o["se_var_m1"], c["se_var_m1"]))
    return Measurement(
        value,
        f"ε² Var(m1): M* {value['conditional']:g} < smallest post-processed "
        f"{post:g} (f_L2 = f_L1 at β = 1/2); simulated gap ≥ {min(gaps):.0f} SE at every ε",
    )


def example41_density_gap(run: Run, paper, *, bin_scale: float = 2.0) -> Measurement:
    """§4 Example 4.1.

    The printed p(m1, m2) = (ε/4)² exp{−ε/2 (|m1 − s1| + |m2 − s2|)} against the product of two Laplace densities of
    scale ``bin_scale``/ε (SciPy) centred at (s1, s2), on a 201² grid reaching ±40/ε around s, the E7 ε grid: the
    largest relative gap.
    """
    from scipy import stats

    s = np.asarray(run.config["e7"]["x"], dtype=float)
    gap = 0.0
    for e in run.config["e7"]["eps_grid"]:
        m1, m2 = np.meshgrid(*(c + np.linspace(-40.0, 40.0, 201) / e for c in s), indexing="ij")
        printed = (e / 4.0) ** 2 * np.exp(-e / 2.0 * (np.abs(m1 - s[0]) + np.abs(m2 - s[1])))
        lap = stats.laplace(scale=bin_scale / e)
        gap = max(gap, float(np.abs(printed / (lap.pdf(m1 - s[0]) * lap.pdf(m2 - s[1])) - 1.0).max()))
    return Measurement(
        gap,
        f"largest relative gap {gap:.1e} against Lap({bin_scale:g}/ε) × Lap({bin_scale:g}/ε) "
        f"at {len(run.config['e7']['eps_grid'])} ε",
    )
