"""E1's problem: three counting constraints over 14 records, every intersection non-empty (ISDP §6, Fig 3)."""

from __future__ import annotations

import numpy as np

from isdp.lattice import venn_constraints
from isdp_papers.problems import Problem


def intersecting_constraints_problem(x, records_per_region: int = 2) -> Problem:
    """E1: three counting constraints over 14 records with every intersection non-empty."""
    A = venn_constraints(3, records_per_region)
    regions = ["1", "2", "3", "12", "13", "23", "123"]
    labels = tuple(f"r{i + 1}" for i in range(A.shape[1]))
    region_of = [regions[i // records_per_region] for i in range(A.shape[1])]
    return Problem("e1", A, np.asarray(x), labels, ("A1", "A2", "A3"), {"region": region_of})
