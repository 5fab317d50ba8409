// Kernel templates in styles the other template tests do not use (issue 25): kernel and
// device templates declared before their definitions (in a header), an explicit specialisation, a bool and an
// enumeration as non-type parameters handed on to device templates, `if constexpr`, a
// defaulted parameter.
#include <cuda_runtime.h>
#include "template_styles_decls.cuh"

template <typename T>
__global__ void offset_k(const T *in, T *out, T by, int n)
{
    const int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n)
        out[i] = in[i] + by;
}

template <typename T, int STRIDE>
__global__ void twice_k(const T *in, T *out, int n)
{
    const int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i >= n)
        return;
    out[i] = in[i] * T(2) + T(STRIDE - 1);
}

// A device template declared in the header, called with its arguments given and deduced.
template <typename T>
__device__ T cube(T v)
{
    return v * v * v;
}

template <typename T>
__global__ void cubed_k(const T *in, T *out, int n)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n) out[i] = cube<T>(in[i]) - in[i];
}

__global__ void cubed_plain_k(const float *in, float *out, int n)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n) out[i] = cube(in[i]) * 0.5f;
}

// The primary template adds one; the specialisation for double subtracts three.
template <typename T>
__global__ void bump_k(const T *in, T *out, int n)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n) out[i] = in[i] + T(1);
}

template <>
__global__ void bump_k<double>(const double *in, double *out, int n)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n) out[i] = in[i] - 3.0;
}

// A bool parameter handed on to a device template (Rodinia's scan style).
template <bool CLAMP>
__device__ float fetch(const float *p, int i, int n)
{
    if (CLAMP)
        return p[i < n - 1 ? i + 1 : n - 1];
    return p[i];
}

template <bool CLAMP>
__global__ void shifted_k(const float *in, float *out, int n)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n) out[i] = fetch<CLAMP>(in, i, n) * 0.5f;
}

template <bool NEG>
__device__ float signed_half(float v)
{
    return NEG ? -0.5f * v : 0.5f * v;
}

template <bool NEG, typename T = float>
__global__ void half_k(const T *in, T *out, int n)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n) out[i] = signed_half<NEG>(in[i]);
}

enum class Op { Add, Mul };

template <Op OP>
__device__ float apply(float a, float b)
{
    if constexpr (OP == Op::Add)
        return a + b;
    else
        return a * b;
}

template <Op OP>
__global__ void combine_k(const float *a, const float *b, float *out, int n)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n) out[i] = apply<OP>(a[i], b[i]);
}

void p_forward(const float *in, float *tmp, float *out, int n)
{
    const int threads = 64;
    offset_k<float><<<(n + threads - 1) / threads, threads>>>(in, tmp, 0.25f, n);
    twice_k<float><<<(n + threads - 1) / threads, threads>>>(tmp, out, n);
}

void p_helper(const float *in, float *tmp, float *out, int n)
{
    cubed_k<<<(n + 63) / 64, 64>>>(in, tmp, n);
    cubed_plain_k<<<(n + 63) / 64, 64>>>(tmp, out, n);
}

void p_default_arg(const double *in, double *tmp, double *out, int n)
{
    twice_k<double, 3><<<(n + 31) / 32, 32>>>(in, tmp, n);
    offset_k<<<(n + 31) / 32, 32>>>(tmp, out, 1.5, n);
}

void p_specialised(const double *in, double *tmp, double *out, int n)
{
    bump_k<double><<<(n + 63) / 64, 64>>>(in, tmp, n);
    bump_k<double><<<(n + 63) / 64, 64>>>(tmp, out, n);
}

void p_bool(const float *in, float *tmp, float *out, int n)
{
    shifted_k<true><<<(n + 127) / 128, 128>>>(in, tmp, n);
    shifted_k<false><<<(n + 127) / 128, 128>>>(tmp, out, n);
}

void p_bool_values(const float *in, float *tmp, float *out, int n)
{
    half_k<true><<<(n + 127) / 128, 128>>>(in, tmp, n);
    half_k<false><<<(n + 127) / 128, 128>>>(tmp, out, n);
}

void p_enum(const float *a, const float *b, float *tmp, float *out, int n)
{
    combine_k<Op::Mul><<<(n + 127) / 128, 128>>>(a, b, tmp, n);
    combine_k<Op::Add><<<(n + 127) / 128, 128>>>(tmp, b, out, n);
}

// Host function templates (Caffe's Forward_gpu, explicitly instantiated; a static launcher
// called with deduced arguments; one with a default argument; one never used; one whose
// launches do not fuse, whose specialisation must not stay in the output).
template <typename Dtype>
void forward_gpu(const Dtype *bottom, Dtype *tmp, Dtype *top, int count)
{
    // the bias first, then the doubling (comments are dropped in the copies)
    offset_k<Dtype><<<(count + 127) / 128, 128>>>(bottom, tmp, Dtype(1), count);
    twice_k<Dtype><<<(count + 127) / 128, 128>>>(tmp, top, count);
}

template void forward_gpu<float>(const float *, float *, float *, int);
template void forward_gpu<double>(const double *, double *, double *, int);

template <int R, typename T>
static void launch_pair(const T *a, T *t, T *o, int n)
{
    const int threads = 32 * R;
    combine_k<Op::Add><<<(n + threads - 1) / threads, threads>>>(a, a, t, n);
    half_k<R == 2><<<(n + threads - 1) / threads, threads>>>(t, o, n);
}

template <typename T>
void with_default(const T *a, T *t, T *o, int n, T by = T(2))
{
    offset_k<T><<<(n + 63) / 64, 64>>>(a, t, by, n);
    offset_k<T><<<(n + 63) / 64, 64>>>(t, o, by, n);
}

template <typename T>
void never_used(const T *a, T *t, T *o, int n)
{
    offset_k<T><<<(n + 63) / 64, 64>>>(a, t, T(1), n);
    twice_k<T><<<(n + 63) / 64, 64>>>(t, o, n);
}

template <typename T>
void in_place(T *a, T *t, int n)
{
    twice_k<T><<<(n + 63) / 64, 64>>>(a, t, n);
    twice_k<T><<<(n + 63) / 64, 64>>>(t, a, n);
}

// A kernel the fusion pass respells first (copies of the built-ins, Rodinia style), launched
// from a host template: the copies are written into the respelled text.
template <typename T>
__global__ void copies_k(const T *in, T *out, int n)
{
    int bx = blockIdx.x;
    int tx = threadIdx.x;
    int i = bx * blockDim.x + tx;
    if (i < n)
        out[i] = in[i] - T(1);
}

template <typename T>
void respelled_pair(const T *a, T *t, T *o, int n)
{
    copies_k<T><<<(n + 63) / 64, 64>>>(a, t, n);
    offset_k<T><<<(n + 63) / 64, 64>>>(t, o, T(3), n);
}

void p_respelled(const float *in, float *tmp, float *out, int n)
{
    respelled_pair(in, tmp, out, n);
}

// Launchers in a namespace, one calling the other, one returning a status.
namespace launch {
template <typename T>
inline void pair_in_place(const T *a, T *t, int n)
{
    offset_k<T><<<(n + 63) / 64, 64>>>(a, t, T(-1), n);
    twice_k<T><<<(n + 63) / 64, 64>>>(t, t, n);
}

template <typename T>
int chain(const T *a, T *t, T *o, T *p, int n)
{
    pair_in_place(a, t, n);
    offset_k<T><<<(n + 63) / 64, 64>>>(t, o, T(2), n);
    twice_k<T><<<(n + 63) / 64, 64>>>(o, p, n);
    return 0;
}
}  // namespace launch

void p_nested(const float *in, float *tmp, float *out, float *last, int n)
{
    launch::chain(in, tmp, out, last, n);
}

void p_template_host(const float *in, float *tmp, float *out, int n)
{
    forward_gpu(in, tmp, out, n);
}

void p_template_host_double(const double *in, double *tmp, double *out, int n)
{
    forward_gpu<double>(in, tmp, out, n);
}

void p_static_launcher(const float *in, float *tmp, float *out, int n)
{
    launch_pair<2>(in, tmp, out, n);
}

void p_default_host(const float *in, float *tmp, float *out, int n)
{
    with_default(in, tmp, out, n);
}

void p_in_place(float *a, float *tmp, int n)
{
    in_place(a, tmp, n);
}
