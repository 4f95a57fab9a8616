"""The one door to ArviZ: R-hat, ESS and InferenceData from ArviZ 1.x or 0.x, whichever is installed.

ArviZ 1.x splits into ``arviz_base`` (data) and ``arviz_stats`` (diagnostics) and needs Python 3.12;
on Python 3.11 the last 0.x release serves. Both compute the same rank-normalised split R-hat and
ESS of Vehtari et al. (2021) (``tests/core/convergence/test_arviz_compat.py`` compares them with the formulas), so a
value does not depend on which one is installed. Draws files are read and written without ArviZ
(:mod:`isdp.convergence`), in the layout both generations read.

ArviZ is imported on the first call: 0.x takes about 3 s to import, which a workflow job that only
samples would otherwise pay.
"""

from __future__ import annotations

import functools
import importlib.metadata
import warnings

import numpy as np


@functools.cache
def generation() -> int:
    """The major version of the ArviZ whose diagnostics are used: 1 (``arviz_stats``) or 0 (``arviz``)."""
    try:
        if int(importlib.metadata.version("arviz-stats").split(".")[0]) >= 1:
            return 1
    except importlib.metadata.PackageNotFoundError:
        pass
    return 0


#: the tail ESS's quantiles: 0.x's default, which 1.x's array functions need stated
TAIL_PROB = (0.05, 0.95)


def _diagnostic(name: str, values, **kwargs) -> np.ndarray:
    """ArviZ's ``name`` ("rhat" or "ess") over axes (chain, draw) of ``values``: one value per trailing index."""
    values = np.asarray(values, dtype=float)
    if values.ndim < 2:
        raise ValueError(f"values must have shape (chains, draws, ...), got {values.shape}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a constant cell's NaN R-hat is reported, not warned
        if generation() == 1:
            from arviz_stats.base import array_stats

            return np.asarray(getattr(array_stats, name)(values, chain_axis=0, draw_axis=1, **kwargs))
        warnings.simplefilter("ignore", FutureWarning)  # 0.x announces the 1.x refactor on import
        import arviz as az

        return np.asarray(getattr(az, name)(az.convert_to_dataset({"x": values}), **kwargs)["x"].values)


def rhat(values, method: str = "rank") -> np.ndarray:
    """R-hat of draws of shape (chains, draws, ...), one value per trailing index (a 0-d array for 2-D input)."""
    return _diagnostic("rhat", values, method=method)


def ess(values, method: str = "bulk") -> np.ndarray:
    """Effective sample size (``method`` "bulk", "tail", "mean", …) of draws of shape (chains, draws, ...)."""
    return _diagnostic("ess", values, method=method, **({"prob": TAIL_PROB} if method == "tail" else {}))


def inference_data(draws: np.ndarray, var_name: str, names: list, attrs: dict):
    """``draws`` (chains, draws, cells) as the installed ArviZ's container: a DataTree (1.x) or InferenceData (0.x)."""
    coords, dims = {"cell": names}, {var_name: ["cell"]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        if generation() == 1:
            from arviz_base import from_dict

            data = from_dict({"posterior": {var_name: draws}}, coords=coords, dims=dims)
        else:
            import arviz as az

            data = az.from_dict(posterior={var_name: draws}, coords=coords, dims=dims)
    data["posterior"].attrs.update(attrs)
    return data


def from_netcdf(path):
    """A netCDF file opened by the installed ArviZ (``arviz_base.from_netcdf`` or ``arviz.from_netcdf``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        if generation() == 1:
            from arviz_base import convert_to_datatree as read  # a file name: xarray.open_datatree
        else:
            from arviz import from_netcdf as read
    return read(str(path))
