"""Host launch sequences and the buffer DAG between them."""

from __future__ import annotations

from cudafuse.analysis.report import analyze_unit

KERNELS = """
__global__ void blur(const float* in, float* out, int n) {
  GX;
  if (x > 0 && x < n - 1) out[x] = in[x - 1] + in[x] + in[x + 1];
}
__global__ void scale(const float* in, float* out, float s, int n) {
  GX;
  if (x < n) out[x] = s * in[x];
}
__global__ void bump(float* a, int n) {
  GX;
  if (x < n) a[x] += 1.0f;
}
"""


def pipeline(unit_of, host: str):
    _, pipes = analyze_unit(unit_of(KERNELS + host))
    return pipes[0]


def test_chain_with_temporary(unit_of):
    p = pipeline(unit_of, """
void run(const float* d_in, float* d_out, int n, cudaStream_t st) {
  float* tmp;
  cudaMalloc(&tmp, n * sizeof(float));
  blur<<<(n + 255) / 256, 256, 0, st>>>(d_in, tmp, n);
  scale<<<(n + 255) / 256, 256>>>(tmp, d_out, 2.0f, n);
  cudaFree(tmp);
}""")
    assert [la.kernel for la in p.launches] == ["blur", "scale"]
    la = p.launches[0]
    assert (la.grid, la.block, la.shared, la.stream) == ("(n + 255) / 256", "256", "0", "st")
    assert p.launches[1].shared is None and p.launches[1].stream is None
    assert [(a.param, a.expr, a.buffer, a.access) for a in la.args] == [
        ("in", "d_in", "d_in", "r"), ("out", "tmp", "tmp", "w"), ("n", "n", "", "")]
    assert [(d.src, d.dst, d.kind, d.buffer) for d in p.deps] == [(0, 1, "raw", "tmp")]
    assert p.inputs == ("d_in",)
    assert p.outputs == ("d_out",)
    assert p.temporaries == ("tmp",)
    g = p.graph
    assert list(g.edges(data=True)) == [(0, 1, {"buffers": ["tmp"]})]
    assert g.nodes[1]["kernel"] == "scale"


def test_war_waw_and_offsets(unit_of):
    p = pipeline(unit_of, """
void run(float* a, float* b, int n) {
  float* tail = a + n / 2;
  scale<<<1, 256>>>(a, b, 1.0f, n);
  bump<<<1, 256>>>(tail, n / 2);
  blur<<<1, 256>>>(b, a, n);
}""")
    kinds = {(d.src, d.dst, d.kind, d.buffer) for d in p.deps}
    assert (0, 1, "war", "a") in kinds  # bump writes a (through tail) after scale read it
    assert (1, 2, "waw", "a") in kinds
    assert (0, 2, "raw", "b") in kinds
    assert (1, 2, "war", "a") in kinds  # bump also read a
    assert p.launches[1].args[0].buffer == "a"
    assert p.inputs == ("a",)
    assert set(p.outputs) == {"a", "b"}


def test_live_out_by_later_use(unit_of):
    p = pipeline(unit_of, """
float run(const float* d_in, int n, float* host) {
  float *t1, *t2;
  cudaMalloc(&t1, n * 4); cudaMalloc(&t2, n * 4);
  blur<<<1, 256>>>(d_in, t1, n);
  scale<<<1, 256>>>(t1, t2, 3.0f, n);
  cudaMemcpy(host, t2, n * 4, cudaMemcpyDeviceToHost);
  cudaFree(t1); cudaFree(t2);
  return host[0];
}""")
    assert p.outputs == ("t2",)
    assert p.temporaries == ("t1",)


def test_unknown_kernel_is_conservative(unit_of):
    p = pipeline(unit_of, """
__global__ void ext(float* a, const float* b, int n);
void run(float* a, float* b, int n) {
  ext<<<1, 32>>>(a, b, n);
  bump<<<1, 32>>>(b, n);
}""")
    assert not p.launches[0].resolved
    assert p.launches[0].args[1].access == "rw"
    assert {(d.src, d.dst, d.kind) for d in p.deps} >= {(0, 1, "raw"), (0, 1, "waw")}


def test_partial_writes_do_not_hide_earlier_writers(unit_of):
    p = pipeline(unit_of, """
void run(const float* src, float* dst, int n) {
  float* t;
  cudaMalloc(&t, n * 4);
  scale<<<1, 256>>>(src, t, 2.0f, n);
  bump<<<1, 256>>>(t + n / 2, n / 2);
  blur<<<1, 256>>>(t, dst, n);
  cudaFree(t);
}""")
    raw = {(d.src, d.dst) for d in p.deps if d.kind == "raw"}
    assert raw == {(0, 1), (0, 2), (1, 2)}
    assert p.temporaries == ("t",)
    assert p.inputs == ("src",)


def test_offset_write_first_means_outside_data_flows_in(unit_of):
    p = pipeline(unit_of, """
void run(float* a, float* dst, int n) {
  bump<<<1, 256>>>(a + 1, n - 1);
  blur<<<1, 256>>>(a, dst, n);
}""")
    assert p.inputs == ("a",)
    assert {(d.src, d.dst, d.kind) for d in p.deps} == {(0, 1, "raw")}


def test_struct_arguments_hold_buffers(unit_of):
    p = pipeline(unit_of, """
struct Two { float* a; const float* b; };
__global__ void viaStruct(Two t, int n);
void run(float* x, const float* y, int n) {
  viaStruct<<<1, 32>>>(Two{x, y}, n);
  bump<<<1, 32>>>(x, n);
}""")
    arg = p.launches[0].args[0]
    assert (arg.buffer, arg.access) == ("x, y", "rw")
    assert (0, 1, "raw", "x") in {(d.src, d.dst, d.kind, d.buffer) for d in p.deps}
