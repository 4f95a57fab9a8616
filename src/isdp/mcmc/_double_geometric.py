"""The double geometric (discrete Laplace) law and the maximal coupling of two shifted copies.

DG(ε), ``ε > 0``: ``P(k) = (1-a)/(1+a) · a^|k|`` on the integers with ``a = exp(-ε)``. It is the
ℓ1 generalized Laplace on ``Z`` and the proposal law of the samplers (:class:`DoubleGeometric`). Like
SciPy's ``dlaplace`` (which the pmf and cdf delegate to), it takes ε: the one parametrisation of the
double geometric in isdp (``a`` appears only inside formulas).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from .._rng import dg_draw, dg_table, seed_states, uniform_pos
from .._runner import check_dg_eps


def _check_eps(eps: float) -> float:
    eps = float(eps)
    if not 0.0 < eps < np.inf:
        raise ValueError(f"double geometric epsilon must be positive and finite, got {eps}")
    return eps


def _check_draw_eps(eps: float) -> float:
    """ε of a draw: in [1e-9, 700], where e^{−ε} is neither 1 nor 0 in floating point."""
    return check_dg_eps("epsilon", eps)


#: the largest centre a coupled pair takes: its draws (DG(1e-9) reaches about 4·10¹⁰) stay within int64
CENTRE_LIMIT = 2**53


def _law(eps: float):
    """SciPy's discrete Laplace with parameter ε: the same law."""
    from scipy import stats  # here, not at the top: SciPy's statistics cost a job 0.5 s to import

    return stats.dlaplace(_check_eps(eps))


@dataclass(frozen=True)
class DoubleGeometric:
    """The double geometric (discrete Laplace) law DG(ε): P(K = k) = (1 − a)/(1 + a) · a^|k|, a = e^{−ε}.

    The ℓ1 generalized Laplace on the integers, the noise of a cell without invariants and the proposal law of the
    samplers; the same law as ``scipy.stats.dlaplace(epsilon)``, to which the pmf, log-pmf and cdf delegate. Like a
    frozen SciPy distribution it holds its parameter; each method checks it.

    Parameters
    ----------
    epsilon : float
        The parameter ε > 0 (finite); a = e^{−ε}. Draws need ε in [1e-9, 700], where e^{−ε} is neither 1 nor 0 in
        floating point.

    See Also
    --------
    isdp.exact.double_geometric_array : Exact draws, in integer arithmetic, for releases.

    Examples
    --------
    >>> import numpy as np
    >>> from isdp.mcmc import DoubleGeometric
    >>> law = DoubleGeometric(1.0)
    >>> [round(p, 4) for p in law.pmf([-1, 0, 1]).tolist()]
    [0.17, 0.4621, 0.17]
    >>> round(law.variance(), 6)
    1.841347
    >>> law.rvs((2, 3), np.random.default_rng(0)).tolist()
    [[1, -1, 0], [-2, 0, 2]]
    """

    epsilon: float

    def logpmf(self, k) -> np.ndarray:
        """Return the log-probability log P(K = k).

        Parameters
        ----------
        k : int or array_like of int
            The values.

        Returns
        -------
        numpy.ndarray
            Floats, the shape of ``k``: log((1 − a)/(1 + a)) − ε|k| (a 0-d value for a scalar ``k``).

        Raises
        ------
        ValueError
            If ``epsilon`` is not positive and finite.

        Examples
        --------
        >>> from isdp.mcmc import DoubleGeometric
        >>> [round(v, 4) for v in DoubleGeometric(1.0).logpmf([0, 2]).tolist()]  # each step in |k| costs ε
        [-0.7719, -2.7719]
        """
        return _law(self.epsilon).logpmf(k)

    def pmf(self, k) -> np.ndarray:
        """Return the probability P(K = k) = (1 − a)/(1 + a) · a^|k|.

        Parameters
        ----------
        k : int or array_like of int
            The values.

        Returns
        -------
        numpy.ndarray
            Floats, the shape of ``k`` (a 0-d value for a scalar ``k``).

        Raises
        ------
        ValueError
            If ``epsilon`` is not positive and finite.

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.mcmc import DoubleGeometric
        >>> [round(p, 4) for p in DoubleGeometric(1.0).pmf([-1, 0, 1]).tolist()]
        [0.17, 0.4621, 0.17]
        >>> a = np.exp(-1.0)
        >>> print(round((1 - a) / (1 + a), 4))
        0.4621
        """
        return _law(self.epsilon).pmf(k)

    def cdf(self, k) -> np.ndarray:
        """Return the distribution function P(K ≤ k).

        Parameters
        ----------
        k : int or array_like of int
            The values.

        Returns
        -------
        numpy.ndarray
            Floats, the shape of ``k`` (a 0-d value for a scalar ``k``).

        Raises
        ------
        ValueError
            If ``epsilon`` is not positive and finite.

        Examples
        --------
        >>> from isdp.mcmc import DoubleGeometric
        >>> [round(p, 4) for p in DoubleGeometric(1.0).cdf([-1, 0]).tolist()]  # P(K ≤ -1) = P(K ≥ 1) by symmetry
        [0.2689, 0.7311]
        """
        return _law(self.epsilon).cdf(k)

    def variance(self) -> float:
        """Return the variance Var K = 2a / (1 − a)², a = e^{−ε}.

        Returns
        -------
        float
            2a / (1 − a)², the noise variance of one cell of the double geometric mechanism.

        Raises
        ------
        ValueError
            If ``epsilon`` is not a positive finite number.

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.mcmc import DoubleGeometric
        >>> round(DoubleGeometric(1.0).variance(), 6)
        1.841347
        >>> a = np.exp(-1.0)
        >>> round(float(2 * a / (1 - a) ** 2), 6)
        1.841347
        """
        epsilon = _check_eps(self.epsilon)  # the closed form: SciPy's moments overflow, with warnings, from ε ≈ 350
        return 2 * math.exp(-epsilon) / math.expm1(-epsilon) ** 2

    def rvs(self, size, rng: np.random.Generator) -> np.ndarray:
        """Draw from a NumPy generator, as the difference of two i.i.d. Geometric(1 − e^{−ε}).

        Exact up to NumPy's floating-point geometric sampler. For releases, isdp draws with integer
        arithmetic only (:mod:`isdp.exact`); the compiled samplers use their own streams.

        Parameters
        ----------
        size : int or tuple of int
            The shape of the output.
        rng : numpy.random.Generator
            The source of randomness, e.g. ``np.random.default_rng(seed)``.

        Returns
        -------
        numpy.ndarray
            An int64 array of shape ``size``.

        Raises
        ------
        ValueError
            If ``epsilon`` is outside [1e-9, 700], where e^{−ε} rounds to 1 or to 0.

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.mcmc import DoubleGeometric
        >>> DoubleGeometric(1.0).rvs((2, 3), np.random.default_rng(0)).tolist()
        [[1, -1, 0], [-2, 0, 2]]
        >>> draws = DoubleGeometric(1.0).rvs(100_000, np.random.default_rng(0))
        >>> print(round(float(np.mean(draws == 0)), 3))  # P(K = 0) = 0.462
        0.465
        """
        a = np.exp(-_check_draw_eps(self.epsilon))
        return (rng.geometric(1 - a, size) - rng.geometric(1 - a, size)).astype(np.int64)

    def maximal_coupling_rvs(self, mean_x: int, mean_y: int, size: int, seed: int) -> np.ndarray:
        """Pairs (X, Y) from the maximal coupling of ``mean_x + DG(ε)`` and ``mean_y + DG(ε)``.

        Each X has law mean_x + DG(ε), each Y law mean_y + DG(ε), and X = Y with the largest
        probability any coupling allows, 1 − TV. The coupled samplers draw the two chains'
        pre-jumps this way; this method runs the same compiled draw, for testing and study.

        Parameters
        ----------
        mean_x : int
            The centre of X.
        mean_y : int
            The centre of Y.
        size : int
            The number of pairs.
        seed : int
            A non-negative integer seeding the compiled xoshiro256** stream.

        Returns
        -------
        numpy.ndarray
            An int64 array of shape (size, 2): X in column 0, Y in column 1.

        Raises
        ------
        ValueError
            If ``epsilon`` is outside [1e-9, 700], a centre is not an integer within ±2**53, or ``seed``
            is not a non-negative integer.

        Notes
        -----
        The rejection construction of Thorisson (as used by Jacob et al.): draw X from p; keep Y = X
        with probability min(1, q(X)/p(X)); otherwise draw Y from q until it lands where q > p. For
        shifted DGs, ``log q(z) − log p(z) = (|z − mean_y| − |z − mean_x|) log a``. For a shift of
        one, P(X = Y) = 2a/(1 + a).

        Examples
        --------
        >>> import numpy as np
        >>> from isdp.mcmc import DoubleGeometric
        >>> DoubleGeometric(1.0).maximal_coupling_rvs(0, 1, 5, seed=0).tolist()
        [[-2, 1], [1, 1], [-1, -1], [0, 2], [0, 3]]
        >>> pairs = DoubleGeometric(1.0).maximal_coupling_rvs(0, 1, 10_000, seed=0)
        >>> a = np.exp(-1.0)
        >>> print(round(float(np.mean(pairs[:, 0] == pairs[:, 1])), 3), round(2 * a / (1 + a), 3))
        0.534 0.538
        """
        for name, mean in (("mean_x", mean_x), ("mean_y", mean_y)):
            if isinstance(mean, bool) or not isinstance(mean, int | np.integer) or abs(int(mean)) > CENTRE_LIMIT:
                raise ValueError(
                    f"{name} must be an integer within ±2**53, not {mean!r} (a draw beyond int64 would wrap)"
                )
        table = dg_table(_check_draw_eps(self.epsilon))
        out = np.empty((int(size), 2), dtype=np.int64)
        _coupling_fill(seed_states(seed, 1)[0], int(mean_x), int(mean_y), table, out)
        return out


@njit  # not inlined, as _rng.dg_draw: cold compile time, no speed gained
def maximal_coupling_dg(s, mean_x, mean_y, dg):
    """Draw (X, Y), X ~ mean_x + DG(ε), Y ~ mean_y + DG(ε), with P(X = Y) = 1 - TV (compiled).

    The rejection construction of Thorisson / Jacob et al.: draw X from p; keep Y = X with
    probability min(1, q(X)/p(X)); otherwise draw Y from q until it lands where q > p. For
    shifted DGs, log q(z) - log p(z) = (|z - mean_y| - |z - mean_x|) log a. The coupled samplers
    draw their pre-jumps with it; a new coupled kernel can call it from its own compiled code.

    Parameters
    ----------
    s : numpy.ndarray
        uint64, shape (4,): a state from :func:`seed_states`, advanced in place.
    mean_x, mean_y : int
        The centres of X and of Y.
    dg : tuple
        The alias table of :func:`dg_table` for the law's ε.

    Returns
    -------
    tuple of (int, int)
        One pair (X, Y).

    See Also
    --------
    DoubleGeometric.maximal_coupling_rvs : Many pairs from Python, with their own streams.
    dg_tv_shift : TV(DG(ε), d + DG(ε)), so 1 − P(X = Y).

    Examples
    --------
    >>> from isdp._rng import dg_table, seed_states
    >>> from isdp.mcmc._double_geometric import maximal_coupling_dg
    >>> state, dg = seed_states(0, 1)[0], dg_table(1.0)
    >>> [tuple(int(v) for v in maximal_coupling_dg(state, 0, 1, dg)) for _ in range(6)]
    [(-2, 1), (1, 1), (-1, -1), (0, 2), (0, 3), (0, 2)]
    """
    log_a = dg[3]
    x = mean_x + dg_draw(s, dg)
    if np.log(uniform_pos(s)) <= (abs(x - mean_y) - abs(x - mean_x)) * log_a:
        return x, x
    while True:
        y = mean_y + dg_draw(s, dg)
        if np.log(uniform_pos(s)) > (abs(y - mean_x) - abs(y - mean_y)) * log_a:
            return x, y


@njit(cache=True)
def _coupling_fill(state, mean_x, mean_y, dg, out):
    for i in range(out.shape[0]):
        out[i, 0], out[i, 1] = maximal_coupling_dg(state, mean_x, mean_y, dg)
