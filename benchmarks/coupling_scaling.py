"""Meeting times of the L-lag coupling designs against the number of cells.

One sum constraint over n cells, Laplace ℓ1 with ε = 0.192, proposal ε = 0.1, lag 50. For each
design (coupling_designs.DESIGNS) the sizes are run in increasing order until one has a
censored pair or exceeds the time budget. Writes benchmarks/results/coupling_scaling.csv and
.png (docs/coupling-study.md). Quartiles of τ - L count censored pairs as +inf, never drop them;
the certified iteration (TV bound < 0.01) is given only when every pair met.

    python benchmarks/coupling_scaling.py            # a few minutes on 2 cores
    python benchmarks/coupling_scaling.py --quick    # about 1 minute
    python benchmarks/coupling_scaling.py --designs path-maximal path-reflection --sizes 254 \
        --out benchmarks/results/coupling_texas.csv   # Texas' 254 counties, about 2 minutes
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

import numpy as np
import pandas as pd
from coupling_designs import DESIGNS, design_meeting_times

from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint

RESULTS = Path(__file__).parent / "results"
SIZES = (5, 10, 15, 20, 25, 30, 40, 50, 75, 102)  # 102: Illinois' counties
EPS, PROPOSAL_EPS, LAG, THRESHOLD = 0.192, 0.1, 50, 0.01

log = logging.getLogger("coupling_scaling")


def run_design(name, sizes, n_pairs, max_iter, budget, seed):
    rows = []
    target = generalized_laplace(EPS, "l1")
    for n in sizes:
        lattice = IntegerLattice.from_constraints(sum_constraint(n))
        mt = design_meeting_times(
            lattice,
            target,
            DESIGNS[name],
            lag=LAG,
            n_pairs=n_pairs,
            proposal_eps=PROPOSAL_EPS,
            seed=seed + n,
            max_iter=max_iter,
        )
        excess = np.where(mt.met, mt.tau - LAG, np.inf)
        q25, median, q75 = np.quantile(excess, [0.25, 0.5, 0.75], method="inverted_cdf")
        certified = mt.convergence_iteration(THRESHOLD) if mt.met.all() else None
        rows.append(
            {
                "design": name,
                "n": n,
                "pairs": n_pairs,
                "censored": int((~mt.met).sum()),
                "max_iter": max_iter,
                "q25": q25,
                "median": median,
                "q75": q75,
                "max": excess.max(),
                "certified_t": certified,
                "seconds": round(mt.seconds, 2),
            }
        )
        log.info(
            "%-18s n=%3d: median τ-L %s [%s, %s], %d/%d censored, certified t %s, %.1f s",
            name,
            n,
            median,
            q25,
            q75,
            (~mt.met).sum(),
            n_pairs,
            certified,
            mt.seconds,
        )
        if not mt.met.all() or mt.seconds > budget:
            break
    return rows


def plot(df: pd.DataFrame, path: Path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, ax_t) = plt.subplots(1, 2, figsize=(12, 4.8))
    for name, group in df.groupby("design", sort=False):
        g = group[np.isfinite(group["median"])]
        err = [g["median"] - g["q25"], np.where(np.isfinite(g["q75"]), g["q75"], g["median"]) - g["median"]]
        line = ax.errorbar(g["n"], g["median"].clip(lower=1), yerr=err, marker="o", ms=4, capsize=2, label=name)
        color = line[0].get_color()
        cens = group[group["censored"] > 0]
        ax.scatter(cens["n"], cens["max_iter"], marker="x", color=color)
        cert = group[group["certified_t"].notna()]
        ax_t.plot(cert["n"], cert["certified_t"], marker="o", ms=4, color=color, label=name)
    for a in (ax, ax_t):
        a.set_yscale("log")
        a.set_xlabel("cells n (one sum constraint)")
    ax.set_ylabel("median τ − L (iterations), IQR bars")
    ax.set_title("meeting times; × = a run with censored pairs, at its max_iter", fontsize=9)
    ax_t.set_ylabel("certified t: TV bound < 0.01 (iterations)")
    ax_t.set_title("certified iteration (every pair met)", fontsize=9)
    ax.legend(fontsize=7, ncol=2)
    fig.suptitle(f"L-lag coupling designs, Laplace ℓ1 ε={EPS}, proposal ε={PROPOSAL_EPS}, L={LAG}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=130)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes and budgets (about 1 minute)")
    parser.add_argument("--designs", nargs="+", default=list(DESIGNS), choices=list(DESIGNS))
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--max-iter", type=int, default=None, help="censoring point per pair")
    parser.add_argument("--budget", type=float, default=None, help="seconds per run before stopping a design")
    parser.add_argument("--sizes", type=int, nargs="+", default=None)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--out", type=Path, default=RESULTS / "coupling_scaling.csv")
    parser.add_argument("--replot", action="store_true", help="only redraw the figure from --out")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if args.replot:
        plot(pd.read_csv(args.out), args.out.with_suffix(".png"))
        return
    sizes = args.sizes or (SIZES[:5] if args.quick else SIZES)
    max_iter = args.max_iter or (20_000 if args.quick else 200_000)
    budget = args.budget or (5.0 if args.quick else 15.0)
    rows = [row for name in args.designs for row in run_design(name, sizes, args.pairs, max_iter, budget, args.seed)]
    df = pd.DataFrame(rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out, index=False)
    plot(df, args.out.with_suffix(".png"))
    certified = df[df["certified_t"].notna()]
    best = certified[certified["n"] == certified["n"].max()].nsmallest(1, "certified_t")
    log.info(
        "wrote %s; largest n certified (TV < %g): %s",
        args.out,
        THRESHOLD,
        best[["design", "n", "certified_t"]].to_dict("records") or "none",
    )


if __name__ == "__main__":
    main()
