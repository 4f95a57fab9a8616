"""IPUMS NHGIS Privacy-Protected 2010 Census Demonstration Data, county level.

The input data of E3, E4 and E8 (and the county populations of the lattice study of E1/E2), one module per concept:

* :mod:`.counties` — the county file: reading a vintage's zip, the tidy table of county populations (SF1 and DAS),
  its identity checks and the DAS state-total checks, :func:`~.counties.load_counties`,
  :func:`~.counties.state_counties`, state FIPS codes, abbreviations and names, the vintages;
* :mod:`.download` — downloading a zip: retries, a deadline per attempt (socket and signal watchdogs), an atomic
  write checked against a SHA-256;
* :mod:`.fallback` — the data policy: :func:`~.fallback.fetch_or_fallback` (a zip in place, a download, or loudly
  the committed extract);
* :mod:`.housing` — the per-county housing-unit extract (E3, E8);
* :mod:`.group_quarters` — the per-county group-quarters extract (E3);
* :mod:`.histograms` — the 252-cell ethnicity × race × voting-age histograms: the per-state support, the per-county
  cell summary and Illinois's county histograms (E3, E4, E8);
* :mod:`.steps` — the workflow steps ``fetch_step`` and ``extract_step`` (``workflow/rules/data.smk``).

Every module logs under the one logger ``isdp_papers.nhgis``.
"""
