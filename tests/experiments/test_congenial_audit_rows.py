"""Congenial DP registry rows of the second audit round that read E5's modules (the §2.2 constrained posterior, §3's
effective γ after Fig 1): each measure against an independent computation, and the row's status both ways (it can match
and it can differ). The E7 rows of that round are in tests/experiments/e7_congenial_histogram/."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import row_verdict

from isdp.double_geometric import dg_logpmf
from isdp.experiments.e5_congenial_mis import small_lattice as sl

# --------------------------------------------------------------------------- §2.2 constrained posterior


def _record_level(n, female, voting, eps0):
    """The same quantities by brute force over the 6^n record-level databases (cells 0-2 female, 3-5 male;
    cells 1, 2, 4, 5 of voting age)."""
    x = np.array(list(itertools.product(range(6), repeat=n)))
    h = np.stack([(x == c).sum(axis=1) for c in range(6)], axis=1)
    keep = (h[:, :3].sum(1) == female) & (h[:, [1, 2, 4, 5]].sum(1) == voting)
    x, h = x[keep], h[keep]
    s_star = np.unique(h, axis=0)
    logp = dg_logpmf(s_star[None, :, :] - h[:, None, :], eps0).sum(axis=2)
    log_in = np.logaddexp.reduce(logp, axis=1)
    lik = np.exp(logp - log_in[:, None])  # P(M*(x) = m), [database, m]
    d1 = (x[:, None, :] != x[None, :, :]).sum(axis=2) == 1
    i, j = np.nonzero(d1)
    gamma_star = (log_in[j] - log_in[i]).max() / (2 * eps0)
    shift = 0.0
    for omega in range(6):
        has = x[:, 0] == omega  # record 1 (every record gives the same, by exchangeability)
        if has.any():
            prior = has.mean()
            post = lik[has].sum(axis=0) / lik.sum(axis=0)
            shift = max(shift, float(np.abs(np.log(post / prior)).max()))
    level = float(np.abs(np.log(lik[i]) - np.log(lik[j])).max())
    return {"gamma_star": gamma_star, "shift": shift, "m_star_level": level, "tables": len(s_star)}


@pytest.mark.parametrize(("lattice", "eps0"), [((3, 1, 2), 0.7), ((4, 2, 3), 1.5)])
def test_constrained_posterior_against_record_level_enumeration(lattice, eps0):
    exact = sl.constrained_posterior(*lattice, eps0)
    brute = _record_level(*lattice, eps0)
    for key in brute:
        assert exact[key] == pytest.approx(brute[key], rel=1e-10), key
    assert exact["eps"] == 2 * eps0 and 0 <= exact["gamma_star"] <= 1
    # Theorem 2.1 at k = 1 is attained here: the note's other reading (other records known) is bounded by it
    assert exact["m_star_level"] <= (1 + exact["gamma_star"]) * exact["eps"] + 1e-12


def test_constrained_posterior_row_differs_at_large_eps_and_matches_at_e5s(tmp_path, monkeypatch):
    from isdp.experiments.claims import Run

    run = Run(tmp_path, config={})
    status, m = row_verdict("CDP-E5-constrained-posterior", run)
    assert status == "differs" and m.value > 1.2
    status, m = row_verdict("CDP-E5-constrained-posterior", run, eps0=[0.25, 0.5])  # E5's ε₀ and below
    assert status == "match" and 0.5 < m.value < 1
    # a wrong ε (the per-cell ε₀ in place of M's level 2 ε₀) doubles the ratio and fails even at E5's ε₀
    orig = sl.constrained_posterior
    monkeypatch.setattr(sl, "constrained_posterior", lambda *a: {**(r := orig(*a)), "ratio": 2 * r["ratio"]})
    assert row_verdict("CDP-E5-constrained-posterior", run, eps0=[0.5])[0] == "differs"


# --------------------------------------------------------------------------- §3 after Fig 1: the effective γ


def _fig1_run(tmp_path, monkeypatch, conditional_eps):
    """A Fig 1 table whose raw panels and (c) sit at the exact expected L1 of raw DG at the given per-cell ε."""
    import types

    import pandas as pd

    from isdp.experiments.claims import Run
    from isdp.experiments.e5_congenial_mis import measures as e5

    cells = 46
    monkeypatch.setattr(e5, "_problem", lambda run: types.SimpleNamespace(x=np.zeros(cells)))
    (tmp_path / "results" / "e5").mkdir(parents=True)
    methods = {"raw_dg_eps1": 1.0, "mis_conditional": conditional_eps, "raw_dg_eps05": 0.5}
    rows = [{"table": t, "method": k, "avg_l1": cells * e5._dg_mean_abs(e) * (1 + 0.01 * (t - 1))}
            for t in range(3) for k, e in methods.items()]
    pd.DataFrame(rows).to_csv(tmp_path / "results" / "e5" / "fig1_distances.csv", index=False)
    return Run(tmp_path, config={"e5": {"simulation": {"eps_mis": 0.5, "eps_raw": 1.0}}})


def test_effective_gamma_inverts_the_exact_raw_l1_and_fails_outside_0_1(tmp_path, monkeypatch):
    from isdp.experiments.e5_congenial_mis import measures as e5

    eps = np.array([0.1, 0.5, 1.3, 4.0])
    np.testing.assert_allclose(e5._dg_eps_of_mean_abs([e5._dg_mean_abs(e) for e in eps]), eps, rtol=1e-12)
    u = np.arange(-400, 401)
    assert e5._dg_mean_abs(0.7) == pytest.approx(float(np.sum(np.abs(u) * np.exp(dg_logpmf(u, 0.7)))), rel=1e-12)
    status, m = row_verdict("CDP-E5-fig1-effective-gamma", _fig1_run(tmp_path / "a", monkeypatch, 0.6))
    assert status == "match" and m.value == pytest.approx(0.2, abs=1e-9)
    # (c) more accurate than (a) (γ > 1) or less accurate than (d) (γ < 0) fails
    assert row_verdict("CDP-E5-fig1-effective-gamma", _fig1_run(tmp_path / "b", monkeypatch, 1.2))[0] == "differs"
    assert row_verdict("CDP-E5-fig1-effective-gamma", _fig1_run(tmp_path / "c", monkeypatch, 0.45))[0] == "differs"
