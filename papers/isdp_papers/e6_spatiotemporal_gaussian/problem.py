"""E6's invariants: per building, the margins of a groups × hours table (Subspace DP §5.2)."""

from __future__ import annotations

import numpy as np

from isdp.errors import InvariantError


def group_hour_building_constraints(groups: int, hours: int, buildings: int):
    """Subspace DP §5.2 invariants of a groups × hours × buildings array of counts (cells C-order).

    Two families: for every (hour, building) the total over groups, then for every
    (group, building) the total over hours — per building, the row and column margins of a
    groups × hours table. That is B·(H + G) rows of rank B·(H + G − 1): each building's two
    families share its grand total. Returns (A as int64, constraint labels).
    """
    sizes = {"groups": groups, "hours": hours, "buildings": buildings}
    for name, k in sizes.items():
        if isinstance(k, bool) or int(k) != k or k < 1:
            raise InvariantError(f"{name} must be a positive integer, got {k!r}")
    G, H, B = (int(k) for k in sizes.values())
    eye_hb = np.eye(H * B, dtype=np.int64)
    over_groups = np.kron(np.ones((1, G), dtype=np.int64), eye_hb)
    over_hours = np.kron(np.eye(G, dtype=np.int64), np.kron(np.ones((1, H), dtype=np.int64), np.eye(B, dtype=np.int64)))
    labels = tuple(f"hour {h}, building {b}: all groups" for h in range(H) for b in range(B))
    labels += tuple(f"group {g}, building {b}: all hours" for g in range(G) for b in range(B))
    return np.vstack([over_groups, over_hours]), labels
