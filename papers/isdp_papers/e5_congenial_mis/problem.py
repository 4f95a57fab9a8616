"""E5's invariants: the sex × age table's three counting constraints (FODS-20 §3)."""

from __future__ import annotations

import numpy as np

from isdp.errors import InvariantError


def sex_by_age_constraints(rows, cols, voting_age_from: str):
    """FODS-20 §3 invariants (1)–(3) of a row-vectorised sex × age table, female row first.

    (1) total population, (2) the first row's total (female), (3) the voting-age total: every
    column from ``voting_age_from`` on, both rows. Returns (A, constraint labels).
    """
    rows, cols = list(rows), list(cols)
    if len(rows) != 2:
        raise InvariantError(f"a sex x age table has 2 rows, got {rows}")
    if voting_age_from not in cols:
        raise InvariantError(f"voting_age_from {voting_age_from!r} is not an age column ({cols})")
    k = len(cols)
    first = cols.index(voting_age_from)
    A = np.zeros((3, 2 * k), dtype=np.int64)
    A[0] = 1
    A[1, :k] = 1
    A[2, first:k] = 1
    A[2, k + first :] = 1
    return A, ("total population", f"{rows[0]} total", f"voting age ({voting_age_from} and older)")
