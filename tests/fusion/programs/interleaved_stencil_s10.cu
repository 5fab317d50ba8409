// Stencils over interleaved RGB images (issue 25, session 10): a consumer reads channel c of
// a neighbour, `p[(row * w + col) * 3 + c]`, where row and col are clamped inline (a
// conditional, min/max, a device helper) rather than through a local. Written for the
// held-out survey's unsharp-mask style (nested guards, explicit channel stores).
#include <cuda_runtime.h>

__device__ int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

__global__ void lift(const unsigned char *in, float *lit, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w) {
        if (y < h) {
            int o = (y * w + x) * 3;
            lit[o + 0] = in[o + 0] * (1.0f / 255.0f);
            lit[o + 1] = in[o + 1] * (1.0f / 255.0f);
            lit[o + 2] = in[o + 2] * (1.0f / 255.0f);
        }
    }
}

// Rows clamped by a conditional, columns by min/max, both written in the subscript.
__global__ void box3(const float *src, float *dst, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float r = 0.0f, g = 0.0f, b = 0.0f;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            r += src[((y + dy < 0 ? 0 : (y + dy >= h ? h - 1 : y + dy)) * w +
                      min(max(x + dx, 0), w - 1)) * 3 + 0];
            g += src[((y + dy < 0 ? 0 : (y + dy >= h ? h - 1 : y + dy)) * w +
                      min(max(x + dx, 0), w - 1)) * 3 + 1];
            b += src[((y + dy < 0 ? 0 : (y + dy >= h ? h - 1 : y + dy)) * w +
                      min(max(x + dx, 0), w - 1)) * 3 + 2];
        }
    dst[(y * w + x) * 3 + 0] = r / 9.0f;
    dst[(y * w + x) * 3 + 1] = g / 9.0f;
    dst[(y * w + x) * 3 + 2] = b / 9.0f;
}

// Clamped through a one-return device helper, the channel added last.
__global__ void cross5(const float *src, float *dst, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) {
        int o = (y * w + x) * 3;
        for (int c = 0; c < 3; ++c)
            dst[o + c] = 0.5f * src[o + c] +
                0.125f * (src[(clampi(y - 1, 0, h - 1) * w + x) * 3 + c] +
                          src[(clampi(y + 1, 0, h - 1) * w + x) * 3 + c] +
                          src[(y * w + clampi(x - 1, 0, w - 1)) * 3 + c] +
                          src[(y * w + clampi(x + 1, 0, w - 1)) * 3 + c]);
    }
}

__global__ void mix(const float *lit, const float *soft, unsigned char *out, int w, int h,
                    float amount)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w) {
        if (y < h) {
            int o = (y * w + x) * 3;
            for (int c = 0; c < 3; ++c) {
                float v = (1.0f + amount) * lit[o + c] - amount * soft[o + c];
                out[o + c] = (unsigned char)(255.0f * fminf(fmaxf(v, 0.0f), 1.0f));
            }
        }
    }
}

// Reads a channel that depends on the thread (x & 1) or comes from a float: no constant
// channel, refused.
__global__ void wobble(const float *src, float *dst, int w, int h, float t)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    dst[y * w + x] = src[(y * w + x) * 3 + (x & 1)];
}

__global__ void drift(const float *src, float *dst, int w, int h, float t)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    dst[y * w + x] = src[(y * w + x) * 3 + (int)(t * 3)];
}

void unsharp_rgb(const unsigned char *in, float *lit, float *soft, unsigned char *out, int w,
                 int h, float amount)
{
    dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
    lift<<<grid, block>>>(in, lit, w, h);
    box3<<<grid, block>>>(lit, soft, w, h);
    mix<<<grid, block>>>(lit, soft, out, w, h, amount);
}

void cross_twice(const unsigned char *in, float *lit, float *a, float *b, int w, int h)
{
    dim3 block(8, 8), grid((w + 7) / 8, (h + 7) / 8);
    lift<<<grid, block>>>(in, lit, w, h);
    cross5<<<grid, block>>>(lit, a, w, h);
    cross5<<<grid, block>>>(a, b, w, h);
}

void refused(const unsigned char *in, float *lit, float *p, float *q, int w, int h, float t)
{
    dim3 block(8, 8), grid((w + 7) / 8, (h + 7) / 8);
    lift<<<grid, block>>>(in, lit, w, h);
    wobble<<<grid, block>>>(lit, p, w, h, t);
    drift<<<grid, block>>>(lit, q, w, h, t);
}
