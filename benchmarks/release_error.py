r"""Per-cell error of each release route against OpenDP's mechanisms at the same neighbouring relation
(docs/release.md, "Error against OpenDP").

One person moving between cells changes the count vector by 2 in ℓ1 and √2 in ℓ2, so at ε = 1 per person
(and δ = 10⁻⁶ for the Gaussians) the routes compared are:

- ``l1``: isdp's exact ℓ1 route, the generalized Laplace on the invariants' lattice, ε/2 per unit ℓ1;
- ``free-cells``: isdp's ``--free-cells`` route, i.i.d. double geometric noise at ε/2 on the free cells, the
  solved cells computed from the invariants;
- ``opendp-laplace``: OpenDP's discrete Laplace on every count (``make_laplace`` on i64 vectors under
  ``l1_distance``), scale 2/ε; its own map of an ℓ1 distance of 2 is ε;
- ``gaussian``: isdp's Gaussian route, σ = :func:`isdp.privacy.gaussian_sigma` (1, 10⁻⁶), drawn exactly on the
  lattice by Klein's sampler (a total, or both margins);
- ``opendp-gaussian``: OpenDP's discrete Gaussian on every count (``make_gaussian`` on i64 vectors under
  ``l2_distance``) at the least float ≥ that σ. σ is calibrated on a privacy profile that bounds every lattice,
  Z^n included (:mod:`isdp.exact`), so OpenDP's draw meets the same (1, 10⁻⁶) per person; this
  module recomputes the profile of the discrete Gaussian on Z^n independently (:func:`zn_gaussian_epsilon`) and
  refuses to run if it does not. OpenDP's own accounting converts its ρ = 1/σ² with its zCDP bound, which
  states a larger ε (column ``epsilon_opendp_accounting``).

The cases are release_scale.py's tables (its ``write_table``, the same counts):

- ``national``: the 3,221 counties of the committed NHGIS extract under their 52 state totals (the District of
  Columbia, one county, is fixed by its total: isdp adds it no noise);
- ``margins-50x23``: a 50 × 23 table with both margins (the ℓ1 exact route is refused by its forecast);
- ``margins-4x4``: a 4 × 4 table with both margins;
- any other name ``write_table`` knows (``margins-RxC``, ``blocks-N``) with ``--replicates``.

isdp's noise is drawn from the plan of :func:`isdp.release.Plan.make` block by block, as
:meth:`isdp.exact.ExactSampler.draw` draws it for a release, with the study API where it batches
(:meth:`~isdp.exact.IntegerL1Sampler.sample`, the free-cell proposal of whole arrays); one seeded
:func:`isdp.release.make_release` per route states the route and the guarantee. Replicates are split into
chunks, each from its own seed (``--seed``, the case and the route), so isdp's rows do not depend on
``--jobs``; OpenDP draws from operating-system entropy and cannot be seeded, so its rows vary within their
standard errors from run to run. Every statistic is a mean over independent replicates, and its standard error
(``_se``) is their standard deviation over √replicates. The noise has mean zero (every law is symmetric), so a
cell's variance is estimated by the mean of its squared noise.

Columns of ``benchmarks/results/release_error.csv``, one row per case and route:

- ``case``, ``cells``, ``invariants`` (rows of A), ``route``, ``mechanism``, ``parameter`` (ε per unit ℓ1, σ or
  OpenDP's scale), ``status`` (``released``, or ``refused: `` and the plan's reason), ``replicates``;
- ``epsilon_per_person``, ``delta_per_person``, ``rho_per_person``: the guarantee met per person (isdp's
  statement; OpenDP's ``map`` for the Laplace, the exact Z^n profile for its Gaussian, ρ its ``map(√2)``);
  ``epsilon_opendp_accounting``: the ε OpenDP's own conversion states at δ (OpenDP rows);
- ``invariants_exact``: every replicate keeps every invariant exactly (A·noise = 0); ``invariant_mae``,
  ``invariant_mae_se``: the mean absolute error of the invariants' totals (0 for isdp);
- ``mae``, ``mae_se``, ``mae_exact``: per-cell mean absolute error, averaged over all cells (cells the
  invariants fix count with error 0), exact where closed (OpenDP's i.i.d. noise on Z);
- ``variance``, ``variance_se``, ``variance_exact``: per-cell variance averaged over all cells; exact: the
  discrete Laplace's 2e^{-a}/(1 − e^{-a})² at a = ε/2, the free cells' Σ_j X_ij² times it on a solved cell,
  Klein's σ²(1 − 1/r)(1 − 1/c) on an r × c block (σ²(1 − 1/n) under one total of n cells; the continuous
  Gaussian's on the same subspace, within 10⁻⁸ of the discrete one's at this σ), the discrete Gaussian's
  on Z summed;
- ``cell_classes``: the noised cells pooled into classes whose noise has one variance by the symmetry of the
  route's law (cells of blocks with the same invariants, a total's or a two-way table's; on the free-cell route,
  also of the same exact variance; OpenDP's i.i.d. cells one class): a class's variance is the mean of its
  cells' squared noise, far more precise than one cell's;
- ``variance_max_over_median``, ``variance_max_over_median_se``, ``variance_max_over_median_exact``: the
  largest class's variance over the median noised cell's (cells the invariants fix are left out; 1 when the
  cells form one class). The largest of many noisy estimates is biased upwards, so the class is chosen on the
  first half of the replicates and both variances are estimated on the second half (standard error by a
  seeded bootstrap of that half);
- ``interval_width``, ``coverage``, ``coverage_se``, ``coverage_stated``: each noised cell's interval for its
  true count at level 0.9 — isdp's ``--uncertainty`` columns (:func:`isdp.privacy.cell_uncertainty`:
  exact on the free-cell route, else simulated), and for OpenDP's i.i.d. noise the same quantiles of its exact
  law on Z — its mean width over the noised cells, the share of replicates' noised cells it holds (standard error
  over replicates) and the probability it is stated to hold (at least 0.9; a Monte Carlo estimate for isdp's
  simulated laws);
- ``seconds_per_draw``: the draws' time per replicate (one process).

    python benchmarks/release_error.py                    # the three cases (about 5 minutes on 2 idle cores)
    python benchmarks/release_error.py --cases margins-3x3 --replicates 2000

Writes benchmarks/results/release_error.csv (the cases run) and prints the table of docs/release.md.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import tempfile
import time
import zlib
from concurrent.futures import ProcessPoolExecutor
from fractions import Fraction
from functools import cache
from pathlib import Path

import numpy as np
from release_scale import write_table
from scipy import optimize

from isdp.errors import UncertifiableError
from isdp.exact import LatticeBlock, double_geometric_array, seeded_source
from isdp.lattice import blocks
from isdp.privacy import cell_uncertainty, gaussian_sigma, noise_interval
from isdp.release import Plan, Request, make_release
from isdp.tables import constraint_matrix, load_table

RESULTS = Path(__file__).parent / "results"
CSV = RESULTS / "release_error.csv"
EPSILON, DELTA = Fraction(1), 1e-6  # per person
ROUTES = ("l1", "free-cells", "opendp-laplace", "gaussian", "opendp-gaussian")
REQUESTS = {"l1": {}, "free-cells": {"free_cells": True}, "gaussian": {"norm": "gaussian", "delta": DELTA}}
#: replicates per case and route: isdp's exact ℓ1 and Klein draws run in Python (about 0.1 s a national
#: replicate), its free-cell proposals and OpenDP's draws are vectorised, so they get more
REPLICATES = {
    "national": {"l1": 200, "free-cells": 1000, "opendp-laplace": 300, "gaussian": 200, "opendp-gaussian": 300},
    "margins-50x23": {"l1": 0, "free-cells": 4000, "opendp-laplace": 600, "gaussian": 400, "opendp-gaussian": 600},
    "margins-4x4": {
        "l1": 3000,
        "free-cells": 40000,
        "opendp-laplace": 20000,
        "gaussian": 20000,
        "opendp-gaussian": 20000,
    },
}
CHUNKS = 8  # per route: the unit of work of a process, each with its own seed
BOOTSTRAP = 200
COLUMNS = [
    "case",
    "cells",
    "invariants",
    "route",
    "mechanism",
    "parameter",
    "status",
    "replicates",
    "epsilon_per_person",
    "delta_per_person",
    "rho_per_person",
    "epsilon_opendp_accounting",
    "invariants_exact",
    "invariant_mae",
    "invariant_mae_se",
    "mae",
    "mae_se",
    "mae_exact",
    "variance",
    "variance_se",
    "variance_exact",
    "cell_classes",
    "variance_max_over_median",
    "variance_max_over_median_se",
    "variance_max_over_median_exact",
    "interval_width",
    "coverage",
    "coverage_se",
    "coverage_stated",
    "seconds_per_draw",
]
#: the level of every route's per-cell interval for the true count (isdp's ``--uncertainty``)
LEVEL = 0.9


# --------------------------------------------------------------------------- exact values


def discrete_laplace(a: float) -> tuple[float, float]:
    """(variance, mean absolute value) of the discrete Laplace P(k) ∝ e^{-a|k|}: 2r/(1 − r)² and 2r/(1 − r²),
    r = e^{-a}."""
    r = math.exp(-a)
    return 2 * r / (1 - r) ** 2, 2 * r / (1 - r * r)


def _discrete_gaussian_pmf(sigma: float) -> tuple[np.ndarray, np.ndarray]:
    k = np.arange(-math.ceil(40 * sigma), math.ceil(40 * sigma) + 1)  # mass beyond 40σ: below e^{-800}
    w = np.exp(-(k.astype(float) ** 2) / (2 * sigma**2))
    return k, w / w.sum()


def discrete_gaussian(sigma: float) -> tuple[float, float]:
    """(variance, mean absolute value) of the discrete Gaussian on Z, P(k) ∝ exp(−k²/2σ²), summed."""
    k, p = _discrete_gaussian_pmf(sigma)
    return float(p @ k.astype(float) ** 2), float(p @ np.abs(k))


def zn_gaussian_delta(epsilon: float, sigma: float, shift: int) -> float:
    """δ(ε) of i.i.d. discrete Gaussian noise on Z^n between counts that differ by v, ‖v‖² = ``shift``: one
    person added or removed (v = e_a, shift 1) or moved (v = e_b − e_a, shift 2).

    The privacy loss of noise u is (s − 2t)/2σ² with t = ⟨u, v⟩: t is one coordinate (s = 1) or the difference of
    two (s = 2, the pmf convolved with itself), and δ(ε) = E[(1 − e^{ε − loss})₊].
    """
    k, p = _discrete_gaussian_pmf(sigma)
    if shift == 2:
        p, k = np.convolve(p, p), np.arange(2 * k[0], 2 * k[-1] + 1)
    loss = (shift - 2 * k.astype(float)) / (2 * sigma**2)
    return float(p @ np.where(loss > epsilon, -np.expm1(np.minimum(epsilon - loss, 0.0)), 0.0))


def zn_gaussian_epsilon(sigma: float, delta: float) -> float:
    """The least ε at which OpenDP's discrete Gaussian on the counts meets δ for one person (added, removed or
    moved): the larger of the two shifts' roots of δ(ε) = ``delta``."""

    def root(shift: int) -> float:
        if zn_gaussian_delta(0.0, sigma, shift) <= delta:
            return 0.0
        hi = 1.0
        while zn_gaussian_delta(hi, sigma, shift) > delta:
            hi *= 2
        return optimize.brentq(lambda e: zn_gaussian_delta(e, sigma, shift) / delta - 1, 0.0, hi, xtol=1e-12)

    return max(root(1), root(2))


# --------------------------------------------------------------------------- the cases


@cache
def _directory() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory()  # removed at exit; a release reads its table's file again (its hash)


@cache
def _case(case: str):
    """The case's table and invariants: (table, A, labels), as release_scale.py builds them."""
    if case != "national" and not case.startswith(("margins-", "blocks-")) or case.endswith(("-free", "-gaussian")):
        raise ValueError(f"{case}: a case is national, margins-RxC or blocks-N (totals or both margins: _classes)")
    path = Path(_directory().name) / f"{case}.csv"
    options, _ = write_table(case, path, np.random.default_rng(1))
    table = load_table(path)
    A, labels = constraint_matrix(table, [a for a in options if a != "--invariant"])
    return table, A, labels


@cache
def _plan(case: str, route: str) -> Plan | str:
    """isdp's plan for the route, or the reason it refuses."""
    _, A, labels = _case(case)
    try:
        return Plan.make(A, labels, Request(epsilon=str(EPSILON), seed=0, **REQUESTS[route]))
    except UncertifiableError as err:
        return "refused: " + str(err).split(" (estimated")[0]


@cache
def _sigma() -> Fraction:
    return gaussian_sigma(float(EPSILON), DELTA)  # isdp's Gaussian route's σ, which OpenDP's gets too


def _opendp_scale(route: str) -> float:
    """OpenDP's scale: 2/ε for the Laplace (a = ε/2 per unit ℓ1), the least float ≥ isdp's σ for the Gaussian."""
    if route == "opendp-laplace":
        return float(2 / EPSILON)
    sigma = _sigma()
    up = float(sigma)
    return up if Fraction(up) >= sigma else math.nextafter(up, math.inf)


@cache
def _measurement(n: int, route: str):
    import opendp.prelude as dp

    dp.enable_features("contrib")
    domain = dp.vector_domain(dp.atom_domain(T=dp.i64), size=n)
    if route == "opendp-laplace":
        return dp.m.make_laplace(domain, dp.l1_distance(T=dp.i64), scale=_opendp_scale(route))
    return dp.m.make_gaussian(domain, dp.l2_distance(T=dp.f64), scale=_opendp_scale(route))


# --------------------------------------------------------------------------- the draws


def _isdp_noise(plan: Plan, route: str, k: int, rng) -> np.ndarray:
    """``k`` independent noise vectors (rows) of the route's law, block by block as ExactSampler.draw draws one."""
    sigma = plan.unit if route == "gaussian" else None
    out = np.zeros((k, plan.exact.n), dtype=np.int64)
    for cells, sub in plan.exact.parts:
        if isinstance(sub, LatticeBlock):  # Klein's sampler: one pass per draw
            out[:, cells] = np.array([sub.draw(sigma * sigma, rng)[0] for _ in range(k)]).reshape(k, len(cells))
        elif route == "free-cells":  # the proposal itself (IntegerL1Sampler.draw with accept=False), k at once
            free = double_geometric_array(plan.unit, k * len(sub.free), rng).reshape(k, len(sub.free))
            out[:, cells[sub.free]], out[:, cells[sub.solved]] = free, free @ sub.solve.T
        else:
            out[:, cells] = sub.sample(1 / sigma if sigma else plan.unit, k, rng, sigma=sigma)
    return out


def _chunk_seed(seed: int, case: str, route: str, chunk: int) -> int:
    return int(np.random.SeedSequence([seed, zlib.crc32(f"{case}/{route}".encode()), chunk]).generate_state(1)[0])


def draw(case: str, route: str, k: int, seed: int) -> tuple[np.ndarray, float]:
    """``k`` noise vectors of the route on the case (isdp's seeded by ``seed``), and the seconds they took."""
    table, _, _ = _case(case)
    tick = time.perf_counter()
    if route.startswith("opendp"):
        meas, x = _measurement(len(table.x), route), table.x.tolist()
        noise = np.array([meas(x) for _ in range(k)], dtype=np.int64).reshape(k, len(x)) - table.x
    else:
        noise = _isdp_noise(_plan(case, route), route, k, seeded_source(seed))
    return noise, time.perf_counter() - tick


def _draw_task(args) -> tuple[np.ndarray, float]:
    return draw(*args)


# --------------------------------------------------------------------------- the statistics


def _mean_se(values: np.ndarray) -> tuple[float, float]:
    return float(values.mean()), float(values.std(ddof=1) / math.sqrt(len(values)))


def _classes(case: str, route: str, exact: np.ndarray | None) -> np.ndarray:
    """Each cell's class: cells whose noise has one variance by the symmetry of the route's law.

    The cases' blocks are one total or both margins of a table: permuting a total's cells, or a table's rows and
    columns, keeps the invariants and moves any cell of the block to any other, and the ℓ1 and Gaussian laws on
    the lattice are invariant under it, so cells of blocks with the same invariants share a class. The free-cell
    route's law is not (its solved cells carry sums): its classes are split further by the exact variance.
    OpenDP's noise is i.i.d.: one class.
    """
    table, A, _ = _case(case)
    if route.startswith("opendp"):
        return np.zeros(len(table.x), dtype=np.int64)
    shapes: dict = {}  # the distinct blocks' invariants, numbered
    keys = [None] * len(table.x)
    for cells, rows in blocks(A):
        sub = A[rows][:, cells].toarray()
        shape = shapes.setdefault((sub.shape, sub.tobytes()), len(shapes))
        for cell in cells:
            keys[cell] = (shape, round(float(exact[cell]), 9) if route == "free-cells" else None)
    index: dict = {}
    return np.array([index.setdefault(key, len(index)) for key in keys], dtype=np.int64)


def _ratio(u2: np.ndarray, classes: np.ndarray, noised: np.ndarray, rng: np.random.Generator) -> tuple[float, float]:
    """The largest class variance over the median noised cell's: each class's variance is the mean of its cells'
    squared noise; the class is chosen on the first half of the replicates and both are estimated on the second
    (the largest of many noisy estimates is biased upwards); standard error by bootstrap of that half."""
    _, cls = np.unique(classes[noised], return_inverse=True)
    sizes = np.bincount(cls)
    means = u2[:, noised] @ (cls[:, None] == np.arange(len(sizes))[None, :]) / sizes  # replicates × classes
    half = len(means) // 2
    chosen = int(np.argmax(means[:half].mean(axis=0)))
    held = means[half:]

    def ratio(rows: np.ndarray) -> float:
        v = rows.mean(axis=0)
        return float(v[chosen] / np.median(v[cls]))

    boot = [ratio(held[rng.integers(0, len(held), len(held))]) for _ in range(BOOTSTRAP)]
    return ratio(held), float(np.std(boot, ddof=1))


def _exact_variances(case: str, route: str) -> np.ndarray | None:
    """Each cell's exact noise variance where the route's law gives it in closed form; None for the ℓ1 exact route."""
    table, _, _ = _case(case)
    n = len(table.x)
    if route == "opendp-laplace":
        return np.full(n, discrete_laplace(1 / _opendp_scale(route))[0])
    if route == "opendp-gaussian":
        return np.full(n, discrete_gaussian(_opendp_scale(route))[0])
    plan = _plan(case, route)
    out = np.zeros(n)
    for cells, sub in plan.exact.parts:
        if isinstance(sub, LatticeBlock):
            r, c = sub.grid.shape
            share = (1 - 1 / c) if sub.kind == "total" else (1 - 1 / r) * (1 - 1 / c)
            out[cells] = float(plan.unit) ** 2 * share
        elif len(sub.free) == 0:  # every cell fixed by the invariants
            continue
        elif route == "free-cells":
            v = discrete_laplace(float(plan.unit))[0]
            out[cells[sub.free]] = v
            out[cells[sub.solved]] = v * (sub.solve.astype(float) ** 2).sum(axis=1)
        else:
            return None
    return out


def _guarantee(case: str, route: str) -> dict:
    """The guarantee per person: isdp's statement (one seeded release), OpenDP's map or the exact Z^n profile."""
    table, A, labels = _case(case)
    if route == "opendp-laplace":
        eps = _measurement(len(table.x), route).map(2)  # one person moving: ℓ1 distance 2
        if eps > EPSILON:
            raise AssertionError(f"OpenDP's discrete Laplace at scale 2/epsilon states {eps} per person, not {EPSILON}")
        return {
            "mechanism": "OpenDP discrete Laplace",
            "parameter": f"scale {_opendp_scale(route):g}",
            "epsilon_per_person": eps,
            "delta_per_person": 0.0,
            "epsilon_opendp_accounting": eps,
        }
    if route == "opendp-gaussian":
        import opendp.prelude as dp

        meas = _measurement(len(table.x), route)
        eps = zn_gaussian_epsilon(_opendp_scale(route), DELTA)
        if eps > EPSILON:
            raise AssertionError(
                f"OpenDP's discrete Gaussian at isdp's sigma meets ({eps}, {DELTA}), not ({EPSILON}, "
                f"{DELTA}) per person: the profile does not bound Z^n"
            )
        return {
            "mechanism": "OpenDP discrete Gaussian",
            "parameter": f"scale {_opendp_scale(route)!r}",
            "epsilon_per_person": eps,
            "delta_per_person": DELTA,
            "rho_per_person": meas.map(math.sqrt(2)),
            "epsilon_opendp_accounting": dp.c.make_zCDP_to_approxDP(meas).map(math.sqrt(2)).epsilon(DELTA),
        }
    release = make_release(table, A, labels, Request(epsilon=str(EPSILON), seed=0, **REQUESTS[route]))
    if not np.array_equal(A @ release.values, A @ table.x):
        raise AssertionError(f"{case}, {route}: the release does not keep its invariants")
    statement = release.statement
    line = statement["guarantee"]["per_person"]
    mechanism = statement["mechanism"]
    parameter = (
        f"sigma {mechanism['sigma']}"
        if "sigma" in mechanism
        else f"epsilon {mechanism['epsilon_per_unit_l1_distance']} per unit l1"
    )
    return {
        "mechanism": f"isdp {statement['route']['name']}: {mechanism['name']}",
        "parameter": parameter,
        "epsilon_per_person": line["epsilon"],
        "delta_per_person": line["delta"],
        "rho_per_person": line.get("rho"),
    }


def summarise(case: str, route: str, noise: np.ndarray, seconds: float, seed: int) -> dict:
    """The row of the CSV for ``noise`` (replicates × cells) of the route on the case."""
    table, A, _ = _case(case)
    u = noise.astype(float)
    off = np.abs(A @ noise.T).T  # replicates × invariants
    row = {"replicates": len(noise), "invariants_exact": bool(not off.any())}
    row["invariant_mae"], row["invariant_mae_se"] = _mean_se(off.mean(axis=1))
    row["mae"], row["mae_se"] = _mean_se(np.abs(u).mean(axis=1))
    row["variance"], row["variance_se"] = _mean_se((u * u).mean(axis=1))
    noised = np.flatnonzero(noise.any(axis=0))  # a cell the invariants fix is never noised
    exact = _exact_variances(case, route)
    classes = _classes(case, route, exact)
    row["cell_classes"] = len(np.unique(classes[noised]))
    boot = np.random.default_rng([seed, zlib.crc32(f"{case}/{route}".encode())])
    row["variance_max_over_median"], row["variance_max_over_median_se"] = _ratio(u * u, classes, noised, boot)
    if exact is not None:
        row["variance_exact"] = float(exact.mean())
        row["variance_max_over_median_exact"] = float(exact[exact > 0].max() / np.median(exact[exact > 0]))
    if route.startswith("opendp"):
        scale = _opendp_scale(route)
        row["mae_exact"] = (discrete_laplace(1 / scale) if route == "opendp-laplace" else discrete_gaussian(scale))[1]
    low, high, stated = _intervals(case, route, len(table.x))
    held = (noise[:, noised] >= low[noised]) & (noise[:, noised] <= high[noised])
    row["interval_width"] = float((high - low)[noised].mean())
    row["coverage"], row["coverage_se"] = _mean_se(held.mean(axis=1))
    row["coverage_stated"] = float(stated[noised].mean())
    row["seconds_per_draw"] = seconds / len(noise)
    return row


def _intervals(case: str, route: str, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per cell, the noise's q_lo and q_hi at :data:`LEVEL` and the probability of [q_lo, q_hi]: isdp's
    ``--uncertainty`` columns, or the same quantiles of OpenDP's law on Z."""
    if route.startswith("opendp"):
        scale = _opendp_scale(route)
        if route == "opendp-laplace":
            k = np.arange(-math.ceil(60 * scale), math.ceil(60 * scale) + 1)
            pmf = np.exp(-np.abs(k) / scale)
            pmf /= pmf.sum()
        else:
            k, pmf = _discrete_gaussian_pmf(scale)
        lo, hi, stated = noise_interval(k, pmf, LEVEL)
        return np.full(n, lo), np.full(n, hi), np.full(n, stated)
    plan = _plan(case, route)
    got = cell_uncertainty(
        plan.exact, n, Request(epsilon=str(EPSILON), uncertainty=LEVEL, **REQUESTS[route]), plan.unit, LEVEL
    )
    return got["low"], got["high"], got["coverage"]


def _rounded(row: dict) -> dict:
    """Numbers to 4 significant digits, standard errors to 2 (enough to read either)."""
    out = {}
    for key, value in row.items():
        if isinstance(value, float) and value and math.isfinite(value):
            digits = 2 if key.endswith("_se") else 4
            value = round(value, digits - 1 - math.floor(math.log10(abs(value))))
        out[key] = value
    return out


def run(cases, replicates: dict | int | None = None, seed: int = 2024, jobs: int = 1) -> list[dict]:
    """Every route of every case: one CSV row each.

    ``replicates`` is a number for every route, or {case: {route: number}} (default :data:`REPLICATES`); the
    draws are spread over ``jobs`` processes.
    """
    tasks, work = {}, []
    for case in cases:
        for route in ROUTES:
            k = replicates if isinstance(replicates, int) else (replicates or REPLICATES)[case][route]
            refused = not route.startswith("opendp") and isinstance(_plan(case, route), str)
            if refused:
                k = 0  # nothing to draw, but the refusal is a row
            elif not k:
                continue
            sizes = [len(part) for part in np.array_split(np.arange(k), min(CHUNKS, k))] if k else []
            tasks[case, route] = len(work), len(sizes)
            work += [(case, route, size, _chunk_seed(seed, case, route, i)) for i, size in enumerate(sizes)]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            done = list(pool.map(_draw_task, work))
    else:
        done = [_draw_task(task) for task in work]
    rows = []
    for (case, route), (first, count) in tasks.items():
        table, A, _ = _case(case)
        row = {"case": case, "cells": len(table.x), "invariants": A.shape[0], "route": route}
        plan = None if route.startswith("opendp") else _plan(case, route)
        if isinstance(plan, str):
            rows.append({**row, "mechanism": f"isdp: {Plan.MECHANISMS[route]}", "status": plan, "replicates": 0})
            continue
        noise = np.vstack([done[i][0] for i in range(first, first + count)])
        seconds = sum(done[i][1] for i in range(first, first + count))
        rows.append(
            _rounded(
                {**row, "status": "released", **_guarantee(case, route), **summarise(case, route, noise, seconds, seed)}
            )
        )
    return [{key: row.get(key) for key in COLUMNS} for row in rows]


# --------------------------------------------------------------------------- the docs' table

TABLES = {
    "national": "national county table, 52 state totals",
    "margins-50x23": "50 × 23, both margins",
    "margins-4x4": "4 × 4, both margins",
}
ROUTE_NAMES = {
    "l1": "isdp ℓ1 exact",
    "free-cells": "isdp `--free-cells`",
    "opendp-laplace": "OpenDP discrete Laplace",
    "gaussian": "isdp Gaussian (Klein)",
    "opendp-gaussian": "OpenDP discrete Gaussian",
}


def _pm(row: dict, key: str) -> str:
    """``value ± se (exact)``; no ± for a number that is exact by construction (one class of cells)."""
    exact, se = row.get(f"{key}_exact"), float(row[f"{key}_se"])
    text = f"{float(row[key]):,.4g}" + (f" ± {se:.2g}" if se else "")
    return f"{text} ({float(exact):,.4g})" if exact not in (None, "") else text


def markdown_table(rows: list[dict]) -> str:
    """The table of docs/release.md, "Error against OpenDP", from the CSV's rows (strings or numbers)."""
    lines = [
        "| table | cells | route | invariants | per-cell mean abs. error | per-cell variance, mean "
        "| largest / median cell variance | 90 % interval: mean width, coverage (stated) |",
        "|---|---:|---|---|---|---|---|---|",
    ]
    for row in rows:
        name = TABLES.get(row["case"], row["case"])
        head = f"| {name} | {int(row['cells']):,} | {ROUTE_NAMES[row['route']]} |"
        if row["status"] != "released":
            lines.append(f"{head} {row['status']} | | | | |")
            continue
        exact = str(row["invariants_exact"]) == "True"
        kept = "exact" if exact else f"off by {float(row['invariant_mae']):,.3g} ± {float(row['invariant_mae_se']):.2g}"
        lines.append(
            f"{head} {kept} | {_pm(row, 'mae')} | {_pm(row, 'variance')} | "
            f"{_pm(row, 'variance_max_over_median')} | {float(row['interval_width']):,.4g}, "
            f"{float(row['coverage']):.3f} ± {float(row['coverage_se']):.2g} "
            f"({float(row['coverage_stated']):.3f}) |"
        )
    return "\n".join(lines) + "\n"


def read_csv(path: Path = CSV) -> list[dict]:
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", nargs="+", default=list(REPLICATES))
    parser.add_argument("--replicates", type=int, help="the same number for every route (default: REPLICATES)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--jobs", type=int, default=min(2, len(os.sched_getaffinity(0))))
    args = parser.parse_args()
    tick = time.perf_counter()
    rows = run(args.cases, args.replicates, args.seed, args.jobs)
    for row in rows:
        print(row, flush=True)
    RESULTS.mkdir(exist_ok=True)
    with CSV.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    print(markdown_table(read_csv()))
    print(f"{time.perf_counter() - tick:.0f} s")


if __name__ == "__main__":
    main()
