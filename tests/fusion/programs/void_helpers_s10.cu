// Kernels that store through void device helpers (issue 25, session 10; the held-out
// survey's unsharp mask stores each pixel in `pixel_average(out, in, x, y, ...)`).
#include <cuda_runtime.h>

__device__ void put(float *out, int x, int y, int w, float v) { out[y * w + x] = v; }

// A 3x3 box with clamped neighbours, the sum in a local of the helper.
__device__ void box(float *out, const float *in, const int x, const int y, int w, int h)
{
    float s = 0.0f;  // the window's sum
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            const int r = y + dy < 0 ? 0 : (y + dy >= h ? h - 1 : y + dy);
            const int c = min(max(x + dx, 0), w - 1);
            s += in[r * w + c];
        }
    out[y * w + x] = s / 9.0f;
}

// Interleaved RGB, averaged over a (2r-1)^2 window with replicated borders (unsigned).
__device__ void rgb_average(unsigned char *out, const unsigned char *in, const int x,
                            const int y, const int r, const unsigned w, const unsigned h)
{
    float red = 0, green = 0, blue = 0;
    const unsigned count = (r * 2 - 1) * (r * 2 - 1);
    for (int j = y - r + 1; j < y + r; ++j)
        for (int i = x - r + 1; i < x + r; ++i) {
            const unsigned ri = i < 0 ? 0 : i >= w ? w - 1 : i;
            const unsigned rj = j < 0 ? 0 : j >= h ? h - 1 : j;
            unsigned at = (rj * w + ri) * 3;
            red += in[at + 0];
            green += in[at + 1];
            blue += in[at + 2];
        }
    unsigned at = (y * w + x) * 3;
    out[at + 0] = red / count;
    out[at + 1] = green / count;
    out[at + 2] = blue / count;
}

// Two helpers left as calls: one returns early, one changes its parameter.
__device__ void put_positive(float *out, int i, float v)
{
    if (v < 0.0f) return;
    out[i] = v;
}
__device__ void put_shifted(float *out, int i, float v)
{
    i += 0;
    out[i] = v;
}

__global__ void scale(const float *in, float *t, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    put(t, x, y, w, in[y * w + x] * 2.0f - 0.5f);
}

__global__ void blur(const float *t, float *o, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) box(o, t, x, y, w, h);
}

__global__ void blur_braced(const float *o, float *s, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) {
        box(s, o, x, y, w, h);
    }
}

__global__ void average(unsigned char *out, const unsigned char *in, const int r,
                        const unsigned w, const unsigned h)
{
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px < w) {
        if (py < h) {
            rgb_average(out, in, px, py, r, w, h);
        }
    }
}

__global__ void positive(const float *t, float *o, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) put_positive(o, i, t[i]);
}

__global__ void shifted(const float *t, float *o, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) put_shifted(o, i, t[i]);
}

void smooth(const float *in, float *t, float *o, float *s, int w, int h)
{
    dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
    scale<<<grid, block>>>(in, t, w, h);
    blur<<<grid, block>>>(t, o, w, h);
    blur_braced<<<grid, block>>>(o, s, w, h);
}

void soften(const unsigned char *in, unsigned char *a, unsigned char *b, int w, int h)
{
    dim3 block(8, 8), grid((w + 7) / 8, (h + 7) / 8);
    average<<<grid, block>>>(a, in, 2, w, h);
    average<<<grid, block>>>(b, a, 2, w, h);
}

void kept(const float *in, float *t, float *o, float *s, int w, int h)
{
    dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
    scale<<<grid, block>>>(in, t, w, h);
    positive<<<(w * h + 63) / 64, 64>>>(t, o, w * h);
    shifted<<<(w * h + 63) / 64, 64>>>(o, s, w * h);
}
