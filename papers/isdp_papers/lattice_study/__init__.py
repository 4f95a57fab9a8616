"""Steps E1 and E2 share (ISDP §6).

Tuning the proposal, coupled pairs and their TV bounds, the retained draws, unbiasedness tables and noise box plots, run
per experiment over the wildcard ``{exp}``.

The analyses as functions returning tables (:mod:`.studies`), the steps (:mod:`.steps`), the claims
measures of E1 and E2 (:mod:`.measures`) and figures (:mod:`.figures`); the unbiasedness table is
the shared :mod:`isdp_papers.unbiasedness`.
"""
