"""Convergence diagnostics (ArviZ R-hat / ESS) and netCDF storage of draws."""

from __future__ import annotations

import numpy as np
import pytest

from isdp.convergence import convergence_table, load_draws, save_draws, summarize_convergence
from isdp.convergence._arviz_compat import from_netcdf
from isdp.convergence._draws_io import to_inference_data

CHAINS, DRAWS = 4, 1000


def _iid(seed: int, cells: int = 5) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.geometric(0.3, (CHAINS, DRAWS, cells)) - rng.geometric(0.3, (CHAINS, DRAWS, cells))).astype(np.int64)


def test_iid_draws_look_converged():
    draws = _iid(1)
    table = convergence_table(draws, cell_names=list("abcde"))
    assert list(table["cell"]) == list("abcde")
    assert not table["constant"].any()
    # i.i.d. draws: R-hat ≈ 1, ESS ≈ chains × draws (ranges wide enough for MC noise of the
    # estimators at 4 × 1000 draws, narrow enough to catch a per-chain or per-draw count)
    assert table["r_hat"].between(0.99, 1.01).all(), table["r_hat"]
    n = CHAINS * DRAWS
    assert table["ess_bulk"].between(0.7 * n, 1.3 * n).all(), table["ess_bulk"]
    assert table["ess_tail"].between(0.6 * n, 1.4 * n).all(), table["ess_tail"]
    summary = summarize_convergence(table)
    assert summary["max_r_hat"] == pytest.approx(table["r_hat"].max())
    assert summary["min_ess_bulk"] == pytest.approx(table["ess_bulk"].min())
    assert summary["n_constant"] == 0


def test_autocorrelated_chains_have_smaller_ess():
    """AR(1) chains with ρ = 0.8: ESS ≈ N (1-ρ)/(1+ρ) = N/9."""
    rng = np.random.default_rng(2)
    rho, n = 0.8, 4000
    x = np.zeros((CHAINS, n, 2))
    x[:, 0] = rng.normal(size=(CHAINS, 2)) / np.sqrt(1 - rho**2)
    for t in range(1, n):
        x[:, t] = rho * x[:, t - 1] + rng.normal(size=(CHAINS, 2))
    table = convergence_table(np.rint(10 * x).astype(np.int64))
    expected = CHAINS * n * (1 - rho) / (1 + rho)
    assert table["ess_bulk"].between(0.6 * expected, 1.5 * expected).all(), table["ess_bulk"]


def test_chains_with_shifted_means_are_flagged():
    draws = _iid(3)
    draws[:, :, 1] += np.array([0, 0, 3, 6])[:, None]  # chains disagree on cell 1
    table = convergence_table(draws)
    assert table.loc[1, "r_hat"] > 1.1
    assert table.drop(index=1)["r_hat"].between(0.99, 1.01).all()
    assert summarize_convergence(table)["max_r_hat"] > 1.1


def test_constant_cell_is_flagged_not_a_crash():
    draws = _iid(4)
    draws[:, :, 2] = 0  # e.g. a cell pinned by the invariants
    table = convergence_table(draws)
    assert table["constant"].tolist() == [False, False, True, False, False]
    summary = summarize_convergence(table)
    assert summary["n_constant"] == 1
    assert np.isfinite(summary["max_r_hat"]) and summary["max_r_hat"] < 1.01
    # all cells constant: a finding too
    table = convergence_table(np.zeros((2, 50, 3), dtype=np.int64))
    assert table["constant"].all()
    assert np.isnan(summarize_convergence(table)["max_r_hat"])


def test_stuck_chains_at_different_values_are_not_hidden():
    draws = _iid(5)
    draws[:, :, 3] = np.array([0, 1, 2, 3])[:, None]  # every chain stuck, each somewhere else
    table = convergence_table(draws)
    assert not table.loc[3, "constant"]
    assert summarize_convergence(table)["max_r_hat"] > 1.1


def test_save_load_round_trip(tmp_path):
    draws = _iid(6, cells=3)
    draws[0, 0, 0] = 2**40  # int64 values survive exactly
    path = tmp_path / "draws.nc"
    save_draws(
        path,
        draws,
        cell_names=["x", "y", "z"],
        attrs={"seed": 7, "target": "Laplace ℓ1", "eps": 0.2, "obj": [1, 2]},
    )
    assert path.exists() and not (tmp_path / "draws.nc.tmp").exists()
    back = load_draws(path)
    assert back.dtype == np.int64
    np.testing.assert_array_equal(back, draws)
    post = from_netcdf(path)["posterior"]  # the installed ArviZ reads what save_draws wrote
    assert post["noise"].dims == ("chain", "draw", "cell")
    assert list(post["cell"].values) == ["x", "y", "z"]
    assert post.attrs["seed"] == 7 and post.attrs["eps"] == 0.2 and post.attrs["target"] == "Laplace ℓ1"
    assert post.attrs["obj"] == "[1, 2]"
    # overwriting an existing file works
    save_draws(path, draws[:, :10])
    assert load_draws(path).shape == (CHAINS, 10, 3)


def test_to_inference_data_validates_shapes():
    with pytest.raises(ValueError):
        to_inference_data(np.zeros((3, 4)))
    with pytest.raises(ValueError):
        to_inference_data(np.zeros((2, 3, 4)), cell_names=["a", "b"])
