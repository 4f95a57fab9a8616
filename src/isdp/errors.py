"""Why a release is refused: one exception per kind of refusal, each with the exit status of
``isdp release`` (docs/release.md).

Their own module, below everything that raises them — reading tables (:mod:`isdp.tables`),
building invariants (:mod:`isdp.constraints`), the exact sampler (:mod:`isdp.exact_sampling`), the
chain's certificate (:mod:`isdp.certification`) and the release itself (:mod:`isdp.release`) —
so that none of those imports the release to refuse.
"""

from __future__ import annotations


class ReleaseError(Exception):
    """A request that cannot be released; ``exit_code`` is the command's exit status."""

    exit_code = 1


class UsageError(ReleaseError):
    """Bad parameters (ε ≤ 0, an unknown family, a missing σ, …)."""

    exit_code = 2


class InputError(ReleaseError):
    """Unreadable table or constraint file: wrong shape, labels, non-integer or negative counts."""

    exit_code = 3


class InfeasibleError(ReleaseError):
    """The invariants cannot be kept with noise (full rank) or disagree with the table."""

    exit_code = 4


class UncertifiableError(ReleaseError):
    """No route reaches the requested guarantee within the budget, or the route is refused for publication."""

    exit_code = 5

__all__ = [
    "InfeasibleError",
    "InputError",
    "ReleaseError",
    "UncertifiableError",
    "UsageError",
]
