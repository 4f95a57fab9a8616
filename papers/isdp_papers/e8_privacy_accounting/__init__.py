"""E8 — the swapping slides and the TopDown talk.

Swap rates to ε, zCDP conversions, TopDown variances and the dormitory example's implied bounds.

The privacy accounting (:mod:`.accounting`: the swapping budget, the zCDP conversions), implied bounds
(:mod:`.implied`), the printed tables reproduced from the accounting with the per-level noise variances
(:mod:`.tables`), the exact privacy loss of swapping on small strata
(:mod:`.swap_audit`), exact Rényi divergences of discrete Gaussian noise and a toy TopDown (:mod:`.zcdp_audit`),
TopDown's rounding step and total unimodularity (:mod:`.rounding`), steps (:mod:`.steps`), measures
(:mod:`.measures`, one module per document and topic) and figures (:mod:`.figures`).
"""
