"""Kernels using texture or surface objects are listed by analyze and never fused: a texture
reaches memory through an object, so which buffer it reads (perhaps an intermediate that a
fused group would no longer store) is unknown."""

from __future__ import annotations

from pathlib import Path

from cudafuse.analysis.report import build_report
from cudafuse.frontend import parse_file
from cudafuse.passes.vertical.driver import FuseOptions, fuse_unit

PROGRAM = Path(__file__).parent / "programs" / "texture_pipe.cu"


def test_analyze_lists_texture_fetches() -> None:
    report = build_report(parse_file(str(PROGRAM)).unit)
    kernels = {k["name"]: k for k in report["kernels"]}
    assert kernels["sample"]["textures"] == [{"name": "tex2D", "line": 9}]
    assert kernels["produce"]["textures"] == []


def test_a_texture_kernel_is_not_fused() -> None:
    unit = parse_file(str(PROGRAM)).unit
    result = fuse_unit(unit, FuseOptions(fuse_all=True))
    assert result.output == unit.source.data
    (edge,) = result.edges
    assert edge.refused and edge.why == ("not fused: 'sample' uses a texture or surface "
                                         "object ('tex2D', line 9)")


def test_a_users_own_function_named_like_a_fetch_is_an_ordinary_call(tmp_path: Path) -> None:
    src = tmp_path / "own.cu"
    src.write_text("__device__ float tex2D(const float *p, int i) { return p[i]; }\n"
                   "__global__ void k(const float *p, float *q, int n) {\n"
                   "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                   "  if (i < n) q[i] = tex2D(p, i);\n}\n")
    (k,) = build_report(parse_file(str(src)).unit)["kernels"]
    assert k["textures"] == []
