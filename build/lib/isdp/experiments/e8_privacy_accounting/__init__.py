"""E8 — the swapping slides and the TopDown talk: swap rates to ε, zCDP conversions, TopDown variances
and the dormitory example's implied bounds.

Implied bounds (:mod:`.implied`), accounting tables (:mod:`.tables`), steps (:mod:`.steps`), measures
(:mod:`.measures`) and figures (:mod:`.figures`)."""
