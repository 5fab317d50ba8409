"""Host statements between launches that a launch sequence continues across (hoststmts.py):
the deprecated cudaThreadSynchronize, error-check wrappers (macros over helpers in a header or
in the file), pure host arithmetic, scalar assignments only later launches read, timers and
printing. The fused programs are compared element by element with the originals under
emulation. Statements that are real dependences (a copy of the intermediate, a host read of
a device buffer, an assignment to a variable an earlier launch reads, a helper that writes a
global, an event record) still split the sequence, with a note saying why."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from equivalence import fuse_file, run_both

PROGRAMS = Path(__file__).parent / "programs"
PROGRAM = PROGRAMS / "host_calls.cu"
HEADER = PROGRAMS / "host_calls_check.cuh"
ENTRIES = ["hc_thread_sync", "hc_samples_checks", "hc_own_checks", "hc_host_math"]


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    out_dir = tmp_path_factory.mktemp("hc")
    shutil.copy(HEADER, out_dir / HEADER.name)  # the fused file includes it too
    out = out_dir / "fused.cu"
    return out, fuse_file(PROGRAM, out)


def test_whole_pipelines_fuse(fused) -> None:
    _, result = fused
    groups = sorted((g.host, tuple(g.kernels)) for g in result.groups)
    assert groups == [(e, ("hc_scale", "hc_blur", "hc_offset")) for e in sorted(ENTRIES)]
    assert not result.breaks


@pytest.mark.parametrize("entry", ENTRIES)
def test_fused_matches_original(fused, entry: str) -> None:
    out, _ = fused
    for w, h in ((37, 19), (128, 1), (5, 3)):
        run_both(PROGRAM, out, entry, w, h)


def test_statements_stay_in_place(fused) -> None:
    out, _ = fused
    text = out.read_text()
    body = text.split("void hc_samples_checks(")[1].split("\n}\n")[0]
    # The checks after the removed launches are still there, in order, before the fused one.
    checks = ['checkCudaErrors(cudaGetLastError())', 'getLastCudaError("hc_blur failed")',
              'checkCudaErrors(cudaDeviceSynchronize())', "<<<",
              'getLastCudaError("hc_offset failed")']
    at = [body.index(c) for c in checks]
    assert at == sorted(at)
    assert body.count("<<<") == 1
    math = text.split("void hc_host_math(")[1].split("\n}\n")[0]
    assert math.index("d = s * 0.5f") < math.index("<<<")


SPLITS = r"""
#include <cstdio>
#include <cuda_runtime.h>
#include "host_calls_check.cuh"
__global__ void ka(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * 2.0f;
}
__global__ void kb(const float *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] + 1.0f;
}
static int calls = 0;
void bump(cudaError_t e) { calls++; if (e) exit(1); }
void copy_between(const float *in, float *out, float *host, int n) {
  float *t;
  cudaMalloc(&t, n * sizeof(float));
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  cudaMemcpy(host, t, n * sizeof(float), cudaMemcpyDeviceToHost);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void host_read(const float *in, float *out, int n) {
  float *t;
  cudaMallocManaged(&t, n * sizeof(float));
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  cudaDeviceSynchronize();
  printf("%f\n", t[0]);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void size_changed(const float *in, float *t, float *out, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  n = n / 2;
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void pointer_changed(const float *in, float *t, float *u, float *out, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  t = u;
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void checked_copy(const float *in, float *t, float *out, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  checkCudaErrors(cudaMemset(t, 0, n * sizeof(float)));
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void global_helper(const float *in, float *t, float *out, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  bump(cudaGetLastError());
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void header_global_helper(const float *in, float *t, float *out, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  counted_check(cudaGetLastError());
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void event_between(const float *in, float *t, float *out, int n) {
  cudaEvent_t ev;
  cudaEventCreate(&ev);
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  cudaEventRecord(ev);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void print_buffer(const float *in, float *t, float *out, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  printf("%p\n", (void *)t);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
"""

WHY = {
    "copy_between": "its call to 'cudaMemcpy' touches 't', which may be a buffer the launch "
                    "of 'ka' at line 18 uses",
    "host_read": "it reads or writes memory through 't', which may be a buffer the launch "
                 "of 'ka' at line 25 uses",
    "size_changed": "it assigns 'n', which the launch of 'ka' at line 31 reads (a fused launch "
                    "evaluates its arguments at the group's last launch)",
    "pointer_changed": "after it no variable names the buffer 't' of the launch of 'ka' at "
                       "line 36",
    "checked_copy": "its call to 'cudaMemset' touches 't', which may be a buffer the launch "
                    "of 'ka' at line 41 uses",
    "header_global_helper": "its call to 'counted_check' may touch device memory or variables "
                            "('counted_check' assigns 'hc_checks_done')",
    # (the file allocates managed memory: after waiting on the event the host could read
    # it; test_fuse_host_reading.py fuses records in a file that cannot)
    "event_between": "its call to 'cudaEventRecord' marks a point that other work or the "
                     "host may wait for ('host_read' calls 'cudaMallocManaged'), which fusion "
                     "would move",
    "print_buffer": "it passes 't', a buffer the launches use, to 'printf'",
}


def test_real_dependences_still_split(tmp_path: Path) -> None:
    src = tmp_path / "splits.cu"
    src.write_text(SPLITS)
    shutil.copy(HEADER, tmp_path / HEADER.name)
    result = fuse_file(src, tmp_path / "out.cu", fuse_all=True)
    # A helper that counts its calls in a host global no launch reads (effects.py) is no
    # dependence: that one fuses, nothing else does.
    # (A header's global is not among the file's globals: whether it is a host variable is
    # not known, so that one still splits.)
    assert [g.host for g in result.groups] == ["global_helper"]
    first = {la.host: la.why for la in result.launches if la.index == 0}
    for host, why in WHY.items():
        assert first[host].endswith(why), (host, first[host])


@pytest.mark.nvcc
def test_fused_compiles(fused, tmp_path: Path) -> None:
    nvcc = shutil.which("nvcc")
    assert nvcc is not None
    out, _ = fused
    # CUDA 13 removed cudaThreadSynchronize: compile with it defined as its replacement.
    res = subprocess.run([nvcc, "-arch=sm_90", "-c", str(out), "-o", str(tmp_path / "o.o"),
                          "-DcudaThreadSynchronize=cudaDeviceSynchronize"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
