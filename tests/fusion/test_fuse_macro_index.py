"""A pipeline indexing through a macro (`IDX(x, y)` expanding to `(y) * w + (x)`, `w` from
the enclosing scope): the fused program prints the producer's stride as `w`, never as the
macro call (which named variables that do not exist where it was printed, and did not
compile), and computes what the original does, every element, borders included."""

from __future__ import annotations

from pathlib import Path

from equivalence import fuse_file, run_both

PROGRAM = Path(__file__).parent / "programs" / "macro_index.cu"


def test_macro_indexing_fuses_and_matches(tmp_path: Path) -> None:
    out = tmp_path / "fused.cu"
    result = fuse_file(PROGRAM, out, fuse_all=True)
    assert [g.kernels for g in result.groups] == [["grad", "scale"]]
    text = out.read_text()
    assert "(int)cf_i % (w), (int)cf_i / (w)" in text
    assert "% (IDX(" not in text
    for w, h in ((37, 19), (64, 8), (1, 5)):
        run_both(PROGRAM, out, "pipeline", w, h)


def test_an_expression_is_spelled_by_its_own_text_only() -> None:
    from cudafuse.ir import nodes as n
    from cudafuse.passes.vertical.emit.codegen import _spells

    w, y = n.Ref("w", "param"), n.Ref("y", "local")
    # A qualified name is its own spelling; a macro invocation is not.
    assert _spells("cfg::W", n.Ref("W", "global"))
    assert _spells(" ::Mode::B ", n.Ref("B", "enum"))
    assert not _spells("IDX(x, y)", w)
    assert not _spells("W2", n.Ref("W", "global"))
    # A compound expression: its text must name every variable it reads.
    assert _spells("y * w", n.Binary("*", y, w))
    assert not _spells("IDX(x, y)", n.Binary("*", y, w))


STORE_MACRO = """\
#define SET(d, i, v) d[i] = v
__global__ void scale(const float *in, float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) SET(a, i, in[i] * 2.0f + 1.0f);
}
__global__ void square(const float *a, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] * a[i];
}
void chain(const float *in, float *out, int n) {
  float *a;
  cudaMalloc(&a, n * sizeof(float));
  scale<<<(n + 127) / 128, 128>>>(in, a, n);
  square<<<(n + 127) / 128, 128>>>(a, out, n);
  cudaFree(a);
}
"""


def test_a_store_written_by_a_macro_is_left_unfused_with_the_reason(tmp_path: Path) -> None:
    # The statement and its value both carry the invocation's span: the value's text cannot
    # be cut out of it (the fused program did not parse: exit 3). Now a refusal, the input
    # written back as it was.
    src = tmp_path / "store_macro.cu"
    src.write_text(STORE_MACRO)
    out = tmp_path / "fused.cu"
    result = fuse_file(src, out, fuse_all=True)
    assert all(len(g.kernels) == 1 for g in result.groups)
    assert out.read_text() == STORE_MACRO
    assert any("'scale' stores 'a' through a macro (line 4)" in note for note in result.notes)
