"""E7 — Congenial DP §4 Example 4.1, Table 2, App. A-B: the two-bin histogram with its total kept.

The mechanisms' laws and privacy levels (:mod:`.congenial`), the simulation and its tables
(:mod:`.study`), steps (:mod:`.steps`), measures (:mod:`.measures`) and figures (:mod:`.figures`)."""
