"""Stores through void device helpers (issue 25, session 10; the held-out survey's unsharp
mask stores each pixel in `pixel_average(out, in, x, y, ...)`): a call statement of such a
helper is read as the helper's body at the call (kernel/respell/void_helpers.py), its
arguments substituted when they are the kernel's variables, bound to a local first when
they are expressions, the helper's locals renamed when they would capture an argument
(`box(s, o, ...)` with a local `s` in `box`). A helper that returns early or changes its
parameter stays a call. Original and fused programs run under emulation on the same
garbage, every byte of every buffer compared, at odd sizes."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

from cudafuse.frontend import ParseOptions
from cudafuse.passes.vertical.kernel.respell import parse_for_fusion

PROGRAM = Path(__file__).parent / "programs" / "void_helpers_s10.cu"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("void_helpers") / "fused.cu"
    return out, fuse_file(PROGRAM, out, fuse_all=True)


def test_helper_stores_fuse(fused) -> None:
    _, result = fused
    groups = {tuple(g.kernels) for g in result.groups}
    assert ("scale", "blur", "blur_braced") in groups
    assert ("average", "average") in groups
    assert not any("positive" in g or "shifted" in g for g in groups)


def test_respelled_bodies() -> None:
    parsed, written = parse_for_fusion(str(PROGRAM), ParseOptions())
    assert written is not None
    text = parsed.unit.source.data.decode()
    assert text.count("\n") == written.decode().count("\n")
    kernels = text[text.index("__global__ void scale"):]
    # an expression argument is evaluated once, first; a variable is used by name
    assert "{ float v_ = (in[y * w + x] * 2.0f - 0.5f); t[y * w + x] = v_; }" in kernels
    # box's local s would capture the argument s: renamed; the braced branch gives its braces
    braced = kernels[kernels.index("void blur_braced"):kernels.index("void average")]
    assert "float s_ = 0.0f;" in braced and "s[y * w + x] = s_ / 9.0f;" in braced
    assert "{ {" not in braced
    # early return, changed parameter: calls as written
    assert "put_positive(o, i, t[i]);" in kernels and "put_shifted(o, i, t[i]);" in kernels


@pytest.mark.slow
@pytest.mark.parametrize("w,h", ((37, 19), (1, 5), (17, 2)))
@pytest.mark.parametrize("entry", ["smooth", "soften", "kept"])
def test_fused_matches_original(fused, entry: str, w: int, h: int) -> None:
    path, _ = fused
    extra = {"in": 3 * w * h, "a": 3 * w * h, "b": 3 * w * h} if entry == "soften" else None
    compare_entry(PROGRAM, path, entry, {"w": w, "h": h}, extra=extra)
