"""isdp — integer subspace differential privacy.

Reference implementation of the mechanisms of *Integer Subspace Differential Privacy*
(Dharangutte, Gao, Gong, Yu; AAAI-23) and the papers around it. The public API has two tiers.

**The names in ``isdp.__all__``** (imported on first use), by the module that defines them:

- lattice: :class:`IntegerLattice` (Λ(A) via Smith normal form), :func:`integer_solution`,
  :func:`check_release`, constraint builders (:func:`sum_constraint`, :func:`table_margins`,
  :func:`venn_constraints`)
- targets: :func:`generalized_laplace`, :func:`generalized_gaussian`
- samplers: :func:`sample` (compiled Gibbs-within-Metropolis), :func:`tune_proposal`
- mis: :func:`mis_sample` (compiled Metropolized independence sampler, FODS-20 Algorithm 1)
- augmented: :func:`augmented_sample` (data-augmentation Gibbs sampler for the ℓ2 Laplace on sum
  constraints, exact inner draws), :func:`augmented_meeting_times`
- heat_bath: :func:`heat_bath_sweeps` (pair heat-bath kernel for ℓ1 noise on one sum constraint,
  exact conditional draws) and :func:`heat_bath_meeting_times` (its monotone coupling)
- bases: :func:`with_mixing_basis` (the same Λ(A) on a basis chosen for mixing: path, adjacent
  table moves, LLL), :func:`default_basis`, :func:`change_of_basis` (the unimodular check)
- coupling: :func:`meeting_times`, :func:`tv_upper_bound` and :func:`convergence_iteration` (the
  point estimate of the L-lag bound and its crossing)
- certification: the one :class:`Certificate` (a 95 % upper confidence bound on the coupling
  bound from pairs started like the chains; t_cert where it reaches 0.01) and the one way to get
  it per sampler: :func:`certify`, :func:`certify_mis`, :func:`certify_augmented`,
  :func:`certify_heat_bath`
- exact_laws: :func:`sample_sum_constraint_l1`, :func:`enumerate_target`, :func:`sweep_transition_matrix`,
  :func:`exact_tv_curve`
- double_geometric: double geometric pmf/cdf/sampler and maximal coupling
- convergence_diagnostics: R-hat/ESS via ArviZ; draws_io: netCDF storage of draws
- :func:`derive_seed`: an independent, stable seed per named step from one base seed

**Modules used by name** (``from isdp.<module> import …``), each with its own ``__all__``: release
mode — :mod:`isdp.tables` (tables in), :mod:`isdp.constraints` (their invariants),
:mod:`isdp.exact_sampling` (exact integer-arithmetic samplers), :mod:`isdp.privacy` (the guarantee per
person), :mod:`isdp.privacy_audit`, :mod:`isdp.errors`, :mod:`isdp.release`, :mod:`isdp.cli`,
:mod:`isdp.opendp_measurements`; and :mod:`isdp.baselines` (the projection mechanisms the papers
compare with), :mod:`isdp.accounting` (swapping budget, zCDP conversions), :mod:`isdp.kernels`
(the compiled samplers' building blocks, for new kernels) and :mod:`isdp.files` (atomic writes).
Modules whose names start with ``_`` are private.

The experiment layer (the papers' problems, data loaders, studies, figures and the claims
registry) lives in :mod:`isdp.experiments` and needs the ``workflow`` extra.
"""

import importlib
import importlib.metadata
import importlib.util

# The public API is imported on first use (PEP 562): `import isdp` stays light, so a workflow job
# that needs one helper does not pay for SymPy, SciPy's statistics and numba's kernels. No submodule
# shares a name with a public function (hence isdp.certification for isdp.certify): the import
# system would bind the submodule over the function.
_EXPORTS = {
    "derive_seed": "._rng",
    "MIXING_BASES": ".bases",
    "change_of_basis": ".bases",
    "default_basis": ".bases",
    "with_mixing_basis": ".bases",
    "augmented_meeting_times": ".augmented",
    "augmented_sample": ".augmented",
    "certify_augmented": ".certification",
    "Certificate": ".certification",
    "CertificationError": ".certification",
    "certify": ".certification",
    "certify_heat_bath": ".certification",
    "certify_mis": ".certification",
    "MeetingTimes": ".coupling",
    "convergence_iteration": ".coupling",
    "meeting_times": ".coupling",
    "tv_upper_bound": ".coupling",
    "convergence_table": ".convergence_diagnostics",
    "load_draws": ".draws_io",
    "save_draws": ".draws_io",
    "summarize_convergence": ".convergence_diagnostics",
    "dg_cdf": ".double_geometric",
    "dg_logpmf": ".double_geometric",
    "dg_pmf": ".double_geometric",
    "dg_rvs": ".double_geometric",
    "maximal_coupling_rvs": ".double_geometric",
    "enumerate_target": ".exact_laws",
    "exact_tv_curve": ".exact_laws",
    "sample_sum_constraint_l1": ".exact_laws",
    "sweep_transition_matrix": ".exact_laws",
    "heat_bath_meeting_times": ".heat_bath",
    "heat_bath_sweeps": ".heat_bath",
    "IntegerLattice": ".lattice",
    "InvariantError": ".lattice",
    "check_release": ".lattice",
    "integer_solution": ".lattice",
    "sum_constraint": ".lattice",
    "table_margins": ".lattice",
    "venn_constraints": ".lattice",
    "MISResult": ".mis",
    "mis_sample": ".mis",
    "SamplerResult": ".samplers",
    "sample": ".samplers",
    "tune_proposal": ".samplers",
    "Target": ".targets",
    "generalized_gaussian": ".targets",
    "generalized_laplace": ".targets",
}

try:  # the installed distribution's version (SemVer 0.x), so the package, `isdp --version` and statements agree
    __version__ = importlib.metadata.version("isdp")
except importlib.metadata.PackageNotFoundError:  # a source tree run without installing
    __version__ = "0+unknown"

__all__ = [
    "MIXING_BASES",
    "Certificate",
    "CertificationError",
    "IntegerLattice",
    "InvariantError",
    "MISResult",
    "MeetingTimes",
    "SamplerResult",
    "Target",
    "augmented_meeting_times",
    "augmented_sample",
    "certify",
    "certify_augmented",
    "certify_heat_bath",
    "certify_mis",
    "change_of_basis",
    "check_release",
    "convergence_iteration",
    "convergence_table",
    "default_basis",
    "derive_seed",
    "dg_cdf",
    "dg_logpmf",
    "dg_pmf",
    "dg_rvs",
    "enumerate_target",
    "exact_tv_curve",
    "generalized_gaussian",
    "generalized_laplace",
    "heat_bath_meeting_times",
    "heat_bath_sweeps",
    "integer_solution",
    "load_draws",
    "maximal_coupling_rvs",
    "meeting_times",
    "mis_sample",
    "sample",
    "sample_sum_constraint_l1",
    "save_draws",
    "sum_constraint",
    "summarize_convergence",
    "sweep_transition_matrix",
    "table_margins",
    "tune_proposal",
    "tv_upper_bound",
    "venn_constraints",
    "with_mixing_basis",
]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        if importlib.util.find_spec(f"{__name__}.{name}") is None:
            raise AttributeError(f"module 'isdp' has no attribute {name!r}")
        return importlib.import_module(f".{name}", __name__)  # a submodule, e.g. isdp.exact_laws
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
