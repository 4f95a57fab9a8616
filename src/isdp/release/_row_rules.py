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
    makes a row names it). Invariants that are the rules' rows one rule after the other under labels that never
    repeat, the command's usual request, are named without a key per row: no row can be made by two rules.
    """
    sources = [((rule,), (), rule) for rule in req.rules] + [((), (tie,), f"tie {tie}") for tie in req.ties]
    built = [(*constraint_matrix(table, families, ties=ties), name) for families, ties, name in sources]
    if _stacked(A, labels, built):
        return tuple(name for _, rule_labels, name in built for _ in rule_labels)
    ruled: dict[tuple[str, tuple[bytes, bytes]], str] = {}
    for R, rule_labels, name in built:
        for i, lab in enumerate(rule_labels):
            ruled.setdefault((lab, _row_key(R, i)), name)
    return tuple(ruled.get((lab, _row_key(A, i))) for i, lab in enumerate(labels))


def _row_key(A: sparse.csr_array, i: int) -> tuple[bytes, bytes]:
    return A.indices[A.indptr[i] : A.indptr[i + 1]].tobytes(), A.data[A.indptr[i] : A.indptr[i + 1]].tobytes()


def _stacked(A: sparse.csr_array, labels: list[str], built: list) -> bool:
    """Return whether ``A`` (canonical CSR) is the rules' rows one rule after the other, under distinct labels."""
    stacked = [lab for _, rule_labels, _ in built for lab in rule_labels]
    if list(labels) != stacked or len(set(stacked)) != len(stacked):
        return False
    if not built:
        return A.shape[0] == 0
    Rs = [R for R, _, _ in built]
    return (
        A.shape == (len(stacked), Rs[0].shape[1])
        and np.array_equal(np.diff(A.indptr), np.concatenate([np.diff(R.indptr) for R in Rs]))
        and np.array_equal(A.indices, np.concatenate([R.indices for R in Rs]))
        and np.array_equal(A.data, np.concatenate([R.data for R in Rs]))
    )
