"""Theorem rows of E1 measured on exact laws: each can fail."""

from __future__ import annotations

import numpy as np

import isdp.privacy_audit
from isdp.experiments.claims import Run, judge
from isdp.experiments.lattice_study import measures

CRITERION = {"kind": "interval", "max": 1.0e-9}


def test_the_gaussian_route_is_unbiased_and_a_shifted_route_fails(monkeypatch):
    run = Run(".", {})
    assert judge(CRITERION, 0, measures.gaussian_unbiased(run, None, sigma=3.0, radius=30)) == "match"
    real = isdp.privacy_audit.exact_route_noise

    def shifted(sampler, *args, **kwargs):  # the law moved by a lattice vector: invariants kept, mean not 0
        step = np.zeros(sampler.A.shape[1], dtype=np.int64)
        step[sampler.free[0]] = 1
        step[sampler.solved] = sampler.solve[:, 0]
        return real(sampler, *args, **kwargs).shifted(step)

    monkeypatch.setattr(isdp.privacy_audit, "exact_route_noise", shifted)
    m = measures.gaussian_unbiased(run, None, sigma=3.0, radius=30)
    assert m.value > 0.3 and judge(CRITERION, 0, m) == "differs"
