"""Coupling certificates on two-way tables with all margins fixed: adjacent 2×2 moves against the
Smith basis and the corner moves (docs/coupling-study.md).

r × r tables, r = 4 … 16, Laplace ℓ1 with ε = 0.192, proposal ε = 0.1, lag 50, pairs started at
u = 0. Bases: ``adjacent`` (isdp.lattice.with_mixing_basis(..., "table"): e_(i,j) − e_(i,j+1) − e_(i+1,j) +
e_(i+1,j+1)); ``smith`` (IntegerLattice.from_constraints, the library's own basis: for table margins
it is e_(1,1) − e_(1,j) − e_(i,1) + e_(i,j), every move through cell (1, 1)); ``corner``
(e_(i,j) − e_(i,r) − e_(r,j) + e_(r,r), the same star through cell (r, r); benchmarks/cost_growth.py
uses it). Every size runs on every basis; to fit about 10 minutes on one core the larger sizes
run fewer pairs with a lower cap (SIZES). Quartiles of τ − L count censored pairs as +inf; the
certified iteration (TV bound < 0.01) is given only when every pair met. Every pair's τ goes to
table_bases_tau.csv, for the curve of the fraction of pairs met by iteration.

``--disagreement``: how far censored pairs are from meeting — the number of cells on which the two
chains differ at checkpoints up to 30,000 iterations (coupling_designs.disagreement, the same
coupling as isdp.convergence.certify), 10 pairs per size, adjacent and Smith bases; writes table_bases_gap.{csv,png}.

    NUMBA_NUM_THREADS=1 python benchmarks/table_bases.py     # about 6 minutes on one core
    NUMBA_NUM_THREADS=1 python benchmarks/table_bases.py --disagreement    # about 1 minute
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from coupling_designs import DESIGNS, disagreement

from isdp.convergence import certify
from isdp.lattice import IntegerLattice, generalized_laplace, table_margins, with_mixing_basis

RESULTS = Path(__file__).parent / "results"
#: table side r: (pairs, censoring cap)
SIZES = {4: (100, 200_000), 6: (100, 200_000), 8: (20, 100_000), 10: (20, 50_000), 12: (10, 50_000), 16: (10, 30_000)}
EPS, PROPOSAL_EPS, LAG = 0.192, 0.1, 50
GAP_SIZES, GAP_PAIRS, GAP_CAP = (4, 6, 8, 12, 16), 10, 30_000


def corner_lattice(r: int) -> IntegerLattice:
    A = table_margins(r, r)
    basis = np.zeros((r * r, (r - 1) ** 2), dtype=np.int64)
    for col, (i, j) in enumerate((i, j) for i in range(r - 1) for j in range(r - 1)):
        basis[[i * r + j, r * r - 1], col] = 1
        basis[[i * r + r - 1, (r - 1) * r + j], col] = -1
    return IntegerLattice(A=A, basis=basis, rank=2 * r - 1, basis_name="corner")


def adjacent_lattice(r: int) -> IntegerLattice:
    return with_mixing_basis(corner_lattice(r), "table")  # checked unimodular against the corner moves


def smith_lattice(r: int) -> IntegerLattice:
    lattice = IntegerLattice.from_constraints(table_margins(r, r))
    assert lattice.basis_name == "smith", "the Smith basis of table margins is expected to need no reduction"
    return lattice


def met_fraction(tau: np.ndarray, max_iter: int, grid: np.ndarray) -> np.ndarray:
    """Fraction of pairs met by t − L = each grid point (censored pairs never count as met)."""
    excess = np.where(tau < max_iter, tau - LAG, np.inf)
    return (excess[:, None] <= grid[None, :]).mean(axis=0)


def plot(taus: pd.DataFrame, path: Path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(14, 4.2), sharey=True)
    for ax, (name, group) in zip(axes, taus.groupby("basis", sort=False), strict=True):
        for (r, cap), g in group.groupby(["r", "max_iter"]):
            grid = np.unique(np.geomspace(1, cap - LAG, 200).astype(np.int64))
            ax.step(
                grid,
                met_fraction(g["tau"].to_numpy(), cap, grid),
                where="post",
                label=f"{r}x{r} ({len(g)} pairs, cap {cap:,})",
            )
        ax.set(xscale="log", title=f"{name} basis", xlabel="iterations after the lag, t − L")
        ax.legend(fontsize=7)
    axes[0].set_ylabel("fraction of pairs met")
    fig.suptitle(
        f"Two-way tables, all margins fixed: Laplace ℓ1 ε={EPS}, proposal ε={PROPOSAL_EPS}, L={LAG}, pairs from u = 0",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def disagreement_curves(path: Path):
    target = generalized_laplace(EPS, "l1")
    checkpoints = np.unique(np.geomspace(1, GAP_CAP, 40).astype(np.int64))
    rows = []
    for name, build in (("adjacent", adjacent_lattice), ("smith", smith_lattice)):
        for r in GAP_SIZES:
            lattice = build(r)
            gaps = disagreement(
                lattice,
                target,
                DESIGNS["smith-maximal"],
                lag=LAG,
                n_pairs=GAP_PAIRS,
                proposal_eps=PROPOSAL_EPS,
                seed=2500 + r,
                checkpoints=checkpoints,
            )
            for c, t in enumerate(checkpoints):
                rows.append(
                    {
                        "basis": name,
                        "r": r,
                        "cells": r * r,
                        "t_minus_lag": t,
                        "pairs": GAP_PAIRS,
                        "mean_differing_cells": gaps[:, c].mean(),
                        "max_differing_cells": gaps[:, c].max(),
                        "met": int((gaps[:, c] == 0).sum()),
                    }
                )
            print(rows[-1], flush=True)
    df = pd.DataFrame(rows)
    df.to_csv(path, index=False)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for ax, (name, group) in zip(axes, df.groupby("basis", sort=False), strict=True):
        for r, g in group.groupby("r"):
            ax.plot(g["t_minus_lag"], g["mean_differing_cells"] / (r * r), label=f"{r}x{r}")
        ax.set(xscale="log", title=f"{name} basis", xlabel="iterations after the lag, t − L")
        ax.legend(fontsize=7)
    axes[0].set_ylabel("share of cells on which the pair differs (mean of pairs)")
    fig.suptitle(f"Two-way tables: disagreement of coupled pairs ({GAP_PAIRS} pairs per size, from u = 0)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path.with_suffix(".png"), dpi=120)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=RESULTS / "table_bases.csv")
    parser.add_argument("--disagreement", action="store_true", help="only the disagreement curves")
    args = parser.parse_args()
    if args.disagreement:
        disagreement_curves(args.out.with_name(args.out.stem + "_gap.csv"))
        return
    target = generalized_laplace(EPS, "l1")
    rows, taus = [], []
    for name, build in (("adjacent", adjacent_lattice), ("smith", smith_lattice), ("corner", corner_lattice)):
        for r, (pairs, max_iter) in SIZES.items():
            cert = certify(
                build(r),
                target,
                proposal_eps=PROPOSAL_EPS,
                start=None,
                lag=LAG,
                n_pairs=pairs,
                seed=2000 + r,
                max_iter=max_iter,
            )
            excess = np.where(cert.tau < max_iter, cert.tau - LAG, np.inf)
            q = np.quantile(excess, [0.25, 0.5, 0.75], method="higher")  # interpolation would turn inf into nan
            met_by = met_fraction(cert.tau, max_iter, np.array([1_000, 10_000, max_iter - LAG]))
            rows.append(
                {
                    "basis": name,
                    "table": f"{r}x{r}",
                    "cells": r * r,
                    "dim": (r - 1) ** 2,
                    "pairs": pairs,
                    "max_iter": max_iter,
                    "censored": cert.n_censored,
                    "q25": q[0],
                    "median": q[1],
                    "q75": q[2],
                    "met_by_1k": met_by[0],
                    "met_by_10k": met_by[1],
                    "certified_t": cert.t_star if cert.certified else "not certified",
                    "seconds": round(cert.seconds, 2),
                }
            )
            taus.append(pd.DataFrame({"basis": name, "r": r, "max_iter": max_iter, "tau": cert.tau}))
            print(rows[-1], flush=True)
    pd.DataFrame(rows).to_csv(args.out, index=False)
    taus = pd.concat(taus, ignore_index=True)
    taus.to_csv(args.out.with_name(args.out.stem + "_tau.csv"), index=False)
    plot(taus, args.out.with_suffix(".png"))


if __name__ == "__main__":
    main()
