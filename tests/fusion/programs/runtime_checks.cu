// Grids whose coverage of the kernel's domain is true only for some sizes, or not provable
// from the text: sized from a #define while the bound is a parameter (PolyBench), rounded in
// float, rows stored with a #define stride. Fused under a run-time check; the original
// launches run when it fails.
#include <math.h>

#define NMAX 48
#define STRIDE 48

__global__ void brighten(const float *in, float *t, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    t[y * w + x] = 1.5f * in[y * w + x] + 0.25f;
}

__global__ void blur3(const float *t, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float l = t[y * w + max(x - 1, 0)], r = t[y * w + min(x + 1, w - 1)];
    out[y * w + x] = (l + t[y * w + x] + r) / 3.f;
}

// The grid covers NMAX x NMAX, the kernels' bounds are w and h.
void p_define_grid(const float *in, float *t, float *out, int w, int h)
{
    dim3 block(16, 8);
    dim3 grid((unsigned int)ceil((float)NMAX / (float)block.x),
              (unsigned int)ceil((float)NMAX / (float)block.y));
    brighten<<<grid, block>>>(in, t, w, h);
    blur3<<<grid, block>>>(t, out, w, h);
}

// A quotient rounded in float: exact below 2^24.
void p_float_ceil(const float *in, float *t, float *out, int w, int h)
{
    const dim3 block(8, 8);
    const dim3 grid(ceil((float)w / block.x), ceil((float)h / block.y));
    brighten<<<grid, block>>>(in, t, w, h);
    blur3<<<grid, block>>>(t, out, w, h);
}

__global__ void scale1(const float *in, float *t, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    t[i] = 2.f * in[i] - 1.f;
}

__global__ void next1(const float *t, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = t[i] + t[min(i + 1, n - 1)];
}

// The grid comes from a helper whose body is one return: read through it, no check needed.
dim3 grid_for(int w, int h, dim3 block)
{
    return dim3((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
}

void p_helper_grid(const float *in, float *t, float *out, int w, int h)
{
    const dim3 block(16, 4);
    const dim3 grid = grid_for(w, h, block);
    brighten<<<grid, block>>>(in, t, w, h);
    blur3<<<grid, block>>>(t, out, w, h);
}

// The block count is assigned again after the launches: the check reads the value both
// launches saw (host/byvalue.py), which it still holds at the second launch. Fused.
void p_grid_assigned_later(const float *in, float *t, float *out, int w, int h)
{
    int blocks = (NMAX * NMAX + 127) / 128;
    scale1<<<blocks, 128>>>(in, t, w * h);
    next1<<<blocks, 128>>>(t, out, w * h);
    blocks = 0;
    (void)blocks;
}

// ... assigned between them: the original launches, kept for when the check fails, could
// not run where the fused launch stands (the first would see the second's count). Refused.
void p_grid_assigned_between(const float *in, float *t, float *out, int w, int h)
{
    int blocks = (NMAX * NMAX + 127) / 128;
    scale1<<<blocks, 128>>>(in, t, w * h);
    blocks = (NMAX * NMAX + 63) / 64;
    next1<<<blocks, 64>>>(t, out, w * h);
}
