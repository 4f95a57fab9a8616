"""Tests of :mod:`isdp.convergence`, the one door to ArviZ: the diagnostics equal their formulas whichever ArviZ
generation is installed (CI runs 0.x on Python 3.11 and 1.x on 3.13), and draws files pass between isdp and
the installed ArviZ both ways."""

from __future__ import annotations

import h5py
import numpy as np
import pytest
from scipy.signal import lfilter

from isdp.convergence import _arviz_compat as arviz_compat
from isdp.convergence import load_draws, save_draws
from isdp.convergence._draws_io import to_inference_data


def _split_rhat(x: np.ndarray) -> float:
    """Split R-hat of (chains, draws) by its textbook formula (Gelman et al., BDA3 §11.4)."""
    half = x.shape[1] // 2
    chains = np.concatenate([x[:, :half], x[:, -half:]])
    n = chains.shape[1]
    between = n * chains.mean(axis=1).var(ddof=1)
    within = chains.var(axis=1, ddof=1).mean()
    return float(np.sqrt(((n - 1) / n * within + between / n) / within))


def test_the_generation_matches_the_interpreter():
    import sys

    assert arviz_compat.generation() == (1 if sys.version_info >= (3, 12) else 0)


def test_split_rhat_is_the_textbook_formula():
    x = np.random.default_rng(1).normal(size=(4, 301, 3)).cumsum(axis=1)  # random walks: R-hat far from 1
    expected = [_split_rhat(x[:, :, j]) for j in range(3)]
    np.testing.assert_allclose(arviz_compat.rhat(x, method="split"), expected, rtol=1e-12)
    assert min(expected) > 1.1


def test_ess_of_an_ar1_chain_is_its_exact_value():
    """AR(1) with coefficient 1/2: the mean's ESS is N (1 − φ)/(1 + φ) = N/3. Over 40 seeds the estimate's
    ratio to it has SD 0.038 (mean 0.995); the tolerance is four SDs."""
    x = lfilter([1.0], [1.0, -0.5], np.random.default_rng(2).normal(size=(4, 4000)), axis=1)
    assert abs(float(arviz_compat.ess(x, method="mean")) / (x.size / 3) - 1) < 0.15


def test_bulk_and_tail_ess_of_independent_draws_are_near_their_count():
    x = np.random.default_rng(3).normal(size=(4, 1000, 2))
    for method in ("bulk", "tail"):
        ess = arviz_compat.ess(x, method=method)
        assert ess.shape == (2,) and np.all((ess > 0.8 * x[..., 0].size) & (ess < 1.25 * x[..., 0].size)), method


def test_one_dimensional_values_are_refused():
    with pytest.raises(ValueError, match=r"shape \(chains, draws, \.\.\.\)"):
        arviz_compat.ess(np.zeros(10))


def test_a_file_written_by_the_installed_arviz_is_read_by_load_draws(tmp_path):
    draws = np.random.default_rng(4).integers(-5, 6, size=(2, 7, 3))
    path = tmp_path / "arviz.nc"
    to_inference_data(draws, ["a", "b", "c"], attrs={"thin": 3}).to_netcdf(str(path))
    np.testing.assert_array_equal(load_draws(path), draws)


def test_save_draws_compresses_and_the_installed_arviz_reads_it(tmp_path):
    draws = np.random.default_rng(5).integers(-5, 6, size=(2, 7, 3))
    path = tmp_path / "isdp.nc"
    save_draws(path, draws, cell_names=["a", "b", "c"], attrs={"thin": 3})
    with h5py.File(path, "r") as f:
        assert f["posterior/noise"].compression == "gzip"
    post = arviz_compat.from_netcdf(path)["posterior"]
    np.testing.assert_array_equal(post["noise"].values, draws)
    assert post["noise"].dims == ("chain", "draw", "cell") and int(post.attrs["thin"]) == 3
