"""Tests of :mod:`isdp_papers.e6_spatiotemporal_gaussian.measures.conditioning`: Theorem 4.2's projection against
conditioning on a slab: the row fails for noise that is not Gaussian or not spherical, and projection is not
conditioning for the Laplace but is for the Gaussian; for Gaussian noise with unequal variances projection is not
conditioning (SDP-E6-nonspherical-gaussian), and the row fails for spherical noise and for cells whose null-space and
invariant parts are uncorrelated."""

from __future__ import annotations

import numpy as np
import pytest
from closed_form_support import row_status
from conftest import row_verdict
from isdp_papers.e6_spatiotemporal_gaussian import spatiotemporal as st


def test_conditioning_slab_row_fails_where_projection_is_not_conditioning(monkeypatch):
    assert row_status("SDP-E6-conditioning-slab") == "match"
    original = st.conditioning_by_slab
    for noise in (
        lambda g, shape: g.laplace(0.0, 1.0, shape),  # not Gaussian
        lambda g, shape: g.standard_normal(shape) * np.arange(1, shape[1] + 1),
    ):  # not spherical
        with monkeypatch.context() as m:
            m.setattr(st, "conditioning_by_slab", lambda C, n, w, rng, noise=noise: original(C, n, w, rng, noise))
            assert row_status("SDP-E6-conditioning-slab") == "differs"


def test_projection_is_not_conditioning_for_laplace_but_is_for_the_gaussian(run):
    status, m = row_verdict("SDP-E6-projection-not-conditioning", run)
    assert status == "match" and m.value < 1e-10
    status, m = row_verdict("SDP-E6-projection-not-conditioning", run, noise="gaussian")  # Thm 4.2's case
    assert status == "differs" and m.value > 0.05


# --------------------------------------------------------------------------- SDP-E6-nonspherical-gaussian


def test_projection_is_not_conditioning_for_unequal_variances(run):
    status, m = row_verdict("SDP-E6-nonspherical-gaussian", run)
    assert status == "match" and m.value == pytest.approx(1 / 6)


@pytest.mark.parametrize("covariance", [np.eye(3), np.eye(3) + 0.5 * np.ones((3, 3)), np.diag([2.0, 2.0, 2.0])])
def test_spherical_or_uncorrelated_parts_give_the_conditional_law(run, covariance):
    """Controls: Thm 4.2's spherical case, and equicorrelated cells under a total (null-space and invariant parts
    uncorrelated), where projection does give the conditional law; the row fails on them."""
    status, m = row_verdict("SDP-E6-nonspherical-gaussian", run, covariance=covariance.tolist())
    assert status == "differs" and m.value < 1e-12
