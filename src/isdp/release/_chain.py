"""The release chain's certificate: its proposal scale, tuned, and the 95 % bound of its coupled pairs.

The chain route of :mod:`isdp.release` (the ℓ2 and Gaussian-without-exact-sampler releases) runs the component-wise
sampler from u = 0 for as many iterations as its certificate needs (docs/release.md; docs/method.md §4).
"""

from __future__ import annotations

from collections.abc import Callable

from ..convergence import Certificate, certify_searching_lag
from ..errors import CertificationError, UncertifiableError
from ..lattice import IntegerLattice, Target
from ..mcmc import tune_proposal

#: proposal scales the release chain is tuned over (:func:`certify_chain`)
_CHAIN_PROPOSAL_GRID = (0.05, 0.1, 0.2, 0.4, 0.8, 1.6)


def certify_chain(
    lattice: IntegerLattice,
    target: Target,
    *,
    threshold: float,
    n_pairs: int,
    max_iter: int,
    seed: int,
    on_step: Callable[[], object] | None = None,
) -> tuple[float, Certificate]:
    """Return the release chain's (:mod:`isdp.release`) proposal scale and its certified :class:`Certificate`.

    The proposal is tuned on a fixed grid of proposal ε; the pairs start at u = 0, as the release
    chain does (:func:`isdp.convergence.certify_searching_lag`: one term, the lag fixed by a pilot before the pairs
    run, within ``max_iter``). The chain runs ``certificate.burn_in(1)`` iterations, where the bound
    is at most ``threshold``.

    Parameters
    ----------
    lattice : isdp.lattice.IntegerLattice
        The noise lattice the chain moves on.
    target : isdp.lattice.Target
        The chain's target law.
    threshold : float
        The total variation the chain's draws must be within (the 95 % upper bound's level).
    n_pairs : int
        Coupled pairs to run; at least :meth:`~isdp.convergence.Certificate.pairs_needed` of ``threshold``.
    max_iter : int
        The iterations a pair may take to meet.
    seed : int
        Seeds the tuning (``seed``) and the pairs (``seed + 1``).
    on_step : callable, optional
        Called after the tuning and after the pairs (progress that says nothing about the counts).

    Returns
    -------
    tuple of (float, Certificate)
        The tuned proposal ε and the certificate, certified.

    Raises
    ------
    isdp.errors.UncertifiableError
        When ``n_pairs`` cannot resolve ``threshold`` at all, when a pilot pair has not met within
        ``max_iter`` iterations, or when the bound never reaches ``threshold``.

    Examples
    --------
    >>> from isdp.release._chain import certify_chain
    >>> from isdp.lattice import IntegerLattice, generalized_laplace, sum_constraint
    >>> lattice = IntegerLattice.from_constraints(sum_constraint(3))
    >>> proposal_eps, cert = certify_chain(
    ...     lattice, generalized_laplace(1.0), threshold=0.25, n_pairs=100, max_iter=1000, seed=1
    ... )
    >>> proposal_eps, cert.certified, cert.burn_in(1)
    (0.4, True, 9)
    """
    step = on_step or (lambda: None)
    if n_pairs < Certificate.pairs_needed(threshold):
        raise UncertifiableError(
            f"a TV bound of {threshold:.3g} is below what {n_pairs} coupled pairs can resolve at "
            f"95 % ({Certificate.pairs_needed(threshold)} are needed): raise --pairs"
        )
    _, proposal_eps = tune_proposal(lattice, target, _CHAIN_PROPOSAL_GRID, n_chains=2, n_iter=1000, seed=seed)
    step()
    try:
        cert = certify_searching_lag(
            lattice,
            target,
            proposal_eps=proposal_eps,
            start=None,
            n_pairs=n_pairs,
            seed=seed + 1,
            threshold=threshold,
            max_iter=max_iter,
        )
    except CertificationError as err:
        raise UncertifiableError(
            f"cannot certify the chain within --max-iter {max_iter}: {err}; raise "
            "--max-iter, use the l1 norm (exact sampler) or fewer cells"
        ) from None
    step()
    if not cert.certified:
        raise UncertifiableError(
            f"cannot certify the chain within --max-iter {max_iter}: {cert.status}; raise "
            "--max-iter, use the l1 norm (exact sampler) or fewer cells"
        )
    return float(proposal_eps), cert
