"""The experiment layer: what reproduces the papers, apart from the reusable method in :mod:`isdp`.

Problems and data loaders (``problems``, ``nhgis``, ``implied``), the studies each experiment runs
(``audit``, ``census``, ``comparison``, ``spatiotemporal``, ``congenial``, ``studies``), figures
(``plotting``), the claims registry and its measures (``claims``, ``measures``), and the glue the
Snakemake scripts use (``_workflow``). Install with ``pip install isdp[workflow]``.
"""
