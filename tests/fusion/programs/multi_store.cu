// Producers whose threads store several elements each, in a loop, and one that updates a
// single element in a loop at a row stride other than its guard's bound: refused, each with
// the elements it stores named.
#define STRIDE 64

// Four consecutive elements per thread.
__global__ void quad(const float *in, float *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    for (int k = 0; k < 4; ++k)
        a[i * 4 + k] = in[i] * k;
}

// A row per block, walked by its threads (a block-stride loop).
__global__ void row_walk(const float *in, float *a, int w)
{
    int y = blockIdx.x;
    for (int x = threadIdx.x; x < w; x += blockDim.x)
        a[y * w + x] = in[y * w + x] + 1.f;
}

// One element, updated in a loop, at a fixed row stride while the guard bounds x by w.
__global__ void sum_rows(const float *in, float *a, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) {
        a[y * STRIDE + x] = 0.f;
        for (int k = 0; k < 3; ++k)
            a[y * STRIDE + x] += in[y * STRIDE + x] * k;
    }
}

__global__ void twice(const float *a, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.f * a[i];
}

void p_quad(const float *in, float *a, float *out, int w, int h)
{
    quad<<<(w + 63) / 64, 64>>>(in, a, w);
    twice<<<(4 * w + 63) / 64, 64>>>(a, out, 4 * w);
}

void p_row_walk(const float *in, float *a, float *out, int w, int h)
{
    row_walk<<<h, 32>>>(in, a, w);
    twice<<<(w * h + 63) / 64, 64>>>(a, out, w * h);
}

void p_sum_rows(const float *in, float *a, float *out, int w, int h)
{
    dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
    sum_rows<<<grid, block>>>(in, a, w, h);
    twice<<<(w * h + 63) / 64, 64>>>(a, out, w * h);
}

// Three interleaved channels of its own element, each accumulated over a 2x2 window.
__global__ void shrink3(const float *in, float *a, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) {
        int i = y * w + x;
        for (int r = 0; r < 2; ++r) {
            a[i * 3 + 0] += in[(2 * y + r) * 2 * w + 2 * x] * 0.25f;
            a[i * 3 + 1] += in[(2 * y + r) * 2 * w + 2 * x + 1] * 0.25f;
            a[i * 3 + 2] += 1.f;
        }
    }
}

void p_shrink3(const float *in, float *a, float *out, int w, int h)
{
    dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
    shrink3<<<grid, block>>>(in, a, w, h);
    twice<<<(3 * w * h + 63) / 64, 64>>>(a, out, 3 * w * h);
}
