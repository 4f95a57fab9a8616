"""E7 — Congenial DP §4 Example 4.1, Table 2, App. A-B: the two-bin histogram with its total kept.

The three releases and their exact moments (:mod:`.releases`), their noise laws, exact and as printed
(:mod:`.noise_laws`), their privacy levels (:mod:`.privacy_levels`), the Double Geometric as printed
(:mod:`.printed_dg`), Example 5.2's rounded count (:mod:`.rounding`) and §1.3's neighbours (:mod:`.neighbours`);
the simulation and its tables (:mod:`.study`), steps (:mod:`.steps`), measures (:mod:`.measures`) and figures
(:mod:`.figures`).
"""
