"""The paper's printed noise tables as draws of the run's laws (ISDP §5 Table 1, App. E.3 Table 3).

Their margins, their norm's quantile, their shape among draws of the same norm, and the ℓ2/ℓ1 ratio of the two tables.
"""

from __future__ import annotations

import numpy as np

from isdp.convergence import load_draws
from isdp_papers import evidence_checks as ec
from isdp_papers.claims import Measurement, Run
from isdp_papers.measure_helpers import fmt_list
from isdp_papers.problems import read_table_csv

from .lattice_structure import _experiment_problem


def _norm(u, norm: str) -> np.ndarray:
    """‖u‖₁ or ‖u‖₂ of each row of ``u`` (``norm`` "l1" or "l2")."""
    u = np.asarray(u, dtype=float)
    return np.abs(u).sum(axis=-1) if norm == "l1" else np.sqrt((u * u).sum(axis=-1))


def _printed_and_drawn(run: Run, exp: str, norm: str, file: str) -> tuple[np.ndarray, np.ndarray]:
    """Return a printed noise table (any sign) flattened, and this run's ``norm``-target draws of ``exp``.

    One draw per row.
    """
    d = load_draws(run.path(f"{exp}/draws_{norm}.nc"), A=_experiment_problem(run, exp).A)  # integer, on Λ(A)
    printed = read_table_csv(ec.committed(run, file), counts=False)[0].ravel().astype(float)
    return printed, d.reshape(-1, d.shape[-1]).astype(float)


def printed_draw_quantile(run: Run, paper, *, exp: str, norm: str, file: str) -> Measurement:
    """Quantile of the paper's printed noise draw's norm in this run's law of that norm."""
    printed, flat = _printed_and_drawn(run, exp, norm, file)
    stat, mine = _norm(flat, norm), float(_norm(printed, norm))
    q = float((stat < mine).mean() + 0.5 * (stat == mine).mean())
    lo, hi = np.percentile(stat, [2.5, 97.5])
    return Measurement(
        q,
        f"printed draw ‖u‖ = {mine:.4g} at quantile {q:.2f} of this run's law "
        f"(mean {stat.mean():.1f}, 95 % range [{lo:.0f}, {hi:.0f}], {stat.size} draws)",
    )


def printed_draw_margins(run: Run, paper, *, file: str) -> Measurement:
    """Return the paper's printed noise table: integer, with every row and column summing to zero."""
    printed = read_table_csv(ec.committed(run, file), counts=False)[0]
    integer = bool(np.all(np.asarray(printed) == np.round(printed)))
    rows, cols = printed.sum(axis=1), printed.sum(axis=0)
    value = {
        "integer": integer,
        "zero_row_totals": bool(np.all(rows == 0)),
        "zero_column_totals": bool(np.all(cols == 0)),
    }
    return Measurement(
        value,
        f"{printed.shape[0]}×{printed.shape[1]} printed cells, integer: {integer}; row totals "
        f"{fmt_list(rows)}; column totals {fmt_list(cols)}",
    )


def printed_draw_shape(run: Run, paper, *, exp: str, norm: str, file: str, window: float) -> Measurement:
    """ISDP §5 Table 1 / App. E.3 Table 3 as single draws of their law, without ε.

    Under π ∝ e^{−ε‖u‖} on Λ, u given its norm is uniform on that shell whatever ε is, so the printed table's shape is
    judged among this run's draws whose norm is within ``window`` (relative) of the printed one. Two statistics that do
    not grow with the norm: the number of zero cells and the largest |u_i| over the norm. The value is each statistic's
    two-sided p-value, 2 min(q, 1 − q), q the printed table's mid-quantile among those draws.
    """
    printed, flat = _printed_and_drawn(run, exp, norm, file)

    def size(u):
        return _norm(u, norm)

    near = flat[np.abs(size(flat) - size(printed)) <= window * size(printed)]
    stats = {
        "zero cells": lambda u: (u == 0).sum(axis=-1),
        "largest |u_i| / ‖u‖": lambda u: np.abs(u).max(axis=-1) / size(u),
    }
    pvalues, parts = [], []
    for name, stat in stats.items():
        if not len(near):  # no draw to compare with: n = 0 makes the row an error
            break
        mine, theirs = float(stat(printed)), stat(near)
        q = float((theirs < mine).mean() + 0.5 * (theirs == mine).mean())
        pvalues.append(min(1.0, 2 * min(q, 1 - q)))
        parts.append(f"{name}: printed {mine:.3g} at quantile {q:.3f} (draws' median {np.median(theirs):.3g})")
    return Measurement(
        np.asarray(pvalues),
        f"{len(near)} of {len(flat)} draws with ‖u‖ within {window:.0%} of the printed {size(printed):.4g}; "
        + "; ".join(parts),
        n=len(near),
    )


def printed_draws_same_eps(run: Run, paper, *, exp: str, files: dict[str, str]) -> Measurement:
    """ISDP §5 Table 1 and App. E.3 Table 3 as draws of the ℓ1 and ℓ2 laws at one ε, without knowing it.

    Under π ∝ e^{−ε‖u‖} on a rank-r lattice, ε‖u‖ is close to Gamma(r, 1) for either norm (Lemma 11's shell counts), so
    the ratio ‖u_ℓ2‖₂ / ‖u_ℓ1‖₁ of independent draws of the two laws hardly depends on ε. The value is the printed
    ratio's two-sided mid-quantile p-value among the ratios of every pair of this run's ℓ2 and ℓ1 draws.
    """
    from scipy import stats

    sizes, printed = {}, {}
    for norm, file in files.items():
        table, flat = _printed_and_drawn(run, exp, norm, file)
        sizes[norm], printed[norm] = _norm(flat, norm), float(_norm(table, norm))
    ratio = printed["l2"] / printed["l1"]
    l2 = np.sort(sizes["l2"])
    below = np.searchsorted(l2, ratio * sizes["l1"], "left")
    ties = np.searchsorted(l2, ratio * sizes["l1"], "right") - below
    q = float(np.mean((below + 0.5 * ties) / l2.size))
    p = min(1.0, 2 * min(q, 1 - q))
    rank = int(np.linalg.matrix_rank(_experiment_problem(run, exp).lattice().basis))
    gamma_q = float(stats.f.cdf(ratio, 2 * rank, 2 * rank))  # the ratio of two Gamma(r, 1): F(2r, 2r)
    return Measurement(
        np.asarray([p]),
        f"printed ‖T3‖₂ / ‖T1‖₁ = {printed['l2']:.4g} / {printed['l1']:.4g} = {ratio:.3f} at mid-quantile {q:.3f} "
        f"of the ratios of this run's {l2.size} ℓ2 and {sizes['l1'].size} ℓ1 draws (their medians "
        f"{np.median(sizes['l2']):.1f} and {np.median(sizes['l1']):.1f}); two-sided p = {p:.3f}",
        note=f"the Gamma({rank}, 1) approximation (ratio ~ F({2 * rank}, {2 * rank}), no lattice correction) puts it "
        f"at quantile {gamma_q:.3f}",
        n=int(l2.size),
    )
