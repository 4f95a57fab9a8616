"""The exact privacy profile of the lattice discrete Gaussian (isdp.privacy): Canonne, Kamath &
Steinke's one-dimensional formula where the lattice is one-dimensional, an upper bound attained or nearly
attained on enumerated lattice laws, and the σ it calibrates (met on one side, missed one grid step below)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import special

from isdp.exact import ExactSampler
from isdp.lattice import table_margins
from isdp.privacy import exact_route_noise
from isdp.privacy._gaussian_profile import SIGMA_GRID, calibrate_sigma, profile_delta, profile_epsilon, residue_profiles


def _cks_theorem7(eps: float, sigma: float, sensitivity: int) -> float:
    """δ of the one-dimensional discrete Gaussian N_Z(0, σ²) at an integer sensitivity Δ, by CKS Theorem 7:
    P[X > εσ²/Δ − Δ/2] − e^ε P[X > εσ²/Δ + Δ/2], the tails summed directly."""
    x = np.arange(-4000, 4001)
    p = np.exp(-(x.astype(float) ** 2) / (2 * sigma**2))
    p /= p.sum()
    a = eps * sigma**2 / sensitivity
    return float(p[x > a - sensitivity / 2].sum() - math.exp(eps) * p[x > a + sensitivity / 2].sum())


@pytest.mark.parametrize(("eps", "sigma"), [(0.5, 3.0), (1.0, 2.0), (1.0, 5.5), (2.0, 1.3)])
def test_the_profile_of_the_integers_is_cks_theorem_7(eps, sigma):
    """On the lattice Z (a cell in no invariant, one person added: ‖v‖² = 1) the profile is exactly the
    one-dimensional discrete Gaussian's, computed here from its tails as CKS state it."""
    assert profile_delta(eps, sigma, 1) == pytest.approx(_cks_theorem7(eps, sigma, 1), rel=1e-9, abs=1e-300)


def _lattice_deltas(A, x, v, sigma, epsilons, radius=40):
    """The hockey-stick between the release's exact output laws at x and x + v, enumerated on the lattice."""
    sampler = ExactSampler.build(np.asarray(A), gaussian=True)
    noise = exact_route_noise(sampler, 1 / Fraction(sigma), radius=radius, sigma=Fraction(sigma))
    assert noise.outside < 1e-12
    p, q = noise.shifted(x), noise.shifted(x + v)
    return [p.hockey_stick_bound(q, eps) for eps in epsilons]


SWAP22 = np.array([1, -1, -1, 1])
MOVE3 = np.array([-1, 1, 0])
SWAP23 = np.array([1, -1, 0, -1, 1, 0])


def test_one_residue_class_attains_the_profile():
    """A 2 × 2 table's lattice is Z·v for the swap v (‖v‖² = 4): t = ⟨u, v⟩ lies in 4Z, one class carries
    all the mass, and the profile at squared distance 4 is attained exactly."""
    for sigma, eps in [(1.5, 1.0), (3.0, 0.5), (0.8, 2.0)]:
        [exact] = _lattice_deltas(table_margins(2, 2), np.array([3, 1, 2, 5]), SWAP22, sigma, [eps])
        assert exact == pytest.approx(residue_profiles(eps, sigma, 4)[0], rel=1e-9)
        assert exact <= profile_delta(eps, sigma, 4) * (1 + 1e-12)  # equal here, up to the sums' rounding


@pytest.mark.parametrize(
    ("A", "v", "shift"),
    [(np.ones((1, 3), dtype=np.int64), MOVE3, 2), (table_margins(2, 3), SWAP23, 4)],
    ids=["total of 3", "2x3 margins"],
)
@pytest.mark.parametrize("sigma", [0.7, 1.5, 4.0])
def test_the_profile_bounds_the_enumerated_lattice_law(A, v, shift, sigma):
    """The profile is an upper bound on every lattice (a convex combination over residue classes), and a
    close one at a release's σ: at σ = 4 the lattice's own δ is at least 3/4 of it (the 2 × 3 lattice has
    t ∈ 2Z, two of the four classes; the total of 3 all of them)."""
    x = np.arange(A.shape[1]) % 3
    epsilons = (0.25, 1.0, 2.0)
    for eps, exact in zip(epsilons, _lattice_deltas(A, x, v, sigma, epsilons), strict=True):
        bound = profile_delta(eps, sigma, shift)
        assert exact <= bound * (1 + 1e-9)
        if sigma >= 4:
            assert exact >= 0.75 * bound


def _continuous_gaussian_delta(eps: float, mu: float) -> float:
    """Balle & Wang's (2018, Thm 8) exact profile of the continuous Gaussian with Δ/σ = ``mu``."""
    return float(special.ndtr(mu / 2 - eps / mu) - math.exp(eps) * special.ndtr(-mu / 2 - eps / mu))


def test_the_profile_approaches_the_continuous_gaussians_at_large_sigma():
    """Balle & Wang's analytic Gaussian profile at sensitivity √s is the limit as σ grows."""
    for sigma in (20.0, 40.0):
        assert profile_delta(1.0, sigma / 10, 2) > 0  # sanity: a small σ leaks
        cont = _continuous_gaussian_delta(0.05, math.sqrt(2) / sigma)
        assert profile_delta(0.05, sigma, 2) == pytest.approx(cont, rel=0.02)


@pytest.mark.parametrize(("eps", "delta", "shift"), [(1.0, 1e-6, 2), (0.5, 1e-9, 2), (2.0, 1e-5, 4), (1.0, 1e-6, 8)])
def test_calibrated_sigma_meets_the_request_and_one_grid_step_less_does_not(eps, delta, shift):
    sigma = calibrate_sigma(eps, delta, shift)
    assert sigma.denominator <= SIGMA_GRID and SIGMA_GRID % sigma.denominator == 0
    assert profile_delta(eps, sigma, shift) <= delta < profile_delta(eps, sigma - Fraction(1, SIGMA_GRID), shift)
    stated = profile_epsilon(delta, sigma, shift)
    assert eps * (1 - 1e-5) <= stated <= eps  # the grid costs at most a hair of ε


def test_profile_epsilon_inverts_the_profile():
    for sigma, delta in [(2.0, 1e-3), (6.0, 1e-6), (0.5, 0.3)]:
        eps = profile_epsilon(delta, sigma, 2)
        assert profile_delta(eps, sigma, 2) <= delta < profile_delta(eps * (1 - 1e-6), sigma, 2)
    assert profile_epsilon(0.999, 50.0, 2) == 0.0  # already within δ in total variation


def test_the_profile_grows_with_the_shift():
    """A longer shift (more persons) leaks more at the same σ: the profile is read at the largest."""
    deltas = [profile_delta(1.0, 4.0, s) for s in range(1, 9)]
    assert profile_delta(1.0, 4.0, 8) == max(deltas) and deltas[0] < deltas[-1]


def test_the_profile_saves_variance_against_the_zcdp_conversion():
    """At (1, 1e-6) per person σ is 5.983225, and the standard zCDP conversion needs σ about 1.26 times larger (1.6
    times the variance): the figures docs/method.md and gaussian_profile.calibrate_sigma state."""
    log_inv_delta = math.log(1e6)
    rho = (math.sqrt(log_inv_delta + 1.0) - math.sqrt(log_inv_delta)) ** 2  # ε = ρ + 2√(ρ ln 1/δ) solved for ρ
    zcdp_sigma = math.sqrt(2 / (2 * rho))  # ρ = ‖v‖²/2σ² with ‖v‖² = 2
    sigma = calibrate_sigma(1.0, 1e-6, 2)
    assert f"{float(sigma):.6f}" == "5.983225"
    ratio = zcdp_sigma / float(sigma)
    assert 1.25 < ratio < 1.27 and 1.55 < ratio**2 < 1.62


# --------------------------------------------------------------------------- arguments, bounds and memory


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: profile_delta(1.0, 0, 2), "sigma must be a finite number > 0"),  # was nan
        (lambda: profile_delta(1.0, -6, 2), "sigma must be a finite number > 0"),  # was read as 6
        (lambda: profile_delta(1.0, 6, 2.7), "must be an integer, not 2.7"),  # was truncated to 2: δ understated
        (lambda: profile_delta(-1.0, 6, 2), "epsilon must be a finite number ≥ 0"),
        (lambda: profile_delta(math.nan, 6, 2), "epsilon must be a finite number ≥ 0"),
        (lambda: profile_epsilon(2, 6, 2), "delta must lie strictly between 0 and 1"),  # was 0.0
        (lambda: calibrate_sigma(1, 1, 2), "delta must lie strictly between 0 and 1"),  # was σ 0.213
        (lambda: calibrate_sigma(0, 1e-6, 2), "epsilon must be a finite number > 0"),  # was a MemoryError after 20 s
        (lambda: calibrate_sigma(-1, 1e-6, 2), "epsilon must be a finite number > 0"),
        (lambda: residue_profiles(1.0, 6, 10**5), "must lie in 1 … 200, not 100000"),  # hung
        (lambda: profile_delta(1.0, 6, True), "must be an integer"),
    ],
)
def test_inputs_outside_the_documented_ranges_are_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("s", [1, 2, 5])
@pytest.mark.parametrize("eps", [0.0, 1e-4, 1e-3, 0.01])
def test_the_wide_law_bound_is_above_the_exact_profile_and_within_a_thousandth(eps, s):
    """Beyond an exact sum's budget the profile takes a bound whose cost does not grow with σ: it must be
    above the exact value (never a weaker statement) and close to it (a tight one), wherever δ matters."""
    from isdp.privacy._gaussian_profile import _log_delta_bound, _log_delta_classes

    for tau in (100.0, 1000.0, 3000.0):
        sigma2 = tau * tau * s
        exact = float(_log_delta_classes(eps, sigma2, s).max())
        if not -28 < exact < math.log(0.5):  # δ from 1e-12 to 0.5
            continue
        bound = _log_delta_bound(eps, sigma2, s)
        assert 0 <= bound - exact < (1e-3 if tau >= 1000 else 0.02), (tau, exact, bound)  # used from τ = 1000


@pytest.mark.parametrize("eps", [1e-4, 1e-6, 1e-9])
def test_a_tiny_epsilon_is_calibrated_in_bounded_memory_and_stated_as_asked(eps):
    """--norm gaussian --epsilon 1e-4 --delta 1e-6 died asking for 8.9 GiB (1e-9: 4.6 TiB): the exact sums grew
    with σ, so with 1/ε. Now the profile of a wide law is a bound of fixed cost."""
    import tracemalloc

    tracemalloc.start()
    try:
        sigma = calibrate_sigma(eps, 1e-6, 2)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 300 * 2**20
    assert profile_delta(eps, sigma, 2) <= 1e-6 and profile_epsilon(1e-6, sigma, 2) <= eps
    if eps == 1e-9:  # then δ is about the total variation, 1/(σ√π) for one person's move (‖v‖² = 2): tight
        assert float(sigma) == pytest.approx(1 / (1e-6 * math.sqrt(math.pi)), rel=1e-3)
