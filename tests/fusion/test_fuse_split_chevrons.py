"""A pipeline whose launches split their chevrons (`k << < g, b >> > (...)`, which nvcc
accepts) fuses, and the fused program computes what the original does, every element."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from equivalence import fuse_file

from cudafuse.frontend.respell import join_split_chevrons, swap_space_alignas
from cudafuse.runtime import load

SRC = Path(__file__).parents[1] / "corpus" / "launch_split_chevrons.cu"


def test_joining_keeps_every_offset_and_nested_templates() -> None:
    data = SRC.read_bytes()
    joined = join_split_chevrons(data)
    assert joined is not None and len(joined) == len(data)
    assert b"twice <<<  (n + 127) / 128, 128 >>>  (in, tmp, n);" in joined
    assert b"dim3(128, 1) >>>  (tmp, out, n);" in joined
    assert b"Box<Box<T> > inner;" in joined  # not a launch
    assert join_split_chevrons(b"k<<<1, 1>>>(p);") is None


def test_split_chevrons_fuse_and_match(tmp_path: Path) -> None:
    out = tmp_path / "fused.cu"
    result = fuse_file(SRC, out, scratch=frozenset({"tmp"}))
    assert [g.kernels for g in result.groups] == [["twice", "plus1"]]
    n = 1000
    rng = np.random.default_rng(0)
    x = rng.random(n, dtype=np.float32)
    outs = []
    for path in (SRC, out):
        tmp, res = np.zeros(n, np.float32), np.zeros(n, np.float32)
        with load(path, backend="emu") as lib:
            lib.call("pipeline", x, tmp, res, n)
        outs.append(res)
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[0], 2.0 * x + 1.0)


MACRO_LAUNCH = """\
#define CHECK(...) __VA_ARGS__
__global__ void twice(const float *in, float *tmp, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tmp[i] = 2.0f * in[i];
}
__global__ void plus1(const float *tmp, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tmp[i] + 1.0f;
}
extern "C" void pipeline(const float *in, float *tmp, float *out, int n) {
  twice<<<(n + 127) / 128, 128>>>(in, tmp, n);
  CHECK(plus1<<<(n + 127) / 128, 128>>>(tmp, out, n));
}
"""


def test_a_launch_inside_a_macro_argument_leaves_its_group_whole(tmp_path: Path) -> None:
    # The group cannot be rewritten (the launch is located at the macro's name): it is left
    # unfused with a note, and no edit of it survives (the first launch was once renamed
    # while the second was not, which gave a call of an undefined kernel).
    src = tmp_path / "m.cu"
    src.write_text(MACRO_LAUNCH)
    result = fuse_file(src, tmp_path / "out.cu", scratch=frozenset({"tmp"}))
    assert result.output == src.read_bytes()
    assert result.notes == ["pipeline: group ['twice', 'plus1'] left unfused: the launch of "
                            "'plus1' is written inside a macro invocation"]


def test_alignas_after_a_space_attribute_is_swapped_in_place() -> None:
    data = b"  __shared__ alignas(alignof(float4)) float a[4];\n  __shared__ float b[4];\n"
    out = swap_space_alignas(data)
    assert out == b"  alignas(alignof(float4)) __shared__ float a[4];\n  __shared__ float b[4];\n"
    assert swap_space_alignas(b"alignas(16) __shared__ float a[4];") is None


RESPELLED = """\
__global__ void shift(const float *in, float *out, int n) {
  __shared__ alignas(16) float tile[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = tile[(threadIdx.x + 1) % 64];
}
extern "C" void go(const float *in, float *out, int n) {
  shift << < (n + 63) / 64, 64 >> > (in, out, n);
}
"""


def test_respelled_text_reaches_gxx_and_the_users_reaches_outputs(tmp_path: Path) -> None:
    # The emulator's g++ gets the respelling (it rejects `__shared__ alignas` as clang does);
    # a fused or unchanged output keeps the user's bytes wherever nothing was edited.
    src = tmp_path / "r.cu"
    src.write_text(RESPELLED)
    n = 100
    x, out = np.arange(n, dtype=np.float32), np.zeros(n, np.float32)
    with load(src, backend="emu") as lib:
        lib.call("go", x, out, n)
    want = np.array([x[(i // 64) * 64 + (i % 64 + 1) % 64] if (i // 64) * 64 + (i % 64 + 1) % 64
                     < n else 0.0 for i in range(n)], np.float32)
    np.testing.assert_array_equal(out, want)
    result = fuse_file(src, tmp_path / "same.cu")
    assert result.output == src.read_bytes()
