"""Pipelines composed from host wrapper functions that each launch one kernel (wrappers.py):
a call of such a wrapper is a launch of the caller's sequence, in the caller's terms. The
fused programs are compared element by element with the originals under emulation. Calls of
functions that do more than launch one kernel, or that are given a pointer that is not a
plain variable, still split the sequence, with a note saying why."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import fuse_file, nvcc_error, run_both

PROGRAM = Path(__file__).parent / "programs" / "wrappers.cu"
GROUPS = {
    "wr_image": ("wr_blur_k", "wr_sharpen_k"),
    "wr_twice": ("wr_scale_k", "wr_relu_k", "wr_scale_k"),
    "wr_mixed": ("wr_scale_k", "wr_relu_k"),
    "wr_launch_first": ("wr_scale_k", "wr_relu_k"),
}


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("wr") / "fused.cu"
    return out, fuse_file(PROGRAM, out)


def test_wrapper_pipelines_fuse(fused) -> None:
    _, result = fused
    assert {g.host: tuple(g.kernels) for g in result.groups} == GROUPS
    assert not result.breaks


@pytest.mark.parametrize("entry", sorted(GROUPS))
def test_fused_matches_original(fused, entry: str) -> None:
    out, _ = fused
    for w, h in ((37, 19), (5, 3)):
        run_both(PROGRAM, out, entry, w, h)


def test_caller_calls_a_launcher(fused) -> None:
    out, _ = fused
    text = out.read_text()
    # The wrappers stay as they were; the caller calls a copy of the last one.
    original = PROGRAM.read_text()
    for wrapper in ("void blur(", "void sharpen(", "void scale_forward(", "void relu_forward("):
        body = original.split(wrapper)[1].split("\n}\n")[0]
        assert wrapper + body + "\n}\n" in text
    image = text.split("void wr_image(")[1].split("\n}\n")[0]
    assert "/* cudafuse: wr_blur_k fused into cf_wr_image_fused0 */" in image
    # (the earlier call, a copy of 'blur', keeps its check: host/helper_effects.py)
    assert image.index("a copy of 'blur'") < image.index("wr_blur_k fused into") < \
        image.index('CHECK_LAST("blur");') < image.index("cf_wr_image_fused0_launch(")
    assert "cf_wr_image_fused0_launch(src, smooth, dst, w, h, smooth);" in image
    launcher = text.split("static void cf_wr_image_fused0_launch(")[1].split("\n}\n")[0]
    assert "cf_wr_image_fused0<<<g, b>>>(" in launcher
    assert "cudaCheck(cudaGetLastError());" in launcher
    twice = text.split("void wr_twice(")[1].split("\n}\n")[0]
    assert twice.count("cudafuse:") == 3 and "cudaCheck(cudaDeviceSynchronize());" in twice
    assert twice.count("a copy of 'scale_forward'") == 1 and \
        "cudaCheck(cudaGetLastError());" in twice


SPLITS = r"""
#include <cuda_runtime.h>
__global__ void ka(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * 2.0f;
}
__global__ void kb(const float *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] + 1.0f;
}
static int calls = 0;
void a(const float *in, float *t, int n) { ka<<<(n + 127) / 128, 128>>>(in, t, n); }
void b(const float *t, float *out, int n) { kb<<<(n + 127) / 128, 128>>>(t, out, n); }
void two(const float *in, float *t, float *out, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void looped(const float *in, float *t, int n) {
  for (int r = 0; r < 2; ++r) ka<<<(n + 127) / 128, 128>>>(in, t, n);
}
void copies(const float *in, float *t, float *h, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  cudaMemcpy(h, t, n * sizeof(float), cudaMemcpyDeviceToHost);
}
void counted(const float *in, float *t, int n) {
  calls++;
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
}
void halves(const float *in, float *t, int n) {
  n = n / 2;
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
}
void early(const float *in, float *t, int n) {
  if (n == 0) return;
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
}
void over(const float *in, float *t, int n) { ka<<<(n + 127) / 128, 128>>>(in, t, n); }
void over(const float *in, float *t, float n) { ka<<<1, 1>>>(in, t, (int)n); }
template <int B>
void tmpl(const float *in, float *t, int n) { ka<<<(n + B - 1) / B, B>>>(in, t, n); }
void rec(const float *in, float *t, int n) {
  if (n > 1000) rec(in, t, n / 2);
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
}
void c_offset(const float *in, float *t, float *out, int n) { a(in, t + 1, n); b(t, out, n); }
void c_two(const float *in, float *t, float *out, int n) { two(in, t, out, n); b(t, out, n); }
void c_looped(const float *in, float *t, float *out, int n) { looped(in, t, n); b(t, out, n); }
void c_copies(const float *in, float *t, float *out, float *h, int n) {
  copies(in, t, h, n); b(t, out, n); }
void c_counted(const float *in, float *t, float *out, int n) { counted(in, t, n); b(t, out, n); }
void c_halves(const float *in, float *t, float *out, int n) { halves(in, t, n); b(t, out, n); }
void c_early(const float *in, float *t, float *out, int n) { early(in, t, n); b(t, out, n); }
void c_over(const float *in, float *t, float *out, int n) { over(in, t, n); b(t, out, n); }
void c_tmpl(const float *in, float *t, float *out, int n) { tmpl<128>(in, t, n); b(t, out, n); }
void c_rec(const float *in, float *t, float *out, int n) { rec(in, t, n); b(t, out, n); }
"""

WHY = {
    "c_offset": "its argument 't + 1' for pointer parameter 't' is not a plain variable",
    "c_looped": "'looped' launches its kernel inside control flow",
    "c_copies": "'copies' does more than launch its kernel (line 23: its call to 'cudaMemcpy' "
                "touches 't', which may be a buffer the launch of 'ka' at line 22 uses)",
    "c_counted": "'counted' assigns 'calls' (line 26), which a fused call would no longer "
                 "do",
    "c_halves": "'halves' assigns 'n' (line 30), which a fused call would no longer do",
    "c_early": "'early' contains a statement cudafuse does not follow (line 34)",
    "c_over": "'over' is overloaded",
    "c_tmpl": "'tmpl' is a template",
    "c_rec": "'rec' is recursive",
}


def test_calls_that_are_no_wrappers_split(tmp_path: Path) -> None:
    src = tmp_path / "splits.cu"
    src.write_text(SPLITS)
    result = fuse_file(src, tmp_path / "out.cu", fuse_all=True)
    # `two`'s own two launches, and in `c_two` the two its call stands for
    # (test_fuse_helper_calls.py)
    assert [(g.host, g.kernels) for g in result.groups] == [
        ("two", ["ka", "kb"]), ("c_two", ["ka", "kb"])]
    notes = {h: why for h, _, _, why in result.breaks}
    for host, why in WHY.items():
        assert host in notes, (host, sorted(notes))
        prefix = f"launches in '{host}' are not fused across this statement: its call to "
        assert notes[host].startswith(prefix), notes[host]
        assert notes[host].endswith(why), (host, notes[host])


@pytest.mark.nvcc
def test_fused_compiles(fused, tmp_path: Path) -> None:
    out, _ = fused
    assert nvcc_error(out, tmp_path) == ""


# One-launch wrappers of other namespaces, called unqualified through `using namespace
# img;`, through an alias, from a reopened namespace, into a nested and an anonymous one.
NS_PROGRAM = Path(__file__).parent / "programs" / "helpers_multi_ns.cu"
NS_GROUPS = {
    "ns_using": ["ns_blur", "ns_sharpen"],
    "ns_alias": ["ns_blur", "ns_sharpen"],
    "ns_nested": ["ns_blur", "ns_lift"],
    "ns_anon": ["ns_halve", "ns_offset"],
    "inside": ["ns_blur", "ns_sharpen"],
}


@pytest.fixture(scope="module")
def ns_fused(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("wrns") / "fused.cu"
    return out, fuse_file(NS_PROGRAM, out, fuse_all=True)


def test_wrappers_of_other_namespaces_fuse(ns_fused) -> None:
    """The launcher is written in the wrapper's namespace (reopened before the caller), so
    its body's `threads` is img's (a global `threads` makes the name ambiguous outside
    `img`), and the caller names it from the global namespace."""
    out, result = ns_fused
    assert {g.host: g.kernels for g in result.groups} == NS_GROUPS
    # (ns_inside calls img::inside, whose two wrapper calls it stands for since helpers of
    # helpers are followed: a copy of it cannot be written outside namespace img)
    assert not result.breaks and [x for x in result.notes if "left unfused" in x] == [
        "ns_inside: group ['ns_blur', 'ns_sharpen'] left unfused: wrapper 'inside' is "
        "declared in namespace 'img', not where 'ns_inside' is: a copy of it there could "
        "not name what its body names"]
    text = out.read_text()
    name = {g.host: g.name for g in result.groups}
    launcher = (f"namespace img {{\nstatic void {name['ns_using']}_launch(const float *src, "
                "float *dst, int width, int height, ")
    assert launcher in text
    assert f"  ::img::{name['ns_using']}_launch(tmp, dst, w, h, src, tmp);" in text
    assert f"  ::img::{name['ns_alias']}_launch(tmp, dst, w, h, src, tmp);" in text
    assert (f"namespace img {{\nnamespace detail {{\nstatic void {name['ns_nested']}_launch("
            in text)
    assert f"  ::img::detail::{name['ns_nested']}_launch(tmp, dst, w, h, src, tmp);" in text
    assert f"namespace {{\nstatic void {name['ns_anon']}_launch(" in text
    assert f"  ::{name['ns_anon']}_launch(tmp, dst, w, h, src, tmp);" in text
    # (the caller in the wrapper's own namespace: as before, no namespace written)
    inside = text.split("void inside(")[1].split("\n}\n")[0]
    assert f"  {name['inside']}_launch(tmp, dst, w, h, src, tmp);" in inside


@pytest.mark.slow  # (the emulator builds both programs)
@pytest.mark.parametrize("entry", ["ns_using", "ns_alias", "ns_nested", "ns_anon",
                                   "ns_inside"])
def test_wrappers_of_other_namespaces_match(ns_fused, entry: str) -> None:
    out, _ = ns_fused
    for w, h in ((37, 19), (5, 3), (1, 1)):
        run_both(NS_PROGRAM, out, entry, w, h)


NS_REFUSED = r"""
#include <cuda_runtime.h>
namespace img {
const int threads = 64;
__global__ void ka(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * 2.0f;
}
__global__ void kb(const float *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] + 1.0f;
}
void a(const float *in, float *t, int n) { ka<<<(n + threads - 1) / threads, threads>>>(in, t, n); }
void b(const float *t, float *out, int n) {
  kb<<<(n + threads - 1) / threads, threads>>>(t, out, n);
}
}  // namespace img
namespace app {
const int threads = 32;
using namespace img;
void run(const float *in, float *t, float *out, int n) { a(in, t, n); b(t, out, n); }
}  // namespace app
namespace img {
namespace sub {
const int threads = 16;
void run(const float *in, float *t, float *out, int n) { a(in, t, n); b(t, out, n); }
}  // namespace sub
}  // namespace img
"""


def test_wrappers_whose_namespace_cannot_be_reopened(tmp_path: Path) -> None:
    """A launcher for a caller in another namespace (`app`, or one inside the wrapper's,
    each declaring its own `threads`) cannot be written in the wrapper's namespace there,
    nor in the caller's (its `threads` would be the caller's): left unfused, saying so."""
    src = tmp_path / "ns.cu"
    src.write_text(NS_REFUSED)
    out = tmp_path / "out.cu"
    result = fuse_file(src, out, fuse_all=True)
    assert not result.groups
    why = ("run: group ['ka', 'kb'] left unfused: wrapper 'b' is declared in namespace "
           "'img', which cannot be reopened where 'run' is: a copy of it there could not "
           "name what its body names")
    assert result.notes.count(why) == 2, result.notes  # (app::run, img::sub::run)
    assert out.read_text() == NS_REFUSED


@pytest.mark.nvcc
def test_namespace_launchers_compile(ns_fused, tmp_path: Path) -> None:
    out, _ = ns_fused
    assert nvcc_error(out, tmp_path) == ""
