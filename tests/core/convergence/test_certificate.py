"""The certificate's bound and records (isdp.convergence.Certificate): the exact binomial bound, the Bonferroni
terms of the lag route, bookkeeping, censored pairs, too few pairs, and a record that rebuilds it exactly."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from isdp.convergence import certify
from isdp.convergence._certificate import clopper_pearson_upper, pairs_needed
from isdp.errors import CertificationError
from isdp.exact import sample_sum_constraint_l1
from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint, with_mixing_basis

TARGET = generalized_laplace(1.0, "l1")
PROPOSAL_EPS = 0.5


def _exact_draws(n_cells, seed):
    return lambda n: sample_sum_constraint_l1(n_cells, TARGET.param, n, seed=seed)


def test_clopper_pearson_upper_is_the_exact_binomial_bound():
    """P(Bin(n, U(k)) ≤ k) = α at every k < n; U(0) = 1 − α^{1/n}; U(n) = 1."""
    n, alpha = 300, 0.05
    k = np.arange(0, n + 1)
    upper = clopper_pearson_upper(k, n, alpha)
    np.testing.assert_allclose(stats.binom.cdf(k[:-1], n, upper[:-1]), alpha, rtol=1e-8)
    assert upper[0] == pytest.approx(1 - alpha ** (1 / n)) and upper[-1] == 1.0 and np.all(np.diff(upper) > 0)
    assert pairs_needed(0.01, 0.95) == 299
    assert clopper_pearson_upper(0, 299, 0.05) <= 0.01 < clopper_pearson_upper(0, 298, 0.05)


def test_certificate_bookkeeping():
    lattice = with_mixing_basis(IntegerLattice.from_constraints(sum_constraint(20)))
    cert = certify(
        lattice, TARGET, proposal_eps=PROPOSAL_EPS, start=None, exact=_exact_draws(20, 4), n_pairs=400, seed=5
    )
    assert cert.certified and cert.basis == "path" and cert.lag is None and cert.n_censored == 0
    t = cert.t_cert
    assert cert.bound(t)[0] <= 0.01 < cert.bound(t - 1)[0]
    # one term: the exact bound on #{τ > t} out of 400
    k = int((cert.tau > t).sum())
    assert cert.bound(t)[0] == pytest.approx(float(clopper_pearson_upper(k, 400, 0.05)))
    assert k == 0 and cert.estimate(t)[0] == 0  # 400 pairs reach 0.01 only with every pair met (one unmet: 0.0118)
    q = cert.quantiles()
    assert q["tau_minus_lag_q50"] <= q["tau_minus_lag_q90"] <= q["tau_minus_lag_q99"] <= q["tau_minus_lag_max"]
    ts, estimate = cert.curve()
    bound = cert.bound(ts)
    assert ts[0] == 0 and ts[-1] >= t and np.all(np.diff(bound) <= 0) and np.all(bound >= estimate)
    assert estimate[-1] == 0 and cert.t_estimate == int(np.sort(cert.tau)[-4])  # below 0.01: at most 3 of 400 left
    assert cert.burn_in(floor=10, margin=0.25) == int(np.ceil(t * 1.25))
    assert cert.burn_in(floor=10**6, margin=0.25) == 10**6
    summary = cert.summary(burn_in=2 * t)
    assert summary["t_cert"] == t and summary["confidence_level"] == 0.95 and "certified" in summary["status"]
    assert summary["tv_bound_at_burn_in"] <= 0.01 and summary["lag"] == -1


def test_a_certificate_record_rebuilds_it_exactly():
    import json

    from isdp.convergence import Certificate

    for lag in (None, 7):
        cert = Certificate(
            basis="b",
            lag=lag,
            n_pairs=4,
            max_iter=100,
            level=0.95,
            threshold=0.01,
            tau=np.array([8, 9, 100, 20]),
            met=np.array([True, True, False, True]),
            seconds=1.5,
        )
        back = Certificate.from_dict(json.loads(json.dumps(cert.to_dict())))
        assert back.summary(burn_in=50) == cert.summary(burn_in=50) and np.array_equal(back.tau, cert.tau)
    with pytest.raises(ValueError, match="n_pairs = 4"):
        Certificate.from_dict({**cert.to_dict(), "tau": [1, 2]})
    with pytest.raises(ValueError, match="a meeting time of 6 is impossible at lag 7"):  # was read as met
        Certificate.from_dict({**cert.to_dict(), "tau": [6, 6, 6, 6]})


def test_the_lag_route_sums_bonferroni_terms_up_to_the_horizon():
    """Lag L, horizon H = max_iter − L: J(t) = ⌈(H − t)/L⌉ terms, each at level α/J."""
    lattice = with_mixing_basis(IntegerLattice.from_constraints(sum_constraint(5)))
    cert = certify(lattice, TARGET, proposal_eps=PROPOSAL_EPS, start=None, lag=10, n_pairs=500, seed=6, max_iter=40)
    excess = cert.tau - 10
    for t in (0, 3, 12, 25):
        s = t + 10 * np.arange(-(-(30 - t) // 10))
        k = [int((excess > si).sum()) for si in s]
        assert cert.bound(t)[0] == pytest.approx(float(clopper_pearson_upper(k, 500, 0.05 / len(s)).sum()))


def test_censored_pairs_count_against_the_bound_and_say_so():
    lattice = IntegerLattice.from_constraints(sum_constraint(40))  # the Smith star: pairs rarely meet
    cert = certify(lattice, TARGET, proposal_eps=PROPOSAL_EPS, start=None, lag=5, n_pairs=20, seed=1, max_iter=50)
    assert not cert.certified and cert.t_cert is None and cert.n_censored > 0
    assert cert.summary()["t_cert"] == -1 and "not certified" in cert.status
    assert np.isinf(cert.quantiles()["tau_minus_lag_max"])
    assert cert.bound(44)[0] >= float(clopper_pearson_upper(cert.n_censored, 20, 0.05))
    for call in (lambda: cert.burn_in(0, 0.1), cert.require):
        with pytest.raises(CertificationError, match=f"{cert.n_censored} of 20 pairs did not meet within 45"):
            call()


def test_too_few_pairs_are_never_certified():
    lattice = with_mixing_basis(IntegerLattice.from_constraints(sum_constraint(3)))
    cert = certify(
        lattice, TARGET, proposal_eps=PROPOSAL_EPS, start=None, exact=_exact_draws(3, 1), n_pairs=298, seed=1
    )
    assert cert.n_censored == 0 and not cert.certified and "299 pairs" in cert.status
    one = certify(lattice, TARGET, proposal_eps=PROPOSAL_EPS, start=None, exact=_exact_draws(3, 1), n_pairs=1, seed=1)
    assert not one.certified
