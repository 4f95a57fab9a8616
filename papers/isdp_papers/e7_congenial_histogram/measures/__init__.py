"""Measures of E7, Congenial DP: the two-bin histogram of Example 4.1 and the statements around it.

One module per concept; the registry names them ``e7.<module>.<function>``.

:mod:`.table2` (Example 4.1's Table 2: expectations, variances, their order), :mod:`.noise_laws` (the noise laws
(4.6), (4.7), (A.1) and App. A's Remarks), :mod:`.privacy_vs_beta` (the attained levels against β, Theorem A.1),
:mod:`.postprocessing` (§4's L2 and L1 projections and the post-processing theorem), :mod:`.conditioning`
(Theorem 2.1's γ on §5.1's examples, Example 5.2, conditioning on null sets and vacuous models, §5.3),
:mod:`.sections1_3` (§1.3–1.4's definitions and noise laws, App. B's Double Geometric, §3's negative binomial).
"""
