"""E2 — ISDP §6 Table 2: the delinquent-children 4x4 table with all margins fixed.

Its steps (:mod:`.steps`), the printed tables (:mod:`.tables`) and the validation against the exact
law on a small table (:mod:`.validation`); the chains, TV bounds and draws come from the shared
:mod:`isdp_papers.lattice_study`.
"""
