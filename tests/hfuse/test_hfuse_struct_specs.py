"""Run specs for kernels that take a struct by value describing an array (PyTorch's
PackedTensorAccessor and TensorInfo; tests/hfuse/programs/structs/views.cu in their styles):
an array argument with `tensor = { sizes, strides }` is built into the parameter's struct by
a generated host function (runtime/spec_struct.py), for `run`, `verify` and `verify --hfuse`.
The results are checked against numpy, not only against another run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hfuse_helpers import PROGRAMS, hfuse

from cudafuse.cli import main
from cudafuse.diagnostics import CudafuseError
from cudafuse.runtime.spec import load_spec

STRUCTS = PROGRAMS / "structs"
VIEWS = STRUCTS / "views.cu"


def _spec(tmp_path: Path, arg: str) -> Path:
    p = tmp_path / "s.toml"
    p.write_text('entry = "row_sums"\n[launch]\ngrid = [1]\nblock = [64]\n[[args]]\n'
                 'name = "in"\ndtype = "float32"\ncount = 12\n' + arg)
    return p


def test_a_view_defaults_to_row_major_strides() -> None:
    spec = load_spec(str(STRUCTS / "scale_view.toml"))
    a, b = spec.args[0].tensor, spec.args[1].tensor
    assert (a.sizes, a.strides) == ((9, 13), (13, 1))
    assert (b.sizes, b.strides) == ((9, 13), (1, 9))
    assert spec.args[2].tensor is None


@pytest.mark.parametrize(("arg", "message"), [
    ("tensor = { sizes = [3, 5] }\n", "the view [3, 5] with strides [5, 1] reaches element "
     "14, past the array's 12"),
    ("tensor = { sizes = [3, 4], strides = [4] }\n", "expected 2 strides (one per size)"),
    ("tensor = { sizes = [3, 4], step = 1 }\n", "unknown key(s) step; expected sizes, strides"),
    ("tensor = [3, 4]\n", "expected a table { sizes = [...], strides = [...] }"),
])
def test_a_view_the_array_cannot_hold_is_an_error_at_its_key(tmp_path: Path, arg: str,
                                                             message: str) -> None:
    with pytest.raises(CudafuseError) as exc:
        load_spec(str(_spec(tmp_path, arg)))
    assert "args[0] 'in'.tensor" in str(exc.value) and message in str(exc.value)


def test_run_builds_a_struct_without_a_constructor_over_a_strided_view(
        tmp_path: Path) -> None:
    # Info<...> has public data/sizes/strides/dims and no constructor; `in` is column-major.
    spec = load_spec(str(STRUCTS / "row_sums.toml"))
    x = spec.inputs()[0]
    res = CliRunner().invoke(main, ["run", str(VIEWS), "--spec", str(STRUCTS / "row_sums.toml"),
                                    "--save", str(tmp_path / "o.npz")],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    out = np.load(tmp_path / "o.npz")["out"]
    want = np.full(74, -7, np.float32)
    want[0::2] = x.reshape(5, 37).T.sum(axis=1, dtype=np.float32) * 2  # dims = 2
    np.testing.assert_allclose(out, want, rtol=1e-6)


@pytest.mark.slow  # three emulator builds
@pytest.mark.parametrize("mode", ["thread", "block"])
def test_verify_hfuse_of_struct_kernels(tmp_path: Path, mode: str) -> None:
    out = tmp_path / "f.cu"
    res = hfuse(str(VIEWS), "--kernels", "row_sums,scale_view<float>", "--block1", "64",
                "--block2", "128", "--mode", mode, "-o", str(out))
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(main, [
        "verify", "--hfuse", str(VIEWS), str(VIEWS), str(out), "--spec1",
        str(STRUCTS / "row_sums.toml"), "--spec2", str(STRUCTS / "scale_view.toml")],
        catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "scale_view<float>.b: max abs err 0" in res.output


@pytest.mark.slow
def test_run_builds_an_accessor_by_its_constructor(tmp_path: Path) -> None:
    # Accessor<T, I> takes (data, sizes, strides) with __restrict__ data; b uses int indices
    # and a transposed view.
    spec = load_spec(str(STRUCTS / "scale_view.toml"))
    a = spec.inputs()[0]
    res = CliRunner().invoke(main, ["run", str(VIEWS), "--spec",
                                    str(STRUCTS / "scale_view.toml"), "--save",
                                    str(tmp_path / "o.npz")], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    b = np.load(tmp_path / "o.npz")["b"]
    np.testing.assert_array_equal(b, (1.5 * a.reshape(9, 13)).T.reshape(-1))
