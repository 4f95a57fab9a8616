"""Tests of the stylised non-negativity bias (E4) and of the simplex projection it uses (isdp.baselines): each row
matches under its own arguments and differs under a plausibly wrong setting. Subspace DP's Laplace rows moved to
tests/experiments/e6_spatiotemporal_gaussian/."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from isdp.baselines import nnl2_projection, nonnegative_total_projection
from isdp.experiments.claims import Run, claim, judge, load_registry, resolve_measure


@functools.lru_cache(maxsize=1)
def _registry() -> list[dict]:
    return load_registry(Path(__file__).resolve().parents[2] / "config" / "claims.yaml")


def _status(claim_id: str, **override) -> tuple[str, object]:
    """The row's verdict from its own measure, with ``override`` replacing some of its args, and the value."""
    row = claim(claim_id, _registry())
    m = resolve_measure(row["measure"])(Run("."), row["paper_value"], **{**row.get("args", {}), **override})
    return judge(row["criterion"], row["paper_value"], m), m.value


# --------------------------------------------------------------------------- non-negativity (E4, stylised)


def test_simplex_projection_is_the_baselines_nnl2_projection():
    m = np.random.default_rng(3).normal(3.0, 15.0, (12, 25))
    fast = nonnegative_total_projection(m, 60.0)
    slow = np.array([nnl2_projection(row, np.ones((1, 25)), [60.0]) for row in m])
    assert np.abs(fast - slow).max() < 1e-6
    assert fast.min() >= 0 and np.allclose(fast.sum(axis=1), 60.0)


def test_nonnegativity_rows_match_and_swap_when_the_floor_is_moved():
    assert _status("SDP-E4-inequality-invariants-bias")[0] == "match"
    assert _status("SDP-E4-nonnegativity-control")[0] == "match"
    assert _status("SDP-E4-inequality-invariants-bias", nonnegative=False)[0] == "differs"
    assert _status("SDP-E4-nonnegativity-control", nonnegative=True)[0] == "differs"
