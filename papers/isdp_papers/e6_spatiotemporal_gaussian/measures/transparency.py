"""Measures of Subspace DP §4's transparency of the additive mechanisms on §5.2's query.

The statements are 'Transparency and statistical intelligibility' after Cor 4.1 and 'Implementation: distributed
privatization'; the measures also check the invariants the mechanisms keep (Thm 3.1, Cor 3.6).

Statements: unbiased releases (``unbiased_z`` for the projected Gaussian, ``extended_unbiased_z`` for the extended
Gaussian and Laplace); the invariants kept exactly (``invariant_residual``); noise independent of the data
(``data_independence``, ``noise_data_independence``); local agents with a common seed assemble the central release
(``distributed_privatization_gap``).
"""

from __future__ import annotations

import numpy as np

from isdp_papers import evidence_checks as ec
from isdp_papers.claims import Measurement, Run
from isdp_papers.e6_spatiotemporal_gaussian.measures.gaussian_laplace import _extended_laplace
from isdp_papers.e6_spatiotemporal_gaussian.measures.study_errors import _info


def unbiased_z(run: Run, paper) -> Measurement:
    """Per-cell z-scores of the mean error over all releases (exact per-cell SD)."""
    info = _info(run, count=["n_studies", "n_reps", "cells"])
    z = ec.table_at(run, "e6/cells.csv", key="cell", finite=["z"], rows=info["cells"])["z"].to_numpy()
    return Measurement(
        z,
        f"max |z| = {np.abs(z).max():.2f} over {z.size:,} cells ({info['n_studies'] * info['n_reps']:,} releases each)",
    )


def invariant_residual(run: Run, paper, *, mechanism: str = "projected") -> Measurement:
    """Largest |A y − A x| over every release of the projected (Cor. 3.5) or ``extended`` (Cor. 3.6) Gaussian."""
    field = "extended_max_residual" if mechanism == "extended" else "max_invariant_residual"
    info = _info(run, nonnegative=[field, "max_abs_invariant"], count=["n_studies", "n_reps"])
    r = info[field]
    which = "extended releases" if mechanism == "extended" else "releases"
    ulps = r / (np.finfo(float).eps * info["max_abs_invariant"])
    return Measurement(
        r,
        f"max |A y − A x| = {r:.1e} over {info['n_studies'] * info['n_reps']:,} {which} "
        f"({ulps:.0f} units of rounding of the largest invariant, {info['max_abs_invariant']:.0f})",
    )


def data_independence(run: Run, paper) -> Measurement:
    """Return the errors of two different stand-in tables under the same noise: the error law needs no data."""
    gap = _info(run, nonnegative=["data_independence_gap"])["data_independence_gap"]
    return Measurement(
        gap,
        f"error(x) − error(x') with the same noise: max |gap| = {gap:.1e}, so the error "
        "statistics above need no confidential data",
    )


def extended_unbiased_z(
    run: Run,
    paper,
    *,
    groups: int,
    hours: int,
    buildings: int,
    poisson_mean: float,
    releases: int,
    eps: float,
    seed: int,
    clip_at: float | None = None,
) -> Measurement:
    """Measure §4: the per-cell z of the mean error of the two extension mechanisms against the exact per-cell SDs.

    The mechanisms are the extended Gaussian (Algorithm 1, Cor 3.6; scale c = 1 as E6's σ) and the extended Laplace (Cor
    3.9), on §5.2's invariants at a small size (a Poisson(``poisson_mean``) stand-in table), ``releases`` fixed-seed
    releases each, against the exact per-cell SDs σ_N √Π_ii and b √(2 Π_ii). ``clip_at``: releases clipped below (counts
    made non-negative: a biased mechanism, in the tests).
    """
    from isdp_papers.e6_spatiotemporal_gaussian.null_space_noise import extended_gaussian, null_space_blocks
    from isdp_papers.e6_spatiotemporal_gaussian.problem import group_hour_building_constraints

    A, _ = group_hour_building_constraints(groups, hours, buildings)
    rng = np.random.default_rng(seed)
    x = rng.poisson(poisson_mean, A.shape[1]).astype(float)
    basis = null_space_blocks(A)
    pi = np.zeros(x.size)  # diag Π_N = Σ_k Q_ik²
    for cells, Q in basis:
        pi[cells] = (Q**2).sum(axis=1)
    gauss, sigma = extended_gaussian(x, A, 1.0, releases, rng, basis=basis)
    laplace, b = _extended_laplace(x, eps, releases, rng, basis)
    z, parts = [], []
    for name, y, sd in (
        ("extended Gaussian", gauss, sigma * np.sqrt(pi)),
        ("extended Laplace", laplace, b * np.sqrt(2 * pi)),
    ):
        if clip_at is not None:
            y = np.maximum(y, clip_at)
        bias = (y - x).mean(axis=0)
        z.append(bias / (sd / np.sqrt(releases)))
        parts.append(
            f"{name}: largest |mean error| {np.abs(bias).max():.3f} (per-cell SD {sd.max():.3f}), "
            f"max |z| {np.abs(z[-1]).max():.2f}"
        )
    z = np.concatenate(z)
    return Measurement(
        z,
        f"{'; '.join(parts)} — {x.size} cells ({groups} groups × {hours} hours × {buildings} "
        f"buildings, null space of dimension {sum(Q.shape[1] for _, Q in basis)}), {releases:,} "
        "releases each",
        note=f"σ_N = {sigma:.4f} (c = 1), b = {b * eps:.4f}/ε at ε = {eps:g}; unbiasedness does not "
        "depend on the scale",
    )


def noise_data_independence(
    run: Run,
    paper,
    *,
    groups: int,
    hours: int,
    buildings: int,
    poisson_mean: float,
    releases: int,
    eps: float,
    seed: int,
    clip_at: float | None = None,
) -> Measurement:
    """§4 after Cor 4.1.

    The largest |error(x) − error(x')| of two different stand-in tables (Poisson(``poisson_mean``) cells, §5.2's
    invariants at a small size) released with the same seed by the extended Gaussian (Algorithm 1, Cor 3.6), the
    projected Laplace (Cor 3.8, E4's :func:`isdp.baselines.projected_laplace`) and the extended Laplace (Cor 3.9); Cor
    3.5's projected Gaussian is SDP-E6-data-independence's. ``clip_at``: releases clipped below (a non-negativity
    post-processing, whose error depends on the data: the tests).
    """
    from isdp.baselines import projected_laplace
    from isdp_papers.e6_spatiotemporal_gaussian.null_space_noise import extended_gaussian, null_space_blocks
    from isdp_papers.e6_spatiotemporal_gaussian.problem import group_hour_building_constraints

    A, _ = group_hour_building_constraints(groups, hours, buildings)
    data = np.random.default_rng([seed, 0])
    tables = [data.poisson(poisson_mean, A.shape[1]).astype(float) for _ in range(2)]
    basis = null_space_blocks(A)
    mechanisms = {
        "Cor 3.6 extended Gaussian": lambda x, rng: extended_gaussian(x, A, 1.0, releases, rng, basis=basis)[0],
        "Cor 3.8 projected Laplace": lambda x, rng: projected_laplace(x, A, eps, releases, rng),
        "Cor 3.9 extended Laplace": lambda x, rng: _extended_laplace(x, eps, releases, rng, basis)[0],
    }
    gaps = {}
    for k, (name, release) in enumerate(mechanisms.items()):
        errors = []
        for x in tables:
            y = release(x, np.random.default_rng([seed, 1, k]))
            errors.append((y if clip_at is None else np.maximum(y, clip_at)) - x)
        gaps[name] = float(np.abs(errors[0] - errors[1]).max())
    worst = max(gaps.values())
    return Measurement(
        worst,
        f"largest |error(x) − error(x')| with the same seed: {worst:.1e} ("
        + "; ".join(f"{name} {g:.1e}" for name, g in gaps.items())
        + f") — two tables of {A.shape[1]} cells differing in "
        f"{int((tables[0] != tables[1]).sum())}, {releases} releases each",
        n=len(gaps),
    )


def distributed_privatization_gap(
    run: Run,
    paper,
    *,
    groups: int,
    hours: int,
    buildings: int,
    sum_cells: int,
    random_c: list[int],
    poisson_mean: float,
    block_sizes: list[int],
    seeds: list[int],
    releases: int,
    eps: float,
    shared_seed: bool = True,
    clip_at: float | None = None,
) -> Measurement:
    """§4 'Implementation.

    Distributed privatization' (A = identity): each local agent holds only its own entries of x, knows C and the common
    seed, runs the mechanism on its local view (its entries, 0 for every entry it does not hold) with the common seed
    and keeps its own entries; the assembled release is compared with the central release of the whole x under the same
    seed. Mechanisms: the projected Gaussian (Cor 3.5, σ = 1), projected Laplace (Cor 3.8, E4's code), extended Gaussian
    (Algorithm 1, Cor 3.6) and extended Laplace (Cor 3.9). Invariants: §5.2's at ``groups`` × ``hours`` × ``buildings``,
    one total over ``sum_cells`` cells (a state's counties), and a random integer C of ``random_c`` = [rows, cells]
    (entries −2..2). Agents hold contiguous blocks of each size in ``block_sizes``. Value: the largest of |assembled −
    central| and the invariant residual |C y − C x| / max(1, |C x|). ``shared_seed=False``: each agent seeds its own
    generator (the statement's 'if' broken); ``clip_at``: every release clipped below (a non-negativity post-processing:
    local, so the agents still agree, but C is lost).
    """
    from isdp.baselines import projected_gaussian, projected_laplace
    from isdp_papers.e6_spatiotemporal_gaussian.null_space_noise import extended_gaussian, null_space_blocks
    from isdp_papers.e6_spatiotemporal_gaussian.problem import group_hour_building_constraints

    def clip(y):
        return y if clip_at is None else np.maximum(y, clip_at)

    data = np.random.default_rng([seeds[0], 0])
    rows, cols = random_c
    instances = {
        f"§5.2 ({groups} × {hours} × {buildings})": group_hour_building_constraints(groups, hours, buildings)[0],
        f"one total of {sum_cells}": np.ones((1, sum_cells), dtype=np.int64),
        f"random C {rows} × {cols}": data.integers(-2, 3, (rows, cols)),
    }
    gaps, residuals = {}, {}
    for A in instances.values():
        x = data.poisson(poisson_mean, A.shape[1]).astype(float)
        basis = null_space_blocks(A)  # a function of C alone: every agent can compute it
        mechanisms = {
            "projected Gaussian": lambda v, rng, A=A: projected_gaussian(v, A, 1.0, releases, rng),
            "projected Laplace": lambda v, rng, A=A: projected_laplace(v, A, eps, releases, rng),
            "extended Gaussian": lambda v, rng, A=A, basis=basis: extended_gaussian(
                v, A, 1.0, releases, rng, basis=basis
            )[0],
            "extended Laplace": lambda v, rng, basis=basis: _extended_laplace(v, eps, releases, rng, basis)[0],
        }
        for k, (name, release) in enumerate(mechanisms.items()):
            for s in seeds:
                central = clip(release(x, np.random.default_rng([s, k])))
                for size in block_sizes:
                    assembled = np.empty_like(central)
                    for agent, cells in enumerate(np.array_split(np.arange(x.size), -(-x.size // size))):
                        local = np.zeros_like(x)
                        local[cells] = x[cells]
                        rng = np.random.default_rng([s, k] if shared_seed else [s, k, agent + 1])
                        assembled[:, cells] = clip(release(local, rng))[:, cells]
                    gap = float(np.abs(assembled - central).max())
                    residual = float((np.abs(assembled @ A.T - A @ x) / np.maximum(1.0, np.abs(A @ x))).max())
                    gaps[name] = max(gaps.get(name, 0.0), gap)
                    residuals[name] = max(residuals.get(name, 0.0), residual)
    worst = max(*gaps.values(), *residuals.values())
    return Measurement(
        worst,
        f"largest |assembled − central| or relative |C y − C x|: {worst:.1e} ("
        + "; ".join(f"{name} {gaps[name]:.1e} / {residuals[name]:.1e}" for name in gaps)
        + f") — {', '.join(instances)}; agents holding blocks of {block_sizes} entries, "
        f"{'a common seed' if shared_seed else 'one seed per agent'}, {len(seeds)} seeds × "
        f"{releases} releases",
        n=len(gaps) * len(instances) * len(seeds) * len(block_sizes),
    )
