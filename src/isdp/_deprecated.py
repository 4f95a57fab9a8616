"""The flat layout's import paths, kept for one release (0.3) with a :class:`DeprecationWarning`.

Before 0.3 the core was 37 flat modules and ``isdp.__all__`` held 47 names (``isdp.sample``,
``from isdp.coupling import meeting_times``). Each still resolves, warning with the new path;
docs/changelog.md lists them, and :data:`OLD_NAMES` holds every old path with the names it held. The old modules
are not files: a finder on ``sys.meta_path`` makes ``isdp.<old>`` a module that forwards the public names of the
subpackage it moved to, and of the subpackages that took some of them since.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings

#: old module -> the subpackage that holds its public names now
MOVED_MODULES = {
    "accounting": "baselines",
    "arviz_compat": "convergence",
    "augmented": "mcmc",
    "bases": "lattice",
    "certification": "convergence",
    "constraints": "release",
    "convergence_diagnostics": "convergence",
    "coupled_laws": "exact",
    "coupling": "mcmc",
    "double_geometric": "mcmc",
    "draws_io": "convergence",
    "exact_laws": "exact",
    "exact_sampling": "exact",
    "gaussian_profile": "exact",
    "heat_bath": "mcmc",
    "kernels": "mcmc",
    "lattice_gaussian": "exact",
    "mis": "mcmc",
    "privacy": "release",
    "privacy_audit": "release",
    "release_files": "release",
    "release_statement": "release",
    "samplers": "mcmc",
    "tables": "release",
    "targets": "lattice",
}
#: public names renamed in 0.3: old name -> (its subpackage, new name)
RENAMED = {"ExactL1Sampler": ("exact", "IntegerL1Sampler")}
#: names that left a module which is now a subpackage of the same name: module -> {name: new home}
MOVED_NAMES = {
    "isdp.baselines": {"SolverError": "errors"},
    "isdp.lattice": {"InvariantError": "errors"},
    "isdp.release": dict.fromkeys(("as_sparse", "blocks", "implied_by_partition", "independent_rows", "row_values"),
                                  "lattice"),
}
#: every path of the flat layout and its public names: the old ``isdp.__all__`` (key ``isdp``) and each old module's
#: ``__all__``, or for a module without one the names it defined that are public now (``from isdp.<old> import *``
#: imports these)
OLD_NAMES = {path: tuple(names.split()) for path, names in {
    "isdp": """augmented_meeting_times augmented_sample Certificate CertificationError certify certify_augmented
        certify_heat_bath certify_mis change_of_basis check_release convergence_iteration convergence_table
        default_basis derive_seed dg_cdf dg_logpmf dg_pmf dg_rvs enumerate_target exact_tv_curve generalized_gaussian
        generalized_laplace heat_bath_meeting_times heat_bath_sweeps integer_solution IntegerLattice InvariantError
        load_draws maximal_coupling_rvs meeting_times MeetingTimes mis_sample MISResult MIXING_BASES sample
        sample_sum_constraint_l1 SamplerResult save_draws sum_constraint summarize_convergence sweep_transition_matrix
        table_margins Target tune_proposal tv_upper_bound venn_constraints with_mixing_basis""",
    "isdp.accounting": """CONVERSIONS dp_to_zcdp gaussian_delta swap_rates_for_epsilon swapping_epsilon
        swapping_epsilon_from_log_odds swapping_min_epsilon zcdp_to_dp""",
    "isdp.arviz_compat": "ess from_netcdf generation rhat",
    "isdp.augmented": "augmented_meeting_times augmented_sample",
    "isdp.bases": "change_of_basis default_basis MIXING_BASES with_mixing_basis",
    "isdp.certification": """Certificate CertificationError certify certify_augmented certify_heat_bath certify_mis
        certify_searching_lag pairs_needed""",
    "isdp.constraints": """as_sparse blocks COEFFICIENT_LIMIT constraint_matrix FAMILIES implied_by_partition
        independent_rows read_constraint_file row_values""",
    "isdp.convergence_diagnostics": "convergence_table summarize_convergence two_sample_chi2",
    "isdp.coupled_laws": "apart_probabilities coupled_sweep_exact jump_law UNIFORMS",
    "isdp.coupling": "convergence_iteration meeting_times MeetingTimes tv_bound_terms tv_upper_bound",
    "isdp.double_geometric": """dg_cdf dg_logpmf dg_pmf dg_rvs dg_tv_shift dg_variance maximal_coupling_dg
        maximal_coupling_rvs""",
    "isdp.draws_io": "draws_attrs DrawsError load_draws save_draws",
    "isdp.exact_laws": """enumerate_target exact_tv_curve MAX_PROPOSALS sample_conditioned_dg sample_sum_constraint_l1
        sum_constraint_acceptance sum_constraint_l1_marginal sweep_transition_matrix""",
    "isdp.exact_sampling": """as_fraction bernoulli_exp double_geometric double_geometric_array EXACT_SOLVE_LIMIT
        ExactL1Sampler ExactSampler IntegerSource integral_solve norm_tables PILOT_PROPOSALS seeded_source
        system_source""",
    "isdp.gaussian_profile": "calibrate_sigma MAX_SHIFT profile_delta profile_epsilon residue_profiles SIGMA_GRID",
    "isdp.heat_bath": "heat_bath_meeting_times heat_bath_sweeps",
    "isdp.kernels": """acceptance_ratio apply_move basis_csr component_sweep copy_into dg_draw dg_table exp_table
        joint_sweep next_u64 norm_change over_streams seed_states sweep_law uniform_pos""",
    "isdp.lattice_gaussian": "discrete_gaussian KINDS lattice_block LatticeBlock",
    "isdp.mis": "mis_exact_sample mis_log_weight mis_meeting_times mis_sample MISResult",
    "isdp.privacy": """gaussian_rho gaussian_sigma Guarantee LARGEST_GROUP Neighbours PERSON_L1 PERSON_L2 PERSON_SHIFT
        SmallestChange TWO_PERSON_SHIFT two_person_shift unit_epsilon""",
    "isdp.privacy_audit": """chain_noise chain_noise_path exact_route_noise hockey_stick Law max_privacy_loss product
        pushforward total_variation truncation_slack""",
    "isdp.release_files": "AUDIT_NOTE write_release",
    "isdp.release_statement": "privacy_statement route_record",
    "isdp.samplers": "sample SamplerResult starting_states tune_proposal",
    "isdp.tables": """load_table LongTable read_long_table read_table_csv read_table_keys read_wide_table Table TableSet
        WideTable""",
    "isdp.targets": "generalized_gaussian generalized_laplace Target",
}.items()}
#: where ``isdp.__all__``'s names of the flat layout are now, searched in this order
_TOP_LEVEL_HOMES = ("lattice", "mcmc", "exact", "convergence", "errors")


def _warn(old: str, new: str, stacklevel: int = 3) -> None:
    warnings.warn(f"{old} is deprecated and will be removed in isdp 0.4; use {new}", DeprecationWarning,
                  stacklevel=stacklevel)


def moved_name(name: str):
    """``isdp.<name>`` of the flat layout: the object from its subpackage, with a warning (an old module's name:
    the module, whose names warn)."""
    if name in MOVED_MODULES:
        return importlib.import_module(f"isdp.{name}")
    for home in _TOP_LEVEL_HOMES:
        package = importlib.import_module(f"isdp.{home}")
        if name in package.__all__:
            _warn(f"isdp.{name}", f"isdp.{home}.{name}", stacklevel=4)
            return getattr(package, name)
    raise AttributeError(f"module 'isdp' has no attribute {name!r}")


def moved_attribute(module: str, name: str):
    """``<module>.<name>`` for a name that moved out of ``module`` (a subpackage's ``__getattr__``)."""
    home, new = MOVED_NAMES.get(module, {}).get(name), name
    if home is None and name in RENAMED and module == f"isdp.{RENAMED[name][0]}":
        home, new = RENAMED[name]
    if home is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    _warn(f"{module}.{name}", f"isdp.{home}.{new}", stacklevel=4)
    return getattr(importlib.import_module(f"isdp.{home}"), new)


class _MovedModule(types.ModuleType):
    def __getattr__(self, name: str):
        first, new = RENAMED.get(name, (MOVED_MODULES[self.__name__.rpartition(".")[2]], name))
        later = MOVED_NAMES.get(f"isdp.{first}", {}).get(new, first)  # moved on since (constraints' row_values)
        for home in (later, "errors"):  # errors moved to isdp.errors
            package = importlib.import_module(f"isdp.{home}")
            if new in package.__all__:
                _warn(f"{self.__name__}.{name}", f"isdp.{home}.{new}")
                return getattr(package, new)
        raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")


class _Loader(importlib.abc.Loader):
    def create_module(self, spec):
        return _MovedModule(spec.name)

    def exec_module(self, module) -> None:
        module.__all__ = list(OLD_NAMES[module.__name__])  # what ``from isdp.<old> import *`` imported


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        package, _, old = fullname.partition(".")
        if package != "isdp" or old not in MOVED_MODULES:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Loader())


def install_finder() -> None:
    """Put the finder of the old module paths on ``sys.meta_path`` (once per interpreter)."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())
