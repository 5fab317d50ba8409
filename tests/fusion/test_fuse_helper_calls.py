"""Calls of host helpers that launch several kernels in a row (host/wrappers.py,
emit/helper_calls.py; issue 25): a call stands for the helper's launches, in order, in the
caller's sequence and in the caller's terms, so they fuse with each other, with the
caller's launches around the call and with the next helper's; the call then becomes a
copy of the helper written at the call site. The fused programs are compared element by
element with the originals under emulation (odd sizes); what cudafuse cannot follow in a
helper splits the caller's sequence with a located note."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import fuse_file, nvcc_error, run_both

PROGRAM = Path(__file__).parent / "programs" / "helpers_multi.cu"
SMOOTH = ("hm_rows", "hm_cols")
CALLERS = {
    "hm_around": ("hm_scale", *SMOOTH, "hm_scale"),  # (a) the caller's launch before, after
    "hm_chain": (*SMOOTH, "hm_grad", "hm_thresh"),  # (b) two helpers in turn
    "hm_twice": (*SMOOTH, *SMOOTH),  # (c) one helper, two calls, other buffers
    "hm_status": (*SMOOTH, "hm_scale"),  # a status nobody reads
    "hm_then_wrapper": (*SMOOTH, "hm_scale"),  # ending in a one-launch wrapper's call
    "hm_partial": ("hm_scale", "hm_grad"),  # the helper's second launch stays
    "hm_stream": ("hm_affine", "hm_blend", "hm_affine"),  # a stream, cudaLaunchKernel
}
# The helpers' own launches fuse in their own definitions too.
HELPERS = {"smooth": SMOOTH, "edges": ("hm_grad", "hm_thresh"), "smooth_status": SMOOTH,
           "stage": ("hm_affine", "hm_blend")}


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("hm") / "fused.cu"
    return out, fuse_file(PROGRAM, out, fuse_all=True)


def test_helper_launches_fuse(fused) -> None:
    _, result = fused
    assert sorted((g.host, tuple(g.kernels)) for g in result.groups) == \
        sorted({**CALLERS, **HELPERS}.items())
    assert not result.breaks
    assert not [x for x in result.notes if "left unfused" in x]


def _function(text: str, head: str) -> str:
    return text.split(head)[1].split("\n}\n")[0]


def test_call_becomes_a_copy(fused) -> None:
    out, result = fused
    text, original = out.read_text(), PROGRAM.read_text()
    # The helpers' definitions stay for their other callers (the ones whose own launches
    # fuse are rewritten in place, as any host function's).
    for head in ("void grad_peaks(", "void scale_one("):
        assert head + _function(original, head) in text
    name = {g.host: g.name for g in result.groups}
    around = _function(text, "void hm_around(")
    # the caller's first launch goes, the helper's two go from its copy, the caller's last
    # launch starts the fused kernel with the buffers the copy no longer gets
    assert f"/* cudafuse: hm_scale fused into {name['hm_around']} */" in around
    assert "/* cudafuse: a copy of 'smooth' */ [](const float *src, float *tmp, float *dst, " \
        "int width, int height) {" in around
    assert around.count(f"fused into {name['hm_around']} */") == 3
    assert around.count("HM_CHECK(cudaGetLastError());") == 2  # (what it did between them)
    assert f"{name['hm_around']}<<<grd, blk>>>(" in around
    assert "smooth(" not in around.replace("a copy of 'smooth'", "")
    # (c): two copies, the second starting the fused kernel in the helper's own terms and
    # given the first call's buffers as extra arguments
    twice = _function(text, "void hm_twice(")
    fz = name["hm_twice"]
    assert twice.count("a copy of 'smooth'") == 2
    assert f"{fz}<<<grid, block>>>(dst, width, height, {fz}_x0, {fz}_x1, {fz}_x2, " \
        f"{fz}_x3);" in twice
    assert "}(a, t2, y, w, h, x, t1, a, t2);" in twice
    # a status nobody reads: the copy still returns it
    assert "return cudaGetLastError();\n  }(x, t, a, w, h);" in _function(text, "void hm_status(")
    # the launch no group takes stays in the copy as written
    partial = _function(text, "void hm_partial(")
    assert "hm_colmax<<<(w + 127) / 128, 128>>>(mag, peak, w, h);" in partial
    assert f"{name['hm_partial']}<<<g, b>>>(mag, w, h, " in partial


@pytest.mark.slow  # (the emulator builds both programs: about 30 s)
@pytest.mark.parametrize("mode", ["fuse_all", "default"])
def test_fused_matches_original(fused, tmp_path: Path, mode: str) -> None:
    out, _ = fused
    if mode == "default":  # (the cost model's groups: each helper's launches together)
        out = tmp_path / "default.cu"
        result = fuse_file(PROGRAM, out)
        assert {g.host for g in result.groups} & set(CALLERS)
    for entry in CALLERS:
        for w, h in ((37, 19), (5, 3), (1, 1)):
            run_both(PROGRAM, out, entry, w, h)


@pytest.mark.nvcc
def test_fused_compiles(fused, tmp_path: Path) -> None:
    out, _ = fused
    assert nvcc_error(out, tmp_path) == ""


REFUSALS = r"""
#include <cstdlib>
#include <cstring>
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
void two(const float *in, float *t, float *out, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void looped(const float *in, float *t, float *out, int n) {
  for (int r = 0; r < 2; ++r) ka<<<(n + 127) / 128, 128>>>(in, t, n);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void counting(const float *in, float *t, float *out, int n) {
  float host[4];
  for (int k = 0; k < 4; ++k) host[k] = 0.0f;
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void early(const float *in, float *t, float *out, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  if (n < 2) return;
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void halves(const float *in, float *t, float *out, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  n = n / 2;
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void counted(const float *in, float *t, float *out, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  calls += 1;
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void copies(const float *in, float *t, float *out, float *h, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  cudaMemcpy(h, t, n * sizeof(float), cudaMemcpyDeviceToHost);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void scratch(const float *in, float *out, int n) {
  float *t;
  cudaMalloc(&t, n * sizeof(float));
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
  cudaFree(t);
}
static float **g_tab;
static void alloc_tab(int n) {
  g_tab = (float **)malloc(2 * sizeof(float *));
  for (int i = 0; i < 2; i++) cudaMalloc((void **)&g_tab[i], n * sizeof(float));
}
static void tabled(const float *in, float *out, int n, int k) {
  ka<<<(n + 127) / 128, 128>>>(in, g_tab[k], n);
  kb<<<(n + 127) / 128, 128>>>(g_tab[k], out, n);
}
void late(const float *in, float *t, float *out, int n);
void c_offset(const float *in, float *t, float *out, float *y, int n) {
  two(in, t + 1, out, n); kb<<<(n + 127) / 128, 128>>>(out, y, n); }
void c_looped(const float *in, float *t, float *out, float *y, int n) {
  looped(in, t, out, n); kb<<<(n + 127) / 128, 128>>>(out, y, n); }
void c_counting(const float *in, float *t, float *out, float *y, int n) {
  counting(in, t, out, n); kb<<<(n + 127) / 128, 128>>>(out, y, n); }
void c_early(const float *in, float *t, float *out, float *y, int n) {
  early(in, t, out, n); kb<<<(n + 127) / 128, 128>>>(out, y, n); }
void c_halves(const float *in, float *t, float *out, float *y, int n) {
  halves(in, t, out, n); kb<<<(n + 127) / 128, 128>>>(out, y, n); }
void c_counted(const float *in, float *t, float *out, float *y, int n) {
  counted(in, t, out, n); kb<<<(n + 127) / 128, 128>>>(out, y, n); }
void c_copies(const float *in, float *t, float *out, float *h, float *y, int n) {
  copies(in, t, out, h, n); kb<<<(n + 127) / 128, 128>>>(out, y, n); }
void c_scratch(const float *in, float *out, float *y, int n) {
  scratch(in, out, n); kb<<<(n + 127) / 128, 128>>>(out, y, n); }
void c_tabled(const float *in, float *out, float *y, int n) {
  alloc_tab(n); tabled(in, out, n, 1); kb<<<(n + 127) / 128, 128>>>(out, y, n); }
void c_late(const float *in, float *t, float *out, float *y, int n) {
  late(in, t, out, n); kb<<<(n + 127) / 128, 128>>>(out, y, n); }
void late(const float *in, float *t, float *out, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
"""



def _line(fragment: str) -> int:
    """The line of REFUSALS (as a file) that holds `fragment` first."""
    return next(i for i, t in enumerate(REFUSALS.split("\n"), 1) if fragment in t)


WHY = {
    "c_offset": "its argument 't + 1' for pointer parameter 't' is not a plain variable",
    "c_looped": "'looped' launches a kernel inside control flow "
                f"(line {_line('for (int r = 0')})",
    "c_early": "'early' contains a statement cudafuse does not follow "
               f"(line {_line('if (n < 2) return;')})",
    "c_halves": f"'halves' assigns 'n' (line {_line('n = n / 2;')}), which a fused call "
                "would no longer do",
    "c_counted": f"'counted' assigns 'calls' (line {_line('calls += 1;')}), which a fused "
                 "call would no longer do",
    "c_copies": f"'copies' does more than launch its kernels (line {_line('cudaMemcpy(h')}: "
                "its call to 'cudaMemcpy' touches 't', which may be a buffer the launch of "
                f"'ka' at line {_line('cudaMemcpy(h') - 1} uses)",
    # (host/ownmemory.py: a buffer of its own given to its launches; session 12)
    "c_scratch": f"'scratch' gives its launches 't', a buffer it allocates (line "
                 f"{_line('cudaMalloc(&t')}) and frees (line {_line('cudaFree(t)')}) itself: "
                 "it has no name in the caller, where launches are fused across the call, and "
                 "a launch of it moved to a later launch of the caller would use it freed",
    # (host/table_elements.py: `g_tab[k]` at the wrapper's k is no buffer of the caller's)
    "c_tabled": "'tabled' passes 'g_tab[k]', an element of a table of buffers, to pointer "
                "parameter 't' of 'ka'",
}


def test_refusals_are_located(tmp_path: Path) -> None:
    src = tmp_path / "refusals.cu"
    src.write_text(REFUSALS)
    out = tmp_path / "out.cu"
    result = fuse_file(src, out, fuse_all=True)
    notes = {h: (line, why) for h, line, _, why in result.breaks}
    for host, why in WHY.items():
        line, note = notes[host]
        assert line == _line(f"void {host}(") + 1, host  # (the call's line)
        assert note.startswith(f"launches in '{host}' are not fused across this statement: "
                               "its call to "), note
        assert note.endswith(why), (host, note)
    # A helper defined after its caller is followed, but its copy cannot be written at the
    # call (what it uses may be declared after the caller): the group is left unfused.
    assert "c_late: group ['ka', 'kb', 'kb'] left unfused: wrapper 'late' is defined " \
        "after 'c_late'" in result.notes
    assert "void c_late(const float *in, float *t, float *out, float *y, int n) {\n  " \
        "late(in, t, out, n); kb<<<" in out.read_text()
    callers = {g.host for g in result.groups}
    assert not callers & set(WHY) and "c_late" not in callers
    # a loop of host code that only fills the helper's own array is judged by what it
    # touches, as any statement (session 11): 'counting' is a wrapper
    assert "c_counting" in callers


NAMESPACES = r"""
#include <cuda_runtime.h>
namespace img {
__global__ void ka(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * 2.0f;
}
__global__ void kb(const float *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] + 1.0f;
}
const int threads = 128;
void two(const float *in, float *t, float *out, int n) {
  ka<<<(n + threads - 1) / threads, threads>>>(in, t, n);
  kb<<<(n + threads - 1) / threads, threads>>>(t, out, n);
}
}  // namespace img
void outside(const float *in, float *t, float *u, float *out, int n) {
  img::two(in, t, u, n);
  img::kb<<<(n + 127) / 128, 128>>>(u, out, n);
}
namespace img {
void inside(const float *in, float *t, float *u, float *out, int n) {
  img::two(in, t, u, n);
  kb<<<(n + 127) / 128, 128>>>(u, out, n);
}
}  // namespace img
"""


def test_copy_only_in_the_helpers_namespace(tmp_path: Path) -> None:
    """The copy names what the helper's body names unqualified (`ka`, `threads`): it is
    written only in the helper's own namespace (a qualified call there is no macro)."""
    src = tmp_path / "ns.cu"
    src.write_text(NAMESPACES)
    out = tmp_path / "out.cu"
    result = fuse_file(src, out, fuse_all=True)
    assert ("inside", ["ka", "kb", "kb"]) in [(g.host, g.kernels) for g in result.groups]
    assert "outside: group ['ka', 'kb', 'kb'] left unfused: wrapper 'two' is declared in " \
        "namespace 'img', not where 'outside' is: a copy of it there could not name what its " \
        "body names" in result.notes
    text = out.read_text()
    assert "  img::two(in, t, u, n);\n  img::kb<<<" in text
    assert "/* cudafuse: a copy of 'two' */ [](const float *in, float *t, float *out, " \
        "int n) {" in text


SHADOWED = r"""
#include <cuda_runtime.h>
__global__ void ka(const float *in, float *t, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * 2.0f + k;
}
__global__ void kb(const float *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] + 1.0f;
}
const int shift = 1;
void two(const float *in, float *t, float *out, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n, shift);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void one(const float *in, float *t, int n) { ka<<<(n + 127) / 128, 128>>>(in, t, n, shift); }
void shadowed(const float *in, float *t, float *u, float *out, int n) {
  const int shift = 5;
  two(in, t, u, n);
  kb<<<(n + 127) / 128, 128>>>(u, out, n);
  ka<<<(n + 127) / 128, 128>>>(in, t, n, shift);
}
void shadowed_one(const float *in, float *t, float *out, int n) {
  const int shift = 5;
  one(in, t, n);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
  ka<<<(n + 127) / 128, 128>>>(in, t, n, shift);
}
void plain(const float *in, float *t, float *u, float *out, int n) {
  two(in, t, u, n);
  kb<<<(n + 127) / 128, 128>>>(u, out, n);
}
"""


def test_a_name_the_caller_hides_is_refused(tmp_path: Path) -> None:
    """A helper's launch passing a global (`shift`) is read in the caller's terms, and the
    fused kernel's arguments are written in the caller: where the caller's own `shift`
    hides the global, that text would pass the caller's 5 for the helper's 1 (it did: every
    element of `u` differed). The call splits the sequence, saying so."""
    src = tmp_path / "shadowed.cu"
    src.write_text(SHADOWED)
    result = fuse_file(src, tmp_path / "out.cu", fuse_all=True)
    assert ("plain", ["ka", "kb", "kb"]) in [(g.host, g.kernels) for g in result.groups]
    assert not {g.host for g in result.groups} & {"shadowed", "shadowed_one"}
    notes = {h: (line, why) for h, line, _, why in result.breaks}
    for host, fn in (("shadowed", "two"), ("shadowed_one", "one")):
        line = SHADOWED.split("\n").index(f"void {host}(const float *in, float *t, " +
                                          ("float *u, " if fn == "two" else "") +
                                          "float *out, int n) {") + 1
        assert notes[host][0] == line + 2  # (the call's line)
        assert notes[host][1].endswith(f"'{fn}' passes 'shift' to 'ka', which in '{host}' "
                                       f"names its own 'shift' (line {line + 1})"), notes[host]


@pytest.mark.slow  # (the emulator builds both programs)
def test_a_name_the_caller_hides_matches(tmp_path: Path) -> None:
    src = tmp_path / "shadowed.cu"
    src.write_text(SHADOWED)
    out = tmp_path / "out.cu"
    fuse_file(src, out, fuse_all=True)
    for entry in ("shadowed", "shadowed_one", "plain"):
        for n in (37, 1, 129):
            run_both(src, out, entry, n, 1)


HIDDEN = r"""
#include <cuda_runtime.h>
__global__ void ka(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * 2.0f;
}
__global__ void kb(const float *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] + 1.0f;
}
const int threads = 128;
void two(const float *in, float *t, float *out, int n) {
  ka<<<(n + threads - 1) / threads, threads>>>(in, t, n);
  kb<<<(n + threads - 1) / threads, threads>>>(t, out, n);
}
void hidden(const float *in, float *t, float *u, float *out, int n) {
  const int threads = 1;
  two(in, t, u, n);
  kb<<<n / threads, threads>>>(u, out, n);
}
"""


def test_a_copy_whose_names_the_caller_hides_is_not_written(tmp_path: Path) -> None:
    """The copy at the call is a captureless lambda in the caller's scope, where the
    caller's `const int threads = 1` would be the `threads` its launches read (a lambda may
    read a constant it does not capture): left unfused, saying so."""
    src = tmp_path / "hidden.cu"
    src.write_text(HIDDEN)
    out = tmp_path / "out.cu"
    result = fuse_file(src, out, fuse_all=True)
    assert "hidden" not in {g.host for g in result.groups}
    lines = HIDDEN.split("\n")
    use = lines.index("  ka<<<(n + threads - 1) / threads, threads>>>(in, t, n);") + 1
    local = lines.index("  const int threads = 1;") + 1
    assert f"hidden: group ['ka', 'kb', 'kb'] left unfused: 'two' names 'threads' (line " \
        f"{use}), which a copy of it in 'hidden' would read as its own (line {local})" \
        in result.notes
    assert "  two(in, t, u, n);\n" in out.read_text()
