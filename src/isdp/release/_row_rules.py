"""Which rule of a request made each row of the invariants: the :attr:`Plan.rules` a statement groups them by."""

from __future__ import annotations

from scipy import sparse

from ..tables import Table, TableSet, constraint_matrix
from ._request import Request


def rules_of_rows(
    table: Table | TableSet, A: sparse.csr_array, labels: list[str], req: Request
) -> tuple[str | None, ...]:
    """Return, per row of ``A``, the rule of ``req`` that made it (:attr:`isdp.release.Plan.rules`).

    Each rule's own rows, built from the table's keys alone, matched by label and coefficients (the first rule that
    makes a row names it).
    """
    ruled: dict[tuple[str, tuple[bytes, bytes]], str] = {}
    sources = [((rule,), (), rule) for rule in req.rules] + [((), (tie,), f"tie {tie}") for tie in req.ties]
    for families, ties, name in sources:
        R, rule_labels = constraint_matrix(table, families, ties=ties)
        for i, lab in enumerate(rule_labels):
            ruled.setdefault((lab, _row_key(R, i)), name)
    return tuple(ruled.get((lab, _row_key(A, i))) for i, lab in enumerate(labels))


def _row_key(A: sparse.csr_array, i: int) -> tuple[bytes, bytes]:
    return A.indices[A.indptr[i] : A.indptr[i + 1]].tobytes(), A.data[A.indptr[i] : A.indptr[i + 1]].tobytes()
