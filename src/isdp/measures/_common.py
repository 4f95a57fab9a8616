"""Helpers shared by the measures of several experiments."""

from __future__ import annotations

import numpy as np

from ..claims import Measurement, Run
from ..diagnostics import load_draws
from ..lattice import as_integer_matrix
from ..problems import Problem


def max_abs_z(z, what: str) -> Measurement:
    """The z-scores themselves (the criterion sets the threshold) and their largest |z|."""
    z = np.asarray(z, dtype=float)
    return Measurement(z, f"max |z| = {np.abs(z).max():.2f} over {z.size} {what}")


def draws_keep_invariants(run: Run, problem_rel: str, draws_rels) -> Measurement:
    """True when every stored draw is int64 with A u = 0, checked afresh from the files."""
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
    text = (f"all {n:,} stored draws int64 with A u = 0" if not bad else
            f"violations in {', '.join(bad)} ({n:,} draws checked)")
    return Measurement(not bad, text)


def fmt_list(values, fmt: str = "{}") -> str:
    return ", ".join(fmt.format(v) for v in values)
