"""ld/st with a memory order in inline PTX (flags between blocks), in member functions the
front end does not lower and with nvcc's comma-less operand lists: translated to atomic
accesses of the PTX width, every element checked."""

from __future__ import annotations

import numpy as np
from conftest_emu import PROGRAMS

from cudafuse.emu.inline_asm import translate
from cudafuse.frontend.respell import comma_between_asm_operands
from cudafuse.runtime import load


def test_flags_round_trip_through_acquire_and_release() -> None:
    n = 300
    flags = np.zeros(n, np.uint8)
    words = np.arange(n, dtype=np.uint32) * 1000
    out = np.zeros(n, np.uint32)
    with load(PROGRAMS / "ptx_flags.cu", opt="-O1") as lib:
        lib.launch("mark_then_read", 3, 128, 0, (flags, words, out, n))
    ref = (np.arange(n) * 7 + 1) & 0xFF
    np.testing.assert_array_equal(flags, ref)
    np.testing.assert_array_equal(out, ref + words)


def test_the_operands_take_the_numbers_the_template_gives() -> None:
    st = translate('asm("st.release.sys.global.u32 [%1], %0;" :: "r"(v), "l"(p));')
    assert st is not None and ("__cf_store<::__cf_emu::__cf_ptx::__cf_u32_t>((p), (v), "
                               "__ATOMIC_RELEASE)") in st.code
    assert translate('asm("ld.acquire.sys.global.u32 %0, [%1];" :: "l"(p));') is None
    assert translate('asm("ld.acquire.sys.shared.u32 %0, [%1];" : "=r"(r) : "l"(p));') is None


def test_a_missing_comma_between_operands_is_respelled_at_the_same_length() -> None:
    text = b'asm volatile("st [%1], %0;" ::"r"(f(x)) "l"(p) : "memory"); g("a") "b";'
    out = comma_between_asm_operands(text)
    assert out == text.replace(b'(f(x)) "l"', b'(f(x)),"l"') and len(out) == len(text)
    assert comma_between_asm_operands(b'asm("x" : "=r"(a) : "r"(b), "r"(c));') is None
