"""A privacy problem: confidential counts x, counting invariants A, and labels.

The workflow writes each experiment's problem as JSON once and every later step reads it,
so the constraints are defined in exactly one place.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from isdp.errors import InvariantError
from isdp.files import write_json
from isdp.lattice import IntegerLattice, table_margins
from isdp.tables import read_table_csv

__all__ = ["Problem", "contingency_table_problem", "index_set_from_complement", "read_table_csv", "with_margins"]


def _integer_matrix(A) -> np.ndarray:
    """Return ``A`` as a non-empty 2-D int64 matrix; a non-integer entry is refused, never cast (1.5 is not 1)."""
    arr = np.asarray(A)
    numeric = arr.dtype != bool and np.issubdtype(arr.dtype, np.number)
    if arr.ndim != 2 or arr.size == 0 or not numeric or not np.all(np.isfinite(arr)) or np.any(np.rint(arr) != arr):
        raise InvariantError(f"A must be a non-empty 2-D matrix of integers, got {arr.dtype} of shape {arr.shape}")
    return arr.astype(np.int64)


@dataclass(frozen=True)
class Problem:
    """Confidential histogram ``x`` (n cells) with invariants ``A x`` (m counting constraints)."""

    name: str
    A: np.ndarray
    x: np.ndarray
    cell_labels: tuple[str, ...]
    constraint_labels: tuple[str, ...]
    meta: dict = field(default_factory=dict)

    def __post_init__(self):
        A = _integer_matrix(self.A)
        x = np.asarray(self.x)
        if x.ndim != 1 or x.shape[0] != A.shape[1]:
            raise InvariantError(f"{self.name}: x has shape {x.shape}, A has {A.shape[1]} columns")
        if np.any(np.rint(x) != x):
            raise InvariantError(f"{self.name}: the confidential counts x must be integers")
        if len(self.cell_labels) != A.shape[1] or len(self.constraint_labels) != A.shape[0]:
            raise InvariantError(f"{self.name}: label counts do not match A's shape {A.shape}")
        object.__setattr__(self, "A", A)
        object.__setattr__(self, "x", x.astype(np.int64))

    @property
    def invariants(self) -> np.ndarray:
        """The mandated statistics A x."""
        return self.A @ self.x

    def lattice(self, reduce: bool | str = "auto") -> IntegerLattice:
        """Λ(A), the noise space that keeps the invariants."""
        return IntegerLattice.from_constraints(self.A, reduce=reduce)

    def to_json(self, path) -> None:
        """Write the problem as JSON (atomically)."""
        payload = {
            "name": self.name,
            "A": self.A.tolist(),
            "x": self.x.tolist(),
            "cell_labels": list(self.cell_labels),
            "constraint_labels": list(self.constraint_labels),
            "meta": self.meta,
        }
        write_json(payload, path, indent=1)

    @classmethod
    def from_json(cls, path) -> Problem:
        """Read a problem written by :meth:`to_json`."""
        d = json.loads(Path(path).read_text())
        return cls(
            d["name"],
            np.array(d["A"]),
            np.array(d["x"]),
            tuple(d["cell_labels"]),
            tuple(d["constraint_labels"]),
            d.get("meta", {}),
        )


def contingency_table_problem(name: str, table, row_labels, col_labels) -> Problem:
    """Return a two-way table with all row and column totals invariant (cells row-major)."""
    table = np.asarray(table)
    if table.ndim != 2 or table.shape != (len(row_labels), len(col_labels)):
        raise InvariantError(f"{name}: table shape {table.shape} does not match its labels")
    A = table_margins(*table.shape)
    cells = tuple(f"{r}|{c}" for r in row_labels for c in col_labels)
    constraints = tuple(f"row {r}" for r in row_labels) + tuple(f"col {c}" for c in col_labels)
    return Problem(name, A, table.ravel(), cells, constraints, {"rows": list(row_labels), "cols": list(col_labels)})


def index_set_from_complement(complement, n: int, key: str = "index_complement") -> tuple[list[int], list[int]]:
    """0-based (I, Iᶜ) from the paper's 1-based Iᶜ; a ValueError names ``key`` for any bad index."""
    bad = [i for i in complement if int(i) != i or not 1 <= i <= n]
    if bad:
        raise ValueError(f"{key}: {bad} outside the cells 1..{n} (1-based, as in the paper)")
    if len(set(complement)) != len(complement):
        raise ValueError(f"{key}: repeated index in {list(complement)}")
    comp = [int(i) - 1 for i in complement]
    return [i for i in range(n) if i not in comp], comp


def with_margins(values, row_labels, col_labels, row_name: str = "county"):
    """Return a table as a DataFrame with a Total column and a Total row, all computed from the cells."""
    import pandas as pd

    values = np.asarray(values).reshape(len(row_labels), len(col_labels))
    df = pd.DataFrame(values, index=pd.Index(row_labels, name=row_name), columns=col_labels)
    df["Total"] = df.sum(axis=1)
    df.loc["Total"] = df.sum(axis=0)
    return df
