"""Inline PTX barriers: `bar.sync a[, b]` and `barrier.sync[.aligned] a[, b]`, with a and b
immediates or operands, become the emulator's barriers (named, counted), and their kernel
runs on fibers as one calling __syncthreads does (issue 31: a third-party course's bar.sync
demo was refused at its first asm)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest_emu import PROGRAMS

from cudafuse.emu import inline_asm
from cudafuse.emu.fibers import fiber_functions
from cudafuse.frontend.parse import parse_file
from cudafuse.runtime import load


@pytest.mark.parametrize(("asm", "call"), [
    ('asm volatile("bar.sync 0;");', "__cf_bar_sync_all((int)0,"),
    ('asm volatile("bar.sync %0;" :: "r"(id));', "__cf_bar_sync_all((int)(id),"),
    ('asm volatile("bar.sync 1, %0;" :: "r"(n));', "bar_sync((int)1, (int)(n),"),
    ('asm volatile("barrier.sync.aligned %0, 64;" :: "r"(k + 1));',
     "bar_sync((int)(k + 1), (int)64,"),
    ('asm("bar.sync %1, %0;" :: "r"(n), "r"(id));', "bar_sync((int)(id), (int)(n),"),
])
def test_each_form_becomes_the_emulators_barrier(asm, call):
    tr = inline_asm.translate(asm)
    assert tr is not None and call in tr.code and "__LINE__" in tr.code
    assert inline_asm.waits_at_barrier(asm)


def test_other_instructions_are_no_barrier():
    assert not inline_asm.waits_at_barrier('asm("mov.u32 %0, %%laneid;" : "=r"(x));')
    # an operand the statement does not have: not translated, so refused at the statement
    assert inline_asm.translate('asm volatile("bar.sync 1, %1;" :: "r"(n));') is None
    assert not inline_asm.waits_at_barrier('asm volatile("bar.sync 1, %1;" :: "r"(n));')
    # arrive-only and reducing barriers are not translated (named by why_not)
    assert inline_asm.translate('asm volatile("bar.arrive 1, 64;");') is None


def test_a_block_with_predicates_and_reducing_barriers():
    asm = ('asm volatile("{ .reg .pred %%p, %%q; setp.lt.u32 %%p, %2, 7; '
           'bar.red.and.pred %%q, 1, 64, !%%p; selp.b32 %0, 5, 9, %%q; '
           'bar.red.popc.u32 %1, 2, %%p; }" : "=r"(a), "=r"(n) : "r"(x));')
    code = inline_asm.translate(asm).code
    assert "< ((uint32_t)7ll)" in code  # setp.lt on the unsigned type
    assert "__cf_bar_red_ptx(1, ((int)1ll), ((int)64ll), (!" in code
    assert "? ((uint32_t)5ll) : ((uint32_t)9ll)" in code
    assert "__cf_bar_red_ptx(0, ((int)2ll), 0, " in code  # no count: the whole block
    assert inline_asm.waits_at_barrier(asm)
    # a float `ne` is ordered: false when either side is NaN (C's != is true)
    fne = inline_asm.translate('asm("{ .reg .pred %%p; setp.ne.f32 %%p, %1, %2; '
                               'selp.u32 %0, 1, 0, %%p; }" : "=r"(r) : "f"(a), "f"(b));')
    assert "== ((float)__cf_op1) &&" in fne.code
    # a special register is no destination
    assert inline_asm.translate('asm("{ setp.eq.s32 %%laneid, %0, 0; }" :: "r"(x));') is None


def test_a_kernel_with_a_ptx_barrier_runs_on_fibers():
    unit = parse_file(str(PROGRAMS / "named_barriers_ptx.cu")).unit
    assert {"halves", "votes"} <= fiber_functions(unit)


@pytest.mark.slow  # a build of its own
def test_the_barriers_synchronise_and_reduce():
    out = np.zeros(256, np.int32)
    with load(PROGRAMS / "named_barriers_ptx.cu", opt="-O0") as lib:
        lib.call("run_halves", out)
        t = np.arange(128)
        # without the barriers a thread would read s[] before its partner wrote it
        np.testing.assert_array_equal(out[:128], 2 * (127 - t) + 128)
        np.testing.assert_array_equal(out[128:], 2 * (255 - t))
        for flags in (np.zeros(64, np.int32), (np.arange(64) % 5 == 3).astype(np.int32)):
            votes = np.zeros(64, np.int32)
            lib.call("run_votes", flags, votes)
            # any flag set (bar.red.or) * 1000 + the threads whose flag is clear (popc, !p)
            expect = int(flags.any()) * 1000 + int((flags == 0).sum())
            np.testing.assert_array_equal(votes, np.full(64, expect, np.int32))
