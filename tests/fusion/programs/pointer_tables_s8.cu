// Buffers handed to launches through a table set once (issue 25): a local array of
// pointers or a std::vector<float *> initialised from buffer variables and then only read at
// constant positions. `bufs[0]` is then the variable it was set from; a table whose element
// is assigned, read at a run-time position, or whose variable changes after it, is not
// followed (the launch given it splits its sequence). Each entry is
// `entry(in, t, u, v, out, int w, int h)` over n = w * h elements.
#include <cstdio>
#include <vector>

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

void p_table_array(const float *in, float *t, float *u, float *v, float *out, int w, int h)
{
    int n = w * h, b = 128, g = (n + b - 1) / b;
    float *bufs[2] = {t, out};
    scale<<<g, b>>>(in, bufs[0], n);
    plus<<<g, b>>>(bufs[0], bufs[1], n);
}

void p_table_vector(const float *in, float *t, float *u, float *v, float *out, int w, int h)
{
    int n = w * h, b = 128, g = (n + b - 1) / b;
    std::vector<float *> stages = {t, u, out};
    scale<<<g, b>>>(in, stages[0], n);
    plus<<<g, b>>>(stages[0], stages[1], n);
    negate<<<g, b>>>(stages[1], stages[2], n);
}

// Device buffers allocated here, then listed: the table holds the allocations.
void p_table_alloc(const float *in, float *t, float *u, float *v, float *out, int w, int h)
{
    int n = w * h, b = 128, g = (n + b - 1) / b;
    float *a, *c;
    cudaMalloc(&a, n * sizeof(float));
    cudaMalloc(&c, n * sizeof(float));
    float *tmp[] = {a, c};
    scale<<<g, b>>>(in, tmp[0], n);
    negate<<<g, b>>>(tmp[0], tmp[1], n);
    plus<<<g, b>>>(tmp[1], out, n);
    cudaFree(a);
    cudaFree(c);
}

// An element assigned after the table is set: not followed.
void p_table_assigned(const float *in, float *t, float *u, float *v, float *out, int w, int h)
{
    int n = w * h, b = 128, g = (n + b - 1) / b;
    float *bufs[2] = {t, u};
    bufs[0] = u;
    scale<<<g, b>>>(in, bufs[0], n);
    plus<<<g, b>>>(t, out, n);
}

// The variable an element was set from changes after the table is set: not followed.
void p_table_stale(const float *in, float *t, float *u, float *v, float *out, int w, int h)
{
    int n = w * h, b = 128, g = (n + b - 1) / b;
    float *p = u;
    float *bufs[2] = {p, v};
    p = t;
    scale<<<g, b>>>(in, p, n);
    plus<<<g, b>>>(bufs[0], out, n);
}

// A position known at run time only: not followed.
void p_table_runtime(const float *in, float *t, float *u, float *v, float *out, int w, int h)
{
    int n = w * h, b = 128, g = (n + b - 1) / b;
    float *bufs[2] = {t, u};
    int k = w > 1 ? 0 : 1;
    scale<<<g, b>>>(in, bufs[k], n);
    plus<<<g, b>>>(t, out, n);
}

// A memset of the table's buffer between the launches, named directly: it splits.
void p_table_memset(const float *in, float *t, float *u, float *v, float *out, int w, int h)
{
    int n = w * h, b = 128, g = (n + b - 1) / b;
    float *bufs[2] = {t, out};
    scale<<<g, b>>>(in, bufs[0], n);
    cudaMemset(t, 0, w * sizeof(float));
    plus<<<g, b>>>(bufs[0], bufs[1], n);
}
