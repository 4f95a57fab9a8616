"""Measures of E8, one module per document and topic; the registry names them ``e8.<module>.<function>``.

The Swapping slides: :mod:`.swapping_tables` (the swap rate → ε tables and figure, the 1940 county table, the 2020
what-if strata), :mod:`.swapping_privacy` (permutation swapping's DP statements, exactly on small strata; the
visualisation and the distances), :mod:`.swapping_perverse_guide` (lowering ε without more noise),
:mod:`.swapping_topdown` (TopDown's and SafeTab's zCDP budgets and invariants).

The TopDown talk: :mod:`.topdown_variances` (the noise-variance tables and δ), :mod:`.topdown_data` (counts and
problem sizes from the committed data), :mod:`.topdown_dorm` (the dormitory example), :mod:`.topdown_implied` (implied
constraints: region margins, GQ combinations), :mod:`.topdown_rounding` (the rounding LP, total unimodularity,
integer solutions), :mod:`.topdown_invariants` (invariants against privacy and accuracy; the failsafe).

Helpers both documents' modules use are in :mod:`._common`.
"""
