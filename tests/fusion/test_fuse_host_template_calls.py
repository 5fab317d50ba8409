"""A host function template called from another host function (issue 25): cudafuse writes an
explicit specialisation for each instantiation the file uses (frontend/host_instances.py),
and clang resolves the call, `run_t<float>(...)`, deduced `run_t(...)` or with a non-type
argument `run_b<float, 64>(...)`, to that copy. The copy is its template's, not an overload
of it: the call is judged by the copy's body (two launches: no wrapper, so the caller's
sequence continues across it only where what it touches allows), while a real overload set
of wrappers is still refused as overloaded. Fused and original are compared element by
element under the emulator."""

from __future__ import annotations

import pytest
from equivalence import compare_entry, fuse_file

SOURCE = r"""
__global__ void ht_add(const float *x, float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] = x[i] + 1.0f; }
template <typename T> __global__ void ht_mul(const T *a, T *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) t[i] = a[i] * T(2); }
template <typename T> __global__ void ht_off(const T *t, T *u, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) u[i] = t[i] + T(3); }
__global__ void ht_sub(const float *u, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = u[i] - 1.0f; }
__global__ void ht_sq(const float *y, float *z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) z[i] = y[i] * y[i]; }

template <typename T> void run_t(T *a, T *t, T *u, int n) {
  ht_mul<T><<<(n + 127) / 128, 128>>>(a, t, n);
  ht_off<T><<<(n + 127) / 128, 128>>>(t, u, n);
}

template <typename T, int B> void run_b(T *a, T *t, T *u, int n) {
  ht_mul<T><<<(n + B - 1) / B, B>>>(a, t, n);
  ht_off<T><<<(n + B - 1) / B, B>>>(t, u, n);
}

// A true overload set of one-launch wrappers.
void wrap(const float *u, float *y, int n) { ht_sub<<<(n + 127) / 128, 128>>>(u, y, n); }
void wrap(const double *u, double *y, int n) {
  ht_off<double><<<(n + 127) / 128, 128>>>(u, y, n);
}

// The call reads what the launch before it writes: the sequence is cut there.
void ht_explicit(const float *x, float *a, float *t, float *u, float *y, float *z, int n) {
  ht_add<<<(n + 127) / 128, 128>>>(x, a, n);
  run_t<float>(a, t, u, n);
  ht_sub<<<(n + 127) / 128, 128>>>(u, y, n);
  ht_sq<<<(n + 127) / 128, 128>>>(y, z, n);
}

// The call touches nothing the launches around it use: they fuse across it.
void ht_deduced(const float *x, float *a, float *t, float *u, float *y, float *z, int n) {
  ht_add<<<(n + 127) / 128, 128>>>(x, y, n);
  run_t(a, t, u, n);
  ht_sq<<<(n + 127) / 128, 128>>>(y, z, n);
}

void ht_nontype(float *a, float *t, float *u, float *y, float *z, int n) {
  run_b<float, 64>(a, t, u, n);
  ht_sub<<<(n + 127) / 128, 128>>>(u, y, n);
  ht_sq<<<(n + 127) / 128, 128>>>(y, z, n);
}

void ht_overloaded(float *u, float *y, float *z, int n) {
  wrap(u, y, n);
  ht_sq<<<(n + 127) / 128, 128>>>(y, z, n);
}
"""

ENTRIES = ["ht_explicit", "ht_deduced", "ht_nontype"]


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("ht")
    src, out = folder / "host_templates.cu", folder / "fused.cu"
    src.write_text(SOURCE)
    return src, out, fuse_file(src, out, fuse_all=True)


def _breaks(result, host: str) -> list[str]:
    return [why for h, _, _, why in result.breaks if h == host]


def test_groups(fused) -> None:
    _, _, result = fused
    groups = sorted((g.host, tuple(g.kernels)) for g in result.groups)
    # each template's copy fuses its own two launches; the callers' launches fuse around
    # the call where the call touches nothing they use
    assert ("run_t", ("ht_mul", "ht_off")) in groups
    assert ("run_b", ("ht_mul", "ht_off")) in groups
    assert ("ht_explicit", ("ht_sub", "ht_sq")) in groups
    assert ("ht_deduced", ("ht_add", "ht_sq")) in groups
    assert ("ht_nontype", ("ht_sub", "ht_sq")) in groups


def test_copy_is_no_overload(fused) -> None:
    _, _, result = fused
    # (a call with no launch before it is noted with why its callee is no wrapper)
    whys = _breaks(result, "ht_nontype")
    assert any("'run_b' launches 2 kernels" in w for w in whys), whys
    everything = " ".join(w for *_, w in result.breaks)
    assert "'run_t' is overloaded" not in everything
    assert "'run_b' is overloaded" not in everything


def test_real_overload_set_stays_refused(fused) -> None:
    _, _, result = fused
    assert any("'wrap' is overloaded" in w for w in _breaks(result, "ht_overloaded"))


@pytest.mark.slow  # (about 10 s: the emulator builds both programs)
@pytest.mark.parametrize("entry", ENTRIES)
def test_fused_matches_original(fused, entry: str) -> None:
    src, out, _ = fused
    for n in (1000, 37):
        compare_entry(src, out, entry, {"n": n})


# Caffe's style: grid-stride kernels through a macro, a layer's template with an explicit
# instantiation for double and a call for float (two copies of one template).
CAFFE = r"""
#define CUDA_KERNEL_LOOP(i, n) \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
const int CAFFE_CUDA_NUM_THREADS = 512;
inline int CAFFE_GET_BLOCKS(const int N) {
  return (N + CAFFE_CUDA_NUM_THREADS - 1) / CAFFE_CUDA_NUM_THREADS;
}
template <typename Dtype>
__global__ void ScaleKernel(const int n, const Dtype* in, const Dtype alpha, Dtype* out) {
  CUDA_KERNEL_LOOP(index, n) { out[index] = in[index] * alpha; }
}
template <typename Dtype>
__global__ void ReLUKernel(const int n, const Dtype* in, Dtype* out) {
  CUDA_KERNEL_LOOP(index, n) { out[index] = in[index] > 0 ? in[index] : Dtype(0); }
}
__global__ void BiasKernel(const int n, const float* in, float* out) {
  CUDA_KERNEL_LOOP(index, n) { out[index] = in[index] + 0.5f; }
}
template <typename Dtype>
void scale_relu_gpu(const int count, const Dtype* bottom, Dtype* mid, Dtype* top) {
  ScaleKernel<Dtype><<<CAFFE_GET_BLOCKS(count), CAFFE_CUDA_NUM_THREADS>>>(
      count, bottom, Dtype(2), mid);
  ReLUKernel<Dtype><<<CAFFE_GET_BLOCKS(count), CAFFE_CUDA_NUM_THREADS>>>(count, mid, top);
}
template void scale_relu_gpu<double>(const int count, const double* bottom, double* mid,
                                     double* top);

void net_forward(const int count, const float* x, float* mid, float* top, float* b1,
                 float* b2) {
  scale_relu_gpu<float>(count, x, mid, top);
  BiasKernel<<<CAFFE_GET_BLOCKS(count), CAFFE_CUDA_NUM_THREADS>>>(count, top, b1);
  BiasKernel<<<CAFFE_GET_BLOCKS(count), CAFFE_CUDA_NUM_THREADS>>>(count, b1, b2);
}
"""


@pytest.fixture(scope="module")
def caffe(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("ht_caffe")
    src, out = folder / "layer.cu", folder / "fused.cu"
    src.write_text(CAFFE)
    return src, out, fuse_file(src, out, fuse_all=True)


def test_caffe_layer_copies(caffe) -> None:
    _, _, result = caffe
    groups = sorted((g.host, tuple(g.kernels)) for g in result.groups)
    assert groups.count(("scale_relu_gpu", ("ScaleKernel", "ReLUKernel"))) == 2  # both copies
    assert ("net_forward", ("BiasKernel", "BiasKernel")) in groups
    whys = _breaks(result, "net_forward")
    assert any("'scale_relu_gpu' launches 2 kernels" in w for w in whys), whys


@pytest.mark.slow  # (the emulator builds both programs)
def test_caffe_layer_matches_original(caffe) -> None:
    src, out, _ = caffe
    for n in (1000, 37):
        compare_entry(src, out, "net_forward", {"n": n, "count": n})
