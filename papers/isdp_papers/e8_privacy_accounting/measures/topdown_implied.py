"""Measures of the TopDown talk's implied constraints ('Implied Constraints', 'TopDown with Invariants', GQ 'Example').

With the helpers of :mod:`isdp_papers.e8_privacy_accounting.implied`.

Statements: the regions' printed margins (``region_margins``); two one-way marginals per region, an integer gap
(``two_marginals_integer_gap``); one implied constraint per combination of GQ types (``gq_combinations``); implied
constraints imply a fractional extension (``implied_fractional_extension``).
"""

from __future__ import annotations

import itertools
import string

import numpy as np

from isdp_papers import evidence_checks as ec
from isdp_papers.claims import Measurement, Run


def region_margins(run: Run, paper) -> Measurement:
    """Measure whether each printed two-way region table's row and column totals admit a nonnegative integer table.

    By the northwest-corner rule; the value counts the regions whose margins admit none.
    """

    def fill(rows, cols):
        rows, cols, table = list(rows), list(cols), np.zeros((len(rows), len(cols)), dtype=int)
        i = j = 0
        while i < len(rows) and j < len(cols):
            table[i, j] = m = min(rows[i], cols[j])
            rows[i] -= m
            cols[j] -= m
            i, j = (i + 1, j) if rows[i] == 0 else (i, j + 1)
        return table if not any(rows) and not any(cols) else None

    tables = {name: fill(m["rows"], m["columns"]) for name, m in paper.items()}
    bad = sum(t is None for t in tables.values())
    text = "; ".join(
        f"region {name}: rows {m['rows']} (total {sum(m['rows'])}), columns {m['columns']} (total "
        f"{sum(m['columns'])}): "
        + (f"e.g. {tables[name].tolist()}" if tables[name] is not None else "NO nonnegative table")
        for name, m in paper.items()
    )
    return Measurement(bad, text, note=_region_parents_text(paper) if not bad else "")


def _region_parents_text(paper) -> str:
    """Return how many parent tables extend the regions' two one-way marginals, fractionally and with integer counts.

    The parents are every parent (all regions together) two-way table with their totals: the talk's 'works for
    fractional histograms (often provable for integer histograms)' on its own example.
    """
    from isdp_papers.e8_privacy_accounting import implied

    region_a = np.array([m["rows"] for m in paper.values()])
    region_b = np.array([m["columns"] for m in paper.values()])
    rows, cols = region_a.sum(axis=0), region_b.sum(axis=0)
    parents = [
        p
        for p in (np.array([[t, rows[0] - t], [cols[0] - t, cols[1] - rows[0] + t]]) for t in range(int(rows[0]) + 1))
        if (p >= 0).all()
    ]
    results = [implied.margin_extension(region_a, region_b, p) for p in parents]
    fractional = [int(p[0, 0]) for p, (f, _) in zip(parents, results, strict=True) if f]
    integer = [int(p[0, 0]) for p, (_, n) in zip(parents, results, strict=True) if n]
    return (
        f"the regions together: of the {len(parents)} parent tables with rows {rows.tolist()} and columns "
        f"{cols.tolist()}, {len(fractional)} extend fractionally and {len(integer)} with integer counts "
        f"({'the same' if fractional == integer else 'NOT the same'} parents: top-left cell "
        f"{min(fractional, default='-')} to {max(fractional, default='-')})"
    )


@ec.reads_committed
def two_marginals_integer_gap(run: Run, paper, *, instance: str) -> Measurement:
    """Measure the talk's extension with regions that know two one-way marginals each.

    Region × A and region × B are fixed, and the parent's A × B table; the value checks, on the committed three-way
    instance ``instance`` (|B| = 3), whether a fractional extension exists and integer ones do not (a hole), and the
    same with two of B's values merged (|B| = 2, each of the three ways), where the problem is a network flow. The
    value: {size_3_gap, size_2_gap}.
    """
    from isdp_papers.e8_privacy_accounting import implied

    region_a, region_b, parent = implied.read_three_way_margins(ec.committed(run, instance))
    fractional, integer = implied.margin_extension(region_a, region_b, parent)
    merged = {
        pair: implied.margin_extension(region_a, *implied.merge_last_values(region_b, parent, pair))
        for pair in itertools.combinations(range(region_b.shape[1]), 2)
    }
    value = {"size_3_gap": fractional and not integer, "size_2_gap": any(f and not n for f, n in merged.values())}
    return Measurement(
        value,
        f"{region_a.shape[0]} regions × A ({region_a.shape[1]} values) × B "
        f"({region_b.shape[1]} values): fractional extension "
        f"{'exists' if fractional else 'NONE'}, integer {'exists' if integer else 'NONE'}; B's "
        "values merged pairwise (|B| = 2): "
        + "; ".join(
            f"{a + 1}+{b + 1}: fractional {'yes' if f else 'no'}, integer {'yes' if n else 'no'}"
            for (a, b), (f, n) in merged.items()
        ),
        note="fractional: HiGHS LP feasibility; integer: HiGHS MILP feasibility",
    )


def gq_combinations(run: Run, paper, *, types: int, small: list[int]) -> Measurement:
    """Return the implied GQ constraints counted.

    For ``small`` numbers of types, how many combinations' constraints are needed (not implied by the others, one HiGHS
    LP each) when every combination shares a block, and when no block holds two types. At ``types`` itself, where
    2^types LPs are out of reach, whether all 2^types − 1 are needed, by Edmonds' facet criterion
    (:func:`~isdp_papers.e8_privacy_accounting.implied.gq_every_combination_needed`), on blocks holding every single
    type and every pair, and on one type per block.
    """
    import string

    from isdp_papers.e8_privacy_accounting import implied

    every, apart = {}, {}
    for k in small:
        names = list(string.ascii_uppercase[:k])
        every[k] = len(implied.gq_nonredundant(implied.gq_blocks(names, "every-combination"), names))
        apart[k] = len(implied.gq_nonredundant(implied.gq_blocks(names, "one-type-per-block"), names))
    names = [f"type {i + 1}" for i in range(types)]
    all_needed = implied.gq_every_combination_needed(implied.gq_blocks(names, "singles-and-pairs"), names)
    all_needed_apart = implied.gq_every_combination_needed(implied.gq_blocks(names, "one-type-per-block"), names)
    value = {
        "one_per_combination": all(every[k] == 2**k - 1 for k in small) and all_needed,
        "smaller_on_other_data": all(apart[k] < 2**k - 1 for k in small if k > 1) and not all_needed_apart,
    }
    return Measurement(
        value,
        "needed constraints for k types (LP), every combination sharing a block: "
        + ", ".join(f"k = {k}: {every[k]} (2^k − 1 = {2**k - 1})" for k in small)
        + "; no block with two types: "
        + ", ".join(f"{apart[k]}" for k in small)
        + f". At {types} types (Edmonds' criterion): blocks holding every type alone and every "
        f"pair need {'all' if all_needed else 'NOT all'} 2^{types} − 1 = {2**types - 1:,} "
        f"≈ 2^{types}; one type per block needs " + ("all" if all_needed_apart else "fewer"),
    )


def implied_fractional_extension(
    run: Run, paper, *, blocks: list, types: list[str], vertex_types: list[int], max_combination: int | None = None
) -> Measurement:
    """Return the talk's 'implied constraints C0 … imply a fractional feasible extension exists', on the GQ example.

    Every vertex of the polytope the implied constraints (combinations of at most ``max_combination`` types, default
    all) cut out of block data extends to a fractional block-level table (HiGHS LP); convexity covers the rest. Data:
    ``blocks``, and every-combination data for each number of types in ``vertex_types``.
    """
    from isdp_papers.e8_privacy_accounting import implied

    blocks = [(int(pop), dict(occ)) for pop, occ in blocks]
    data = [("the blocks", blocks, types)] + [
        (
            f"every combination of {k} types",
            implied.gq_blocks(list(string.ascii_uppercase[:k]), "every-combination"),
            list(string.ascii_uppercase[:k]),
        )
        for k in vertex_types
    ]
    counts = {}
    for name, b, t in data:
        vertices = implied.gq_vertices(b, t, max_combination)
        counts[name] = (len(vertices), sum(not implied.gq_lp_extends(v, b, t) for v in vertices))
    value = all(n > 0 and bad == 0 for n, bad in counts.values())
    scope = "every combination" if max_combination is None else f"combinations of at most {max_combination} types"
    return Measurement(
        value,
        f"implied constraints over {scope}: "
        + "; ".join(f"{name}: {n} vertices, {bad} without a fractional extension" for name, (n, bad) in counts.items()),
    )
