"""A kernel template with an explicit specialization, as mmcv writes its sync-BN kernels
(programs/mmcv/specialized.cu, written for these tests in that style): one name found two
kernel definitions and `--kernels NAME<float>` was refused with "names 2 kernels; qualify
it", which no qualifier could fix. `NAME<float>` is now the primary template and
`NAME<phalf>` the `template <>` specialization for phalf, as the launches run them
(passes/horizontal/specializations.py); an argument that is a typedef (real_t) is
resolved as the file resolves it, and one that names no type is a located error."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hfuse_helpers import PROGRAMS, hfuse, library

SRC = PROGRAMS / "mmcv" / "specialized.cu"


def _fuse(tmp_path: Path, first: str, mode: str = "thread"):
    out = tmp_path / f"{mode}.cu"
    res = hfuse(str(SRC), "--kernels", f"{first},scale_shift<float>", "--block1", "128",
                "--block2", "256", "--mode", mode, "-o", str(out))
    return res, out


@pytest.mark.parametrize(("arg", "param"), [("float", "const cf_tp1_T *cf_p1_input"),
                                            ("phalf", "const phalf *cf_p1_input"),
                                            ("halfbits", "const phalf *cf_p1_input"),
                                            ("real_t", "const cf_tp1_T *cf_p1_input")])
def test_the_named_arguments_choose_primary_or_specialization(tmp_path: Path, arg: str,
                                                              param: str) -> None:
    res, out = _fuse(tmp_path, f"channel_sum<{arg}>")
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert param in text
    assert ("2.0f * __half2float" in text.split("__global__ void __launch_bounds__")[-1]) \
        == (arg in ("phalf", "halfbits"))


def test_an_argument_that_cannot_be_told_apart_is_a_located_error(tmp_path: Path) -> None:
    # real_tt names no type in the file: nothing tells which kernel it would run.
    res, out = _fuse(tmp_path, "channel_sum<real_tt>")
    assert res.exit_code == 2 and not out.exists()
    assert f"{SRC}:38:17: error: cannot tell whether 'channel_sum<real_tt>'" in res.output


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["thread", "block"])
@pytest.mark.parametrize("arg", ["float", "phalf"])
def test_specialized_pair_matches_the_originals(tmp_path: Path, mode: str, arg: str) -> None:
    res, out = _fuse(tmp_path, f"channel_sum<{arg}>", mode)
    assert res.exit_code == 0, res.output
    rng = np.random.default_rng(4)
    num, channels, spatial, n = 3, 5, 70, 900
    values = rng.uniform(-1, 1, num * channels * spatial).astype(np.float32)
    x = values.astype(np.float16).view(np.uint16) if arg == "phalf" else values
    y_in = rng.standard_normal(n).astype(np.float32)
    want_sum, got_sum = np.zeros(channels, np.float32), np.zeros(channels, np.float32)
    want_y, got_y = np.zeros(n, np.float32), np.zeros(n, np.float32)
    lib = library(out)
    lib.call("sum_halves" if arg == "phalf" else "sum_floats", x, want_sum, num, channels,
             spatial)
    lib.call("scale_floats", n, y_in, want_y, np.float32(1.5), np.float32(-0.25))
    lib.call("channel_sum_scale_shift_hfused_launch", x, got_sum, num, spatial, n, y_in, got_y,
             np.float32(1.5), np.float32(-0.25), (channels,), ((n + 255) // 256,), 0, 0, None)
    np.testing.assert_array_equal(got_sum, want_sum)
    np.testing.assert_array_equal(got_y, want_y)
