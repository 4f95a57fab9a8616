"""The analyses every lattice experiment runs, as functions returning tidy tables.

The workflow's steps (:mod:`.steps`) call these; keeping them here makes each experiment's numbers
reproducible from Python without Snakemake.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from isdp.convergence import certify, convergence_table, summarize_convergence
from isdp.errors import CertificationError
from isdp.lattice import IntegerLattice, Target, check_release
from isdp.mcmc import MeetingTimes, sample
from isdp_papers.jobs import derive_seed


def coupling_study(
    lattice: IntegerLattice, target: Target, *, lags, n_pairs: int, proposal_eps: float, seed: int, max_iter: int
) -> pd.DataFrame:
    """Meeting times for each lag (:func:`isdp.convergence.certify` from u = 0, where the chains start).

    One row per (lag, pair). Fails (:class:`isdp.errors.CertificationError`) if any pair did not meet.
    """
    frames = []
    for lag in lags:
        cert = certify(
            lattice,
            target,
            proposal_eps=proposal_eps,
            start=None,
            lag=int(lag),
            n_pairs=n_pairs,
            seed=derive_seed(seed, "lag", lag),
            max_iter=max_iter,
        )
        if cert.n_censored:
            raise CertificationError(f"lag {lag}: {cert.status}; the TV estimate would be invalid. Raise max_iter.")
        frames.append(
            pd.DataFrame({"lag": int(lag), "pair": np.arange(n_pairs), "tau": cert.tau, "seconds": cert.seconds})
        )
    return pd.concat(frames, ignore_index=True)


def _pairs(tau: np.ndarray, lag) -> MeetingTimes:
    """Return one lag's meeting times, every pair of which met (:func:`coupling_study` refuses otherwise)."""
    return MeetingTimes(tau=tau, met=np.ones(len(tau), dtype=bool), lag=int(lag), seconds=0.0)


def tv_curves(meetings: pd.DataFrame, t_max: int | None = None) -> pd.DataFrame:
    """TV upper bound vs iteration per lag, with the Monte Carlo standard error of the mean."""
    rows = []
    for lag, g in meetings.groupby("lag"):
        tau = g["tau"].to_numpy()
        hi = t_max if t_max is not None else int((tau - lag).max()) + 1
        ts = np.arange(0, hi + 1)
        terms = _pairs(tau, lag).tv_bound_terms(ts)
        rows.append(
            pd.DataFrame(
                {
                    "lag": lag,
                    "iteration": ts,
                    "tv_bound": terms.mean(axis=0),
                    "se": terms.std(axis=0, ddof=1) / np.sqrt(len(tau)),
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def convergence_by_lag(meetings: pd.DataFrame, threshold: float = 0.01) -> pd.DataFrame:
    """Per lag: the first iteration with bound < threshold, the bound at t = 0, meeting-time quantiles."""
    rows = []
    for lag, g in meetings.groupby("lag"):
        tau = g["tau"].to_numpy()
        rows.append(
            {
                "lag": int(lag),
                "pairs": len(tau),
                "tv_bound_t0": float(_pairs(tau, lag).tv_bound(0)[0]),
                "converged_at": _pairs(tau, lag).convergence_iteration(threshold),
                "median_tau_minus_lag": float(np.median(tau - lag)),
                "max_tau_minus_lag": int((tau - lag).max()),
                "seconds": float(g["seconds"].iloc[0]),
            }
        )
    return pd.DataFrame(rows)


def retained_draws(
    lattice: IntegerLattice,
    target: Target,
    *,
    n_draws: int,
    n_chains: int,
    burn_in: int,
    thin: int,
    proposal_eps: float,
    seed: int,
    invariants_A,
    label: str,
):
    """Post-convergence draws split over chains, checked for integrality and invariants.

    Returns (SamplerResult, convergence table, summary dict). ``n_draws`` must divide evenly
    over the chains so every chain contributes the same number of draws.
    """
    if n_draws % n_chains:
        raise ValueError(f"n_draws={n_draws} is not a multiple of n_chains={n_chains}")
    res = sample(
        lattice,
        target,
        n_chains=n_chains,
        n_draws=n_draws // n_chains,
        burn_in=burn_in,
        thin=thin,
        proposal_eps=proposal_eps,
        seed=seed,
    )
    check_release(
        res.draws,
        invariants_A,
        np.zeros(np.asarray(invariants_A).shape[0], dtype=np.int64),
        what=f"{label} noise draws",
    )
    table = convergence_table(res.draws)
    return res, table, summarize_convergence(table)


def proposals_table(pilots, norms, targets, acceptance_range) -> pd.DataFrame:
    """Return the configured proposal ε per target beside the pilot's choice and the pilot's acceptance.

    The acceptance is the pilot's at the configured value (NaN if the pilot grid does not hold it), with whether it lies
    in ``acceptance_range``.

    ``pilots`` are the pilot tables (:func:`isdp.mcmc.tune_proposal`) in the order of ``norms``; ``targets``
    maps each norm to its config (``proposal_eps``, ``lags``).
    """
    lo, hi = acceptance_range
    rows = []
    for norm, pilot in zip(norms, pilots, strict=True):
        configured = targets[norm]["proposal_eps"]
        at = pilot[(pilot["proposal_eps"] - configured).abs() < 1e-12]
        acceptance = float(at["acceptance"].iloc[0]) if len(at) else float("nan")
        rows.append(
            {
                "target": norm,
                "proposal_eps": configured,
                "pilot_choice": float(pilot.loc[pilot["chosen"], "proposal_eps"].iloc[0]),
                "pilot_acceptance_at_configured": acceptance,
                "in_acceptance_range": bool(lo <= acceptance <= hi),
                "lags": " ".join(str(v) for v in targets[norm]["lags"]),
            }
        )
    return pd.DataFrame(rows)
