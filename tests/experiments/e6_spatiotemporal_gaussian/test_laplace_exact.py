"""Tests of :mod:`isdp_papers.e6_spatiotemporal_gaussian.laplace_exact`: the projected Laplace density is the
integral over the invariant direction and integrates to one on the null space, its level on a grid approaches but never
exceeds the exact level, and the extended release is additive with noise in the null space (as printed: it adds h
again)."""

from __future__ import annotations

import numpy as np
import pytest
from isdp_papers.e6_spatiotemporal_gaussian import laplace_exact as le
from scipy import integrate


@pytest.mark.parametrize("a", [(0.0, 0.0), (1.0, 2.0), (-30.0, 5.0), (100.0, -40.0)])
def test_projected_density_is_the_integral_over_the_invariant_direction(a):
    b, Q = 3.0, le.helmert_basis(3)
    v = Q @ np.array(a)

    def integrand(s):
        return np.prod(np.exp(-np.abs(v + s) / b) / (2 * b))

    breaks = sorted(-v)
    direct = sum(
        integrate.quad(integrand, lo, hi, epsabs=0, epsrel=1e-12)[0]
        for lo, hi in zip([-np.inf, *breaks], [*breaks, np.inf], strict=True)
    )
    assert le.projected_logpdf(v, b)[0] == pytest.approx(np.log(np.sqrt(3) * direct), abs=1e-9)


def test_projected_density_integrates_to_one_on_the_null_space():
    b, Q = 1.0, le.helmert_basis(3)
    a = np.linspace(-40, 40, 801)
    grid = np.stack(np.meshgrid(a, a, indexing="ij"), axis=-1).reshape(-1, 2)
    mass = np.exp(le.projected_logpdf(grid @ Q.T, b)).sum() * (a[1] - a[0]) ** 2
    assert mass == pytest.approx(1.0, abs=1e-3)


def test_projected_grid_level_approaches_but_never_exceeds_the_exact_level():
    b = 2.0
    shifts = le.histogram_shifts(3)
    exact = le.projected_level(shifts, b)
    on_grid, _ = le.projected_grid_level(shifts, b, le.grid(b))
    assert exact == pytest.approx(2 / b)
    assert exact * (1 - 1e-6) <= on_grid <= exact * (1 + 1e-8)


def test_extended_release_is_additive_with_noise_in_the_null_space():
    Q = le.helmert_basis(3)
    h, w = np.array([2.0, 1.0, 0.0]), np.random.default_rng(1).laplace(size=(5, 2))
    assert np.allclose(le.extended_release(h, Q, w) - h, w @ Q.T)
    assert np.allclose(le.extended_release(h, Q, w, as_printed=True) - h, h + w @ Q.T)
