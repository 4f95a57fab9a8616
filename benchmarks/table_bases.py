"""Coupling certificates on two-way tables with all margins fixed: adjacent 2×2 moves against the
corner moves (issue #20, item 5; docs/coupling-study.md).

r × r tables, Laplace ℓ1 with ε = 0.192, proposal ε = 0.1, lag 50, pairs started at u = 0. Bases:
``adjacent`` (isdp.with_mixing_basis(..., "table"): e_(i,j) − e_(i,j+1) − e_(i+1,j) + e_(i+1,j+1))
and ``corner`` (e_(i,j) − e_(i,r) − e_(r,j) + e_(r,r), every move through cell (r, r): the star of
the table, as the Smith basis is for one sum; benchmarks/cost_growth.py uses it). Sizes run in
increasing order per basis until one has a censored pair. Quartiles of τ − L count censored pairs
as +inf; the certified iteration (TV bound < 0.01) is given only when every pair met.

    python benchmarks/table_bases.py          # a few minutes on one core
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from isdp import IntegerLattice, certify, generalized_laplace, table_margins, with_mixing_basis

RESULTS = Path(__file__).parent / "results"
SIZES = (4, 6, 8, 12, 16)
EPS, PROPOSAL_EPS, LAG = 0.192, 0.1, 50


def corner_lattice(r: int) -> IntegerLattice:
    A = table_margins(r, r)
    basis = np.zeros((r * r, (r - 1) ** 2), dtype=np.int64)
    for col, (i, j) in enumerate((i, j) for i in range(r - 1) for j in range(r - 1)):
        basis[[i * r + j, r * r - 1], col] = 1
        basis[[i * r + r - 1, (r - 1) * r + j], col] = -1
    return IntegerLattice(A=A, basis=basis, rank=2 * r - 1, basis_name="corner")


def adjacent_lattice(r: int) -> IntegerLattice:
    return with_mixing_basis(corner_lattice(r), "table")  # checked unimodular against the corner moves


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--max-iter", type=int, default=200_000)
    parser.add_argument("--out", type=Path, default=RESULTS / "table_bases.csv")
    args = parser.parse_args()
    target = generalized_laplace(EPS, "l1")
    rows = []
    for name, build in (("adjacent", adjacent_lattice), ("corner", corner_lattice)):
        for r in SIZES:
            cert = certify(build(r), target, proposal_eps=PROPOSAL_EPS, start=None, lag=LAG, n_pairs=args.pairs,
                           seed=2000 + r, max_iter=args.max_iter)
            excess = np.where(cert.tau < args.max_iter, cert.tau - LAG, np.inf)
            q = np.quantile(excess, [0.25, 0.5, 0.75], method="higher")  # interpolation would turn inf into nan
            rows.append({"basis": name, "table": f"{r}x{r}", "cells": r * r, "dim": (r - 1) ** 2, "pairs": args.pairs,
                         "censored": cert.n_censored, "q25": q[0], "median": q[1], "q75": q[2],
                         "certified_t": cert.t_star if cert.certified else "not certified",
                         "seconds": round(cert.seconds, 2)})
            print(rows[-1], flush=True)
            if not cert.certified:
                break
    pd.DataFrame(rows).to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
