"""A program's -D macros never reach the front end's shim (issue 27).

`cudafuse analyze prog.cu -D c=1` stopped in the shim's own declarations: clang reads every -D
before the shim, whose runtime API names a parameter c. frontend/defines.py defines such a
macro after the shim instead. The test does not list the names it knows: it collects every
identifier the shim and what it includes spell that is neither reserved nor a public name of
the CUDA toolkit's or the C and C++ libraries' headers, defines all of them at once, and checks
that the plan of a program with two launches is what it is without them, with the shim read
from its precompiled header and from source.
"""

from __future__ import annotations

import functools
import subprocess

import pytest

from cudafuse import api
from cudafuse.diagnostics import CudafuseError
from cudafuse.emu.defines import code_identifiers
from cudafuse.emu.toolkit import toolkit_include
from cudafuse.frontend.defines import forced_headers
from cudafuse.frontend.parse import SHIM, include_dir

# The C and C++ library headers the shim (or a program) includes.
_STD_HEADERS = ("math.h", "stdlib.h", "string.h", "stdio.h", "assert.h", "time.h", "limits.h",
                "new", "cstdio", "cmath")
# The alternative tokens and the vector types' members (public: a program defining y breaks
# every float4 under nvcc as well).
_KEYWORDS = frozenset("and and_eq bitand bitor compl not not_eq or or_eq xor xor_eq "
                      "x y z w".split())

# The program's own names are zz_...: none of them is the shim's.
PROGRAM = r"""
#include <cstdio>

__global__ void zz_scale(float *zz_out, const float *zz_in, int zz_n) {
  int zz_i = blockIdx.x * blockDim.x + threadIdx.x;
  if (zz_i < zz_n) zz_out[zz_i] = zz_in[zz_i] * 2.0f;
}

__global__ void zz_shift(float *zz_out, const float *zz_in, int zz_n) {
  int zz_i = blockIdx.x * blockDim.x + threadIdx.x;
  if (zz_i < zz_n) zz_out[zz_i] = zz_in[zz_i] + 1.0f;
}

void zz_entry(float *zz_out, const float *zz_in, int zz_n) {
  float *zz_a, *zz_b, *zz_c;
  cudaMalloc(&zz_a, zz_n * sizeof(float));
  cudaMalloc(&zz_b, zz_n * sizeof(float));
  cudaMalloc(&zz_c, zz_n * sizeof(float));
  cudaMemcpy(zz_a, zz_in, zz_n * sizeof(float), cudaMemcpyHostToDevice);
  zz_scale<<<(zz_n + 63) / 64, 64>>>(zz_b, zz_a, zz_n);
  zz_shift<<<(zz_n + 63) / 64, 64>>>(zz_c, zz_b, zz_n);
  cudaMemcpy(zz_out, zz_c, zz_n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(zz_a);
  cudaFree(zz_b);
  cudaFree(zz_c);
}
"""
# The macros defined after the shim still reach the program, with the command line's values.
REACHED = """#include <cstdio>
#if c != 1 || N != 1
#error the command line's macros do not reach the program
#endif
"""


def _reserved(name: str) -> bool:
    return name.startswith("__") or (name[0] == "_" and name[1:2].isupper())


@functools.cache
def _public_names() -> frozenset[str]:
    """Names a program cannot define without breaking nvcc's own build: the C and C++
    library headers' identifiers (their internals are reserved) and the CUDA toolkit
    headers' longer than two letters (one or two letters there are template parameters or
    locals, not API)."""
    text = "".join(f"#include <{h}>\n" for h in _STD_HEADERS)
    pre = subprocess.run(["g++", "-std=c++17", "-E", "-P", "-x", "c++", "-"], input=text,
                         capture_output=True, text=True, check=True).stdout
    names = code_identifiers(pre.encode())
    tk = toolkit_include()
    assert tk is not None
    for f in [*tk.glob("*.h"), *tk.glob("*.hpp"), *(tk / "crt").rglob("*")]:
        if f.is_file():
            names |= {n for n in code_identifiers(f.read_bytes()) if len(n) > 2}
    return frozenset(names | _KEYWORDS)


def _macro_names() -> list[str]:
    names: set[str] = set()
    for f in forced_headers(include_dir() / SHIM):
        names |= code_identifiers(f.read_bytes())
    public = _public_names()
    return sorted(n for n in names - public if not _reserved(n) and not n.startswith("zz_"))


def _added_names(fused: str) -> set[str]:
    """The identifiers the fused output spells that the program does not: the text fusion
    splices into the program (its rounding barrier's parameter v, ...), which sees every
    macro as the program does: the fused program's business under nvcc, not the front end's."""
    return code_identifiers(fused.encode()) - code_identifiers(PROGRAM.encode())


@pytest.mark.skipif(toolkit_include() is None, reason="no CUDA toolkit installed")
@pytest.mark.parametrize("pch", [True, False], ids=["pch", "no-pch"])
def test_every_name_the_shim_spells_may_be_a_programs_command_line_macro(tmp_path, monkeypatch,
                                                                         pch):
    names = _macro_names()
    # (what the test stands on: the names issue 27 found, and hundreds of the shim's)
    assert {"c", "d", "f", "k", "N"} <= set(names) and len(names) > 200, names
    if not pch:
        monkeypatch.setenv("CUDAFUSE_NO_PCH", "1")
    src = tmp_path / "program.cu"
    src.write_text(PROGRAM)
    report = api.analyze(str(src)).report
    plain = api.fuse(str(src))
    assert plain.report["sequences"][0]["fused"], plain.report  # the two launches fuse
    every = [f"{n}=1" for n in names]
    assert api.analyze(str(src), defines=every).report == report
    defines = [f"{n}=1" for n in names if n not in _added_names(plain.text)]
    fused = api.fuse(str(src), defines=defines)
    assert (fused.text, fused.report) == (plain.text, plain.report)
    reached = tmp_path / "reached.cu"
    reached.write_text(REACHED)
    api.analyze(str(reached), defines=every)
    with pytest.raises(CudafuseError, match="do not reach"):
        api.analyze(str(reached), defines=[d for d in every if d != "c=1"])


# The stand-ins a program includes itself are read after its -D: their own parameters are
# reserved where NVIDIA's headers have no such name (cooperative_groups.h's label and
# lane_mask, cuda/'s d and g were plain; its b and p as well, but cooperative_groups.h brings
# cuda_fp16.h's a, b, p with it, as CUDA 13's does: nvcc fails on those too).
STAND_INS = r"""
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>
namespace zz_cg = cooperative_groups;
__global__ void zz_k(float *zz_out, const float *zz_in, int zz_n) {
  zz_cg::thread_block zz_b = zz_cg::this_thread_block();
  auto zz_t = zz_cg::tiled_partition<32>(zz_b);
  auto zz_l = zz_cg::labeled_partition(zz_cg::coalesced_threads(), threadIdx.x & 1);
  float zz_v = zz_t.shfl_xor(zz_in[threadIdx.x], 1);
  auto zz_p = cuda::make_pipeline();
  __shared__ float zz_s[64];
  cuda::memcpy_async(zz_b, zz_s, zz_in, sizeof(float) * 64, zz_p);
  if (threadIdx.x < zz_n) zz_out[threadIdx.x] = zz_v + zz_l.size() + zz_s[0];
}
"""


def test_stand_ins_parameters_are_not_a_programs_macros(tmp_path):
    src = tmp_path / "stand_ins.cu"
    src.write_text(STAND_INS)
    report = api.analyze(str(src)).report
    assert report["kernels"], report
    defines = [f"{n}=1" for n in ("label", "lane_mask", "d", "g")]
    assert api.analyze(str(src), defines=defines).report == report
