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
    """Write draws as netCDF (``arviz.from_netcdf`` reads it back), atomically."""
    idata = to_inference_data(draws, cell_names, attrs)
    atomic_write(path, lambda tmp: idata.to_netcdf(str(tmp)))


def load_draws(path, var_name: str = "noise") -> np.ndarray:
    """Read draws written by :func:`save_draws` back as an int64 (chains, draws, n) array."""
    import arviz as az

    idata = az.from_netcdf(str(path))
    return np.asarray(idata.posterior[var_name].values).astype(np.int64)


def draws_attrs(path) -> dict:
    """The attributes :func:`save_draws` stored with the draws (thinning, burn-in, certificate, seed)."""
    import arviz as az

    return dict(az.from_netcdf(str(path)).posterior.attrs)
