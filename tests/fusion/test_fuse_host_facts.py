"""Host facts by meaning (issue 25): error checks that exit or throw, from macros,
templates, functors and helpers (hoststmts.py); host scalars (a grid, a factor, a count)
assigned between launches, each launch fused with the value it saw (byvalue.py; a value
naming a host global nothing in between changes: hf_global_grid); runtime
calls judged by the buffers they touch (cudaMalloc of a new buffer, transfers and memsets
of buffers the earlier launches do not use); pointer variables by what they may point to
(pointsto.py: aliases, a time loop rotating its buffers by parity); a kernel using
`extern __shared__` memory in between; overloaded kernels, each launch matched to the
overload clang resolved (hostexprs.launched_kernel); `std::sqrt(double)` and other std::
math in kernels (the front end's shim). Every pipeline of programs/host_facts.cu fuses and
matches the original under emulation, every buffer pre-filled with garbage; what is a real
dependence still splits, with why. (One program, so that the emulator builds it and its
fused version once.)"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file, fuse_with_api, nvcc_error

from cudafuse.frontend import parse_file

PROGRAM = Path(__file__).parent / "programs" / "host_facts.cu"
ONE_D = ["hf_exit_macro", "hf_template_check", "hf_throwing", "hf_buffers_between",
         "hf_sibling_upload", "hf_shared_between", "hf_aliases", "hf_alias_read_after", "hf_chosen",
         "hf_symbol_between", "hf_dim3_assigned", "hf_ov_double",
         "hf_ov_float", "hf_ov_arity", "hf_ov_same_name", "hf_std_math", "hf_regrid",
         "hf_factor", "hf_count", "hf_free_in_macro", "hf_global_grid"]
HEAT = ["hf_heat", "hf_heat_and"]


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    return fuse_with_api(PROGRAM, tmp_path_factory.mktemp("hf"))


def test_every_pipeline_fuses(fused) -> None:
    _, api = fused
    groups = {g.host: g.kernels for g in api.result.groups}
    pairs = {("hf_scale", "hf_mix"): ["hf_exit_macro", "hf_template_check", "hf_throwing",
                                      "hf_buffers_between",
                                      "hf_aliases", "hf_alias_read_after", "hf_chosen",
                                      "hf_dim3_assigned", "hf_regrid", "hf_free_in_macro",
                                      "hf_global_grid"],
             ("hf_times", "hf_times", "hf_mix"): ["hf_factor"],
             ("hf_times", "hf_mix"): ["hf_count"],
             # The staged copy joins too since tile_writers (its one tile element per
             # thread is the thread's own a[i]); test_fused_matches_original checks it.
             ("hf_scale", "hf_staged", "hf_mix"): ["hf_shared_between"],
             ("hf_scale", "hf_weigh"): ["hf_symbol_between"],
             ("hf_lap", "hf_step"): HEAT,
             ("hf_ov_scale", "hf_ov_offset"): ["hf_ov_double", "hf_ov_float"],
             ("hf_ov_step", "hf_ov_offset", "hf_ov_scale"): ["hf_ov_arity"],
             ("hf_polar", "hf_mix_d"): ["hf_std_math"]}
    for kernels, hosts in pairs.items():
        for host in hosts:
            assert tuple(groups.get(host, ())) == kernels, host
    siblings = [s for p in api.result.plans for s in p.siblings if s.fused]
    assert [(s.host, s.first, s.second) for s in siblings] == [
        ("hf_sibling_upload", "hf_scale", "hf_neg")]
    assert not api.result.breaks
    assert not any("argument count" in la.why for la in api.result.launches)
    stored = {g.host: g.stored_why for g in api.result.groups}
    assert stored["hf_alias_read_after"] == {"t": "read after the sequence"}
    assert stored["hf_aliases"] == {"t": "a parameter: the caller may read it"}
    assert stored["hf_free_in_macro"] == {}  # CHECK_EXIT(cudaFree(t)) reads nothing


def test_scalars_assigned_between_pass_the_values_seen(fused) -> None:
    """The fused launch passes each original launch's own value (host/byvalue.py): the
    first factor 0.5f and the second 3.0f, the count as the first launch converted it."""
    out, _ = fused
    text = out.read_text()
    factor = text.split("void hf_factor(")[1].split("\n}\n")[0]
    assert factor.count("<<<") == 1 and "(b, out, n, in, t, 0.5f, u, 3.0f)" in factor
    count = text.split("void hf_count(")[1].split("\n}\n")[0]
    assert "(b, out, ((size_t)(n)), in, t, 1.5f)" in count


def test_two_overloads_in_one_group_are_left_unfused(fused) -> None:
    out, api = fused
    assert any("hf_ov_same_name" in note and "two overloads of 'hf_ov_step'" in note
               for note in api.result.notes)
    body = out.read_text().split("void hf_ov_same_name(")[1]
    assert body.count("hf_ov_step<<<") == 2


def test_std_math_parses(tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_text("#include <math.h>\n__global__ void k(double *p) { p[0] = std::sqrt(p[1]);"
                   " p[2] = std::atan2(p[3], p[4]); p[5] = std::abs(p[6]); }\n")
    assert [k.name for k in parse_file(str(src)).unit.kernels] == ["k"]


def test_statements_stay_in_place(fused) -> None:
    out, _ = fused
    text = out.read_text()
    body = text.split("void hf_buffers_between(")[1].split("\n}\n")[0]
    order = ["cudaMalloc(&t", "cudaMalloc((void **)&scratch", "cudaMemset(spare",
             "cudaMemcpy(b, host_b", "cudaMemcpy(scratch, b", "<<<", "cudaFree(t)"]
    at = [body.index(s) for s in order]
    assert at == sorted(at)
    # The sibling pair stands after the upload (the second launch reads what it writes).
    body = text.split("void hf_sibling_upload(")[1].split("\n}\n")[0]
    assert body.index("cudaMemcpy(b, host_b") < body.index("<<<")
    heat = text.split("void hf_heat(")[1].split("\n}\n")[0]
    assert heat.count("<<<") == 1 and "(dst, src, w, h, tmp)" in heat


@pytest.mark.parametrize("entry", ONE_D)
def test_fused_matches_original(fused, entry: str) -> None:
    out, _ = fused
    for n in (1, 37, 300):  # (37 % 3 == 1: hf_chosen writes `out`, else `alt`)
        compare_entry(PROGRAM, out, entry, {"n": n})


@pytest.mark.parametrize("entry", HEAT)
def test_rotating_time_loop_matches_original(fused, entry: str) -> None:
    out, _ = fused
    for w, h, steps in ((13, 7, 0), (13, 7, 1), (13, 7, 4), (20, 17, 3)):
        compare_entry(PROGRAM, out, entry, {"w": w, "h": h, "steps": steps})


SPLITS = r"""
#include <cstdio>
#include <stdexcept>
#include <string>
#include <cuda_runtime.h>
__device__ int g_calls;
__global__ void ka(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * 2.0f;
}
__global__ void kb(const float *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] + 1.0f;
}
__global__ void counted(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) g_calls++;
  if (i < n) b[i] = a[i];
}
static int errors = 0;
void log_error(cudaError_t e, float *p) { if (e) { errors++; cudaMemset(p, 0, 4); } }
template <typename T> void tcheck(T e, float *p) { log_error(e, p); }
void upload_input(float *in, const float *h, float *t, float *out, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  cudaMemcpy(in, h, n * sizeof(float), cudaMemcpyHostToDevice);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void download_mid(const float *in, float *h, float *t, float *out, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  cudaMemcpy(h, t, n * sizeof(float), cudaMemcpyDeviceToHost);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void free_input(const float *in, float *t, float *out, int n) {
  float *tmp2;
  cudaMalloc(&tmp2, n * sizeof(float));
  ka<<<(n + 127) / 128, 128>>>(tmp2, t, n);
  cudaFree(tmp2);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void realloc_mid(const float *in, float *out, int n) {
  float *t;
  cudaMalloc(&t, n * sizeof(float));
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  cudaMalloc(&t, n * sizeof(float));
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void alias_copy(const float *in, float *t, float *out, float *h, int n) {
  float *view = t;
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  cudaMemcpy(h, view, n * sizeof(float), cudaMemcpyDeviceToHost);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void throw_reads(const float *in, float *t, float *out, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  if (cudaGetLastError()) throw std::runtime_error(std::to_string(t[0]));
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void template_logs(const float *in, float *t, float *out, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  tcheck(cudaGetLastError(), t);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void global_writer(const float *in, float *t, float *u, float *out, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  counted<<<(n + 127) / 128, 128>>>(in, u, n);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
// (stale_alias, p = t before t is allocated again, lived here: the host code is now
// evaluated in order (pointervalues.py), so p and t are known to be distinct buffers;
// test_fuse_host_rotation.py fuses such a pipeline and compares it with the original.)
//
//
//
//
//
void same_start(float *in, float *out, float *tmp, int n, int steps) {
  float *src = out;
  for (int s = 0; s < steps; ++s) {
    float *dst = s % 2 ? out : in;
    ka<<<(n + 127) / 128, 128>>>(src, tmp, n);
    kb<<<(n + 127) / 128, 128>>>(tmp, dst, n);
    src = dst;
  }
}
void chosen_overlap(const float *in, float *t, float *out, int n, int flip) {
  float *mid = flip ? out : t;
  ka<<<(n + 127) / 128, 128>>>(in, mid, n);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
__constant__ float c_k[2];
__global__ void kc(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * c_k[0];
}
void symbol_read_before(const float *in, const float *h, float *t, float *out, int n) {
  kc<<<(n + 127) / 128, 128>>>(in, t, n);
  cudaMemcpyToSymbol(c_k, h, 2 * sizeof(float));
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void dim3_reassigned(const float *in, float *t, float *out, int n) {
  dim3 g((n + 127) / 128), bl(128);
  if (n > 4096) g = dim3((n + 255) / 256, 1);
  ka<<<g, bl>>>(in, t, n);
  g = dim3((n + 63) / 64);
  bl = dim3(64);
  kb<<<g, bl>>>(t, out, n);
}
void not_parity(float *in, float *out, float *buf, float *tmp, int n, int steps) {
  const float *src = in;
  for (int s = 0; s < steps; ++s) {
    float *dst = s % 3 ? out : buf;
    ka<<<(n + 127) / 128, 128>>>(src, tmp, n);
    kb<<<(n + 127) / 128, 128>>>(tmp, dst, n);
    src = dst;
  }
}
void count_captured(const float *in, float *t, float *out, int n) {
  int m = 0;
  auto halve = [&] { m = n / 2; };
  m = n;
  halve();
  ka<<<(n + 127) / 128, 128>>>(in, t, m);
  m = n;
  kb<<<(n + 127) / 128, 128>>>(t, out, m);
}
void count_pointed(const float *in, float *t, float *out, int n) {
  int m = 0;
  int *pm = &m;
  m = n;
  *pm = n / 2;
  ka<<<(n + 127) / 128, 128>>>(in, t, m);
  m = n;
  kb<<<(n + 127) / 128, 128>>>(t, out, m);
}
"""

WHY = {
    "upload_input": "its call to 'cudaMemcpy' touches 'in', which may be a buffer the launch "
                    "of 'ka' at line 24 uses",
    "download_mid": "its call to 'cudaMemcpy' touches 't', which may be a buffer the launch "
                    "of 'ka' at line 29 uses",
    "free_input": "its call to 'cudaFree' touches 'tmp2', which may be a buffer the launch "
                  "of 'ka' at line 36 uses",
    "realloc_mid": "it assigns 't', which the launch of 'ka' at line 43 reads (a fused launch "
                   "evaluates its arguments at the group's last launch)",
    "alias_copy": "its call to 'cudaMemcpy' touches 'view', which may be a buffer the launch "
                  "of 'ka' at line 49 uses",
    "throw_reads": "it reads or writes memory through 't', which may be a buffer the "
                   "launch of 'ka' at line 54 uses",
    "template_logs": "its call to 'tcheck' touches 't', which may be a buffer the launch "
                     "of 'ka' at line 59 uses",
    "global_writer": "kernel 'counted' writes global 'g_calls', which other launches may "
                     "read: no launch moves across it",
    "same_start": "the launches of 'ka' at line 80 and 'kb' at line 81 are not fused: "
                  "pointer 'dst' may name the same buffer as 'src'",
    "chosen_overlap": "the launches of 'ka' at line 87 and 'kb' at line 88 are not fused: "
                      "pointer 'mid' may name the same buffer as 't'",
    "symbol_read_before": "its call to 'cudaMemcpyToSymbol' touches 'c_k', which may be a "
                          "buffer the launch of 'kc' at line 96 uses",
    "dim3_reassigned": "it assigns 'g', which the launch of 'ka' at line 103 reads (a fused "
                       "launch evaluates its arguments at the group's last launch)",
    "not_parity": "the launches of 'ka' at line 112 and 'kb' at line 113 are not fused: "
                  "pointer 'dst' may name the same buffer as 'src'",
    # (the value 'm' had at the first launch is not known: a lambda or a pointer may set it)
    "count_captured": "it assigns 'm', which the launch of 'ka' at line 122 reads (a fused "
                      "launch evaluates its arguments at the group's last launch)",
    "count_pointed": "it assigns 'm', which the launch of 'ka' at line 131 reads (a fused "
                     "launch evaluates its arguments at the group's last launch)",
}


def test_real_dependences_still_split(tmp_path: Path) -> None:
    src = tmp_path / "splits.cu"
    src.write_text(SPLITS)
    result = fuse_file(src, tmp_path / "out.cu", fuse_all=True)
    assert not result.groups
    assert not [s for p in result.plans for s in p.siblings if s.fused]
    first = {la.host: la.why for la in result.launches if la.index == 0}
    for host, why in WHY.items():
        assert first[host].endswith(why), (host, first[host])
    assert result.output == src.read_bytes()


SIBLINGS = r"""
#include <cuda_runtime.h>
__global__ void ka(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * 2.0f;
}
__global__ void gather(const float *t, const int *idx, float *u, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) u[i] = t[idx[i]];
}
__global__ void neg(const float *b, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = -b[i];
}
void upload_between(const float *in, const int *idx, const float *h, float *t, float *u,
                    float *b, float *out, int n) {
  ka<<<(n + 127) / 128, 128>>>(in, t, n);
  gather<<<(n + 63) / 64, 64>>>(t, idx, u, n);
  cudaMemcpy(b, h, n * sizeof(float), cudaMemcpyHostToDevice);
  neg<<<(n + 127) / 128, 128>>>(b, out, n);
}
"""


def test_siblings_do_not_move_a_launch_before_an_upload(tmp_path: Path) -> None:
    """ka and neg are independent, but the fused launch cannot stand at neg's place (gather
    depends on ka), and at ka's place neg would read b before the upload."""
    src = tmp_path / "sib.cu"
    src.write_text(SIBLINGS)
    result = fuse_file(src, tmp_path / "out.cu")
    notes = {(s.first, s.second): s for p in result.plans for s in p.siblings}
    pair = notes[("ka", "neg")]
    assert not pair.fused
    assert "the launch of 'gather' between them depends on 'ka'" in pair.why


@pytest.mark.nvcc
def test_fused_compiles(fused, tmp_path: Path) -> None:
    assert shutil.which("nvcc")
    out, _ = fused
    assert nvcc_error(out, tmp_path) == ""
