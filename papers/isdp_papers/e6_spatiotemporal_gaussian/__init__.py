"""E6 — Subspace DP §5.2: the projected Gaussian on the spatio-temporal groups x hours x buildings query.

The invariants (:mod:`.problem`), the studies and their figure (:mod:`.spatiotemporal`), steps
(:mod:`.steps`) and measures (:mod:`.measures`).
"""
