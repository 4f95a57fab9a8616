"""TopDown talk row on the failsafe ('Workarounds'): TDA-E8-failsafe-accuracy. It is judged on its registered measure
and shown to flip on each half: a parent measured much more noisily than its children's sum (the failsafe is then
not worse), and a failsafe that drops the total as well (the invariant breaks). The two-level solve it reuses
keeps its equalities."""

from __future__ import annotations

import numpy as np
import pytest
import yaml
from conftest import ROOT, row_verdict

from isdp.experiments import claims
from isdp.experiments.e8_privacy_accounting import rounding

CONFIG = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
CID = "TDA-E8-failsafe-accuracy"


@pytest.fixture
def run(tmp_path) -> claims.Run:
    return claims.Run(tmp_path, {"e8": CONFIG["e8"], "data": CONFIG["data"]}, repo=ROOT)


def test_failsafe_is_worse_and_keeps_the_total(run):
    status, m = row_verdict(CID, run)
    assert status == "match" and m.se > 0 and "largest |state total − 1,052,567| 0" in m.text


def test_failsafe_is_not_worse_when_the_parent_is_much_noisier(run):
    status, m = row_verdict(CID, run, epsilon_parent=0.1)
    assert status == "differs" and m.value == {"worse": False, "invariants": True}


def test_dropping_the_total_too_breaks_the_invariant(run):
    status, m = row_verdict(CID, run, weaker="none")
    assert status == "differs" and m.value == {"worse": True, "invariants": False}


@pytest.mark.parametrize("weaker", [None, "total"])
def test_two_level_solve_keeps_its_equalities(weaker):
    rng = np.random.default_rng(0)
    children = np.array([[30, 15, 5, 0], [100, 50, 17, 0], [60, 30, 10, 0]])
    parent, total = children.sum(axis=0), int(children.sum())
    parent_noisy = parent + rng.integers(-3, 4, (20, 4))
    children_noisy = children + rng.integers(-3, 4, (20, 3, 4))
    p, ch = rounding.two_level_solve(parent_noisy, children_noisy, total, weaker)
    assert rounding.is_integral(ch) and (ch >= 0).all()
    assert np.array_equal(p, ch.sum(axis=1)) and (p.sum(axis=1) == total).all()
    if weaker is None:  # the regular parent is the parent's own solve, whatever the children measured
        alone, _ = rounding.two_level_solve(parent_noisy, children_noisy + 50, total)
        assert np.array_equal(p, alone)
