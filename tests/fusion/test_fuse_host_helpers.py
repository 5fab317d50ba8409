"""Host helpers judged by what their bodies touch (issue 25, passes/vertical/host/effects.py):
a call between two launches of a pipeline to a function the program defines (a transfer, a
memset, scratch memory, host work on host buffers, kernels launched on other buffers, error
checks, a counter passed by reference, a buffer allocated by a helper given its address)
does not split the sequence unless what it touches, followed through its parameters and the
helpers it calls, may be a buffer of a launch before it, or it assigns a variable such a
launch reads; nor do streams and events created and destroyed. Every pipeline of
programs/host_helpers.cu fuses and matches the original under emulation on garbage-filled
buffers; the real dependences still split, each with why."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file, fuse_with_api

PROGRAM = Path(__file__).parent / "programs" / "host_helpers.cu"
ENTRIES = ["hh_upload_aux", "hh_mixed", "hh_download_other", "hh_alloc_by_address",
           "hh_streams", "hh_host_poke", "hh_ref_entry"]


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    return fuse_with_api(PROGRAM, tmp_path_factory.mktemp("hh"))


def test_every_pipeline_fuses(fused) -> None:
    out, api = fused
    groups = {g.host: tuple(g.kernels) for g in api.result.groups}
    for entry in ENTRIES:
        entry = entry.replace("_entry", "_out")  # (the pipeline the entry calls)
        assert groups.get(entry) == ("ka", "kb"), entry
    # The helper calls stay where they were, before the fused launch.
    body = out.read_text().split("void hh_mixed(")[1].split("\n}\n")[0]
    at = [body.index(s) for s in ("halve_on_host(", "reset(other", "scratch_round_trip(",
                                  "tick(count)", "<<<")]
    assert at == sorted(at) and body.count("<<<") == 1


@pytest.mark.parametrize("entry", ENTRIES)
def test_fused_matches_original(fused, entry: str) -> None:
    out, _ = fused
    for n in (1, 37, 300):
        compare_entry(PROGRAM, out, entry, {"n": n})


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
__global__ void fill(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 0.0f;
}
struct Img { float *data; int n; };
int g_n;
void upload(float *d, const float *h, int n) {
  cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
}
void prepare(float *d, const float *h, int n) { upload(d, h, n); }
void peek(float *h, const float *d, int n) {
  cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
}
void clear(float *p, int n) { fill<<<(n + 63) / 64, 64>>>(p, n); fill<<<1, 1>>>(p, 1); }
void grow(int &n) { n += 1; }
void set_n(int n) { g_n = n; }
void touch_img(Img im) { cudaMemset(im.data, 0, im.n * sizeof(float)); }
void opaque(float *p);
void overwrite_input(float *in, float *t, float *out, const float *h, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  prepare(in, h, n);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void read_back_mid(const float *in, float *t, float *out, float *h, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  peek(h, t, n);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void relaunch_on_input(float *in, float *t, float *out, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  clear(in, n);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void size_by_ref(const float *in, float *t, float *out, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  grow(n);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void global_size(const float *in, float *t, float *out, int n) {
  g_n = n;
  ka<<<(n + 127) / 128, 128>>>(in, t, g_n);
  set_n(n + 1);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void through_struct(const float *in, float *t, float *out, Img im, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  touch_img(im);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void unseen(const float *in, float *t, float *out, float *other, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  opaque(other);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
// (by_address_alias, point_at(&v, t) with `void point_at(float **p, float *q) { *p = q; }`,
// lived here: the helper is now run on the caller's pointers (pointervalues.py), so v is
// t; test_fuse_host_rotation.py fuses such a pipeline and compares it with the original.)
//
//
//
//
void restream(const float *in, float *t, float *out, int n) {
  cudaStream_t s;
  cudaStreamCreate(&s);
  ka<<<(n + 127) / 128, 128, 0, s>>>(in, t, n);
  cudaStreamCreate(&s);
  kb<<<(n + 127) / 128, 128, 0, s>>>(t, out, n);
}
void local_ref(const float *in, float *t, float *out, float *h, int n) {
  float &first = h[0];
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  first = 1.0f;
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void alias_arg(const float *in, float *t, float *out, const float *h, int n) {
  float *view = t;
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  upload(view, h, n);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
"""

WHY = {
    "overwrite_input": "its call to 'prepare' touches 'in', which may be a buffer the launch "
                       "of 'ka' at line 30 uses",
    "read_back_mid": "its call to 'peek' touches 't', which may be a buffer the launch of "
                     "'ka' at line 35 uses",
    "size_by_ref": "its call to 'grow' assigns 'n', which the launch of 'ka' at line 45 reads "
                   "(a fused launch evaluates its arguments at the group's last launch)",
    "global_size": "its call to 'set_n' assigns 'g_n', which the launch of 'ka' at line 51 "
                   "reads",
    "through_struct": "its call to 'touch_img' may touch device memory or variables "
                      "('touch_img' calls 'cudaMemset' on 'im.data', which cudafuse cannot "
                      "follow)",
    "unseen": "its call to 'opaque' may touch device memory or variables",
    "alias_arg": "its call to 'upload' touches 'view', which may be a buffer the launch of "
                 "'ka' at line 87 uses",
    "local_ref": "it assigns 'first', a reference",
    # (DapengFeng's cs344 blend re-creates its streams between launches)
    "restream": "it assigns 's', the stream the launch of 'ka' at line 75 runs on (a fused "
                "launch would run on the stream it names at the group's last launch)",
}


def test_real_dependences_still_split(tmp_path: Path) -> None:
    src = tmp_path / "splits.cu"
    src.write_text(SPLITS)
    result = fuse_file(src, tmp_path / "out.cu", fuse_all=True)
    first = {la.host: la.why for la in result.launches if la.index == 0}
    for host, why in WHY.items():
        assert first[host].endswith(why), (host, first[host])
    # `clear` launches two kernels in a row: its call stands for them in the sequence
    # (host/wrappers.py), and what it does to 'in' is a dependence between launches
    edges = [e.why for e in result.edges if e.host == "relaunch_on_input"]
    assert edges == ["not fused: launch of 'fill' between the group's launches depends on "
                     "'ka'"], edges
    assert not result.groups
    assert result.output == src.read_bytes()
