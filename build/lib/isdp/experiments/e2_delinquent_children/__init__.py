"""E2 — ISDP §6 Table 2: the delinquent-children 4x4 table with all margins fixed.

Its problem and noise tables and the validation against the exact law on a small table
(:mod:`.steps`); the chains, TV bounds and draws come from :mod:`isdp.experiments.lattice_study`."""
