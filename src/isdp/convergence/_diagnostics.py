"""Convergence diagnostics of MCMC draws: R-hat and ESS per cell (ArviZ).

ArviZ is reached through :mod:`isdp.convergence`, which imports it on the first call and serves ArviZ 1.x or 0.x.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import _arviz_compat as arviz_compat
from ._draws_io import _cell_names


def convergence_table(draws: np.ndarray, cell_names=None) -> pd.DataFrame:
    """Rank-normalised split R-hat, bulk and tail ESS per cell (ArviZ).

    The convergence check of several chains' draws, cell by cell: R-hat near 1 (the workflow
    requires below 1.01) says the chains agree; the effective sample sizes say how many
    independent draws the correlated ones are worth.

    A cell whose draws are all equal (in every chain, at the same value) has no defined R-hat;
    ArviZ returns NaN there. It is reported with ``constant = True`` (and R-hat NaN) instead of
    failing: a constant cell is a finding (e.g. a cell pinned by the invariants), not a crash.
    Chains stuck at *different* values are not constant: their R-hat is huge or NaN, and
    :func:`summarize_convergence` reports them as not converged.

    Parameters
    ----------
    draws : array_like
        Draws of shape (chains, draws, n), e.g. :attr:`isdp.mcmc.SamplerResult.draws`; R-hat needs at
        least two chains.
    cell_names : sequence of str, optional
        One name per cell; default ``"0"``, ``"1"``, ….

    Returns
    -------
    pandas.DataFrame
        One row per cell: ``cell``, ``r_hat``, ``ess_bulk``, ``ess_tail`` and ``constant``.

    Raises
    ------
    ValueError
        If ``draws`` is not 3-D or ``cell_names`` does not have one name per cell.

    See Also
    --------
    summarize_convergence : The worst cell's figures.

    Notes
    -----
    R-hat and ESS follow Vehtari et al. (2021), as ArviZ computes them (``method="rank"``,
    ``"bulk"``, ``"tail"``); the gate R-hat < 1.01 is that of ISDP App. E.4. ArviZ is imported on
    the first call (about 3 s).

    Examples
    --------
    >>> from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint
    >>> from isdp.convergence import convergence_table
    >>> from isdp.mcmc import sample
    >>> lattice = IntegerLattice.from_constraints(sum_constraint(3))
    >>> result = sample(lattice, generalized_laplace(1.0), n_chains=4, n_draws=200, proposal_eps=1.0,
    ...                 seed=0, progress=False)
    >>> table = convergence_table(result.draws, cell_names=["a", "b", "c"])
    >>> print(table.round(2).to_string(index=False))
    cell  r_hat  ess_bulk  ess_tail  constant
       a   1.02    178.04    160.32     False
       b   1.04     71.60     79.12     False
       c   1.03    121.55    118.05     False
    """
    draws = np.asarray(draws)
    names = _cell_names(draws, cell_names)
    rhat = arviz_compat.rhat(draws, method="rank")
    ess_bulk = arviz_compat.ess(draws, method="bulk")
    ess_tail = arviz_compat.ess(draws, method="tail")
    constant = draws.reshape(-1, draws.shape[-1]).std(axis=0) == 0
    return pd.DataFrame(
        {"cell": names, "r_hat": rhat, "ess_bulk": ess_bulk, "ess_tail": ess_tail, "constant": constant}
    )


def summarize_convergence(table: pd.DataFrame) -> dict:
    """Worst-case figures of a :func:`convergence_table`: max R-hat, min bulk/tail ESS, constants.

    Constant cells are left out of the R-hat and ESS figures and counted instead; a non-constant
    cell with an undefined R-hat (chains stuck at different values) counts as R-hat = ∞.

    Parameters
    ----------
    table : pandas.DataFrame
        A :func:`convergence_table`.

    Returns
    -------
    dict
        ``max_r_hat``, ``min_ess_bulk``, ``min_ess_tail`` (floats over the non-constant cells;
        NaN when every cell is constant) and ``n_constant`` (int).

    Examples
    --------
    Two chains stuck at different values of cell 0, and a cell 1 that never moves:

    >>> import numpy as np
    >>> from isdp.convergence import convergence_table, summarize_convergence
    >>> draws = np.zeros((2, 50, 2), dtype=np.int64)
    >>> draws[1, :, 0] = 1
    >>> summary = summarize_convergence(convergence_table(draws))
    >>> summary["max_r_hat"], summary["n_constant"]
    (inf, 1)
    """
    live = table[~table["constant"]]
    # A live cell with an undefined R-hat (e.g. chains stuck at different values) is not converged.
    r_hat = live["r_hat"].fillna(np.inf)
    return {
        "max_r_hat": float(r_hat.max()) if len(live) else float("nan"),
        "min_ess_bulk": float(live["ess_bulk"].min()) if len(live) else float("nan"),
        "min_ess_tail": float(live["ess_tail"].min()) if len(live) else float("nan"),
        "n_constant": int(table["constant"].sum()),
    }
