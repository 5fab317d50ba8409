"""Host code read by meaning (issue 25): every pipeline of programs/host_reading.cu fuses
whole (or under a run-time check) and matches the original under emulation, every buffer
pre-filled with garbage (one program, so that the emulator builds it and its fused version
once); what may still be a dependence splits, with why.

* Events recorded between launches only to time them (host/timers.py): a stop-watch class
  whose methods sit in a header (frontend/header_callees.py lowers the host methods the file
  calls), and records written inline. In a file where an event may order work or memory
  (another stream waits on it, the host polls it, managed memory, a host read of a launch's
  buffer), or for an event that is not the function's own, the record still splits.
* Host memory that no launch is given: local smart pointers owning fresh memory, used
  through `.get()` and `[i]` (host/pointsto.py), and calls of the C/C++ library on host
  memory (`memset`, `memcpy`, `std::fill`, `std::sort`: hoststmts.py judges them by the
  memory their pointer arguments reach); on a launch's buffer they split.
* Grid sizes computed elsewhere: a helper template from a user header inlined when its call
  is over integers (host/resolver.py), and a run-time coverage check built from a kernel
  bound held in a once-set local (host/runtime_check.py).
* A row stride that is a #define against a parameter bound (PolyBench's `A[i * N + j]` under
  `if (j < nx)`): fused under a run-time check `nx <= N`, the original launches otherwise.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

PROGRAMS = Path(__file__).parent / "programs"
PROGRAM = PROGRAMS / "host_reading.cu"
HEADERS = [PROGRAMS / "host_timers_timer.cuh", PROGRAMS / "grid_helpers_util.cuh"]
HEADER = HEADERS[0]
TIMED = ["ht_stopwatch", "ht_inline_events"]
OWNED = ["hl_owned", "hl_host_array"]


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    out_dir = tmp_path_factory.mktemp("hr")
    for h in HEADERS:  # the fused file includes them too
        shutil.copy(h, out_dir / h.name)
    out = out_dir / "fused.cu"
    return out, fuse_file(PROGRAM, out, fuse_all=True)


def test_what_fuses(fused) -> None:
    out, result = fused
    assert sorted((g.host, tuple(g.kernels)) for g in result.groups) == sorted(
        [(e, ("ht_split", "ht_smooth", "ht_smooth", "ht_merge")) for e in TIMED] +
        [(e, ("hl_square", "hl_shift")) for e in OWNED] +
        [("gh_template_grid", ("gh_scale", "gh_add")),
         ("gh_caller_grid", ("gh_head", "gh_twice")),
         ("sc_pipeline", ("sc_scale", "sc_blend"))])
    assert not result.breaks
    text = out.read_text()
    # The timer's calls stay where they were, before the one fused launch.
    body = text.split("void ht_stopwatch(")[1].split("\n}\n")[0]
    assert body.count("<<<") == 1
    assert body.count("watch.Start()") == 3 and body.rindex("watch.Start()") < body.index("<<<")
    # The #define stride: fused under `nx <= 64`, the original launches otherwise.
    body = text.split("void sc_pipeline(")[1].split("\n}\n")[0]
    assert "if (((long long)(nx) <= (long long)(64))) { cf_sc_pipeline_fused" in body
    assert "} else { /* cudafuse: the original launches */" in body


def test_caller_grid_gets_a_coverage_check(fused) -> None:
    # The producer's coverage is checked at run time (`grid.x * block.x >= n - 3`, built
    # through the kernel's local `last`), and the two kernels' domains are the same: both
    # bounds are that local, read as its initialiser n - tail with tail = 3 at both launches
    # (host/resolver.py).
    out, result = fused
    assert not any(e.refused for e in result.edges if e.host == "gh_caller_grid")
    body = out.read_text().split("void gh_caller_grid(")[1].split("\n}\n")[0]
    assert "if (((long long)(grid).x * (long long)(block).x >= (long long)((n - 3)))) " \
        "{ cf_gh_caller_grid_fused" in body


@pytest.mark.parametrize("entry", TIMED)
def test_timed_pipelines_match(fused, entry: str) -> None:
    out, _ = fused
    for w, h in ((37, 19), (5, 3)):
        compare_entry(PROGRAM, out, entry, {"w": w, "h": h})


@pytest.mark.parametrize("entry", [*OWNED, "gh_template_grid"])
def test_one_d_pipelines_match(fused, entry: str) -> None:
    out, _ = fused
    for n in (1, 37, 300):
        compare_entry(PROGRAM, out, entry, {"n": n})


@pytest.mark.parametrize("nx,ny", [(37, 5), (64, 3), (70, 4)])  # the last: check fails
def test_stride_check_both_paths_match(fused, nx: int, ny: int) -> None:
    out, _ = fused
    rows = 64 * ny + nx  # (nx > 64: the last row reaches past ny * 64)
    compare_entry(PROGRAM, out, "sc_pipeline", {"nx": nx, "ny": ny},
                  extra={"a": rows, "t": rows, "out": rows})


KERNELS = r"""
#include <cuda_runtime.h>
#include "host_timers_timer.cuh"
__global__ void ka(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * 2.0f;
}
__global__ void kb(const float *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] + 1.0f;
}
"""

ORDERED = KERNELS + r"""void timed(const float *in, float *t, float *out, int n) {
  StopWatch sw;
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  sw.Stop();
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void inline_record(const float *in, float *t, float *out, int n) {
  cudaEvent_t ev;
  cudaEventCreate(&ev);
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  cudaEventRecord(ev);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
"""

# What, added to ORDERED, lets an event order work or memory, and the reason that names it.
ORDERING = {
    "void other(cudaStream_t s, cudaEvent_t e) { cudaStreamWaitEvent(s, e, 0); }":
        "'other' calls 'cudaStreamWaitEvent'",
    "bool done(cudaEvent_t e) { return cudaEventQuery(e) == cudaSuccess; }":
        "'done' calls 'cudaEventQuery'",
    "__managed__ float shared_flag;": "the file declares managed memory ('shared_flag')",
}


@pytest.mark.parametrize("extra", list(ORDERING))
def test_records_that_may_order_work_split(tmp_path: Path, extra: str) -> None:
    src = tmp_path / "ordered.cu"
    src.write_text(ORDERED + extra + "\n")
    shutil.copy(HEADER, tmp_path / HEADER.name)
    result = fuse_file(src, tmp_path / "out.cu", fuse_all=True)
    assert not result.groups
    first = {la.host: la.why for la in result.launches if la.index == 0}
    assert "'Stop' records an event: " + ORDERING[extra] in first["timed"]
    assert f"its call to 'cudaEventRecord' marks a point that other work or the host may " \
           f"wait for ({ORDERING[extra]})" in first["inline_record"]


def test_host_read_of_a_launch_buffer_keeps_records_in_place(tmp_path: Path) -> None:
    src = tmp_path / "read.cu"
    src.write_text(ORDERED.replace("  kb<<<(n + 127) / 128, 128>>>(t, out, n);\n}\nvoid inl",
                                   "  kb<<<(n + 127) / 128, 128>>>(t, out, n);\n"
                                   "  cudaDeviceSynchronize();\n  out[0] += 1.0f;\n}\nvoid inl"))
    shutil.copy(HEADER, tmp_path / HEADER.name)
    result = fuse_file(src, tmp_path / "out.cu", fuse_all=True)
    assert [g.host for g in result.groups] == ["inline_record"]
    first = {la.host: la.why for la in result.launches if la.index == 0}
    assert "'timed' reads memory through 'out', a buffer its launches use" in first["timed"]


OWN_EVENTS = KERNELS + r"""void report(StopWatch &w);
void given_event(const float *in, float *t, float *out, int n, cudaEvent_t ev) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  cudaEventRecord(ev);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void handed_timer(const float *in, float *t, float *out, int n) {
  StopWatch sw;
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  sw.Stop();
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
  report(sw);
}
void own_event(const float *in, float *t, float *out, int n) {
  cudaEvent_t e;
  cudaEventCreate(&e);
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  cudaEventRecord(e);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
  cudaEventDestroy(e);
}
"""


def test_events_others_may_wait_on_split(tmp_path: Path) -> None:
    # An event the caller gives (it may make another stream wait on it after the call), or
    # a timer handed to a function cudafuse cannot see, keeps the record in place.
    src = tmp_path / "owned.cu"
    src.write_text(OWN_EVENTS)
    shutil.copy(HEADER, tmp_path / HEADER.name)
    result = fuse_file(src, tmp_path / "out.cu", fuse_all=True)
    assert [g.host for g in result.groups] == ["own_event"]
    first = {la.host: la.why for la in result.launches if la.index == 0}
    assert "(the event is not a local of the function)" in first["given_event"]
    assert "its call to 'Stop' records an event of its object, which other code may wait " \
           "for ('sw' is used other than by the event calls and its own methods)" \
        in first["handed_timer"]


LIBRARY_SPLITS = r"""
#include <cstring>
#include <memory>
__global__ void ka(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * 2.0f;
}
__global__ void kb(const float *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] + 1.0f;
}
void keep(std::unique_ptr<float> &p);
void memset_launch_buffer(const float *in, float *t, float *out, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  memset(t, 0, n * sizeof(float));
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void handed_out(const float *in, float *t, float *out, int n) {
  std::unique_ptr<float> h(new float[n]);
  keep(h);
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  memset(h.get(), 0, n * sizeof(float));
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
struct CudaFree { void operator()(float *p) const { cudaFree(p); } };
void reset_between(const float *in, float *out, int n) {
  float *raw;
  cudaMalloc(&raw, n * sizeof(float));
  std::unique_ptr<float, CudaFree> t(raw);
  ka<<<(n + 127) / 128, 128>>>(in, raw, n);
  t.reset();
  kb<<<(n + 127) / 128, 128>>>(raw, out, n);
}
"""

LIBRARY_WHY = {
    "memset_launch_buffer": "its call to 'memset' touches 't', which may be a buffer the "
                            "launch of 'ka' at line 14 uses",
    # (a method reaches its object: a deleter may free a launch's buffer)
    "reset_between": "its call to 'reset' may touch device memory or variables",
    # (h is handed to a function: what it holds is not known)
    "handed_out": "its call to 'memset' may touch device memory or variables",
}


def test_library_calls_on_launch_buffers_split(tmp_path: Path) -> None:
    src = tmp_path / "splits.cu"
    src.write_text(LIBRARY_SPLITS)
    result = fuse_file(src, tmp_path / "out.cu", fuse_all=True)
    assert not result.groups
    first = {la.host: la.why for la in result.launches if la.index == 0}
    for host, why in LIBRARY_WHY.items():
        assert first[host].endswith(why), (host, first[host])


MANAGED = r"""
__managed__ float scale;
__global__ void ka(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * scale;
}
__global__ void kb(const float *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] + 1.0f;
}
void set_scale(float s) { scale = s; }
void assigned_between(const float *in, float *t, float *out, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  cudaDeviceSynchronize();
  scale = 3.0f;
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void helper_between(const float *in, float *t, float *out, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  set_scale(3.0f);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
"""


def test_managed_global_written_between_splits(tmp_path: Path) -> None:
    # A `__managed__` global (lowered like a host variable) that an earlier kernel reads:
    # writing it between the launches is a dependence, written in place or in a helper.
    src = tmp_path / "managed.cu"
    src.write_text(MANAGED)
    result = fuse_file(src, tmp_path / "out.cu", fuse_all=True)
    assert not result.groups
    first = {la.host: la.why for la in result.launches if la.index == 0}
    read = "'scale', which the kernel of the launch of 'ka' at line {} may read (managed memory)"
    assert first["assigned_between"].endswith("it assigns " + read.format(13))
    assert first["helper_between"].endswith("its call to 'set_scale' assigns " + read.format(19))
