"""E3: ℓ1 generalized Laplace noise for a state's county populations, state total invariant.

ISDP §5 (Fig 2) and App. E.4 (Fig 8): per state, one sum constraint over its counties, target
π(u) ∝ exp(−ε‖u‖₁) on {u ∈ Z^n : Σu = 0}. Convergence protocol: several chains from
over-dispersed starts (ISDP App. E.4) — each start is the end of an independent chain run with a
flatter target (ε × ``factor``) on the Smith basis, whose star moves spread fast — then the
chains burn in on the pair heat-bath kernel (:mod:`isdp.mcmc`) and store their draws with
the paper's Metropolis sweep (Algorithm 1) on the Smith basis. Two gates: first a coupling
certificate (:func:`isdp.convergence.certify_heat_bath`: pairs started from the same over-dispersed law
against exact draws from π) sets the burn-in to ⌈t_cert · (1 + margin)⌉, where the 95 % upper
confidence bound on the TV distance is at most 0.01; then, after sampling, rank-normalised split
R-hat (ArviZ) < 1.01 for every county. The retained draws are pooled over chains.

Also: the non-negativity check of the noisy counts, and the agreement of the MCMC draws with
the exact sampler :func:`isdp.exact.sample_sum_constraint_l1` (two-sample tests).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields

import numpy as np
import pandas as pd

from isdp.convergence import (
    Certificate,
    certify_heat_bath,
    convergence_table,
    summarize_convergence,
)
from isdp.errors import CertificationError
from isdp.lattice import IntegerLattice, check_release, generalized_laplace, sum_constraint, with_mixing_basis
from isdp.mcmc import heat_bath_sweeps, sample
from isdp_papers.jobs import derive_seed
from isdp_papers.measure_helpers import two_sample_chi2
from isdp_papers.nhgis.counties import state_counties
from isdp_papers.unbiasedness import unbiasedness_table

log = logging.getLogger(__name__)


class ConvergenceError(RuntimeError):
    """R-hat of some county is not below the threshold; the message names the state and county."""


@dataclass(frozen=True)
class CertificateSettings:
    """``e3.mcmc.certificate``.

    The coupling certificate that sets the burn-in (:func:`isdp.convergence.certify_heat_bath`).
    """

    pairs: int  # each pair starts at a fresh over-dispersed draw against an exact draw from π
    threshold: float  # the TV bound to certify
    max_iter: int  # sweeps after which a pair that has not met counts as censored
    margin: float  # burn-in = ⌈t_cert · (1 + margin)⌉ sweeps


@dataclass(frozen=True)
class OverdispersionSettings:
    """``e3.mcmc.overdispersion``.

    Each start is the end of a chain of ``n_iter`` iterations on the flatter target ε · ``factor``
    (:func:`overdispersed_starts`).
    """

    factor: float
    n_iter: int


@dataclass(frozen=True)
class StateSettings:
    """How :func:`run_state` draws a state's noise: ``e3.eps`` and the ``e3.mcmc`` block, typed and checked."""

    eps: float
    n_chains: int
    n_draws: int  # retained draws, pooled over the chains
    draws_per_chain: int  # stored draws per chain, on which R-hat and ESS are computed
    thin: int  # iterations between stored draws
    draw_basis: str  # the basis of the Metropolis sweep that stores the draws
    proposal_eps: float
    r_hat_max: float
    overdispersion: OverdispersionSettings
    certificate: CertificateSettings

    def __post_init__(self):
        if self.n_draws % self.n_chains:
            raise ValueError(f"n_draws={self.n_draws} is not a multiple of n_chains={self.n_chains}")
        if self.draws_per_chain % self.retained_per_chain:
            raise ValueError(
                f"draws_per_chain={self.draws_per_chain} is not a multiple of "
                f"n_draws/n_chains={self.retained_per_chain}"
            )

    @classmethod
    def from_config(cls, eps: float, mcmc: Mapping) -> StateSettings:
        """From ``e3.eps`` and the ``e3.mcmc`` block (the params ``eps`` and ``mcmc`` of the rule ``e3_states``)."""
        over, cert = mcmc["overdispersion"], mcmc["certificate"]
        return cls(
            eps=float(eps),
            n_chains=int(mcmc["n_chains"]),
            n_draws=int(mcmc["n_draws"]),
            draws_per_chain=int(mcmc["draws_per_chain"]),
            thin=int(mcmc["thin"]),
            draw_basis=str(mcmc["draw_basis"]),
            proposal_eps=float(mcmc["proposal_eps"]),
            r_hat_max=float(mcmc["r_hat_max"]),
            overdispersion=OverdispersionSettings(factor=float(over["factor"]), n_iter=int(over["n_iter"])),
            certificate=CertificateSettings(
                pairs=int(cert["pairs"]),
                threshold=float(cert["threshold"]),
                max_iter=int(cert["max_iter"]),
                margin=float(cert["margin"]),
            ),
        )

    @property
    def retained_per_chain(self) -> int:
        """The draws each chain keeps: ``n_draws`` shared equally among the ``n_chains`` chains."""
        return self.n_draws // self.n_chains


@dataclass(frozen=True)
class StateSummary:
    """A state's run record (``run_<state>.json``, :meth:`as_row`).

    What :func:`run_state` ran and how it converged. A one-county state has no chain: NaN or 0 where a chain's figure
    would be.
    """

    state: str
    n_counties: int
    n_chains: int
    sampler: str  # "mcmc", or the point mass of a one-county state
    max_r_hat: float  # over the counties, on the stored draws (:func:`isdp.diagnostics.summarize_convergence`)
    min_ess_bulk: float
    min_ess_tail: float
    n_constant: int  # counties whose draws never move
    worst_county: str  # the county of the largest R-hat
    min_ess_bulk_retained: float  # on the retained (thinned, pooled) draws
    start_l1_mean: float  # mean ‖u‖₁ of the over-dispersed starts
    overdispersion_factor: float
    overdispersion_iter: int
    burn_in_sampler: str  # the certified kernel of the burn-in
    draw_basis: str
    t_cert: int
    certify_seconds: float
    burn_in: int  # sweeps
    thin: int
    diagnostic_draws_per_chain: int
    retained_thin: int  # iterations between retained draws
    n_retained: int
    acceptance: float
    proposal_eps: float
    seconds: float  # of the chains that store the draws

    def as_row(self) -> dict:
        """Return the record as a JSON-able dict, keys in :data:`STATE_SUMMARY_COLUMNS` order."""
        return asdict(self)

    def convergence_row(self) -> dict:
        """Return the state's row of E3's convergence table (:data:`CONVERGENCE_COLUMNS`)."""
        return {k: getattr(self, k) for k in CONVERGENCE_COLUMNS}


#: the fields of a state's run record
STATE_SUMMARY_COLUMNS = tuple(f.name for f in fields(StateSummary))
#: the columns of E3's convergence table: the run record without the sampler label, the constant-county
#: count and the timings
CONVERGENCE_COLUMNS = (
    "state",
    "n_counties",
    "n_chains",
    "max_r_hat",
    "worst_county",
    "min_ess_bulk",
    "min_ess_tail",
    "min_ess_bulk_retained",
    "n_retained",
    "diagnostic_draws_per_chain",
    "burn_in_sampler",
    "t_cert",
    "burn_in",
    "draw_basis",
    "thin",
    "retained_thin",
    "overdispersion_factor",
    "overdispersion_iter",
    "start_l1_mean",
    "acceptance",
    "proposal_eps",
)


@dataclass
class StateRun:
    """Result of :func:`run_state`."""

    draws: np.ndarray  # int64 (chains, retained per chain, n): the retained (thinned) draws
    diagnostics: pd.DataFrame  # per county: R-hat, bulk/tail ESS on the diagnostic draws
    summary: StateSummary
    starts: np.ndarray  # int64 (chains, n): the over-dispersed initial states
    certificate: Certificate | None = None  # None: one county, nothing to certify


def overdispersed_starts(
    lattice: IntegerLattice, eps: float, *, n_chains: int, factor: float, n_iter: int, proposal_eps: float, seed: int
) -> np.ndarray:
    """Return initial states from independent chains run ``n_iter`` iterations on the flatter target ε·factor.

    The flatter target has ``1/factor`` times the noise scale, so the proposal scale is widened by
    the same factor (``proposal_eps * factor``). Starting at 0, the chains spread out to a few
    times the real target's scale: over-dispersed relative to π, as split R-hat requires.
    """
    if not 0 < factor <= 1:
        raise ValueError(f"factor must be in (0, 1], got {factor}")
    flat = generalized_laplace(eps * factor, "l1")
    res = sample(
        lattice,
        flat,
        n_chains=n_chains,
        n_draws=0,
        burn_in=int(n_iter),
        proposal_eps=proposal_eps * factor,
        seed=seed,
        progress=False,
    )
    return res.final_state


def run_state(
    n_counties: int, settings: StateSettings, *, seed: int, cell_names=None, label: str = "state"
) -> StateRun:
    """Draws of ℓ1 generalized Laplace noise with one sum constraint over ``n_counties`` cells.

    Every chain starts at :func:`overdispersed_starts` (``settings.overdispersion``) and burns in on the
    pair heat-bath kernel (:func:`isdp.mcmc.heat_bath_sweeps`) for the certified burn-in
    (:func:`_certified_burn_in`). Then, from there, the chains store ``settings.draws_per_chain`` draws
    ``settings.thin`` iterations apart with the Metropolis sweep (ISDP Algorithm 1) on
    ``settings.draw_basis``: a π-invariant kernel never moves a chain's law away from π in total
    variation, so the certified bound holds for every stored draw. R-hat and ESS (ArviZ) are computed
    on all stored draws; the ``settings.n_draws`` retained draws are the stored draws thinned evenly,
    ``settings.retained_per_chain`` per chain. Raises :class:`ConvergenceError` naming ``label`` and the
    worst county when some R-hat is not below ``settings.r_hat_max`` (or undefined). A one-county state
    has no noise to draw: its draws are the exact point mass at 0, it has nothing to certify and its
    R-hat is undefined (``sampler`` says so).
    """
    names = list(cell_names) if cell_names is not None else [str(i) for i in range(n_counties)]
    if n_counties == 1:
        return _point_mass_run(names, settings, label=label)
    A = sum_constraint(n_counties)
    smith = IntegerLattice.from_constraints(A)
    cert, burn_in = _certified_burn_in(smith, settings, seed=seed, label=label)
    starts = _starts(smith, settings, settings.n_chains, derive_seed(seed, "overdispersed"))
    burnt = heat_bath_sweeps(starts, epsilon=settings.eps, n_sweeps=burn_in, seed=derive_seed(seed, "burn-in"))
    # Any π-invariant kernel K contracts TV to π (‖μK − π‖ ≤ ‖μ − π‖), so every draw after the
    # certified burn-in is within the certified bound, whichever kernel stores the draws.
    draw_lattice = with_mixing_basis(smith, settings.draw_basis)
    res = sample(
        draw_lattice,
        generalized_laplace(settings.eps, "l1"),
        n_chains=settings.n_chains,
        n_draws=settings.draws_per_chain,
        thin=settings.thin,
        proposal_eps=settings.proposal_eps,
        seed=derive_seed(seed, "chains"),
        init=burnt,
    )
    check_release(res.draws, A, np.zeros(1, dtype=np.int64), what=f"{label} noise draws")
    table = convergence_table(res.draws, names)
    step = settings.draws_per_chain // settings.retained_per_chain
    retained = np.ascontiguousarray(res.draws[:, step - 1 :: step])
    table["ess_bulk_retained"] = convergence_table(retained, names)["ess_bulk"].to_numpy()
    worst = table.loc[table["r_hat"].fillna(np.inf).idxmax()]
    summary = StateSummary(
        state=label,
        n_counties=n_counties,
        n_chains=settings.n_chains,
        sampler="mcmc",
        **summarize_convergence(table),
        worst_county=str(worst["cell"]),
        min_ess_bulk_retained=float(table["ess_bulk_retained"].min()),
        start_l1_mean=float(np.abs(starts).sum(axis=1).mean()),
        overdispersion_factor=settings.overdispersion.factor,
        overdispersion_iter=settings.overdispersion.n_iter,
        burn_in_sampler=cert.basis,
        draw_basis=draw_lattice.basis_name,
        t_cert=int(cert.t_cert),
        certify_seconds=float(cert.seconds),
        burn_in=int(burn_in),
        thin=settings.thin,
        diagnostic_draws_per_chain=settings.draws_per_chain,
        retained_thin=settings.thin * step,
        n_retained=int(retained.shape[0] * retained.shape[1]),
        acceptance=float(res.acceptance.mean()),
        proposal_eps=settings.proposal_eps,
        seconds=float(res.seconds),
    )
    log.info("%s: %s", label, summary)
    bad = table[~(table["r_hat"] < settings.r_hat_max)]
    if len(bad):
        raise ConvergenceError(
            f"{label}: split R-hat not below {settings.r_hat_max} for {len(bad)} of {n_counties} counties; worst "
            f"{worst['cell']} (R-hat {worst['r_hat']:.4f}); failing: {list(bad['cell'])[:10]}. "
            "Raise draws_per_chain or thin."
        )
    return StateRun(draws=retained, diagnostics=table, summary=summary, starts=starts, certificate=cert)


def _starts(lattice: IntegerLattice, settings: StateSettings, n_chains: int, seed: int) -> np.ndarray:
    """``n_chains`` draws of the over-dispersed starting law of ``settings``."""
    over = settings.overdispersion
    return overdispersed_starts(
        lattice,
        settings.eps,
        n_chains=n_chains,
        factor=over.factor,
        n_iter=over.n_iter,
        proposal_eps=settings.proposal_eps,
        seed=seed,
    )


def _certified_burn_in(
    smith: IntegerLattice, settings: StateSettings, *, seed: int, label: str
) -> tuple[Certificate, int]:
    """Return the certificate of the pair heat-bath burn-in and the burn-in it sets, ⌈t_cert · (1 + margin)⌉ sweeps.

    :func:`isdp.convergence.certify_heat_bath` couples ``settings.certificate.pairs`` pairs of that kernel, each
    started at a fresh draw of the over-dispersed law against an exact draw from π, for at most
    ``max_iter`` sweeps. Raises :class:`isdp.errors.CertificationError` naming ``label`` when it certifies nothing.
    """
    cfg = settings.certificate
    start_seed = derive_seed(seed, "certificate starts")
    cert = certify_heat_bath(
        settings.eps,
        start=lambda n: _starts(smith, settings, n, start_seed),
        n_pairs=cfg.pairs,
        threshold=cfg.threshold,
        max_iter=cfg.max_iter,
        seed=derive_seed(seed, "certificate"),
    )
    if not cert.certified:
        raise CertificationError(f"{label}: {cert.status}; raise e3.mcmc.certificate.pairs or max_iter")
    burn_in = cert.burn_in(0, cfg.margin)
    log.info("%s: %s (%.1f s)", label, cert.verdict(burn_in), cert.seconds)
    return cert, burn_in


def _point_mass_run(names, settings: StateSettings, *, label: str) -> StateRun:
    """Return a one-county state (e.g. DC).

    The invariant total fixes the county, so Λ = {0} and the target is the point mass at u = 0. Its draws are exact
    zeros; R-hat and ESS are undefined (no chain).
    """
    log.info("%s: one county, fixed by the state total: the noise is exactly 0 (no chain to run)", label)
    nan = float("nan")
    table = pd.DataFrame(
        {"cell": names, "r_hat": [nan], "ess_bulk": [nan], "ess_tail": [nan], "ess_bulk_retained": [nan]}
    )
    summary = StateSummary(
        state=label,
        n_counties=1,
        n_chains=settings.n_chains,
        sampler="point mass (one county)",
        max_r_hat=nan,
        min_ess_bulk=nan,
        min_ess_tail=nan,
        n_constant=1,
        worst_county=names[0],
        min_ess_bulk_retained=nan,
        start_l1_mean=0.0,
        overdispersion_factor=nan,
        overdispersion_iter=0,
        burn_in_sampler="none (one county)",
        draw_basis="none (one county)",
        t_cert=0,
        certify_seconds=0.0,
        burn_in=0,
        thin=0,
        diagnostic_draws_per_chain=0,
        retained_thin=0,
        n_retained=settings.n_draws,
        acceptance=nan,
        proposal_eps=nan,
        seconds=0.0,
    )
    draws = np.zeros((settings.n_chains, settings.retained_per_chain, 1), dtype=np.int64)
    return StateRun(draws=draws, diagnostics=table, summary=summary, starts=np.zeros((settings.n_chains, 1), np.int64))


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


EXACT_COLUMNS = [
    "statistic",
    "mcmc_mean",
    "exact_mean",
    "diff_se",
    "chi2",
    "dof",
    "p_chi2",
    "p_ks",
    "n_mcmc",
    "n_exact",
]


def compare_with_exact(mcmc, exact, sf1) -> pd.DataFrame:
    """Two-sample tests, MCMC vs exact draws, on three statistics of the noise vector.

    Statistics: the noise of the largest and of the smallest county (by SF1) and ‖u‖₁. Per
    statistic: means, the SE of their difference, the chi-square test (:func:`two_sample_chi2`)
    and the two-sample Kolmogorov–Smirnov p-value (conservative for discrete data).
    """
    from scipy import stats

    sf1 = np.asarray(sf1)
    if sf1.shape[0] == 1:  # one county: the noise is exactly 0 in both; nothing to test
        return pd.DataFrame(columns=EXACT_COLUMNS)
    mcmc = np.asarray(mcmc).reshape(-1, sf1.shape[0])
    exact = np.asarray(exact).reshape(-1, sf1.shape[0])
    big, small = int(np.argmax(sf1)), int(np.argmin(sf1))
    rows = []
    for name, f in (
        ("largest county", lambda d: d[:, big]),
        ("smallest county", lambda d: d[:, small]),
        ("l1 norm", lambda d: np.abs(d).sum(axis=1)),
    ):
        x, y = f(mcmc).astype(float), f(exact).astype(float)
        chi2, dof, p = two_sample_chi2(x, y)
        rows.append(
            {
                "statistic": name,
                "mcmc_mean": x.mean(),
                "exact_mean": y.mean(),
                "diff_se": float(np.sqrt(x.var(ddof=1) / len(x) + y.var(ddof=1) / len(y))),
                "chi2": chi2,
                "dof": dof,
                "p_chi2": p,
                "p_ks": float(stats.ks_2samp(x, y).pvalue),
                "n_mcmc": len(x),
                "n_exact": len(y),
            }
        )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- per state and across states


def diagnostics_table(run: StateRun, state: str, group: pd.DataFrame) -> pd.DataFrame:
    """Per county of ``group``.

    The state, its ``gisjoin``, the run's convergence diagnostics, then name and the SF1 and DAS populations.
    """
    diag = run.diagnostics.rename(columns={"cell": "gisjoin"})
    diag.insert(0, "state", state)
    return diag.merge(group[["gisjoin", "name", "sf1_pop", "dp_pop"]], on="gisjoin")


def mcmc_vs_exact(run: StateRun, group: pd.DataFrame, eps: float, seed: int, state: str) -> pd.DataFrame:
    """Compare the run's retained draws with as many exact draws (:func:`compare_with_exact`), the state first.

    The exact draws are :func:`isdp.exact.sample_sum_constraint_l1`'s, seed ``derive_seed(seed, "exact")``. One county:
    the point mass at 0 is the exact law (no test rows).
    """
    from isdp.exact import sample_sum_constraint_l1

    n = len(group)
    flat = run.draws.reshape(-1, n)
    exact = sample_sum_constraint_l1(n, eps, len(flat), derive_seed(seed, "exact")) if n > 1 else flat
    comparison = compare_with_exact(flat, exact, group["sf1_pop"].to_numpy())
    comparison.insert(0, "state", state)
    return comparison


#: the columns of ``results/tables/e3_certificates.csv``
CERTIFICATE_COLUMNS = (
    "state",
    "counties",
    "basis",
    "lag",
    "pairs",
    "censored",
    "confidence_level",
    "threshold",
    "t_star",
    "t_cert",
    "burn_in",
    "tv_estimate_at_burn_in",
    "tv_bound_at_burn_in",
    "certified_at_burn_in",
    "tau_minus_lag_q50",
    "tau_minus_lag_q90",
    "tau_minus_lag_q99",
    "tau_minus_lag_max",
    "certify_seconds",
    "status",
)
NOTHING_TO_CERTIFY = "one county: the state total fixes it, the noise is exactly 0; nothing to certify"


def certificate_record(run: StateRun, state: str) -> dict:
    """Return the run's certificate as a JSON-able record.

    The :data:`CERTIFICATE_COLUMNS` and its curves at the sweeps ``curve_t``: ``curve_bound`` (the 95 % upper confidence
    bound) and ``curve_estimate`` (the point estimate). A one-county state's record says it has nothing to certify.
    """
    if run.certificate is None:
        return {
            "state": state,
            "counties": 1,
            "basis": "none",
            "lag": 0,
            "pairs": 0,
            "censored": 0,
            "confidence_level": float("nan"),
            "threshold": float("nan"),
            "t_star": 0,
            "t_cert": 0,
            "burn_in": 0,
            "tv_estimate_at_burn_in": 0.0,
            "tv_bound_at_burn_in": 0.0,
            "certified_at_burn_in": 1,
            "tau_minus_lag_q50": float("nan"),
            "tau_minus_lag_q90": float("nan"),
            "tau_minus_lag_q99": float("nan"),
            "tau_minus_lag_max": float("nan"),
            "certify_seconds": 0.0,
            "status": NOTHING_TO_CERTIFY,
            "curve_t": [],
            "curve_estimate": [],
            "curve_bound": [],
        }
    summary = run.certificate.summary(burn_in=run.summary.burn_in)
    t, estimate = run.certificate.curve()
    record = {
        "state": state,
        "counties": run.summary.n_counties,
        "burn_in": run.summary.burn_in,
        **{k: summary[k] for k in CERTIFICATE_COLUMNS if k in summary},
    }
    return {
        **{k: record[k] for k in CERTIFICATE_COLUMNS},
        "curve_t": t.tolist(),
        "curve_estimate": estimate.tolist(),
        "curve_bound": run.certificate.bound(t).tolist(),
    }


def certificate_attrs(record: dict) -> dict:
    """NetCDF attributes of a state's draws (``certificate_*``, scalars only), from :func:`certificate_record`."""
    return {f"certificate_{k}": record[k] for k in CERTIFICATE_COLUMNS if k not in ("state", "counties")}


def state_tables(
    counties: pd.DataFrame, states, draws_paths, diagnostics_paths, run_paths, band: int
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """E3's tables across states, one row per state (in ``states`` order; the paths in the same order).

    Convergence (:meth:`StateSummary.convergence_row` of each run record), non-negativity (:func:`nonnegativity` with
    ``band``, and the vintage) and unbiasedness (z of the per-county noise means,
    :func:`isdp_papers.unbiasedness.unbiasedness_table`, with the retained-draw ESS).
    """
    import json

    from isdp.convergence import load_draws
    from isdp.lattice import sum_constraint

    conv, nonneg, unb = [], [], []
    for state, draws_path, diag_path, run_path in zip(states, draws_paths, diagnostics_paths, run_paths, strict=True):
        group = state_counties(counties, state)
        with open(run_path) as fh:
            summary = StateSummary(**json.loads(fh.read()))
        diag = pd.read_csv(diag_path)
        conv.append(summary.convergence_row())
        draws = load_draws(draws_path, A=sum_constraint(len(group)))  # integer noise keeping the state total
        nonneg.append(
            {
                "state": state,
                **nonnegativity(group["sf1_pop"].to_numpy(), draws, band=band),
                "vintage": group["vintage"].iloc[0],
            }
        )
        t = unbiasedness_table(
            draws,
            diag["ess_bulk_retained"].to_numpy(),
            list(group["gisjoin"]),
            fixed=np.full(len(group), len(group) == 1),
        )  # one county: its total fixes it
        unb.append(
            {
                "state": state,
                "n_counties": len(group),
                "max_abs_z": float(np.abs(t["z"]).max()),
                "mean_abs_z": float(np.abs(t["z"]).mean()),
                "max_abs_mean": float(np.abs(t["mean"]).max()),
                "mean_sd": float(t["sd"].mean()),
            }
        )
    return pd.DataFrame(conv), pd.DataFrame(nonneg), pd.DataFrame(unb)
