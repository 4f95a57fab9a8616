"""Measures of the two lattice experiments and the exact checks of ISDP's statements on small lattices.

The experiments are E1 (intersecting constraints) and E2 (4×4 margins); one module per concept:

- :mod:`.run_tables`: readers of the run's outputs (convergence, unbiasedness, ESS, validation tables, draws files,
  coupling certificates, meeting times, config values);
- :mod:`.printed_draws`: the paper's printed noise tables as draws of the run's laws (§5 Table 1, App. E.3 Table 3);
- :mod:`.tail_rates`: the ℓ1 noise's sub-exponential tail (Thm 12 (7)), fitted to draws and exact;
- :mod:`.stopped_chain`: the chain stopped after finitely many iterations, its TV absorbed as δ (§4);
- :mod:`.privacy_theorems`: the generalized Laplace mechanism's privacy (Thm 10, §3.2–3.3, Example 3, §2 footnote 1,
  App. E.4);
- :mod:`.gaussian_mechanism`: the generalized Gaussian (Thm 15 / Prop 18; not pure DP, §4; smooth δ, §2);
- :mod:`.composition`: composition and post-processing (Props 6–7, §2 after Prop 7);
- :mod:`.lattice_structure`: the lattice of the invariants (Prop 8, Lemma 11 / App. B, §3.1, §1–2, §5);
- :mod:`.sampler_kernel`: the small lattices of the exact rows and the single chain's kernel (Eq. 11, Alg. 1,
  App. D.1);
- :mod:`.coupling_bounds`: Alg. 2's L-lag coupling and its TV bound (§4, App. D.2).

The exact laws of coupled chains these rows compare with are :mod:`isdp.exact`. Both experiments share one
set of outputs: ``results/<exp>/...`` and ``results/tables/<exp>_*.csv``; the ``exp`` argument ("e1" or "e2")
picks the experiment.
"""
