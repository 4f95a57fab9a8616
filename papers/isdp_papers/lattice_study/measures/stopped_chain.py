"""The chain stopped after finitely many iterations, exactly on a total of 3 cells.

ISDP §4: a sampler that has not converged "incurs additional cost to privacy". The measures are the TV distance absorbed
as an additive δ, the δ each iteration budget needs, and the stopped chain's privacy loss against the target law's.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from isdp_papers.claims import Measurement, Run


def _stopped_chain(eps: float, proposal_eps: float, radius: int, iterations: list[int]):
    """ISDP §4's stopped chain, exactly.

    A total of 3 cells, x = (1, 0, 2) and one person moving (v = (−1, 1, 0)); the chain started at u = 0 and propagated
    by its transition matrix (:func:`isdp.privacy.chain_noise_path`). Returns x, v, the target's budget ε‖v‖₁, the
    target law π on the box and the chain's law at each iteration.
    """
    return _stopped_chain_cached(float(eps), float(proposal_eps), int(radius), tuple(int(t) for t in iterations))


# The three rows of this module read one chain (the registry gives them the same arguments): a summary job
# computes it once, not three times (about 2 s each).
@functools.lru_cache(maxsize=2)
def _stopped_chain_cached(eps: float, proposal_eps: float, radius: int, iterations: tuple[int, ...]):
    from isdp.exact import enumerate_target
    from isdp.lattice import IntegerLattice, generalized_laplace, with_mixing_basis
    from isdp.privacy import TruncatedLaw, chain_noise_path

    A, x, v = np.ones((1, 3), dtype=np.int64), np.array([1, 0, 2]), np.array([-1, 1, 0])
    lattice = with_mixing_basis(IntegerLattice.from_constraints(A))
    target = generalized_laplace(eps)
    points, probs, _ = enumerate_target(lattice, target, radius)
    pi = TruncatedLaw(np.asarray(points, dtype=np.int64), probs, 0.0)
    laws = chain_noise_path(lattice, target, proposal_eps, iterations, radius)
    return x, v, eps * np.abs(v).sum(), pi, list(zip(iterations, laws, strict=True))


def tv_absorption(
    run: Run, paper, *, eps: float, proposal_eps: float, radius: int, iterations: list[int]
) -> Measurement:
    """ISDP §4, measured exactly.

    The chain's noise after t iterations, at TV distance η_t from the generalized Laplace law, releases x + u with
    hockey-stick divergence δ_t(ε‖x − x'‖₁) at most η_t (1 + e^{ε‖x − x'‖₁}) — the TV bound absorbed as an additive δ,
    on :func:`_stopped_chain`. The value is the largest δ_t over its bound; the text gives each t's largest privacy loss
    and the (ε, δ) per person that E3's certificate implies.
    """
    x, v, budget, pi, laws = _stopped_chain(eps, proposal_eps, radius, iterations)
    ratios, parts = [], []
    for t, law in laws:
        eta = law.total_variation(pi)
        delta = law.shifted(x).hockey_stick_bound(law.shifted(x + v), budget)
        ratios.append(delta / (eta * (1 + np.exp(budget))))
        loss = law.shifted(x).max_privacy_loss(law.shifted(x + v))
        parts.append(f"t = {t}: η {eta:.2e}, δ {delta:.2e}, largest loss {loss:.3f}")
    e3 = run.config["e3"]
    eta3, eps3 = float(e3["mcmc"]["certificate"]["threshold"]), 2 * float(e3["eps"])  # a person moving county: 2 counts
    return Measurement(
        max(ratios),
        f"largest δ_t / (η_t (1 + e^ε‖v‖)) = {max(ratios):.3f} at ε = {eps:g}, ε‖v‖₁ = "
        f"{budget:g} ({'; '.join(parts)}). E3's certificate (95 % upper bound η ≤ {eta3:g} "
        f"at the burn-in) implies per person ε = {eps3:g}, δ = η (1 + e^ε) ≤ "
        f"{eta3 * (1 + np.exp(eps3)):.4f}, at 95 % confidence (a statistical statement)",
        n=len(ratios),
    )


def iterations_delta_tradeoff(
    run: Run, paper, *, eps: float, proposal_eps: float, radius: int, iterations: list[int]
) -> Measurement:
    """ISDP §4's trade-off between iterations and the extra δ, exactly on :func:`_stopped_chain`.

    The δ the chain stopped after t iterations needs at the target's ε‖x − x'‖₁ (its hockey-stick divergence between
    neighbours) for each t of ``iterations``. The value is the largest ratio δ_{t'}/δ_t of consecutive ones: below 1
    when every further iteration budget buys a smaller δ.
    """
    x, v, budget, _, laws = _stopped_chain(eps, proposal_eps, radius, iterations)
    deltas = [law.shifted(x).hockey_stick_bound(law.shifted(x + v), budget) for _, law in laws]
    ratios = [later / earlier for earlier, later in itertools.pairwise(deltas)]
    return Measurement(
        max(ratios),
        "δ needed at ε‖x − x'‖₁ = "
        + f"{budget:g} after t iterations: "
        + ", ".join(f"t = {t}: {d:.2e}" for (t, _), d in zip(laws, deltas, strict=True))
        + f"; consecutive ratios {', '.join(f'{r:.3f}' for r in ratios)}",
        n=len(ratios),
    )


def stopped_chain_loss(
    run: Run, paper, *, eps: float, proposal_eps: float, radius: int, iterations: list[int]
) -> Measurement:
    """Measure ISDP §4 exactly on :func:`_stopped_chain`: a stopped chain's privacy loss against the target's.

    The paper: "the MCMC sampler may fail to converge … in finite time, thus incur additional cost to privacy". Measured
    exactly on :func:`_stopped_chain`: the largest privacy loss ln P(x + u_t = y) / P(x' + u_t = y) of the chain stopped
    after t iterations, over the target's ε‖x − x'‖₁. The value is the smallest ratio over ``iterations``: above 1 when
    every stopped chain costs more than the target law it approximates.
    """
    x, v, budget, pi, laws = _stopped_chain(eps, proposal_eps, radius, iterations)
    ratios = {t: law.shifted(x).max_privacy_loss(law.shifted(x + v)) / budget for t, law in laws}
    exact = pi.shifted(x).max_privacy_loss(pi.shifted(x + v)) / budget
    return Measurement(
        min(ratios.values()),
        "largest loss / (ε‖x − x'‖₁) of the chain stopped at t = "
        + ", ".join(f"{t}: {r:.4f}" for t, r in ratios.items())
        + f" (ε = {eps:g}, proposal ε {proposal_eps:g}, started at u = 0); the target law itself: {exact:.4f}",
        n=len(ratios),
    )
