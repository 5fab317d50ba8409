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
    'asm("{ .reg .pred q; setp.ne.u32 q, %1, 0; @q mov.u32 %0, 1; }" : "=r"(v) : "r"(*p));',
    'asm("mov.u32 %0, %%laneid; add.u32 %0, %0, 1;" : "=r"(v));',
    'asm("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(*p));',
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
                                "CUDAFUSE_BAR_SYNC(id, n) macro and the PTX of "
                                'docs/emulation.md, "Inline PTX", are): the emulator does not '
                                "translate its ")


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
    assert tr.code == ("::__cf_emu::__cf_ptx::__cf_set((o[i + 1]), "
                       "::__cf_emu::__cf_ptx::__cf_laneid())")
    assert translate('asm("");').code == "((void)0)"
    assert translate('__asm__ __volatile__("popc.b32 %0, %1;" : "=r"(c) : "r"(m));') is not None


def _s32(v: int) -> int:
    return v - (1 << 32) if v >> 31 else v


def _prmt(x: int, y: int, s: int) -> int:
    """prmt.b32's default mode (PTX ISA): a selector nibble's bit 3 replicates the sign."""
    data, r = x | y << 32, 0
    for k in range(4):
        sel = (s >> (4 * k)) & 15
        byte = (data >> (8 * (sel & 7))) & 0xFF
        r |= (0xFF if byte & 0x80 else 0) << (8 * k) if sel & 8 else byte << (8 * k)
    return r


def test_sequences_as_ccminer_writes_them(lib):
    rng = np.random.default_rng(5)
    n = 300
    x = rng.integers(0, 2**64, n, dtype=np.uint64)
    y = rng.integers(0, 2**64, n, dtype=np.uint64)
    x[:4] = [0, 2**64 - 1, 0x8000000000000000, 0xFFFFFFFF]  # carries, borrows, signs
    y[:4] = [2**64 - 1, 1, 0x8000000000000000 + 40, 1 << 32]
    out = np.zeros(12 * n, np.uint64)
    lib.launch("sequences", 2, 256, 0, (x, y, out, n))
    M64 = 2**64 - 1
    for i, (a, b) in enumerate(zip(x.tolist(), y.tolist(), strict=True)):
        lo, hi, blo, bhi = a & M32, a >> 32, b & M32, b >> 32
        s = b & 63
        both = hi << 32 | lo
        w = (_s32(lo) * _s32(blo)) >> 16
        # ccminer's "uint2 a*b": hi(ax bx) + lo(ay bx), its carry added with lo(ay by)
        t = ((hi * blo) & M32) + ((lo * blo) >> 32)
        product = ((((hi * bhi) & M32) + (t & M32) + (t >> 32)) & M32) << 32 | (lo * blo) & M32
        ref = [int.from_bytes(a.to_bytes(8, "little"), "big"), product, (a + b) & M64,
               (a - b) & M64,
               ((both >> (s & 31)) & M32),
               ((both << min(s, 32)) >> 32) & M32,
               _prmt(lo, blo, bhi),
               (_s32(lo) >> min(s, 31)) & M32,
               (lo << s) & M32 if s < 32 else 0,
               lo ^ blo ^ hi,
               ((_s32(lo) * _s32(blo)) >> 32) & M32,
               (w & M32) ^ ((w >> 32) & M32)]
        assert out[12 * i:12 * i + 12].tolist() == ref, i


def test_untranslated_ptx_is_named():
    from cudafuse.emu.inline_asm import why_not

    assert why_not('asm("{ .reg .b32 t; cvt.rn.f32.u32 t, %1; mov.b32 %0, t; }" : "=r"(v) '
                   ': "r"(x));') == \
        "the emulator does not translate its instruction 'cvt.rn.f32.u32'"
    assert why_not('asm("{ .reg .pred p; setp.eq.u32 p, %1, 0; @p mov.u32 %0, 1; }" : "=r"(v) '
                   ': "r"(x));') == \
        "the emulator does not translate its predicated instruction '@p mov.u32 %0, 1'"
    assert why_not('asm("add.u32 %0, %1, 1;" : "=r"(v) : "r"(x));') == ""
