"""ArviZ-readable storage of MCMC draws: netCDF files that ``arviz.from_netcdf`` opens.

ArviZ is imported where it is used: it takes ~3 s to import, which every workflow job that
only samples would otherwise pay.
"""

from __future__ import annotations

import numpy as np

from .files import atomic_write


def to_inference_data(draws: np.ndarray, cell_names=None, attrs: dict | None = None, var_name: str = "noise"):
    """Wrap (chains, draws, n) noise draws as ArviZ InferenceData with a ``cell`` dimension."""
    draws = np.asarray(draws)
    if draws.ndim != 3:
        raise ValueError(f"draws must have shape (chains, draws, cells), got {draws.shape}")
    import arviz as az

    names = list(cell_names) if cell_names is not None else [str(i) for i in range(draws.shape[2])]
    if len(names) != draws.shape[2]:
        raise ValueError(f"{len(names)} cell names for {draws.shape[2]} cells")
    idata = az.from_dict(posterior={var_name: draws}, coords={"cell": names}, dims={var_name: ["cell"]})
    for key, value in (attrs or {}).items():
        idata.posterior.attrs[key] = value if isinstance(value, (int, float, str)) else str(value)
    return idata


def save_draws(path, draws, cell_names=None, attrs: dict | None = None) -> None:
    """Write draws as netCDF (``arviz.from_netcdf`` reads it back), atomically.

    The file holds an ArviZ InferenceData whose posterior group has the variable ``noise`` with
    dimensions (chain, draw, cell). It is written to a temporary file and renamed, so a reader
    never sees half a file.

    Parameters
    ----------
    path : str or os.PathLike
        The file to write (conventionally ``.nc``); replaced if it exists.
    draws : array_like
        Draws of shape (chains, draws, n), e.g. :attr:`isdp.SamplerResult.draws`.
    cell_names : sequence of str, optional
        One name per cell, stored as the ``cell`` coordinate; default ``"0"``, ``"1"``, ….
    attrs : dict, optional
        Attributes stored with the draws (thinning, burn-in, seed, …). Integers, floats and
        strings are stored as they are; other values as their ``str``.

    Raises
    ------
    ValueError
        If ``draws`` is not 3-D or ``cell_names`` does not have one name per cell.

    See Also
    --------
    load_draws : Read the draws back.

    Examples
    --------
    >>> import os
    >>> import tempfile
    >>> import numpy as np
    >>> from isdp import load_draws, save_draws
    >>> draws = np.arange(12).reshape(2, 2, 3)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "draws.nc")
    ...     save_draws(path, draws, cell_names=["a", "b", "c"], attrs={"thin": 10})
    ...     print(os.listdir(tmp), bool((load_draws(path) == draws).all()))
    ['draws.nc'] True
    """
    idata = to_inference_data(draws, cell_names, attrs)
    atomic_write(path, lambda tmp: idata.to_netcdf(str(tmp)))


def load_draws(path, var_name: str = "noise") -> np.ndarray:
    """Read draws written by :func:`save_draws` back as an int64 (chains, draws, n) array.

    Parameters
    ----------
    path : str or os.PathLike
        A netCDF file of ArviZ InferenceData, as :func:`save_draws` writes.
    var_name : str, default "noise"
        The posterior variable to read.

    Returns
    -------
    numpy.ndarray
        An int64 array of shape (chains, draws, n).

    Examples
    --------
    >>> import os
    >>> import tempfile
    >>> import numpy as np
    >>> from isdp import load_draws, save_draws
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "draws.nc")
    ...     save_draws(path, np.array([[[1, -1, 0], [0, 2, -2]]]))
    ...     draws = load_draws(path)
    >>> draws.shape, draws.dtype.name, draws[0].tolist()
    ((1, 2, 3), 'int64', [[1, -1, 0], [0, 2, -2]])
    """
    import arviz as az

    idata = az.from_netcdf(str(path))
    return np.asarray(idata.posterior[var_name].values).astype(np.int64)


def draws_attrs(path) -> dict:
    """The attributes :func:`save_draws` stored with the draws (thinning, burn-in, certificate, seed)."""
    import arviz as az

    return dict(az.from_netcdf(str(path)).posterior.attrs)
