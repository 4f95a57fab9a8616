"""Measures of E6, Subspace DP: the projected Gaussian on §5.2's spatio-temporal query and the statements beside it.

One module per concept; the registry names them ``e6.<module>.<function>``.

:mod:`.study_errors` (§5.2's study: the printed error statistic and its readings, the exact error of the projected
and extended Gaussian), :mod:`.transparency` (§4: unbiasedness, data independence, distributed privatization, the
invariants kept), :mod:`.conditioning` (§4 Thm 4.2: projection against conditioning), :mod:`.gaussian_laplace`
(§3.3: the Gaussian and Laplace mechanisms' privacy, exactly, and the Laplace tails), :mod:`.subspace_properties`
(§2.3 and Thms 3.1, 3.3 on exact laws), :mod:`.invariants_and_dp` (§1, §2, §3.1, §6: invariants against DP).
"""
