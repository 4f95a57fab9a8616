"""isdp — integer subspace differential privacy.

Reference implementation of the mechanisms of *Integer Subspace Differential Privacy*
(Dharangutte, Gao, Gong, Yu; AAAI-23) and the papers around it. The library is a set of
subpackages, each with one ``__all__``, imported on first use (``import isdp`` stays light):

- :mod:`isdp.lattice`: Λ(A) of a set of counting invariants, mixing bases, the target laws on Λ(A)
- :mod:`isdp.mcmc`: the compiled samplers, their couplings and the building blocks of new kernels
- :mod:`isdp.exact`: exact laws on small lattices and the exact integer-arithmetic samplers
- :mod:`isdp.convergence`: the certificate, R-hat and ESS, draws as netCDF
- :mod:`isdp.tables`: tables in and out (CSV, Parquet), their keys, the invariant families and files
- :mod:`isdp.privacy`: neighbours, the guarantee per person, the exact audit, laws, cells' error bars
- :mod:`isdp.release`: release mode — the request, plan, run, checks and statement, whole, in parts or on Dask
- :mod:`isdp.published`: a release as its readers have it: error bars for its linear queries, its verification
- :mod:`isdp.baselines`: the projection mechanisms and the accounting the papers compare with
- :mod:`isdp.datasets`: example tables installed with the package (``isdp example``)

and the modules :mod:`isdp.errors` (the one error hierarchy), :mod:`isdp.files` (atomic writes),
:mod:`isdp.cli` (``isdp release``, ``query``, ``verify``) and :mod:`isdp.opendp_measurements` (the exact
routes as OpenDP measurements, extra ``isdp[opendp]``). Modules whose names start with ``_`` are private.

The papers' reproduction (their problems, data loaders, studies, figures and claims registry) is not
part of this package: it lives beside the workflow in the repository's ``papers/`` folder.

Examples
--------
>>> import isdp
>>> lattice = isdp.lattice.IntegerLattice.from_constraints(isdp.lattice.sum_constraint(3))
>>> lattice.dim
2
"""

import importlib
import importlib.metadata

try:  # the installed distribution's version (SemVer 0.x), so the package, `isdp --version` and statements agree
    __version__ = importlib.metadata.version("isdp")
except importlib.metadata.PackageNotFoundError:  # a source tree run without installing
    __version__ = "0+unknown"

#: the public parts: each subpackage's (or module's) own ``__all__`` is the one list of its names
__all__ = [  # noqa: RUF022 (the reading order: the method's layers, then the modules around them)
    "lattice",
    "mcmc",
    "exact",
    "convergence",
    "tables",
    "privacy",
    "release",
    "published",
    "baselines",
    "datasets",
    "errors",
    "files",
    "cli",
    "opendp_measurements",
]


def __getattr__(name: str):
    if name in __all__:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'isdp' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
