// Host code the front end cannot read (issue 25): Thrust's headers are not among those
// cudafuse parses with, so clang drops `thrust::fill(...)` from the functions below, and
// the value of `float *mid = thrust::raw_pointer_cast(...)`, without an error it reports
// (the second missing header is a fatal error after which clang reports nothing). A fill
// of the intermediate between its producer and its consumer must still keep them apart,
// and a pointer whose value was dropped names no known buffer; a macro that expands to
// nothing between two launches is no code. Each entry is
// `entry(in, t, out, int w, int h)` over n = w * h elements.
#include <thrust/device_vector.h>
#include <thrust/fill.h>

#define TIMER_MARK

__global__ void scale(const float *in, float *t, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) t[i] = in[i] * 1.5f - 0.5f;
}

__global__ void plus(const float *t, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = t[i] + 2.0f;
}

// An empty macro between the launches: fuses.
void p_mark(const float *in, float *t, float *out, int w, int h)
{
    int n = w * h, b = 128, g = (n + b - 1) / b;
    scale<<<g, b>>>(in, t, n);
    TIMER_MARK;
    plus<<<g, b>>>(t, out, n);
}

// The intermediate filled in part between the launches: they stay apart.
void p_fill_between(const float *in, float *t, float *out, int w, int h)
{
    int n = w * h, b = 128, g = (n + b - 1) / b;
    scale<<<g, b>>>(in, t, n);
    thrust::fill(thrust::device_pointer_cast(t), thrust::device_pointer_cast(t) + w, 0.0f);
    plus<<<g, b>>>(t, out, n);
}

// The same inside a branch between the launches.
void p_fill_in_branch(const float *in, float *t, float *out, int w, int h)
{
    int n = w * h, b = 128, g = (n + b - 1) / b;
    scale<<<g, b>>>(in, t, n);
    if (w > 2) {
        thrust::fill(thrust::device_pointer_cast(t) + 1, thrust::device_pointer_cast(t) + 3,
                     -1.0f);
    }
    plus<<<g, b>>>(t, out, n);
}

// A device vector's buffer as the intermediate, its pointer's value dropped: not fused.
void p_vector_mid(const float *in, float *t, float *out, int w, int h)
{
    int n = w * h, b = 128, g = (n + b - 1) / b;
    thrust::device_vector<float> d_t(n);
    float *mid = thrust::raw_pointer_cast(d_t.data());
    scale<<<g, b>>>(in, mid, n);
    plus<<<g, b>>>(mid, out, n);
}
