// Launches given a part of a buffer (issue 25): `t + off`, `&t[k]`, an offset into a
// pointer that aliases another, an offset into a pointer rotated with std::swap. Such a
// launch joins its sequence as a user of the whole buffer (it is fused with nothing
// itself): launches around it that touch other memory fuse across it, and those whose
// buffer it reads or writes do not. Each entry is `entry(in, t, u, v, out, int w, int h)`
// over n = w * h elements (u and v have room for w more).
#include <cstdio>
#include <utility>

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

__global__ void negate(const float *a, float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = -a[i];
}

// The middle launch reads and writes other buffers, through offsets: k1 + k3 fuse.
void p_offset_other(const float *in, float *t, float *u, float *v, float *out, int w, int h)
{
    int n = w * h, b = 128, g = (n + b - 1) / b;
    scale<<<g, b>>>(in, t, n);
    negate<<<g, b>>>(u + w, v + 1, n - w);
    plus<<<g, b>>>(t, out, n);
}

// The same by address of an element.
void p_addr_elem(const float *in, float *t, float *u, float *v, float *out, int w, int h)
{
    int n = w * h, b = 128, g = (n + b - 1) / b;
    scale<<<g, b>>>(in, t, n);
    negate<<<g, b>>>(&u[w], &v[w - 1], n - w);
    plus<<<g, b>>>(t, out, n);
}

// The middle launch reads the intermediate, shifted: nothing may move across it.
void p_offset_reads_t(const float *in, float *t, float *u, float *v, float *out, int w, int h)
{
    int n = w * h, b = 128, g = (n + b - 1) / b;
    scale<<<g, b>>>(in, t, n);
    negate<<<g, b>>>(t + 1, v, n - 1);
    plus<<<g, b>>>(t, out, n);
}

// It writes part of the intermediate between its producer and its consumer.
void p_offset_writes_t(const float *in, float *t, float *u, float *v, float *out, int w, int h)
{
    int n = w * h, b = 128, g = (n + b - 1) / b;
    scale<<<g, b>>>(in, t, n);
    negate<<<g, b>>>(u, &t[w], n - w);
    plus<<<g, b>>>(t, out, n);
}

// A launch after the pair reads the intermediate: it is fused, and still stored.
void p_offset_after(const float *in, float *t, float *u, float *v, float *out, int w, int h)
{
    int n = w * h, b = 128, g = (n + b - 1) / b;
    scale<<<g, b>>>(in, t, n);
    plus<<<g, b>>>(t, out, n);
    negate<<<g, b>>>(t + w, v, n - w);
}

// An offset into a second name of the intermediate: still the intermediate.
void p_alias_offset(const float *in, float *t, float *u, float *v, float *out, int w, int h)
{
    int n = w * h, b = 128, g = (n + b - 1) / b;
    const float *view = t;
    scale<<<g, b>>>(in, t, n);
    negate<<<g, b>>>(view + 2, v, n - 2);
    plus<<<g, b>>>(t, out, n);
}

// Ping-pong buffers rotated by std::swap, one read through an offset each step.
void p_rotate_offset(const float *in, float *t, float *u, float *v, float *out, int w, int h)
{
    int n = w * h, b = 128, g = (n + b - 1) / b;
    float *cur = t, *nxt = u;
    scale<<<g, b>>>(in, cur, n);
    for (int step = 0; step < 3; ++step) {
        scale<<<g, b>>>(cur, nxt, n);
        negate<<<g, b>>>(cur + 1, v, n - 1);
        plus<<<g, b>>>(nxt, out, n);
        std::swap(cur, nxt);
    }
}
