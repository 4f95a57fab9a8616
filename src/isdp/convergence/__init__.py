"""Convergence of the chains: the one certificate (a 95 % upper confidence bound on the coupling bound),
R-hat and ESS via ArviZ, and draws stored as ArviZ-readable netCDF (docs/method.md §4).
"""

from ._arviz_compat import ess, from_netcdf, generation, inference_data, rhat
from ._certification import (
    Certificate,
    certify,
    certify_augmented,
    certify_heat_bath,
    certify_mis,
)
from ._diagnostics import convergence_table, summarize_convergence
from ._draws_io import load_draws, save_draws

__all__ = [
    "Certificate",
    "certify",
    "certify_augmented",
    "certify_heat_bath",
    "certify_mis",
    "convergence_table",
    "ess",
    "from_netcdf",
    "generation",
    "inference_data",
    "load_draws",
    "rhat",
    "save_draws",
    "summarize_convergence",
]
