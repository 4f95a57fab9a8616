"""Tests of :mod:`isdp.convergence`: draws are checked when they are read — integers (floats refused, never cast), on
the caller's lattice (A u = 0, or A s = A x for stored states), of the caller's target — and a damaged file (a
flipped byte in a compressed chunk, a truncated or foreign file, a missing variable) is a ``DrawsError`` naming
the file, never a bare ``OSError``, ``KeyError`` or a broadcast ``ValueError`` further on."""

from __future__ import annotations

import re

import h5py
import numpy as np
import pytest

from isdp.convergence import load_draws, save_draws
from isdp.convergence._draws_io import draws_attrs
from isdp.errors import DrawsError
from isdp.lattice import sum_constraint

A = np.array([[1, 1, 0, 0], [0, 0, 1, 1]])  # two totals over four cells
TARGET = "Laplace ℓ1 (ε=0.2)"


def _noise(chains=2, draws=6, seed=0) -> np.ndarray:
    """Integer noise with A u = 0: (a, −a, b, −b) per draw."""
    ab = np.random.default_rng(seed).integers(-9, 10, size=(chains, draws, 2))
    return np.stack([ab[..., 0], -ab[..., 0], ab[..., 1], -ab[..., 1]], axis=2).astype(np.int64)


@pytest.fixture
def good(tmp_path):
    path = tmp_path / "draws_l1.nc"
    save_draws(path, _noise(), attrs={"target": TARGET})
    return path


def test_intact_draws_pass_every_check_unchanged(good):
    back = load_draws(good, A=A, target=TARGET)
    assert back.dtype == np.int64
    np.testing.assert_array_equal(back, _noise())
    np.testing.assert_array_equal(load_draws(good), back)  # the checks change nothing that is read


def test_stored_states_meet_their_invariants(tmp_path):
    x = np.array([3, 4, 5, 6])
    path = tmp_path / "trace.nc"
    save_draws(path, x + _noise())
    np.testing.assert_array_equal(load_draws(path, A=A, invariants=A @ x), x + _noise())
    with pytest.raises(DrawsError, match=re.escape(f"{path}: off the lattice")):
        load_draws(path, A=A)  # states are not noise: A s = A x, not 0
    with pytest.raises(DrawsError, match="break A u = the invariants"):
        load_draws(path, A=A, invariants=A @ x + 1)


@pytest.mark.parametrize("dtype", [np.int32, np.int16, np.uint8])
def test_other_integer_types_are_read_as_int64(tmp_path, dtype):
    path = tmp_path / "d.nc"
    save_draws(path, np.abs(_noise()).astype(dtype))
    assert load_draws(path).dtype == np.int64


@pytest.mark.parametrize("shift", [0.5, 0.0], ids=["+0.5", "integral floats"])
def test_float_draws_are_refused_never_cast(tmp_path, shift):
    """Floats were cast to int64 silently (0.5 → 0): a damaged file read as good draws. Even integral floats are
    refused: the workflow writes integers, so a float file is not one of its files."""
    path = tmp_path / "draws_l1.nc"
    save_draws(path, _noise().astype(float) + shift, attrs={"target": TARGET})
    with pytest.raises(DrawsError, match=re.escape(f"{path}: holds float64 values, not integers: refused, not cast")):
        load_draws(path, A=A, target=TARGET)
    with pytest.raises(DrawsError, match="not integers"):
        load_draws(path)  # without any other check too


def test_draws_off_the_lattice_are_refused_naming_the_first(tmp_path):
    noise = _noise()
    noise[1, 3, 0] += 1  # one draw off Λ(A)
    path = tmp_path / "draws_l1.nc"
    save_draws(path, noise, attrs={"target": TARGET})
    with pytest.raises(
        DrawsError, match=re.escape(f"{path}: off the lattice: 1 of 12 draws break A u = 0 (first: chain 1, draw 3)")
    ):
        load_draws(path, A=A, target=TARGET)
    assert load_draws(path).shape == noise.shape  # without A nothing says what the lattice is


def test_noise_plus_one_everywhere_is_refused(tmp_path):
    path = tmp_path / "draws_l1.nc"
    save_draws(path, _noise() + 1, attrs={"target": TARGET})
    with pytest.raises(DrawsError, match="12 of 12 draws break A u = 0"):
        load_draws(path, A=A)


def test_a_file_with_half_the_cells_is_refused_naming_it(tmp_path):
    """7 of 14 cells: before, the first computation with A failed with a broadcast error that named no file."""
    path = tmp_path / "draws_l1.nc"
    save_draws(path, np.zeros((2, 5, 7), dtype=np.int64), attrs={"target": TARGET})
    with pytest.raises(DrawsError, match=re.escape(f"{path}: 7 cells per draw, the constraints have 14")):
        load_draws(path, A=sum_constraint(14), target=TARGET)


def test_draws_of_another_target_are_refused(tmp_path, good):
    with pytest.raises(
        DrawsError, match=re.escape(f"{good}: holds draws of target {TARGET!r}, the step expects 'Laplace ℓ2 (ε=0.2)'")
    ):
        load_draws(good, A=A, target="Laplace ℓ2 (ε=0.2)")
    bare = tmp_path / "bare.nc"
    save_draws(bare, _noise())
    with pytest.raises(DrawsError, match=re.escape(f"{bare}: holds no 'target' attribute, the step expects")):
        load_draws(bare, target=TARGET)


@pytest.mark.filterwarnings("ignore:More chains")
def test_an_empty_or_flat_array_is_not_draws(tmp_path):
    path = tmp_path / "d.nc"
    save_draws(path, np.zeros((2, 0, 4), dtype=np.int64))
    with pytest.raises(DrawsError, match=re.escape(f"{path}: holds an array of shape (2, 0, 4), not draws")):
        load_draws(path)


def _flip_inside_the_compressed_chunk(path) -> None:
    """Invert 8 bytes in the middle of the noise variable's first compressed chunk."""
    with h5py.File(path, "r") as f:
        ds = f["posterior/noise"]
        assert ds.compression is not None
        info = ds.id.get_chunk_info(0)
    data = bytearray(path.read_bytes())
    middle = info.byte_offset + info.size // 2
    data[middle - 4 : middle + 4] = bytes(b ^ 0xFF for b in data[middle - 4 : middle + 4])
    path.write_bytes(bytes(data))


def test_bytes_flipped_inside_a_compressed_chunk_name_the_file(tmp_path):
    """Before: a bare OSError ("filter returned failure during read") that named no file."""
    path = tmp_path / "draws_l1.nc"
    save_draws(path, np.random.default_rng(1).integers(-50, 50, size=(2, 200, 14)), attrs={"target": TARGET})
    _flip_inside_the_compressed_chunk(path)
    with pytest.raises(DrawsError, match=re.escape(f"{path}: unreadable netCDF (")) as err:
        load_draws(path)
    assert "delete it so the workflow rebuilds it" in str(err.value)


@pytest.mark.parametrize("damage", ["truncated", "not netCDF", "missing"])
def test_a_damaged_or_missing_file_names_itself(good, damage):
    if damage == "truncated":
        good.write_bytes(good.read_bytes()[: len(good.read_bytes()) // 2])
    elif damage == "not netCDF":
        good.write_text("chain,draw,noise\n0,0,1\n")
    else:
        good.unlink()
    expected = "missing" if damage == "missing" else "unreadable netCDF"
    for read in (load_draws, draws_attrs):
        with pytest.raises(DrawsError, match=re.escape(f"{good}: {expected}")):
            read(good)


def test_a_missing_variable_is_named(good):
    with pytest.raises(DrawsError, match=re.escape(f"{good}: no variable 'states' (it holds ['noise'])")):
        load_draws(good, var_name="states")


def test_draws_error_is_a_value_error_so_claims_and_jobs_report_it(good):
    """The claims evaluator turns any failure of a measure into `error`; a step fails with the message."""
    assert issubclass(DrawsError, ValueError)
    assert draws_attrs(good)["target"] == TARGET
