"""E5 — Congenial DP §5 (FODS-20): the sex x age table with three invariants and non-negativity by MIS.

The invariants (:mod:`.problem`), steps (:mod:`.steps`) and measures (:mod:`.measures`)."""
