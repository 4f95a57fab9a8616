"""Convergence of the chains.

The one certificate (a 95 % upper confidence bound on the coupling bound), R-hat and ESS via ArviZ, and draws stored as
ArviZ-readable netCDF (docs/method.md §4).

Examples
--------
>>> import numpy as np
>>> from isdp.convergence import convergence_table
>>> draws = np.random.default_rng(1).integers(-3, 4, size=(4, 500, 2))  # (chains, draws, cells)
>>> list(convergence_table(draws).columns)
['cell', 'r_hat', 'ess_bulk', 'ess_tail', 'constant']
"""

from ._arviz_compat import ess
from ._certificate import Certificate
from ._certify import (
    certify,
    certify_augmented,
    certify_heat_bath,
    certify_mis,
    certify_searching_lag,
)
from ._diagnostics import convergence_table, summarize_convergence
from ._draws_io import draws_attrs, load_draws, save_draws

__all__ = [
    "Certificate",
    "certify",
    "certify_augmented",
    "certify_heat_bath",
    "certify_mis",
    "certify_searching_lag",
    "convergence_table",
    "draws_attrs",
    "ess",
    "load_draws",
    "save_draws",
    "summarize_convergence",
]
