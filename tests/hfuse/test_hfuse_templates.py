"""Template kernels named with their arguments (`--kernels 'box1d<float, 2>,scale<int>'`):
the originals (launched by host wrappers) and the fused launcher on the same inputs, every
output element compared, threads in order and in a seeded random order."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hfuse_helpers import PROGRAMS, fuse_pair, hfuse, library

SRC = PROGRAMS / "templates.cu"


def _run_both(out: Path, first: tuple, second: tuple, fused: str, grids: tuple,
              seed: int | None) -> None:
    """first/second: (wrapper, args) of the originals; the fused launcher gets copies."""
    lib = library(out, seed)
    copies = [tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
              for _, args in (first, second)]
    for wrapper, args in (first, second):
        lib.call(wrapper, *args)
    lib.call(fused, *copies[0], *copies[1], *grids, 0, 0, None)
    for (_, want), got in zip((first, second), copies, strict=True):
        for w, g in zip(want, got, strict=True):
            if isinstance(w, np.ndarray):
                np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("seed", [None, 11])
def test_type_and_value_parameters_with_a_default(tmp_path: Path, seed: int | None) -> None:
    out = fuse_pair(tmp_path / "f.cu", SRC, "box1d<float, 2>", "scale<int>", "128", "64")
    text = out.read_text()
    assert "using cf_tp1_T = float;" in text and "constexpr int cf_tp1_R = 2;" in text
    assert "using cf_tp2_S = cf_tp2_T;" in text  # the default names the earlier parameter
    rng = np.random.default_rng(3)
    n, m = 700, 1000  # not multiples of the blocks: tail threads return after the barrier
    x = rng.standard_normal(n).astype(np.float32)
    _run_both(out, ("run_box1d_f2", (x, np.zeros(n, np.float32), n)),
              ("run_scale_i", (rng.integers(-9, 9, m, dtype=np.int32), 5, m)),
              "box1d_scale_hfused_launch", (((n + 127) // 128,), (3,)), seed)


def test_same_template_twice_with_other_arguments(tmp_path: Path) -> None:
    # Two instantiations of one template in one block: each part has its own aliases.
    out = fuse_pair(tmp_path / "f.cu", SRC, "box1d<float, 2>", "box1d<int, 1>", "128", "128")
    rng = np.random.default_rng(4)
    n1, n2 = 500, 300
    _run_both(out, ("run_box1d_f2", (rng.standard_normal(n1).astype(np.float32),
                                     np.zeros(n1, np.float32), n1)),
              ("run_box1d_i1", (rng.integers(-99, 99, n2, dtype=np.int32),
                                np.zeros(n2, np.int32), n2)),
              "box1d_box1d_hfused_launch", (((n1 + 127) // 128,), ((n2 + 127) // 128,)), 5)


def test_value_parameter_typed_by_a_type_parameter(tmp_path: Path) -> None:
    out = fuse_pair(tmp_path / "f.cu", SRC, "add_bias<int, 7>", "scale<int, int>", "64", "64")
    assert "constexpr cf_tp1_T cf_tp1_Bias = 7;" in out.read_text()
    rng = np.random.default_rng(5)
    n, m = 450, 200
    _run_both(out, ("run_add_bias", (rng.integers(-9, 9, n, dtype=np.int32), n)),
              ("run_scale_i", (rng.integers(-9, 9, m, dtype=np.int32), 5, m)),
              "add_bias_scale_hfused_launch", (((n + 63) // 64,), (3,)), None)


@pytest.mark.parametrize("kernels,what", [
    ("box1d,scale<int>", "kernel 'box1d' is a template: name its arguments"),
    ("box1d<float>,scale<int>", "no argument for template parameter 'R'"),
    ("box1d<float, 2, 3>,scale<int>", "takes 2 template argument(s) <T, R>, not 3"),
    ("run_scale_i<int>,scale<int>", "no kernel named 'run_scale_i'"),
    ("box1d<float, 2>,scale<int>>", "is not a kernel name"),
])
def test_template_argument_errors(tmp_path: Path, kernels: str, what: str) -> None:
    res = hfuse(str(SRC), "--kernels", kernels, "--block1", "128", "--block2", "64",
                "-o", str(tmp_path / "out.cu"))
    assert res.exit_code == 2 and what in res.output, res.output
    assert not (tmp_path / "out.cu").exists()


def test_streams_launcher_of_template_kernels(tmp_path: Path) -> None:
    out = fuse_pair(tmp_path / "f.cu", SRC, "box1d<float, 2>", "scale<int>", "128", "64",
                    "--mode", "streams")
    assert "box1d<cf_tp1_T, cf_tp1_R><<<grid1, dim3(128, 1, 1), smem1, stream>>>" in \
        out.read_text()
    rng = np.random.default_rng(6)
    n, m = 300, 500
    _run_both(out, ("run_box1d_f2", (rng.standard_normal(n).astype(np.float32),
                                     np.zeros(n, np.float32), n)),
              ("run_scale_i", (rng.integers(-9, 9, m, dtype=np.int32), 5, m)),
              "box1d_scale_hfused_launch", (((n + 127) // 128,), (3,)), None)
