"""ArviZ-readable storage of MCMC draws: netCDF files that ``arviz.from_netcdf`` opens.

A file holds a ``posterior`` group whose variable ``noise`` has dimensions (chain, draw, cell), compressed
with zlib: the layout ArviZ 0.x writes and both ArviZ 0.x and 1.x read. It is written and read with xarray
alone, so a file does not depend on which ArviZ generation is installed (:mod:`isdp.convergence`).

Reading checks what was read (:func:`load_draws`): integers, never cast; on the caller's lattice; of the
caller's target. A file that fails is a :class:`DrawsError` naming it.
"""

from __future__ import annotations

import numpy as np

from .._validate import integer_matrix
from ..errors import DrawsError, InvariantError
from ..files import atomic_write
from ..lattice import check_release
from ._arviz_compat import inference_data

#: the netCDF group that holds the draws, as ArviZ names a posterior
GROUP = "posterior"


def _cell_names(draws: np.ndarray, cell_names) -> list[str]:
    """One name per cell of ``draws`` (chains, draws, cells): ``cell_names``, or "0", "1", …."""
    if draws.ndim != 3:
        raise ValueError(f"draws must have shape (chains, draws, cells), got {draws.shape}")
    names = list(cell_names) if cell_names is not None else [str(i) for i in range(draws.shape[2])]
    if len(names) != draws.shape[2]:
        raise ValueError(f"{len(names)} cell names for {draws.shape[2]} cells")
    return names


def _attrs(attrs: dict | None) -> dict:
    """NetCDF attributes: integers, floats and strings as they are, anything else as its ``str``."""
    return {key: value if isinstance(value, (int, float, str)) else str(value) for key, value in (attrs or {}).items()}


def to_inference_data(draws: np.ndarray, cell_names=None, attrs: dict | None = None, var_name: str = "noise"):
    """Wrap (chains, draws, n) noise draws for ArviZ, with a ``cell`` dimension.

    Returns the installed ArviZ's container: an ``xarray.DataTree`` under ArviZ 1.x, an
    ``InferenceData`` under 0.x; either way ``result["posterior"][var_name]`` holds the draws.
    """
    draws = np.asarray(draws)
    return inference_data(draws, var_name, _cell_names(draws, cell_names), _attrs(attrs))


def save_draws(path, draws, cell_names=None, attrs: dict | None = None) -> None:
    """Write draws as netCDF (``arviz.from_netcdf`` reads it back), atomically.

    The file holds an ArviZ InferenceData whose posterior group has the variable ``noise`` with
    dimensions (chain, draw, cell). It is written to a temporary file and renamed, so a reader
    never sees half a file.

    Parameters
    ----------
    path : str or os.PathLike
        The file to write (conventionally ``.nc``); replaced if it exists.
    draws : array_like
        Draws of shape (chains, draws, n), e.g. :attr:`isdp.mcmc.SamplerResult.draws`.
    cell_names : sequence of str, optional
        One name per cell, stored as the ``cell`` coordinate; default ``"0"``, ``"1"``, ….
    attrs : dict, optional
        Attributes stored with the draws (thinning, burn-in, seed, …). Integers, floats and
        strings are stored as they are; other values as their ``str``.

    Raises
    ------
    ValueError
        If ``draws`` is not 3-D or ``cell_names`` does not have one name per cell.

    See Also
    --------
    load_draws : Read the draws back.

    Examples
    --------
    >>> import os
    >>> import tempfile
    >>> import numpy as np
    >>> from isdp.convergence import load_draws, save_draws
    >>> draws = np.arange(12).reshape(2, 2, 3)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "draws.nc")
    ...     save_draws(path, draws, cell_names=["a", "b", "c"], attrs={"thin": 10})
    ...     print(os.listdir(tmp), bool((load_draws(path) == draws).all()))
    ['draws.nc'] True
    """
    import xarray as xr  # deferred: xarray costs 0.35 s at import, which a job that never writes draws need not pay

    draws = np.asarray(draws)
    names = _cell_names(draws, cell_names)
    chains, n_draws, _ = draws.shape
    coords = {"chain": np.arange(chains), "draw": np.arange(n_draws), "cell": names}
    data = xr.Dataset({"noise": (("chain", "draw", "cell"), draws)}, coords=coords, attrs=_attrs(attrs))
    encoding = {name: {"zlib": True} for name in ("noise", "chain", "draw")}  # as ArviZ 0.x compresses
    atomic_write(path, lambda tmp: data.to_netcdf(str(tmp), group=GROUP, engine="h5netcdf", encoding=encoding))


#: what the netCDF stack (h5netcdf, HDF5, xarray) raises for a damaged file: a flipped byte in a
#: compressed chunk is an OSError, in the metadata a KeyError or RuntimeError, a truncated file an OSError or
#: ValueError
_READ_ERRORS = (OSError, KeyError, RuntimeError, ValueError, TypeError, IndexError, AttributeError)


def _read(path, var_name: str | None):
    """Read the posterior group's ``var_name`` values (None: not read) and attributes.

    Every read error names ``path``.
    """
    import h5netcdf  # deferred, as in save_draws: h5netcdf and xarray cost 0.4 s at import
    import xarray as xr  # deferred, as above

    try:
        with h5netcdf.File(str(path), "r") as f:
            if GROUP not in f.groups:
                raise DrawsError(f"{path}: no {GROUP} group, not a draws file written by save_draws")
        with xr.open_dataset(str(path), group=GROUP, engine="h5netcdf") as post:
            if var_name is not None and var_name not in post.data_vars:
                raise DrawsError(f"{path}: no variable {var_name!r} (it holds {sorted(map(str, post.data_vars))})")
            values = None if var_name is None else np.asarray(post[var_name].values)
            return values, dict(post.attrs)
    except DrawsError:
        raise
    except FileNotFoundError:
        raise DrawsError(f"{path}: missing (run the workflow step that writes it)") from None
    except _READ_ERRORS as err:
        raise DrawsError(
            f"{path}: unreadable netCDF ({type(err).__name__}: {err}); delete it so the workflow rebuilds it"
        ) from err


def load_draws(path, var_name: str = "noise", *, A=None, invariants=None, target: str | None = None) -> np.ndarray:
    """Read draws written by :func:`save_draws` back as an int64 (chains, draws, n) array, checked.

    The file must be readable and hold at least one draw of shape (chains, draws, cells) in integers:
    floats are refused, never cast (a cast would turn 0.5 into 0 and hide a damaged file). With ``A``
    every draw must have one entry per column of ``A`` and meet A u = ``invariants`` exactly (noise on
    the lattice Λ(A) by default); with ``target`` the file's ``target`` attribute must be that string.
    Every refusal is a :class:`DrawsError` naming the file and what is wrong.

    Parameters
    ----------
    path : str or os.PathLike
        A netCDF file of ArviZ InferenceData, as :func:`save_draws` writes.
    var_name : str, default "noise"
        The posterior variable to read.
    A : array_like of int, optional
        The problem's constraint matrix, shape (m, n): each draw must have n cells and meet the
        invariants (checked exactly, :func:`isdp.lattice.check_release`).
    invariants : array_like of int, optional
        The value of A u every draw must have, shape (m,); default zero (noise). Stored releases
        (states s = x + u) pass A x.
    target : str, optional
        The ``target`` attribute the step expects (the label of the law the draws are from, e.g.
        ``generalized_laplace(0.2, "l1").label``); a file without it, or of another target, is refused.

    Returns
    -------
    numpy.ndarray
        An int64 array of shape (chains, draws, n).

    Raises
    ------
    DrawsError
        If the file is missing or unreadable, lacks ``var_name``, holds no draws or not a 3-D
        array, holds floats or other non-integers, has another number of cells than ``A`` has
        columns, has a draw breaking A u = ``invariants``, or carries another ``target``.

    Examples
    --------
    >>> import os
    >>> import tempfile
    >>> import numpy as np
    >>> from isdp.convergence import load_draws, save_draws
    >>> from isdp.lattice import sum_constraint
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "draws.nc")
    ...     save_draws(path, np.array([[[1, -1, 0], [0, 2, -2]]]), attrs={"target": "noise keeping the total"})
    ...     draws = load_draws(path, A=sum_constraint(3), target="noise keeping the total")
    >>> draws.shape, draws.dtype.name, draws[0].tolist()
    ((1, 2, 3), 'int64', [[1, -1, 0], [0, 2, -2]])

    Draws that are not integers, or not on the lattice, are refused naming the file:

    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "draws.nc")
    ...     save_draws(path, np.array([[[1.5, -1.5, 0.0]]]))
    ...     load_draws(path)
    Traceback (most recent call last):
    ...
    isdp.errors.DrawsError: .../draws.nc: holds float64 values, not integers: refused, not cast
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "draws.nc")
    ...     save_draws(path, np.array([[[1, 1, 0]]]))
    ...     load_draws(path, A=sum_constraint(3))
    Traceback (most recent call last):
    ...
    isdp.errors.DrawsError: .../draws.nc: off the lattice: 1 of 1 draws break A u = 0 (first: chain 0, draw 0)
    """
    values, attrs = _read(path, var_name)
    if values.dtype.kind not in "iu":
        raise DrawsError(f"{path}: holds {values.dtype.name} values, not integers: refused, not cast")
    if values.ndim != 3 or values.size == 0:
        raise DrawsError(f"{path}: holds an array of shape {values.shape}, not draws of shape (chains, draws, cells)")
    if values.dtype.kind == "u" and values.max() > np.iinfo(np.int64).max:
        raise DrawsError(f"{path}: holds values beyond int64")
    draws = values.astype(np.int64)
    if target is not None and attrs.get("target") != target:
        found = f"draws of target {attrs['target']!r}" if "target" in attrs else "no 'target' attribute"
        raise DrawsError(f"{path}: holds {found}, the step expects {target!r}")
    if A is not None:
        _check_lattice(path, draws, A, invariants)
    return draws


def _check_lattice(path, draws: np.ndarray, A, invariants) -> None:
    """Every draw of ``draws`` meets A u = ``invariants`` (zero when None) exactly, or :class:`DrawsError`."""
    A = integer_matrix("A", A)
    if draws.shape[-1] != A.shape[1]:
        raise DrawsError(f"{path}: {draws.shape[-1]} cells per draw, the constraints have {A.shape[1]}")
    b = np.zeros(A.shape[0], dtype=np.int64) if invariants is None else invariants
    try:
        check_release(draws, A, b, what="the draws")
    except InvariantError as err:
        rows = draws.reshape(-1, A.shape[1])
        broken = "break" in str(err)
        bad = np.flatnonzero(np.any(rows @ A.T != np.asarray(b, dtype=np.int64), axis=1)) if broken else np.zeros(0)
        if not len(bad):
            raise DrawsError(f"{path}: {err}") from None
        chain, draw = divmod(int(bad[0]), draws.shape[1])
        rhs = "0" if invariants is None else "the invariants"
        raise DrawsError(
            f"{path}: off the lattice: {len(bad)} of {len(rows)} draws break A u = {rhs} (first: chain "
            f"{chain}, draw {draw})"
        ) from None


def draws_attrs(path) -> dict:
    """Return the attributes :func:`save_draws` stored with the draws (thinning, burn-in, certificate, seed).

    Reads the attributes only, not the draws, so a notebook can label a figure without loading them.

    Parameters
    ----------
    path : str or os.PathLike
        A file :func:`save_draws` wrote.

    Returns
    -------
    dict
        The ``attrs`` given to :func:`save_draws`: integers and floats as NumPy scalars, strings as
        they are.

    Raises
    ------
    isdp.errors.DrawsError
        Naming the file when it is missing, unreadable or not a draws file.

    See Also
    --------
    load_draws : The draws themselves, checked.

    Examples
    --------
    >>> import os
    >>> import tempfile
    >>> import numpy as np
    >>> from isdp.convergence import draws_attrs, save_draws
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "draws.nc")
    ...     save_draws(path, np.zeros((2, 3, 4), dtype=np.int64), attrs={"thin": 10, "target": "Laplace ℓ1"})
    ...     attrs = draws_attrs(path)
    >>> int(attrs["thin"]), attrs["target"]
    (10, 'Laplace ℓ1')
    """
    return _read(path, None)[1]
