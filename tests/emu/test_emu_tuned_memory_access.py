"""Memory-access idioms of hand-tuned kernels run under the emulator (issue 31):

- inline PTX written for the memory hierarchy (a book's inline-PTX chapter,
  wbing520/ai-performance-engineering ch9, prefetches into L2 before its loads):
  `prefetch`/`prefetchu` are hints with no effect on results, and `st.global` with a cache
  operator or as a vector is a plain store, as `ld.global` is a plain load;
- `__shared__` float tiles read and written as float4 (sunjxan/gemm's optimize_3.cu,
  `FLOAT4(s_a[i][k])`): shared arrays are 16-byte aligned, as on a GPU; g++ aligned a
  thread_local float array to 4 bytes, and its -O2 SSE moves then faulted (SIGSEGV)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from cudafuse.emu.ptx_block import Untranslated, translate_block
from cudafuse.runtime import Library, load

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

// A tile of floats staged through shared memory four at a time; thread 0 also reports how
// far each shared array's start is from a 16-byte boundary.
__global__ void stage_tiles(const float *in, float *out, unsigned long long *misaligned) {
  __shared__ float pad[3];
  __shared__ float tile[2][16][8];
  __shared__ float tail[1][4];
  int t = threadIdx.x;  // 32 threads, 4 floats each
  reinterpret_cast<float4 *>(&tile[1][t / 2][(t % 2) * 4])[0] =
      reinterpret_cast<const float4 *>(in)[t];
  __syncthreads();
  float4 v = reinterpret_cast<const float4 *>(&tile[1][t / 2][(t % 2) * 4])[0];
  reinterpret_cast<float4 *>(out)[t] = make_float4(v.w, v.z, v.y, v.x);
  if (t == 0) {
    pad[0] = 0.f;
    tail[0][0] = pad[0];
    misaligned[0] = (unsigned long long)(size_t)&tile[0][0][0] % 16;
    misaligned[1] = (unsigned long long)(size_t)&tail[0][0] % 16;
  }
}
"""


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    path = tmp_path_factory.mktemp("tuned") / "p.cu"
    path.write_text(PROG)
    with load(path, opt="-O0") as built:
        yield built


def test_prefetch_and_cached_vector_stores_run(lib: Library) -> None:
    src = np.arange(202, dtype=np.float32) * 0.5
    dst = np.zeros(202, np.float32)
    lib.launch("twice_pairs", (2,), (64,), 0, (src, dst, 101))
    np.testing.assert_array_equal(dst, src * 2)


def test_shared_float_tiles_are_aligned_for_float4(lib: Library) -> None:
    src = np.arange(128, dtype=np.float32)
    out = np.zeros(128, np.float32)
    misaligned = np.full(2, 99, np.uint64)
    lib.launch("stage_tiles", (1,), (32,), 0, (src, out, misaligned))
    np.testing.assert_array_equal(misaligned, 0)  # before: 4 and 4
    np.testing.assert_array_equal(out, src.reshape(-1, 4)[:, ::-1].reshape(-1))


@pytest.mark.parametrize("template", ["prefetch.shared.L1 [%0];", "prefetch.global.L2 %0;",
                                      "st.shared.f32 [%0], %1;", "st.global.v4.f32 [%0], %1;"])
def test_what_it_cannot_read_is_still_refused(template: str) -> None:
    with pytest.raises(Untranslated):
        translate_block(template, [], [("l", "p"), ("f", "x")])
