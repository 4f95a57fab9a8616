"""Sampler throughput in component updates per second, single core (`make benchmark`).

Cases: (a) one sum constraint over 102 cells (Illinois' counties), ℓ1, ε = 0.192;
(b) E2's 4×4 table with all margins fixed, ℓ1 and ℓ2, ε = 0.2. Compared with the same
component-wise sampler written as a plain NumPy loop over iterations and components.
This machine's speed drifts between runs, so each case is timed ``--repeats`` times and the
median is reported with the range, per wall-clock second and per CPU second of the process
(the fairer figure when other jobs share the cores).
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np

from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint, table_margins
from isdp.mcmc import sample


def numpy_sampler(lattice, target, n_iter, proposal_eps, rng):
    """Reference: the same sweep in NumPy, one component at a time (one chain)."""
    basis = lattice.basis
    a = np.exp(-proposal_eps)
    u = np.zeros(lattice.n, dtype=np.int64)
    logp = target.log_density(u)
    for _ in range(n_iter):
        z = rng.geometric(1 - a, basis.shape[1]) - rng.geometric(1 - a, basis.shape[1])
        log_unif = np.log(rng.random(basis.shape[1]))
        for j in range(basis.shape[1]):
            prop = u + z[j] * basis[:, j]
            lp = target.log_density(prop)
            if log_unif[j] <= lp - logp:
                u, logp = prop, lp
    return u


def reference_case():
    """Case (a), the machine's reference speed: one sum constraint over 102 cells, ℓ1, ε = 0.192, proposal ε 0.1
    (benchmarks/measurements_table.py records it beside every recorded run time)."""
    return (
        "102-cell sum constraint, l1",
        IntegerLattice.from_constraints(sum_constraint(102)),
        generalized_laplace(0.192, "l1"),
        0.1,
    )


def rates(lattice, target, proposal_eps, updates: int, repeats: int) -> tuple[list[float], list[float]]:
    """Component updates per wall-clock second and per CPU second of ``repeats`` one-chain runs of about
    ``updates`` updates each, after one untimed call (compilation, or loading it from numba's cache)."""
    sample(lattice, target, n_chains=1, n_draws=10, proposal_eps=proposal_eps, seed=0, progress=False)
    iters = max(1, updates // lattice.dim)
    wall, cpu = [], []
    for rep in range(repeats):
        tick = time.process_time()
        res = sample(
            lattice,
            target,
            n_chains=1,
            n_draws=1,
            burn_in=iters - 1,
            proposal_eps=proposal_eps,
            seed=1 + rep,
            progress=False,
        )
        cpu.append(iters * lattice.dim / (time.process_time() - tick))
        wall.append(iters * lattice.dim / res.seconds)
    return wall, cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--updates", type=int, default=5_000_000, help="component updates per timed run")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--numpy-iterations", type=int, default=300)
    args = parser.parse_args()
    numba.set_num_threads(1)
    cases = [
        reference_case(),
        (
            "4x4 margins (E2), l1",
            IntegerLattice.from_constraints(table_margins(4, 4)),
            generalized_laplace(0.2, "l1"),
            0.2,
        ),
        (
            "4x4 margins (E2), l2",
            IntegerLattice.from_constraints(table_margins(4, 4)),
            generalized_laplace(0.2, "l2"),
            0.05,
        ),
    ]
    print(
        f"{'case':32s} {'wall: median (M/s)':>18s} {'range':>11s} {'CPU: median (M/s)':>18s} {'range':>11s} "
        f"{'numpy loop (M/s)':>17s} {'speed-up':>9s}"
    )
    for name, lattice, target, eps_prop in cases:
        wall, cpu = rates(lattice, target, eps_prop, args.updates, args.repeats)
        compiled = float(np.median(wall))
        tick = time.perf_counter()
        numpy_sampler(lattice, target, args.numpy_iterations, eps_prop, np.random.default_rng(1))
        plain = args.numpy_iterations * lattice.dim / (time.perf_counter() - tick)

        def spread(rates):
            return f"{min(rates) / 1e6:.1f}-{max(rates) / 1e6:.1f}"

        print(
            f"{name:32s} {compiled / 1e6:18.1f} {spread(wall):>11s} {np.median(cpu) / 1e6:18.1f} {spread(cpu):>11s} "
            f"{plain / 1e6:17.3f} {compiled / plain:8.0f}x"
        )


if __name__ == "__main__":
    main()
