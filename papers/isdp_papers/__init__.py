"""The experiment layer: what reproduces the papers, apart from the reusable method in :mod:`isdp`.

One package per experiment, named for what it reproduces; each holds its problem set-up, its
steps (``steps``: the functions the workflow's rules call), its claims' measures (``measures``)
and its figures (``figures``):

* ``lattice_study`` — the steps E1 and E2 share (pilot, proposals, coupled pairs, draws, TV bounds);
* ``e1_intersecting`` — ISDP §6, three intersecting counting constraints;
* ``e2_delinquent_children`` — ISDP §6, a 4×4 table with all margins fixed;
* ``e3_census_counties`` — ISDP §6, county populations with each state total kept, and the DAS audit;
* ``e4_projection_comparison`` — ISDP §6 Fig 10, the generalized Laplace against projections;
* ``e5_congenial_mis`` — Congenial DP §5, the sex × age table and its MIS chains;
* ``e6_spatiotemporal_gaussian`` — Subspace DP §5.2, the projected Gaussian;
* ``e7_congenial_histogram`` — Congenial DP §4, the two-bin histogram (Table 2);
* ``e8_privacy_accounting`` — the swapping slides' and TopDown talk's accounting.

What several experiments share sits beside them: ``jobs`` (the workflow API:
:class:`~isdp_papers.jobs.Job`, a step's seed and logging, the step runner), ``inputs`` (damaged
inputs refused before a step runs), ``resources`` (a job's wall time, CPU time and memory), ``config``
(the config checks and merging the Snakefile and the tests share), ``claims`` (the claims registry
and its evaluator) with ``criteria`` (when a run's value agrees with the paper's), ``evidence`` (what
a measure reads and returns) and ``measure_helpers`` (what several measures share), ``problems`` (the
problem record and table reading), ``nhgis`` (the Census county data and a state's counties, for E3
and E4), ``unbiasedness`` (the unbiasedness table of
retained draws, for E1, E2 and E3), ``notebook`` (the review notebooks' runner), ``plot_style``
(figure saving and colours) and ``reporting`` (the run's summary, registry and software tables).
Install with ``pip install isdp[workflow]``.
"""
