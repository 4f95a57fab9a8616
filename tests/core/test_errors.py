"""One error hierarchy: every error isdp raises on purpose derives from ``IsdpError`` and from the builtin
a Python user would catch, and the release's refusals carry the command's exit status."""

from __future__ import annotations

import inspect
import pathlib
import re

import pytest

from isdp import errors

BUILTIN = {
    "ArgumentError": ValueError,
    "InvariantError": ValueError,
    "DrawsError": ValueError,
    "UsageError": ValueError,
    "InputError": ValueError,
    "InfeasibleError": ValueError,
    "SolverError": RuntimeError,
    "CertificationError": RuntimeError,
    "UncertifiableError": RuntimeError,
    "NotPartitionable": ValueError,
}


def test_every_error_is_listed_and_rooted_in_isdp_error():
    classes = {n for n, v in vars(errors).items() if inspect.isclass(v) and issubclass(v, Exception)}
    assert classes == set(errors.__all__) == {*BUILTIN, "IsdpError", "ReleaseError"}
    assert all(issubclass(getattr(errors, n), errors.IsdpError) for n in classes)


@pytest.mark.parametrize(("name", "builtin"), sorted(BUILTIN.items()))
def test_each_error_is_the_builtin_a_user_would_catch(name, builtin):
    kind = getattr(errors, name)
    assert issubclass(kind, builtin)
    with pytest.raises(builtin, match="named problem"):
        raise kind("named problem")


def test_the_refusals_carry_their_exit_status_and_an_uncertifiable_release_is_a_certification_failure():
    refusals = {k.__name__: k.exit_code for k in errors.ReleaseError.__subclasses__()}
    assert refusals == {"UsageError": 2, "InputError": 3, "InfeasibleError": 4, "UncertifiableError": 5}
    assert issubclass(errors.UncertifiableError, errors.CertificationError)
    assert not issubclass(errors.CertificationError, errors.ReleaseError)


def test_a_bad_option_is_a_bad_argument_that_names_itself():
    assert issubclass(errors.UsageError, errors.ArgumentError)
    err = errors.UsageError("--pairs must be an integer", "--pairs")
    assert err.argument == "--pairs" and str(err) == "--pairs must be an integer" and err.exit_code == 2


def test_no_other_module_of_the_core_defines_an_exception():
    """``isdp.errors`` is the one place: a new error elsewhere would start a second root."""
    src = pathlib.Path(errors.__file__).parent
    base = re.compile(r"^class (\w+)\((?:\w+Error|Exception|ValueError|RuntimeError)\b", re.M)
    others = [
        f"{p.relative_to(src)}: {m}"
        for p in src.rglob("*.py")
        if "experiments" not in p.parts and p.name != "errors.py"
        for m in base.findall(p.read_text())
    ]
    assert not others, others
