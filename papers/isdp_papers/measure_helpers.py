"""Helpers shared by the measures of several experiments."""

from __future__ import annotations

import numpy as np

from isdp.convergence import load_draws
from isdp.lattice import as_integer_matrix
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
    A = as_integer_matrix(problem.A)
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
