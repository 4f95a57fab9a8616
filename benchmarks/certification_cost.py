"""What a valid 95 % certificate of E3's chains costs (docs/method.md §4, "What is certified").

One sum constraint over n counties, ℓ1 Laplace with E3's ε = 0.192, chain X started from E3's
over-dispersed law (factor 0.1, 1,000 flat iterations). Routes per size: E3's burn-in kernel, the
pair heat-bath (isdp.convergence.certify_heat_bath: Y from π by isdp.exact.sample_sum_constraint_l1, lag 0,
1,000 pairs; iterations are sweeps); and, for the sizes in ``--path-sizes``, the paper's Metropolis
chain on the path basis (proposal ε 0.1) with the same exact start and ``--pairs`` pairs, and the
lag-50 pairs (100) E3 used before, for comparison. Per row: the pairs' mean and largest τ − L,
t_cert (first t with the 95 % bound ≤ 0.01; −1: none), the point estimate's t*, the 95 % bound at
1.5 t*, and the seconds on one core. Writes benchmarks/results/certification_cost.csv.

    NUMBA_NUM_THREADS=1 python benchmarks/certification_cost.py     # Illinois and Texas, ~2 min
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import pandas as pd
from isdp_papers.e3_census_counties.census import overdispersed_starts

from isdp.convergence import Certificate, certify, certify_heat_bath
from isdp.exact import sample_sum_constraint_l1
from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint, with_mixing_basis

RESULTS = Path(__file__).parent / "results"
EPS, PROPOSAL_EPS, FACTOR, FLAT_ITER, LAG = 0.192, 0.1, 0.1, 1000, 50


def run(n: int, pairs: int, seed: int, path: bool) -> list[dict]:
    smith = IntegerLattice.from_constraints(sum_constraint(n))
    lattice, target = with_mixing_basis(smith, "auto"), generalized_laplace(EPS, "l1")

    def start(k):
        return overdispersed_starts(
            smith, EPS, n_chains=k, factor=FACTOR, n_iter=FLAT_ITER, proposal_eps=PROPOSAL_EPS, seed=seed
        )

    routes = {"pair heat-bath, exact start, 1000 pairs (E3)": None}
    if path:
        routes |= {
            f"path basis, exact start, {pairs} pairs": dict(
                exact=lambda k: sample_sum_constraint_l1(n, EPS, k, seed=seed + 1), n_pairs=pairs
            ),
            f"path basis, lag {LAG}, 100 pairs (E3 before)": dict(lag=LAG, n_pairs=100),
        }
    rows = []
    for route, kwargs in routes.items():
        if kwargs is None:
            cert = certify_heat_bath(EPS, start=start, n_pairs=1000, seed=seed + 2)
        else:
            cert = certify(
                lattice, target, proposal_eps=PROPOSAL_EPS, start=start, seed=seed + 2, max_iter=5_000_000, **kwargs
            )
        excess = cert.tau - (cert.lag or 0)
        burn_in = math.ceil(1.5 * cert.t_estimate) if cert.t_estimate is not None else -1
        rows.append(
            {
                "n": n,
                "route": route,
                "pairs": cert.n_pairs,
                "censored": cert.n_censored,
                "mean_tau_minus_lag": float(excess.mean()),
                "max_tau_minus_lag": int(excess.max()),
                "t_cert": cert.t_cert if cert.certified else -1,
                "t_star_estimate": cert.t_estimate,
                "bound_at_1.5_t_star": float(cert.bound(burn_in)[0]) if burn_in >= 0 else float("nan"),
                "seconds": round(cert.seconds, 1),
            }
        )
        print(rows[-1], flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[102, 254])
    ap.add_argument(
        "--path-sizes",
        type=int,
        nargs="*",
        default=[102],
        help="sizes that also run the path-basis routes (Texas' exact start takes ~1,200 s)",
    )
    ap.add_argument("--pairs", type=int, default=Certificate.pairs_needed())
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--out", type=Path, default=RESULTS / "certification_cost.csv")
    args = ap.parse_args()
    rows = [row for n in args.sizes for row in run(n, args.pairs, args.seed, n in args.path_sizes)]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(args.out, index=False)
    print(pd.DataFrame(rows).to_string(index=False))


if __name__ == "__main__":
    main()
