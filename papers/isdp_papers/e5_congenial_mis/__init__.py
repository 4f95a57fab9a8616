"""E5 — Congenial DP §5 (FODS-20): the sex x age table with three invariants and non-negativity by MIS.

The invariants (:mod:`.problem`), the MIS chains and their studies (:mod:`.mis_study`), steps
(:mod:`.steps`), measures (:mod:`.measures`) and figures (:mod:`.figures`).
"""
