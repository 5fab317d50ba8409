// Stores inside a switch (issue 25, session 10; the held-out survey's Canny, whose
// non-maximum suppression zeroes its own element case by case). Written in that style: a
// 1-D grid (x = i % w), a negated guard, cases sharing an arm, an arm without a break last.
#include <cuda_runtime.h>

__global__ void quantise(const float *gx, const float *gy, unsigned char *seg, int w, int h)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (!(i >= 0 && i < w * h))
        return;
    float a = gx[i], b = gy[i];
    unsigned char s = 0;
    if (a > 0.25f && b > 0.25f) s = 2;
    else if (a > 0.25f) s = 1;
    else if (b > 0.25f) s = 3;
    else if (a < -0.5f) s = 5;
    seg[i] = s;
}

// m holds the magnitude on entry: each direction keeps it or zeroes it.
__global__ void suppress(const float *mag, const unsigned char *seg, float *m, int w, int h)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (!(i >= 0 && i < w * h))
        return;
    switch (seg[i]) {
    case 1:
    case 5:
        if (mag[i % w > 0 ? i - 1 : i] > mag[i] || mag[i % w < w - 1 ? i + 1 : i] > mag[i])
            m[i] = 0.0f;
        break;
    case 2: {
        float up = mag[i >= w ? i - w : i];
        if (up > mag[i])
            m[i] = 0.0f;
        break;
    }
    case 3:
        break;
    default:
        m[i] = -mag[i];
    }
}

__global__ void threshold(const float *m, unsigned char *out, int w, int h, float lo)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (!(i >= 0 && i < w * h))
        return;
    int x = i % w, y = i / w;
    float v = m[i] + 0.5f * (m[y * w + min(x + 1, w - 1)] + m[min(y + 1, h - 1) * w + x]);
    switch ((int)(v > lo) + (int)(v > 2.0f * lo)) {
    case 2: out[i] = 255; break;
    case 1: out[i] = 100; break;
    default: out[i] = 0; break;
    }
}

// A case falling into the next: no if/else chain means that; left as written.
__global__ void fallthrough(const float *m, float *o, int w, int h)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (!(i >= 0 && i < w * h))
        return;
    switch (i % 3) {
    case 0:
        o[i] = m[i];
    case 1:
        o[i] = 2.0f * m[i];
        break;
    default:
        o[i] = 0.0f;
        break;
    }
}

void canny_tail(const float *gx, const float *gy, const float *mag, unsigned char *seg,
                float *m, unsigned char *out, int w, int h)
{
    int n = w * h, threads = 64, blocks = (n + threads - 1) / threads;
    cudaStream_t s;
    cudaStreamCreate(&s);
    quantise<<<blocks, threads, 0, s>>>(gx, gy, seg, w, h);
    suppress<<<blocks, threads, 0, s>>>(mag, seg, m, w, h);
    threshold<<<blocks, threads, 0, s>>>(m, out, w, h, 0.3f);
    cudaStreamSynchronize(s);
    cudaStreamDestroy(s);
}

void kept(const float *gx, const float *gy, const float *mag, unsigned char *seg, float *m,
          float *o, int w, int h)
{
    int n = w * h, threads = 32, blocks = (n + threads - 1) / threads;
    quantise<<<blocks, threads>>>(gx, gy, seg, w, h);
    suppress<<<blocks, threads>>>(mag, seg, m, w, h);
    fallthrough<<<blocks, threads>>>(m, o, w, h);
}
