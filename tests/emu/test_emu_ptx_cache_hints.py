"""Inline PTX written for the memory hierarchy runs under the emulator (issue 31: a book's
inline-PTX chapter, wbing520/ai-performance-engineering ch9, prefetches into L2 before its
loads): `prefetch`/`prefetchu` are hints with no effect on results, and `st.global` with a
cache operator or as a vector is a plain store, as `ld.global` is a plain load."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cudafuse.emu.ptx_block import Untranslated, translate_block
from cudafuse.runtime import load

PROG = r"""
// Copies pairs through hand-written PTX: a prefetch of the next tile, a streaming load,
// and a write-through vector store of the pair, doubled.
__global__ void twice_pairs(const float *src, float *dst, int pairs) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= pairs) return;
  asm volatile("prefetch.global.L2::evict_last [%0];" :: "l"(src + 2 * i + 64));
  asm volatile("prefetchu.L1 [%0];" :: "l"(src + 2 * i));
  float a, b;
  asm("ld.global.cs.f32 %0, [%2];\n\tld.global.cs.f32 %1, [%2+4];"
      : "=f"(a), "=f"(b) : "l"(src + 2 * i));
  asm volatile("st.global.wt.v2.f32 [%0], {%1, %2};" :: "l"(dst + 2 * i), "f"(a + a), "f"(b + b)
               : "memory");
}
"""


def test_prefetch_and_cached_vector_stores_run(tmp_path: Path) -> None:
    (tmp_path / "p.cu").write_text(PROG)
    src = np.arange(202, dtype=np.float32) * 0.5
    dst = np.zeros(202, np.float32)
    with load(tmp_path / "p.cu", opt="-O0") as lib:
        lib.launch("twice_pairs", (2,), (64,), 0, (src, dst, 101))
    np.testing.assert_array_equal(dst, src * 2)


@pytest.mark.parametrize("template", ["prefetch.shared.L1 [%0];", "prefetch.global.L2 %0;",
                                      "st.shared.f32 [%0], %1;", "st.global.v4.f32 [%0], %1;"])
def test_what_it_cannot_read_is_still_refused(template: str) -> None:
    with pytest.raises(Untranslated):
        translate_block(template, [], [("l", "p"), ("f", "x")])
