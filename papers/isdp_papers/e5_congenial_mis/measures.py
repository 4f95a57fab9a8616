"""Measures of E5: the congenial sex × age table and the Metropolized independence sampler."""

from __future__ import annotations

import numpy as np
import pandas as pd

from isdp.convergence import load_draws
from isdp.lattice import check_release
from isdp_papers import evidence_checks as ec
from isdp_papers.claims import Measurement, Run, fmt_se
from isdp_papers.e5_congenial_mis.problem import sex_by_age_constraints
from isdp_papers.measure_helpers import max_r_hat_of
from isdp_papers.problems import Problem, read_table_csv


def _problem(run: Run) -> Problem:
    """``e5/problem.json``.

    The confidential table x (non-negative integer counts, one per cell of its rows × columns) and the integer
    invariants A over its cells; refused naming the file otherwise.
    """
    path = run.path("e5/problem.json")
    p = ec.load(path, Problem.from_json, "problem file")
    where = str(path)
    ec.check_values(p.x, where, "x", "count")
    ec.check_values(p.A, where, "A", "integer")
    rows, cols = p.meta.get("rows", []), p.meta.get("cols", [])
    if p.A.ndim != 2 or p.A.shape[1] != p.x.size or (rows and cols and len(rows) * len(cols) != p.x.size):
        raise ec.EvidenceError(f"{where}: A {p.A.shape}, x {p.x.shape} and {len(rows)} × {len(cols)} labels disagree")
    return p


def _fig1(run: Run) -> dict[str, np.ndarray]:
    """``e5/fig1_releases.npz``.

    The tables x (non-negative counts), the invariants A and the MIS releases of each table (integer arrays, one release
    per row, one column per cell).
    """
    path = run.path("e5/fig1_releases.npz")

    def read(p):
        with np.load(p) as f:
            return {k: f[k] for k in ("x", "A", "mis_conditional")}

    fig1, where = ec.load(path, read, "Fig 1 releases file"), str(path)
    ec.check_values(fig1["x"], where, "x", "count")
    ec.check_values(fig1["A"], where, "A", "integer")
    ec.check_values(fig1["mis_conditional"], where, "mis_conditional", "integer")
    x, A, mis = fig1["x"], fig1["A"], fig1["mis_conditional"]
    if x.ndim != 2 or A.ndim != 2 or mis.ndim != 3 or A.shape[1] != x.shape[1] or mis.shape[::2] != x.shape:
        raise ec.EvidenceError(f"{where}: shapes x {x.shape}, A {A.shape}, mis_conditional {mis.shape} disagree")
    return fig1


def _acceptance(run: Run, **checks):
    """``e5_fig2_acceptance``.

    One row per proposal ε̃ > 0 on the grid, its acceptance rate in [0, 1] (``checks`` on the other columns a measure
    reads).
    """
    return ec.table(
        run, "e5_fig2_acceptance", key="proposal_eps", positive=["proposal_eps"], probability=["acceptance"], **checks
    )


def _per_table_distances(run: Run, metric: str):
    """Return ``e5/fig1_distances.csv`` as tables × methods of the average ``metric`` distance.

    Every table has every method, each distance ≥ 0.
    """
    where = str(run.path("e5/fig1_distances.csv"))
    t = ec.table_at(run, "e5/fig1_distances.csv", key=["table", "method"], nonnegative=[f"avg_{metric}"])
    wide = t.pivot(index="table", columns="method", values=f"avg_{metric}")
    if wide.isna().any().any():
        raise ec.EvidenceError(f"{where}: not every table has every method")
    return wide


def _medians(run: Run, metric: str):
    """Return ``e5_fig1_distances``' median per method of the average ``metric`` distance.

    It is refused unless it is the median over the tables of ``e5/fig1_distances.csv`` (recomputed, not trusted).
    """
    column = f"avg_{metric}_median"
    med = ec.table(run, "e5_fig1_distances", key="method", nonnegative=[column]).set_index("method")[column]
    per_table = _per_table_distances(run, metric)
    if set(med.index) != set(per_table.columns):
        raise ec.EvidenceError(
            f"{run.path('tables/e5_fig1_distances.csv')}: methods {sorted(med.index)}, the "
            f"per-table file has {sorted(per_table.columns)}"
        )
    ec.check_consistent(
        med,
        per_table.median()[med.index],
        str(run.path("tables/e5_fig1_distances.csv")),
        f"{column} = the median over tables of e5/fig1_distances.csv",
    )
    return med, per_table


def table_totals(run: Run, paper) -> Measurement:
    """Female, male, grand, under-18 and voting-age totals of the transcribed table."""
    p = _problem(run)
    k = len(p.meta["cols"])
    first = p.meta["cols"].index(p.meta["voting_age_from"])
    under = int(p.x[:first].sum() + p.x[k : k + first].sum())
    v = {
        "female": int(p.x[:k].sum()),
        "male": int(p.x[k:].sum()),
        "total": int(p.x.sum()),
        "under_18": under,
        "voting_age": int(p.x.sum()) - under,
    }
    return Measurement(v, ", ".join(f"{a} {b}" for a, b in v.items()))


def _age_span(label: str) -> tuple[int, int | None]:
    """First and last year of age of a printed age label: '<=5', '6-10', '20', '85+' (no last year)."""
    if label.startswith("<="):
        return 0, int(label[2:])
    if label.endswith("+"):
        return int(label[:-1]), None
    first, _, last = label.partition("-")
    return int(first), int(last or first)


@ec.reads_committed
def p12_categories(run: Run, paper, *, file: str) -> Measurement:
    """Compare the transcribed table's sexes and age columns with the 2010 SF1 table P12's 23 age categories per sex.

    ``file`` holds label, lower, upper; the value is the columns whose span of ages differs from P12's at the same
    place.
    """
    p = _problem(run)
    p12 = ec.committed_csv(run, file, key="label", count=["lower", "upper"], allow_missing=["upper"])
    if (p12["upper"] < p12["lower"]).any():
        raise ec.EvidenceError(f"{run.data(file)}: an age category ending before it starts")
    p12_spans = [(int(lo), None if pd.isna(hi) else int(hi)) for lo, hi in zip(p12["lower"], p12["upper"], strict=True)]
    spans = [_age_span(c) for c in p.meta["cols"]]
    unlike = (
        [
            f"{c} (P12: {lab})"
            for c, s, t, lab in zip(p.meta["cols"], spans, p12_spans, p12["label"], strict=False)
            if s != t
        ]
        if len(spans) == len(p12_spans)
        else list(p.meta["cols"])
    )
    value = {"sexes": len(p.meta["rows"]), "age categories": len(spans), "age categories unlike P12": len(unlike)}
    return Measurement(
        value,
        f"{value['sexes']} × {value['age categories']} (P12: 2 × {len(p12_spans)}); "
        f"{len(unlike)} age columns unlike P12's" + (f": {'; '.join(unlike)}" if unlike else ""),
    )


def age_bucket_widths(run: Run, paper, *, ages: list[int]) -> Measurement:
    """Return the printed table's age columns as buckets.

    The mean width in years of the closed ones (the open last one left out), rounded to whole years, and whether the
    bucket holding each of ``ages`` is narrower than the median closed bucket.
    """
    spans = [_age_span(c) for c in _problem(run).meta["cols"]]
    widths = np.array([last - first + 1 for first, last in spans if last is not None])
    median = float(np.median(widths))

    def width_at(age: int) -> int:
        return next(
            w
            for (first, last), w in zip((s for s in spans if s[1] is not None), widths, strict=True)
            if first <= age <= last
        )

    at = {age: width_at(age) for age in ages}
    value = {"mean width": int(np.rint(widths.mean())), "finer at the key ages": all(w < median for w in at.values())}
    return Measurement(
        value,
        f"{widths.size} closed age buckets, mean width {widths.mean():.2f} years (median "
        f"{median:g}); widths (years) of the buckets holding " + ", ".join(f"{a}: {w}" for a, w in at.items()),
    )


def best_proposal_steps(run: Run, paper) -> Measurement:
    """Distance of this run's best ε̃ from the paper's, in grid steps."""
    acc = _acceptance(run)
    grid = np.sort(acc["proposal_eps"].to_numpy())
    step = float(np.min(np.diff(grid)))
    best = acc.loc[acc["acceptance"].idxmax()]
    steps = round(abs(float(best["proposal_eps"]) - float(paper)) / step, 9)  # 0.05/0.05 is not exactly 1.0 in floats
    start = ", ".join(acc["start"].unique()) if "start" in acc else "s*"
    return Measurement(
        steps,
        f"best ε̃ = {best['proposal_eps']:g} ({100 * best['acceptance']:.2f} %) on the grid "
        f"{grid.min():g}–{grid.max():g} (step {step:g}): {steps:.1f} steps from the paper's; "
        f"chains started at {start}",
    )


def acceptance_at(run: Run, paper, *, proposal_eps: float) -> Measurement:
    """Return acceptance rate at ``proposal_eps`` with its SE (spread of the independent chains' rates)."""
    acc = _acceptance(run, nonnegative=["se"], count=["n_chains", "proposals_per_chain"])
    row = acc.loc[np.isclose(acc["proposal_eps"], proposal_eps)]
    if row.empty:
        raise ValueError(f"ε̃ = {proposal_eps} is not on the acceptance grid {list(acc['proposal_eps'])}")
    r = row.iloc[0]
    gap = abs(r["acceptance"] - paper) / r["se"] if r["se"] > 0 else float("inf")
    return Measurement(
        float(r["acceptance"]),
        f"{fmt_se(r['acceptance'], r['se'], 100)} % at ε̃ = {proposal_eps:g} "
        f"({int(r['n_chains'])} chains × {int(r['proposals_per_chain']):,} proposals started at "
        f"{r.get('start', 's*')}); "
        f"gap to the paper {gap:.1f} SE",
        se=float(r["se"]),
        note="the paper gives no run length, so its own Monte Carlo error is unknown",
    )


def releases_exact(run: Run, paper) -> Measurement:
    """Every stored MIS state (Fig 3 traces, Fig 1 releases) is a non-negative integer table with A s = A s*."""
    p = _problem(run)
    n = 0
    ok = True
    for t in run.config["e5"]["trace"]["thins"]:
        d = load_draws(run.path(f"e5/trace_thin{t}.nc"), A=p.A, invariants=p.invariants)  # MIS states: A s = A s*
        check_release(d, p.A, p.invariants, what="E5 trace draws")
        ok &= bool(d.min() >= 0)
        n += d.shape[0] * d.shape[1]
    fig1 = _fig1(run)
    for xk, rel in zip(fig1["x"], fig1["mis_conditional"], strict=True):
        check_release(rel, p.A, p.A @ xk, what="E5 Fig 1 MIS releases")
        ok &= bool(rel.min() >= 0)
        n += len(rel)
    return Measurement(ok, f"{n:,} MIS states checked: integer, A s = A s*, " + ("s ≥ 0" if ok else "NEGATIVE cells"))


@ec.reads_committed
def printed_release_quantile(run: Run, paper, *, file: str) -> Measurement:
    """Quantile of the printed release's L1 distance to the confidential table among this run's MIS states."""
    p = _problem(run)
    draws = load_draws(
        run.path(f"e5/trace_thin{run.config['e5']['trace']['thins'][-1]}.nc"), A=p.A, invariants=p.invariants
    )  # MIS states: integer, A s = A s*
    l1 = np.abs(draws.reshape(-1, p.x.size) - p.x).sum(axis=1)
    printed = int(np.abs(read_table_csv(ec.committed(run, file))[0].ravel() - p.x).sum())
    q = float((l1 < printed).mean() + 0.5 * (l1 == printed).mean())
    lo, hi = np.percentile(l1, [0.5, 99.5])
    return Measurement(
        q,
        f"printed release: L1 distance {printed}, at quantile {q:.2f} of this run's "
        f"{l1.size} MIS states (mean {l1.mean():.1f}, 99 % range [{lo:.0f}, {hi:.0f}])",
    )


def fig1_medians(run: Run, paper, *, metric: str) -> Measurement:
    """Median over tables of the per-table average distance, per method."""
    med = _medians(run, metric)[0].to_dict()
    return Measurement(med, "medians over tables: " + ", ".join(f"{k} {v:.1f}" for k, v in med.items()))


def fig1_ratio(run: Run, paper, *, metric: str, num: str, den: str, other_den: str | None = None) -> Measurement:
    """Ratio of two methods' median per-table average distances, with its range over the tables.

    ``other_den``: the denominator of the statement's other reading, whose ratio goes into the note,
    so each reading is shown beside the other.
    """
    med, per_table = _medians(run, metric)

    def describe(d: str) -> str:
        r, t = med[num] / med[d], per_table[num] / per_table[d]
        return (
            f"median {num} / median {d} = {r:.3f} ({med[num]:.1f} / {med[d]:.1f}; per table "
            f"{t.min():.3f}–{t.max():.3f})"
        )

    note = f"the other reading: {describe(other_den)}" if other_den else ""
    return Measurement(float(med[num] / med[den]), describe(den), note=note)


def fig1_max_r_hat(run: Run, paper) -> Measurement:
    """Largest split R-hat over the cells of the Fig 1 MIS chains of every table."""
    conv = ec.table(
        run,
        "e5_fig1_convergence",
        key="table",
        rows=int(run.config["e5"]["simulation"]["n_tables"]),
        positive=["max_r_hat", "min_ess_bulk"],
        count=["n_chains"],
        probability=["acceptance"],
    )
    r, text = max_r_hat_of(conv, f"{len(conv)} tables × {int(conv['n_chains'].iloc[0])} chains")
    return Measurement(r, f"{text}, acceptance {conv['acceptance'].min():.4f}–{conv['acceptance'].max():.4f}")


def trace_diagnostics(run: Run, paper) -> Measurement:
    """Return acceptance, R-hat and ESS of the Fig 3 trace chains."""
    trace = ec.table(
        run,
        "e5_trace_diagnostics",
        key="thin",
        keys=run.config["e5"]["trace"]["thins"],
        probability=["acceptance"],
        positive=["max_r_hat", "min_ess_bulk"],
    )
    return Measurement(
        float(trace["max_r_hat"].max()),
        "; ".join(
            f"thin {int(r.thin)}: acceptance {r.acceptance:.4f}, max R-hat {r.max_r_hat:.3f}, min bulk ESS "
            f"{r.min_ess_bulk:.0f}"
            for r in trace.itertuples()
        ),
    )


@ec.reads_committed
def printed_release_invariants(run: Run, paper, *, file: str) -> Measurement:
    """Return the printed constrained release keeps invariants (1)–(4).

    Its totals are the confidential table's, and it is a non-negative integer table.
    """
    p = _problem(run)
    printed = np.asarray(read_table_csv(ec.committed(run, file))[0]).ravel()
    k = len(p.meta["cols"])
    first = p.meta["cols"].index(p.meta["voting_age_from"])
    totals = {
        "total": int(printed.sum()),
        "female": int(printed[:k].sum()),
        "voting_age": int(printed[first:k].sum() + printed[k + first :].sum()),
    }
    kept = bool(np.array_equal(p.A @ printed, p.A @ p.x))
    value = {**totals, "nonnegative_integer": bool(np.all(printed >= 0) and np.all(printed == np.round(printed)))}
    return Measurement(value, ", ".join(f"{a} {b}" for a, b in value.items()) + f"; A·release = A·confidential: {kept}")


def index_set_complement(run: Run, paper, *, index_ranges) -> Measurement:
    """Return the paper's proposal index set I (1-based inclusive ranges).

    Its complement I^c and whether A[:, I^c] is unimodular, so that solving A s = a for s_(I^c) always gives integers.
    """
    import sympy

    p = _problem(run)
    d = p.x.size
    index_set = {i for lo, hi in index_ranges for i in range(lo, hi + 1)}
    complement = [i for i in range(1, d + 1) if i not in index_set]
    square = len(complement) == p.A.shape[0]
    det = int(sympy.Matrix(p.A[:, [i - 1 for i in complement]].tolist()).det()) if square else 0
    value = {"cells": int(d), "complement": complement, "unimodular": abs(det) == 1}
    return Measurement(
        value,
        f"{d} cells ({len(p.meta['rows'])} × {len(p.meta['cols'])}); I has {len(index_set)} "
        f"indices, I^c = {complement}; det A[:, I^c] = {det}",
    )


def trace_cells_in_index_set(run: Run, paper, *, cells) -> Measurement:
    """Whether each of the paper's trace cells (1-based) lies in the proposal index set I."""
    index_set = set(_problem(run).meta["index_set"])
    value = [int(c) - 1 in index_set for c in cells]
    return Measurement(
        value, ", ".join(f"cell {c}: {'in I' if v else 'not in I'}" for c, v in zip(cells, value, strict=True))
    )


def raw_dg_violations(run: Run, paper, *, event: str) -> Measurement:
    """Exact probabilities of the raw DG release x* + U (U i.i.d. DG(ε) per cell, E5's ε) at the confidential table.

    ``total_kept`` = P(Σ U = 0), ``negative_cell`` = P(some x*_i + U_i < 0) = 1 − Π_i P(U_i ≥ −x*_i).
    """
    from isdp.exact import sum_constraint_acceptance
    from isdp.mcmc import DoubleGeometric

    x, eps = _problem(run).x, float(run.config["e5"]["eps"])
    # P(S_n = 0) = acceptance · P(DG = 0) (isdp.exact: the characteristic function on an FFT grid)
    kept = sum_constraint_acceptance(x.size, eps) * float(DoubleGeometric(eps).pmf(0))
    negative = float(1.0 - np.prod(1.0 - DoubleGeometric(eps).cdf(-x - 1)))
    value = {"total_kept": kept, "negative_cell": negative}[event]
    return Measurement(
        value,
        f"raw DG(ε = {eps:g}) per cell on the {x.size}-cell confidential table (smallest cell "
        f"{int(x.min())}), exactly: P(total kept) = {kept:.4f} (broken with probability "
        f"{1 - kept:.4f}); P(some cell negative) = {negative:.4f}",
    )


def _binned_by_pooled_quantiles(a, b, bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Return ``a`` and ``b`` as bin labels of the pooled sample's quantiles.

    A rank statistic: under one law the pooled sample is exchangeable, so the chi-square of the labels tests the two
    laws.
    """
    edges = np.quantile(np.concatenate([a, b]), np.linspace(0, 1, bins + 1)[1:-1])
    return np.searchsorted(edges, a, side="right"), np.searchsorted(edges, b, side="right")


def mis_against_exact(run: Run, paper, *, tables: int, exact_draws: int, cells, l1_bins: int) -> Measurement:
    """Measure chi-square p-values of the Fig 1 MIS releases (c) against exact draws of the conditional law p*.

    The exact draws are :func:`isdp.mcmc.mis_exact_sample`'s, DG(ε₀) on S* with s ≥ 0, for the first ``tables`` tables:
    the given cells (0-based) and the L1 distance to the table, binned at the pooled sample's quantiles. The exact
    sampler needs thousands of proposals per draw (2–5 ms), so ``tables`` × ``exact_draws`` sets the cost; the seed is
    derived from the run's base seed, so stability reruns draw afresh.
    """
    from isdp.mcmc import mis_exact_sample
    from isdp_papers.jobs import derive_seed
    from isdp_papers.measure_helpers import two_sample_chi2

    p = _problem(run)
    fig1 = _fig1(run)
    eps = float(run.config["e5"]["simulation"]["eps_mis"])
    A, d = fig1["A"], fig1["x"].shape[1]
    pvalues = []
    for k, (x, mis) in enumerate(zip(fig1["x"][:tables], fig1["mis_conditional"][:tables], strict=True)):
        exact = mis_exact_sample(
            A,
            A @ x,
            x,
            epsilon=eps,
            index_set=p.meta["index_set"],
            size=exact_draws,
            seed=derive_seed(run.config["seed"], "claims", "e5-mis-exact", k),
            B=np.eye(d),
            b=np.zeros(d),
        )
        pvalues += [two_sample_chi2(mis[:, c], exact[:, c])[2] for c in cells]
        l1_mis, l1_exact = (np.abs(s - x).sum(axis=1) for s in (mis, exact))
        pvalues.append(two_sample_chi2(*_binned_by_pooled_quantiles(l1_mis, l1_exact, l1_bins))[2])
    pvalues = np.asarray(pvalues)
    n_tables, n_rel = fig1["mis_conditional"].shape[:2]
    return Measurement(
        pvalues,
        f"{pvalues.size} chi-square tests ({min(tables, n_tables)} of {n_tables} tables × "
        f"cells {', '.join(str(c + 1) for c in cells)} and the L1 distance in {l1_bins} bins; "
        f"{n_rel} MIS releases against {exact_draws} exact draws per table): min p "
        f"{pvalues.min():.3g}",
        n=pvalues.size,
    )


def constrained_posterior(run: Run, paper, *, lattices, eps0) -> Measurement:
    """Measure §2.2's posterior shift after Thm 2.1, exactly on small E5-like lattices.

    §2.2 after Thm 2.1, exactly on small E5-like lattices (:mod:`.small_lattice`; ``lattices`` of (n, female, voting)):
    the largest |log(posterior/prior)| of one record's cell over releases m ∈ S*, under the uniform prior on the
    databases of X*, in units of (1 + γ*) ε (ε = M's level 2 ε₀, γ* of (2.5) at k = 1), worst over the lattices and
    ``eps0``. The note gives the other readings: γ = 1, and a prior about x_i alone with the other records known (the
    shift is then at most M*'s level over the d = 1 pairs).
    """
    from isdp_papers.e5_congenial_mis.small_lattice import constrained_posterior as exact

    res = [(e, exact(*lat, e)) for lat in lattices for e in eps0]
    ratio = max(r["ratio"] for _, r in res)
    per_eps = {e: max(r["ratio"] for f, r in res if f == e) for e in eps0}
    gammas = [r["gamma_star"] for _, r in res]
    at_one = max(r["shift"] / (2.0 * r["eps"]) for _, r in res)
    informed = max(r["m_star_level"] / ((1.0 + r["gamma_star"]) * r["eps"]) for _, r in res)
    return Measurement(
        ratio,
        "max |log(posterior/prior)| / ((1 + γ*) ε): "
        + ", ".join(f"ε₀ = {e:g}: {v:.3f}" for e, v in per_eps.items())
        + f" (γ* {min(gammas):.3f}–{max(gammas):.3f}; "
        f"{len(lattices)} lattices, {max(r['tables'] for _, r in res)} tables at most)",
        note=f"the other readings: against γ = 1 (2ε) {at_one:.3f}; other records known (a prior about x_i "
        f"alone) at most M*'s d = 1 level / ((1 + γ*) ε) = {informed:.3f}",
        n=len(res),
    )


def _dg_mean_abs(eps: float) -> float:
    """E|U| for U ~ DG(ε): 2a/(1 − a²), a = e^{−ε}."""
    a = np.exp(-eps)
    return float(2.0 * a / (1.0 - a**2))


def _dg_eps_of_mean_abs(mean_abs: np.ndarray) -> np.ndarray:
    """Return the ε whose DG has E|U| = ``mean_abs``: the root a ∈ (0, 1) of m a² + 2a − m = 0, ε = −log a."""
    m = np.asarray(mean_abs, dtype=float)
    return -np.log((np.sqrt(1.0 + m**2) - 1.0) / m)


def fig1_effective_gamma(run: Run, paper, *, method: str) -> Measurement:
    """§3 after Fig 1.

    The effective γ of ``method``, (1 + γ) ε₀ = the per-cell ε of the raw DG release with the same expected L1 distance
    (46 E|DG(ε)|, exact) as the median over tables of ``method``'s average L1 distance; the per-table range in the text,
    the raw panels against their exact expectation in the note.
    """
    eps0 = float(run.config["e5"]["simulation"]["eps_mis"])
    per_table = _per_table_distances(run, "l1")
    cells = _problem(run).x.size
    gamma = _dg_eps_of_mean_abs(per_table[method].median() / cells) / eps0 - 1.0
    each = _dg_eps_of_mean_abs(per_table[method].to_numpy() / cells) / eps0 - 1.0
    eps_raw = {"raw_dg_eps1": float(run.config["e5"]["simulation"]["eps_raw"]), "raw_dg_eps05": eps0}
    raw = "; ".join(
        f"{k}: median {per_table[k].median():.2f} against exactly {cells * _dg_mean_abs(e):.2f}"
        for k, e in eps_raw.items()
        if k in per_table
    )
    return Measurement(
        float(gamma),
        f"median average L1 of {method} {per_table[method].median():.2f} = raw DG at "
        f"ε = {(1 + gamma) * eps0:.3f} per cell: γ = {gamma:.3f} (per table "
        f"{each.min():.3f}–{each.max():.3f}, {len(each)} tables; ε₀ = {eps0:g})",
        note=f"the raw panels (a), (d): {raw}",
        n=len(each),
    )


# --------------------------------------------------------------------------- §1.2, §2.3: raw noise, samplers, ratios


def _cell_classes(A: np.ndarray) -> np.ndarray:
    """Return a label per cell.

    Cells with the same column of A (a record moves between them keeping every invariant).
    """
    return np.unique(A.T, axis=0, return_inverse=True)[1].ravel()


def raw_dg_in_invariant_set(A, x, eps: float) -> tuple[float, float]:
    """Exact P(A U = 0) and P(A U = 0, x + U ≥ 0) for U i.i.d. DG(ε) per cell.

    Rejection sampling with q = p (§2.3) accepts a raw release x + U with the second probability.

    Cells with the same column of A enter A U only through their class's sum, so each class's (truncated)
    sum law is a convolution; the class sums t must solve C t = 0 (C: one column per class), which must be
    a one-dimensional lattice, as for the sex × age invariants (t, −t, −t, t over female/male × child/adult).
    """
    from isdp.mcmc import DoubleGeometric

    A, x = np.asarray(A, dtype=np.int64), np.asarray(x, dtype=np.int64)
    labels = _cell_classes(A)
    classes = [np.flatnonzero(labels == c) for c in range(labels.max() + 1)]
    C = np.stack([A[:, g[0]] for g in classes], axis=1)
    if len(classes) - np.linalg.matrix_rank(C) != 1:
        raise ValueError(
            f"the class sums solve C t = 0 in {len(classes) - np.linalg.matrix_rank(C)} dimensions; "
            "this needs exactly one"
        )
    kernel = np.linalg.svd(C.astype(float))[2][-1]
    v = np.rint(kernel / np.abs(kernel[np.abs(kernel) > 1e-9]).min()).astype(np.int64)
    if np.any(C @ v != 0):
        raise ValueError(f"the kernel of C is not spanned by a small integer vector ({kernel})")
    reach = int(np.ceil(80.0 / eps))  # one cell's |U| beyond reach has probability < e^-80

    def class_sum_law(cells, truncated: bool):
        law, lo = np.array([1.0]), 0
        for i in cells:
            k = np.arange(-x[i] if truncated else -reach, reach + 1)
            law, lo = np.convolve(law, DoubleGeometric(eps).pmf(k)), lo + int(k[0])
        return lo, law

    probs = []
    for truncated in (False, True):
        laws = [class_sum_law(g, truncated) for g in classes]
        t = np.arange(-reach * len(x), reach * len(x) + 1)
        joint = np.ones(t.size)
        for (lo, law), vc in zip(laws, v, strict=True):
            pos = vc * t - lo
            inside = (pos >= 0) & (pos < law.size)
            joint *= np.where(inside, law[np.clip(pos, 0, law.size - 1)], 0.0)
        probs.append(float(joint.sum()))
    return probs[0], probs[1]


def raw_rejection_acceptance(run: Run, paper, *, mis_acceptance: float, eps: float | None = None) -> Measurement:
    """Measure §2.3's acceptance rate of rejection sampling with q = p at Table 1 (top), exactly.

    §2.3: the acceptance rate of rejection sampling with q = p (a raw DG release kept when it meets (1)–(4)) at Table 1
    (top), exactly, against Algorithm 1's printed acceptance ``mis_acceptance``; ``eps`` defaults to E5's.
    """
    p = _problem(run)
    eps = float(run.config["e5"]["eps"] if eps is None else eps)
    equalities, accepted = raw_dg_in_invariant_set(p.A, p.x, eps)
    return Measurement(
        accepted,
        f"raw DG(ε = {eps:g}) per cell at Table 1 (top): P(release meets (1)–(4)) = "
        f"{accepted:.3g} exactly, {1 / accepted:,.0f} proposals per draw, against "
        f"Algorithm 1's printed {100 * mis_acceptance:.2f} % ({1 / mis_acceptance:.0f} "
        f"proposals per accepted move)",
        note=f"(1)–(3) alone: {equalities:.3g}; non-negativity then keeps {accepted / equalities:.3f} "
        "of those. A rejection draw is independent, an MIS move is not: this project's exact "
        "sampler of p* (q on I at ε̃ = ε) needs thousands of proposals per independent draw "
        "(CDP-E5-mis-exact's why), still far fewer than rejection with q = p",
    )


def algorithm1_stationarity(
    run: Run, paper, *, lattices, eps: float, proposal_eps: float, complement, rule: str = "printed"
) -> Measurement:
    """Measure how far Algorithm 1 (§2.3) is from stationary, exactly on small E5-like lattices.

    §2.3 Algorithm 1, exactly on small E5-like lattices (:mod:`.small_lattice`; ``lattices`` of (n, female, voting),
    ``complement`` = I^c 0-based, mirroring the paper's {1, 23, 46}): ‖p* P − p*‖₁ for the transition matrix P of step
    2's acceptance rule, worst over the lattices and over every table of S* as the confidential table. The note: the
    same for the other ``rule``.
    """
    from isdp_papers.e5_congenial_mis import small_lattice as sl

    index_set = [i for i in range(2 * len(sl.COLS)) if i not in set(complement)]

    def worst(which: str) -> tuple[float, int]:
        gap, cases = 0.0, 0
        for lattice in lattices:
            tables = sl.invariant_tables(*lattice)
            for center in tables:
                P, target = sl.mis_transition_matrix(tables, center, eps, proposal_eps, index_set, which)
                gap, cases = max(gap, float(np.abs(target @ P - target).sum())), cases + 1
        return gap, cases

    gap, cases = worst(rule)
    other = "metropolis" if rule == "printed" else "printed"
    return Measurement(
        gap,
        f"max ‖p* P − p*‖₁ = {gap:.2g} under the {rule} rule, over {cases} confidential tables "
        f"of {len(lattices)} lattices (ε = {eps:g}, ε̃ = {proposal_eps:g}, I^c = "
        f"{[i + 1 for i in complement]})",
        note=f"the {other} rule: {worst(other)[0]:.3g}",
        n=cases,
    )


def rejection_sampler_exact(
    run: Run, paper, *, lattices, eps: float, proposal_eps: float, complement, rule: str = "printed"
) -> Measurement:
    """Measure §2.3's rejection sampler exactly on the small E5-like lattices of :func:`algorithm1_stationarity`.

    §2.3's rejection sampler (q supported on S*, R ≥ sup p/q, accept s ~ q with probability p(s)/(R q(s))), exactly on
    the small E5-like lattices of :func:`algorithm1_stationarity`: the total variation between the law of an accepted
    draw and p*, worst over the lattices and every table of S* as the confidential one; the text gives the range of the
    acceptance probability (:func:`.small_lattice.rejection_law`).
    """
    from isdp_papers.e5_congenial_mis import small_lattice as sl

    index_set = [i for i in range(2 * len(sl.COLS)) if i not in set(complement)]
    tv, rates, cases = 0.0, [], 0
    for lattice in lattices:
        tables = sl.invariant_tables(*lattice)
        for center in tables:
            law, target, rate = sl.rejection_law(tables, center, eps, proposal_eps, index_set, rule)
            tv, cases = max(tv, 0.5 * float(np.abs(law - target).sum())), cases + 1
            rates.append(rate)
    return Measurement(
        tv,
        f"max TV(accepted draw, p*) = {tv:.2g} under the {rule} acceptance, over {cases} "
        f"confidential tables of {len(lattices)} lattices (ε = {eps:g}, ε̃ = {proposal_eps:g}); "
        f"acceptance probability {min(rates):.3f} to {max(rates):.3f}",
        n=cases,
    )


def algorithm1_continuous(
    run: Run, paper, *, eps, proposal_ratio: float, n_chains: int, steps: int, seed: int, rule: str = "printed"
) -> Measurement:
    """§2.3 Algorithm 1 on a continuous scheme.

    §4 Example 4.1 (two bins, i.i.d. Lap(2/ε), the total invariant, I = {1}, q = Lap(1/ε̃) on s̃1, s̃2 solved),
    ``n_chains`` independent chains of ``steps`` proposals from s*. Each chain's last m1 − s1 against (4.6)'s Lap(1/ε):
    Kolmogorov–Smirnov p per ε. With ε̃ = ``proposal_ratio`` · ε ≤ ε the weight p*/q is at most 1/ratio, so an
    independence sampler is within (1 − ratio)^steps of p* in total variation (Liu 1996). ``rule`` as
    :func:`.small_lattice.mis_transition_matrix`.
    """
    from scipy import stats

    rng = np.random.default_rng(seed)
    pvalues, means = [], []
    for e in np.atleast_1d(eps):
        e_q = proposal_ratio * e
        # log p(s1 + u, s2 − u) = −(ε/2)(|u| + |−u|) = −ε|u| on the invariant line; the printed rule divides by q
        rate = e - e_q if rule == "printed" else e
        u = np.zeros(n_chains)
        for _ in range(steps):
            prop = rng.laplace(0.0, 1.0 / e_q, n_chains)
            accept = np.log(rng.uniform(size=n_chains)) < -rate * (np.abs(prop) - np.abs(u))
            u = np.where(accept, prop, u)
        pvalues.append(float(stats.kstest(u, stats.laplace(scale=1.0 / e).cdf).pvalue))
        means.append(float(np.mean(np.abs(u)) * e))
    pvalues = np.asarray(pvalues)
    return Measurement(
        pvalues,
        f"KS of {n_chains} chains' last states ({steps} proposals, ε̃ = {proposal_ratio:g} ε, "
        f"{rule} rule) against Lap(1/ε): p = "
        + ", ".join(f"{v:.3g} (ε = {e:g})" for v, e in zip(pvalues, np.atleast_1d(eps), strict=True))
        + f"; TV to p* at most {(1 - proposal_ratio) ** steps:.1g}",
        note="ε · mean |m1 − s1| (1 under Lap(1/ε)): " + ", ".join(f"{m:.3f}" for m in means),
        n=pvalues.size,
    )


def sensitivity_ratio(run: Run, paper, *, neighbours: str = "bounded", norm: str = "l1") -> Measurement:
    """Measure §1.2's ratio ∇_X* / ∇_X of Def 1.1's global sensitivity of the 46-cell histogram, exactly.

    §1.2: Def 1.1's global sensitivity of the 46-cell histogram over X* (databases with Table 1's invariants) against
    over X, exactly, as ∇_X* / ∇_X. ``neighbours``: ``bounded`` (§1.3: one record's value changes; X* keeps it only
    between cells with the same column of A) or ``add_remove`` (a record added or removed: no such pair in X*, whose
    total is fixed, so ∇_X* = 0). The note: the other norms and neighbours.
    """
    p = _problem(run)
    labels = _cell_classes(p.A)
    class_total = np.bincount(labels, weights=p.x)
    # bounded: a record of cell j can move to cell k ≠ j inside X* iff j, k share A's column and X* has a record there
    inside = any(np.sum(labels == c) >= 2 and class_total[c] >= 1 for c in range(labels.max() + 1))
    norms = {"l1": (2.0, 1.0), "l2": (np.sqrt(2.0), 1.0), "linf": (1.0, 1.0)}  # ‖e_k − e_j‖, ‖e_j‖

    def ratio(nb: str, nm: str) -> tuple[float, float]:
        moved, added = norms[nm]
        if nb == "bounded":
            return moved * inside, moved
        if nb == "add_remove":
            return 0.0, added  # A e_j ≠ 0 for every cell (the total): adding a record leaves X*
        raise ValueError(f"neighbours must be 'bounded' or 'add_remove', got {nb!r}")

    on_star, on_x = ratio(neighbours, norm)
    others = [(nb, nm) for nb in ("bounded", "add_remove") for nm in norms if (nb, nm) != (neighbours, norm)]
    return Measurement(
        on_star / on_x,
        f"{neighbours} neighbours, {norm}: ∇ over X* = {on_star:g}, over X = "
        f"{on_x:g} (ratio {on_star / on_x:g}; Table 1's {p.x.size} cells, "
        f"{labels.max() + 1} classes of cells with the same invariant column)",
        note="other readings, ∇_X*/∇_X: "
        + ", ".join(f"{nb} {nm} {ratio(nb, nm)[0] / ratio(nb, nm)[1]:g}" for nb, nm in others),
    )


def inequality_rank_deficit(run: Run, paper, *, encoding: str = "identity") -> Measurement:
    """§2.3's setting d_B < d against §3's constraint (4).

    D − rank B for B encoding s ≥ 0 on Table 1's 46 cells. ``identity``: one row per entry (B = I, b = 0), as (4) says;
    ``nullspace``: the same half-spaces restricted to A s = a (B = I − A⁺A, b = −A⁺a), of rank d − d_A but not of full
    row rank. The note counts the irredundant inequalities: a point of A s = a with only s_i < 0 (move x*_i + 1 records
    from cell i to a cell with the same column of A) shows inequality i is needed, so no description has fewer than that
    many rows.
    """
    p = _problem(run)
    d = p.x.size
    if encoding == "identity":
        B = np.eye(d)
    elif encoding == "nullspace":
        B = np.eye(d) - np.linalg.pinv(p.A.astype(float)) @ p.A
    else:
        raise ValueError(f"encoding must be 'identity' or 'nullspace', got {encoding!r}")
    rank = int(np.linalg.matrix_rank(B))
    labels = _cell_classes(p.A)
    needed = 0
    for i in range(d):
        partners = np.flatnonzero((labels == labels[i]) & (np.arange(d) != i))
        if partners.size:
            s = p.x.copy()
            s[i], s[partners[0]] = -1, s[partners[0]] + p.x[i] + 1
            needed += bool(np.array_equal(p.A @ s, p.A @ p.x) and (np.delete(s, i) >= 0).all())
    return Measurement(
        d - rank,
        f"(4) as {encoding}: rank B = {rank}, d = {d}, d − rank = {d - rank}",
        note=f"{needed} of the {d} inequalities s_i ≥ 0 are irredundant on A s = a (a witness each), "
        "so B needs at least that many rows; Algorithm 1 uses B only in 1(B s̃ ≥ b), which works "
        "at any rank",
    )


def _valid_complements(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every d_A-subset I^c of the columns of A (rows) and det A[:, I^c] (rounded: integer A)."""
    import itertools

    subsets = np.array(list(itertools.combinations(range(A.shape[1]), A.shape[0])))
    return subsets, np.rint(np.linalg.det(A[:, subsets].transpose(1, 0, 2))).astype(np.int64)


def _small_lattice_acceptance(lattice, eps: float, proposal_eps: float) -> np.ndarray:
    """Return Algorithm 1's exact stationary acceptance rate on a small E5-like lattice, for every valid I.

    The lattice is centred on its first table; the rate is Σ_s p*(s) (Σ_{s' ≠ s} P[s, s'] + q(s_I)), proposing the
    current point being accepted.
    """
    from isdp.mcmc import DoubleGeometric
    from isdp_papers.e5_congenial_mis import small_lattice as sl

    tables = sl.invariant_tables(*lattice)
    center = tables[0]
    A, _ = sex_by_age_constraints(("F", "M"), sl.COLS, sl.COLS[1])
    subsets, det = _valid_complements(A)
    rates = []
    for complement in subsets[det != 0]:
        index_set = np.setdiff1d(np.arange(A.shape[1]), complement)
        P, target = sl.mis_transition_matrix(tables, center, eps, proposal_eps, index_set)
        q_self = np.exp(DoubleGeometric(proposal_eps).logpmf(tables[:, index_set] - center[index_set]).sum(axis=1))
        rates.append(float(target @ (1.0 - np.diag(P) + q_self)))
    return np.asarray(rates)


def index_set_choices(run: Run, paper, *, lattice, matrix=None, rel_tol: float = 1e-9) -> Measurement:
    """§2.3's two halves.

    ``not_unique``, more than one proposal index set I (|I| = d − d_A) has rank A[I^c] = d_A, for E5's A (or
    ``matrix``), by enumerating every d_A-subset I^c (the text also counts the unimodular ones, integer solves);
    ``affects_efficiency``, Algorithm 1's exact stationary acceptance differs between the valid I (max/min above 1 +
    ``rel_tol``, floating-point slack) on a small E5-like ``lattice`` (n, female, voting) at E5's ε and ε̃ (at Table 1
    itself each I's rate is a Monte Carlo run of millions of proposals, too slow for a measure).
    """
    problem = _problem(run)
    A = problem.A if matrix is None else np.asarray(matrix, dtype=np.int64)
    m, d = A.shape
    subsets, det = _valid_complements(A)
    valid, unimodular = int((det != 0).sum()), int((np.abs(det) == 1).sum())
    printed = sorted(problem.meta["index_complement"])
    configured = (
        f"; the configured I^c {[i + 1 for i in printed]} among them: "
        f"{bool(np.any(np.all(subsets[det != 0] == printed, axis=1)))}"
        if matrix is None
        else ""
    )
    e5 = run.config["e5"]
    rates = _small_lattice_acceptance(lattice, float(e5["eps"]), float(e5["proposal_eps"]))
    ratio = float(rates.max() / rates.min())
    value = {"not_unique": valid >= 2, "affects_efficiency": ratio > 1.0 + rel_tol}
    return Measurement(
        value,
        f"{valid:,} of the {len(subsets):,} choices of I^c ({m} of {d} cells) give rank "
        f"A[I^c] = {m}; {unimodular:,} of them unimodular{configured}. On the 2 × 3 lattice "
        f"{list(lattice)} at ε = {e5['eps']:g}, ε̃ = {e5['proposal_eps']:g}, the {rates.size} "
        f"valid I give stationary acceptance {rates.min():.4f}–{rates.max():.4f} "
        f"(max/min − 1 = {ratio - 1.0:.3g})",
        n=len(subsets),
    )
