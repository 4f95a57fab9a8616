"""Meeting times for the ℓ2 generalized Laplace on one sum constraint
(docs/coupling-study.md, "ℓ2").

Target exp(-ε‖u‖₂), ε = 0.192, on {u ∈ Z^n : Σu = 0}. Two chains, same target:

- ``metropolis``: the component-wise Metropolis designs (benchmarks/coupling_designs.py, proposal ε 0.1,
  lag 50, pairs from u = 0), n = 10, 20, 30, 50, 102, 40 pairs, censored at 100,000 iterations;
  a design stops after its first size with a censored pair;
- ``augmented``: the data-augmentation Gibbs sampler (isdp.mcmc), n = 10 … 254, 1,000 pairs,
  lag 5, from three starting laws: ``zero`` (u = 0), ``overdispersed`` (20 iterations of the
  same sampler on the flatter target ε/4, as E3 starts its chains) and ``far`` (u = M(e_1 − e_n),
  ‖u‖ about 100 times π's typical norm), censored at 10,000; plus a lag sweep at n = 102.

Writes benchmarks/results/coupling_l2.csv (one row per run; quartiles of τ − L count censored pairs
as +inf; certified t only when every pair met), coupling_l2_tau.csv (every pair's τ, for the
fraction-met curves) and coupling_l2.png.

    NUMBA_NUM_THREADS=1 python benchmarks/coupling_l2.py     # about 8 minutes on one core
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from coupling_designs import DESIGNS, design_meeting_times

from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint
from isdp.mcmc import augmented_meeting_times, augmented_sample

RESULTS = Path(__file__).parent / "results"
EPS, PROPOSAL_EPS, THRESHOLD = 0.192, 0.1, 0.01
METROPOLIS = {
    "designs": ("smith-maximal", "path-maximal", "path-reflection", "path-random"),
    "sizes": (10, 20, 30, 50, 102),
    "pairs": 40,
    "lag": 50,
    "max_iter": 100_000,
}
AUGMENTED = {
    "sizes": (10, 20, 30, 50, 102, 254),
    "pairs": 1000,
    "lag": 5,
    "max_iter": 10_000,
    "lags": (1, 2, 5, 10, 20, 50),
    "flat_factor": 0.25,
    "flat_iter": 20,
    "far_factor": 100,
}


def summarize(chain, design, start, n, mt, max_iter):
    excess = np.where(mt.met, mt.tau - mt.lag, np.inf)
    q25, median, q75 = np.quantile(excess, [0.25, 0.5, 0.75], method="inverted_cdf")
    certified = mt.convergence_iteration(THRESHOLD) if mt.met.all() else None
    row = {
        "chain": chain,
        "design": design,
        "start": start,
        "n": n,
        "pairs": len(mt.tau),
        "lag": mt.lag,
        "max_iter": max_iter,
        "censored": int((~mt.met).sum()),
        "q25": q25,
        "median": median,
        "q75": q75,
        "max": excess.max(),
        "certified_t": certified,
        "seconds": round(mt.seconds, 2),
    }
    print(row, flush=True)
    taus = pd.DataFrame(
        {"chain": chain, "design": design, "start": start, "n": n, "lag": mt.lag, "tau": mt.tau, "met": mt.met}
    )
    return row, taus


def augmented_starts(lattice, start, n_pairs, seed):
    n = lattice.n
    if start == "zero":
        return None
    if start == "overdispersed":
        flat = generalized_laplace(EPS * AUGMENTED["flat_factor"], "l2")
        return augmented_sample(lattice, flat, n_chains=n_pairs, n_draws=1, burn_in=AUGMENTED["flat_iter"], seed=seed)[
            :, 0
        ]
    far = np.zeros(n, dtype=np.int64)
    m = int(AUGMENTED["far_factor"] * (n - 1) / EPS / np.sqrt(2))  # ‖u‖ = 100 (n − 1)/ε ≈ 100 × π's mean norm
    far[0], far[-1] = m, -m
    return far


def run_metropolis(quick):
    rows, taus = [], []
    target = generalized_laplace(EPS, "l2")
    cfg = METROPOLIS
    for name in cfg["designs"]:
        for n in cfg["sizes"][:3] if quick else cfg["sizes"]:
            lattice = IntegerLattice.from_constraints(sum_constraint(n))
            mt = design_meeting_times(
                lattice,
                target,
                DESIGNS[name],
                lag=cfg["lag"],
                n_pairs=cfg["pairs"],
                proposal_eps=PROPOSAL_EPS,
                seed=3000 + n,
                max_iter=cfg["max_iter"],
            )
            row, tau = summarize("metropolis", name, "zero", n, mt, cfg["max_iter"])
            rows.append(row)
            taus.append(tau)
            if not mt.met.all():
                break
    return rows, taus


def run_augmented(quick):
    rows, taus = [], []
    target = generalized_laplace(EPS, "l2")
    cfg = AUGMENTED
    pairs = 100 if quick else cfg["pairs"]
    warm = IntegerLattice.from_constraints(sum_constraint(4))
    for start in ("zero", "overdispersed", "far"):  # compile once per argument type, outside the timings
        augmented_meeting_times(warm, target, lag=1, n_pairs=2, seed=0, init=augmented_starts(warm, start, 2, 0))
    for start in ("zero", "overdispersed", "far"):
        for n in cfg["sizes"]:
            lattice = IntegerLattice.from_constraints(sum_constraint(n))
            init = augmented_starts(lattice, start, pairs, seed=4000 + n)
            mt = augmented_meeting_times(
                lattice, target, lag=cfg["lag"], n_pairs=pairs, seed=5000 + n, max_iter=cfg["max_iter"], init=init
            )
            row, tau = summarize("augmented", "da-maximal-t", start, n, mt, cfg["max_iter"])
            rows.append(row)
            taus.append(tau)
    lattice = IntegerLattice.from_constraints(sum_constraint(102))
    init = augmented_starts(lattice, "overdispersed", pairs, seed=4102)
    for lag in cfg["lags"]:
        mt = augmented_meeting_times(
            lattice, target, lag=lag, n_pairs=pairs, seed=6000 + lag, max_iter=cfg["max_iter"], init=init
        )
        row, _ = summarize("augmented", "da-maximal-t (lag sweep)", "overdispersed", 102, mt, cfg["max_iter"])
        rows.append(row)
    return rows, taus


def plot(df: pd.DataFrame, taus: pd.DataFrame, path: Path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, ax_met) = plt.subplots(1, 2, figsize=(12, 4.8))
    curves = df[~df["design"].str.contains("sweep")]
    for (chain, design, start), g in curves.groupby(["chain", "design", "start"], sort=False):
        label = design if chain == "metropolis" else f"DA, start {start}"
        ok = g[np.isfinite(g["median"])]
        err = [ok["median"] - ok["q25"], np.where(np.isfinite(ok["q75"]), ok["q75"], ok["median"]) - ok["median"]]
        line = ax.errorbar(
            ok["n"],
            ok["median"].clip(lower=1),
            yerr=err,
            marker="o",
            ms=4,
            capsize=2,
            label=label,
            ls="-" if chain == "metropolis" else "--",
        )
        cens = g[g["censored"] > 0]
        ax.scatter(cens["n"], cens["max_iter"], marker="x", color=line[0].get_color())
    ax.set(
        xscale="log", yscale="log", xlabel="cells n (one sum constraint)", ylabel="median τ − L (iterations), IQR bars"
    )
    ax.set_title("ℓ2 meeting times; × = run with censored pairs, at its cap", fontsize=9)
    ax.legend(fontsize=7)
    largest = taus[(taus["chain"] == "metropolis")].groupby("design")["n"].max()
    for design, n in largest.items():
        g = taus[(taus["design"] == design) & (taus["n"] == n)]
        t = np.sort(g["tau"][g["met"]] - g["lag"])
        ax_met.step(t, np.arange(1, len(t) + 1) / len(g), where="post", label=f"{design}, n={n}")
    for n in (102, 254):
        g = taus[(taus["chain"] == "augmented") & (taus["start"] == "far") & (taus["n"] == n)]
        t = np.sort(g["tau"][g["met"]] - g["lag"])
        ax_met.step(t, np.arange(1, len(t) + 1) / len(g), where="post", ls="--", label=f"DA from far, n={n}")
    ax_met.set(xscale="log", xlabel="iterations after the lag, t − L", ylabel="fraction of pairs met", ylim=(0, 1.02))
    ax_met.set_title("fraction of pairs met by t − L (largest n run per design)", fontsize=9)
    ax_met.legend(fontsize=7)
    fig.suptitle(f"ℓ2 generalized Laplace, ε={EPS}: Metropolis designs against data augmentation", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes and 100 DA pairs (a smoke run)")
    parser.add_argument("--out", type=Path, default=RESULTS / "coupling_l2.csv")
    args = parser.parse_args()
    rows_a, taus_a = run_augmented(args.quick)
    rows_m, taus_m = run_metropolis(args.quick)
    df = pd.DataFrame(rows_m + rows_a)
    taus = pd.concat(taus_m + taus_a, ignore_index=True)
    df.to_csv(args.out, index=False)
    taus.to_csv(args.out.with_name(args.out.stem + "_tau.csv"), index=False)
    plot(df, taus, args.out.with_suffix(".png"))


if __name__ == "__main__":
    main()
