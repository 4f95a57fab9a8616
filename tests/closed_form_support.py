"""Helpers shared by the tests of E6 (Subspace DP's projected Gaussian and Laplace) and E7 (Congenial DP's two-bin
histogram): Example 4.1's data and simulated releases, the small runs E7's measures read, and a registry row's verdict
under overridden arguments (the run on the committed config is ``tests/experiments/conftest.py``'s ``run``)."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
from conftest import REGISTRY
from criteria_support import judge
from isdp_papers.claims import claim, load_registry, measure_row
from isdp_papers.e7_congenial_histogram.releases import MECHANISMS, release
from isdp_papers.evidence import Run

# --------------------------------------------------------------------------- E6: a small §5.2 problem

G, H, B = 4, 5, 3  # groups, hours, buildings: small enough for many studies; one building's cells are a 4 × 5 table

# --------------------------------------------------------------------------- E7: Example 4.1's releases

X = np.array([12.0, 35.0])  # the two bins
N = 80_000  # releases per simulation
CASES = [("conditional", None), ("l2", None), ("l1", 0.0), ("l1", 0.3), ("l1", 0.5), ("l1", 0.9)]  # (mechanism, β)


def draws(mechanism, beta, eps, seed, size=N):
    """``size`` releases of ``mechanism`` (f_L1's weight ``beta``) on :data:`X` at ``eps``, from ``seed``."""
    return release(mechanism, X, eps, size, np.random.default_rng(seed), beta)


# --------------------------------------------------------------------------- runs the E7 measures read


def table2_run(tmp_path, x) -> Run:
    """A run whose Table 2 gives every mechanism the means ``x`` (and an L2 simulation row), with E5's negative
    binomial parameters in its config."""
    tables = tmp_path / "results" / "tables"
    tables.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"mechanism": list(MECHANISMS), "mean_m1": x[0], "mean_m2": x[1]}).to_csv(
        tables / "e7_table2.csv", index=False
    )
    pd.DataFrame({"mechanism": ["l2"], "mean_m1": [x[0] + 0.01], "se_mean_m1": [0.01], "z_mean": [1.0]}).to_csv(
        tables / "e7_simulation.csv", index=False
    )
    return Run(tmp_path, config={"e7": {"x": list(x)}, "e5": {"simulation": {"nb_n": 10, "nb_p": 0.5}}})


def privacy_table_run(tmp_path, eps_grid=(0.5, 2.0), betas=(0.0, 0.25, 0.5, 1.0), l1_gap=0.0, level=1.0) -> Run:
    """A run with E7's config (ε grid, β grid, App. B's check) and its simulation and privacy tables: f_L1's
    optimality gap ``l1_gap`` and M*'s level / ε ``level`` at every ε."""
    tables = tmp_path / "results" / "tables"
    tables.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"mechanism": ["l1"], "max_optimality_gap": [l1_gap], "max_total_error": [0.0]}).to_csv(
        tables / "e7_simulation.csv", index=False
    )
    pd.DataFrame(
        {"mechanism": ["conditional"] * len(eps_grid), "eps": list(eps_grid), "level_over_eps": [level] * len(eps_grid)}
    ).to_csv(tables / "e7_privacy.csv", index=False)
    return Run(
        tmp_path,
        config={"e7": {"x": [12, 35], "eps_grid": list(eps_grid), "betas": list(betas), "dg_check": {"eps": [0.6]}}},
    )


def eps_grid_run(tmp_path, x=(30, 70)) -> Run:
    """A run with only E7's config: the bins ``x`` and the ε grid (0.5, 2)."""
    return Run(tmp_path, config={"e7": {"x": list(x), "eps_grid": [0.5, 2.0]}})


# --------------------------------------------------------------------------- registry rows


@functools.cache
def _registry() -> list[dict]:
    return load_registry(REGISTRY)


def registry_row(claim_id: str) -> dict:
    """The registry entry ``claim_id`` (the registry loaded once)."""
    return claim(claim_id, _registry())


def _verdict(claim_id: str, run, **override):
    """conftest's ``row_verdict`` on the registry loaded once: the row's status and measurement."""
    c = registry_row(claim_id)
    m = measure_row(c, run, **override)
    return judge(c["criterion"], c["paper_value"], m), m


def row_status(claim_id: str, run=None, **override) -> str:
    """The row's verdict from its own measure (on a run in the working directory unless ``run``), with
    ``override`` replacing some of its args."""
    return _verdict(claim_id, run or Run("."), **override)[0]


def row_status_value(claim_id: str, **override) -> tuple[str, object]:
    """:func:`row_status` and the measured value."""
    status, m = _verdict(claim_id, Run("."), **override)
    return status, m.value
