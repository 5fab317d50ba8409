"""Template arguments that are typedefs of a class template's specializations
(programs/typedefs/vec_norms.cu, written in the style of OpenCV's Vec3f / Eigen's Vector3f):
`--kernels 'sq_norm<Vec3f>'` where the file's `template <>` specialization is written
`sq_norm(const Vec<float, 3> *...)` was refused ("cannot tell whether ... is the primary
template or the explicit specialization"), as was any class type the specialization does not
spell. The arguments are now resolved as the file resolves them (clang, in the kernel's
namespaces: passes/horizontal/specializations.py), and the fused kernel runs the kernel the
launch `sq_norm<Vec3f>` runs; a kernel whose signature is written with the typedefs fuses
too."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hfuse_helpers import PROGRAMS, hfuse, library

SRC = PROGRAMS / "typedefs" / "vec_norms.cu"


def _fuse(tmp_path: Path, first: str, mode: str = "thread") -> tuple[int, str, str]:
    out = tmp_path / f"{mode}.cu"
    res = hfuse(str(SRC), "--kernels", f"{first},translate", "--block1", "128", "--block2",
                "64", "--mode", mode, "-o", str(out))
    return res.exit_code, res.output, out.read_text() if out.exists() else ""


@pytest.mark.parametrize(("arg", "specialized"), [
    ("Vec3f", True), ("geo::Vec3f", True), ("Point3", True), ("Vec2f", False),
    ("Vec<float, 2>", False)])
def test_typedef_arguments_choose_as_the_launch_does(tmp_path: Path, arg: str,
                                                     specialized: bool) -> None:
    code, output, text = _fuse(tmp_path, f"sq_norm<{arg}>")
    assert code == 0, output
    fused = text.split("__global__ void __launch_bounds__")[-1]
    assert ("0.5f *" in fused) == specialized


def test_an_argument_naming_no_type_is_still_a_located_error(tmp_path: Path) -> None:
    code, output, text = _fuse(tmp_path, "sq_norm<Vec4f>")
    assert code == 2 and not text
    assert f"{SRC}:30:17: error: cannot tell whether 'sq_norm<Vec4f>'" in output
    assert "('Vec4f' names no type in the kernel's namespaces)" in " ".join(output.split())


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["thread", "block"])
def test_fused_typedef_pair_matches_the_originals(tmp_path: Path, mode: str) -> None:
    code, output, _ = _fuse(tmp_path, "sq_norm<Vec3f>", mode)
    assert code == 0, output
    rng = np.random.default_rng(7)
    n3, n = 300, 200
    vecs = rng.uniform(-2, 2, 3 * n3).astype(np.float32)
    pts = rng.uniform(-5, 5, 3 * n).astype(np.float32)
    want_norm, got_norm = np.full(n3, -7, np.float32), np.full(n3, -7, np.float32)
    want_pts, got_pts = pts.copy(), pts.copy()
    lib = library(tmp_path / f"{mode}.cu")
    lib.call("norms3", vecs, want_norm, n3)
    lib.call("shift", want_pts, np.float32(0.5), np.float32(-1), np.float32(2), n)
    lib.call("sq_norm_translate_hfused_launch", vecs, got_norm, n3, got_pts,
             np.array([0.5, -1, 2], np.float32), n, ((n3 + 127) // 128,), ((n + 63) // 64,),
             0, 0, None)
    np.testing.assert_array_equal(got_norm, want_norm)
    np.testing.assert_array_equal(got_pts, want_pts)
    assert want_norm[0] == np.float32(0.5) * np.float32(
        vecs[0] * vecs[0] + vecs[1] * vecs[1] + vecs[2] * vecs[2])
