"""Atomic calls are resolved against CUDA 13's real overload set (one declaration per type), so
the front end accepts exactly the calls nvcc accepts: mixed argument types that convert, and
not the types CUDA has no overload for (atomicAdd on long long, atomicMax on float...) nor
ambiguous calls. Each case is parsed; under the `nvcc` marker each is also compiled with
`nvcc -arch=sm_90 -c`, which must agree."""

from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cudafuse.diagnostics import CudafuseError
from cudafuse.frontend import parse_file

PRELUDE = """#include <cuda_runtime.h>
#include <cuda_fp16.h>
struct __align__(16) Wide { long long a, b; };
struct Wide8 { long long a, b; };
struct __align__(16) NotTrivial { int a[4]; __device__ NotTrivial(const NotTrivial &o); };
"""

# (id, kernel parameters, statement, does nvcc accept it)
CASES = [
    ("exch_int_unsigned", "int *p, unsigned v", "atomicExch(p, v)", True),
    ("add_float_double", "float *p", "atomicAdd(p, 1.0)", True),
    ("add_ull_int_literal", "unsigned long long *p", "atomicAdd(p, 1)", True),
    ("cas_int_int_unsigned", "int *p, unsigned v", "atomicCAS(p, 0, v)", True),
    ("max_int_unsigned_literal", "int *p", "atomicMax(p, 0u)", True),
    ("add_unsigned_int", "unsigned *p, int v", "atomicAdd(p, v)", True),
    ("min_ll_unsigned", "long long *p, unsigned v", "atomicMin(p, v)", True),
    ("and_ull_int", "unsigned long long *p", "atomicAnd(p, ~0)", True),
    ("or_ll_int", "long long *p, int v", "atomicOr(p, v)", True),
    ("add_double_float", "double *p, float v", "atomicAdd(p, v)", True),
    ("exch_float_int", "float *p", "atomicExch(p, 2)", True),
    ("cas_ushort_ints", "unsigned short *p", "atomicCAS(p, 0, 1)", True),
    ("inc_unsigned_long", "unsigned *p, long n", "atomicInc(p, n)", True),
    ("dec_unsigned_int", "unsigned *p", "atomicDec(p, 7)", True),
    ("sub_unsigned_int", "unsigned *p", "atomicSub(p, 2)", True),
    ("add_block_double_int", "double *p", "atomicAdd_block(p, 1)", True),
    ("cas_system_ull_mixed", "unsigned long long *p", "atomicCAS_system(p, 0, 1ll)", True),
    ("xor_system_ll_int", "long long *p", "atomicXor_system(p, 1)", True),
    ("inc_block", "unsigned *p", "atomicInc_block(p, 9)", True),
    ("add_float4", "float4 *p", "atomicAdd(p, make_float4(1, 2, 3, 4))", True),
    ("add_system_float2", "float2 *p", "atomicAdd_system(p, make_float2(1, 2))", True),
    ("exch_float4_128", "float4 *p, float4 v", "atomicExch(p, v)", True),
    ("exch_wide_128", "Wide *p, Wide v", "atomicExch(p, v)", True),
    ("cas_block_wide_128", "Wide *p, Wide c, Wide v", "atomicCAS_block(p, c, v)", True),
    ("exch_double2_128", "double2 *p, double2 v", "atomicExch(p, v)", True),
    ("cas_longlong2_128", "longlong2 *p, longlong2 v", "atomicCAS(p, v, v)", True),
    ("add_half", "__half *p, __half v", "atomicAdd(p, v)", True),
    ("add_half2", "__half2 *p, __half2 v", "atomicAdd(p, v)", True),
    ("add_half_float", "__half *p", "atomicAdd(p, 1.0f)", True),
    ("add_ll", "long long *p", "atomicAdd(p, 1ll)", False),
    ("sub_ull", "unsigned long long *p", "atomicSub(p, 1ull)", False),
    ("sub_float", "float *p", "atomicSub(p, 1.0f)", False),
    ("max_float", "float *p", "atomicMax(p, 1.0f)", False),
    ("min_double", "double *p", "atomicMin(p, 1.0)", False),
    ("exch_double", "double *p", "atomicExch(p, 1.0)", False),
    ("exch_ll", "long long *p", "atomicExch(p, 1ll)", False),
    ("cas_ll", "long long *p", "atomicCAS(p, 0ll, 1ll)", False),
    ("cas_block_ushort", "unsigned short *p", "atomicCAS_block(p, 0, 1)", False),
    ("inc_int", "int *p", "atomicInc(p, 1)", False),
    ("dec_ull", "unsigned long long *p", "atomicDec(p, 1ull)", False),
    ("and_float", "float *p", "atomicAnd(p, 1)", False),
    ("add_unsigned_long", "unsigned long *p", "atomicAdd(p, 1ul)", False),
    ("add_size_t", "size_t *p", "atomicAdd(p, 1)", False),
    ("add_const", "const int *p", "atomicAdd(p, 1)", False),
    ("add_volatile", "volatile int *p", "atomicAdd(p, 1)", False),
    ("add_null_int", "int n", "atomicAdd(0, n)", True),  # the exact int overload wins
    ("add_null_long_ambiguous", "long n", "atomicAdd(0, n)", False),  # no best conversion
    ("exch_wide_8_aligned", "Wide8 *p, Wide8 v", "atomicExch(p, v)", False),
    ("exch_not_trivial", "NotTrivial *p, NotTrivial *v", "atomicExch(p, *v)", False),
    ("add_block_half", "__half *p, __half v", "atomicAdd_block(p, v)", False),
    ("add_float4_float2", "float4 *p", "atomicAdd(p, make_float2(1, 2))", False),
]
# None left: the shim aligns double2, longlong2 and ulonglong2 to 16 bytes, as CUDA does.
KNOWN_GAPS: set[str] = set()
PARAMS = [pytest.param(*c, id=c[0], marks=pytest.mark.xfail(
    strict=True, reason="the shim's 16-byte 2-vectors are not 16-aligned"))
    if c[0] in KNOWN_GAPS else pytest.param(*c, id=c[0]) for c in CASES]


def source(params: str, stmt: str) -> str:
    return f"{PRELUDE}__global__ void k({params}) {{ {stmt}; }}\n"


@pytest.fixture(scope="module")
def case_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("atomics")
    for name, params, stmt, _ in CASES:
        (d / f"{name}.cu").write_text(source(params, stmt))
    return d


@pytest.mark.parametrize(("name", "params", "stmt", "accepted"), PARAMS)
def test_front_end_accepts_what_nvcc_accepts(case_dir, name, params, stmt, accepted):
    path = case_dir / f"{name}.cu"
    if accepted:
        result = parse_file(str(path))
        assert [d.format() for d in result.diagnostics] == []
        assert [k.name for k in result.unit.kernels] == ["k"]
    else:
        with pytest.raises(CudafuseError) as err:
            parse_file(str(path))
        assert f"{name}.cu:" in str(err.value)
        assert "no matching function" in str(err.value) or "ambiguous" in str(err.value)


def _nvcc(path: Path) -> tuple[str, int, str]:
    proc = subprocess.run(["nvcc", "-arch=sm_90", "-c", str(path), "-o", "/dev/null"],
                          capture_output=True, text=True, timeout=300)
    return path.stem, proc.returncode, proc.stderr


# nvcc checks the expectations written above (this test's own cases), no cudafuse code: its
# verdict changes only with the cases or the toolkit, and it takes about 1 s of CPU a case,
# so `make test-slow` asks it about every case (issue 27; the default suite asked about
# every 5th, 19 CPU-s).
@pytest.mark.nvcc
@pytest.mark.slow
@pytest.mark.parametrize("cases", [pytest.param(CASES, id="all")])
def test_nvcc_agrees(case_dir, cases):
    assert {c[3] for c in cases} == {True, False}
    # One test, two workers (nvcc dominates; the machines here have two cores).
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = {name: (rc, err) for name, rc, err in
                   pool.map(_nvcc, [case_dir / f"{c[0]}.cu" for c in cases])}
    wrong = [f"{name}: nvcc {'rejects' if accepted else 'accepts'} it\n{results[name][1]}"
             for name, _, _, accepted in cases if (results[name][0] == 0) != accepted]
    assert not wrong, "\n".join(wrong)
