"""E1 — ISDP §6, Fig 3-4: noise that keeps three intersecting counting constraints over 14 records.

The problem (:mod:`.problem`), its steps (:mod:`.steps`) and its Venn figure (:mod:`.figures`); the
chains, TV bounds and draws come from the shared :mod:`isdp_papers.lattice_study`.
"""
