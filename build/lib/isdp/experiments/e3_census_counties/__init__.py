"""E3 — ISDP §6, Fig 2 and 8: county populations with every state total kept, and the DAS audit.

The audit that selects the states (:mod:`.audit`), the per-state certified chains and their checks
(:mod:`.census`), the workflow steps (:mod:`.steps`), the claims measures (:mod:`.measures`) and figures
(:mod:`.figures`)."""
