"""Helpers shared by the E8 measure modules of both documents.

A run's values at the printed precision beside the printed ones (the Swapping slides' ε tables, the TopDown talk's
variance tables), and the registry's small swapping strata made hashable (the exact audits of permutation swapping).
"""

from __future__ import annotations

import math


def _cells_text(values, printed, digits: int) -> str:
    """Return this run's values at the printed precision, with the printed value beside any that differs."""
    out = []
    for v, p in zip(values, printed, strict=True):
        s = f"{v:.{digits}f}"
        out.append(s if math.isclose(float(s), p, abs_tol=10 ** -(digits + 3)) else f"{s} (printed {p:.{digits}f})")
    return ", ".join(out)


def _strata(strata: list) -> list[tuple[tuple, tuple]]:
    """Strata given as [h, k] lists (from the registry) with every record's h hashable."""
    return [(tuple(tuple(v) if isinstance(v, list) else v for v in h), tuple(k)) for h, k in strata]
