"""Helpers shared by the measures of several experiments."""

from __future__ import annotations

import numpy as np

from isdp.convergence import load_draws
from isdp_papers.claims import Measurement, Run
from isdp_papers.problems import Problem


def vintage_note(run: Run) -> str:
    """Which NHGIS vintage the run used, against the paper's: the DAS errors depend on it."""
    info = run.json("data/source.json")
    used, paper = info["vintage_used"], run.config["data"]["vintage"]
    return (
        f"data vintage v{used}, as the paper"
        if used == paper
        else f"data vintage v{used}, not the paper's v{paper} ({info['reason']}); the DAS errors differ by vintage"
    )


def max_abs_z(z, what: str) -> Measurement:
    """Return the z-scores themselves (the criterion sets the threshold) and their largest |z|."""
    z = np.asarray(z, dtype=float)
    if z.size == 0:
        return Measurement(z, f"no {what}", n=0)
    return Measurement(z, f"max |z| = {np.abs(z).max():.2f} over {z.size} {what}", n=z.size)


def draws_keep_invariants(run: Run, problem_rel: str, draws_rels) -> Measurement:
    """Return True when every stored draw is int64 with A u = 0, checked afresh from the files."""
    problem = Problem.from_json(run.path(problem_rel))
    A = problem.A  # int64, checked when the problem was read
    n, bad = 0, []
    for rel in draws_rels:
        d = load_draws(run.path(rel))
        flat = d.reshape(-1, A.shape[1])
        ok = d.dtype == np.int64 and not np.any(flat @ A.T)
        n += flat.shape[0]
        if not ok:
            bad.append(rel)
    text = (
        f"all {n:,} stored draws int64 with A u = 0"
        if not bad
        else f"violations in {', '.join(bad)} ({n:,} draws checked)"
    )
    return Measurement(not bad and n > 0, text, n=n)


def fmt_list(values, fmt: str = "{}") -> str:
    """Return ``values``, each formatted by ``fmt``, joined by commas."""
    return ", ".join(fmt.format(v) for v in values)


def max_r_hat_of(conv, units: str) -> tuple[float, str]:
    """Largest R-hat of a convergence table, and the start of its description (min bulk ESS included)."""
    r = float(conv["max_r_hat"].max())
    return r, f"max R-hat {r:.4f} over {units}; min bulk ESS {float(conv['min_ess_bulk'].min()):.0f}"


def two_sample_chi2(a, b, min_count: int = 10) -> tuple[float, int, float]:
    """Chi-square test that two integer samples share one law: (statistic, dof, p-value).

    A 2 × (values) contingency table; values whose pooled count is below ``min_count`` are
    merged into one tail cell so the chi-square approximation holds. It compares a sampler's draws
    of one cell with exact draws of the same law (:func:`isdp.exact.sample_conditioned_dg`).

    Parameters
    ----------
    a, b : array_like of int
        The two samples, of any lengths.
    min_count : int, default 10
        Values seen fewer times than this in both samples together share one cell.

    Returns
    -------
    tuple of (float, int, float)
        The statistic (without continuity correction), its degrees of freedom and the p-value;
        ``(0.0, 0, 1.0)`` when fewer than two cells remain.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.mcmc import DoubleGeometric
    >>> from isdp_papers.measure_helpers import two_sample_chi2
    >>> rng = np.random.default_rng(0)
    >>> one, other = DoubleGeometric(1.0), DoubleGeometric(0.7)
    >>> a, b, c = one.rvs(2000, rng), one.rvs(2000, rng), other.rvs(2000, rng)
    >>> statistic, dof, p = two_sample_chi2(a, b)  # one law
    >>> dof, round(p, 3)
    (11, 0.997)
    >>> two_sample_chi2(a, c)[2] < 1e-20  # DG(1) against DG(0.7)
    True
    """
    a, b = np.asarray(a), np.asarray(b)
    values = np.union1d(a, b)
    table = np.array([[np.sum(a == v) for v in values], [np.sum(b == v) for v in values]])
    keep = table.sum(axis=0) >= min_count
    if (~keep).any():
        table = np.column_stack([table[:, keep], table[:, ~keep].sum(axis=1)])
    if table.shape[1] < 2:
        return 0.0, 0, 1.0
    from scipy import stats  # deferred: SciPy's statistics cost a job 0.5 s to import, for this one test

    res = stats.chi2_contingency(table, correction=False)
    return float(res.statistic), int(res.dof), float(res.pvalue)
