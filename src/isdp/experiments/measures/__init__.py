"""Measures: one small function per measured quantity of the claims registry.

A measure reads one run's outputs (:class:`isdp.experiments.claims.Run`) and returns an
:class:`isdp.experiments.claims.Measurement`; the registry names it ``<module>.<function>`` (e.g.
``e3.band_share``). Modules are per experiment; helpers used by several live in ``_common``.
"""
