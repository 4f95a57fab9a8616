"""E4 — ISDP §6 Fig 10: the generalized Laplace against projection mechanisms, per state.

Releases and their metrics (:mod:`.comparison`), steps (:mod:`.steps`), measures (:mod:`.measures`)
and figures (:mod:`.figures`). E4 reuses E3's draws, and its states' counties in the same order
(:func:`isdp_papers.nhgis.counties.state_counties`).
"""
