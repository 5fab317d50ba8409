"""Helpers that call helpers that launch, and helpers whose status is checked (issue 25,
session 11; host/wrappers.py, emit/helper_calls.py). A call stands for the launches of the
helpers it reaches through top-level calls (MAX_DEPTH levels down), in order and in the
caller's terms; a statement that runs the call first and then only looks at its value
(`NH_TRY(stage(...))`, `if (stage(...) != cudaSuccess) ...`, `cudaError_t e = stage(...)`,
`return stage(...)`) stands for it too. The call becomes a copy of the helper written at the
call site, with a copy of each inner helper written in it at its call. The fused programs
are compared element by element with the originals under emulation at odd sizes; a buffer
given for two parameters at a call two levels up leaves the group unfused, with the call
named."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import fuse_file, nvcc_error, run_both

PROGRAM = Path(__file__).parent / "programs" / "hosthelp_nested.cu"
# entry -> the kernels its one group takes (fuse-all)
CALLERS = {
    "nh_pipeline": ("nh_offset", "nh_box_h", "nh_box_v", "nh_offset"),  # two levels, void
    "nh_enhance": ("nh_box_h", "nh_sharp", "nh_clip"),  # statuses: macro, returned
    "nh_checked": ("nh_box_h", "nh_box_v", "nh_clip"),  # if (...) != cudaSuccess, a decl
    "nh_aliased": ("nh_box_h", "nh_box_v"),  # its first call only (the second aliases)
    "nh_validated": ("nh_box_h", "nh_offset"),  # a loop of host code in the helper
}


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("nh") / "fused.cu"
    return out, fuse_file(PROGRAM, out, fuse_all=True)


def test_launches_through_two_levels_fuse(fused) -> None:
    _, result = fused
    groups = {g.host: tuple(g.kernels) for g in result.groups}
    for host, kernels in CALLERS.items():
        assert groups.get(host) == kernels, host
    assert not result.breaks


def _function(text: str, head: str) -> str:
    return text.split(head)[1].split("\n}\n")[0]


def test_copies_nest(fused) -> None:
    out, result = fused
    text = out.read_text()
    name = {g.host: g.name for g in result.groups}
    pipeline = _function(text, "void nh_pipeline(")
    # the copy of 'denoise' holds a copy of each of its helpers, the check between them kept
    assert pipeline.count("/* cudafuse: a copy of 'denoise' */") == 1
    assert pipeline.index("a copy of 'box_rows'") < pipeline.index("NH_TRY(cudaGetLastError())") \
        < pipeline.index("a copy of 'box_cols'")
    assert "denoise(" not in pipeline.replace("a copy of 'denoise'", "")
    assert f"{name['nh_pipeline']}<<<grd, blk>>>(" in pipeline
    # in a macro's argument the copy is parenthesised; a returned status keeps its type
    enhance = _function(text, "void nh_enhance(")
    assert "NH_TRY((/* cudafuse: a copy of 'sharpen_stage' */ [](" in enhance
    assert "return /* cudafuse: a copy of 'clip_stage' */ [](" in enhance
    assert ") -> cudaError_t {" in enhance
    checked = _function(text, "void nh_checked(")
    assert "if (/* cudafuse: a copy of 'smooth_checked' */ [](" in checked
    assert "cudaError_t e = /* cudafuse: a copy of 'clip_stage' */ [](" in checked
    # the helpers' definitions stay for their other callers
    for head in ("void box_rows(", "cudaError_t sharpen_stage(", "void nh_chain("):
        assert head + _function(PROGRAM.read_text(), head) in text


def test_aliasing_two_levels_up_refuses(fused) -> None:
    _, result = fused
    # nh_chain(a, b, b, w, h) gives one buffer for 'mid' and 'dst', which denoise's helpers
    # write and read: the groups of nh_chain and denoise (whose own call passes them on)
    # stay unfused, the call named
    for host, params in (("nh_chain", "'mid' and 'dst'"), ("denoise", "'dst' and 'mid'")):
        note = next(x for x in result.notes if x.startswith(f"{host}: "))
        assert "left unfused: 'nh_chain' is called at line 110 with 'b' for both " + \
            params in note
    aliased = _function(fused[0].read_text(), "void nh_aliased(")
    assert aliased.rstrip().endswith("nh_chain(a, b, b, w, h);")


@pytest.mark.slow  # (the emulator builds both programs: about 30 s)
@pytest.mark.parametrize("mode", ["fuse_all", "default"])
def test_fused_matches_original(fused, tmp_path: Path, mode: str) -> None:
    out, _ = fused
    if mode == "default":
        out = tmp_path / "default.cu"
        result = fuse_file(PROGRAM, out)
        assert {g.host for g in result.groups} & set(CALLERS)
    for entry in CALLERS:
        for w, h in ((37, 19), (5, 3), (1, 1)):
            run_both(PROGRAM, out, entry, w, h, garbage=True)


@pytest.mark.nvcc
def test_fused_compiles(fused, tmp_path: Path) -> None:
    out, _ = fused
    assert nvcc_error(out, tmp_path) == ""


REFUSALS = r"""
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
__global__ void ka(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * 2.0f;
}
__global__ void kb(const float *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] + 1.0f;
}
cudaError_t s1(const float *in, float *t, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  return cudaGetLastError();
}
cudaError_t s2(const float *in, float *t, int n) { return s1(in, t, n); }
cudaError_t s3(const float *in, float *t, int n) { return s2(in, t, n); }
cudaError_t s4(const float *in, float *t, int n) { return s3(in, t, n); }
cudaError_t s5(const float *in, float *t, int n) { return s4(in, t, n); }
cudaError_t s6(const float *in, float *t, int n) { return s5(in, t, n); }
void c_deep(const float *in, float *t, float *out, int n) {
  s6(in, t, n); kb<<<(n + 127) / 128, 128>>>(t, out, n); }
void c_copied(const float *in, float *t, float *out, float *h, int n) {
  if (s1(in, t, n) != cudaSuccess) cudaMemcpy(h, t, 4, cudaMemcpyDeviceToHost);
  kb<<<(n + 127) / 128, 128>>>(t, out, n); }
void c_maybe(const float *in, float *t, float *out, int n, bool on) {
  if (on && s1(in, t, n) != cudaSuccess) exit(1);
  kb<<<(n + 127) / 128, 128>>>(t, out, n); }
void rounds(const float *in, float *t, int n) {
  for (int r = 0; r < 2; ++r) s1(in, t, n);
}
void c_rounds(const float *in, float *t, float *out, int n) {
  rounds(in, t, n); kb<<<(n + 127) / 128, 128>>>(t, out, n); }
void inner_offset(const float *in, float *t, int n) { s1(in, t + 1, n); }
void c_inner_offset(const float *in, float *t, float *out, int n) {
  inner_offset(in, t, n); kb<<<(n + 127) / 128, 128>>>(t, out, n); }
"""


def _line(fragment: str) -> int:
    return next(i for i, t in enumerate(REFUSALS.split("\n"), 1) if fragment in t)


WHY = {
    "c_deep": f"its call to 's3' (line {_line('cudaError_t s4(')}): 's3' calls 's2' (line "
              f"{_line('cudaError_t s3(')}), a helper 5 levels below the caller: cudafuse "
              "follows helpers 4 levels deep",
    "c_copied": "the code checking its value: its call to 'cudaMemcpy' touches 't', which "
                "may be a buffer the launch of 'ka'",
    "c_rounds": f"'rounds' launches kernels inside a loop (line {_line('for (int r = 0')}), "
                "a sequence of their own that a call cannot stand for",
    "c_inner_offset": f"its call to 's1' (line {_line('void inner_offset(')}): its argument "
                      "'t + 1' for pointer parameter 't' is not a plain variable",
}


def test_refusals_are_located(tmp_path: Path) -> None:
    src = tmp_path / "refusals.cu"
    src.write_text(REFUSALS)
    result = fuse_file(src, tmp_path / "out.cu", fuse_all=True)
    notes = {h: (line, why) for h, line, _, why in result.breaks}
    for host, why in WHY.items():
        line, note = notes[host]
        assert line == _line(f"void {host}(") + 1, host  # (the call's line)
        assert note.startswith(f"launches in '{host}' are not fused across this statement: "
                               "its call to "), note
        assert why in note, (host, note)
    # a call under `&&` runs on some paths only: no statement stands for it
    assert not {g.host for g in result.groups} & {*WHY, "c_maybe"}
