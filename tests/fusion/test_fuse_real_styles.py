"""Guards, loads and parameters as third-party code writes them (programs/real_styles.cu):
two early returns in a row, bounds written `x > w - 1` / `x <= w - 1`, `__ldg(&p[i])`,
`__ldg(p + i)` and `*(p + i)`, size_t sizes (whose view initialiser must not narrow). They
fuse through `api.fuse`, and the original and fused programs run under emulation on the
same garbage, every byte compared. A struct that carries buffers and a store through a
cast to another type must stay as written (both once produced wrong output: the struct's
writes were invisible, so its launch was paired as a sibling; the cast store's int bits
were returned as a float value)."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_with_api, nvcc_error

from cudafuse.frontend import ParseOptions, parse_file
from cudafuse.passes.vertical.kernel.respell import parse_for_fusion, respelled

PROGRAM = Path(__file__).parent / "programs" / "real_styles.cu"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    return fuse_with_api(PROGRAM, tmp_path_factory.mktemp("styles"))


def test_the_styles_fuse(fused) -> None:
    groups = sorted((g.host, tuple(g.kernels)) for g in fused[1].result.groups)
    assert groups == [("around_template", ("gain", "box3")),
                      ("helpers", ("offset_rows", "cross5")),
                      ("mixed", ("gray", "box3", "threshold")),
                      ("mixed_taps", ("gain", "box3", "taps1d")),
                      ("sizes", ("expk", "halve")),
                      ("styles", ("gain", "box3", "square_in_range")),
                      ("zero_border", ("gain", "sobel_zero_border"))]


@pytest.mark.parametrize("entry", ["styles", "refused", "helpers", "mixed", "mixed_short",
                                   "around_template", "mixed_taps", "mixed_pitched",
                                   "zero_border"])
@pytest.mark.parametrize("w, h", [(37, 19), (16, 8), (1, 5), (65, 3)])
def test_the_styles_match(fused, entry: str, w: int, h: int) -> None:
    if entry == "mixed_short" and w * h == 1:
        pytest.skip("n = 0: the original launches an empty grid")
    compare_entry(PROGRAM, fused[0], entry, {"w": w, "h": h},
                  extra={"d_rgb": 3 * w * h, "d_gray": (w + 3) * h, "d_out": (w + 3) * h})


@pytest.mark.parametrize("host", ["mixed_short", "mixed_pitched"])
def test_mixed_dimensions_need_equal_sizes(fused, host: str) -> None:
    """n = w * h - 1, or rows of w + 3 elements: the elements differ, so no fusion."""
    why = next(e.why for e in fused[1].result.edges if e.host == host)
    assert "do not provably have the same iteration space (a 1-D kernel's bound must be " \
           "the 2-D one's width times height" in why


@pytest.mark.parametrize("n", [1, 255, 256, 1000])
def test_size_t_sizes_match(fused, n: int) -> None:
    compare_entry(PROGRAM, fused[0], "sizes", {"n": n})


def test_what_stays_as_written_says_why(fused) -> None:
    result = fused[1].result
    assert not any(g.host == "refused" for g in result.groups)
    assert not [p for p in result.plans if p.host == "refused" for s in p.siblings if s.fused]
    breaks = " | ".join(why for host, _, _, why in result.breaks if host == "refused")
    assert "kernel 'scale_planes' takes 'p' (Planes), which may carry pointers" in breaks
    hidden = " | ".join(why for host, _, _, why in result.breaks if host == "hidden")
    assert "kernel 'blur_symbol' reaches memory through global pointer 'c_src'" in hidden
    assert "kernel 'scale_planes_pp' takes 'planes' (float **), which may carry" in hidden
    assert not any(g.host == "hidden" for g in result.groups)
    assert not [p for p in result.plans if p.host == "hidden" for s in p.siblings if s.fused]
    edges = " | ".join(e.why for e in result.edges if e.host == "refused")
    assert "pointer 'tmp' is accessed as 'int *' (line 80), not as its own element type" \
        in edges


def test_the_respellings(fused) -> None:
    text = respelled(parse_file(str(PROGRAM)).unit)[0].decode()
    assert text.count("\n") == PROGRAM.read_text().count("\n")
    assert "if ((x >= w) || (y >= h)) return;" in text
    assert "tmp[(y * w) + (x)] = k * in[y * w + x];" in text
    assert "s += tmp[(min(max(y + dy, 0), h - 1) * w) + (min(max(x + dx, 0), w - 1))];" in text
    assert "float v = tmp[y * w + x];" in text
    assert "if (t[" not in text  # (a data test is no bounds guard: see the golden refusals)
    final = parse_for_fusion(str(PROGRAM), ParseOptions())[0].unit.source.data.decode()
    assert final.count("\n") == text.count("\n")
    assert "const int x = blockIdx.x * blockDim.x + threadIdx.x;\n  const int y = blockIdx.y * " \
        "blockDim.y + threadIdx.y; if ((x >= w) || (y >= h)) return;" in final
    # The row pointer, and the index helper (a helper's helpers take one round each):
    assert "tmp[((y * w)) + (x)] = in[(y * w + x)] - 0.25f;" in final
    assert "if (!(x < w && y < h)) return;" in final
    assert "out[(y * w + x)] = 0.2f * s;" in final
    assert "fetch(tmp, x - 1, y, w, h)" in final  # (handed a pointer: gets an overload)
    notes = [d.message for d in fused[1].diagnostics]
    assert "kernel 'gain': 2 early returns in a row read as one bounds guard" in notes


def test_parameters_that_carry_pointers() -> None:
    unit = parse_file(str(PROGRAM)).unit
    held = {(k.name, p.name): p.holds_pointers for k in unit.kernels for p in k.params}
    assert held[("scale_planes", "p")] and not held[("scale_planes", "w")]
    assert not held[("box3", "tmp")]  # a pointer is tracked, not hidden


@pytest.mark.nvcc
def test_the_fused_program_compiles(fused, tmp_path: Path) -> None:
    assert nvcc_error(fused[0], tmp_path) == ""
