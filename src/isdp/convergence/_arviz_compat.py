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
    """Return the major version of the ArviZ whose diagnostics are used: 1 (``arviz_stats``) or 0 (``arviz``).

    ArviZ 1.x (``arviz_base``, ``arviz_stats``) needs Python 3.12; on Python 3.11 the last 0.x release
    serves. R-hat and ESS agree between the two; the container :func:`from_netcdf` returns does not.

    Returns
    -------
    int
        1 when ``arviz-stats`` 1.x is installed, else 0; looked up once per process.

    Examples
    --------
    >>> from isdp.convergence._arviz_compat import generation
    >>> generation() in (0, 1)
    True
    """
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
            from arviz_stats.base import array_stats  # deferred: ArviZ loads on the first call (module docstring)

            return np.asarray(getattr(array_stats, name)(values, chain_axis=0, draw_axis=1, **kwargs))
        warnings.simplefilter("ignore", FutureWarning)  # 0.x announces the 1.x refactor on import
        import arviz as az  # deferred: 0.x costs about 3 s at import

        return np.asarray(getattr(az, name)(az.convert_to_dataset({"x": values}), **kwargs)["x"].values)


def rhat(values, method: str = "rank") -> np.ndarray:
    """R-hat of draws of shape (chains, draws, ...), one value per trailing index.

    Parameters
    ----------
    values : array_like
        Draws of shape (chains, draws, ...), at least two axes; e.g.
        :attr:`isdp.mcmc.SamplerResult.draws`.
    method : str, default "rank"
        ArviZ's R-hat method, e.g. "rank" (the rank-normalised split R-hat) or "split".

    Returns
    -------
    numpy.ndarray
        float, the shape of ``values`` without its first two axes (a 0-d array for 2-D input); NaN
        for a constant cell.

    Raises
    ------
    ValueError
        If ``values`` has fewer than two axes.

    See Also
    --------
    ess : The effective sample size of the same draws.
    convergence_table : R-hat and ESS per cell as a table.

    Notes
    -----
    Vehtari, Gelman, Simpson, Carpenter & Bürkner (2021); the value is ArviZ's, 1.x or 0.x
    (:func:`generation`), which agree.

    Examples
    --------
    Four well-mixed chains give R-hat near 1; one chain stuck elsewhere raises it:

    >>> import numpy as np
    >>> from isdp.convergence._arviz_compat import rhat
    >>> draws = np.random.default_rng(0).normal(size=(4, 500, 2))
    >>> rhat(draws).round(2).tolist()
    [1.0, 1.0]
    >>> draws[0] += 3
    >>> rhat(draws).round(2).tolist()
    [1.46, 1.48]
    """
    return _diagnostic("rhat", values, method=method)


def ess(values, method: str = "bulk") -> np.ndarray:
    """Effective sample size of draws of shape (chains, draws, ...), one value per trailing index.

    Parameters
    ----------
    values : array_like
        Draws of shape (chains, draws, ...), at least two axes.
    method : str, default "bulk"
        ArviZ's ESS method, e.g. "bulk", "tail" (at the 5 % and 95 % quantiles under either ArviZ)
        or "mean".

    Returns
    -------
    numpy.ndarray
        float, the shape of ``values`` without its first two axes (a 0-d array for 2-D input).

    Raises
    ------
    ValueError
        If ``values`` has fewer than two axes.

    See Also
    --------
    rhat : R-hat of the same draws.
    convergence_table : Bulk and tail ESS per cell as a table.

    Examples
    --------
    Independent draws are worth about their number; a random walk's far fewer:

    >>> import numpy as np
    >>> from isdp.convergence import ess
    >>> rng = np.random.default_rng(0)
    >>> ess(rng.normal(size=(4, 500, 2))).round().tolist()
    [1712.0, 2022.0]
    >>> float(ess(np.cumsum(rng.normal(size=(4, 500)), axis=1)).round())
    6.0
    """
    return _diagnostic("ess", values, method=method, **({"prob": TAIL_PROB} if method == "tail" else {}))


def inference_data(draws: np.ndarray, var_name: str, names: list, attrs: dict):
    """``draws`` (chains, draws, cells) as the installed ArviZ's container: a DataTree (1.x) or InferenceData (0.x)."""
    coords, dims = {"cell": names}, {var_name: ["cell"]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        if generation() == 1:
            from arviz_base import from_dict  # deferred: ArviZ loads on the first call (module docstring)

            data = from_dict({"posterior": {var_name: draws}}, coords=coords, dims=dims)
        else:
            import arviz as az  # deferred: 0.x costs about 3 s at import

            data = az.from_dict(posterior={var_name: draws}, coords=coords, dims=dims)
    data["posterior"].attrs.update(attrs)
    return data


def from_netcdf(path):
    """Return a netCDF file opened by the installed ArviZ, for ArviZ's own plots and summaries.

    Parameters
    ----------
    path : str or os.PathLike
        The file, e.g. one :func:`save_draws` wrote.

    Returns
    -------
    xarray.DataTree or arviz.InferenceData
        The installed ArviZ's container (a ``DataTree`` under 1.x, read by
        ``arviz_base.convert_to_datatree``; an ``InferenceData`` under 0.x, by
        ``arviz.from_netcdf``); either way ``result["posterior"]["noise"]`` holds draws of
        :func:`save_draws` with dimensions (chain, draw, cell).

    See Also
    --------
    load_draws : The draws as a checked int64 array, without ArviZ.

    Examples
    --------
    >>> import os
    >>> import tempfile
    >>> import numpy as np
    >>> from isdp.convergence import save_draws
    >>> from isdp.convergence._arviz_compat import from_netcdf
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "draws.nc")
    ...     save_draws(path, np.arange(12).reshape(2, 2, 3), cell_names=["a", "b", "c"])
    ...     noise = from_netcdf(path)["posterior"]["noise"]
    ...     print(noise.dims, noise.shape)
    ('chain', 'draw', 'cell') (2, 2, 3)
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        if generation() == 1:
            # deferred, as every ArviZ import here; given a file name it calls xarray.open_datatree
            from arviz_base import convert_to_datatree as read
        else:
            from arviz import from_netcdf as read  # deferred: 0.x costs about 3 s at import
    return read(str(path))
