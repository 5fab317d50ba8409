"""Events recorded between launches only to time them (host/timers.py): a stop-watch class
whose methods sit in a header (read for what they touch: frontend/header_callees.py lowers
the host methods the file calls), and records written inline. Each pipeline of
programs/host_timers.cu fuses whole and matches the original under emulation, every buffer
pre-filled with garbage; in a file where an event may order work or memory (another stream
waits on it, the host polls it, managed memory, a host read of a launch's buffer) the record
still splits, with why."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

PROGRAMS = Path(__file__).parent / "programs"
PROGRAM = PROGRAMS / "host_timers.cu"
HEADER = PROGRAMS / "host_timers_timer.cuh"
ENTRIES = ["ht_stopwatch", "ht_inline_events"]


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    out_dir = tmp_path_factory.mktemp("ht")
    shutil.copy(HEADER, out_dir / HEADER.name)  # the fused file includes it too
    out = out_dir / "fused.cu"
    return out, fuse_file(PROGRAM, out, fuse_all=True)


def test_timed_pipelines_fuse_whole(fused) -> None:
    out, result = fused
    groups = sorted((g.host, tuple(g.kernels)) for g in result.groups)
    assert groups == [(e, ("ht_split", "ht_smooth", "ht_smooth", "ht_merge"))
                      for e in sorted(ENTRIES)]
    assert not result.breaks
    # The timer's calls stay where they were, before the one fused launch.
    body = out.read_text().split("void ht_stopwatch(")[1].split("\n}\n")[0]
    assert body.count("<<<") == 1
    assert body.count("watch.Start()") == 3 and body.rindex("watch.Start()") < body.index("<<<")


@pytest.mark.parametrize("entry", ENTRIES)
def test_fused_matches_original(fused, entry: str) -> None:
    out, _ = fused
    for w, h in ((37, 19), (16, 8), (5, 3)):
        compare_entry(PROGRAM, out, entry, {"w": w, "h": h})


ORDERED = r"""
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
void timed(const float *in, float *t, float *out, int n) {
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


OWNED = r"""
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
void report(StopWatch &w);
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
    src.write_text(OWNED)
    shutil.copy(HEADER, tmp_path / HEADER.name)
    result = fuse_file(src, tmp_path / "out.cu", fuse_all=True)
    assert [g.host for g in result.groups] == ["own_event"]
    first = {la.host: la.why for la in result.launches if la.index == 0}
    assert "(the event is not a local of the function)" in first["given_event"]
    assert "its call to 'Stop' records an event of its object, which other code may wait " \
           "for ('sw' is used other than by the event calls and its own methods)" \
        in first["handed_timer"]
