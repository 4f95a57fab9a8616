"""E3: ℓ1 generalized Laplace noise for a state's county populations, state total invariant.

ISDP §5 (Fig 2) and App. E.4 (Fig 8): per state, one sum constraint over its counties, target
π(u) ∝ exp(−ε‖u‖₁) on {u ∈ Z^n : Σu = 0}. Convergence protocol (ISDP App. E.4): several
chains from over-dispersed starts — each start is the end of an independent chain run with a
flatter target (ε × ``factor``) — then a burn-in with the real target, then rank-normalised
split R-hat (ArviZ) < 1.01 for every county; the retained draws are pooled over chains.

Also: the non-negativity check of the noisy counts, and the agreement of the MCMC draws with
the exact sampler :func:`isdp.exact.sample_sum_constraint_l1` (two-sample tests).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from isdp import derive_seed
from isdp.diagnostics import convergence_table, summarize_convergence, two_sample_chi2
from isdp.lattice import IntegerLattice, check_release, sum_constraint
from isdp.samplers import sample
from isdp.targets import generalized_laplace

log = logging.getLogger("isdp.experiments.census")


class ConvergenceError(RuntimeError):
    """R-hat of some county is not below the threshold; the message names the state and county."""


@dataclass
class StateRun:
    """Result of :func:`run_state`."""

    draws: np.ndarray  # int64 (chains, retained per chain, n): the retained (thinned) draws
    diagnostics: pd.DataFrame  # per county: R-hat, bulk/tail ESS on the diagnostic draws
    summary: dict  # max R-hat, min ESS, acceptance, iteration counts, worst county
    starts: np.ndarray  # int64 (chains, n): the over-dispersed initial states


def overdispersed_starts(lattice: IntegerLattice, eps: float, *, n_chains: int, factor: float, n_iter: int,
                         proposal_eps: float, seed: int) -> np.ndarray:
    """Initial states from independent chains run ``n_iter`` iterations on the flatter target ε·factor.

    The flatter target has ``1/factor`` times the noise scale, so the proposal scale is widened by
    the same factor (``proposal_eps * factor``). Starting at 0, the chains spread out to a few
    times the real target's scale: over-dispersed relative to π, as split R-hat requires.
    """
    if not 0 < factor <= 1:
        raise ValueError(f"factor must be in (0, 1], got {factor}")
    flat = generalized_laplace(eps * factor, "l1")
    res = sample(lattice, flat, n_chains=n_chains, n_draws=0, burn_in=int(n_iter),
                 proposal_eps=proposal_eps * factor, seed=seed, progress=False)
    return res.final_state


def run_state(n_counties: int, eps: float, *, n_chains: int, n_draws: int, draws_per_chain: int, thin: int,
              burn_in: int, proposal_eps: float, overdispersion: dict, seed: int, cell_names=None,
              label: str = "state", r_hat_max: float = 1.01) -> StateRun:
    """Draws of ℓ1 generalized Laplace noise with one sum constraint over ``n_counties`` cells.

    Every chain starts at :func:`overdispersed_starts` (``overdispersion`` = ``{"factor",
    "n_iter"}``), runs ``burn_in`` iterations with the real target, then stores
    ``draws_per_chain`` draws ``thin`` iterations apart. R-hat and ESS (ArviZ) are computed on
    all stored draws (more draws give a more precise R-hat); ``n_draws`` retained draws are the
    stored draws thinned evenly, ``n_draws / n_chains`` per chain. Raises
    :class:`ConvergenceError` naming ``label`` and the worst county when some R-hat is not
    below ``r_hat_max`` (or undefined). A one-county state has no noise to draw: its draws are
    the exact point mass at 0 and its R-hat is undefined (``sampler`` says so).
    """
    if n_draws % n_chains:
        raise ValueError(f"n_draws={n_draws} is not a multiple of n_chains={n_chains}")
    per_chain = n_draws // n_chains
    if draws_per_chain % per_chain:
        raise ValueError(f"draws_per_chain={draws_per_chain} is not a multiple of n_draws/n_chains={per_chain}")
    names = list(cell_names) if cell_names is not None else [str(i) for i in range(n_counties)]
    if n_counties == 1:
        return _point_mass_run(names, n_chains=n_chains, per_chain=per_chain, label=label)
    A = sum_constraint(n_counties)
    lattice = IntegerLattice.from_constraints(A)
    target = generalized_laplace(eps, "l1")
    starts = overdispersed_starts(lattice, eps, n_chains=n_chains, factor=float(overdispersion["factor"]),
                                  n_iter=int(overdispersion["n_iter"]), proposal_eps=proposal_eps,
                                  seed=derive_seed(seed, "overdispersed"))
    res = sample(lattice, target, n_chains=n_chains, n_draws=draws_per_chain, burn_in=burn_in, thin=thin,
                 proposal_eps=proposal_eps, seed=derive_seed(seed, "chains"), init=starts)
    check_release(res.draws, A, np.zeros(1, dtype=np.int64), what=f"{label} noise draws")
    table = convergence_table(res.draws, names)
    step = draws_per_chain // per_chain
    retained = np.ascontiguousarray(res.draws[:, step - 1 :: step])
    retained_table = convergence_table(retained, names)
    table["ess_bulk_retained"] = retained_table["ess_bulk"].to_numpy()
    worst = table.loc[table["r_hat"].fillna(np.inf).idxmax()]
    summary = {
        "state": label,
        "n_counties": n_counties,
        "n_chains": n_chains,
        "sampler": "mcmc",
        **summarize_convergence(table),
        "worst_county": str(worst["cell"]),
        "min_ess_bulk_retained": float(table["ess_bulk_retained"].min()),
        "start_l1_mean": float(np.abs(starts).sum(axis=1).mean()),
        "overdispersion_factor": float(overdispersion["factor"]),
        "overdispersion_iter": int(overdispersion["n_iter"]),
        "burn_in": int(burn_in),
        "thin": int(thin),
        "diagnostic_draws_per_chain": int(draws_per_chain),
        "retained_thin": int(thin * step),
        "n_retained": int(retained.shape[0] * retained.shape[1]),
        "acceptance": float(res.acceptance.mean()),
        "proposal_eps": float(proposal_eps),
        "seconds": float(res.seconds),
    }
    log.info("%s: %s", label, summary)
    bad = table[~(table["r_hat"] < r_hat_max)]
    if len(bad):
        raise ConvergenceError(
            f"{label}: split R-hat not below {r_hat_max} for {len(bad)} of {n_counties} counties; worst "
            f"{worst['cell']} (R-hat {worst['r_hat']:.4f}); failing: {list(bad['cell'])[:10]}. "
            "Raise burn_in or draws_per_chain."
        )
    return StateRun(draws=retained, diagnostics=table, summary=summary, starts=starts)


def _point_mass_run(names, *, n_chains: int, per_chain: int, label: str) -> StateRun:
    """A one-county state (e.g. DC): the invariant total fixes the county, so Λ = {0} and the target
    is the point mass at u = 0. Its draws are exact zeros; R-hat and ESS are undefined (no chain)."""
    log.info("%s: one county, fixed by the state total: the noise is exactly 0 (no chain to run)", label)
    nan = float("nan")
    table = pd.DataFrame({"cell": names, "r_hat": [nan], "ess_bulk": [nan], "ess_tail": [nan],
                          "ess_bulk_retained": [nan]})
    summary = {"state": label, "n_counties": 1, "n_chains": n_chains, "sampler": "point mass (one county)",
               "max_r_hat": nan, "min_ess_bulk": nan, "min_ess_tail": nan, "worst_county": names[0],
               "min_ess_bulk_retained": nan, "start_l1_mean": 0.0, "overdispersion_factor": nan,
               "overdispersion_iter": 0, "burn_in": 0, "thin": 0, "diagnostic_draws_per_chain": 0,
               "retained_thin": 0, "n_retained": n_chains * per_chain, "acceptance": nan, "proposal_eps": nan,
               "seconds": 0.0}
    draws = np.zeros((n_chains, per_chain, 1), dtype=np.int64)
    return StateRun(draws=draws, diagnostics=table, summary=summary, starts=np.zeros((n_chains, 1), np.int64))


def nonnegativity(sf1, draws, band: int = 30) -> dict:
    """How many noisy counts ``sf1 + u`` are negative, and the share of noise entries in [−band, band]."""
    sf1 = np.asarray(sf1, dtype=np.int64)
    flat = np.asarray(draws, dtype=np.int64).reshape(-1, sf1.shape[0])
    noisy = sf1[None, :] + flat
    return {
        "n_counties": int(sf1.shape[0]),
        "n_draws": int(flat.shape[0]),
        "n_noisy_counts": int(noisy.size),
        "n_negative": int((noisy < 0).sum()),
        "n_draws_with_negative": int((noisy < 0).any(axis=1).sum()),
        "min_noisy_count": int(noisy.min()),
        "min_sf1": int(sf1.min()),
        f"share_within_{band}": float((np.abs(flat) <= band).mean()),
        "max_abs_noise": int(np.abs(flat).max()),
    }


EXACT_COLUMNS = ["statistic", "mcmc_mean", "exact_mean", "diff_se", "chi2", "dof", "p_chi2", "p_ks", "n_mcmc",
                 "n_exact"]


def compare_with_exact(mcmc, exact, sf1) -> pd.DataFrame:
    """Two-sample tests, MCMC vs exact draws, on three statistics of the noise vector.

    Statistics: the noise of the largest and of the smallest county (by SF1) and ‖u‖₁. Per
    statistic: means, the SE of their difference, the chi-square test (:func:`two_sample_chi2`)
    and the two-sample Kolmogorov–Smirnov p-value (conservative for discrete data).
    """
    sf1 = np.asarray(sf1)
    if sf1.shape[0] == 1:  # one county: the noise is exactly 0 in both; nothing to test
        return pd.DataFrame(columns=EXACT_COLUMNS)
    mcmc = np.asarray(mcmc).reshape(-1, sf1.shape[0])
    exact = np.asarray(exact).reshape(-1, sf1.shape[0])
    big, small = int(np.argmax(sf1)), int(np.argmin(sf1))
    rows = []
    for name, f in (("largest county", lambda d: d[:, big]), ("smallest county", lambda d: d[:, small]),
                    ("l1 norm", lambda d: np.abs(d).sum(axis=1))):
        x, y = f(mcmc).astype(float), f(exact).astype(float)
        chi2, dof, p = two_sample_chi2(x, y)
        rows.append({"statistic": name, "mcmc_mean": x.mean(), "exact_mean": y.mean(),
                     "diff_se": float(np.sqrt(x.var(ddof=1) / len(x) + y.var(ddof=1) / len(y))),
                     "chi2": chi2, "dof": dof, "p_chi2": p, "p_ks": float(stats.ks_2samp(x, y).pvalue),
                     "n_mcmc": len(x), "n_exact": len(y)})
    return pd.DataFrame(rows)
