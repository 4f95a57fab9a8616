"""E2's printed tables.

The confidential table (Table 2) and one noise draw per target (Tables 1 and 3), each with its margins, as DataFrames
and as the Markdown the workflow writes beside the CSV.
"""

from __future__ import annotations

import numpy as np

from isdp.lattice import check_release
from isdp_papers.problems import Problem, with_margins

CONFIDENTIAL_TITLE = "Table 2 (ISDP App. E.3): confidential table, margins computed from the cells"
NOISE_TITLES = {
    "l1": "Table 1 (ISDP §5): one ℓ1 generalized Laplace noise draw after convergence",
    "l2": "Table 3 (ISDP App. E.3): one ℓ2 generalized Laplace noise draw after convergence",
}


def confidential_markdown(table) -> str:
    """Table 2 (the confidential table with margins, from :func:`with_margins`) as titled Markdown."""
    return f"{CONFIDENTIAL_TITLE}\n\n{table.to_markdown()}\n"


def noise_table(draw, problem: Problem, norm: str):
    """One noise draw as a table with its margins, checked to keep every margin (all zero).

    Returns ``(table, markdown)``: the DataFrame and its titled Markdown with the draw's ℓ1 and ℓ2 norms.
    """
    check_release(draw, problem.A, np.zeros(problem.A.shape[0], dtype=np.int64), what=f"{norm} noise table")
    table = with_margins(draw, problem.meta["rows"], problem.meta["cols"])
    assert (table["Total"] == 0).all() and (table.loc["Total"] == 0).all()
    markdown = (
        f"{NOISE_TITLES[norm]}\n\n{table.to_markdown()}\n\n"
        f"‖u‖₁ = {int(np.abs(draw).sum())}, ‖u‖₂ = {np.sqrt((draw**2).sum()):.2f}\n"
    )
    return table, markdown
