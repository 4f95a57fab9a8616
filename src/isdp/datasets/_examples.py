"""The example tables: their files inside the installed package, and copying them where a user works."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from .. import _validate
from .._atomic_files import atomic_write
from ..errors import UsageError

_HERE = Path(str(resources.files(__package__)))

#: each example by name: its files as installed (read them, never write them), what it is, and a release to try
EXAMPLES: dict[str, dict] = {
    "sex_by_age": {
        "files": (_HERE / "sex_by_age.csv", _HERE / "sex_by_age_invariants.csv"),
        "about": (
            "the congenial paper's simulated 2 x 23 sex x age table (Congenial DP section 3, Table 1) and its three "
            "invariants: the total population, the female total and the voting-age (18+) total"
        ),
        "try": (
            "isdp release sex_by_age.csv --format wide --constraints sex_by_age_invariants.csv --epsilon 1 "
            "--output release.csv"
        ),
    },
}


def copy_example(name: str, directory=".") -> list[Path]:
    """Write an example's files into ``directory``, each whole or not at all; an existing file is never replaced.

    Parameters
    ----------
    name : str
        An example (a key of :data:`EXAMPLES`).
    directory : str or os.PathLike, default "."
        Where to write them (created if missing).

    Returns
    -------
    list of pathlib.Path
        The files written, in the order :data:`EXAMPLES` lists them.

    Raises
    ------
    isdp.errors.UsageError
        An unknown name (the message lists the examples), a ``directory`` that is a file or not a path, or a file
        of an example's name already in ``directory`` (nothing is written then).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     print([p.name for p in copy_example("sex_by_age", tmp)])
    ['sex_by_age.csv', 'sex_by_age_invariants.csv']
    """
    name = _validate.choice("example", name, EXAMPLES, error=UsageError)
    folder = _validate.folder("directory", directory, error=UsageError)
    sources: tuple[Path, ...] = EXAMPLES[name]["files"]
    targets = [folder / source.name for source in sources]
    taken = [t for t in targets if t.exists() or t.is_symlink()]
    if taken:
        raise UsageError(f"{taken[0]} exists: nothing written; remove it or choose another --dir")
    for source, target in zip(sources, targets, strict=True):
        atomic_write(target, _copier(source), replace=False)
    return targets


def _copier(source: Path):
    """Return the writer of ``source``'s bytes into a temporary file (:func:`isdp._atomic_files.atomic_write`)."""

    def write(tmp: Path) -> None:
        tmp.write_bytes(source.read_bytes())

    return write
