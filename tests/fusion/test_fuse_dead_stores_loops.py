"""respell/dead_stores.py leaves out a store to a local only where no later line can read
it: not inside a loop, whether the IR lowers the loop as a For/While or keeps it opaque (a
range-for, a for whose header is a macro's): there a later iteration reads what an earlier
line of the body stored."""

from __future__ import annotations

from pathlib import Path

from cudafuse.frontend import parse_file
from cudafuse.passes.vertical.kernel.respell.dead_stores import dead_stores

PROGRAM = r"""
#define EACH(k, n) for (int k = 0; k < n; ++k)
__global__ void plain(float *out, int n) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < n) { out[tid] = 1.0f; tid += blockDim.x * gridDim.x; }
}
__global__ void macro_loop(float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.0f;
    if (i < n) {
        EACH(k, 4) { out[i * 4 + k] = s; s += 1.0f; }
    }
}
__global__ void range_loop(float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    const float taps[3] = {1.0f, 2.0f, 3.0f};
    float s = 0.0f;
    int k = 0;
    if (i < n) {
        for (float t : taps) { out[i * 3 + k] = s; s += t; k++; }
    }
}
"""


def _edits(tmp_path: Path) -> dict[str, int]:
    path = tmp_path / "loops.cu"
    path.write_text(PROGRAM)
    unit = parse_file(str(path)).unit
    data = path.read_bytes()
    return {fn.name: len(dead_stores(fn, data)[0]) for fn in unit.functions
            if fn.body is not None}


def test_stores_in_opaque_loops_stay(tmp_path: Path) -> None:
    edits = _edits(tmp_path)
    assert edits["plain"] == 1  # (the left-behind grid-stride step goes)
    assert edits["macro_loop"] == 0
    assert edits["range_loop"] == 0
