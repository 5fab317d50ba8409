"""Inline PTX on the emulator (emu/inline_asm.py, emu/include/cudafuse_emu_ptx.h): the
translated instructions against numpy, and the located refusal of everything else."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.diagnostics import CudafuseError
from cudafuse.emu.inline_asm import translate
from cudafuse.runtime import load

M32 = 0xFFFFFFFF


@pytest.fixture(scope="module")
def lib():
    with load(PROGRAMS / "inline_ptx.cu", opt="-O1") as lib:
        yield lib


def test_lane_registers_follow_linear_thread_ids(lib):
    bx, by = 24, 4  # warps straddle rows
    out = np.zeros((bx * by, 7), np.uint32)
    lib.launch("lane_registers", 1, (bx, by), 0, (out,))
    t = np.arange(bx * by)
    lane = t % 32
    below = ((1 << lane) - 1) & M32
    eq = (1 << lane) & M32
    ref = np.stack([lane, t // 32, below, below | eq, ~(below | eq) & M32, ~below & M32, eq], 1)
    np.testing.assert_array_equal(out, ref)


def test_warp_compaction_with_lanemask_lt(lib):
    x = np.random.default_rng(1).integers(-5, 5, 128).astype(np.int32)
    out = np.zeros(128, np.int32)
    counts = np.zeros(4, np.int32)
    lib.launch("warp_compact", 2, 64, 0, (x, out, counts))
    for w in range(4):
        kept = x[32 * w:32 * w + 32][x[32 * w:32 * w + 32] > 0]
        assert counts[w] == len(kept)
        np.testing.assert_array_equal(out[32 * w:32 * w + len(kept)], kept)


def bfind(v: int) -> int:
    return v.bit_length() - 1 if v else M32


def byte_perm(x: int, y: int, s: int) -> int:
    data = x | y << 32
    return sum(((data >> (8 * ((s >> (4 * k)) & 7))) & 0xFF) << (8 * k) for k in range(4))


def test_single_instructions(lib):
    rng = np.random.default_rng(2)
    a = rng.integers(0, 2**32, 200, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 2**32, 200, dtype=np.uint64).astype(np.uint32)
    a[:4] = [0, 1, 0x80000000, M32]
    out = np.zeros((200, 8), np.uint32)
    lib.launch("instructions", 2, 128, 0, (a, b, out, 200))
    for i, (x, y) in enumerate(zip(a.tolist(), b.tolist(), strict=True)):
        sx = x - (1 << 32) if x >> 31 else x
        ref = [bfind(x), bfind(~sx & M32 if sx < 0 else sx), int(f"{x:032b}"[::-1], 2),
               bin(x).count("1"), 32 - x.bit_length(), byte_perm(x, y, 0x5140),
               7 + sum(abs((x >> s & 0xFF) - (y >> s & 0xFF)) for s in (0, 8, 16, 24)), y]
        assert out[i].tolist() == ref, i


def test_fma_and_compiler_barrier(lib):
    rng = np.random.default_rng(3)
    a, b, c = (rng.standard_normal(100).astype(np.float32) for _ in range(3))
    out = c.copy()
    lib.launch("fused_multiply_add", 1, 128, 0, (a, b, out, 100))
    ref = (a.astype(np.float64) * b + c).astype(np.float32)  # fma: one rounding
    np.testing.assert_array_equal(out, ref)


def test_timers_do_not_go_back(lib):
    out = np.zeros(2, np.uint64)
    lib.launch("timers", 1, 1, 0, (out,))
    assert out.tolist() == [1, 1]


@pytest.mark.parametrize("stmt", [
    'asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p));',
    'asm("{ .reg .pred q; setp.ne.u32 q, %1, 0; selp.u32 %0, 1, 0, q; }" : "=r"(v) : "r"(*p));',
    'asm("mov.u32 %0, %%laneid; add.u32 %0, %0, 1;" : "=r"(v));',
    'asm("add.u32 %0, %1, %2;" : "=r"(v) : "r"(*p), "r"(1u));',
])
def test_other_ptx_is_refused_at_its_statement(tmp_path: Path, stmt: str):
    src = tmp_path / "ptx.cu"
    src.write_text("__global__ void k(unsigned *p) {\n  unsigned v;\n"
                   f"    {stmt}\n  *p = v;\n}}\n")
    with pytest.raises(CudafuseError) as info:
        load(src, opt="-O0")
    (d,) = info.value.diagnostics
    assert (d.line, d.col) == (3, 5)
    assert d.message.startswith("inline assembly is not supported by the emulator (only the "
                                "CUDAFUSE_BAR_SYNC(id, n) macro and the single PTX "
                                'instructions of docs/emulation.md, "Inline PTX", are)')


def test_ptx_in_an_own_header_is_translated(tmp_path: Path):
    (tmp_path / "lane.cuh").write_text(
        "// a helper header, as cuda-samples keep them\n__device__ unsigned lane_id() {\n"
        "  unsigned r;\n  asm volatile(\"mov.u32 %0, %%laneid;\"\n"
        "               : \"=r\"(r));\n  return r;\n}\n")
    src = tmp_path / "main.cu"
    src.write_text('#include "lane.cuh"\n'
                   "__global__ void k(unsigned *p) { p[threadIdx.x] = lane_id(); }\n")
    with load(src, opt="-O0") as lib:
        out = np.zeros(70, np.uint32)
        lib.launch("k", 1, 70, 0, (out,))
    np.testing.assert_array_equal(out, np.arange(70) % 32)


def test_translation_keeps_operand_expressions():
    tr = translate('asm("mov.u32 %0, %%laneid;" : "=r"(o[i + 1]))  ;')
    assert tr is not None and tr.end == len('asm("mov.u32 %0, %%laneid;" : "=r"(o[i + 1]))')
    assert tr.code == "::cudafuse_emu::ptx::set((o[i + 1]), ::cudafuse_emu::ptx::laneid())"
    assert translate('asm("");').code == "((void)0)"
    assert translate('__asm__ __volatile__("popc.b32 %0, %1;" : "=r"(c) : "r"(m));') is not None
