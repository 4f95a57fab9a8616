"""E3 — ISDP §6, Fig 2 and 8: county populations with every state total kept, and the DAS audit.

The audit that selects the states (:mod:`.audit`), the per-state certified chains, their typed
settings and run record, and their checks (:mod:`.census`), the states' split over jobs
(:mod:`.scheduling`), the workflow steps (:mod:`.steps`), the claims measures (:mod:`.measures`) and
figures (:mod:`.figures`). The county data come from :mod:`isdp_papers.nhgis`.
"""
