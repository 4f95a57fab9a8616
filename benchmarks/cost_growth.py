"""How the cost of the ℓ1 sampler grows with the problem (`make benchmark`; docs/performance.md).

Problems: one sum constraint over n cells, n in (10, 25, 50, 102, 254), and r × r tables with
all margins fixed up to 32 × 32 = 1024 cells; target ℓ1 generalized Laplace, ε = 0.192 (the
census experiment). Per problem, single core (numba 1 thread); every "second" is a CPU second
of this process, so other jobs on a shared machine do not inflate it:

- updates_per_s: component updates per second of one chain (median of 3 runs);
- rhat_seconds: sampling seconds of 4 over-dispersed chains until the max over cells of the
  rank-normalised split R-hat is below 1.01, checked at T = T0, 2T0, 4T0, ... iterations on the
  draws of iterations T/2..T (thinned to at most 1000 per chain); blank if the budget ran out;
- ess_bulk_min_per_s: the smallest bulk ESS over cells of those draws, per sampling second
  of that half;
- meeting times of L-lag coupled pairs (L = 100) within max_iter (set by a time budget):
  pairs met, pairs censored, median τ - L among the pairs that met;
- exact_draws_per_s: draws per second of the exact rejection sampler (sum constraints only; NaN where it refuses
  to run, its forecast cost beyond MAX_PROPOSALS);
- certificates (`--certified`, added to an existing CSV): :func:`isdp.convergence.certify` of the sampler on
  the mixing basis (path for sums, adjacent 2×2 moves for tables), 100 pairs from u = 0, lag 50:
  certified_t (iterations to TV bound < 0.01, or "censored k/100"), certified_t_seconds (CPU
  seconds of one chain to run them: certified_t × dim / updates_per_s) and certify_seconds (the
  pairs' CPU seconds). max_iter: 2,000,000 for sums (the coupling study certifies them), for
  tables what a CERT_BUDGET_S budget allows if every pair is censored.

proposal_eps is chosen per problem by `isdp.mcmc.tune_proposal` over PROPOSAL_GRID. The lattice of
an r × r table is built from its basic moves (e_ij - e_ir - e_rj + e_rr), a basis of Λ(A) for
two-way margins; the Smith normal form route costs minutes in sympy at 1024 cells.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import time
from pathlib import Path

import numba
import numpy as np
import pandas as pd

from isdp.convergence import certify, convergence_table, summarize_convergence
from isdp.exact import sample_sum_constraint_l1, sum_constraint_acceptance
from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint, table_margins, with_mixing_basis
from isdp.mcmc import meeting_times, sample, tune_proposal

EPS = 0.192
PROPOSAL_GRID = (0.05, 0.1, 0.2, 0.4, 0.8)
RHAT_TARGET = 1.01
N_CHAINS = 4
LAG = 100
N_PAIRS = 16
CERT_PAIRS, CERT_LAG, CERT_BUDGET_S = 100, 50, 60.0
MAX_KEPT = 1000  # draws kept per chain and checkpoint, for the diagnostics
MAX_PROPOSALS = 10**9  # sample_sum_constraint_l1's default budget of proposals, beyond which it refuses to run
RESULTS = Path(__file__).parent / "results"


def table_lattice(r: int, c: int) -> IntegerLattice:
    """Λ of the r × c margins, spanned by the basic moves on cells (i, j), (i, c), (r, j), (r, c)."""
    A = table_margins(r, c)
    basis = np.zeros((r * c, (r - 1) * (c - 1)), dtype=np.int64)
    for col, (i, j) in enumerate((i, j) for i in range(r - 1) for j in range(c - 1)):
        basis[[i * c + j, (r - 1) * c + c - 1], col] = 1
        basis[[i * c + c - 1, (r - 1) * c + j], col] = -1
    assert not (A @ basis).any()
    return IntegerLattice(A=A, basis=basis, rank=r + c - 1)


def overdispersed_starts(lattice: IntegerLattice, rng: np.random.Generator, spread: int = 60) -> np.ndarray:
    """Lattice points with coordinates uniform on ±spread, far out in the target's tails."""
    return (lattice.basis @ rng.integers(-spread, spread + 1, (lattice.dim, N_CHAINS))).T


def updates_per_second(lattice, target, proposal_eps, n_updates: int) -> float:
    iters = max(1, n_updates // lattice.dim)
    rates = []
    for seed in range(3):
        tick = time.process_time()
        sample(
            lattice,
            target,
            n_chains=1,
            n_draws=1,
            burn_in=iters - 1,
            proposal_eps=proposal_eps,
            seed=seed,
            progress=False,
        )
        rates.append(iters * lattice.dim / (time.process_time() - tick))
    return float(np.median(rates))


def time_to_rhat(lattice, target, proposal_eps, budget_s: float, seed: int) -> dict:
    """Double the run until R-hat < RHAT_TARGET on its second half, or the budget is spent."""
    rng = np.random.default_rng(seed)
    state = overdispersed_starts(lattice, rng)
    # One-off costs (compilation for this call pattern, importing ArviZ) stay out of the timing.
    warm = sample(
        lattice,
        target,
        n_chains=N_CHAINS,
        n_draws=4,
        thin=2,
        proposal_eps=proposal_eps,
        init=state,
        seed=seed,
        progress=False,
    )
    convergence_table(warm.draws)
    seconds, total, segment = 0.0, 0, 50
    while True:
        thin = -(-segment // MAX_KEPT)
        kept = segment // thin
        tick = time.process_time()
        res = sample(
            lattice,
            target,
            n_chains=N_CHAINS,
            n_draws=kept,
            thin=thin,
            burn_in=segment - kept * thin,
            proposal_eps=proposal_eps,
            init=state,
            seed=seed + total,
            progress=False,
        )
        half_seconds = time.process_time() - tick
        state, seconds, total = res.final_state, seconds + half_seconds, total + segment
        if total >= 2 * segment:  # the first segment is all start-up: not judged
            summary = summarize_convergence(convergence_table(res.draws))
            if summary["max_r_hat"] < RHAT_TARGET:
                return {
                    "rhat_iterations": total,
                    "rhat_seconds": seconds,
                    "ess_bulk_min_per_s": summary["min_ess_bulk"] / half_seconds,
                }
        if seconds > budget_s:
            return {
                "rhat_iterations": np.nan,
                "rhat_seconds": np.nan,
                "ess_bulk_min_per_s": np.nan,
                "rhat_censored_after_s": seconds,
            }
        segment = total  # the next checkpoint is at 2 × total, judged on the new half


def coupling(lattice, target, proposal_eps, budget_s: float, rate: float, seed: int) -> dict:
    meeting_times(lattice, target, lag=1, n_pairs=1, proposal_eps=proposal_eps, seed=seed, max_iter=2)  # compile
    # A coupled iteration updates two chains and draws maximally coupled jumps: ~4 single updates.
    max_iter = int(np.clip(budget_s * rate / (4 * lattice.dim * N_PAIRS), 2 * LAG, 200_000))
    tick = time.process_time()
    mt = meeting_times(
        lattice, target, lag=LAG, n_pairs=N_PAIRS, proposal_eps=proposal_eps, seed=seed, max_iter=max_iter
    )
    seconds = time.process_time() - tick
    met = mt.met
    return {
        "max_iter": max_iter,
        "pairs_met": int(met.sum()),
        "pairs_censored": int((~met).sum()),
        "median_tau_minus_lag_met": float(np.median(mt.tau[met] - LAG)) if met.any() else np.nan,
        "coupling_seconds": seconds,
    }


def certified(row: dict) -> dict:
    """The certificate columns of one problem (see the module docstring)."""
    family, cells, dim = row["family"], int(row["cells"]), int(row["dim"])
    r = int(round(np.sqrt(cells)))
    base = IntegerLattice.from_constraints(sum_constraint(cells)) if family == "sum" else table_lattice(r, r)
    lattice = with_mixing_basis(base, "path" if family == "sum" else "table")
    target = generalized_laplace(EPS, "l1")
    rate = float(row["updates_per_s"])
    max_iter = 2_000_000 if family == "sum" else int(CERT_BUDGET_S * rate / (4 * dim * CERT_PAIRS))
    tick = time.process_time()
    cert = certify(
        lattice,
        target,
        proposal_eps=float(row["proposal_eps"]),
        start=None,
        lag=CERT_LAG,
        n_pairs=CERT_PAIRS,
        seed=3,
        max_iter=max_iter,
    )
    seconds = time.process_time() - tick
    if not cert.certified:
        return {
            "certified_basis": lattice.basis_name,
            "certified_max_iter": max_iter,
            "certified_t": f"censored {cert.n_censored}/{CERT_PAIRS}",
            "certified_t_seconds": np.nan,
            "certify_seconds": seconds,
        }
    return {
        "certified_basis": lattice.basis_name,
        "certified_max_iter": max_iter,
        "certified_t": cert.t_star,
        "certified_t_seconds": cert.t_star * dim / rate,
        "certify_seconds": seconds,
    }


def exact_rate(n: int, budget_s: float) -> float:
    """Exact draws per second on one sum constraint over n cells; NaN where the sampler refuses even one draw (its
    forecast cost, (n − 1)/acceptance DG draws, beyond MAX_PROPOSALS: 254 cells at ε = 0.192)."""
    cap = int(MAX_PROPOSALS * sum_constraint_acceptance(n, EPS) / (n - 1))  # the most draws it accepts to run
    if cap < 1:
        return np.nan
    sample_sum_constraint_l1(n, EPS, 1, seed=0)  # compile
    size, seconds = 16, 0.0
    while seconds < budget_s / 4 and size < cap:
        size = min(size * 4, cap)
        tick = time.process_time()
        sample_sum_constraint_l1(n, EPS, size, seed=size)
        seconds = time.process_time() - tick
    return size / seconds


def machine() -> str:
    cpu = platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        models = [
            line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines() if line.startswith("model name")
        ]
        cpu = f"{models[0]} ({len(models)} logical CPUs)" if models else cpu
    return f"{platform.system()} {cpu}, Python {platform.python_version()}, numba {numba.__version__}"


def plot(df: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 4, figsize=(16, 3.8))
    panels = [
        ("updates_per_s", "component updates / s"),
        ("rhat_seconds", f"seconds to R-hat < {RHAT_TARGET}"),
        ("ess_bulk_min_per_s", "min bulk ESS / s"),
        ("median_tau_minus_lag_met", f"median τ − L, met pairs only (L = {LAG})"),
    ]
    for ax, (col, label) in zip(axes, panels, strict=True):
        for family, marker in (("sum", "o"), ("table", "s")):
            part = df[df["family"] == family]
            ax.plot(part["cells"], part[col], marker=marker, label=f"{family} (MCMC)")
        if col == "ess_bulk_min_per_s":
            part = df[df["family"] == "sum"]
            ax.plot(part["cells"], part["exact_draws_per_s"], marker="^", ls="--", label="sum (exact sampler)")
        ax.set(xscale="log", yscale="log", xlabel="cells", title=label)
        ax.legend(fontsize=8)
    fig.suptitle(f"ℓ1 generalized Laplace, ε = {EPS}, one core")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small problems and budgets (about a minute)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--certified", action="store_true", help="add the certificate columns to the existing CSV")
    args = parser.parse_args()
    numba.set_num_threads(1)
    if args.certified:
        path = args.out / f"cost_growth{'_quick' if args.quick else ''}.csv"
        header = path.read_text().splitlines()[0]
        df = pd.read_csv(path, comment="#")
        extra = pd.DataFrame([certified(row) for row in df.to_dict("records")])
        df = pd.concat([df.drop(columns=extra.columns, errors="ignore"), extra], axis=1)
        print(df[["family", "cells", *extra.columns]].to_string(), flush=True)
        with open(path, "w") as fh:
            fh.write(f"{header}; certificate columns {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC\n")
            df.to_csv(fh, index=False, float_format="%.6g")
        return
    if args.quick:
        problems = [("sum", n) for n in (10, 50)] + [("table", r) for r in (4, 8)]
        budget_s, n_updates = 5.0, 1_000_000
    else:
        problems = [("sum", n) for n in (10, 25, 50, 102, 254)] + [("table", r) for r in (4, 8, 16, 32)]
        budget_s, n_updates = 20.0, 5_000_000
    target = generalized_laplace(EPS, "l1")
    rows = []
    for family, size in problems:
        lattice = (
            IntegerLattice.from_constraints(sum_constraint(size)) if family == "sum" else table_lattice(size, size)
        )
        _, proposal_eps = tune_proposal(lattice, target, PROPOSAL_GRID, n_iter=500)
        row = {"family": family, "cells": lattice.n, "dim": lattice.dim, "proposal_eps": proposal_eps}
        row["updates_per_s"] = updates_per_second(lattice, target, proposal_eps, n_updates)
        row |= time_to_rhat(lattice, target, proposal_eps, budget_s, seed=1)
        row |= coupling(lattice, target, proposal_eps, budget_s, row["updates_per_s"], seed=2)
        row["exact_draws_per_s"] = exact_rate(size, budget_s) if family == "sum" else np.nan
        print({k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()}, flush=True)
        rows.append(row)
    df = pd.DataFrame(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    stem = "cost_growth_quick" if args.quick else "cost_growth"
    header = (
        f"# isdp cost growth, {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, "
        f"{machine()}, numba 1 thread, "
        f"{'quick' if args.quick else 'full'} run\n"
    )
    with open(args.out / f"{stem}.csv", "w") as fh:
        fh.write(header)
        df.to_csv(fh, index=False, float_format="%.6g")
    plot(df, args.out / f"{stem}.png")


if __name__ == "__main__":
    main()
