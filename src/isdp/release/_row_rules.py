"""Which rule of a request made each row of the invariants: the :attr:`Plan.rules` a statement groups them by."""

from __future__ import annotations

import numpy as np
from scipy import sparse

from ..tables import Table, TableSet, constraint_matrix
from ._request import Request


def rules_of_rows(
    table: Table | TableSet, A: sparse.csr_array, labels: list[str], req: Request
) -> tuple[str | None, ...]:
    """Return, per row of ``A``, the rule of ``req`` that made it (:attr:`isdp.release.Plan.rules`).

    Each rule's own rows, built from the table's keys alone, matched by label and coefficients (the first rule that
    makes a row names it). Invariants that are one rule's rows exactly, the command's usual request, are named
    without a key per row.
    """
    ruled: dict[tuple[str, tuple[bytes, bytes]], str] = {}
    sources = [((rule,), (), rule) for rule in req.rules] + [((), (tie,), f"tie {tie}") for tie in req.ties]
    for families, ties, name in sources:
        R, rule_labels = constraint_matrix(table, families, ties=ties)
        if len(sources) == 1 and _same_rows(A, labels, R, rule_labels):
            return (name,) * len(labels)
        for i, lab in enumerate(rule_labels):
            ruled.setdefault((lab, _row_key(R, i)), name)
    return tuple(ruled.get((lab, _row_key(A, i))) for i, lab in enumerate(labels))


def _row_key(A: sparse.csr_array, i: int) -> tuple[bytes, bytes]:
    return A.indices[A.indptr[i] : A.indptr[i + 1]].tobytes(), A.data[A.indptr[i] : A.indptr[i + 1]].tobytes()


def _same_rows(A: sparse.csr_array, labels: list[str], R: sparse.csr_array, rule_labels: list[str]) -> bool:
    """Return whether ``A`` and ``R`` (canonical CSR) are the same rows under the same labels."""
    return (
        A.shape == R.shape
        and np.array_equal(A.indptr, R.indptr)
        and np.array_equal(A.indices, R.indices)
        and np.array_equal(A.data, R.data)
        and list(labels) == list(rule_labels)
    )
