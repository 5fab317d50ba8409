// Launches of kernel templates (issue 25): each instantiation is fused by what it computes
// (frontend/instantiate.py), the template text stays as written for launches left unfused.
#include <cuda_runtime.h>
#include "templates_kernels.cuh"

template <typename T>
__global__ void scale_t(const T *in, T *out, T k, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[y * w + x] = in[y * w + x] * k;
}

// A non-type parameter as the radius of a vertical box filter (clamped at the border).
template <typename T, int R>
__global__ void blur_t(const T *in, T *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    T s = 0;
    for (int d = -R; d <= R; ++d)
        s += in[min(max(y + d, 0), h - 1) * w + x];
    out[y * w + x] = s / T(2 * R + 1);
}

template <class V>
__global__ void add_t(const V *a, const V *b, V *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i];
}

template <class V>
__global__ void square_t(const V *in, V *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    V v = in[i];
    out[i] = v * v;
}

// In a namespace, with a defaulted non-type parameter as the block size its index uses.
namespace lib {
template <typename T, int BLOCK = 128>
__global__ void affine_t(const T *in, T *out, int n)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) out[i] = in[i] * T(3) + T(sizeof(T));
}
}

// The radius reaches the body through a macro: the copy cannot be made from the text.
#define CF_TEST_RADIUS R
template <int R>
__global__ void blur_macro(const float *in, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float s = 0.f;
    for (int d = -CF_TEST_RADIUS; d <= CF_TEST_RADIUS; ++d)
        s += in[y * w + min(max(x + d, 0), w - 1)];
    out[y * w + x] = s;
}

// A macro it uses is defined again at the end of the file: the copy, read after the file,
// would mean something else.
#define CF_TEST_GAIN 2.0f
template <typename T>
__global__ void gain_t(const T *in, T *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * CF_TEST_GAIN;
}

// A template template parameter: no text stands for it.
template <typename T> struct twice_op { __device__ T operator()(T v) const { return v + v; } };
template <template <typename> class Op>
__global__ void apply_op(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = Op<float>()(in[i]);
}

void p_type(const float *in, float *t, float *out, int w, int h)
{
    dim3 b(32, 4), g((w + 31) / 32, (h + 3) / 4);
    scale_t<float><<<g, b>>>(in, t, 0.75f, w, h);
    blur_t<float, 2><<<g, b>>>(t, out, w, h);
}

void p_two_radii(const float *in, float *t, float *u, float *out, int w, int h)
{
    dim3 b(16, 8), g((w + 15) / 16, (h + 7) / 8);
    scale_t<float><<<g, b>>>(in, t, 1.5f, w, h);
    blur_t<float, 1><<<g, b>>>(t, u, w, h);
    blur_t<float, 2><<<g, b>>>(u, out, w, h);
}

void p_double(const double *in, double *t, double *out, int w, int h)
{
    dim3 b(32, 4), g((w + 31) / 32, (h + 3) / 4);
    scale_t<double><<<g, b>>>(in, t, 0.75, w, h);
    blur_t<double, 1><<<g, b>>>(t, out, w, h);
}

void p_deduced(const float *a, const float *b, float *t, float *out, int n)
{
    add_t<<<(n + 127) / 128, 128>>>(a, b, t, n);
    square_t<<<(n + 127) / 128, 128>>>(t, out, n);
}

void p_namespace(const float *in, float *t, float *out, int n)
{
    lib::affine_t<float><<<(n + 127) / 128, 128>>>(in, t, n);
    square_t<<<(n + 127) / 128, 128>>>(t, out, n);
}

// Two instantiations with no dependence between them: siblings (one thread runs both).
void p_siblings(const float *a, const float *b, float *o1, float *o2, int w, int h)
{
    dim3 bl(32, 4), g((w + 31) / 32, (h + 3) / 4);
    blur_t<float, 1><<<g, bl>>>(a, o1, w, h);
    blur_t<float, 2><<<g, bl>>>(b, o2, w, h);
}

void p_included(const float *in, float *t, float *out, int w, int h)
{
    dim3 b(32, 4), g((w + 31) / 32, (h + 3) / 4);
    scale_t<float><<<g, b>>>(in, t, 0.5f, w, h);
    hblur_t<3><<<g, b>>>(t, out, w, h);
}

void p_template_template(const float *in, float *t, float *out, int n)
{
    square_t<<<(n + 127) / 128, 128>>>(in, t, n);
    apply_op<twice_op><<<(n + 127) / 128, 128>>>(t, out, n);
}

void p_macro(const float *in, float *t, float *out, int w, int h)
{
    dim3 b(32, 4), g((w + 31) / 32, (h + 3) / 4);
    scale_t<float><<<g, b>>>(in, t, 0.5f, w, h);
    blur_macro<1><<<g, b>>>(t, out, w, h);
}

void p_redefined(const float *in, float *t, float *out, int n)
{
    gain_t<float><<<(n + 127) / 128, 128>>>(in, t, n);
    square_t<float><<<(n + 127) / 128, 128>>>(t, out, n);
}

#undef CF_TEST_GAIN
#define CF_TEST_GAIN 3.0f
